"""Suppressions: directives in a template's Jinja comments, or in the comments of code, that silence findings.

Jinja drops `{# ... #}` comments when it renders, so a directive never reaches
the model. An assembled prompt (plain text, chat JSON) is sent as written: a
comment in it would be read by the model, so it has no directives, and
per-file-ignores and baselines serve it instead.

    {# promptlint: ignore[PL102] reason #}       its line, or the next one when the comment stands alone
    {# promptlint: disable[PL102,PL201] #}       until an enable names the rule, or to the end
    {# promptlint: enable[PL102] #}
    {# promptlint: file-ignore[PL205] #}         the whole file

In Python and JavaScript/TypeScript the same directives are comments of the code
(`# promptlint: ignore[PL102]`, `// promptlint: ignore[PL102]`), read by the same
parser. There `ignore` covers a whole string: on the line where the string starts or
ends, or alone on the line before the string or before its statement; and
`ignore-file` (or `file-ignore`) the whole file. A comment of the code is never
sent to the model either.

Rules are named by code or name, comma-separated; `ALL` names every rule, and
`disable` or `enable` without a list means `ALL`. This stage runs between check
and fix: a finding is suppressed by the line it starts on in the prompt text,
and is dropped before anything is fixed or reported. PL901 then reports each
directive that suppressed nothing, names no rule, or does not parse.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from dataclasses import dataclass

from ..model.findings import Applicability, Edit, Finding, Fix
from ..model.lines import line_column, line_span, line_starts, with_newline
from ..model.prompt import Prompt, Span
from ..readers.jinja import check_syntax
from ..rules.unused_suppression import CODE
from . import registry
from .config import Config
from ..rules._context import RuleContext

# A comment that starts so is meant as a directive, and is reported when it does not parse.
_PREFIX = re.compile(r"\s*promptlint\s*:\s*", re.IGNORECASE)
_FORM = re.compile(r"(?P<kind>[\w-]*)\s*(?:\[(?P<list>[^\]]*)\])?(?P<rest>.*)", re.DOTALL)
KINDS = ("ignore", "disable", "enable", "file-ignore", "ignore-file")
FILE_KINDS = ("file-ignore", "ignore-file")  # two spellings of one directive: ruff's and ours
_UNUSED = {
    "ignore": "suppresses nothing on the line it covers",
    "disable": "suppresses nothing in its region",
    "file-ignore": "suppresses nothing in this file",
    "ignore-file": "suppresses nothing in this file",
    "enable": "ends no region that suppressed anything",
}
_UNUSED_IN_CODE = {**_UNUSED, "ignore": "suppresses nothing in the strings it covers"}


@dataclass
class Entry:
    """One rule of a directive's list, as written."""

    text: str  # "PL102", "retrieval-score", "ALL"
    codes: frozenset[str]  # the rules it names; empty when it names none
    used: bool = False


@dataclass
class Directive:
    kind: str  # one of KINDS; "" when malformed
    span: Span  # the comment, `{#` to `#}`
    tag_end: int  # past the whitespace a `-#}` strips
    alone: bool  # nothing else on its line(s)
    entries: list[Entry]
    list_span: Span | None = None  # between the brackets
    problem: str = ""  # why a malformed directive does not parse


@dataclass
class _Scope:
    """Where one directive suppresses one rule: lines ``first`` to ``last`` of the prompt text, 0-based."""

    code: str
    first: int
    last: int
    directive: Directive
    entry: Entry
    closer: Entry | None = None  # the enable entry that ended a disable region


def directives(source: str) -> list[Directive]:
    """The directives of a template, in order; ``source`` must parse."""
    found = []
    for tag in check_syntax(source):  # the tags the front-end just read, remembered
        prefix = _PREFIX.match(tag.inner) if tag.kind == "comment" else None
        if prefix is None:
            continue
        end = tag.span.start + len(source[tag.span.start : tag.span.end].rstrip())
        before = source[line_span(source, tag.span.start).start : tag.span.start]
        alone = not before.strip() and not source[end : line_span(source, end).end].strip()
        directive = Directive("", Span(tag.span.start, end), tag.span.end, alone, [])
        _read(tag.inner[prefix.end() :].strip(), directive, source)
        found.append(directive)
    return found


