"""One finding per cause across files: a template copied into several files is reported once.

Generated over the number of copies and the output formats: `full` and `concise` show the
first place once (`full` lists the other files at the end), JSON and SARIF keep every place
and name the first, GitHub, GitLab and JUnit keep every place as `--no-fold` does. Each case
has its twins that must not fold: a near match, another message, a copy in the same file.
"""

from __future__ import annotations

import json

import pytest
from test_cli import CONFIG, check, work  # noqa: F401 (work is a fixture)
from test_output import sarif_validator

from promptlint.output import report

PROMPT = "Answer from the sources.\n\n[1] Returns Policy (score: 0.91)\nDamaged goods may be returned within 30 days.\n\nQuestion: How long do I have?\n"
MESSAGE = "PL102 [retrieval-score] Source 1 shows its retrieval score ('score: 0.91'); the model reads it as an instruction to defer to the top hit"
# A near match: the same flagged text and message in a prompt that differs elsewhere.
NEAR = PROMPT.replace("30 days", "60 days")
# The same flagged line under another message (another source number).
OTHER = PROMPT.replace("[1] Returns Policy (score: 0.91)", "[0] Intro\nSee below.\n\n[1] Returns Policy (score: 0.91)")

COPIES = [2, 3, 4, 7]


def _files(work, count: int, text: str = PROMPT) -> list[str]:
    names = [f"p{i:02}.txt" for i in range(count)]
    for name in names:
        (work / name).write_text(text, encoding="utf-8")
    return names


def _check(*args: str):
    return check("--select", "PL102", "--no-cache", *args)


@pytest.mark.parametrize("count", COPIES)
def test_concise_shows_a_copied_finding_once_and_the_summary_counts_the_copies(work, count):
    names = _files(work, count)
    result = _check("--output-format", "concise", *names)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [f"p00.txt:3:28: {MESSAGE}"]
    assert result.stderr.splitlines() == [f"Found 1 finding ({report.plural(count - 1, 'duplicate')} in other files folded), 1 fixable with --fix (saves 8 tokens)."]
    # --no-fold: each place, and the summary counts each.
    unfolded = _check("--output-format", "concise", "--no-fold", *names)
    assert unfolded.stdout.splitlines() == [f"{name}:3:28: {MESSAGE}" for name in names]
    assert unfolded.stderr.splitlines() == [f"Found {count} findings, {count} fixable with --fix (saves {8 * count} tokens)."]


@pytest.mark.parametrize("count", COPIES)
def test_full_lists_the_other_files_at_the_end(work, count):
    names = _files(work, count)
    out = _check(*names).stdout
    assert out.count(MESSAGE) == 2  # the finding with its line, and again over its copies
    assert out.index("p00.txt:3:28:") < out.index(" |")
    listed = names[1 : 1 + report.LISTED]
    more = f", … ({report.plural(count - 1 - len(listed), 'more file')})" if count - 1 > len(listed) else ""
    assert out.endswith(
        "Also in other files (the same finding; --no-fold shows each):\n"
        f"p00.txt:3:28: {MESSAGE}\n"
        f"  = also in: {', '.join(listed)}{more}\n\n"
        f"Found 1 finding ({report.plural(count - 1, 'duplicate')} in other files folded), 1 fixable with --fix (saves 8 tokens).\n"
    )
    assert "Also in" not in _check("--no-fold", *names).stdout


@pytest.mark.parametrize("fmt", ["json", "json-lines"])
@pytest.mark.parametrize("count", COPIES)
def test_json_keeps_every_place_and_names_the_first(work, count, fmt):
    names = _files(work, count)
    out = _check("--output-format", fmt, *names).stdout
    records = json.loads(out) if fmt == "json" else [json.loads(line) for line in out.splitlines()]
    assert [r["path"] for r in records] == names
    first = {"path": "p00.txt", "line": 3, "column": 28}
    assert [r["duplicate_of"] for r in records] == [None] + [first] * (count - 1)
    # Without folding the records are the same, none a copy.
    unfolded = _check("--output-format", fmt, "--no-fold", *names).stdout
    assert unfolded == out.replace(json.dumps(first) if fmt == "json-lines" else json.dumps(first, indent=2).replace("\n", "\n    "), "null")


@pytest.mark.parametrize("count", COPIES)
def test_sarif_keeps_every_result_with_the_first_place_related(work, count):
    names = _files(work, count)
    log = json.loads(_check("--output-format", "sarif", *names).stdout)
    sarif_validator().validate(log)
    results = log["runs"][0]["results"]
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results] == names
    related = [r.get("relatedLocations") for r in results]
    first = {"artifactLocation": {"uri": "p00.txt"}, "region": {"startLine": 3, "startColumn": 28}}
    assert related == [None] + [[{"id": 0, "physicalLocation": first, "message": {"text": "the same finding, first reported here"}}]] * (count - 1)


