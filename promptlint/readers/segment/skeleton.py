"""Sources found by their skeleton: the lines a renderer wrote from one format string.

A renderer writes each source with the same words and punctuation around different values
("- [1] Pricing (0.93, 2026-11-20): The Pro plan ...", "Pricing ---- match: 0.93 ---- ..."). A
line is cut into cells at the separators a header uses (" ---- ", " / ", " | ", " · "), at the
items of the bracketed group that ends a cell, and at the colon before a long text. A cell's
skeleton is its label when it has one, else a hole; lines whose skeletons are equal are one unit
repeated. Only then is each cell read by its role across the units: the long varying text (on
the line, or the lines under it) is the content; short varying values are fields, under their
label or, unlabelled, left for the rules to judge by their shape; the first unlabelled value that
is no number, date or slot is the title; a cell that never varies is the wrapper.

Lines that repeat a skeleton are as often the prompt's own (a list of rules, a table of
settings): a run is read as sources only on evidence of retrieved text: two units or more, every
unit's content long, different from the others' and no instruction, a field among the cells,
and the run under a context label, or under a line that speaks of the context and before the
question.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import re
from dataclasses import dataclass

from ...meaning.values import number, parse_date
from ...meaning.vocabulary import normalise_label, word_count
from ...model.prompt import Field, FieldForm, Message, Source, Span
from .vocab import LABEL_LINE, QUESTION_LINE, SECTION_LABEL, SLOT, Line, Vocab, as_ascii, names_the_question, slot_kind, speaks_of_context, trim
from .instructions import looks_like_instruction, opens_with_imperative
from .headers import with_space
from .sources import RUN_ONLY, assigned_items, assigned_row, by_position, cut_last_source, first_value, strip_blank_edges

# What opens a unit's line: a Markdown heading's marks or a list marker, then a citation key ("[3]") or a number ("3.").
# A key is one token: a number, a short name, or a store's id ("[large_pdf_page_003_001]", "[4731e598-9cb5-...]").
_LEAD = re.compile(r"[ \t]*(?P<marks>#{1,6}[ \t]+|[-*\u2022][ \t]+)?(?:[\[\u3010](?P<key>[\w.:#-]{1,64})[\]\u3011][ \t]*|(?P<number>\d{1,3})[.)][ \t]+)?")
# A head written inside a banner, the same rule on both sides: "--- README.md (lines 27-72) ---".
_BANNER = re.compile(r"[ \t]*(?P<rule>-{2,}|={2,}|~{2,}|\*{2,})[ \t]+(?P<inner>\S(?:.*\S)?)[ \t]+(?P=rule)[ \t]*$")
# A cell that is a word and a number or a range, unlabelled: where in its document a chunk stands ("lines 27-72", "page 3");
# or a few words and a fraction or a percentage, which no title ends with: a measure ("similarity 91%", "match score 0.92").
_LOCATED = re.compile(
    r"(?P<label>[^\W\d_]{1,12}\.?)[ \t]+(?P<value>\d{1,6}(?:[ \t]*[-\u2013][ \t]*\d{1,6})?)"
    r"|(?P<measure>[^\W\d_]{1,20}(?:[ \t]+[^\W\d_]{1,20}){0,2})[ \t]+(?P<amount>\d{1,3}(?:[.,]\d+[ \t]*%?|[ \t]*%))"
)
# The separators a header writes between its cells, spaced on both sides.
# (Not a dash: "Title — Section > Subsection" is a heading path, which the header lines read.)
_SEPARATOR = re.compile(r"[ \t]+(?:-{2,}|/|\||\u00b7|\u2022)[ \t]+")
# What a separator or a group holds: a line with none of them has neither (found by `in`, faster than the patterns).
_HEAD_MARKS = ("--", "/", "|", "\u00b7", "\u2022", ")", "]", "\uff09", "\u3011")
# A bracketed group that ends a cell: "Pricing (0.93, 2026-11-20)".
_GROUP = re.compile(r"(?:[(\uff08](?P<round>[^()\uff08\uff09\n]*)[)\uff09]|[\[\u3010](?P<square>[^\[\]\u3010\u3011\n]*)[\]\u3011])(?=[ \t]*$)")
# A cell written "label: value" or "label=value"; a label is a few words.
_LABELLED = re.compile(r"[ \t]*(?P<label>[^\W\d_][\w .@-]{0,30}?)[ \t]*[:=\uff1a](?!//)[ \t]*(?P<value>\S.*?)[ \t]*$")
# A long text after a colon, at the end of a line: the content on the unit's own line.
_TEXT_AFTER = re.compile(r":[ \t]+(?=\S)")
# Words a unit's content needs: a value is a few words, retrieved text a sentence.
CONTENT_WORDS = 6
# Words past which a cell is no short value.
_VALUE_WORDS = 5
# Cells past which a line is no unit's head.
_MAX_CELLS = 16
# How many heads the instructions may write as examples before the units.
_EXAMPLE_HEADS = 2
# A head written whole between brackets.
_WRAPPED = re.compile(r"\[(?P<cells>[^\[\]\n]+)\][ \t]*")
# Two bars with nothing between them: a table's empty cell ("| 85,269 |  |  |"), which no source's head writes.
_EMPTY_CELL = re.compile(r"\|[ \t]*\|")
# How many labels alone on their lines may stand over the units, the context's among them.
_LABELS_ABOVE = 2
# Where on its line the colon before a unit's text may stand: a head is short, and a line can be megabytes long.
_HEAD_CHARS = 300


@dataclass(frozen=True)
class _Cell:
    span: Span  # the cell's text
    cut: Span  # what removing it removes: the cell and the separator before it (after it, for the first)
    label: str  # its label, normalised; "" when unlabelled
    value: Span


@dataclass(frozen=True)
class _Head:
    """A line as a unit's head: its key, its cells, the content on it, and its skeleton."""

    line: int  # the line's index
    key: Span | None
    cells: tuple[_Cell, ...]
    content: Span | None
    skeleton: tuple