def _read(body: str, directive: Directive, source: str) -> None:
    """Fill in the directive from the text after `promptlint:`, or say why it does not parse."""
    form = _FORM.fullmatch(body)
    kind, listed, rest = form["kind"].lower(), form["list"], form["rest"].strip()
    if kind not in KINDS:
        what = f"unknown directive '{form['kind']}'" if kind else "no directive after 'promptlint:'"
        directive.problem = f"{what} (expected one of: {', '.join(KINDS)})"
    elif listed is None and kind in ("ignore", *FILE_KINDS):
        directive.problem = f"{kind} needs the rules in brackets, as in {kind}[PL102]"
    elif listed is None and rest:
        # `disable PL102` must not be read as `disable` (every rule) with a reason.
        directive.problem = f"the rules go in brackets, as in {kind}[PL102]"
    elif listed is not None and not all(t.strip() for t in listed.split(",")):
        directive.problem = "an empty rule name in the list"
    else:
        directive.kind = kind
        if listed is None:
            directive.entries = [Entry("ALL", _names("ALL"))]
        else:
            # The list is the first bracket in the comment: `promptlint:` and the kind have none.
            start = source.index("[", directive.span.start) + 1
            directive.list_span = Span(start, start + len(listed))
            directive.entries = [Entry(t.strip(), _names(t.strip())) for t in listed.split(",")]


def _names(text: str) -> frozenset[str]:
    if text.upper() == "ALL":
        return frozenset(r.code for r in registry.all_rules())
    rule = registry.get(text)
    return frozenset({rule.code} if rule else ())


class _Lines:
    """0-based line numbers of offsets, by bisection (counting newlines each time made many directives quadratic)."""

    def __init__(self, source: str):
        self.starts = line_starts(source)

    def of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1


def _scopes(lines: _Lines, found: list[Directive]) -> list[_Scope]:
    scopes: list[_Scope] = []
    last = len(lines.starts) - 1
    open_regions: dict[str, _Scope] = {}
    for directive in found:
        line = lines.of(directive.span.start)
        for entry in directive.entries:
            for code in sorted(entry.codes):
                if directive.kind in FILE_KINDS:
                    scopes.append(_Scope(code, 0, last, directive, entry))
                elif directive.kind == "ignore":
                    target = lines.of(directive.span.end) + 1 if directive.alone else line
                    scopes.append(_Scope(code, target, target, directive, entry))
                elif directive.kind == "disable" and code not in open_regions:
                    # A disable of a rule already disabled opens nothing, and is reported unused.
                    open_regions[code] = _Scope(code, line, last, directive, entry)
                    scopes.append(open_regions[code])
                elif directive.kind == "enable" and code in open_regions:
                    # The rule is checked again from the enable's own line on.
                    region = open_regions.pop(code)
                    region.last, region.closer = line - 1, entry
    return scopes


class _Covering:
    """Which scopes cover a line for a rule, without trying every scope.

    An `ignore` covers one line; a `file-ignore` every line; the `disable` regions of one
    rule never overlap (a second disable opens nothing), so one bisection finds the one
    that may hold a line.
    """

    def __init__(self, scopes: list[_Scope]):
        self.lines: dict[tuple[str, int], list[_Scope]] = defaultdict(list)
        self.files: dict[str, list[_Scope]] = defaultdict(list)
        self.regions: dict[str, list[_Scope]] = defaultdict(list)  # in order of their first line
        for scope in scopes:
            kind = scope.directive.kind
            where = self.lines[(scope.code, scope.first)] if kind == "ignore" else self.files[scope.code] if kind in FILE_KINDS else self.regions[scope.code]
            where.append(scope)
        self.firsts = {code: [r.first for r in regions] for code, regions in self.regions.items()}

    def __call__(self, code: str, line: int) -> list[_Scope]:
        found = self.lines.get((code, line), []) + [s for s in self.files.get(code, []) if s.first <= line <= s.last]
        regions = self.regions.get(code)
        if regions:
            i = bisect.bisect_right(self.firsts[code], line) - 1
            if i >= 0 and regions[i].first <= line <= regions[i].last:
                found.append(regions[i])
        return found


def apply_suppressions(prompt: Prompt, findings: list[Finding], config: Config) -> list[Finding]:
    """The findings of a template less those its directives suppress, plus PL901 for the directives."""
    source = prompt.text
    found = directives(source)
    if not found:
        return findings
    lines = _Lines(source)
    covering_of = _Covering(_scopes(lines, found))
    kept = []
    for finding in findings:
        covering = covering_of(finding.code, lines.of(finding.span.start))
        for scope in covering:
            scope.entry.used = True
            if scope.closer is not None:
                scope.closer.used = True
        if not covering:
            kept.append(finding)
    rule = registry.get(CODE)
    if rule not in config.selected:
        return kept
    context = RuleContext(rule, config.rule_options(rule), config.today, config.lexicon)
    # A directive is judged only by the rules that ran; never for PL901, which would have to report on itself.
    judged = {r.code for r in config.selected} - {CODE}
    for directive in found:
        report = _report(directive, judged, source)
        if report is None:
            continue
        # A directive never suppresses its own report, or `disable` (every rule) could never be unused.
        if any(s.directive is not directive for s in covering_of(CODE, lines.of(directive.span.start))):
            continue
        message, fix = report
        # A comment never reaches the model: it costs no tokens.
        kept.append(context.finding(prompt, directive.span, message, fix=fix, tokens_text=""))
    return kept


