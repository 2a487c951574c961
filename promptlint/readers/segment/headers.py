"""The rest of a source's header line: its title, heading path and metadata fields."""

from __future__ import annotations

import dataclasses
import re
from functools import cache

from ...meaning.values import number, parse_date
from ...meaning.vocabulary import normalise_label
from ...model.prompt import Field, FieldForm, Span
from ..expressions import slot_reference
from .vocab import INLINE_ITEM, LABEL_LINE, Vocab, as_ascii, lowercase


_WARNING_MARK = re.compile("\u26a0\ufe0f?")
_HEADING_SPLIT = re.compile(r"\s+[\u2014\u2013]\s+")
_HEADING_SPLIT_BEFORE = re.compile(r"\s+[\u2014\u2013-]\s+$")
# The last spaced hyphen of a title: "Returns Policy - updated 2026-03-01" (a hyphen heads no path).
_LAST_HYPHEN = re.compile(r"\s+-\s+(?!.*\s-\s)")
# A parenthesised or bracketed group of a header line; possessive, so a long line never backtracks.
_HEADER_GROUP = re.compile(r"\(((?:\{[^{}]*\}|[^()])*+)\)|\[([^\[\]]*)\]")


def parse_header(text: str, rest: Span, vocab: Vocab) -> tuple[str | None, tuple[str, ...], list[Field]]:
    """Split "Title — A > B (score: 0.61) ⚠️ OCR confidence 0.86" into title, heading path and fields."""
    title, heading, fields = _read_header(text[rest.start : rest.end], vocab)
    return title, heading, [_moved(f, rest.start) for f in fields]


# The headers read lately, by their text, for one vocabulary: what a header says depends on its own
# text alone, and the same header stands over the chunks of one document in prompt after prompt
# (an audit's records). Bounded, so that memory stays flat; a longer header is read every time.
_headers: tuple[Vocab, dict[str, tuple[str | None, tuple[str, ...], tuple[Field, ...]]]] | None = None
_HEADERS_KEPT, _HEADER_KEPT = 2048, 512  # headers, and characters of one


def _read_header(raw: str, vocab: Vocab) -> tuple[str | None, tuple[str, ...], tuple[Field, ...]]:
    """What a header's rest says, its fields' spans from the rest's start."""
    global _headers
    if _headers is None or _headers[0] is not vocab:
        _headers = (vocab, {})  # the vocabulary is held, so that another is never taken for it
    known = _headers[1]
    found = known.get(raw)
    if found is None:
        found = _header(raw, vocab)
        if len(raw) <= _HEADER_KEPT:
            if len(known) >= _HEADERS_KEPT:
                known.clear()
            known[raw] = found
    return found


def _moved(field: Field, offset: int) -> Field:
    if not offset:
        return field
    return dataclasses.replace(
        field, span=Span(field.span.start + offset, field.span.end + offset), value_span=Span(field.value_span.start + offset, field.value_span.end + offset)
    )


def _header(raw: str, vocab: Vocab) -> tuple[str | None, tuple[str, ...], tuple[Field, ...]]:
    fields: list[Field] = []
    rest = Span(0, len(raw))
    lowered = lowercase(raw)
    end = len(raw)
    warning = _WARNING_MARK.search(raw)
    if warning:
        value_start = warning.end() + (len(raw[warning.end() :]) - len(raw[warning.end() :].lstrip()))
        fields.append(
            Field("parse warning", raw[value_start:].strip(), with_space(raw, rest.start, warning.start(), end), Span(rest.start + value_start, rest.end), FieldForm.INLINE)
        )
        end = warning.start()
    if pairs := _pairs(lowered, end):
        # "doc_id=8dcf... source=[REDACTED]": every item a field, written one after another with spaces between.
        return None, (), tuple(fields + [inline_field(raw, rest.start, s, e, separator=" ") for s, e in pairs])
    # Parenthesised and bracketed groups hold metadata; "|" separates items.
    groups, title_end = _group_fields(raw, lowered[:end], rest.start, vocab)
    fields += groups
    pieces = [(s, e) for s, e in split_items(lowered[:title_end], 0, separators="|")]
    if len(pieces) > 1:
        fields.extend(inline_field(raw, rest.start, s, e, separator="|") for s, e in pieces[1:])
        title_end = pieces[0][1]
    title_text = raw[:title_end].strip(" \t:.-|\u2014\u2013") or _after_groups(raw, lowered, end)
    title_text = re.sub(r"^[-=*]{2,}|[-=*]{2,}$", "", title_text).strip()
    title_text, item_fields = _title_items(raw, rest.start, split_items(lowered[:title_end], 0), title_text, vocab)
    fields.extend(item_fields)
    heading: tuple[str, ...] = ()
    parts = _HEADING_SPLIT.split(title_text, maxsplit=1)
    if len(parts) == 2:
        title_text = parts[0].strip()
        heading = tuple(p.strip() for p in parts[1].split(">") if p.strip())
        heading, dashed = _dashed_fields(raw, rest.start, heading, vocab)
        fields.extend(dashed)
    elif hyphen := _LAST_HYPHEN.search(title_text):
        # Only a known field with a number, or a date alone, after it: "Q3 - Outlook" stays the title.
        _, dashed = _dashed_fields(raw, rest.start, (title_text[hyphen.end() :],), vocab)
        if dashed:
            title_text = title_text[: hyphen.start()].strip()
            fields.extend(dashed)
    return (title_text or None), heading, tuple(fields)


