"""Baselines: the findings a project accepts today stay hidden, new ones are reported."""

from __future__ import annotations

import json

import pytest
from test_cli import PL102, check, copy, work  # noqa: F401 (work is a fixture)

from promptlint.engine import baseline
from promptlint.engine.lint import lint_text

BASELINE = ".promptlint-baseline.json"
SCORED_LINE = "[1] Returns and Credits Policy — Returns > Damaged goods (score: 0.91)\n"


def test_a_baseline_hides_the_findings_it_records(work):
    copy(PL102 / "bad.txt", work / "prompts")
    inside = f"prompts/{BASELINE}"
    result = check("--select", "PL102", "--write-baseline", inside, "prompts")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", f"Wrote 4 finding(s) to {inside}\n")
    entries = json.loads((work / inside).read_text(encoding="utf-8"))
    assert entries["version"] == 1
    assert [(e["path"], e["code"]) for e in entries["findings"]] == [("prompts/bad.txt", "PL102")] * 4
    # The baseline is JSON in the folder linted (a prompt folder); it is not read as a chat file.
    result = check("--select", "PL102", "--baseline", inside, "prompts")
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")


def test_findings_stay_hidden_when_lines_are_added_above_them(work):
    bad = copy(PL102 / "bad.txt", work)
    check("--select", "PL102", "--write-baseline", BASELINE, "bad.txt")
    bad.write_text("A new first line.\n\nAnd another paragraph.\n" + bad.read_text(encoding="utf-8"), encoding="utf-8")
    result = check("--select", "PL102", "--baseline", BASELINE, "bad.txt")
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")


def test_a_new_finding_is_reported(work):
    bad = copy(PL102 / "bad.txt", work)
    check("--select", "PL102", "--write-baseline", BASELINE, "bad.txt")
    text = bad.read_text(encoding="utf-8")
    bad.write_text(text.replace("Question:", "[5] Returns FAQ — Refunds (score: 0.77)\nRefunds take five days.\n\nQuestion:"), encoding="utf-8")
    result = check("--select", "PL102", "--baseline", BASELINE, "--output-format", "concise", "bad.txt")
    assert result.exit_code == 1
    [line] = result.stdout.splitlines()
    assert line.startswith("bad.txt:20:35: PL102 [retrieval-score] Source 5 shows its retrieval score ('score: 0.77')")
    assert result.stderr.startswith("Found 1 finding")
    # Without the baseline, all five.
    assert len(check("--select", "PL102", "--output-format", "concise", "bad.txt").stdout.splitlines()) == 5


def test_identical_findings_are_counted(work):
    prompt = work / "dup.txt"
    prompt.write_text(f"Answer from the sources.\n\n{SCORED_LINE}Text.\n\n{SCORED_LINE}Text.\n\nQuestion: Why?\n", encoding="utf-8")
    check("--select", "PL102", "--write-baseline", BASELINE, "dup.txt")
    entries = json.loads((work / BASELINE).read_text(encoding="utf-8"))["findings"]
    assert len(entries) == 2 and entries[0] == entries[1]
    prompt.write_text(prompt.read_text(encoding="utf-8").replace("Question", f"{SCORED_LINE}Text.\n\nQuestion"), encoding="utf-8")
    result = check("--select", "PL102", "--baseline", BASELINE, "--output-format", "concise", "dup.txt")
    assert result.exit_code == 1
    assert [line.split(": ", 1)[0] for line in result.stdout.splitlines()] == ["dup.txt:9:66"]


def test_new_findings_consumes_one_entry_per_finding():
    text = f"Answer.\n\n{SCORED_LINE}Text.\n\n{SCORED_LINE}Text.\n\nQuestion: Why?\n"
    findings = [f for f in lint_text(text, path="p.txt") if f.code == "PL102"]
    assert len(findings) == 2
    text_of_one = baseline.dumps(baseline.keys(findings[:1], text))
    assert baseline.new_findings(findings, text, baseline.loads(text_of_one, "b.json")) == findings[1:]
    assert baseline.new_findings(findings, text, baseline.loads(baseline.dumps(baseline.keys(findings, text)), "b.json")) == []
    # Another file's identical finding is not accounted for.
    other = [f.__class__(**{**f.__dict__, "path": "q.txt"}) for f in findings]
    assert baseline.new_findings(other, text, baseline.loads(text_of_one, "b.json")) == other
    # The entries used are taken out of the count, which files checked one after another share.
    left = baseline.loads(text_of_one, "b.json")
    assert baseline.new_findings(findings[:1], text, left) == []
    assert baseline.new_findings(findings[1:], text, left) == findings[1:]
    assert +left == {}


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ("{not json", f"{BASELINE}:1:2: invalid JSON: Expecting property name enclosed in double quotes"),
        ("[]", f'{BASELINE}: not a promptlint baseline (expected {{"version": 1, "findings": [...]}})'),
        ('{"version": 9, "findings": []}', f"{BASELINE}: unsupported baseline version 9 (expected 1)"),
        ('{"version": 1, "findings": [{"path": "a.txt", "code": "PL102"}]}', f"{BASELINE}: findings[0] must have the strings path, code and fingerprint"),
        (None, f"{BASELINE}: cannot read: No such file or directory"),
    ],
)
def test_a_bad_baseline_is_a_one_line_error(work, content, error):
    copy(PL102 / "bad.txt", work)
    if content is not None:
        (work / BASELINE).write_text(content, encoding="utf-8")
    result = check("--select", "PL102", "--baseline", BASELINE, "bad.txt")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: {error}\n")


def test_write_baseline_records_what_remains_after_fix_and_quiet_says_nothing(work):
    bad = copy(PL102 / "bad.txt", work)
    result = check("--select", "PL102", "--fix", "--quiet", "--write-baseline", BASELINE, "bad.txt")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert bad.read_bytes() == (PL102 / "bad.fixed.txt").read_bytes()
    assert json.loads((work / BASELINE).read_text(encoding="utf-8"))["findings"] == []


def test_writing_a_baseline_is_atomic(work, monkeypatch):
    import os

    copy(PL102 / "bad.txt", work)
    check("--select", "PL102", "--write-baseline", BASELINE, "bad.txt")
    # A new file gets the mode open() gives one; the write leaves no temporary file behind.
    umask = os.umask(0)
    os.umask(umask)
    assert (work / BASELINE).stat().st_mode & 0o777 == 0o666 & ~umask
    names = sorted(p.name for p in work.iterdir())
    assert not [n for n in names if n.endswith(".promptlint")]
    before = (work / BASELINE).read_bytes()

    def crash(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    (work / "bad.txt").write_text("[1] Other (score: 0.5)\nText.\n\nQuestion: Why?\n", encoding="utf-8")
    result = check("--select", "PL102", "--write-baseline", BASELINE, "bad.txt")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == f"Error: {BASELINE}: cannot write: No space left on device"
    assert (work / BASELINE).read_bytes() == before
    assert sorted(p.name for p in work.iterdir()) == names
