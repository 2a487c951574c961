"""Sources written as text: a header line and the lines under it."""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from dataclasses import dataclass

from ...meaning.values import parse_date
from ...meaning.vocabulary import normalise_label
from ...model.lines import with_newline
from ...model.prompt import Field, FieldForm, Message, Source, Span, SpanSet
from ..expressions import slot_reference
from .vocab import INLINE_ITEM, LABEL_LINE, Line, QUESTION_LINE, SEPARATOR, SLOT, Vocab, lowercase, may_hold_slot, named_slots, names_the_question, slot_kind, speaks_of_context, trim
from .instructions import addresses_the_model, looks_like_instruction
from .headers import inline_field, named_by_slot, parse_header, split_items


# A source whose text is only this is a written-out "and so on", not a source.
_ELISIONS = ("...", "\u2026", "[...]")
# A header "title" this long is the chunk's text on the header line.
PASSAGE_WORDS = 16
# Words before a header's first group that, holding a sentence's end, are prose rather than a title.
_PROSE_WORDS = 8
# A line holding only a tag that groups metadata ("<document_metadata>") or ends a source ("[END CONTEXT 1]").
LONE_TAG = re.compile(r"\s*(?:</?[a-z_][\w-]*>|\[end [^\]]*\])\s*$")
# A slot alone on a line; it may print what names the source ({chunk_heading}, {doc_title}).
# A line of punctuation alone (":" left between a source's fields and its text) is no content.
_LONE_PUNCTUATION = re.compile(r"\s*[:;,]+\s*$")
_LONE_SLOT = re.compile(r"\s*\{\{?\s*(?P<name>[a-z_][\w.]*)\s*\}\}?\s*$")
_SLOT_LABEL_LINE = re.compile(r"\s*\{\{?\s*[a-z_][\w.]*\s*\}\}?\s*:")


def by_position(sources: list[Source]) -> list[Source]:
    ordered = sorted(sources, key=lambda s: s.span.start)
    # A source already at its place is kept: its copy would be the same (and replace is slow).
    return [s if s.position == i else dataclasses.replace(s, position=i) for i, s in enumerate(ordered)]


def text_sources(text: str, lines: list[Line], vocab: Vocab, messages: list[Message], taken: SpanSet) -> list[Source]:
    """Sources written as text: a header line ("[1] Title", "Document 2:") and the lines under it."""
    found = _source_headers(lines, vocab, taken)
    headers = _within_the_first_style(found)
    bodies, after_last = _bodies(lines, vocab, messages, taken, found, headers)
    tails = _renderers_tail(bodies, after_last, vocab)
    if any(tails):
        # The renderer's closing lines end the last source too, where they stand in what follows it.
        bodies[-1] = after_last[: after_last.index(tails[-1][-1]) + 1]
    sources = []
    for n, ((index, match), body, tail) in enumerate(zip(headers, bodies, tails)):
        source = _text_source(text, n, lines[index], match, body[: body.index(tail[0])] if tail else body, vocab)
        if tail:
            # The renderer's closing lines stay the source's, outside its text; those that talk to the model are its wrapper's.
            talks = [with_newline(text, line) for line in tail if addresses_the_model(line, vocab.lexicon)]
            source = dataclasses.replace(source, span=Span(source.span.start, max(source.span.end, tail[-1].end)), wrapper_lines=[*source.wrapper_lines, *talks])
        if text[source.content.start : source.content.end].strip() not in _ELISIONS or source.fields:
            sources.append(source)
    return _with_document_header(text, lines, vocab, titled_by_trailer(text, titled_by_field(sources, vocab)), taken)


def _bodies(
    lines: list[Line], vocab: Vocab, messages: list[Message], taken: SpanSet, found: list[tuple[int, re.Match[str]]], headers: list[tuple[int, re.Match[str]]]
) -> tuple[list[list[Line]], list[Line]]:
    """The lines under each header, the last source's cut where the prompt goes on; and all that follows the last header."""
    # The headers of another style stand in the chunks' own text, the last one's too.
    inner = frozenset(lines[index].start for index, _ in found) - {lines[index].start for index, _ in headers}
    stops = [index for index, _ in headers[1:]] + [len(lines)]
    bodies = [[line for line in lines[index + 1 : stop] if line.start not in taken] for (index, _), stop in zip(headers, stops)]
    if not headers:
        return bodies, []
    after_last = bodies[-1]
    index, match = headers[-1]
    # A header that carries the chunk itself ("[1] «...»") has its content already.
    passage = _carries_chunk(next(match[g] for g in _REST_GROUPS if match[g] is not None))
    last = cut_last_source(after_last, vocab, messages, lines[index].start, seen_content=passage, inner=inner)
    last = _cut_at_separating_gap(last, _separating_gap(lines, [i for i, _ in headers]))
    shape = _record_shape(lines, [i for i, _ in headers])
    if shape is not None:
        # The record's text ends at its first blank line; a one-line record, on its header line.
        lead = list(itertools.takewhile(lambda line: line.blank, last))
        last = lead + list(itertools.takewhile(lambda line: not line.blank, last[len(lead) :])) if shape else []
    bodies[-1] = last
    return bodies, after_last


def _renderers_tail(bodies: list[list[Line]], after_last: list[Line], vocab: Vocab) -> list[list[Line]]:
    """The closing lines every source's body ends with, word for word, when one of them talks to the model ("IMPORTANT",
    "The CURRENT EMAIL below is the only email you should answer.", under each of five items): the renderer's text
    after each chunk, no chunk's own. Each body's lines from the first of them, or none for each. The last source's
    are looked for in all that follows its header (``after_last``): where the prompt goes on, they end that source."""
    none: list[list[Line]] = [[] for _ in bodies]
    written = [[line for line in body if not line.blank] for body in bodies[:-1]]
    rest = [line for line in after_last if not line.blank]
    if len(bodies) < 2 or not all(written):
        return none
    count, at = _closing_in_the_last(written, rest)
    if not count or not any(addresses_the_model(line, vocab.lexicon) for line in written[0][-count:]):
        return none
    closing = [*(lines[-count:] for lines in written), rest[at : at + count]]
    return [body[body.index(lines[0]) : body.index(lines[-1]) + 1] for body, lines in zip([*bodies[:-1], after_last], closing)]


def _closing_in_the_last(written: list[list[Line]], rest: list[Line]) -> tuple[int, int]:
    """How many of the closing lines the bodies before the last share (each keeping a line of its own before them) the
    last source's lines hold too, in a row, the most that do, and where they start in those; (0, 0) for none."""
    shared = 0
    while all(len(lines) > shared + 1 for lines in written) and len({lines[-1 - shared].text.strip() for lines in written}) == 1:
        shared += 1
    said = [line.text.strip() for line in rest]
    for count in range(shared, 0, -1):
        tail = [line.text.strip() for line in written[0][-count:]]
        at = next((i for i in range(1, len(said) - count + 1) if said[i : i + count] == tail), None)
        if at is not None:
            return count, at
    return 0, 0


# An attribution after a source's text: a spaced dash, then the document's name and where in it.
_TRAILER = re.compile(r"[ \t]+[\u2014\u2013][ \t]+(?P<trailer>[^\u2014\u2013\n]{3,400}?)[ \t]*$")
TRAILER_WORDS = 60


def titled_by_trailer(text: str, sources: list[Source]) -> list[Source]:
    """Sources whose text each ends in an attribution ("... — Costanzo Physiology (2021), 10 Reproductive
    Physiology, Halaman 471"): the renderer wrote it after the text instead of above it, as two of them
    starting with the same name show, where no two titles read from their headers are the same (a header
    that carries the chunk gives its first words). Its first part is the source's title, and the text
    ends before it."""
    named = [s.title for s in sources if s.title]
    if len(sources) < 2 or len(set(named)) < len(named):
        return sources
    trailers = [_trailer(text, s.content) for s in sources]
    if not all(t and len(t["trailer"].split()) <= TRAILER_WORDS for t in trailers):
        return sources
    titles = [_first_part(t["trailer"]) for t in trailers]
    if len(set(titles)) == len(titles):
        return sources  # no name comes back: nothing shows a renderer's attribution
    return [
        dataclasses.replace(s, title=title, content=trim(text, Span(s.content.start, t.start())))
        for s, t, title in zip(sources, trailers, titles)
    ]


