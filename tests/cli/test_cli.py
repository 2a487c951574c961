"""The command line, end to end: exact output, exit codes, and the files it writes.

Each test works on copies of the fixtures in its own temporary folder (the
current folder during the test, so paths in the output are short and exact) and
passes a config file that pins ``today``, so that dates are judged the same way
on every day the suite runs.
"""

from __future__ import annotations

import difflib
import json
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT
from promptlint import DISTRIBUTION
from promptlint.cli.commands import main
from promptlint.engine import registry

FIXTURES = ROOT / "fixtures"
CONFIG = "config.yaml"
BOM = b"\xef\xbb\xbf"

PL102 = FIXTURES / "PL102-retrieval-score"
PL301 = FIXTURES / "PL301-ungrouped-sources"

PL102_CONCISE = [
    "bad.txt:3:66: PL102 [retrieval-score] Source 1 shows its retrieval score ('score: 0.91'); the model reads it as an instruction to defer to the top hit",
    "bad.txt:6:36: PL102 [retrieval-score] Source 2 shows its retrieval score ('score 82%'); the model reads it as an instruction to defer to the top hit",
    "bad.txt:9:36: PL102 [retrieval-score] Source 3 shows its retrieval score ('score=0.61'); the model reads it as an instruction to defer to the top hit",
    "bad.txt:14:18: PL102 [retrieval-score] Source 4 shows its retrieval score ('<relevance_score>0.58</relevance_score>'); the model reads it as an instruction to defer to the top hit",
]


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / CONFIG).write_text("today: 2026-12-02\n", encoding="utf-8")
    return tmp_path


def run(*args: str):
    result = CliRunner().invoke(main, list(args), prog_name="promptlint")
    # Every outcome, errors included, must be an exit code, never an exception.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def check(*args: str):
    return run("check", "--config", CONFIG, *args)


def copy(source: Path, work: Path, name: str | None = None) -> Path:
    target = work / (name or source.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes())
    return target


def chat_record(user: str) -> dict:
    return {"messages": [{"role": "system", "content": "Answer from the sources and cite them as [n]."}, {"role": "user", "content": user}]}


SCORED_USER = "[1] Shipping FAQ \u2014 Delivery (score: 0.91)\nStandard delivery takes 3-5 working days.\n\nQuestion: How long does delivery take?"
CLEAN_USER = "[1] Shipping FAQ \u2014 Delivery\nStandard delivery takes 3-5 working days.\n\nQuestion: How long does delivery take?"


# ---- check: output formats ----


def test_check_concise_lines_are_exact(work):
    copy(PL102 / "bad.txt", work)
    result = check("--select", "PL102", "--output-format", "concise", "bad.txt")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == PL102_CONCISE
    assert result.stderr == "Found 4 findings, 4 fixable with --fix (saves 33 tokens).\n"


def test_check_full_shows_the_line_a_caret_under_the_finding_and_the_fix(work):
    copy(PL102 / "bad.txt", work)
    full = check("--select", "PL102", "bad.txt")
    assert full.exit_code == 1
    records = json.loads(check("--select", "PL102", "--output-format", "json", "bad.txt").stdout)
    lines = full.stdout.split("\n")
    source = (work / "bad.txt").read_text(encoding="utf-8").split("\n")
    for record, concise in zip(records, PL102_CONCISE, strict=True):
        at = lines.index(concise)
        number = str(record["line"])
        pad = " " * len(number)
        width = record["end_column"] - record["column"]
        assert lines[at + 1 : at + 6] == [
            f" {pad} |",
            f" {number} | {source[record['line'] - 1]}",
            f" {pad} | {' ' * (record['column'] - 1)}{'^' * width}",
            "  = fix (safe): Remove the score",
            f"  = costs {record['tokens']} tokens",
        ]
    assert lines[lines.index(PL102_CONCISE[0]) + 2] == " 3 | [1] Returns and Credits Policy — Returns > Damaged goods (score: 0.91)"
    assert full.stdout.endswith("\nFound 4 findings, 4 fixable with --fix (saves 33 tokens).\n")


def test_check_json_records(work):
    copy(PL102 / "bad.txt", work)
    copy(PL301 / "bad.txt", work, "ungrouped.txt")
    result = check("--select", "PL102,PL205,PL301", "--output-format", "json", "bad.txt", "ungrouped.txt")
    assert result.exit_code == 1
    records = json.loads(result.stdout)
    assert [(r["path"], r["line"], r["column"], r["code"]) for r in records] == [
        ("bad.txt", 3, 66, "PL102"),
        ("bad.txt", 6, 36, "PL102"),
        ("bad.txt", 9, 36, "PL102"),
        ("bad.txt", 14, 18, "PL102"),
        ("ungrouped.txt", 9, 1, "PL301"),
    ]
    for record in records:
        assert {"path", "code", "name", "message", "severity", "line", "column", "end_line", "end_column", "tokens", "fix"} <= set(record)
        assert record["name"] == registry.get(record["code"]).name
        assert record["severity"] in ("info", "warning", "error")
        assert all(isinstance(record[k], int) for k in ("line", "column", "end_line", "end_column", "tokens"))
        assert (record["end_line"], record["end_column"]) >= (record["line"], record["column"])
        fix = record["fix"]
        assert fix is None or (fix["applicability"] in ("safe", "unsafe", "display") and fix["edits"])
        for edit in fix["edits"] if fix else ():
            assert set(edit) == {"start", "end", "content"}
            assert 0 <= edit["start"] <= edit["end"]
    assert records[0]["message"] == PL102_CONCISE[0].split("] ", 1)[1]
    assert records[0]["severity"] == "warning"
    assert records[0]["fix"]["applicability"] == "safe"
    assert records[0]["fix"]["edits"] == [{"start": 103, "end": 117, "content": ""}]
    assert records[4]["fix"]["applicability"] == "unsafe"


def test_json_output_of_a_clean_run_is_an_empty_list(work):
    copy(PL102 / "good.txt", work)
    result = check("--output-format", "json", "good.txt")
    assert (result.exit_code, json.loads(result.stdout)) == (0, [])


def test_clean_file_passes(work):
    copy(PL102 / "good.txt", work)
    result = check("good.txt")
    assert result.exit_code == 0
    assert result.stdout == "All checks passed!\n"


def test_version(work):
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout == f"promptlint, version {version(DISTRIBUTION)}\n"


# ---- check --fix and --diff ----


def test_fix_writes_the_fixed_fixture(work):
    bad = copy(PL102 / "bad.txt", work)
    result = check("--select", "PL102", "--fix", "bad.txt")
    assert result.exit_code == 0
    assert result.stdout == "Found 4 findings (4 fixed, 0 remaining).\n"
    assert bad.read_bytes() == (PL102 / "bad.fixed.txt").read_bytes()
    again = check("--select", "PL102", "bad.txt")
    assert (again.exit_code, again.stdout) == (0, "All checks passed!\n")


def test_fix_with_default_rules_leaves_nothing_fixable(work):
    bad = copy(PL102 / "bad.txt", work)
    check("--fix", "bad.txt")
    fixed = bad.read_bytes()
    assert fixed != (PL102 / "bad.txt").read_bytes()
    records = json.loads(check("--output-format", "json", "bad.txt").stdout)
    assert [r for r in records if r["fix"] and r["fix"]["applicability"] == "safe"] == []
    again = check("--fix", "bad.txt")
    assert "fixed" not in again.stdout.lower()
    assert bad.read_bytes() == fixed