def skeleton_sources(text: str, lines: list[Line], vocab: Vocab, messages: list[Message]) -> list[Source]:
    """The sources written as lines of one skeleton, one a unit (see the module's docstring)."""
    heads = [head for i, line in enumerate(lines) if (head := _head(text, line, i)) is not None]
    # A skeleton written once is no unit repeated: such a line stands in a unit's text ("### Context (2025)").
    written = collections.Counter(head.skeleton for head in heads)
    heads = [head for head in heads if written[head.skeleton] >= 2]
    # Runs of consecutive heads of one skeleton: a unit written another way among them ends the run,
    # so the runs' bodies never overlap and each line is read once.
    runs: list[list[_Head]] = []
    for head in heads:
        if runs and runs[-1][0].skeleton == head.skeleton:
            runs[-1].append(head)
        else:
            runs.append([head])
    for n, run in enumerate(runs):
        stop = runs[n + 1][0].line if n + 1 < len(runs) else len(lines)
        sources = _standing_units(text, lines[:stop], run, vocab, messages)
        if sources:
            return by_position(sources)
    # No run holds the units: a unit's own text may hold lines that look like heads of another skeleton (a
    # sentence with a slash), which end every run. Each skeleton's heads are then read as one run, the most
    # written first, the lines of other skeletons between them their units' text.
    # A head inside a banner ("--- README.md (lines 27-72) ---") sets its unit apart whatever the text under it holds.
    longest = max((len(r) for r in runs), default=0)
    for skeleton, count in sorted(written.items(), key=lambda item: (not _banner(item[0]), -item[1])):
        run = [head for head in heads if head.skeleton == skeleton]
        if (count > longest or _banner(skeleton)) and (sources := _standing_units(text, lines, run, vocab, messages)):
            return by_position(sources)
    return []


def _banner(skeleton: tuple) -> bool:
    """Whether a skeleton's heads are written inside a banner's rules: marks of two or more (a list item's are one)."""
    return len(skeleton[0]) >= 2 and skeleton[0][0] in "-=~*"