def _trailer(text: str, content: Span) -> re.Match[str] | None:
    """The attribution that ends ``content``, if any. No line break and no dash follows its dash, so
    it can only start at the spaces before the last dash of the last line (a line break that ends the
    text, which `$` matches before, left out): a search from the start of a chunk tried every space of it."""
    line = max(content.start, text.rfind("\n", content.start, content.end - 1) + 1)
    dash = max(text.rfind("\u2014", line, content.end), text.rfind("\u2013", line, content.end))
    if dash < 0:
        return None
    return _TRAILER.search(text, line + len(text[line:dash].rstrip(" \t")), content.end)


def _first_part(trailer: str) -> str:
    """The attribution's first comma-separated part, a comma inside parentheses kept: the document's name."""
    depth = 0
    for i, char in enumerate(trailer):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            return trailer[:i].strip()
    return trailer.strip()


def titled_by_field(sources: list[Source], vocab: Vocab) -> list[Source]:
    """Header words that are the same on several sources, where each of them names itself in a title field
    of its own ("--- ITEM ---", then "Title: ..."), are the wrapper's constant: the field is the title."""
    # Not a slot ("Title: {title}"): a template prints each source's own title there.
    shared = {title for title in (s.title for s in sources) if title and not may_hold_slot(title) and sum(s.title == title for s in sources) >= 2}
    for title in shared:
        group = [n for n, s in enumerate(sources) if s.title == title]
        named = [first_value(sources[n].fields, vocab.title_labels) for n in group]
        if all(named):
            sources = [dataclasses.replace(s, title=named[group.index(n)]) if n in group else s for n, s in enumerate(sources)]
    return sources


def _source_headers(lines: list[Line], vocab: Vocab, taken: SpanSet) -> list[tuple[int, re.Match[str]]]:
    """The lines outside ``taken`` that head a text source, by index, with their match."""
    headers = []
    for index, line in enumerate(lines):
        if line.start in taken:
            continue
        match = vocab.source_header.match(line.lower.strip())
        if match is None:
            continue
        below = _next_written(lines, index)
        # A header right above the sources read already (the units of one skeleton under "【相关检索片段】") titles them.
        if _heads_a_source(line, match, vocab, below) and not _titles_the_block(below, match, vocab) and not (below is not None and below.start in taken):
            headers.append((index, match))
    return _without_numbered_paragraphs(_numbered_in_order(_with_listed_headers(headers, lines, vocab)))


# A numbered item or a heading that carries metadata heads a source only as one of a run: two
# or more, each with text under it. A list of instructions has none under its items, and one
# dated section heading ("## Context (updated 2026-01-01)") is not a source of its own.
LISTED = ("rest8", "rest9")
# So is a file's name alone ("docs/club-foot.txt:", "src/app/page.tsx"), which as often introduces a file's code or settings.
RUN_ONLY = (*LISTED, "rest11", "rest13", "rest14")


# Header styles that number a chunk's own paragraphs as often as they head sources ("(71) Member
# States ...", "3. For the purposes of this Article ...").
_PARAGRAPH_STYLES = ("rest4", *LISTED)


def _without_numbered_paragraphs(headers: list[tuple[int, re.Match[str]]]) -> list[tuple[int, re.Match[str]]]:
    """Where another style heads the prompt's sources ("### source 1"), lines of those styles
    are paragraphs of the chunks they stand in."""
    others = [h for h in headers if not any(h[1][g] is not None for g in _PARAGRAPH_STYLES)]
    return others or headers


def _numbered_in_order(headers: list[tuple[int, re.Match[str]]]) -> list[tuple[int, re.Match[str]]]:
    """A renderer numbers its sources in order; numbered paragraphs whose numbers go back ("(6)" then "(2)")
    number something else: a document's own clauses, pages scanned twice."""
    numbers = [int(match[key]) for _, match in headers for key in _PARAGRAPH_KEYS if match[key] is not None]
    if all(a < b for a, b in zip(numbers, numbers[1:])):
        return headers
    return [h for h in headers if not any(h[1][key] is not None for key in _PARAGRAPH_KEYS)]


_PARAGRAPH_KEYS = ("key4", "key6")


def _style(match: re.Match[str]) -> tuple[str, str]:
    """How a header is written: its pattern, and the words before its key ("document", "## article")."""
    key = next((g for g in _KEY_GROUPS if match[g] is not None), None)
    return next(g for g in _REST_GROUPS if match[g] is not None), match.string[: match.start(key)] if key else ""


def _within_the_first_style(headers: list[tuple[int, re.Match[str]]]) -> list[tuple[int, re.Match[str]]]:
    """Where the first header's style repeats, it is the renderer's: another style that stands inside two of
    its chunks or more (between a header of the first style and the next) is written in the chunks' own text,
    wherever it stands ("DOCUMENT 1" over "Chunk: 617", then a Markdown file whose "## Article 2" heads a
    section of that chunk)."""
    if not headers:
        return headers
    styles = [_style(match) for _, match in headers]
    # Each header of another style, by the first-style header it follows, where another first-style one comes after.
    last = max(n for n, style in enumerate(styles) if style == styles[0])
    under: dict[tuple[str, str], set[int]] = {}
    opened = 0
    for n, style in enumerate(styles[:last]):
        if style == styles[0]:
            opened = n
        else:
            under.setdefault(style, set()).add(opened)
    # Written inside two chunks or more, it is the chunks' own; inside one, it may be a source of another style.
    inner = {style for style, chunks in under.items() if len(chunks) >= 2}
    return [h for h, style in zip(headers, styles) if style not in inner]


def _carries_reported_field(rest: str, vocab: Vocab) -> bool:
    """Whether a header's rest shows metadata a rule reports (a score, a date, a system, ...), by
    its label or, unlabelled ("(2026-03-01)"), by a date's shape."""
    fields = parse_header(rest, Span(0, len(rest)), vocab)[2]
    return any(vocab.lexicon.reported(f.label) or (not f.label and parse_date(f.value) is not None) for f in fields)


def _reported_line(line: Line | None, vocab: Vocab) -> bool:
    """A labelled line whose label a rule reports ("Relevance: 0.91", "**Updated:** 2026-01-02")."""
    labelled = LABEL_LINE.match(line.lower) if line is not None else None
    return labelled is not None and bool(labelled["value"].strip()) and vocab.lexicon.reported(normalise_label(labelled["label"]))


def _with_listed_headers(headers: list[tuple[int, re.Match[str]]], lines: list[Line], vocab: Vocab) -> list[tuple[int, re.Match[str]]]:
    ends = [index for index, _ in headers[1:]] + [len(lines)]
    listed = [n for n, (_, match) in enumerate(headers) if any(match[g] is not None for g in RUN_ONLY)]
    texted = [n for n in listed if any(not line.blank for line in lines[headers[n][0] + 1 : ends[n]])]
    if len(texted) >= 2 and len(texted) == len(listed) or len(listed) == 1 and texted == listed and _one_file_in_context(headers[listed[0]], lines, vocab):
        return headers
    return [h for n, h in enumerate(headers) if n not in listed]


def _one_file_in_context(header: tuple[int, re.Match[str]], lines: list[Line], vocab: Vocab) -> bool:
    """One file's name alone ("docs/seizure.txt:") right under a line that speaks of the context ("With this
    context"): the file retrieved, its text under it."""
    index, match = header
    above = next((line for line in reversed(lines[:index]) if not line.blank), None)
    return match["rest11"] is not None and above is not None and speaks_of_context(above, vocab)


