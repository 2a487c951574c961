"""Show findings: one function per output format, each returning the text to print.

Every renderer takes the findings and the text of each linted file as the rules
read it (path -> text; a file without findings is there too). The formats
``full`` and ``concise`` are for people and take ``color``; the others are for
machines (CI annotations, code-quality reports, SARIF viewers, test reports).

A finding met again in another file (the same cause: a template copied into many files)
is folded (``Folds``): ``full`` and ``concise`` show it once, at its first place in the
order the files come, and ``full`` lists the other files at the end of the report; JSON,
JSON Lines and SARIF keep each place, a later one naming the first; GitHub, GitLab and
JUnit keep each place as it is, as their services annotate and compare file by file.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from .. import DISTRIBUTION
from ..engine import baseline, registry
from ..model.findings import Applicability, Finding, Fix, Severity

FORMATS = ("full", "concise", "json", "json-lines", "github", "gitlab", "sarif", "junit")
TEXT_FORMATS = ("full", "concise")

# How a person is told what applies a fix.
APPLIES = {Applicability.SAFE: "safe", Applicability.UNSAFE: "unsafe", Applicability.DISPLAY: "suggestion"}


def _where(f: Finding) -> str:
    return f"{f.path}:{f.line}:{f.column}"


# SGR codes of the styles the report uses (ECMA-48). Written here rather than through
# click so that only the command line depends on the CLI library.
_SGR = {"bold": "1", "red": "31"}


def _style(text: str, color: bool, fg: str | None = None, bold: bool = False) -> str:
    if not color:
        return text
    codes = ([_SGR[fg]] if fg else []) + ([_SGR["bold"]] if bold else [])
    return "".join(f"\x1b[{code}m" for code in codes) + text + "\x1b[0m"


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


Place = tuple[str, int, int]  # a finding's path, line and column
# How many of the other files of a folded finding ``full`` names; the rest are counted.
LISTED = 3


@dataclasses.dataclass
class _Copies:
    """A cause met in more than one file: its first place, its headline, and the other files."""

    first: Place
    code: str
    name: str
    message: str
    paths: list[str] = dataclasses.field(default_factory=list)  # the first LISTED other files
    files: int = 0  # how many other files hold it


class Folds:
    """The causes met so far in a report (Finding.cause), to fold a finding met again in another file.

    Only a digest and a place is kept per cause, and a headline per cause met twice:
    the report is still written as the files come, and holds no finding's text.
    """

    def __init__(self):
        self.first: dict[str, Place] = {}
        self.copies: dict[str, _Copies] = {}
        self.folded = 0  # findings folded into the first of their cause

    def mark(self, findings: Sequence[Finding]) -> list[Place | None]:
        """For each of one file's findings, the first place of its cause when that is in another
        file (the finding is a copy), else None; the file's findings are counted as met."""
        firsts: list[Place | None] = []
        for f in findings:
            first = None
            if f.cause:
                # The path of every finding of a file, interned: a cause keeps a place, not a string.
                first = self.first.setdefault(f.cause, (sys.intern(f.path), f.line, f.column))
                first = first if first[0] != f.path else None
            if first is not None:
                self._copy(f, first)
            firsts.append(first)
        return firsts

    def _copy(self, f: Finding, first: Place) -> None:
        self.folded += 1
        copies = self.copies.get(f.cause)
        if copies is None:
            copies = self.copies[f.cause] = _Copies(first, f.code, f.name, f.message)
        if copies.paths and copies.paths[-1] == f.path:
            return  # the same file again (two copies of the prompt in it): one file
        copies.files += 1
        if len(copies.paths) < LISTED:
            copies.paths.append(f.path)


class Writer:
    """A report written as the files come, so that no file's text is kept until the end.

    ``file`` takes one file's findings (in order) and its text as the rules read
    it, and returns that part of the report; ``end`` returns what closes it.
    ``firsts`` (from ``Folds.mark``) gives, for each finding met before in another
    file, that first place; a format that ``FOLDS`` leaves those out.
    Findings that share a fix (PL201 has one for every date of a prompt) are the
    same ``Fix`` object within a file: a format that shows edits shows them once.
    """

    FOLDS = False  # whether the format shows a cause once (the summary then counts causes)

    def __init__(self, color: bool = False, folds: Folds | None = None):
        self.color = color
        self.folds = folds

    def file(self, path: str, text: str, findings: Sequence[Finding], firsts: Sequence[Place | None] | None = None) -> str:
        raise NotImplementedError

    def end(self) -> str:
        return ""