def _standing_units(text: str, lines: list[Line], run: list[_Head], vocab: Vocab, messages: list[Message]) -> list[Source]:
    """The units of a run from the first head where they stand: a head written before them is the
    instructions' example of one ("Cite the header (e.g., [Apple | 10-K | Filed: ...])")."""
    for first in range(min(len(run) - 1, _EXAMPLE_HEADS + 1)):
        if sources := _units(text, lines, run[first:], vocab, messages):
            return sources
    return []


def _head(text: str, line: Line, index: int) -> _Head | None:
    """The line cut into cells, or None when it has fewer than two cells (no separator, no group)."""
    if not any(mark in line.text for mark in _HEAD_MARKS):
        return None  # one cell at most and no group to cut it: most lines (see below)
    lead, line_end, marks = _opening(text, line)
    start, end, groups = _cells_between(text, lead.end(), line_end)
    content = None
    separators = list(itertools.islice(_SEPARATOR.finditer(text, start, end), _MAX_CELLS))
    if len(separators) == _MAX_CELLS or _EMPTY_CELL.search(text, start, end):
        return None  # a line of that many cells, or with an empty one, is a table's or a list's, not a source's head
    colon = _text_after(text, start, separators[-1].end() if separators else start, end)
    if colon is not None:
        end, content = colon.start(), Span(colon.end(), line.end)
    cells = _head_cells(text, start, end, bool(separators), bool(lead["key"]))
    if cells is None:
        return None  # one cell at most, and no group: no head
    if groups < line_end:
        cells += tuple(_grouped(text, Span(groups, line_end), cut_from=cells[-1].span.end if cells else groups))
    if content is None and cells and word_count(text[cells[-1].span.start : cells[-1].span.end]) >= CONTENT_WORDS:
        # "Pricing · 0.93 · The Pro plan costs ...": the last cell is the text.
        content, cells = cells[-1].span, cells[:-1]
    key, cells = _key(lead, cells)
    if len(cells) < 2 and not (content and cells and _has_group(text, start, end)):
        return None
    shape = tuple((c.label or "_", text[c.cut.start : c.span.start].strip()[:1]) for c in cells)
    return _Head(index, key, cells, content, (marks, bool(lead["key"]), bool(lead["number"]), shape, content is not None))


def _key(lead: re.Match[str], cells: tuple[_Cell, ...]) -> tuple[Span | None, tuple[_Cell, ...]]:
    """The citation key that opens a head, and its cells. A date in the key's place keys nothing
    ("[2026-07-01] id=... (score=0.67)"): it is the source's date, a cell of its own."""
    if not lead["key"]:
        return None, cells
    key = Span(lead.start("key"), lead.end("key"))
    if parse_date(lead["key"]) is None:
        return key, cells
    return None, (_Cell(key, Span(key.start - 1, lead.end()), "", key), *cells)


def _opening(text: str, line: Line) -> tuple[re.Match[str], int, str]:
    """What opens a head (its lead), where its cells end, and the marks its skeleton is written with: a banner's
    rule, whose inside is then read as the line ("--- README.md (lines 27-72) ---"), or the lead's heading or item marks."""
    banner = _BANNER.match(line.text)
    if banner:
        return _LEAD.match(text, line.start + banner.start("inner"), line.start + banner.end("inner")), line.start + banner.end("inner"), banner["rule"]
    lead = _LEAD.match(text, line.start, line.end)
    return lead, line.end, (lead["marks"] or "").strip()


def _head_cells(text: str, start: int, end: int, separated: bool, keyed: bool) -> tuple[_Cell, ...] | None:
    """The cells of a head: cut at its separators and groups, or after a key the items of a `name=value` row;
    None when the line has neither."""
    row = [] if separated or not keyed else _assigned_row(text, start, end)
    if not (separated or row or _has_group(text, start, end)):
        return None
    return tuple(row) or _cells(text, start, end)


def _assigned_row(text: str, start: int, end: int) -> list[_Cell]:
    """After a key, a row of `name=value` items and nothing else ("[doc-7] source=pdf page=3"): each item a cell."""
    return [_Cell(f.span, f.span, f.label, f.value_span) for f in assigned_row(text, start, end)]