def _heads_a_source(line: Line, match: re.Match[str], vocab: Vocab, below: Line | None = None) -> bool:
    """A line written as a source's header that is one: not a labelled instruction, a field or a turn's role. A
    numbered item or a heading is one only with metadata a rule reports, on its line or on the labelled line
    under it ("## Returns", then "Relevance: 0.91")."""
    if match["rest6"] is not None and not _names_a_field(match["rest6"], vocab):
        return False  # "[Tone: formal; Length: short]": labelled, but nothing a source carries
    if vocab.role_marker.match(next((match[g] for g in _REST_GROUPS if match[g] is not None), "")):
        return False  # "[1] USER:": a numbered turn of a conversation, not a source
    listed = next((g for g in LISTED if match[g] is not None), None)
    if listed is not None and not _carries_reported_field(line.text.strip()[match.start(listed) : match.end(listed)], vocab) and not _reported_line(below, vocab):
        return False  # "1. Answer briefly.", "## Instructions": a list item or a heading, no source's header
    # The slot as written: its names are read by their case ("chunkIndex").
    if match["key5"] is not None and _labelled_key(line.text.strip()[match.start("key5") : match.end("key5")], vocab) is None:
        return False  # "Source: {doc.source}": a field, not a header
    # "[{conversation[0].type}]": a turn's role written as a slot, not a citation key; "Context {context}": all the sources.
    return not _prints_request_data(next((match[g] for g in _KEY_GROUPS if match[g] is not None), None), vocab)


def _next_written(lines: list[Line], index: int) -> Line | None:
    """The first line after ``index`` that is not blank."""
    return next((lines[i] for i in range(index + 1, len(lines)) if not lines[i].blank), None)


def _titles_the_block(below: Line | None, match: re.Match[str], vocab: Vocab) -> bool:
    """"[Context]" over "{context}": a title with no key over the slot that holds all the sources joined
    titles the block, where one source's header would stand over one source's text; so does one over the
    next source's header ("[EVIDENCE]" then "[E1]", "【参考资料】以下是检索到的规定：" then "### 规定 1 - a.docx:");
    ``below`` is the line under it that is not blank."""
    if match["rest5"] is None or below is None:
        return False
    if (header := vocab.source_header.match(below.lower.strip())) is not None and _heads_a_source(below, header, vocab):
        return True
    reference = slot_reference(below.text)
    return not match["rest5"].strip() and reference is not None and slot_kind(reference.root, vocab) == "context"


def _with_document_header(text: str, lines: list[Line], vocab: Vocab, sources: list[Source], taken: SpanSet) -> list[Source]:
    """Labelled lines right above the first chunk header that name a document ("Document Title: ...",
    "Doc ID: ...") are that document's header: metadata of every chunk under it, written once.
    They join the first chunk, which is where a fix removes them; the title is every chunk's."""
    fields: list[Field] = []
    index = next((i for i, line in enumerate(lines) if line.start == sources[0].header.start), 0) - 1 if sources else -1
    while index >= 0 and lines[index].start not in taken:
        line = lines[index]
        index -= 1
        if line.blank:
            continue
        labelled = LABEL_LINE.match(line.lower)
        label = normalise_label(line.text[labelled.start("label") : labelled.end("label")]) if labelled else ""
        if not labelled or not labelled["value"].strip() or not (vocab.is_field(label) or "key" in vocab.lexicon.concepts(label)):
            break
        fields.insert(0, _line_field(text, line, labelled, label))
    # "Document Title" reads as a generated title when a source has a name besides; here it is the name.
    title = next((f.value for f in fields if vocab.lexicon.means(f.label.split()[-1], "title")), None)
    if title is None and not any(vocab.lexicon.means(f.label, "key") for f in fields):
        return sources  # labelled lines that name no document: a preamble, not a document's header
    head, *rest = sources
    head = dataclasses.replace(head, span=Span(fields[0].span.start, head.span.end), fields=fields + head.fields, title=head.title or title)
    return [head, *(dataclasses.replace(s, title=s.title or title) for s in rest)]


def _labelled_key(key: str, vocab: Vocab) -> str | None:
    """What the slot of a "Chunk: {...}" header prints: "key" ("{i}"), "ordinal" (a chunk id or
    number, "{chunk['chunk_id'] + 1}"), or None: any other slot, or a number ("Source: 770" is a field). A slot
    printing a text key ("Chunk: {trim(item.chunk)}") prints the chunk itself under its label."""
    if _prints_text(key.lstrip("$"), vocab):
        return None
    reference = slot_reference(key.lstrip("$"))
    concepts = vocab.lexicon.concepts(vocab.lexicon.item_label(reference.root, reference.key) if reference.path else reference.key) if reference else frozenset()
    return "ordinal" if "ordinal" in concepts else "key" if "key" in concepts else None


def _prints_request_data(key: str | None, vocab: Vocab) -> bool:
    """Whether a header's key is a slot reading the history, the question ("{messages[-1].role}") or the
    whole context ("Context {context}"): what the request brings, not one source's key."""
    reference = slot_reference(key.lstrip("$")) if key and key.startswith(("{", "${")) else None
    kind = slot_kind(reference.root, vocab) if reference is not None else None
    return kind in ("history", "question") or kind == "context" and not reference.path  # `{docs[0].index}`: one source's


def _names_a_field(group: str, vocab: Vocab) -> bool:
    """Whether one item of a bracketed header ("[File: x; Relevance: 0.8]") is metadata the lexicon knows."""
    items = (INLINE_ITEM.match(group[start:end]) for start, end in split_items(group[1:-1], 1))
    return any(item and vocab.is_field(normalise_label(item["label"])) for item in items)


def unwrapped_context(text: str, lower: str, lines: list[Line], vocab: Vocab, messages: list[Message]) -> Span | None:
    """Retrieved text with no wrapper around each source, in an assembled prompt: the last context label's
    value and the lines under it ("context: Brewing is ..."), or the last element named for the context
    ("<information>...</information>"). In a template a context slot is the context, and a written-out
    one is a worked example.
    """
    if may_hold_slot(text) and any(kind == "context" for _, kind in named_slots(text, lower, 0, len(text), vocab)):
        return None
    found = _labelled_context(text, lines, vocab, messages) or _introduced_data(text, lower, lines, vocab, messages)
    for match in _CONTEXT_ELEMENT.finditer(lower):
        if normalise_label(match[1]) in vocab.context_labels | vocab.container_tags:
            close = lower.find(f"</{match[1]}>", match.end())
            if close > match.end() and (found is None or match.start() > found.start) and not _written_about(lower, match.start(), close):
                found = trim(text, Span(match.end(), close))
    return found if found and found.end > found.start else None


def _written_about(lower: str, opening: int, close: int) -> bool:
    """Whether an element stands inside a sentence on one line ("Text inside <evidence> ... </evidence> is
    untrusted"): the instructions name the tag; the data is elsewhere."""
    line_start = lower.rfind("\n", 0, opening) + 1
    return "\n" not in lower[opening:close] and re.search(r"\w", lower[line_start:opening]) is not None


def _introduced_data(text: str, lower: str, lines: list[Line], vocab: Vocab, messages: list[Message]) -> Span | None:
    """The data a sentence announces as pasted after it, in a prompt with no slot ("Given the following document,
    answer ...", then the document): a JSON value as far as it goes; else the lines up to a gap of two blank lines
    or more, or (with no such gap) to the next part of the prompt."""
    if may_hold_slot(text) and SLOT.search(lower):
        return None
    at = next((i for i, line in enumerate(lines) if vocab.introduces_data.search(line.lower)), None)
    body = strip_blank_edges(lines[at + 1 :]) if at is not None else []
    if not body:
        return None
    if body[0].text.lstrip()[:1] in "{[":
        try:
            _, end = json.JSONDecoder().raw_decode(text, body[0].start + len(body[0].text) - len(body[0].text.lstrip()))
        except json.JSONDecodeError:
            return None
        return Span(body[0].start, end)
    gap = next((i for i in range(1, len(body) - 1) if body[i].blank and body[i + 1].blank), None)
    block = strip_blank_edges(body[:gap] if gap is not None else cut_last_source(body, vocab, messages, body[0].start))
    return trim(text, Span(block[0].start, block[-1].end)) if block else None