def test_fix_leaves_unsafe_fixes_unless_asked(work):
    bad = copy(PL301 / "bad.txt", work)
    result = check("--select", "PL301", "--fix", "bad.txt")
    assert result.exit_code == 1
    assert bad.read_bytes() == (PL301 / "bad.txt").read_bytes()
    assert result.stdout.endswith("Found 1 finding, 1 more with --unsafe-fixes.\n")
    result = check("--select", "PL301", "--fix", "--unsafe-fixes", "bad.txt")
    assert (result.exit_code, result.stdout) == (0, "Found 1 finding (1 fixed, 0 remaining).\n")
    assert bad.read_bytes() == (PL301 / "bad.fixed.txt").read_bytes()


def test_diff_prints_the_fix_and_writes_nothing(work):
    bad = copy(PL102 / "bad.txt", work)
    result = check("--select", "PL102", "--diff", "bad.txt")
    assert result.exit_code == 1
    old = (PL102 / "bad.txt").read_text(encoding="utf-8").splitlines(True)
    new = (PL102 / "bad.fixed.txt").read_text(encoding="utf-8").splitlines(True)
    assert result.stdout == "".join(difflib.unified_diff(old, new, "a/bad.txt", "b/bad.txt"))
    assert "-[1] Returns and Credits Policy — Returns > Damaged goods (score: 0.91)\n+[1] Returns and Credits Policy — Returns > Damaged goods\n" in result.stdout
    assert bad.read_bytes() == (PL102 / "bad.txt").read_bytes()


def test_diff_exits_0_when_there_is_nothing_to_fix(work):
    copy(PL102 / "good.txt", work)
    copy(PL301 / "bad.txt", work, "ungrouped.txt")
    result = check("--diff", "good.txt")
    assert (result.exit_code, result.stdout) == (0, "")
    # An unsafe fix is not shown without --unsafe-fixes ...
    result = check("--select", "PL301", "--diff", "ungrouped.txt")
    assert (result.exit_code, result.stdout) == (0, "")
    # ... and is with it, still without writing.
    result = check("--select", "PL301", "--diff", "--unsafe-fixes", "ungrouped.txt")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/ungrouped.txt\n+++ b/ungrouped.txt\n")
    assert (work / "ungrouped.txt").read_bytes() == (PL301 / "bad.txt").read_bytes()


# ---- newlines and the BOM survive a fix ----


def test_fix_keeps_a_bom(work):
    bad = work / "bad.txt"
    bad.write_bytes(BOM + (PL102 / "bad.txt").read_bytes())
    assert check("--select", "PL102", "--output-format", "concise", "bad.txt").stdout.splitlines() == PL102_CONCISE
    assert check("--select", "PL102", "--fix", "bad.txt").exit_code == 0
    assert bad.read_bytes() == BOM + (PL102 / "bad.fixed.txt").read_bytes()


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


@pytest.mark.parametrize(
    "folder",
    ["PL101-repeated-question", "PL102-retrieval-score", "PL104-derived-text", "PL301-ungrouped-sources"],
)
def test_fix_keeps_crlf_newlines(work, folder):
    # Blank lines that end in \r\n must still read as blank lines, or the fix goes wrong:
    # the CRLF file is fixed, and reported, exactly as the LF one.
    code = folder.split("-")[0]
    bad = copy(FIXTURES / folder / "bad.txt", work)
    lf = check("--select", code, "--fix", "--unsafe-fixes", "bad.txt")
    assert bad.read_bytes() == (FIXTURES / folder / "bad.fixed.txt").read_bytes()
    bad.write_bytes(_crlf((FIXTURES / folder / "bad.txt").read_bytes()))
    crlf = check("--select", code, "--fix", "--unsafe-fixes", "bad.txt")
    assert (crlf.exit_code, crlf.stdout) == (lf.exit_code, lf.stdout)
    assert bad.read_bytes() == _crlf((FIXTURES / folder / "bad.fixed.txt").read_bytes())


def test_crlf_file_reports_like_the_lf_file(work):
    copy(PL102 / "bad.txt", work)
    lf = check("--select", "PL102", "bad.txt").stdout
    (work / "bad.txt").write_bytes(BOM + _crlf((PL102 / "bad.txt").read_bytes()))
    assert check("--select", "PL102", "bad.txt").stdout == lf
    assert "\r" not in lf


def test_fix_keeps_a_mixed_newline_file_as_it_was_elsewhere(work):
    mixed = work / "mixed.txt"
    mixed.write_bytes(b"Answer from the sources.\r\n\n[1] Shipping FAQ (score: 0.91)\r\nStandard delivery takes 3-5 working days.\n\r\nQuestion: How long?\n")
    check("--select", "PL102", "--fix", "mixed.txt")
    assert mixed.read_bytes() == b"Answer from the sources.\r\n\n[1] Shipping FAQ\r\nStandard delivery takes 3-5 working days.\n\r\nQuestion: How long?\n"


def test_fix_keeps_crlf_in_a_json_file(work):
    chat = work / "chat.json"
    text = json.dumps(chat_record(SCORED_USER), indent=2)
    chat.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    check("--select", "PL102", "--fix", "chat.json")
    assert chat.read_bytes() == text.replace(" (score: 0.91)", "").replace("\n", "\r\n").encode("utf-8")


# ---- chat JSON and JSONL ----


def test_fix_in_a_json_chat_file_rewrites_only_that_string(work):
    original = (
        "{\n"
        '  "model": "x",\n'
        '  "temperature": 0,\n'
        '  "messages": [\n'
        '    {"role": "system", "content": "Answer from the sources and cite them as [n].\\nBe brief."},\n'
        "    {\n"
        '      "role": "user",\n'
        '      "content": "[1] Returns and Credits Policy \\u2014 Returns > Damaged goods (score: 0.91)\\nDamaged goods may be returned within 30 days of delivery.\\n\\nQuestion: How long do I have to return damaged goods?"\n'
        "    }\n"
        "  ],\n"
        '  "metadata": {"trace": "abc"}\n'
        "}\n"
    )
    chat = work / "chat.json"
    chat.write_text(original, encoding="utf-8")
    records = json.loads(check("--select", "PL102", "--output-format", "json", "chat.json").stdout)
    assert [(r["line"], r["column"], r["code"], r["context"]) for r in records] == [(8, 89, "PL102", "messages[1] (user)")]
    assert original.split("\n")[7][88:92] == "0.91"

    result = check("--select", "PL102", "--fix", "chat.json")
    assert result.exit_code == 0
    fixed = chat.read_text(encoding="utf-8")
    # Byte for byte the same file but for the score: indentation, key order and escapes stay.
    assert fixed == original.replace(" (score: 0.91)", "")
    before, after = json.loads(original), json.loads(fixed)
    assert after["messages"][1]["content"] == before["messages"][1]["content"].replace(" (score: 0.91)", "")
    after["messages"][1]["content"] = before["messages"][1]["content"]
    assert after == before