def shown(findings: Sequence[Finding], firsts: Sequence[Place | None] | None) -> list[Finding]:
    """The findings a folding format shows: those not met before in another file."""
    return list(findings) if firsts is None else [f for f, first in zip(findings, firsts) if first is None]


def _first_of(firsts: Sequence[Place | None] | None, index: int) -> Place | None:
    return None if firsts is None else firsts[index]


class _FixNumbers:
    """Numbers the fixes of a report, 1, 2, ...: a finding names its fix by number, and the first one to name it carries its edits."""

    def __init__(self):
        self.count = 0
        self._numbers: dict[int, int] = {}

    def start_file(self) -> None:
        # A fix belongs to one file; forgetting the last file's lets their ids be reused safely.
        self._numbers.clear()

    def number(self, fix: Fix) -> tuple[int, bool]:
        """The fix's number, and whether this is its first finding."""
        first = id(fix) not in self._numbers
        if first:
            self.count += 1
            self._numbers[id(fix)] = self.count
        return self._numbers[id(fix)], first


class _JsonArray:
    """A JSON array written item by item, laid out as ``json.dumps(..., indent=2)`` lays it out at ``depth``."""

    def __init__(self, depth: int = 0):
        self.depth = depth
        self.empty = True

    def item(self, value) -> str:
        pad = "  " * (self.depth + 1)
        opening = "[\n" if self.empty else ",\n"
        self.empty = False
        return opening + pad + json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + pad)

    def close(self) -> str:
        return "[]" if self.empty else "\n" + "  " * self.depth + "]"


class Concise(Writer):
    FOLDS = True

    def file(self, path: str, text: str, findings: Sequence[Finding], firsts: Sequence[Place | None] | None = None) -> str:
        return "".join(f"{_headline(f, self.color)}\n" for f in shown(findings, firsts))


class Full(Writer):
    """Each finding with its line; a finding met again in other files is shown at its first place,
    and the other files are listed at the end: the report is written before they are known."""

    FOLDS = True

    def file(self, path: str, text: str, findings: Sequence[Finding], firsts: Sequence[Place | None] | None = None) -> str:
        # The report's pieces, each line ending in a newline, joined once. A flagged line is
        # the file's own string, not a copy: a chat JSON file is a few lines of many kilobytes,
        # each shown once per finding on it. The text is split once for all its findings.
        findings = shown(findings, firsts)
        out: list[str] = []
        lines = text.split("\n") if findings else []
        for f in findings:
            context = f" ({f.context})" if f.context else ""
            out.append(f"{_headline(f, self.color)}{context}\n")
            if 0 < f.line <= len(lines):
                line = lines[f.line - 1]
                number = str(f.line)
                pad = " " * len(number)
                width = max(1, (f.end_column - f.column) if f.end_line == f.line else len(line) - f.column + 1)
                out += (f" {pad} |\n {number} | ", line, "\n")
                out += (f" {pad} | ", " " * (f.column - 1), _style("^" * width, self.color, fg="red"), "\n")
            if f.fix is not None:
                out.append(f"  = fix ({APPLIES[f.fix.applicability]}): {f.fix.description}\n")
            if f.tokens:
                out.append(f"  = costs {plural(f.tokens, 'token')}\n")
            out.append("\n")
        return "".join(out)

    def end(self) -> str:
        """The findings folded, each at its first place with the other files that hold it."""
        if self.folds is None or not self.folds.copies:
            return ""
        out = ["Also in other files (the same finding; --no-fold shows each):\n"]
        for copies in self.folds.copies.values():
            where = _style(":".join(map(str, copies.first)), self.color, bold=True)
            out.append(f"{where}: {_style(copies.code, self.color, fg='red', bold=True)} [{copies.name}] {copies.message}\n")
            more = f", … ({plural(copies.files - len(copies.paths), 'more file')})" if copies.files > len(copies.paths) else ""
            out.append(f"  = also in: {', '.join(copies.paths)}{more}\n")
        return "".join(out) + "\n"


def _as_place(place: Place | None) -> dict | None:
    return None if place is None else {"path": place[0], "line": place[1], "column": place[2]}