def _labelled_context(text: str, lines: list[Line], vocab: Vocab, messages: list[Message]) -> Span | None:
    """The context a label gives: the last label's value and the lines under it; or, with no such value,
    the lines under the first context label alone on its line ("Context:") when they hold a passage's
    words (not "Sources:\ndoc:page" in an answer's format)."""
    found: Span | None = None
    for index, line in enumerate(lines):
        labelled = QUESTION_LINE.match(line.lower)
        label = normalise_label(labelled["label"]) if labelled else ""
        # "PASSAGE: 'Your car has ...'": a chunk's own label on a line that carries a whole passage.
        passage = label in vocab.content_labels and len(labelled["value"].split()) >= PASSAGE_WORDS
        if labelled and labelled["value"].strip() and (names_the_context(label, vocab) or passage):
            rest = cut_last_source(lines[index + 1 :], vocab, messages, line.start, seen_content=True)
            found = trim(text, Span(line.start + labelled.start("value"), rest[-1].end if rest else line.end))
        elif labelled and label in vocab.context_labels and found is None and _asks(lines, vocab):
            rest = strip_blank_edges(cut_last_source(lines[index + 1 :], vocab, messages, line.end))
            if rest and SLOT.fullmatch(rest[0].lower.strip().removeprefix("$")):
                # A template's slot under the label ("Context:\n{parts}"): the slot is the data; what is written
                # after it is the template's own text.
                found = trim(text, Span(rest[0].start, rest[0].end))
            elif rest and sum(len(ln.text.split()) for ln in rest) >= PASSAGE_WORDS:
                found = trim(text, Span(rest[0].start, rest[-1].end))
    return found


def context_slots(text: str, lines: list[Line], vocab: Vocab) -> list[tuple[str, str]]:
    """The slots a context label gives as its whole value ("OJK Context: {context_ojk}", "Sources: {hits}"),
    each as (name, "context"), when the name says nothing else: the label says what the slot holds."""
    found = []
    for line in lines:
        labelled, slot = _labelled_slot(line.lower)
        if slot is None:
            continue
        name = line.text[slot.start("name") : slot.end("name")]
        if names_the_context(normalise_label(labelled["label"]), vocab) and slot_kind(name, vocab) is None:
            found.append((name, "context"))
    return found


# The end of the last sentence on a line, before a label that ends it: "You are analyzing a table. Context: {text}".
_LAST_SENTENCE_END = re.compile(r".*[.!?][ \t]+(?=\S)")


def _labelled_slot(lower: str) -> tuple[re.Match[str] | None, re.Match[str] | None]:
    """A label and the slot that is its whole value, on a line that opens with the label or ends with it after
    its last sentence ("You are analyzing a table. Context: {text}"); (None, None) on any other line."""
    sentences = _LAST_SENTENCE_END.match(lower)
    for labelled in (QUESTION_LINE.match(lower), QUESTION_LINE.match(lower, sentences.end()) if sentences else None):
        slot = SLOT.search(lower, labelled.start("value")) if labelled else None
        if slot is not None and not lower[labelled.start("value") : slot.start()].strip(" $") and not lower[slot.end() :].strip():
            return labelled, slot
    return None, None


def names_the_context(label: str, vocab: Vocab) -> bool:
    """A context label, alone or after a word or two that say whose or which ("OJK Context", "Web sources")."""
    if label in vocab.context_labels:
        return True
    words = label.split()
    return 1 < len(words) <= 3 and words[-1] in vocab.context_labels


def _asks(lines: list[Line], vocab: Vocab) -> bool:
    """Whether the text puts a question to the model (a question label, or a line that ends in "?"): a prompt
    as a run sent it. With none, a "Context:" section alone is a static prompt's setting ("The user is a small
    business owner ..."), not data retrieved for a request."""
    for line in lines:
        labelled = QUESTION_LINE.match(line.lower)
        if line.text.rstrip().endswith(("?", "\uff1f")) or (labelled and names_the_question(normalise_label(labelled["label"]), vocab)):
            return True
    return False


_CONTEXT_ELEMENT = re.compile(r"<([a-z_][\w-]*)(?:\s[^<>]*)?>")


def cut_last_source(
    body: list[Line], vocab: Vocab, messages: list[Message], start: int, seen_content: bool = False, inner: frozenset[int] = frozenset()
) -> list[Line]:
    """Where the last source ends: at the next part of the prompt, not at the end of the text. The lines
    starting at ``inner`` are known to stand in a chunk's text (its own headings): they end nothing."""
    message_end = next((m.span.end for m in messages if m.span.start <= start < m.span.end), None)
    # Under a field's label in capitals alone on its line ("SUMMARY:"), a section of the source's own: its headings end nothing.
    in_field = False
    for i, line in enumerate(body):
        if message_end is not None and line.start >= message_end:
            return body[:i]
        if not line.lower.strip() or (seen_content and SEPARATOR.match(line.text)):
            if seen_content and _next_part_after(body, i, vocab, inner, in_field):
                return body[:i]
            continue
        if seen_content and line.start not in inner and _is_boundary(line, vocab, in_field):
            return body[:i]
        seen_content = True
        if _label_shape(line) is not None:
            in_field = _field_label_alone(line, vocab)  # a section in capitals runs to the next one
    return body


def _next_part_after(body: list[Line], i: int, vocab: Vocab, inner: frozenset[int], in_field: bool) -> bool:
    """Whether a blank line or a rule ("======") at ``i`` ends the text: an instruction follows, or a banner's title
    between two rules."""
    nxt = body[i + 1] if i + 1 < len(body) else None
    return nxt is not None and nxt.start not in inner and bool(
        vocab.instruction_opener.match(nxt.lower) or _is_boundary(nxt, vocab, in_field) or _banner(body, i) or _rules_on_the_context(body, i + 1, vocab)
    )


def _field_label_alone(line: Line, vocab: Vocab) -> bool:
    """Whether a line is a metadata field's label with its value on the lines below ("SUMMARY:", "Key facts:")."""
    label = LABEL_LINE.match(line.lower)
    return label is not None and not label["value"].strip() and vocab.is_field(normalise_label(label["label"]))


# A list item's marker: "- ", "* ", "1. ", "2) ".
_ITEM_MARKER = re.compile(r"\s*(?:[-*\u2022]|\d{1,2}[.)])\s+")


def _rules_on_the_context(body: list[Line], i: int, vocab: Vocab) -> bool:
    """Whether a label alone on its line at ``i`` heads instructions about the context ("Rules:", then "- Use only
    the retrieved context."; "INSTRUCTIONS:", then "Based on the sources provided above, answer ..."): the prompt's
    rules, which a chunk's own list ("Steps:", "- Remove the cover") never writes, since it does not speak of the
    context it is retrieved into."""
    label = LABEL_LINE.match(body[i].lower)
    if label is None or body[i].lower[label.end() :].strip():
        return False
    items = list(itertools.takewhile(lambda line: not line.blank, body[i + 1 :]))
    return any(
        vocab.instruction_opener.match(line.lower, marker.end() if (marker := _ITEM_MARKER.match(line.lower)) else 0) and speaks_of_context(line, vocab)
        for line in items
    )


def _banner(body: list[Line], i: int) -> bool:
    """Whether a rule at ``i`` opens a banner: a long rule, a short title that is no sentence, and a rule
    again ("==========", "ANALYSIS INSTRUCTIONS", "=========="); a short rule ("---") sets records apart."""
    if i + 2 >= len(body) or not all(_BANNER_RULE.match(body[j].text) for j in (i, i + 2)):
        return False
    title = body[i + 1].text.strip()
    return 0 < len(title.split()) <= 4 and not title.endswith((".", "!", "?"))


_BANNER_RULE = re.compile(r"\s*(?:[-=*_#~]{10,}|[─-╿]{10,})\s*$")


def _blank_runs(body: list[Line]) -> list[tuple[int, int]]:
    """Each run of blank lines in ``body`` after its first line with text: (index of the run's first line, its length)."""
    runs, at = [], 0
    for blank, group in itertools.groupby(body, key=lambda line: line.blank):
        length = len(list(group))
        if blank and at > 0:
            runs.append((at, length))
        at += length
    return runs


def _separating_gap(lines: list[Line], headers: list[int]) -> int | None:
    """How many blank lines stand between one source and the next header, when the sources' own text never
    holds a run as long: the gap that ends a source, as the renderer writes it. None without two sources
    to show it, or when a gap of that width is also a paragraph break inside a source."""
    if len(headers) < 3:
        return None
    gaps, inner = [], 0
    for index, stop in zip(headers, headers[1:]):
        body = lines[index + 1 : stop]
        runs = _blank_runs(body)
        trailing = runs[-1][1] if runs and runs[-1][0] + runs[-1][1] == len(body) else 0
        gaps.append(trailing)
        inner = max([inner] + [length for start, length in runs if start + length < len(body)])
    gap = min(gaps)
    # One blank line is also how a chunk's paragraphs are set apart: only a wider gap says where a source ends.
    return gap if gap >= 2 and gap > inner else None