def _cells_between(text: str, start: int, end: int) -> tuple[int, int, int]:
    """Where a head's cells stand on its line after its lead: inside the brackets that wrap them all
    ("[Apple | 10Q | Filed: 2026-01-30]"), else to the line's end; and where the groups after those
    brackets start ("[Apple | 2025-10-15] (score=0.77)"), or the line's end when none follow."""
    wrapped = _WRAPPED.match(text, start, end)
    if wrapped is None or not _SEPARATOR.search(text, *wrapped.span("cells")):
        return start, end, end
    stop = end
    while (group := _GROUP.search(text, wrapped.end(), stop)) is not None:
        stop = group.start()
    return (*wrapped.span("cells"), wrapped.end()) if not text[wrapped.end() : stop].strip() else (start, end, end)


def _text_after(text: str, start: int, cells_end: int, end: int) -> re.Match[str] | None:
    """The colon after the cells of a head (from ``start``) before the unit's text on its line, if there is one."""
    for colon in _TEXT_AFTER.finditer(text, max(start, cells_end), min(end, start + _HEAD_CHARS)):
        if _open_brackets(text[start : colon.start()]):
            continue  # a label inside a group: "(match: 0.93): ..."
        if word_count(text[colon.end() : min(end, colon.end() + _HEAD_CHARS)]) >= CONTENT_WORDS:
            return colon
    return None


def _open_brackets(before: str) -> bool:
    before = as_ascii(before)
    return before.count("(") > before.count(")") or before.count("[") > before.count("]")


def _has_group(text: str, start: int, end: int) -> bool:
    return _GROUP.search(text, start, end) is not None


def _cells(text: str, start: int, end: int) -> tuple[_Cell, ...]:
    """The cells between ``start`` and ``end``: split at the separators, a group's items each a cell."""
    cells: list[_Cell] = []
    at = start
    for separator in [*_SEPARATOR.finditer(text, start, end), None]:
        stop = separator.start() if separator else end
        cells.extend(_grouped(text, Span(at, stop), cut_from=cells[-1].span.end if cells else at))
        if separator is None:
            break
        at = separator.end()
    cells = [c for c in cells if c.span.end > c.span.start]
    if len(cells) > 1 and cells[0].cut.start == cells[0].span.start and cells[1].cut.start >= cells[0].span.end:
        # The first cell goes with the separator after it.
        first = cells[0]
        cells[0] = _Cell(first.span, Span(first.span.start, _after(text, cells[1].cut.start, cells[1].span.start)), first.label, first.value)
    return tuple(cells)


def _after(text: str, cut: int, cell: int) -> int:
    """Where the next cell starts, past the separator between (a bracket stays with its group)."""
    return cut + len(text[cut:cell]) - len(text[cut:cell].lstrip(" \t-/|\u00b7\u2022"))


def _grouped(text: str, span: Span, cut_from: int) -> list[_Cell]:
    """A cell, and the items of the groups it ends with ("Pricing (0.93, 2026-11-20) [wiki]") as cells of their own."""
    groups: list[re.Match[str]] = []
    stop = span.end
    while (group := _GROUP.search(text, span.start, stop)) is not None:
        groups.insert(0, group)
        stop = group.start()
    cells = [_cell(text, Span(span.start, stop), Span(cut_from, stop))] if text[span.start : stop].strip() else []
    for group in groups:
        name = "round" if group["round"] is not None else "square"
        cells += _items(text, Span(group.start(name), group.end(name)), with_space(text, 0, group.start(), group.end()))
    return cells


# Where a group's items part: a comma (not a decimal comma between two digits, "0,91") or a semicolon, or a spaced dash before a labelled item ("[Memory - Score: 0.87]").
_ITEM_BREAK = re.compile(r"(?:(?<!\d)[,\uff0c]|[,\uff0c](?!\d)|[;\uff1b\u3001])[ \t]*|[ \t]+[-\u2013\u2014][ \t]+(?=[^\W\d_][\w .-]{0,30}?[ \t]*[:=][ \t]*\S)")