class JsonLines(Writer):
    """A record per finding, copies included: a copy's ``duplicate_of`` names its first place."""

    def __init__(self, color: bool = False, folds: Folds | None = None):
        super().__init__(color, folds)
        self.fixes = _FixNumbers()

    def file(self, path: str, text: str, findings: Sequence[Finding], firsts: Sequence[Place | None] | None = None) -> str:
        self.fixes.start_file()
        return "".join(json.dumps(self.record(f, _first_of(firsts, i)), ensure_ascii=False) + "\n" for i, f in enumerate(findings))

    def record(self, f: Finding, primary: Place | None = None) -> dict:
        fix = None
        if f.fix is not None:
            number, first = self.fixes.number(f.fix)
            fix = {
                "id": number,
                "applicability": f.fix.applicability.name.lower(),
                "message": f.fix.description,
                # Edits are offsets into the prompt text (for a chat file, the joined messages).
                # A fix shared by several findings lists them on the first: each edit is written once.
                "edits": [{"start": e.span.start, "end": e.span.end, "content": e.replacement} for e in f.fix.edits] if first else [],
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
            "duplicate_of": _as_place(primary),
        }


class Json(JsonLines):
    def __init__(self, color: bool = False, folds: Folds | None = None):
        super().__init__(color, folds)
        self.array = _JsonArray()

    def file(self, path: str, text: str, findings: Sequence[Finding], firsts: Sequence[Place | None] | None = None) -> str:
        self.fixes.start_file()
        return "".join(self.array.item(self.record(f, _first_of(firsts, i))) for i, f in enumerate(findings))

    def end(self) -> str:
        return self.array.close() + "\n"


GITHUB_COMMANDS = {Severity.INFO: "notice", Severity.WARNING: "warning", Severity.ERROR: "error"}


def _github_data(text: str) -> str:
    # A workflow command ends at the line end, and % starts an escape.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github_property(text: str) -> str:
    # Properties are separated by commas, and a colon pair ends them.
    return _github_data(text).replace(":", "%3A").replace(",", "%2C")


class GitHub(Writer):
    """GitHub Actions workflow commands: each finding becomes an annotation on the pull request."""

    def file(self, path: str, text: str, findings: Sequence[Finding], firsts: Sequence[Place | None] | None = None) -> str:
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


class GitLab(Writer):
    """A GitLab Code Quality report."""

    def __init__(self, color: bool = False, folds: Folds | None = None):
        super().__init__(color, folds)
        self.array = _JsonArray()

    def file(self, path: str, text: str, findings: Sequence[Finding], firsts: Sequence[Place | None] | None = None) -> str:
        out, seen = [], Counter()
        for f in findings:
            path = _repo_path(f.path)
            identity = (path, baseline.fingerprint(f, text))
            seen[identity] += 1
            # GitLab compares reports by fingerprint: it must not move with the line, and
            # identical findings in one file are told apart by their order.
            fingerprint = baseline.digest(*identity, str(seen[identity]))
            issue = {
                "description": f.message,
                "check_name": f.code,
                "fingerprint": fingerprint,
                "severity": GITLAB_SEVERITIES[f.severity],
                "location": {"path": path, "lines": {"begin": f.line, "end": f.end_line}},
            }
            out.append(self.array.item(issue))
        return "".join(out)

    def end(self) -> str:
        return self.array.close() + "\n"


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
        "helpUri": rule.help_uri,
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