def _record_shape(lines: list[Line], headers: list[int]) -> int | None:
    """How many lines stand under the header of every source before the last, when it is the same number
    for each and no blank line is among them: the renderer writes a record of one shape, so the last one
    ends at its first blank line, or is its header line alone. A shape of the header alone shows with
    two sources, a longer one with three. None when the sources show no such shape."""
    shapes = set()
    for index, stop in zip(headers, headers[1:]):
        body = strip_blank_edges(lines[index + 1 : stop])
        if any(line.blank for line in body):
            return None
        shapes.add(len(body))
    if len(shapes) != 1 or len(headers) < (2 if shapes == {0} else 3):
        return None
    return shapes.pop()


def _cut_at_separating_gap(body: list[Line], gap: int | None) -> list[Line]:
    """The last source ends at a gap as wide as the one that ends every other source: what follows is the next part."""
    if gap is None:
        return body
    return next((body[:start] for start, length in _blank_runs(body) if length >= gap and start + length < len(body)), body)


def _is_boundary(line: Line, vocab: Vocab, in_field: bool = False) -> bool:
    """Whether a line opens the next part of the prompt; in a field's block (``in_field``) a heading is the block's."""
    stripped = line.lower.strip()
    # A heading stands within three spaces of the margin; an indented "# ..." is a comment in a chunk's code.
    margin = line.lower[: len(line.lower) - len(line.lower.lstrip())].expandtabs(4)
    heading = stripped.startswith("#") and len(margin) < 4 and not in_field
    if vocab.role_marker.match(line.lower) or heading or stripped.startswith(("</", "[[ ##", "[end ")):
        return True
    label = QUESTION_LINE.match(line.lower)
    return bool(label) and (names_the_question(normalise_label(label["label"]), vocab) or normalise_label(label["label"]) in vocab.history_labels)


_KEY_GROUPS = ("key1", "key2", "key3", "key4", "key5", "key6", "key7", "key8")
_REST_GROUPS = ("rest1", "rest2", "rest3", "rest4", "rest5", "rest6", "rest7", "rest8", "rest9", "rest10", "rest11", "rest12", "rest13", "rest14")


def _text_source(text: str, position: int, header: Line, match: re.Match[str], body: list[Line], vocab: Vocab) -> Source:
    """A source under a header line ("Document [1]: Title"): its key, what the rest of the header says, and its body."""
    offset = header.start + (len(header.lower) - len(header.lower.lstrip()))
    key, key_span, ordinal = _header_key(text, header, match, offset, vocab)
    rest_group = next(g for g in _REST_GROUPS if match[g] is not None)
    rest = Span(offset + match.start(rest_group), offset + match.end(rest_group))
    if (on_header := _chunk_on_header(text, position, header, rest, body, key, key_span, vocab)) is not None:
        return on_header
    title, heading, fields = _bracket_items(text, rest) if rest_group == "rest12" else parse_header(text, rest, vocab)
    if rest_group in ("rest10", "rest12") and not title and fields and not fields[0].label:
        # "Source [report.pdf, Page 8]:": the bracket opens with what names the source.
        title, fields = fields[0].value, fields[1:]
    fields = [ordinal, *fields] if ordinal else fields
    body_read = read_body(text, body, vocab, default_start=header.end)
    fields += body_read.fields
    wrapper_lines = body_read.wrapper_lines
    content_start, content_end = body_read.content.start, body_read.content.end
    title = title or first_value(fields, vocab.title_labels) or first_value(fields, vocab.fallback_title_labels)
    if not heading:
        # One field holds the path ("Section: A > B"), or one field a level ("Header 1: A", "Header 2: B").
        levels = [f.value for f in fields if vocab.lexicon.means(f.label, "heading")]
        heading = tuple(p.strip() for path in levels for p in path.split(">") if p.strip())
    end = max([content_end, header.end, body_read.end] + [f.span.end for f in fields] + [w.end for w in wrapper_lines])
    return Source(
        position=position,
        span=Span(header.start, end),
        header=Span(header.start, header.end),
        content=Span(content_start, content_end),
        key=key,
        key_span=key_span,
        title=title,
        heading_path=heading,
        fields=fields,
        wrapper_lines=wrapper_lines,
    )


def _bracket_items(text: str, rest: Span) -> tuple[None, tuple[()], list[Field]]:
    """What a bracket names after the source's key ("[Chunk 1 - returns.pdf, page 3]"), item by item."""
    items = split_items(lowercase(text[rest.start : rest.end]), rest.start)
    return None, (), [inline_field(text, 0, start, end, ",;|-\u2013\u2014") for start, end in items]


def _header_key(text: str, header: Line, match: re.Match[str], offset: int, vocab: Vocab) -> tuple[str | None, Span | None, Field | None]:
    """The key a header line gives its source ("[1]", "Document 2"), or the ordinal field it gives instead."""
    key_group = next((g for g in _KEY_GROUPS if match[g] is not None), None)
    if key_group is None:
        return None, None, None
    key_span = Span(offset + match.start(key_group), offset + match.end(key_group))
    value = text[key_span.start : key_span.end]
    if key_group == "key5" and _labelled_key(value, vocab) == "ordinal":
        # "Chunk: {chunk_id + 1}": the line numbers the chunk inside its document; it cites nothing.
        return None, None, Field(slot_reference(value.lstrip("$")).key, value, with_newline(text, header), key_span, FieldForm.LINE)
    return match[key_group], key_span, None


def _chunk_on_header(
    text: str, position: int, header: Line, rest: Span, body: list[Line], key: str | None, key_span: Span | None, vocab: Vocab
) -> Source | None:
    """The source when its header line carries the chunk itself, after a metadata group or alone; None when it does not."""
    raw = text[rest.start : rest.end]
    lead = _LEADING_GROUP.match(text, rest.start, rest.end)
    grouped = lead and _carries_chunk(raw) and not _is_passage(raw)
    # Far longer than any title, with no group to hold one: the chunk, whatever its punctuation.
    if not grouped and not _is_passage(raw) and (lead or len(raw.split()) < PASSAGE_WORDS * 6):
        return None
    lines = strip_blank_edges(body)
    end = max(rest.end, lines[-1].end if lines else rest.end)
    if grouped:
        # "Document [1](Title: X): «chunk text»": the metadata in a group, then the chunk on the header line.
        opened = len(raw) - len(raw.lstrip())
        closed = raw.rfind(")" if raw[opened] == "(" else "]", 0, lead.end() - rest.start)
        fields = [inline_field(raw, rest.start, s, e) for s, e in split_items(lowercase(raw[opened + 1 : closed]), opened + 1)]
        title = first_value(fields, vocab.title_labels)
        return Source(position, Span(header.start, end), Span(header.start, lead.end()), trim(text, Span(lead.end(), end)), key, key_span,
                      title=title.strip("\"'\u201c\u201d") if title else None, fields=fields)
    # "[1] «chunk text»": the header line carries the chunk itself, its title at most
    # before a bar ("[1] «David Gregory (physician) | David Gregory was ...»").
    titled = _PASSAGE_TITLE.match(text, rest.start, rest.end)
    return Source(position, Span(header.start, end), Span(header.start, rest.start), trim(text, Span(rest.start, end)), key, key_span,
                  title=titled["title"].strip() if titled else None)


@dataclass(frozen=True)
class Body:
    fields: list[Field]
    wrapper_lines: list[Span]
    content: Span
    end: int = 0  # where the source ends, when text after the content still belongs to it


@dataclass(frozen=True)
class _Head:
    """The metadata and wrapper lines above a source's content, and how the content opens."""
    fields: list[Field]
    wrapper_lines: list[Span]
    next_line: int  # the index of the first body line after the head
    labelled: bool = False  # the content was introduced by a label ("Content:", "Text" alone)
    inline: Span | None = None  # "Content: text": the content on the label's own line