@pytest.mark.parametrize("fmt", ["github", "gitlab", "junit"])
@pytest.mark.parametrize("count", COPIES)
def test_per_file_formats_keep_every_place_as_without_folding(work, count, fmt):
    names = _files(work, count)
    folded, unfolded = (_check("--output-format", fmt, *flags, *names) for flags in ((), ("--no-fold",)))
    assert (folded.stdout, folded.stderr) == (unfolded.stdout, unfolded.stderr)
    assert folded.stdout.count("p0") >= count


TWINS = {
    "a near match": NEAR,
    "another message on the same text": OTHER,
}


@pytest.mark.parametrize("twin", list(TWINS))
def test_a_twin_that_is_not_the_same_cause_is_its_own_finding(work, twin):
    (work / "a.txt").write_text(PROMPT, encoding="utf-8")
    (work / "b.txt").write_text(TWINS[twin], encoding="utf-8")
    result = _check("--output-format", "concise", "a.txt", "b.txt")
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["a.txt", "b.txt"]
    assert "folded" not in result.stderr


def test_two_copies_in_one_file_are_both_shown(work):
    (work / "a.txt").write_text(PROMPT, encoding="utf-8")
    (work / "two.py").write_text("".join(f"{name}_PROMPT = {PROMPT!r}\n" for name in ("QA", "CHAT")), encoding="utf-8")
    records = json.loads(_check("--output-format", "json", "two.py", "a.txt").stdout)
    assert [(r["path"], r["line"], r["duplicate_of"]) for r in records] == [("two.py", 1, None), ("two.py", 2, None), ("a.txt", 3, {"path": "two.py", "line": 1, "column": 69})]


def test_a_walk_folds_in_path_order_and_the_cache_keeps_the_cause(work):
    for folder in ("prompts/b", "prompts/a", "prompts/c"):
        (work / folder).mkdir(parents=True)
        (work / folder / "qa.txt").write_text(PROMPT, encoding="utf-8")
    for _ in range(2):  # the second run is served from the cache
        result = check("--select", "PL102", "--output-format", "concise", "prompts")
        assert result.stdout.splitlines() == [f"prompts/a/qa.txt:3:28: {MESSAGE}"]
        assert "(2 duplicates in other files folded)" in result.stderr


def test_statistics_count_causes(work):
    names = _files(work, 3)
    result = _check("--statistics", *names)
    assert result.stdout.splitlines()[0].split()[:2] == ["1", "PL102"]
    assert "(2 duplicates in other files folded)" in result.stderr + result.stdout


def test_fix_fixes_every_copy(work):
    names = _files(work, 3)
    result = _check("--fix", *names)
    assert result.exit_code == 0
    assert {(work / name).read_text(encoding="utf-8") for name in names} == {PROMPT.replace(" (score: 0.91)", "")}
    assert "Found 3 findings (3 fixed, 0 remaining)" in result.stdout


def test_a_baseline_matches_each_file_and_a_known_finding_is_no_first_place(work):
    names = _files(work, 3)
    assert _check("--write-baseline", "base.json", *names).exit_code == 0
    assert len(json.loads((work / "base.json").read_text(encoding="utf-8"))["findings"]) == 3  # every copy
    assert _check("--baseline", "base.json", "--output-format", "concise", *names).stdout == ""
    # A baseline of the first file only: the second file's copy is shown, the third folded into it.
    assert _check("--write-baseline", "base.json", names[0]).exit_code == 0
    result = _check("--baseline", "base.json", "--output-format", "concise", *names)
    assert result.stdout.splitlines() == [f"p01.txt:3:28: {MESSAGE}"]
    assert "(1 duplicate in other files folded)" in result.stderr


def test_folds_keep_a_place_per_cause_and_a_few_paths_per_copied_cause():
    from promptlint.model.findings import Finding
    from promptlint.model.prompt import Span

    folds = report.Folds()
    copies = 50
    for i in range(copies):
        found = [Finding("PL102", "retrieval-score", "m", Span(0, 1), path=f"f{i}.txt", line=1, column=1, cause=f"c{k}") for k in range(3)]
        firsts = folds.mark(found)
        assert firsts == ([None] * 3 if i == 0 else [("f0.txt", 1, 1)] * 3)
    assert len(folds.first) == 3 and folds.folded == 3 * (copies - 1)
    assert all(len(c.paths) == report.LISTED and c.files == copies - 1 for c in folds.copies.values())
