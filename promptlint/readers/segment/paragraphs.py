"""Sources written as paragraphs of one skeleton inside the context, with no header the lexicon knows.

    Context:

    pqac-2a9aa41f: Counterfactual explanations are actionable as they suggest ...
    From Wellawatte et al. A perspective on explanations ... This article has 1 citations.

    pqac-b4c5b571: Counterfactuals are actionable as they suggest modifications ...
    From Wellawatte et al. A perspective on explanations ... This article has 1 citations.

The context the prompt labels (see sources.unwrapped_context) is cut at its blank lines into
paragraphs. Paragraphs are one unit repeated when they have as many lines and each line has the
same skeleton in every one: it opens with the same word ("From ..."), or with a key of one token
and a colon ("pqac-2a9aa41f: ..."). The line whose text varies and is long is the content (after
its key); the other lines are the wrapper, and the key is the unit's citation key. Read only on evidence: two units or more, every
content long and different, and at least one line of wrapper besides the content. The run of units
ends at the first paragraph of another number of lines ("Valid Keys: ..." after them).
"""

from __future__ import annotations

import itertools
import re

from ...model.prompt import Source, Span
from .vocab import Line, trim

# A key of one token before a colon that opens a line: "pqac-2a9aa41f: ", "doc_3: ", "report.pdf: ".
_KEYED = re.compile(r"[ \t]*(?P<key>[^\s:]{1,40}):[ \t]+(?=\S)")
# Words a unit's content needs, and the most lines a unit of this kind has.
CONTENT_WORDS = 8
MAX_LINES = 6


def paragraph_sources(text: str, lines: list[Line], region: Span) -> list[Source]:
    """The sources of a context region written as paragraphs of one skeleton (see the module's docstring)."""
    paragraphs = _paragraphs([line for line in lines if region.start <= line.start and line.end <= region.end])
    # The units are the paragraphs from the first on that have its number of lines: a note after them ends them.
    units = list(itertools.takewhile(lambda p: len(p) == len(paragraphs[0]), paragraphs))
    if len(units) < 2 or not 2 <= len(units[0]) <= MAX_LINES:
        return []
    skeleton = [_skeleton([unit[i] for unit in units]) for i in range(len(units[0]))]
    content_at = _content_line(units) if None not in skeleton else None
    if content_at is None:
        return []
    contents = [_content(text, unit[content_at], skeleton[content_at]) for unit in units]
    bodies = [text[c.start : c.end] for c in contents]
    if len(set(bodies)) < len(bodies) or any(len(b.split()) < CONTENT_WORDS for b in bodies):
        return []
    keyed_at = skeleton.index("keyed") if "keyed" in skeleton else None
    return [_source(n, unit, content, keyed_at) for n, (unit, content) in enumerate(zip(units, contents))]


def _content_line(units: list[list[Line]]) -> int | None:
    """Which line of a unit holds its content: the longest of those whose text differs in every unit (a line
    repeated whole is the wrapper); None when no line differs."""
    varying = [i for i in range(len(units[0])) if len({unit[i].text for unit in units}) == len(units)]
    return max(varying, key=lambda i: sum(len(unit[i].text) for unit in units)) if varying else None


def _source(position: int, unit: list[Line], content: Span, keyed_at: int | None) -> Source:
    """One unit as a source; the key of its keyed line, if it has one, is its citation key."""
    whole = Span(unit[0].start, unit[-1].end)
    if keyed_at is None:
        return Source(position, whole, Span(unit[0].start, unit[0].start), content)
    line = unit[keyed_at]
    keyed = _KEYED.match(line.text)
    key_span = Span(line.start + keyed.start("key"), line.start + keyed.end("key"))
    return Source(position, whole, Span(line.start, line.start + keyed.end()), content, key=keyed["key"], key_span=key_span)


def _paragraphs(lines: list[Line]) -> list[list[Line]]:
    """The runs of lines between blank lines."""
    paragraphs: list[list[Line]] = [[]]
    for line in lines:
        if line.blank:
            paragraphs.append([])
        else:
            paragraphs[-1].append(line)
    return [p for p in paragraphs if p]


def _skeleton(column: list[Line]) -> str | None:
    """What a line is in every unit: "keyed" (a key of one token and a colon opens it, the keys all
    different), "opened" (the same first word opens it), or None (no skeleton)."""
    keys = [m["key"] if (m := _KEYED.match(line.text)) else None for line in column]
    if None not in keys and len(set(keys)) == len(keys):
        return "keyed"
    firsts = {(line.text.split() or [""])[0] for line in column}
    return "opened" if len(firsts) == 1 and firsts != {""} else None


def _content(text: str, line: Line, skeleton: str) -> Span:
    """A unit's content on its line: after the key on a keyed line, the whole line otherwise."""
    keyed = _KEYED.match(line.text) if skeleton == "keyed" else None
    return trim(text, Span(line.start + (keyed.end() if keyed else 0), line.end))