def read_body(text: str, body: list[Line], vocab: Vocab, default_start: int) -> Body:
    """Split the lines under a header into metadata lines, wrapper lines and the content.

    Metadata and wrapper lines come first; the content starts at the first line
    that is neither, or after an explicit "Content:" (or bare "Text") label.
    """
    head = _read_head(text, body, vocab)
    fields, i = head.fields, head.next_line
    if head.inline and _LONE_SLOT.match(lowercase(text[head.inline.start : head.inline.end])):
        # "Snippet: {{Snippet}}" in a source template: the labelled lines after it are fields too.
        after_slot, read = _fields_after_slot(text, body[i:], vocab)
        if read:
            # The slot is the whole chunk: the lines after the fields that follow it stay in the
            # source, as before, but are no part of the chunk, so that its fields are not inside it.
            fields += after_slot
            tail = strip_blank_edges(body[i + read :])
            end = max(tail[-1].end if tail else 0, fields[-1].span.end)
            return Body(fields, head.wrapper_lines, head.inline, end)
    if not head.labelled and (record := _one_mapping(text, body[i:], vocab)) is not None:
        members, content = record
        return Body(fields + members, head.wrapper_lines, content)
    if head.labelled and head.inline and (items := _items_after_the_text(text, body[i - 1], body[i:])) is not None:
        content_lines, closing = items
        fields += closing
    elif head.labelled:
        content_lines, closing = _closing_fields(text, body[i:], vocab)
        fields += closing
    else:
        content_lines = strip_blank_edges(body[i:])
    if head.inline:
        content_start = head.inline.start
    else:
        content_start = content_lines[0].start if content_lines else (body[i - 1].end if i and body else default_start)
    content_end = content_lines[-1].end if content_lines else (head.inline.end if head.inline else content_start)
    return Body(fields, head.wrapper_lines, Span(content_start, max(content_end, content_start)))


def _one_mapping(text: str, body: list[Line], vocab: Vocab) -> tuple[list[Field], Span] | None:
    """A body that is one mapping on its line, as a store's record is printed (`{"citation": "...", "confidence": 0.9,
    "evidence": [...]}`, a Python dict alike): its members are the source's fields, but the one that holds the text (a
    content label's, else the longest value, a text of some words), which is its content. None for any other body: a
    record of short values alone (`{"title": "Returns", "confidence": 0.82}`) is all the chunk holds, its text."""
    lines = strip_blank_edges(body)
    if len(lines) != 1:
        return None
    line = lines[0]
    members = _mapping_fields(text, line, line.start + len(line.text) - len(line.text.lstrip()))
    if len(members) < 2:
        return None
    held = next((m for m in members if m.label in vocab.content_labels), None) or max(members, key=lambda m: len(m.value))
    if len(held.value.split()) < _TEXT_WORDS:
        return None
    return [m for m in members if m is not held], held.value_span


# Words a member's value needs to be a chunk's text, not a value beside it.
_TEXT_WORDS = 6


def _read_head(text: str, body: list[Line], vocab: Vocab) -> _Head:
    """The metadata and wrapper lines that open a source's body, up to its content or a content label."""
    fields: list[Field] = []
    wrapper_lines: list[Span] = []
    under = -1  # the lines up to this index are a labelled block's, read with its label
    for i, line in enumerate(body):
        if i <= under or _edge(line):
            continue
        labelled = LABEL_LINE.match(line.lower)
        # The label as written, so that "sourceDocument" reads as "source document".
        label = normalise_label(line.text[labelled.start("label") : labelled.end("label")]) if labelled else ""
        if _precis_before_the_text(body, i, labelled, label, vocab):
            fields.append(_line_field(text, line, labelled, label))
        elif _is_content_label(line, labelled, label, vocab):
            return _Head(fields, wrapper_lines, i + 1, labelled=True, inline=_value_on_line(line, labelled))
        elif not labelled and any(not b.blank for b in body[i + 1 :]) and (mapping := _mapping_fields(text, line, line.start + len(line.text) - len(line.text.lstrip()))):
            fields.extend(mapping)  # the metadata as one mapping on its line, the text under it: `{"title": "Returns", "score": 0.8}`
        elif (metadata := _metadata_fields(text, line, labelled, label, vocab)) is not None:
            if len(metadata) == 1 and not metadata[0].value and (block := _block_under(body, i)):
                # "SUMMARY:" alone, then its text: the lines up to a blank line are the field's value.
                metadata = [_block_field(text, line, block, label)]
                under = i + len(block)
            fields.extend(metadata)
        elif looks_like_instruction(line, vocab.lexicon):
            wrapper_lines.append(with_newline(text, line))
        elif _opens_metadata(labelled, label, vocab):
            continue
        elif labelled and _prints_the_chunk(labelled, label, vocab):
            return _Head(fields, wrapper_lines, i + 1, labelled=True, inline=_value_on_line(line, labelled))
        else:
            return _Head(fields, wrapper_lines, i)
    return _Head(fields, wrapper_lines, len(body))


def _precis_before_the_text(body: list[Line], i: int, labelled: re.Match[str] | None, label: str, vocab: Vocab) -> bool:
    """Whether a précis's line ("Snippet: Refunds within...", "Description: ...") is a one-line field before the line
    that opens the source's text under a content label ("Content: ..."): a search snippet beside the page it was cut from."""
    if labelled is None or not labelled["value"].strip() or label not in vocab.lexicon.phrases("precis"):
        return False
    following = next((line for line in body[i + 1 :] if not line.blank), None)
    nxt = LABEL_LINE.match(following.lower) if following is not None else None
    if nxt is None:
        return False
    next_label = normalise_label(following.text[nxt.start("label") : nxt.end("label")])
    return next_label != label and next_label in vocab.content_labels


def _block_under(body: list[Line], i: int) -> list[Line]:
    """The lines under a label alone on line ``i``, up to a blank line or another label, or, when a label
    written as this one is ("SUMMARY:", then "TABLES:") heads a later block, up to it, blank lines and all;
    none when no text follows them in the source, for then they are the source's own text, whatever the
    label says."""
    shape = _label_shape(body[i])
    following = next((j for j in range(i + 1, len(body)) if _label_shape(body[j]) == shape), None) if shape else None
    if following is not None:
        block = strip_blank_edges(body[i + 1 : following])
    elif _value_alone_under(body, i):
        block = [body[i + 1]]  # "Title:", then "Scratch Coding Lab: Build With Scratch": a value, colon and all
    else:
        block = list(itertools.takewhile(lambda line: not line.blank and not LABEL_LINE.match(line.lower), body[i + 1 :]))
    return block if any(not line.blank for line in body[i + 1 + len(block) :]) else []


def _value_alone_under(body: list[Line], i: int) -> bool:
    """Whether the line under a label alone is its value whatever it looks like ("Title:", then "Scratch Coding Lab:
    Build With Scratch"): a line of its own, a blank line after it, in a record written a label and a value a line,
    the next label alone over its value too. A line written as a label with a value of its own ("Title: Refunds")
    is that field, unless the record goes on so; a label with no value ("URL :") is never a value."""
    if not (i + 2 < len(body) and not body[i + 1].blank and body[i + 2].blank):
        return False
    labelled = LABEL_LINE.match(body[i + 1].lower)
    if labelled is None:
        return True
    following = next((j for j in range(i + 3, len(body)) if not body[j].blank), None)
    return bool(labelled["value"].strip()) and following is not None and _label_over_its_value(body, following)


def _label_over_its_value(body: list[Line], j: int) -> bool:
    """Whether line ``j`` is a label alone with its value on the next line, no label itself ("Section:", "Resources")."""
    labelled = LABEL_LINE.match(body[j].lower)
    if labelled is None or labelled["value"].strip() or j + 1 >= len(body) or body[j + 1].blank:
        return False
    under = LABEL_LINE.match(body[j + 1].lower)
    return under is None or bool(under["value"].strip())


# A section's label alone on its line, in capitals at the margin: "SUMMARY:", "KEY FACTS:".
_CAPITAL_LABEL = re.compile(r"(?P<label>[A-Z][A-Z0-9 _/&-]{1,40}?)\s*(?P<mark>[:：])\s*$")