def _items(text: str, inner: Span, whole: Span) -> list[_Cell]:
    """The items of a group, split at commas and semicolons ("0.93, 2026-11-20") or at a dash before a
    labelled item, a date's own comma ("March 3, 2019") kept. A group of one item is removed whole, its brackets with it."""
    pieces: list[Span] = []
    at = inner.start
    for comma in [*_ITEM_BREAK.finditer(text, inner.start, inner.end), None]:
        piece = Span(at, comma.start() if comma else inner.end)
        joined = Span(pieces[-1].start, piece.end) if pieces else None
        if joined and _date_only_together(text, pieces[-1], piece):
            pieces[-1] = joined
        else:
            pieces.append(piece)
        at = comma.end() if comma else inner.end
    if len(pieces) == 1:
        return [_cell(text, pieces[0], whole)]
    # Each item with the comma before it (after it, for the first).
    return [_cell(text, piece, Span(pieces[n - 1].end if n else piece.start, pieces[1].start if n == 0 else piece.end))
            for n, piece in enumerate(pieces)]


def _date_only_together(text: str, before: Span, after: Span) -> bool:
    """Whether two items are one date written with a comma ("March 3, 2019"), neither a date alone."""
    return (parse_date(text[before.start : after.end]) is not None
            and parse_date(text[before.start : before.end]) is None and parse_date(text[after.start : after.end]) is None)


def _cell(text: str, span: Span, cut: Span) -> _Cell:
    span = trim(text, span)
    labelled = _LABELLED.match(text, span.start, span.end)
    if labelled and len(labelled["label"].split()) <= 3:
        return _Cell(span, cut, normalise_label(labelled["label"]), Span(labelled.start("value"), labelled.end("value")))
    if located := _LOCATED.fullmatch(text, span.start, span.end):
        label, value = ("label", "value") if located["label"] else ("measure", "amount")
        return _Cell(span, cut, normalise_label(located[label]), Span(located.start(value), located.end(value)))
    return _Cell(span, cut, "", span)


def _units(text: str, lines: list[Line], run: list[_Head], vocab: Vocab, messages: list[Message]) -> list[Source]:
    """The sources of a run of heads of one skeleton, or none when the run shows no retrieved text."""
    if len(run) < 2:
        return []
    units: list[tuple[_Head, Span]] = []
    for n, head in enumerate(run):
        line = lines[head.line]
        if n + 1 < len(run):
            body = strip_blank_edges(lines[head.line + 1 : run[n + 1].line])
        else:
            body = strip_blank_edges(cut_last_source(lines[head.line + 1 :], vocab, messages, line.start, seen_content=head.content is not None))
        if any(_heads_another_unit(b, vocab) for b in body):
            return []  # a unit written another way among them: the header lines read them all
        if head.content is not None:
            if body and n + 1 < len(run):
                return []  # lines between one-line units: no unit of one line
            units.append((head, head.content))
        elif body:
            units.append((head, trim(text, Span(body[0].start, body[-1].end))))
        else:
            return []
    if not _retrieved(text, lines, vocab, units):
        return []
    wrapper = {i for i, column in enumerate(_columns(units)) if len({text[c.value.start : c.value.end] for c in column}) == 1}
    return [_source(text, lines[head.line], head, content, wrapper, vocab) for head, content in units]


def _heads_another_unit(line: Line, vocab: Vocab) -> bool:
    """A source's header line; a Markdown heading or a numbered item ("## Contexte") heads one only as one of a
    run that carries metadata, so inside a unit's text it is the text's own."""
    match = vocab.source_header.match(line.lower.strip())
    return match is not None and not any(match[style] is not None for style in RUN_ONLY)