def test_jsonl_broken_line_among_good_ones(work):
    good = [json.dumps(chat_record(SCORED_USER)), json.dumps(chat_record(SCORED_USER.replace("0.91", "0.72")))]
    broken = '{"messages": [{"role": "user", "content": "broken"}'
    lines = [good[0], good[1], "", broken, json.dumps(chat_record(SCORED_USER))]
    data = work / "chats.jsonl"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    column = good[0].index("0.91") + 1
    result = check("--select", "PL102", "--output-format", "concise", "chats.jsonl")
    assert result.exit_code == 1
    message = "Source 1 shows its retrieval score ('score: {}'); the model reads it as an instruction to defer to the top hit"
    assert result.stdout.splitlines() == [
        f"chats.jsonl:1:{column}: PL102 [retrieval-score] {message.format('0.91')}",
        f"chats.jsonl:2:{column}: PL102 [retrieval-score] {message.format('0.72')}",
        f"chats.jsonl:4:{len(broken) + 1}: PL900 [syntax-error] invalid JSONL: Expecting ',' or ']'",
        f"chats.jsonl:5:{column}: PL102 [retrieval-score] {message.format('0.91')}",
    ]
    full = check("--select", "PL102", "chats.jsonl").stdout
    assert f"chats.jsonl:1:{column}: PL102 [retrieval-score] {message.format('0.91')} (record 1, messages[1] (user))" in full
    assert f"chats.jsonl:2:{column}: PL102 [retrieval-score] {message.format('0.72')} (record 2, messages[1] (user))" in full
    assert f" 2 | {good[1]}\n" in full

    # --fix repairs the good lines and leaves the broken one as it was.
    result = check("--select", "PL102", "--fix", "chats.jsonl")
    assert result.exit_code == 1
    assert data.read_text(encoding="utf-8").split("\n") == [
        json.dumps(chat_record(CLEAN_USER)),
        json.dumps(chat_record(CLEAN_USER)),
        "",
        broken,
        json.dumps(chat_record(CLEAN_USER)),
        "",
    ]


def test_invalid_json_is_a_syntax_error_finding(work):
    (work / "inv.json").write_text('{"messages": [\n', encoding="utf-8")
    copy(PL102 / "bad.txt", work)
    result = check("--output-format", "concise", "inv.json", "bad.txt")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == "inv.json:2:1: PL900 [syntax-error] invalid JSON: Expecting value"
    assert any(line.startswith("bad.txt:3:66: PL102 ") for line in result.stdout.splitlines())


# ---- bad input: one line naming the file, and the other files still linted ----


@pytest.mark.parametrize(
    ("name", "data", "error"),
    [
        ("latin1.txt", b"Question: caf\xe9?\n", "error: latin1.txt: not valid UTF-8 (byte offset 13)"),
        ("image.txt", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "error: image.txt: binary file, skipped"),
        ("missing.txt", None, "error: missing.txt: cannot read: No such file or directory"),
    ],
)
def test_unreadable_file_is_one_line_and_the_rest_is_linted(work, name, data, error):
    if data is not None:
        (work / name).write_bytes(data)
    copy(PL102 / "bad.txt", work)
    result = check("--select", "PL102", "--output-format", "concise", name, "bad.txt")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == PL102_CONCISE
    assert result.stderr.splitlines() == [error, "Found 4 findings, 4 fixable with --fix (saves 33 tokens); 1 file could not be read."]


def test_unreadable_file_in_a_real_process(work):
    (work / "latin1.txt").write_bytes(b"caf\xe9\n")
    copy(PL102 / "good.txt", work)
    script = Path(sys.executable).with_name("promptlint")
    done = subprocess.run([str(script), "check", "--config", CONFIG, "latin1.txt", "good.txt"], capture_output=True, text=True, cwd=work)
    assert done.returncode == 2
    assert done.stderr == "error: latin1.txt: not valid UTF-8 (byte offset 3)\n"
    assert done.stdout == "1 file could not be read.\n"


def test_a_file_that_cannot_be_written_is_one_line_and_exit_2(work, monkeypatch):
    from promptlint.engine import files

    def read_only_folder(source, target):
        raise PermissionError(13, "Permission denied")

    # As in a read-only folder: the temporary file is written, moving it over the original fails.
    monkeypatch.setattr(files.os, "replace", read_only_folder)
    bad = copy(PL102 / "bad.txt", work)
    copy(PL102 / "good.txt", work)
    result = check("--select", "PL102", "--fix", "--output-format", "concise", "bad.txt", "good.txt")
    assert result.exit_code == 2
    # The file is unchanged, so its findings are reported as they are in it.
    assert result.stdout.splitlines() == PL102_CONCISE
    assert result.stderr.splitlines() == ["error: bad.txt: cannot write: Permission denied", "Found 4 findings, 4 fixable with --fix (saves 33 tokens); 1 file could not be written."]
    assert bad.read_bytes() == (PL102 / "bad.txt").read_bytes()
    (work / "messy.txt").write_text(UNFORMATTED, encoding="utf-8")
    result = run("format", "--config", CONFIG, "messy.txt")
    assert (result.exit_code, result.stderr) == (2, "error: messy.txt: cannot write: Permission denied\n0 files reformatted; 1 file could not be written.\n")
    assert sorted(p.name for p in work.iterdir()) == ["bad.txt", CONFIG, "good.txt", "messy.txt"]


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ("selct: [PL102]\n", "bad.yaml: unknown setting 'selct' (expected one of: select, extend-select, ignore, per-file-ignores, fixable, unfixable, include, exclude, rules, today, tokens, templates, file-types)"),
        ("rules:\n  retrieval-score:\n    bogus: 1\n", "bad.yaml: rules.retrieval-score: unknown option 'bogus' (options: none)"),
        ("select: [PL999]\n", "bad.yaml: 'select': unknown rule selector 'PL999'"),
        ("today: soon\n", "bad.yaml: 'today' must be a date (YYYY-MM-DD), got 'soon'"),
        ("select: [PL102\n", "bad.yaml:2:1: invalid YAML: expected ',' or ']', but got '<stream end>'"),
    ],
)
def test_invalid_config_is_one_line_and_exit_2(work, config, error):
    (work / "bad.yaml").write_text(config, encoding="utf-8")
    copy(PL102 / "bad.txt", work)
    for command in ("check", "format"):
        result = run(command, "--config", "bad.yaml", "bad.txt")
        assert result.exit_code == 2
        assert result.stdout == ""
        assert result.stderr == f"Error: {error}\n"
    assert (work / "bad.txt").read_bytes() == (PL102 / "bad.txt").read_bytes()


# ---- folders ----


def test_check_folder_finds_prompt_files_and_skips_tool_folders(work):
    bad_text = (PL102 / "bad.txt").read_text(encoding="utf-8")
    chat = json.dumps(chat_record(SCORED_USER))
    tree = {
        "prompts/a.txt": bad_text,
        "prompts/b.md": bad_text,
        "prompts/deep/c.prompt": bad_text,
        "prompts/deep/d.json": chat,
        "prompts/deep/e.jsonl": chat + "\n",
        "prompts/notes.csv": bad_text,
        "prompts/script.sh": bad_text,
        "prompts/.git/f.txt": bad_text,
        "prompts/node_modules/pkg/g.txt": bad_text,
        "prompts/env/h.txt": bad_text,
        "prompts/env/pyvenv.cfg": "home = /usr/bin\n",
    }
    for name, text in tree.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    result = check("--select", "PL102", "--output-format", "json", "prompts")
    assert result.exit_code == 1
    paths = sorted({r["path"] for r in json.loads(result.stdout)})
    assert paths == [
        str(Path("prompts/a.txt")),
        str(Path("prompts/b.md")),
        str(Path("prompts/deep/c.prompt")),
        str(Path("prompts/deep/d.json")),
        str(Path("prompts/deep/e.jsonl")),
    ]


# ---- format ----