def _report(directive: Directive, judged: set[str], source: str, unused: dict[str, str] = _UNUSED) -> tuple[str, Fix | None] | None:
    if directive.problem:
        return f"malformed promptlint directive: {directive.problem}", None
    reasons, kept = [], []
    for entry in directive.entries:
        if not entry.codes:
            reasons.append(f"{directive.kind}[{entry.text}]: no rule has the code or name '{entry.text}'")
        elif entry.codes & judged and not entry.used:
            reasons.append(f"{directive.kind}[{entry.text}] {unused[directive.kind]}")
        else:
            kept.append(entry)
    if not reasons:
        return None
    if kept:
        edit = Edit(directive.list_span, ",".join(e.text for e in kept))
        return "; ".join(reasons), Fix(Applicability.SAFE, (edit,), "Remove the unused rules from the directive")
    return "; ".join(reasons), Fix(Applicability.SAFE, (Edit(_removal(source, directive)),), "Remove the directive")


def _removal(source: str, directive: Directive) -> Span:
    """The directive's line when it stands alone. Else the comment with the whitespace its
    `{#-` or `-#}` strips, so the template renders the same text, or with the spaces
    before it when it ends its line, so that none are left trailing."""
    if directive.alone:
        line_end = with_newline(source, line_span(source, directive.span.end)).end
        return Span(line_span(source, directive.span.start).start, max(line_end, directive.tag_end))
    # Walked back, not `source[:start].rstrip()`: copying the text up to each directive made many quadratic.
    start = directive.span.start
    if source.startswith("{#-", start):
        while start and source[start - 1].isspace():
            start -= 1
    elif not source[directive.tag_end : line_span(source, directive.tag_end).end].strip():
        while start and source[start - 1] in " \t":
            start -= 1
    return Span(start, directive.tag_end)


class CodeSuppressions:
    """The directives in the comments of a Python or JavaScript file, which cover whole strings.

    A finding of a string is suppressed when a directive covers the line the string
    starts on, the line it ends on, or the line its statement starts on: a directive
    at the end of a line covers that line, one alone on its line the next. Which
    directives were used is kept across the prompts of the file, and reported once.
    """

    def __init__(self, raw: str, found: list[Directive], statement_line):
        self.raw = raw
        self.found = found
        self.lines = _Lines(raw)
        self.covering = _Covering(_scopes(self.lines, found))
        self.statement_line = statement_line

    def apply(self, anchors: tuple[int, int], findings: list[Finding]) -> list[Finding]:
        """``findings`` of the string that starts and ends on the file's (0-based) lines ``anchors``, less those suppressed."""
        lines = {*anchors, self.statement_line(anchors[0])}
        kept = []
        for finding in findings:
            covering = [scope for line in lines for scope in self.covering(finding.code, line)]
            for scope in covering:
                scope.entry.used = True
            if not covering:
                kept.append(finding)
        return kept

    def reports(self, path: str, config: Config) -> list[Finding]:
        """PL901 for each directive that suppressed nothing, names no rule, or does not parse.

        It has no fix: a comment of the code is outside every prompt, and fixes edit prompts."""
        rule = registry.get(CODE)
        if rule not in config.selected:
            return []
        judged = {r.code for r in config.selected} - {CODE}
        found = []
        for directive in self.found:
            report = _report(directive, judged, self.raw, _UNUSED_IN_CODE)
            if report is None or any(s.directive is not directive for s in self.covering(CODE, self.lines.of(directive.span.start))):
                continue
            (line, column), (end_line, end_column) = (line_column(self.lines.starts, at) for at in (directive.span.start, directive.span.end))
            found.append(Finding(CODE, rule.name, report[0], directive.span, rule.severity, path=path, line=line, column=column, end_line=end_line, end_column=end_column))
        return found


def code_suppressions(raw: str, language: str, jsx: bool = False) -> CodeSuppressions | None:
    """The directives of a code file's comments; None when it has none."""
    from ..readers.codecomments import layout

    read = layout(raw, language, jsx)
    found = []
    for comment in read.comments:
        prefix = _PREFIX.match(comment.inner)
        if prefix is None:
            continue
        alone = not raw[line_span(raw, comment.start).start : comment.start].strip()
        directive = Directive("", Span(comment.start, comment.end), comment.end, alone, [])
        _read(comment.inner[prefix.end() :].strip(), directive, raw)
        if directive.kind in ("disable", "enable"):
            # A region of lines means nothing to a string: a directive in code covers strings.
            directive.kind, directive.problem = "", f"{directive.kind} works in Jinja templates; in code use ignore[...] on the string, or ignore-file[...]"
        found.append(directive)
    return CodeSuppressions(raw, found, read.statement_line) if found else None