class Sarif(Writer):
    """SARIF 2.1.0, for code-scanning services and SARIF viewers.

    The results are written as they come, so the run lists them before its tool,
    whose rules (in the order the results first use them) are known only at the end.
    A fix shared by several results is given on the first of them; each result
    with a fix names it in its properties (``fixId``). A finding met before in another
    file is still a result there, with the first place as its related location.
    """

    def __init__(self, color: bool = False, folds: Folds | None = None):
        super().__init__(color, folds)
        self.results = _JsonArray(depth=3)
        self.codes: dict[str, int] = {}  # rule code -> its index in the driver's rules
        self.fixes = _FixNumbers()

    def _document(self, tool: dict) -> tuple[str, str]:
        """The log's text before the results and after them."""
        # Columns count characters, as everywhere in promptlint (SARIF's default is UTF-16 units).
        run = {"columnKind": "unicodeCodePoints", "results": None, "tool": tool}
        text = json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False)
        before, after = text.split('"results": null', 1)
        return before + '"results": ', after + "\n"

    def file(self, path: str, text: str, findings: Sequence[Finding], firsts: Sequence[Place | None] | None = None) -> str:
        out = [self._document({})[0]] if self.results.empty and findings else []
        self.fixes.start_file()
        self.placed: set[int] = set()  # the numbers of this file's fixes that SARIF can show
        for index, f in enumerate(findings):
            uri = _sarif_uri(f.path)
            result = {
                "ruleId": f.code,
                "ruleIndex": self.codes.setdefault(f.code, len(self.codes)),
                "level": SARIF_LEVELS[f.severity],
                "message": {"text": f.message},
                "locations": [
                    {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": _sarif_region(f.line, f.column, f.end_line, f.end_column)}}
                ],
            }
            first = _first_of(firsts, index)
            if first is not None:
                region = {"startLine": first[1], "startColumn": first[2]}
                location = {"artifactLocation": {"uri": _sarif_uri(first[0])}, "region": region}
                result["relatedLocations"] = [{"id": 0, "physicalLocation": location, "message": {"text": "the same finding, first reported here"}}]
            if f.fix is not None:
                # Built for the fix's first result only: building it for each was quadratic.
                number, first = self.fixes.number(f.fix)
                fixes = _sarif_fixes(f, uri) if first else []
                if fixes:
                    result["fixes"] = fixes
                    self.placed.add(number)
                if number in self.placed:
                    result["properties"] = {"fixId": number}
            out.append(self.results.item(result))
        return "".join(out)

    def end(self) -> str:
        from importlib.metadata import version  # loads the email package: only for this format

        tool = {"driver": {"name": "promptlint", "version": version(DISTRIBUTION), "rules": [_sarif_rule(c) for c in self.codes]}}
        before, after = self._document(tool)
        return ("" if not self.results.empty else before) + self.results.close() + after


class JUnit(Writer):
    """JUnit XML: a test suite per file, a failing test case per finding, one passing case for a clean file.

    The totals open the document, so the suites (not the files' text) are kept until the end.
    """

    def __init__(self, color: bool = False, folds: Folds | None = None):
        super().__init__(color, folds)
        self.suites: list[str] = []
        self.tests = self.failures = 0

    def file(self, path: str, text: str, findings: Sequence[Finding], firsts: Sequence[Place | None] | None = None) -> str:
        import xml.etree.ElementTree as ET  # only for this format

        tests = max(1, len(findings))
        self.tests += tests
        self.failures += len(findings)
        suite = ET.Element("testsuite", name=path, tests=str(tests), failures=str(len(findings)), errors="0")
        if not findings:
            ET.SubElement(suite, "testcase", name="promptlint", classname=path, file=path)
        for f in findings:
            case = ET.SubElement(suite, "testcase", name=f"{f.code} ({f.name})", classname=path, file=path, line=str(f.line))
            failure = ET.SubElement(case, "failure", message=f.message)
            failure.text = f"{_where(f)}: {f.code} [{f.name}] {f.message}"
        ET.indent(suite, level=1)
        self.suites.append("  " + ET.tostring(suite, encoding="unicode") + "\n")
        return ""

    def end(self) -> str:
        import xml.etree.ElementTree as ET

        root = ET.Element("testsuites", name="promptlint", tests=str(self.tests), failures=str(self.failures), errors="0")
        head = ET.tostring(root, encoding="unicode", xml_declaration=True).removesuffix(" />") + ">\n"
        return head + "".join(self.suites) + "</testsuites>\n"


WRITERS: dict[str, type[Writer]] = {
    "full": Full,
    "concise": Concise,
    "json": Json,
    "json-lines": JsonLines,
    "github": GitHub,
    "gitlab": GitLab,
    "sarif": Sarif,
    "junit": JUnit,
}


def render(fmt: str, findings: Sequence[Finding], sources: dict[str, str], color: bool = False) -> str:
    """The whole report at once: each file of ``sources`` (then any other a finding names) with its findings."""
    writer = WRITERS[fmt](color)
    by_path: dict[str, list[Finding]] = {path: [] for path in sources}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    return "".join(writer.file(path, sources.get(path, ""), found) for path, found in by_path.items()) + writer.end()


@dataclasses.dataclass
class Tally:
    """What the summary, --statistics and --show-fixes need of the findings, counted file by file.

    The findings themselves are not kept: over many files they were most of the
    memory of a run (a fix's edits can hold whole sources).
    """

    listing: bool = False  # keep a line per fix, for --show-fixes
    findings: int = 0
    rules: Counter[tuple[str, str]] = dataclasses.field(default_factory=Counter)  # (code, name) -> findings
    tokens: Counter[tuple[str, str]] = dataclasses.field(default_factory=Counter)  # (code, name) -> the tokens they cost
    safe: int = 0  # findings a safe fix resolves
    unsafe: int = 0  # findings an unsafe fix resolves
    saved: int = 0  # the tokens of the findings a safe fix resolves
    fix_lines: list[str] = dataclasses.field(default_factory=list)
    # (code, name) -> the most a fix of one of its findings asks: SAFE ([*]) or UNSAFE ([-])
    fixable: dict[tuple[str, str], Applicability] = dataclasses.field(default_factory=dict)
    folded: int = 0  # findings not counted: met before in another file (see Folds)

    def add(self, findings: Sequence[Finding], firsts: Sequence[Place | None] | None = None) -> None:
        """Count one file's findings; with ``firsts``, those met before in another file only as folded."""
        counted = shown(findings, firsts)
        self.folded += len(findings) - len(counted)
        for f in counted:
            self.findings += 1
            self.rules[f.code, f.name] += 1
            self.tokens[f.code, f.name] += f.tokens
            if f.fix is None:
                continue
            if f.fix.applicability >= Applicability.UNSAFE:
                rule = f.code, f.name
                self.fixable[rule] = max(self.fixable.get(rule, f.fix.applicability), f.fix.applicability)
            if f.fix.applicability is Applicability.SAFE:
                self.safe += 1
                self.saved += f.tokens
            elif f.fix.applicability is Applicability.UNSAFE:
                self.unsafe += 1
            if self.listing:
                self.fix_lines.append(f"  {_where(f)}: {f.code} {f.fix.description} ({APPLIES[f.fix.applicability]})\n")


def statistics(tally: Tally) -> str:
    """A line per rule: how many findings, whether --fix ([*]) or --unsafe-fixes ([-]) fixes
    some of them, and the tokens they cost; the most frequent first."""
    counts, tokens, best = tally.rules, tally.tokens, tally.fixable
    marks = {Applicability.SAFE: "[*]", Applicability.UNSAFE: "[-]"}
    width = max((len(name) for _, name in counts), default=0)
    rows = sorted(counts, key=lambda rule: (-counts[rule], rule))
    lines = [f"{counts[rule]:>5}  {rule[0]}  {marks.get(best.get(rule), '   ')} {rule[1]:<{width}}  {tokens[rule]:>6} {'token' if tokens[rule] == 1 else 'tokens'}\n" for rule in rows]
    if best:
        lines.append("[*] fixable with --fix, [-] with --unsafe-fixes\n")
    return "".join(lines)


def fixes(tally: Tally) -> str:
    """The fixes the findings offer, each with what applies it."""
    return "Fixes (safe: --fix, unsafe: --unsafe-fixes):\n" + "".join(tally.fix_lines) if tally.fix_lines else ""


def plural(count: int, word: str) -> str:
    """"1 token", "2 tokens"."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary(tally: Tally, fixed: int | None = None, failures: Sequence[str] = ()) -> str:
    """The closing line for people: what was found, what --fix fixed, and what could not be done.

    ``fixed`` is how many findings fixing removed (None: not fixing); ``failures`` are
    phrases such as "1 file could not be read", after which all never passed.
    """
    if not tally.findings and not fixed:
        return "; ".join(failures) + "." if failures else "All checks passed!"
    # Folded findings are counted apart: the findings counted are causes.
    notes = [f"{fixed} fixed, {tally.findings} remaining"] if fixed else []
    notes += [f"{plural(tally.folded, 'duplicate')} in other files folded"] if tally.folded else []
    parts = [f"Found {plural(tally.findings + (fixed or 0), 'finding')}" + (f" ({', '.join(notes)})" if notes else "")]
    if tally.safe:
        parts.append(f"{tally.safe} fixable with --fix" + (f" (saves {plural(tally.saved, 'token')})" if tally.saved else ""))
    if tally.unsafe:
        parts.append(f"{tally.unsafe} more with --unsafe-fixes")
    return "; ".join([", ".join(parts), *failures]) + "."