UNFORMATTED = """\
You are a support assistant. Answer from the sources and cite them as [n].

Sources:
[1] Services Agreement — Liability > 7.2 Cap (score: 0.91) (source: SharePoint) (updated 2024-01-10)
Liability is capped at the fees paid in the twelve months before the claim.

[2] SKU-4411 Specification — Availability (score: 0.82) (source: Confluence) (updated 2025-08-02) ⚠️ OCR confidence 0.86
Standard lead time is 6 weeks from order confirmation.

[3] Services Agreement — Liability > 7.3 Exclusions (score: 0.55) (source: SharePoint) (updated 2026-11-20)
The cap in clause 7.2 does not apply to breaches of confidentiality.

Question: Does the liability cap apply to a confidentiality breach?
"""

# Scores and the source system dropped; a date only where it is over a year old
# on 2026-12-02; the sources keep their order and numbers (grouping is --unsafe-fixes).
FORMATTED = """\
You are a support assistant. Answer from the sources and cite them as [n].

Sources:
[1] Services Agreement — Liability > 7.2 Cap (last updated 2024-01-10)
Liability is capped at the fees paid in the twelve months before the claim.

[2] SKU-4411 Specification — Availability (last updated 2025-08-02) ⚠️ OCR confidence 0.86
Standard lead time is 6 weeks from order confirmation.

[3] Services Agreement — Liability > 7.3 Exclusions
The cap in clause 7.2 does not apply to breaches of confidentiality.

Question: Does the liability cap apply to a confidentiality breach?
"""


def test_format_rewrites_the_sources_block(work):
    prompt = work / "prompt.txt"
    prompt.write_text(UNFORMATTED, encoding="utf-8")
    assert check("prompt.txt").exit_code == 1
    result = run("format", "--config", CONFIG, "prompt.txt")
    assert result.exit_code == 0
    assert result.stderr == "Reformatted: prompt.txt\n1 file reformatted.\n"
    assert prompt.read_text(encoding="utf-8") == FORMATTED
    # The canonical form is what the rules ask for, but for the grouping left to --unsafe-fixes.
    assert check("prompt.txt", "--output-format", "concise").stdout.splitlines()[0] == (
        "prompt.txt:10:1: PL301 [ungrouped-sources] Source 3 is from 'Services Agreement', like an earlier source, "
        "but not next to it; group chunks of one document together"
    )
    assert (check("prompt.txt", "--ignore", "PL301").exit_code, check("prompt.txt", "--ignore", "PL301").stdout) == (0, "All checks passed!\n")
    # Formatting is idempotent.
    again = run("format", "--config", CONFIG, "prompt.txt")
    assert (again.exit_code, again.stdout, again.stderr) == (0, "", "1 file left unchanged.\n")
    assert prompt.read_text(encoding="utf-8") == FORMATTED


def test_format_check(work):
    (work / "messy.txt").write_text(UNFORMATTED, encoding="utf-8")
    (work / "tidy.txt").write_text(FORMATTED, encoding="utf-8")
    result = run("format", "--check", "--config", CONFIG, "messy.txt", "tidy.txt")
    assert (result.exit_code, result.stdout) == (1, "Would reformat: messy.txt\n1 file would be reformatted, 1 file already formatted.\n")
    assert (work / "messy.txt").read_text(encoding="utf-8") == UNFORMATTED
    result = run("format", "--check", "--config", CONFIG, "tidy.txt")
    assert (result.exit_code, result.stdout) == (0, "1 file already formatted.\n")


def test_format_diff(work):
    (work / "messy.txt").write_text(UNFORMATTED, encoding="utf-8")
    result = run("format", "--diff", "--config", CONFIG, "messy.txt")
    assert result.exit_code == 1
    expected = difflib.unified_diff(UNFORMATTED.splitlines(True), FORMATTED.splitlines(True), "a/messy.txt", "b/messy.txt")
    assert result.stdout == "".join(expected)
    assert (work / "messy.txt").read_text(encoding="utf-8") == UNFORMATTED


def test_format_keeps_crlf_and_bom(work):
    prompt = work / "prompt.txt"
    prompt.write_bytes(BOM + _crlf(UNFORMATTED.encode("utf-8")))
    assert run("format", "--config", CONFIG, "prompt.txt").exit_code == 0
    assert prompt.read_bytes() == BOM + _crlf(FORMATTED.encode("utf-8"))


# ---- rule docs ----


@pytest.mark.parametrize("selector", ["PL102", "retrieval-score"])
def test_rule_prints_its_docs(work, selector):
    result = run("rule", selector)
    assert result.exit_code == 0
    lines = result.stdout.split("\n")
    assert lines[0] == "# retrieval-score (PL102)"
    assert "## What it does" in lines
    assert "## Why is this bad?" in lines
    assert registry.get("PL102").doc in result.stdout


def test_unknown_rule_is_one_line_and_exit_2(work):
    result = run("rule", "PL999")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "Error: unknown rule 'PL999' (see 'promptlint rules')\n"


def test_rules_lists_every_code(work):
    result = run("rules")
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.stdout.splitlines()]
    assert listed == [r.code for r in registry.all_rules()]
    assert "PL102  retrieval-score" in result.stdout


# ---- the conventions users type without thinking ----

PL102_SUMMARY = "Found 4 findings, 4 fixable with --fix (saves 33 tokens)."


@pytest.mark.parametrize("command", [("check",), ("check", "--output-format", "concise"), ("format", "--check")])
def test_a_missing_file_is_counted_and_never_passes(work, command):
    result = run(*command, "--config", CONFIG, "missing.txt")
    assert result.exit_code == 2
    assert "All checks passed!" not in result.output
    assert result.stderr.splitlines()[0] == "error: missing.txt: cannot read: No such file or directory"
    assert "1 file could not be read." in result.output.splitlines()


def test_two_missing_files_are_counted(work):
    result = check("--output-format", "concise", "a.txt", "b.txt")
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (2, "2 files could not be read.")


@pytest.mark.parametrize(("args", "name"), [(["-"], "-"), (["--stdin-filename", "in.txt", "-"], "in.txt"), (["--stdin-filename", "in.txt"], "in.txt")])
def test_dash_is_standard_input_reported_under_its_name(work, args, name):
    data = (PL102 / "bad.txt").read_bytes()
    result = CliRunner().invoke(main, ["check", "--config", CONFIG, "--select", "PL102", "--output-format", "concise", *args], input=data)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [line.replace("bad.txt", name, 1) for line in PL102_CONCISE]
    assert result.stderr == PL102_SUMMARY + "\n"


@pytest.mark.parametrize("args", [["-"], ["--stdin-filename", "in.txt", "-"]])
def test_fix_on_standard_input_prints_the_fixed_text(work, args):
    data = (PL102 / "bad.txt").read_bytes()
    result = CliRunner().invoke(main, ["check", "--config", CONFIG, "--select", "PL102", "--fix", *args], input=data)
    assert (result.exit_code, result.stdout) == (0, (PL102 / "bad.fixed.txt").read_text(encoding="utf-8"))
    assert result.stderr == "Found 4 findings (4 fixed, 0 remaining).\n"


@pytest.mark.parametrize(("args", "error"), [(["-", "bad.txt"], "'-' (standard input) cannot be checked with other paths"), (["bad.txt", "-"], "'-' (standard input) cannot be checked with other paths")])
def test_dash_with_other_paths_is_a_usage_error(work, args, error):
    copy(PL102 / "bad.txt", work)
    result = check(*args)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: {error}\n")


NOT_PROMPTS = {
    "package.json": '{"name": "app", "version": "1.0.0", "scripts": {"test": "pytest"}}\n',
    "config.json": '{"retriever": {"top_k": 5}}\n',
    "settings.yaml": "retriever:\n  top_k: 5\n",
    "tools.py": "def add(a, b):\n    return a + b\n",
}