def _label_shape(line: Line) -> str | None:
    """How a section's label in capitals is written (its mark), or None for any other line: a list item's or a
    bold label ("- **Part Number**:") is a line of the section's own text."""
    label = _CAPITAL_LABEL.fullmatch(line.text)
    return label["mark"] if label else None


def _block_field(text: str, line: Line, block: list[Line], label: str) -> Field:
    """A label alone on its line and the lines under it, as one field; removing it removes them all."""
    value = Span(block[0].start, block[-1].end)
    return Field(label, text[value.start : value.end].strip(), with_newline(text, Span(line.start, block[-1].end)), value, FieldForm.LINE)


def _opens_metadata(labelled: re.Match[str] | None, label: str, vocab: Vocab) -> bool:
    """"metadata:" alone on its line: the labelled lines under it are the source's fields."""
    return labelled is not None and not labelled["value"].strip() and label in vocab.metadata_labels


def _is_content_label(line: Line, labelled: re.Match[str] | None, label: str, vocab: Vocab) -> bool:
    """A line that introduces the content: "Content: ..." or "Text" alone on its line, or a label that may
    name the chunk ("chunk", which may as well number it) before one slot that prints the chunk's text
    (`chunk: ${trim(item.chunk)}`): the slot says which the label is."""
    if labelled:
        return label in vocab.content_labels or vocab.lexicon.means(label, "content-key") and _prints_text(labelled["value"], vocab)
    # A line of more words than any label (a chunk's first line, most often), "_" and "-" read as
    # spaces, has at least as many once normalised: it is not normalised to be compared.
    spaced = line.lower.replace("_", " ").replace("-", " ")
    return len(spaced.split(None, vocab.content_words)) <= vocab.content_words and normalise_label(line.lower.strip()) in vocab.content_labels


def _prints_text(value: str, vocab: Vocab) -> bool:
    """A value that is one slot printing a text key (`{item.chunk}`, `{doc.page_content[:500]}`)."""
    value = value.strip()
    printed = slot_reference(value) if value.startswith("{") and value.endswith("}") else None
    return printed is not None and vocab.lexicon.means(printed.key, "content-key")


def _value_on_line(line: Line, labelled: re.Match[str] | None) -> Span | None:
    """The text after a label on its own line ("Content: text"), if there is any."""
    if labelled and labelled["value"].strip():
        return Span(line.start + labelled.start("value"), line.end)
    return None


def _metadata_fields(text: str, line: Line, labelled: re.Match[str] | None, label: str, vocab: Vocab) -> list[Field] | None:
    """The fields a line of a source's head gives, or None when it is no metadata line."""
    slot = _LONE_SLOT.match(line.lower)
    if slot and normalise_label(slot["name"]).endswith(vocab.lexicon.phrases("naming-slot")):
        # "{chunk_heading}" alone on a line: the slot names what it prints.
        return [Field(normalise_label(slot["name"]), line.text.strip(), with_newline(text, line), Span(line.start, line.end), FieldForm.LINE)]
    if not labelled:
        if _SLOT_LABEL_LINE.match(line.lower):
            # "{key}: {value}": a template line that prints any metadata field.
            return [Field("metadata", line.text.strip(), with_newline(text, line), Span(line.start, line.end), FieldForm.LINE)]
        return None
    if mapping := _mapping_fields(text, line, line.start + labelled.start("value")):
        return mapping
    if row := _row_of_fields(line) or assigned_row(text, line.start, line.end):
        return row
    if vocab.is_field(label) or "_" in labelled["label"].strip() or _aligned(line, labelled):
        return [_line_field(text, line, labelled, label)]
    # "High Relevancy: {chunk['score']:.2f}": a slot whose name the lexicon knows says what the line prints.
    named = named_by_slot(_line_field(text, line, labelled, label), vocab)
    return [named] if named.label != label else None


# One item of a row: a short label, a colon, a value.
_ROW_ITEM = re.compile(r"\s*(?:[^\W\d_]|@)[\w .@-]{0,30}?\s*[:\uff1a]\s*\S")


def _row_of_fields(line: Line) -> list[Field]:
    """A row of labelled items between bars ("PMID: 123 | Year: 2019 | Journal: BMJ"): a renderer's fields,
    whatever their labels say, each removable on its own. No document's sentence is written so."""
    if " | " not in line.text:
        return []
    items = split_items(line.text, 0, "|")
    if len(items) < 2 or not all(_ROW_ITEM.match(line.text, start) for start, _ in items):
        return []
    return [inline_field(line.text, line.start, start, end, "|") for start, end in items]


# An item a renderer writes as name=value, with no space around the sign ("relevance=0.721"), as a word of its line.
_ASSIGNED = re.compile(r"(?P<lead>[ \t]+)?(?<!\S)(?P<name>[A-Za-z_][\w.-]{0,30})=(?P<value>[^\s=,;()\[\]]+)(?P<trail>[ \t]+)?")


def assigned_items(text: str, start: int, end: int) -> list[Field]:
    """The `name=value` items between two offsets, each a field; removing one removes the space before
    it, or after it when it opens the line."""
    if text.find("=", start, end) < 0:
        return []  # most texts hold no "=", and the pattern, which opens with no literal, is tried at every character
    return [Field(normalise_label(m["name"]), m["value"], Span(m.start(), m.end("value") if m["lead"] else m.end()), Span(m.start("value"), m.end("value")), FieldForm.INLINE)
            for m in _ASSIGNED.finditer(text, start, end)]


def assigned_row(text: str, start: int, end: int) -> list[Field]:
    """Text of `name=value` items and nothing else ("relevance=0.72 lang=cpp"), two or more: a renderer's
    fields, each removable on its own."""
    items = assigned_items(text, start, end)
    return items if len(items) > 1 and sum(len(f.span) for f in items) >= len(text[start:end].rstrip()) else []


def _aligned(line: Line, labelled: re.Match[str]) -> bool:
    """A label padded to a column before its colon ("Chunk        : 617"): a renderer's `f"{name:<12}: "`, which no
    document's own text writes, so the line is metadata whatever its label says."""
    return line.lower.startswith("  ", labelled.end("label"))


def _prints_the_chunk(labelled: re.Match[str], label: str, vocab: Vocab) -> bool:
    """A labelled slot that neither its label nor its name calls metadata ("**Memory:** {{memory}}")
    prints the chunk, as a content label's slot does; fields may follow it."""
    printed = _LONE_SLOT.match(labelled["value"])
    return bool(printed) and not vocab.lexicon.concepts(printed["name"]) and not vocab.is_field(label)


def _fields_after_slot(text: str, lines: list[Line], vocab: Vocab) -> tuple[list[Field], int]:
    """The fields on the labelled lines that follow a slot printing the chunk, and how many lines they take."""
    fields: list[Field] = []
    read = 0
    for line in lines:
        labelled = LABEL_LINE.match(line.lower)
        if not labelled:
            break
        label = normalise_label(line.text[labelled.start("label") : labelled.end("label")])
        if mapping := _mapping_fields(text, line, line.start + labelled.start("value")):
            fields.extend(mapping)
        elif vocab.is_field(label := named_by_slot(_line_field(text, line, labelled, label), vocab).label):
            fields.append(_line_field(text, line, labelled, label))
        else:
            break
        read += 1
    return fields, read


def _items_after_the_text(text: str, label_line: Line, lines: list[Line]) -> tuple[list[Line], list[Field]] | None:
    """The text as one item of a list of labelled items ("- Title: ...", "- Snippet: <text>", "- Source: duckduckgo"):
    it ends where the next item of the list starts, and the items after it, to the end of the source, are its fields
    as the items before it are. None when the text is no such item, or anything but such items follows it."""
    marker = _ITEM_MARKER.match(label_line.text)
    if marker is None or not marker[0].strip() or marker[0].strip()[0].isdigit():
        return None
    after = next((k for k, line in enumerate(lines) if line.text.startswith(marker[0]) and LABEL_LINE.match(line.lower)), None)
    if after is None:
        return None
    items = [(line, LABEL_LINE.match(line.lower)) for line in lines[after:] if not line.blank]
    if not all(line.text.startswith(marker[0]) and labelled and labelled["value"].strip() for line, labelled in items):
        return None
    fields = [_line_field(text, line, labelled, normalise_label(line.text[labelled.start("label") : labelled.end("label")])) for line, labelled in items]
    return strip_blank_edges(lines[:after]), fields


