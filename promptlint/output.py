"""Show findings: one function per output format, each returning the text to print.

Every renderer takes the findings and the text of each linted file as the rules
read it (path -> text; a file without findings is there too). The formats
``full`` and ``concise`` are for people and take ``color``; the others are for
machines (CI annotations, code-quality reports, SARIF viewers, test reports).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

import click

from . import baseline, registry
from .findings import Applicability, Finding, Severity

FORMATS = ("full", "concise", "json", "json-lines", "github", "gitlab", "sarif", "junit")
TEXT_FORMATS = ("full", "concise")

# How a person is told what applies a fix.
APPLIES = {Applicability.SAFE: "safe", Applicability.UNSAFE: "unsafe", Applicability.DISPLAY: "suggestion"}


def _where(f: Finding) -> str:
    return f"{f.path}:{f.line}:{f.column}"


def _style(text: str, color: bool, **styles) -> str:
    return click.style(text, **styles) if color else text


def _headline(f: Finding, color: bool) -> str:
    return f"{_style(_where(f), color, bold=True)}: {_style(f.code, color, fg='red', bold=True)} [{f.name}] {f.message}"


def _repo_path(path: str) -> str:
    """The path with forward slashes, relative to the current folder when the file is under it.

    CI services match annotations against paths from the repository root, where
    the linter runs; a file elsewhere keeps its absolute path.
    """
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return absolute.as_posix()


def concise(findings: Sequence[Finding], sources: dict[str, str], color: bool = False) -> str:
    return "".join(f"{_headline(f, color)}\n" for f in findings)


def full(findings: Sequence[Finding], sources: dict[str, str], color: bool = False) -> str:
    # The report's pieces, each line ending in a newline, joined once. A flagged line is
    # the file's own string, not a copy: a chat JSON file is a few lines of many kilobytes,
    # each shown once per finding on it, and the report can run to a hundred megabytes.
    out: list[str] = []
    path, lines = None, []
    for f in findings:
        context = f" ({f.context})" if f.context else ""
        out.append(f"{_headline(f, color)}{context}\n")
        if f.path != path:
            # A file's findings come together: split its text once for all of them.
            path, lines = f.path, sources.get(f.path, "").split("\n")
        if 0 < f.line <= len(lines):
            text = lines[f.line - 1]
            number = str(f.line)
            pad = " " * len(number)
            width = max(1, (f.end_column - f.column) if f.end_line == f.line else len(text) - f.column + 1)
            out += (f" {pad} |\n {number} | ", text, "\n")
            out += (f" {pad} | ", " " * (f.column - 1), _style("^" * width, color, fg="red"), "\n")
        if f.fix is not None:
            out.append(f"  = fix ({APPLIES[f.fix.applicability]}): {f.fix.description}\n")
        if f.tokens:
            out.append(f"  = costs {plural(f.tokens, 'token')}\n")
        out.append("\n")
    return "".join(out)


def as_json(findings: Sequence[Finding], sources: dict[str, str]) -> str:
    return json.dumps([_record(f) for f in findings], indent=2, ensure_ascii=False) + "\n"


def json_lines(findings: Sequence[Finding], sources: dict[str, str]) -> str:
    return "".join(json.dumps(_record(f), ensure_ascii=False) + "\n" for f in findings)


def _record(f: Finding) -> dict:
    fix = None
    if f.fix is not None:
        fix = {
            "applicability": f.fix.applicability.name.lower(),
            "message": f.fix.description,
            # Edits are offsets into the prompt text (for a chat file, the joined messages).
            "edits": [{"start": e.span.start, "end": e.span.end, "content": e.replacement} for e in f.fix.edits],
        }
    return {
        "path": f.path,
        "code": f.code,
        "name": f.name,
        "message": f.message,
        "severity": f.severity.name.lower(),
        "line": f.line,
        "column": f.column,
        "end_line": f.end_line,
        "end_column": f.end_column,
        "tokens": f.tokens,
        "context": f.context or None,
        "fix": fix,
    }


GITHUB_COMMANDS = {Severity.INFO: "notice", Severity.WARNING: "warning", Severity.ERROR: "error"}


def _github_data(text: str) -> str:
    # A workflow command ends at the line end, and % starts an escape.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github_property(text: str) -> str:
    # Properties are separated by commas, and a colon pair ends them.
    return _github_data(text).replace(":", "%3A").replace(",", "%2C")


def github(findings: Sequence[Finding], sources: dict[str, str]) -> str:
    """GitHub Actions workflow commands: each finding becomes an annotation on the pull request."""
    out = []
    for f in findings:
        properties = {
            "file": _repo_path(f.path),
            "line": f.line,
            "col": f.column,
            "endLine": f.end_line,
            "endColumn": f.end_column,
            "title": f"{f.code} ({f.name})",
        }
        listed = ",".join(f"{key}={_github_property(str(value))}" for key, value in properties.items())
        out.append(f"::{GITHUB_COMMANDS[f.severity]} {listed}::{_github_data(f.message)}\n")
    return "".join(out)


GITLAB_SEVERITIES = {Severity.INFO: "info", Severity.WARNING: "major", Severity.ERROR: "critical"}


def gitlab(findings: Sequence[Finding], sources: dict[str, str]) -> str:
    """A GitLab Code Quality report."""
    issues, seen = [], Counter()
    for f in findings:
        path = _repo_path(f.path)
        identity = (path, baseline.fingerprint(f, sources.get(f.path, "")))
        seen[identity] += 1
        # GitLab compares reports by fingerprint: it must not move with the line, and
        # identical findings in one file are told apart by their order.
        fingerprint = baseline.digest(*identity, str(seen[identity]))
        issues.append(
            {
                "description": f.message,
                "check_name": f.code,
                "fingerprint": fingerprint,
                "severity": GITLAB_SEVERITIES[f.severity],
                "location": {"path": path, "lines": {"begin": f.line, "end": f.end_line}},
            }
        )
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"


SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_LEVELS = {Severity.INFO: "note", Severity.WARNING: "warning", Severity.ERROR: "error"}


def _sarif_uri(path: str) -> str:
    relative = _repo_path(path)
    return Path(relative).as_uri() if Path(relative).is_absolute() else quote(relative)


def _sarif_region(line: int, column: int, end_line: int, end_column: int) -> dict:
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _sarif_rule(code: str) -> dict:
    rule = registry.get(code)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc},
        "help": {"text": rule.doc, "markdown": rule.doc},
        "defaultConfiguration": {"level": SARIF_LEVELS[rule.severity]},
    }


def _sarif_fixes(f: Finding, uri: str) -> list[dict]:
    """The finding's fix as SARIF replacements, or none when its edits cannot be placed in the file.

    The edits are placed where the linter found them in the file (a Prompty body, a
    template in Python code: not at the file's start). A fix inside a chat file's JSON
    strings has no regions: its replacement would need JSON escaping. A replacement
    that holds a line break is left out too: the file may use CRLF.
    """
    if f.fix is None or not f.fix_regions or any("\n" in e.replacement for e in f.fix.edits):
        return []
    replacements = []
    for edit, region in zip(f.fix.edits, f.fix_regions):
        replacement = {"deletedRegion": _sarif_region(*region)}
        if edit.replacement:
            replacement["insertedContent"] = {"text": edit.replacement}
        replacements.append(replacement)
    return [
        {
            "description": {"text": f.fix.description},
            "artifactChanges": [{"artifactLocation": {"uri": uri}, "replacements": replacements}],
            "properties": {"applicability": f.fix.applicability.name.lower()},
        }
    ]


def sarif(findings: Sequence[Finding], sources: dict[str, str]) -> str:
    """SARIF 2.1.0, for code-scanning services and SARIF viewers."""
    from importlib.metadata import version  # loads the email package: only for this format

    codes = sorted({f.code for f in findings})
    results = []
    for f in findings:
        uri = _sarif_uri(f.path)
        result = {
            "ruleId": f.code,
            "ruleIndex": codes.index(f.code),
            "level": SARIF_LEVELS[f.severity],
            "message": {"text": f.message},
            "locations": [
                {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": _sarif_region(f.line, f.column, f.end_line, f.end_column)}}
            ],
        }
        fixes = _sarif_fixes(f, uri)
        if fixes:
            result["fixes"] = fixes
        results.append(result)
    run = {
        "tool": {"driver": {"name": "promptlint", "version": version("promptlint"), "rules": [_sarif_rule(c) for c in codes]}},
        # Columns count characters, as everywhere in promptlint (SARIF's default is UTF-16 units).
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False) + "\n"


def junit(findings: Sequence[Finding], sources: dict[str, str]) -> str:
    """JUnit XML: a test suite per file, a failing test case per finding, one passing case for a clean file."""
    import xml.etree.ElementTree as ET  # only for this format

    by_path: dict[str, list[Finding]] = {path: [] for path in sources}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    tests = sum(max(1, len(found)) for found in by_path.values())
    suites = ET.Element("testsuites", name="promptlint", tests=str(tests), failures=str(len(findings)), errors="0")
    for path, found in by_path.items():
        suite = ET.SubElement(suites, "testsuite", name=path, tests=str(max(1, len(found))), failures=str(len(found)), errors="0")
        if not found:
            ET.SubElement(suite, "testcase", name="promptlint", classname=path, file=path)
        for f in found:
            case = ET.SubElement(suite, "testcase", name=f"{f.code} ({f.name})", classname=path, file=path, line=str(f.line))
            failure = ET.SubElement(case, "failure", message=f.message)
            failure.text = f"{_where(f)}: {f.code} [{f.name}] {f.message}"
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


RENDERERS = {
    "full": full,
    "concise": concise,
    "json": as_json,
    "json-lines": json_lines,
    "github": github,
    "gitlab": gitlab,
    "sarif": sarif,
    "junit": junit,
}


def statistics(findings: Sequence[Finding]) -> str:
    """A line per rule: how many findings, whether --fix ([*]) or --unsafe-fixes ([-]) fixes
    some of them, and the tokens they cost; the most frequent first."""
    counts = Counter((f.code, f.name) for f in findings)
    tokens: Counter[tuple[str, str]] = Counter()
    best: dict[tuple[str, str], Applicability] = {}
    for f in findings:
        tokens[f.code, f.name] += f.tokens
        if f.fix is not None and f.fix.applicability >= Applicability.UNSAFE:
            best[f.code, f.name] = max(best.get((f.code, f.name), f.fix.applicability), f.fix.applicability)
    marks = {Applicability.SAFE: "[*]", Applicability.UNSAFE: "[-]"}
    width = max((len(name) for _, name in counts), default=0)
    rows = sorted(counts, key=lambda rule: (-counts[rule], rule))
    lines = [f"{counts[rule]:>5}  {rule[0]}  {marks.get(best.get(rule), '   ')} {rule[1]:<{width}}  {tokens[rule]:>6} {'token' if tokens[rule] == 1 else 'tokens'}\n" for rule in rows]
    if best:
        lines.append("[*] fixable with --fix, [-] with --unsafe-fixes\n")
    return "".join(lines)


def fixes(findings: Sequence[Finding]) -> str:
    """The fixes the findings offer, each with what applies it."""
    lines = [f"  {_where(f)}: {f.code} {f.fix.description} ({APPLIES[f.fix.applicability]})\n" for f in findings if f.fix is not None]
    return "Fixes (safe: --fix, unsafe: --unsafe-fixes):\n" + "".join(lines) if lines else ""


def plural(count: int, word: str) -> str:
    """"1 token", "2 tokens"."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary(findings: Sequence[Finding], fixed: int | None = None, failures: Sequence[str] = ()) -> str:
    """The closing line for people: what was found, what --fix fixed, and what could not be done.

    ``fixed`` is how many findings fixing removed (None: not fixing); ``failures`` are
    phrases such as "1 file could not be read", after which all never passed.
    """
    if not findings and not fixed:
        return "; ".join(failures) + "." if failures else "All checks passed!"
    safe = [f for f in findings if f.fix and f.fix.applicability is Applicability.SAFE]
    unsafe = [f for f in findings if f.fix and f.fix.applicability is Applicability.UNSAFE]
    saved = sum(f.tokens for f in safe)
    if fixed:
        parts = [f"Found {plural(len(findings) + fixed, 'finding')} ({fixed} fixed, {len(findings)} remaining)"]
    else:
        parts = [f"Found {plural(len(findings), 'finding')}"]
    if safe:
        parts.append(f"{len(safe)} fixable with --fix" + (f" (saves {plural(saved, 'token')})" if saved else ""))
    if unsafe:
        parts.append(f"{len(unsafe)} more with --unsafe-fixes")
    return "; ".join([", ".join(parts), *failures]) + "."