@pytest.mark.parametrize("name", NOT_PROMPTS)
@pytest.mark.parametrize("output_format", ["full", "concise", "json"])
def test_a_named_file_without_a_prompt_is_named_in_one_line(work, name, output_format):
    (work / name).write_text(NOT_PROMPTS[name], encoding="utf-8")
    result = check("--output-format", output_format, name)
    assert result.exit_code == 0
    assert result.stderr.splitlines()[0] == f"notice: {name}: no prompt found, skipped"
    if output_format == "json":
        assert (result.stdout, result.stderr) == ("[]\n", f"notice: {name}: no prompt found, skipped\n")


def test_a_python_file_this_python_cannot_parse_says_why_in_one_notice(work):
    import sys

    # Read whatever Python runs: a backslash in an f-string's field (Python 3.12) is rewritten in place.
    source = "def context(docs):\n    return \"\\n\".join(f\"[{i}] {d.replace('\\n', ' ')}\" for i, d in enumerate(docs))\n"
    (work / "formatting.py").write_text(source, encoding="utf-8")
    result = check("formatting.py")
    assert (result.exit_code, result.stderr) == (0, "")
    # A field over two lines of a one-line f-string cannot be rewritten in place: not read, and no error.
    (work / "formatting.py").write_text('def context(x):\n    return f"{x[\n0]}"\n', encoding="utf-8")
    result = check("formatting.py")
    assert result.exit_code == 0
    if sys.version_info < (3, 12):
        assert result.stderr.splitlines() == [
            f"notice: formatting.py: not read: line 2 uses syntax newer than Python {sys.version_info.major}.{sys.version_info.minor} that could not be read "
            "(unterminated string literal (detected at line 2))"
        ]


def test_a_file_without_a_prompt_does_not_change_the_exit_code_and_is_never_cached(work):
    copy(PL102 / "bad.txt", work)
    (work / "config.json").write_text(NOT_PROMPTS["config.json"], encoding="utf-8")
    for _ in range(2):  # the second run is served from the cache, and still says it
        result = check("--select", "PL102", "--output-format", "concise", "bad.txt", "config.json")
        assert (result.exit_code, result.stdout.splitlines()) == (1, PL102_CONCISE)
        assert result.stderr.splitlines() == ["notice: config.json: no prompt found, skipped", PL102_SUMMARY]


def test_a_python_file_without_templates_found_by_a_walk_is_skipped_quietly(work):
    (work / "src").mkdir()
    (work / "src" / "tools.py").write_text(NOT_PROMPTS["tools.py"], encoding="utf-8")
    result = check("src")
    # Skipped quietly, but nothing was checked, so nothing passed.
    assert (result.exit_code, result.stdout, result.stderr) == (0, "No prompt found in 1 file; nothing was checked.\n", "")


@pytest.mark.parametrize("name", NOT_PROMPTS)
@pytest.mark.parametrize("folder", ["prompts", "templates", "app/prompt"])
def test_a_walk_skips_files_without_a_prompt_quietly_and_counts_what_it_read(work, name, folder):
    copy(PL102 / "bad.txt", work, f"{folder}/bad.txt")
    copy(PL102 / "bad.txt", work, f"{folder}/other.txt")
    (work / folder / name).write_text(NOT_PROMPTS[name], encoding="utf-8")
    result = check("--select", "PL102", "--output-format", "concise", ".")
    # The two copies of one prompt are one cause: shown once, the copies counted apart.
    assert result.exit_code == 1 and len(result.stdout.splitlines()) == 4
    assert result.stderr.splitlines() == ["Checked 3 files: 2 held a prompt, 1 held none.", "Found 4 findings (4 duplicates in other files folded), 4 fixable with --fix (saves 33 tokens)."]
    # Named on the command line, the same file is named in its notice, and the summary needs no count.
    named = check("--select", "PL102", "--output-format", "concise", f"{folder}/bad.txt", f"{folder}/{name}")
    assert named.stderr.splitlines() == [f"notice: {folder}/{name}: no prompt found, skipped", PL102_SUMMARY]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ('{"messages": "hello"}', '1:14: PL900 [syntax-error] valid JSON but not a chat record: "messages" must be a list of messages'),
        ('{"model": "m", "prompt": 3}', '1:26: PL900 [syntax-error] valid JSON but not a chat record: "prompt" must be a string, or a list of one string'),
        ('[{"content": "hi"}]', '1:2: PL900 [syntax-error] valid JSON but not a chat record: message has no "role"'),
        ('{"messages": [}', "1:15: PL900 [syntax-error] invalid JSON: Expecting value"),
    ],
)
def test_valid_json_that_is_not_a_chat_record_is_not_called_invalid(work, record, message):
    (work / "chat.json").write_text(record + "\n", encoding="utf-8")
    result = check("--output-format", "concise", "chat.json")
    assert (result.exit_code, result.stdout) == (1, f"chat.json:{message}\n")


def test_fix_counts_the_findings_fixed_and_remaining(work):
    copy(PL102 / "bad.txt", work)
    copy(PL301 / "bad.txt", work, "ungrouped.txt")
    result = check("--fix", "--output-format", "concise", "bad.txt", "ungrouped.txt")
    assert result.exit_code == 1
    assert result.stderr == "Found 5 findings (4 fixed, 1 remaining), 1 more with --unsafe-fixes.\n"


@pytest.mark.parametrize(("unsafe", "summary"), [((), "Would fix 4 findings."), (("--unsafe-fixes",), "Would fix 5 findings.")])
def test_diff_counts_the_findings_it_would_fix(work, unsafe, summary):
    copy(PL102 / "bad.txt", work)
    copy(PL301 / "bad.txt", work, "ungrouped.txt")
    result = check("--diff", *unsafe, "bad.txt", "ungrouped.txt")
    assert (result.exit_code, result.stderr) == (1, summary + "\n")
    assert result.stdout.startswith("--- a/bad.txt\n")


def test_diff_with_nothing_to_fix_says_so(work):
    copy(PL102 / "good.txt", work)
    assert check("--diff", "good.txt").stderr == "No fixes available.\n"


@pytest.mark.parametrize(("option", "value"), [("--select", "PL999"), ("--ignore", "PL999"), ("--select", "PL102,nonsense")])
def test_an_unknown_selector_names_its_option(work, option, value):
    copy(PL102 / "bad.txt", work)
    (work / ".promptlint.yaml").write_text("today: 2026-12-02\n", encoding="utf-8")
    unknown = value.split(",")[-1]
    result = run("check", option, value, "bad.txt")
    assert (result.exit_code, result.stderr) == (2, f"Error: {option}: unknown rule selector '{unknown}' (see 'promptlint rules')\n")


@pytest.mark.parametrize(
    ("tokens", "applicability", "summary"),
    [
        (1, "SAFE", "Found 1 finding, 1 fixable with --fix (saves 1 token)."),
        (2, "SAFE", "Found 1 finding, 1 fixable with --fix (saves 2 tokens)."),
        (0, "SAFE", "Found 1 finding, 1 fixable with --fix."),
        (0, "UNSAFE", "Found 1 finding, 1 more with --unsafe-fixes."),
    ],
)
def test_the_summary_counts_as_people_read(tokens, applicability, summary):
    from promptlint.model.findings import Applicability, Edit, Finding, Fix, Severity
    from promptlint.model.prompt import Span
    from promptlint.output import report

    fix = Fix(Applicability[applicability], (Edit(Span(0, 1), ""),), "Remove it")
    finding = Finding("PL102", "retrieval-score", "m", Span(0, 1), Severity.WARNING, tokens=tokens, fix=fix)
    tally = report.Tally()
    tally.add([finding])
    assert report.summary(tally) == summary
    assert report.statistics(tally).splitlines()[0] == f"    1  PL102  {'[*]' if applicability == 'SAFE' else '[-]'} retrieval-score  {tokens:>6} {'token' if tokens == 1 else 'tokens'}"