# A `key=value` item of a header written with spaces between items: the value a run of non-spaces or a bracketed group.
_PAIR = re.compile(r"[^\W\d][\w.-]{0,30}=(?:\[[^\[\]]*\]|[^\s\[\]]+)")
_PAIRS = re.compile(rf"\s*{_PAIR.pattern}(?:\s+{_PAIR.pattern})+\s*")


def _pairs(lowered: str, end: int) -> list[tuple[int, int]]:
    """The items of a header's rest that is two `key=value` items or more, one after another with spaces between
    ("doc_id=8dcf... source=[REDACTED]"); none when it is anything else."""
    if "=" not in lowered[:end] or not _PAIRS.fullmatch(lowered, 0, end):
        return []
    return [(m.start(), m.end()) for m in _PAIR.finditer(lowered, 0, end)]


def _group_fields(raw: str, lowered: str, offset: int, vocab: Vocab) -> tuple[list[Field], int]:
    """The fields in the groups of a header's rest ("(score: 0.61)", "[Updated 2026-01-14]"),
    and where the first group starts: the title ends there."""
    fields: list[Field] = []
    title_end = len(lowered)
    # A slot in a group may hold parentheses of its own: "({round(d['score'], 2)})".
    for group in _HEADER_GROUP.finditer(lowered):
        inner_start = group.start() + 1
        inner = lowered[inner_start : group.end() - 1]
        items = list(split_items(inner, inner_start))
        group_fields = [named_by_slot(inline_field(raw, offset, s, e), vocab) for s, e in items]
        if len(group_fields) == 1:
            # A group of one field is removed whole, its brackets with it.
            f = group_fields[0]
            fields.append(Field(f.label, f.value, with_space(raw, offset, group.start(), group.end()), f.value_span, FieldForm.INLINE))
        else:
            fields.extend(group_fields)
        title_end = min(title_end, group.start())
    return fields, title_end


def _title_items(raw: str, offset: int, items: list[tuple[int, int]], title_text: str, vocab: Vocab) -> tuple[str, list[Field]]:
    """The title and the fields of a header's comma-separated items."""
    labelled = LABEL_LINE.match(lowercase(title_text))
    if not labelled:
        # "[1] Returns Policy, relevance: 92%": the title, then fields after commas.
        trailing = _trailing_fields(raw, offset, items, vocab)
        return (raw[: items[0][1]].strip(" \t:.-|\u2014\u2013"), trailing) if trailing else (title_text, [])
    item_fields = [inline_field(raw, offset, s, e) for s, e in items] if len(items) > 1 else []
    if any(vocab.is_field(f.label) for f in item_fields):
        # "[1] source_id=RAGAS2023, chunk_id=17", "[1] document_id: 7, score: 0.8": every item
        # is a field when one of them is a field the lexicon knows; one may be the title.
        return next((f.value for f in item_fields if f.label in vocab.title_labels), ""), item_fields
    if normalise_label(labelled["label"]) in vocab.title_labels:
        return title_text[labelled.start("value") :].strip(), []
    return title_text, []


def _after_groups(raw: str, lowered: str, end: int) -> str:
    """The title written after the header's groups ("Passage 1 [92% relevant]: Returns Policy")."""
    last = None
    for last in _HEADER_GROUP.finditer(lowered[:end]):
        pass
    tail = raw[last.end() : end].strip(" \t:.-|\u2014\u2013") if last else ""
    return "" if any(ch in tail for ch in "{}[]()") else tail  # words, not the rest of an expression


def _trailing_fields(raw: str, offset: int, items: list[tuple[int, int]], vocab: Vocab) -> list[Field]:
    """The items after a title's first comma, when each is a field the lexicon knows; else none."""
    fields = [inline_field(raw, offset, s, e) for s, e in items[1:]]
    return fields if fields and all(f.label and vocab.is_field(f.label) for f in fields) else []