def _closing_fields(text: str, lines: list[Line], vocab: Vocab) -> tuple[list[Line], list[Field]]:
    """The content of labelled text without its edges, and the fields written after it: derived
    fields after a blank line ("Summary: ..."), then a last line of metadata written as a mapping."""
    content_lines, trailing = _split_trailing_fields(lines, vocab)
    fields = [_line_field(text, line, labelled, normalise_label(labelled["label"])) for line, labelled in trailing]
    content_lines = strip_blank_edges(content_lines)
    last = LABEL_LINE.match(content_lines[-1].lower) if content_lines else None
    if last and (mapping := _mapping_fields(text, content_lines[-1], content_lines[-1].start + last.start("value"))):
        fields.extend(mapping)
        content_lines = strip_blank_edges(content_lines[:-1])
    return content_lines, fields


# One "'key': value" item of a mapping written out as a Python dict or a JSON object.
_MAPPING_ITEM = re.compile(r"""\s*(?P<q>['"])(?P<label>[^'"\n]{1,40})(?P=q)\s*:\s*(?P<value>\S.*?)\s*$""")
_OPENERS, _CLOSERS = "{[(", "}])"


def _top_level_items(raw: str, start: int, end: int) -> list[tuple[int, int]]:
    """The comma-separated items of ``raw[start:end]``, not splitting inside quotes or brackets."""
    items, depth, quote, begin = [], 0, "", start
    for i in range(start, end):
        ch = raw[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth -= 1
        elif ch == "," and depth == 0:
            items.append((begin, i))
            begin = i + 1
    items.append((begin, end))
    return items


def _mapping_fields(text: str, line: Line, value_start: int) -> list[Field]:
    """The fields of a line whose value (from ``value_start``) is a mapping ("Metadata: {'chunk_id': 'c1', 'source': 'wiki'}",
    or the mapping alone, as JSON: `{"title": "Returns", "confidence": 0.82}`): one per key, each removable on its own.
    Items that are not "'key': value" (a slot, "...") are left. A mapping cut short (`str(record)[:300]`) is read up
    to the cut: its last item's value runs to the end of the line, and a key cut in two is no item."""
    raw = text[value_start : line.end].rstrip()
    if len(raw) < 2 or raw[0] != "{" or not _MAPPING_ITEM.match(raw, 1):
        return []
    closed = raw[-1] == "}"
    fields = []
    for start, end in _top_level_items(raw, 1, len(raw) - closed):
        item = _MAPPING_ITEM.match(raw[start:end])
        if item is None:
            continue
        value = item["value"]
        quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
        cut = not closed and end == len(raw) and value[0] in "'\"" and not quoted  # a string the cut left open
        value_at = value_start + start + item.start("value") + (1 if quoted or cut else 0)
        shown = value[1:-1] if quoted else value[1:] if cut else value
        # The item and the comma after it (before it, for the last): removing it leaves a valid mapping.
        span_start, span_end = start + item.start("q"), end
        if end < len(raw) and raw[end] == ",":
            span_end = end + 1 + (len(raw[end + 1 :]) - len(raw[end + 1 :].lstrip(" ")))
        elif start > 1:
            span_start = start - 1
        fields.append(Field(normalise_label(item["label"]), shown, Span(value_start + span_start, value_start + span_end),
                            Span(value_at, value_at + len(shown)), FieldForm.INLINE))
    return fields


def _line_field(text: str, line: Line, labelled: re.Match[str], label: str) -> Field:
    """A "Label: value" line as a field; removing it removes the line."""
    value_start = line.start + labelled.start("value")
    return Field(label, text[value_start : line.end].strip(), with_newline(text, line), Span(value_start, line.end), FieldForm.LINE)


# A metadata group that opens a header's rest: "(Title: X): ", "[Updated 2026-01-14] ".
_LEADING_GROUP = re.compile(r"\s*(?:\((?:[^()\n]|\([^()\n]*\))*\)|\[[^\[\]\n]*\])\s*:?\s*")


# A passage that opens with its title and a bar: "«Title | text", a few words with no sentence end.
_PASSAGE_TITLE = re.compile(r"\s*[«\"“](?P<title>[^\s|.!?][^|.!?\n]{0,80}?)\s+\|\s+\S")


def _carries_chunk(rest: str) -> bool:
    """A header line whose rest is the chunk, or a metadata group and then the chunk."""
    lead = _LEADING_GROUP.match(rest)
    return _is_passage(rest) or bool(lead and len(rest[lead.end() :].split()) >= PASSAGE_WORDS)


def _is_passage(rest: str) -> bool:
    """A header line that carries the chunk itself rather than a title."""
    rest = rest.strip()
    if rest.startswith(("«", '"', "“")):
        return True
    # A long run of prose ending like a sentence, with no metadata groups, or with its first group after a sentence
    # already ended ("Olapade Adeniken: He ran it in under ten seconds. Olusoji Fasuba (9.85 s) was faster."):
    # a title holds no sentence, so a group there is the prose's own aside.
    if len(rest.split()) < PASSAGE_WORDS or not rest.endswith((".", "!", "?", "…")):
        return False
    group = re.search(r"[(\[|\u2014]", rest)
    before = rest[: group.start()] if group else rest
    return not group or len(before.split()) >= _PROSE_WORDS and re.search(r"\w[.!?]\s+\w", before) is not None


def first_value(fields: list[Field], labels: frozenset[str]) -> str | None:
    return next((f.value for f in fields if f.label in labels and f.value), None)


def _split_trailing_fields(lines: list[Line], vocab: Vocab) -> tuple[list[Line], list[tuple[Line, re.Match[str]]]]:
    """Derived fields rendered after the chunk text ("\\n\\nSummary: ...") belong to the wrapper.

    Called only when the text was introduced by a label ("Text:", "Content:"),
    and only a labelled line after a blank line at the end of the source counts:
    otherwise a "Summary:" paragraph is the document's own text.
    """
    lexicon = vocab.lexicon
    trailing: list[tuple[Line, re.Match[str]]] = []
    end = len(lines)
    while end > 0 and lines[end - 1].blank:
        end -= 1
    i = end - 1
    while i > 0:
        line = lines[i]
        labelled = LABEL_LINE.match(line.lower)
        if labelled and lexicon.means(normalise_label(labelled["label"]), "derived") and lines[i - 1].blank:
            trailing.insert(0, (line, labelled))
            end = i
            i -= 1
            continue
        if labelled and lexicon.means(normalise_label(labelled["label"]), "derived"):
            break
        i -= 1
        if i < end - 3:
            break
    # A trailing field's value may run onto the lines after its label.
    if trailing:
        first_line = trailing[0][0]
        cut = next(k for k, line in enumerate(lines) if line is first_line)
        return lines[:cut], [_extend_value(lines, lines.index(line), m) for line, m in trailing]
    return lines, []


def _extend_value(lines: list[Line], index: int, match: re.Match[str]) -> tuple[Line, re.Match[str]]:
    line = lines[index]
    end = index
    while end + 1 < len(lines) and not lines[end + 1].blank and not LABEL_LINE.match(lines[end + 1].lower):
        end += 1
    if end == index:
        return line, match
    last = lines[end]
    joined_text = line.text + "\n" + "\n".join(l.text for l in lines[index + 1 : end + 1])
    merged = Line(line.start, last.end, joined_text, lowercase(joined_text))
    return merged, LABEL_LINE.match(merged.lower.replace("\n", " "))


def _edge(line: Line) -> bool:
    return line.blank or bool(SEPARATOR.match(line.text) or LONE_TAG.match(line.lower) or _LONE_PUNCTUATION.match(line.text))


def strip_blank_edges(lines: list[Line]) -> list[Line]:
    start, end = 0, len(lines)
    while start < end and _edge(lines[start]):
        start += 1
    while end > start and _edge(lines[end - 1]):
        end -= 1
    return lines[start:end]