# ---- .gitignore in a folder walk ----

GITIGNORE_CASES = [
    # (the .gitignore files, by folder; the files that stay)
    ({"": "*.prompt\n"}, []),
    ({"": "/a.prompt\n"}, ["b.prompt", "sub/a.prompt", "sub/b.prompt", "sub/deep/a.prompt"]),
    ({"": "a.prompt\n"}, ["b.prompt", "sub/b.prompt"]),
    ({"": "sub/\n"}, ["a.prompt", "b.prompt"]),
    ({"": "sub/*.prompt\n"}, ["a.prompt", "b.prompt", "sub/deep/a.prompt"]),
    ({"": "sub/**/a.prompt\n"}, ["a.prompt", "b.prompt", "sub/b.prompt"]),
    ({"": "**/deep\n"}, ["a.prompt", "b.prompt", "sub/a.prompt", "sub/b.prompt"]),
    ({"": "sub/**\n"}, ["a.prompt", "b.prompt"]),
    ({"": "*.prompt\n!b.prompt\n"}, ["b.prompt", "sub/b.prompt"]),
    ({"": "*.prompt\n!/b.prompt\n"}, ["b.prompt"]),
    ({"": "[a].prompt\n"}, ["b.prompt", "sub/b.prompt"]),
    ({"": "[!a].prompt\n"}, ["a.prompt", "sub/a.prompt", "sub/deep/a.prompt"]),
    ({"": "?.prompt\n"}, []),
    ({"": "# a comment\n\n  \na.prompt   \n"}, ["b.prompt", "sub/b.prompt"]),
    # A folder that is ignored is not walked: no pattern below can take a file back.
    ({"": "sub/\n!sub/b.prompt\n"}, ["a.prompt", "b.prompt"]),
    # A deeper file has the last word, for its folder only.
    ({"": "*.prompt\n", "sub": "!b.prompt\n"}, ["sub/b.prompt"]),
    ({"sub": "*.prompt\n"}, ["a.prompt", "b.prompt"]),
    ({"sub": "/deep/\n"}, ["a.prompt", "b.prompt", "sub/a.prompt", "sub/b.prompt"]),
    ({"sub/deep": "*\n"}, ["a.prompt", "b.prompt", "sub/a.prompt", "sub/b.prompt"]),
]
TREE = ["a.prompt", "b.prompt", "sub/a.prompt", "sub/b.prompt", "sub/deep/a.prompt"]


def make_tree(root: Path, ignores: dict[str, str], names=TREE) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("Question: Why?\n", encoding="utf-8")
    for folder, text in ignores.items():
        (root / folder / ".gitignore").write_text(text, encoding="utf-8")


def walked(root: Path, gitignore: bool = True) -> list[str]:
    from promptlint.engine import files

    return sorted(p.relative_to(root).as_posix() for p in files.expand([root], gitignore=gitignore) if p.name != ".gitignore")


@pytest.mark.parametrize(("ignores", "kept"), GITIGNORE_CASES)
def test_a_folder_walk_skips_what_gitignore_files_name(tmp_path, ignores, kept):
    make_tree(tmp_path, ignores)
    assert walked(tmp_path) == kept
    assert walked(tmp_path, gitignore=False) == TREE


@pytest.mark.parametrize(("line", "name"), [("\\#x.prompt", "#x.prompt"), ("\\!x.prompt", "!x.prompt"), ("x\\ .prompt", "x .prompt"), ("x\\*.prompt", "x*.prompt")])
def test_gitignore_escapes(tmp_path, line, name):
    make_tree(tmp_path, {"": line + "\n"}, [name, "xy.prompt"])
    assert walked(tmp_path) == ["xy.prompt"]


def test_a_gitignore_above_the_walk_counts_inside_a_work_tree_only(tmp_path):
    make_tree(tmp_path, {"": "a.prompt\n"})
    assert walked(tmp_path / "sub") == ["a.prompt", "b.prompt", "deep/a.prompt"]
    (tmp_path / ".git").mkdir()
    assert walked(tmp_path / "sub") == ["b.prompt"]


def test_the_repository_exclude_file_counts_below_every_gitignore(tmp_path):
    make_tree(tmp_path, {})
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("# local\nb.prompt\ndeep/\n", encoding="utf-8")
    assert walked(tmp_path / "sub") == ["a.prompt"]
    # A .gitignore outranks it: its negation takes a file back.
    (tmp_path / "sub" / ".gitignore").write_text("!b.prompt\n", encoding="utf-8")
    assert walked(tmp_path / "sub") == ["a.prompt", "b.prompt"]


def test_a_linked_work_tree_reads_the_exclude_file_of_its_repository(tmp_path):
    make_tree(tmp_path / "tree", {})
    common = tmp_path / "repo.git"
    (common / "info").mkdir(parents=True)
    (common / "info" / "exclude").write_text("b.prompt\n", encoding="utf-8")
    (common / "worktrees" / "tree").mkdir(parents=True)
    (common / "worktrees" / "tree" / "commondir").write_text("../..\n", encoding="utf-8")
    (tmp_path / "tree" / ".git").write_text(f"gitdir: {common / 'worktrees' / 'tree'}\n", encoding="utf-8")
    assert walked(tmp_path / "tree" / "sub") == ["a.prompt", "deep/a.prompt"]


def test_check_respects_gitignore_unless_told_and_lints_a_named_file(work):
    make_tree(work, {"": "sub/\n"})
    copy(PL102 / "bad.txt", work, "sub/scored.prompt")
    assert check("--select", "PL102", ".").stdout == "All checks passed!\n"
    assert check("--select", "PL102", "--no-respect-gitignore", "--output-format", "concise", ".").stdout.splitlines() == [
        line.replace("bad.txt", str(Path("sub/scored.prompt")), 1) for line in PL102_CONCISE
    ]
    # A file named on the command line is linted whatever .gitignore says.
    assert check("--select", "PL102", "sub/scored.prompt").exit_code == 1


# ---- which files a walk takes ----


def _globs(cell: str) -> tuple[str, ...]:
    return tuple(re.findall(r"`([^`]+)`", cell))