def _retrieved(text: str, lines: list[Line], vocab: Vocab, units: list[tuple[_Head, Span]]) -> bool:
    """The evidence that a run holds retrieved text: each content long, each different, none an instruction,
    a field among the cells, and the run where sources stand."""
    contents = [text[c.start : c.end] for _, c in units]
    # A chunk cut from a table may be a few words ("budget proj. prov."): one such among three units or more.
    short = sum(word_count(c) < CONTENT_WORDS for c in contents)
    if len(set(contents)) < len(contents) or short > (len(contents) >= 3):
        return False
    firsts = [Line(c.start, c.end, text[c.start : c.end], text[c.start : c.end].lower()) for _, c in units]
    if any(opens_with_imperative(f, vocab.lexicon) or looks_like_instruction(f, vocab.lexicon) for f in firsts):
        return False
    if not any(_varies(text, column) and _is_field(text, column) for column in _columns(units)):
        return False  # names and titles only: "Returns / Refunds" is a heading, not a source with fields
    return where_sources_stand(lines, vocab, units[0][0].line, max(c.end for _, c in units))


def _columns(units: list[tuple[_Head, Span]]) -> list[list[_Cell]]:
    """The cells of the units, by place: one skeleton gives every unit as many."""
    return [[head.cells[i] for head, _ in units] for i in range(len(units[0][0].cells))]


def _varies(text: str, cells: list[_Cell]) -> bool:
    """Whether a cell holds a short value that varies across the units: a field's or a title's."""
    values = [text[c.value.start : c.value.end] for c in cells]
    return len(set(values)) > 1 and all(len(v.split()) <= _VALUE_WORDS for v in values)


def _is_field(text: str, column: list[_Cell]) -> bool:
    """Whether a cell of every unit is a field: labelled, or a number, a date or a slot."""
    return all(c.label or value_shaped(text[c.value.start : c.value.end]) for c in column)


def where_sources_stand(lines: list[Line], vocab: Vocab, first: int, end: int) -> bool:
    """Under a context label ("## Sources", "Search results:") or a heading that speaks of the context, or
    under a line that speaks of the context and before the question ("Answer from the sources below." ... "Question: ...").
    A Markdown heading that speaks of the context holds its whole section: a note between it and the units
    ("[News as of: Thursday, 16 October 2025 ...]") leaves them in it."""
    if _in_context_section(lines, vocab, first):
        return True
    labels = list(itertools.islice((line for line in reversed(lines[:first]) if not line.blank), _LABELS_ABOVE))
    # A label of its own may stand between the context's label and the units ("Context:", "Semantic matches:").
    above = next((line for n, line in enumerate(labels) if (n == 0 or _ends_in_colon(line)) and speaks_of_context(line, vocab)), None)
    if above is None or any(not _ends_in_colon(line) for line in labels[: labels.index(above)]):
        return False
    section = SECTION_LABEL.match(above.lower)
    if section and (section["md"] or section["cjk"] or normalise_label(section["dspy"] or section["plain"]) in vocab.context_labels):
        return True  # a heading that speaks of the context ("# Relevant Context from Memory", "【相关检索片段】") titles what follows
    if _ends_in_colon(above):
        return True
    return asked_after(lines, vocab, end)


# A Markdown heading: its marks, a space, and words.
_MARKDOWN_HEADING = re.compile(r"[ \t]*#{1,6}[ \t]+\S")


def _in_context_section(lines: list[Line], vocab: Vocab, first: int) -> bool:
    """Whether the nearest Markdown heading above a line speaks of the context ("## Retrieved Context:")."""
    heading = next((line for line in reversed(lines[:first]) if _MARKDOWN_HEADING.match(line.text)), None)
    return heading is not None and speaks_of_context(heading, vocab)


def _ends_in_colon(line: Line) -> bool:
    return line.lower.rstrip().endswith(":")  # a full-width colon too: the lower-cased line writes it so


def asked_after(lines: list[Line], vocab: Vocab, end: int) -> bool:
    """Whether a line after ``end`` asks the question."""
    return any(_asks(line, vocab) for line in lines if line.start >= end)