def _dashed_fields(raw: str, offset: int, heading: tuple[str, ...], vocab: Vocab) -> tuple[tuple[str, ...], list[Field]]:
    """A last part after a dash that is a field ("Returns Policy — relevance 0.92", a date) is no heading."""
    if not heading:
        return heading, []
    last = heading[-1]
    if not _DIGIT.search(last):
        return heading, []  # a field's number and a date are written with digits: a part without any is a heading
    at = raw.rfind(last)
    field = inline_field(raw, offset, at, at + len(last)) if at >= 0 else None
    labelled = field is not None and field.label and vocab.is_field(field.label) and number(field.value) is not None
    if labelled and field.label in vocab.lexicon.phrases("heading-item") and not _COUNTED.search(field.value):
        return heading, []  # "Leave > Part 2", "Release Notes — Version 4.2": an item of the document's outline
    if not labelled and (field is None or field.label or parse_date(field.value) is None):
        return heading, []  # a heading, unless a known field with a number or a date alone ("— 1 March 2026")
    # The dash before it goes with it.
    dash = _HEADING_SPLIT_BEFORE.search(raw, 0, at)
    start = dash.start() if dash else at
    field = Field(field.label, field.value, Span(offset + start, offset + at + len(last)), field.value_span, FieldForm.INLINE)
    return heading[:-1], [field]


_DIGIT = re.compile(r"\d")
# "2 of 5": a count, not a number in the document's outline.
_COUNTED = re.compile(r"\d+\s*(?:of|/)\s*\d+")


# After a comma, what starts a new item: "label: value", "label=value" or "label 3".
_ITEM_START = re.compile(r"\s*(?:[^\W\d_]|@)[\w .@-]{0,30}?(?:\s*[:=：]|\s+\d)")


@cache
def _marks(separators: str) -> re.Pattern[str]:
    return re.compile(f"[{{}}{re.escape(separators)}]")


def split_items(inner: str, base: int, separators: str = ",;|") -> list[tuple[int, int]]:
    """Split a header group into items; a comma inside a value ("March 3, 2019") does not split, nor
    a separator inside a slot ("{{ '%.4f'|format(d.score) }}", "{d.tags|join(', ')}")."""
    items, start, depth = [], 0, 0
    # Only a brace or a separator does anything: the others are skipped by the pattern, not one by one.
    for mark in _marks(separators).finditer(inner):
        i, ch = mark.start(), mark[0]
        depth += (ch == "{") - (ch == "}")
        if depth <= 0 and ch in separators and (ch == "|" or _ITEM_START.match(inner, i + 1)):
            items.append((base + start, base + i))
            start = i + 1
    items.append((base + start, base + len(inner)))
    return [(s, e) for s, e in items if inner[s - base : e - base].strip()]


# A number before its label: "(92% match)", "[0.92 relevance]".
_VALUE_FIRST = re.compile(r"\s*(?P<value>\d+(?:\.\d+)?\s*%?)\s+(?P<label>[^\W\d_]+(?: [^\W\d_]+){0,3})\s*$")


def inline_field(raw: str, offset: int, start: int, end: int, separator: str = ",;") -> Field:
    item = raw[start:end]
    match = INLINE_ITEM.match(lowercase(item)) or _VALUE_FIRST.match(lowercase(item))
    if match and parse_date(match["value"]) is None and parse_date(item.strip()) is not None:
        match = None  # a date alone ("Mar 1, 2026"), not a label "Mar" and a value "1, 2026"
    if match:
        label = normalise_label(match["label"])
        value_start = start + match.start("value")
        value = raw[value_start : start + match.end("value")]
    else:
        # An unlabelled item ("(2025-08-02)", "[Confluence]"): the rules judge it by its value;
        # a slot ("({score_2:.2f})", "({{ '%.2f' % d.score }})") by what it prints.
        value_start = start + len(item) - len(item.lstrip())
        value = item.strip()
        printed = slot_reference(value) if value.startswith("{") else None
        label = printed.key if printed else ""
    # The span a fix removes: the item and the separator before it (or after it, for the first item).
    span_start, span_end = start, end
    # Where the text before the item ends, found without copying it: a header line can be megabytes long.
    before = start
    while before > 0 and raw[before - 1].isspace():
        before -= 1
    if before > 0 and as_ascii(raw[before - 1]) in separator:
        span_start = before - 1
        while span_start > 0 and raw[span_start - 1] == " " and raw[end - 1 : end] != " ":
            span_start -= 1  # the last item: "Title | Updated: ..." leaves "Title", not "Title "
    elif raw[end : end + 1] and as_ascii(raw[end]) in separator:
        span_end = end + 1
        while span_end < len(raw) and raw[span_end] == " ":
            span_end += 1
    return Field(label, value.strip(), Span(offset + span_start, offset + span_end), Span(offset + value_start, offset + value_start + len(value.rstrip())), FieldForm.INLINE)


def named_by_slot(field: Field, vocab: Vocab) -> Field:
    """A field whose words say nothing the lexicon knows ("saved on {{created_at}}") is named by the
    slot it prints, as a template's attribute is: the slot's name is the better witness."""
    printed = slot_reference(field.value) if field.value.startswith("{") else None
    if printed is None or vocab.is_field(field.label) or not vocab.is_field(printed.key):
        return field
    return dataclasses.replace(field, label=printed.key)


def with_space(raw: str, offset: int, start: int, end: int) -> Span:
    """A header group and the one space before it, so that removing it leaves no double space."""
    if start > 0 and raw[start - 1] == " ":
        start -= 1
    return Span(offset + start, offset + end)