def test_the_docs_table_of_walk_defaults_is_the_code():
    from promptlint.readers import formats

    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    table = page.split("<!-- walk-defaults:", 1)[1].split("\n\n", 1)[0]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| `")]
    code = tuple(glob for f in formats.FORMATS if f.code for glob in f.anywhere)
    anywhere = tuple(glob for glob in formats.ANYWHERE if glob not in code)
    assert [_globs(files_cell) for files_cell, _ in rows] == [anywhere, code, formats.IN_PROMPT_FOLDERS]
    assert _globs(rows[2][1]) == formats.PROMPT_FOLDERS
    assert formats.DEFAULT_INCLUDE == formats.ANYWHERE + tuple(f"**/{d}/**/{g}" for d in formats.PROMPT_FOLDERS for g in formats.IN_PROMPT_FOLDERS)


APPLICATION = {
    "README.md": "Question: What is this?\n\nQuestion: What is this?\n",
    "CHANGELOG.md": "## 1.0\n",
    "docs/faq.md": "Question: How?\n",
    "notes.txt": "todo\n",
    "package.json": '{"name": "app"}\n',
    "config.yaml": "today: 2026-12-02\n",
    "app/qa.j2": "Answer from the sources.\n",
    "app/answer.prompt": "Answer from the sources.\n",
    "app/chat.prompt.yml": "messages: []\n",
    "app/card.hbs": "Answer.\n",
    "app/card.mustache": "Answer.\n",
    "app/rag.py": "QA_PROMPT = 'Answer from the sources below, and cite them.'\n",
    "app/prompts/system.txt": "Answer from the sources.\n",
    "app/prompts/v2/system.md": "Answer from the sources.\n",
    "templates/chat.json": '{"messages": [{"role": "user", "content": "Hi there"}]}\n',
    "prompt/qa.yaml": "template: Answer from the sources.\n",
    "src/templates/email.txt": "Answer.\n",
}
TAKEN = ["app/answer.prompt", "app/card.hbs", "app/card.mustache", "app/chat.prompt.yml", "app/prompts/system.txt", "app/prompts/v2/system.md", "app/qa.j2", "app/rag.py", "prompt/qa.yaml", "src/templates/email.txt", "templates/chat.json"]


def test_a_walk_of_an_application_takes_its_prompts_only(work):
    make_tree(work, {})
    for name in TREE:
        (work / name).unlink()
    for name, text in APPLICATION.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    from promptlint.engine import files
    from promptlint.engine.config import Resolver

    assert sorted(p.as_posix() for p in files.expand([Path(".")], Resolver(None).wants)) == TAKEN
    # The README's repeated "Question:" is not a prompt's: nothing is reported on it.
    result = check("--output-format", "concise", "--select", "PL101", ".")
    assert (result.exit_code, result.stdout) == (0, "")
    # Named on the command line, it is linted.
    assert check("--select", "PL101", "--output-format", "concise", "README.md").exit_code == 1


def test_include_replaces_the_defaults(work):
    for name, text in APPLICATION.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    (work / ".promptlint.yaml").write_text('today: 2026-12-02\ninclude: ["*.md"]\n', encoding="utf-8")
    result = run("check", "--select", "PL101", "--output-format", "concise", ".")
    assert (result.exit_code, [line.split(":")[0] for line in result.stdout.splitlines()]) == (1, ["README.md"])


PDF_BODY = {"messages": [{"role": "user", "content": [
    {"type": "document", "title": "Policy", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}},
    {"type": "text", "text": "How long do returns take?"},
]}]}
PDF_NOTICE = "messages[0].content[0]: a document given as base64 data is not read (its text is not in the request)"


@pytest.mark.parametrize("output_format", ["concise", "json"])
def test_a_document_the_request_does_not_hold_the_text_of_is_named_in_one_notice(work, output_format):
    (work / "body.json").write_text(json.dumps(PDF_BODY), encoding="utf-8")
    (work / "bodies.jsonl").write_text("\n".join(json.dumps(b) for b in ({"messages": [{"role": "user", "content": "Hi"}]}, PDF_BODY)) + "\n", encoding="utf-8")
    for _ in range(2):  # never served from the cache, so every run says it
        result = check("--output-format", output_format, "body.json", "bodies.jsonl")
        assert result.exit_code == 0
        assert result.stdout == ("[]\n" if output_format == "json" else "")
        notices = [line for line in result.stderr.splitlines() if line.startswith("notice:")]
        assert notices == [f"notice: body.json: {PDF_NOTICE}", f"notice: bodies.jsonl: record 2, {PDF_NOTICE}"]


# ---- a run that checks nothing says so ----

NOTHING_UNDER_RAG = (
    "warning: No prompt files found under rag/ (a folder walk takes .txt, .md, .json, .jsonl, .ndjson, .yaml, .yml and .ipynb "
    "only under prompts/, prompt/ or templates/; name the files or set include)\n"
)


def _rag_folder(work: Path) -> None:
    copy(PL102 / "bad.txt", work / "rag", "policy.txt")
    (work / "rag" / "notes.md").write_text("# Notes\n", encoding="utf-8")
    (work / "rag" / "body.json").write_text(json.dumps(chat_record(SCORED_USER)), encoding="utf-8")


@pytest.mark.parametrize("args", [(), ("--output-format", "concise"), ("--fix",), ("--diff",), ("--statistics",)])
def test_a_walk_that_takes_no_file_says_so_and_never_passes(work, args):
    _rag_folder(work)
    result = check(*args, "rag")
    # As ruff: nothing to check is no error, but it is said, and no summary follows.
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", NOTHING_UNDER_RAG)


def test_format_of_a_walk_that_takes_no_file_says_so(work):
    _rag_folder(work)
    for args in ((), ("--check",), ("--diff",)):
        result = run("format", "--config", CONFIG, *args, "rag")
        assert (result.exit_code, result.stdout, result.stderr) == (0, "", NOTHING_UNDER_RAG)


def test_an_empty_folder_and_a_narrow_include_are_named(work):
    (work / "empty").mkdir()
    result = check("empty", ".")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.startswith("warning: No prompt files found under empty/, ./ (a folder walk takes .txt")
    (work / "prompts").mkdir()
    (work / "prompts" / "a.txt").write_text(CLEAN_USER, encoding="utf-8")
    (work / ".promptlint.yaml").write_text('today: 2026-12-02\ninclude: ["*.prompt", "*.j2"]\n', encoding="utf-8")
    result = run("check", ".")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "warning: No prompt files found under ./ (no file matches the config's include: *.prompt, *.j2)\n")


@pytest.mark.parametrize(("args", "summary"), [((), "No prompt found in 2 files; nothing was checked.\n"), (("--diff",), "No prompt found in 2 files; nothing was checked.\n")])
def test_files_that_hold_no_prompt_never_pass(work, args, summary):
    (work / "config.json").write_text(NOT_PROMPTS["config.json"], encoding="utf-8")
    (work / "settings.yaml").write_text(NOT_PROMPTS["settings.yaml"], encoding="utf-8")
    result = check(*args, "--output-format", "concise", "config.json", "settings.yaml")
    notices = "notice: config.json: no prompt found, skipped\nnotice: settings.yaml: no prompt found, skipped\n"
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", notices + summary)
    result = run("format", "--config", CONFIG, "config.json", "settings.yaml")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", summary)


def test_a_missing_file_and_a_promptless_one_count_both(work):
    (work / "config.json").write_text(NOT_PROMPTS["config.json"], encoding="utf-8")
    result = check("--output-format", "concise", "config.json", "missing.txt")
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (2, "No prompt found in 1 file; nothing was checked; 1 file could not be read.")


def test_show_files_lists_what_a_walk_takes(work):
    _rag_folder(work)
    copy(PL102 / "bad.txt", work / "prompts", "policy.txt")
    (work / "prompts" / "answer.j2").write_text("{{ question }}\n", encoding="utf-8")
    (work / "app.py").write_text(NOT_PROMPTS["tools.py"], encoding="utf-8")
    result = check("--show-files", ".")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "app.py\nprompts/answer.j2\nprompts/policy.txt\n", "")
    # A file named is taken whatever the walk's defaults say; a walk that takes nothing says so.
    result = check("--show-files", "rag/notes.md", "rag")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "rag/notes.md\n", "")
    result = check("--show-files", "rag")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", NOTHING_UNDER_RAG)


def test_show_files_leaves_the_baseline_out(work):
    copy(PL102 / "bad.txt", work / "prompts", "policy.txt")
    (work / "prompts" / "baseline.json").write_text("[]\n", encoding="utf-8")
    result = check("--show-files", "--baseline", "prompts/baseline.json", "prompts")
    assert (result.exit_code, result.stdout) == (0, "prompts/policy.txt\n")


@pytest.mark.parametrize("args", [["-"], ["--stdin-filename", "prompt.txt", "-"], ["--stdin-filename", "prompt.txt"]])
def test_format_prints_standard_input_formatted(work, args):
    result = CliRunner().invoke(main, ["format", "--config", CONFIG, *args], input=UNFORMATTED)
    name = "prompt.txt" if "--stdin-filename" in args else "-"
    assert (result.exit_code, result.stdout, result.stderr) == (0, FORMATTED, "1 file reformatted.\n")
    # Already formatted, it is printed as it came.
    result = CliRunner().invoke(main, ["format", "--config", CONFIG, *args], input=FORMATTED)
    assert (result.exit_code, result.stdout, result.stderr) == (0, FORMATTED, "1 file left unchanged.\n")
    result = CliRunner().invoke(main, ["format", "--config", CONFIG, "--check", *args], input=UNFORMATTED)
    assert (result.exit_code, result.stdout, result.stderr) == (1, f"Would reformat: {name}\n", "1 file would be reformatted.\n")
    result = CliRunner().invoke(main, ["format", "--config", CONFIG, "--diff", *args], input=UNFORMATTED)
    assert result.exit_code == 1
    assert result.stdout == "".join(difflib.unified_diff(UNFORMATTED.splitlines(True), FORMATTED.splitlines(True), f"a/{name}", f"b/{name}"))
    assert not (work / "prompt.txt").exists()


def test_format_of_standard_input_that_is_not_text_says_why(work):
    result = CliRunner().invoke(main, ["format", "--config", CONFIG, "-"], input=b"\xff\xfe")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", "error: -: not valid UTF-8 (byte offset 0)\n1 file could not be read.\n")


CHAT_BODY = {"model": "m", **chat_record(SCORED_USER)}


@pytest.mark.parametrize(
    "text",
    [json.dumps(CHAT_BODY, indent=2), json.dumps(CHAT_BODY), json.dumps(CHAT_BODY["messages"])],
    ids=["indented", "one-line", "messages"],
)
def test_check_reads_json_on_standard_input_by_its_content(work, text):
    (work / "x.json").write_text(text, encoding="utf-8")
    named = check("--output-format", "concise", "x.json")
    piped = CliRunner().invoke(main, ["check", "--config", CONFIG, "--output-format", "concise", "-"], input=text)
    assert named.exit_code == piped.exit_code == 1
    assert named.stdout.startswith("x.json:") and "PL102" in named.stdout
    assert piped.stdout == named.stdout.replace("x.json:", "-:")
    assert "PL205" not in piped.stdout


def test_check_reads_json_lines_on_standard_input_by_their_content(work):
    text = "\n".join(json.dumps(chat_record(user)) for user in (SCORED_USER, CLEAN_USER)) + "\n"
    (work / "x.jsonl").write_text(text, encoding="utf-8")
    named = check("--output-format", "concise", "x.jsonl")
    piped = CliRunner().invoke(main, ["check", "--config", CONFIG, "--output-format", "concise", "-"], input=text)
    assert named.exit_code == piped.exit_code == 1
    assert piped.stdout == named.stdout.replace("x.jsonl:", "-:")
    assert [line.split(" ")[1] for line in piped.stdout.splitlines()] == ["PL102"]


@pytest.mark.parametrize("text", ["{{ question }}\n\nAnswer from the sources.\n", "[1] Shipping FAQ\nDelivery takes 3 days.\n", '{"a": 1}\n{broken\n'])
def test_standard_input_that_is_not_json_is_read_as_text(work, text):
    from promptlint.readers.formats import for_text

    assert for_text("", text).name == for_text(".txt", text).name == "text"
    assert for_text("", '{"messages": []}').name == "json"
    assert for_text("", '{"messages": []}\n\n{"messages": []}\n').name == "jsonl"
    # A named file's suffix decides, but for a .txt that is one JSON document whole.
    assert for_text(".txt", '{"messages": []}').name == "json"
    assert for_text(".txt", '{"messages": []}\n\n{"messages": []}\n').name == "text"
    assert for_text(".md", '{"messages": []}').name == "text"


def test_prompts_saved_as_json_in_a_txt_file_are_read_apart(work):
    # Read as one text, the second prompt stood after the first one's question as static instructions.
    prompts = {"system": "Answer from the context only.", "human": "Context:\n{context}\n\nQuestion: {input}\nAnswer:",
               "classification": "You are the scope filter. Answer YES if the question is about the course, else NO. " * 6}
    (work / "prompts.txt").write_text(json.dumps(prompts, indent=2), encoding="utf-8")
    result = check("--output-format", "concise", "--select", "PL305", "prompts.txt")
    assert (result.exit_code, result.stdout) == (0, "")


# ---- check, --diff and --fix count the same fixes ----

CORPUS = ROOT.parent / "shared" / "corpus"


def _every_prompt_file() -> list[Path]:
    folders = [FIXTURES, CORPUS] if CORPUS.is_dir() else [FIXTURES]
    return [p for folder in folders for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "manifest.yaml" and p.suffix != ".expected"]


def _summary(result) -> str:
    return result.output.strip().splitlines()[-1]


def test_check_diff_and_fix_agree_on_how_many_fixes_apply(work):
    """Over every fixture and corpus file, the count `check` calls fixable is what `--diff`
    would fix and `--fix` fixed, safe and unsafe alike, file by file and in total."""
    from promptlint.engine.config import build
    from promptlint.engine.lint import check_document
    from promptlint.model.findings import Applicability
    from promptlint.readers import document as documents

    config = build({"today": "2026-12-02"}, "test")
    reached = {Applicability.SAFE: 0, Applicability.UNSAFE: 0}
    names = []
    for index, path in enumerate(_every_prompt_file()):
        try:
            doc = documents.read(path, suffix=config.suffix_for(path), lexicon=config.lexicon)
        except documents.UnreadableFile:
            continue
        names.append(copy(path, work, f"f{index}{path.suffix}").name)
        found = check_document(doc, config).findings
        for threshold in reached:
            fixable = sum(1 for f in found if f.fix is not None and f.fix.applicability >= threshold and f.fix.edits)
            result = check_document(doc, config, threshold)
            assert (path.name, result.fixed_findings if result.error is None else fixable) == (path.name, fixable)
            reached[threshold] += fixable
    # The comparison reaches fixes of both kinds in many files (fewer with the fixtures alone).
    assert reached[Applicability.SAFE] >= (100 if CORPUS.is_dir() else 60) and reached[Applicability.UNSAFE] > reached[Applicability.SAFE]
    # And the three commands say the same numbers.
    counted = _summary(check("--jobs", "1", "--no-cache", "--output-format", "concise", *names))
    fixable = int(re.search(r"(\d+) fixable with --fix", counted)[1])
    more = int(re.search(r"(\d+) more with --unsafe-fixes", counted)[1])
    assert _summary(check("--jobs", "1", "--no-cache", "--diff", *names)) == f"Would fix {fixable} findings."
    assert _summary(check("--jobs", "1", "--no-cache", "--diff", "--unsafe-fixes", *names)) == f"Would fix {fixable + more} findings."
    assert f"({fixable} fixed, " in _summary(check("--jobs", "1", "--no-cache", "--fix", *names))