def _asks(line: Line, vocab: Vocab) -> bool:
    """A line that asks the question: after a question label, or the question's slot."""
    labelled = QUESTION_LINE.match(line.lower)
    if labelled and names_the_question(normalise_label(labelled["label"]), vocab):
        return True
    return any(slot_kind(slot["name"], vocab) == "question" for slot in SLOT.finditer(line.lower))


def _source(text: str, line: Line, head: _Head, content: Span, wrapper: set[int], vocab: Vocab) -> Source:
    """One unit read by role: a varying unlabelled name is the title, an unlabelled cell the same in
    every unit (by place, in ``wrapper``) the wrapper's own words, the rest fields."""
    fields: list[Field] = []
    title = None
    for i, cell in enumerate(head.cells):
        value = text[cell.value.start : cell.value.end]
        if not cell.label and i in wrapper:
            continue
        if not cell.label and title is None and not value_shaped(value):
            title = value.strip("*_ ")  # "**Pricing page** | ...": bold marks no title's words
            continue
        fields.append(Field(cell.label, value, cell.cut, cell.value, FieldForm.INLINE))
    header = Span(line.start, content.start if head.content is not None else line.end)
    key = text[head.key.start : head.key.end] if head.key else None
    title = title or first_value(fields, vocab.title_labels) or first_value(fields, vocab.fallback_title_labels)
    return Source(0, Span(line.start, max(content.end, line.end)), header, content, key, head.key, title=title, fields=fields)


def value_shaped(value: str) -> bool:
    """A number, a date or a slot: a field's value, never a title."""
    return number(value) is not None or parse_date(value) is not None or SLOT.fullmatch(value.lower().strip()) is not None


def aligned_fields(text: str, sources: list[Source]) -> list[Source]:
    """The labelled lines that open the text of every source under one label, each with a short
    value that varies ("Colour: blue" / "Colour: red"), are fields a renderer wrote, whatever the
    lexicon says of the label; the text starts after them. A value that ends like a sentence
    ("Q: How do refunds work?") is the text's own. So is a line of `name=value` items that opens every
    source's text with the same names, some values varying ("get_bytes (Ca=2 I=0.82) relevance=0.721"):
    each item is a field."""
    while len(sources) >= 2:
        # Read as far as the first text that opens with no such line (most often the first): the others are not read.
        opening = list(itertools.takewhile(lambda o: o is not None, (_opening_fields(text, s.content) for s in sources)))
        labels = {tuple(f.label for f in fields) for fields, _ in opening}
        if len(opening) < len(sources) or len(labels) > 1 or len({tuple(f.value for f in fields) for fields, _ in opening}) == 1:
            break
        sources = [dataclasses.replace(s, fields=[*s.fields, *fields], content=trim(text, Span(end, s.content.end)))
                   for s, (fields, end) in zip(sources, opening)]
    return sources


def _opening_fields(text: str, content: Span) -> tuple[list[Field], int] | None:
    """The fields of the first line of a source's text, and where the text after it starts."""
    if (field := _opening_field(text, content)) is not None:
        return [field], field.span.end
    end = text.find("\n", content.start, content.end)
    if end < 0 or len(text[end : content.end].split()) < CONTENT_WORDS:
        return None
    items = assigned_items(text, content.start, end)
    return (items, min(end + 1, content.end)) if items else None


def _opening_field(text: str, content: Span) -> Field | None:
    """The first line of a source's text as a field, when it is "Label: short value" and text follows it."""
    end = text.find("\n", content.start, content.end)
    if end < 0:
        return None
    labelled = LABEL_LINE.match(text[content.start : end].lower())
    if labelled is None or not labelled["value"].strip() or "{" in labelled["label"]:
        return None
    value = text[content.start + labelled.start("value") : end].strip()
    rest = text[end : content.end]
    if len(value.split()) > _VALUE_WORDS or value.endswith((".", "?", "!", ":")) or len(rest.split()) < CONTENT_WORDS:
        return None
    label = normalise_label(text[content.start + labelled.start("label") : content.start + labelled.end("label")])
    at = content.start + labelled.start("value")
    return Field(label, value, Span(content.start, min(end + 1, content.end)), Span(at, at + len(value)), FieldForm.LINE)
