"""Sources with no header line: records of labelled fields, separated blocks and lists."""

from __future__ import annotations

import bisect
import dataclasses
import re

from ...meaning.values import opening_date
from ...meaning.vocabulary import normalise_label
from ...model.lines import with_newline
from ...model.prompt import Field, FieldForm, Message, Source, Span
from ..expressions import slot_reference
from .vocab import INLINE_ITEM, LABEL_LINE, Line, SECTION_LABEL, SEPARATOR, SLOT, Vocab, names_the_question, section_label, slot_kind, trim
from .instructions import looks_like_instruction, opens_with_imperative
from .headers import inline_field, split_items, with_space
from .sources import LONE_TAG, by_position, cut_last_source, first_value, strip_blank_edges, titled_by_field


# A field of a record: "Doc ID: 7", "**Updated:** 2026-10-01", "- Origin: wiki", or a line of its own in brackets,
# "[Source: returns.pdf]" (a label of words alone: "[Step 1: ...]" counts, see headers). A short label only, and not
# the hour of a time ("当前时间 14:05").
_RECORD_FIELD = re.compile(
    r"\s*(?:[-*\u2022]\s+)?(?:(?P<open>\[)(?=[^\W\d_][^\d\n:=：\]]*[:=：])|\*\*|__)?(?P<label>(?:[^\W\d_]|@)[\w.@/-]*(?: [\w.@/-]+){0,3}?)(?:\*\*|__)?\s*(?!(?<=\d)[:：]\d)[:=：](?!//)(?:\*\*|__)?\s*"
    r"(?P<value>(?(open)[^\[\]\n]*?|.*))(?(open)\s*\]\s*)$"
)
_MD_HEADING = re.compile(r"\s*#{1,6}\s+(?P<title>\S.*?)\s*$")
# A banner heading: "----Analyst 2----", "=== Report {n} ===", "~~ Notes ~~"; its words name the record.
# Not "**...**": that is bold text, which opens an instruction as often as a record.
_BANNER = re.compile(r"\s*[-=~]{2,}\s*(?P<title>[^-=~\s](?:[^\n]*?[^-=~\s])?)\s*[-=~]{2,}\s*$")


def record_sources(text: str, lines: list[Line], vocab: Vocab, messages: list[Message]) -> list[Source]:
    """Sources written as records of labelled fields with no header line: "Doc ID: ... / Origin: ... /
    Text: ... / Match score: ...", a Markdown section whose metadata is bold ("## Title" then
    "**Updated:** 2026-10-01" then the text), or a one-line record ("Title: ..., URL: ..., Date: ...").

    A record is a paragraph (lines between blank lines): an optional heading (Markdown, or a banner
    such as "----Analyst 2----"), then fields, then the
    text (after a content label, or the first unlabelled lines), then optional fields. It takes two
    records of the same first label, or one whose text is labelled and has two fields besides, so
    that a paragraph of "Label: value" instructions is not read as a source.
    """
    stop = vocab.question_labels | vocab.history_labels | vocab.context_labels
    records = []
    for paragraph in _paragraphs(lines, vocab):
        for group in _repeats(paragraph):
            record = _record(text, group, vocab, stop)
            if record is not None:
                records.append(record)
    firsts = [r[1] for r in records]
    # A record of fields alone is one only among others of its kind.
    kept = [r for r in records if firsts.count(r[1]) >= 2 or (r[2] and len(r[0].fields) >= 2 and r[0].content.end > r[0].content.start)]
    kept = _faq_under_the_context(kept, lines, vocab)
    if kept:
        under_tools = _under_tools(lines, vocab)
        kept = [r for r in kept if not under_tools(r[0].span.start)]
    sources = titled_by_field(_with_following_paragraphs(text, lines, vocab, messages, kept), vocab)
    return [dataclasses.replace(source, position=n) for n, source in enumerate(sources)]


def _under_tools(lines: list[Line], vocab: Vocab):
    """Whether the last heading before an offset names the model's tools ("=== TOOLS ===", "## Available tools"):
    a tool's description there is the deployment's setup, written once, not a retrieved source."""
    headings = [(line.end, vocab.lexicon.mentions(h["title"], "tool")) for line in lines if (h := _MD_HEADING.match(line.text) or _BANNER.match(line.text))]
    ends = [end for end, _ in headings]

    def under(start: int) -> bool:
        last = bisect.bisect_right(ends, start) - 1
        return last >= 0 and headings[last][1]

    return under


def _paragraphs(lines: list[Line], vocab: Vocab) -> list[list[Line]]:
    """The text's paragraphs, without the lines that open or close the context around the records
    (a lone tag, `<search_results>`; a context label alone, `Context:`)."""
    paragraphs: list[list[Line]] = [[]]
    for line in lines:
        line = _after_the_context_label(line, vocab)
        if line.blank or SEPARATOR.match(line.text) or opens_the_context(line, vocab):
            if paragraphs[-1]:
                paragraphs.append([])
        elif paragraphs[-1] and (_MD_HEADING.match(line.text) or _BANNER.match(line.text)):
            paragraphs.append([line])  # a heading opens a record: the section heading above it ("### Search results") is not its
        else:
            paragraphs[-1].append(line)
    return [p for p in paragraphs if p]


def _after_the_context_label(line: Line, vocab: Vocab) -> Line:
    """A line that opens the context with the first record's first field on it ("CONTEXT: section: General"),
    from that field on: the record starts there; any other line as it is."""
    labelled = _RECORD_FIELD.match(line.lower)
    if not labelled or normalise_label(labelled["label"]) not in vocab.context_labels or not _RECORD_FIELD.match(labelled["value"]):
        return line
    at = labelled.start("value")
    return Line(line.start + at, line.end, line.text[at:], line.lower[at:])


def opens_the_context(line: Line, vocab: Vocab) -> bool:
    """A lone tag, or a label of the context alone on its line, as a label or a banner ("--- Retrieved Context ---")."""
    if LONE_TAG.match(line.lower):
        return True
    banner = _BANNER.match(line.lower)
    return (normalise_label(banner["title"]) if banner else section_label(line.lower)) in vocab.context_labels


def _opens_a_part(body: list[Line], index: int, vocab: Vocab) -> bool:
    """A paragraph that starts with a label alone ("Rules:") or an instruction: the prompt again."""
    line = body[index]
    if index == 0 or not body[index - 1].blank:
        return False
    return bool(SECTION_LABEL.match(line.lower)) or looks_like_instruction(line, vocab.lexicon)


def _with_following_paragraphs(text: str, lines: list[Line], vocab: Vocab, messages: list[Message], kept: list[tuple[Source, str, bool]]) -> list[Source]:
    """A record holds the paragraphs after it, up to the next record, or for the last one up to the next part of
    the prompt, where its text is labelled ("Content:"), or where the records before it hold paragraphs of their
    own between them (a post's comments, a page's text): their text has blank lines."""
    # Two gaps at least to judge from: one record and the next may be two parts of a prompt.
    starts = [line.start for line in lines] if len(kept) >= 3 else []
    continued = len(kept) >= 3 and any(_has_text(lines, starts, a.span.end, b.span.start) for (a, _, _), (b, _, _) in zip(kept, kept[1:]))
    sources = []
    for n, (source, _, labelled) in enumerate(kept):
        last = n + 1 == len(kept)
        # Fields after the text ("Match score: 0.8") end a record, unless the records hold paragraphs past them.
        text_goes_on = labelled and source.content.end >= source.span.end
        if not (text_goes_on or (continued and last)):
            sources.append(source)
            continue
        limit = kept[n + 1][0].span.start if not last else len(text)
        body = _paragraphs_after(source, [line for line in lines if line.start >= source.span.end and line.end <= limit], vocab, messages, last)
        sources.append(_extended(source, body, text_goes_on) if body else source)
    return sources


def _paragraphs_after(source: Source, body: list[Line], vocab: Vocab, messages: list[Message], last: bool) -> list[Line]:
    """The lines after a record that are its own: up to a line that closes or opens the context, and for the
    last record up to the next part of the prompt."""
    body = body[: next((i for i, line in enumerate(body) if opens_the_context(line, vocab) or _opens_a_part(body, i, vocab)), len(body))]
    if last:
        body = cut_last_source(body, vocab, messages, source.span.end, seen_content=True)
    return strip_blank_edges(body)


def _extended(source: Source, body: list[Line], text_goes_on: bool) -> Source:
    """The record with the paragraphs after it; they are its text when its text runs on (a record of fields
    alone takes them as its text)."""
    end = body[-1].end
    start = source.content.start if source.content.end > source.content.start else body[0].start
    return dataclasses.replace(source, span=Span(source.span.start, end), content=Span(start, end) if text_goes_on else source.content)


def _has_text(lines: list[Line], starts: list[int], start: int, end: int) -> bool:
    """Whether lines of text (no blank line, no rule) stand between two offsets (``starts``: the lines' starts)."""
    first = bisect.bisect_left(starts, start)
    return any(line.end <= end and not line.blank and not SEPARATOR.match(line.text) for line in lines[first : bisect.bisect_left(starts, end)])


def _repeats(paragraph: list[Line]) -> list[list[Line]]:
    """A paragraph split where its first label comes again: records written one after another."""
    first = _RECORD_FIELD.match(paragraph[0].lower)
    if first is None:
        return [paragraph]
    groups: list[list[Line]] = [[]]
    for line in paragraph:
        field = _RECORD_FIELD.match(line.lower)
        if groups[-1] and field and field["label"] == first["label"]:
            groups.append([])
        groups[-1].append(line)
    return groups


# The kind of a record that asks and answers (see _faq_entry).
_FAQ = "faq entry"


def _faq_entry(text: str, paragraph: list[Line], vocab: Vocab) -> tuple[Source, str, bool] | None:
    """A paragraph that asks, then answers ("Q: How do I debug a container?", "A: Launch the image ..." and lines
    more): an FAQ entry, its question a field and its answer the text. Not labelled: only entries of one kind, two
    or more, under the context's label, are kept (see record_sources)."""
    asked, answered = (_RECORD_FIELD.match(line.lower) for line in paragraph[:2]) if len(paragraph) >= 2 else (None, None)
    if not (asked and answered and asked["value"].strip() and answered["value"].strip()):
        return None
    if not names_the_question(normalise_label(asked["label"]), vocab) or normalise_label(answered["label"]) not in vocab.example_answers:
        return None
    first, value = paragraph[0], Span(paragraph[0].start + asked.start("value"), paragraph[0].end)
    question = Field(normalise_label(asked["label"]), text[value.start : value.end].strip(), with_newline(text, first), value, FieldForm.LINE)
    content = trim(text, Span(paragraph[1].start + answered.start("value"), paragraph[-1].end))
    return Source(0, Span(first.start, paragraph[-1].end), Span(first.start, first.start), content, fields=[question]), _FAQ, False


def _faq_under_the_context(kept: list[tuple[Source, str, bool]], lines: list[Line], vocab: Vocab) -> list[tuple[Source, str, bool]]:
    """The records, less entries that ask and answer outside the context: under no context label, they are worked examples."""
    if not any(kind == _FAQ for _, kind, _ in kept):
        return kept
    opened = next((line.start for line in lines if opens_the_context(line, vocab) or _after_the_context_label(line, vocab) is not line), None)
    return [r for r in kept if r[1] != _FAQ or opened is not None and r[0].span.start > opened]


def _record(text: str, paragraph: list[Line], vocab: Vocab, stop: frozenset[str]) -> tuple[Source, str, bool] | None:
    """The source a paragraph holds as a record, with its first field's label and whether its text is labelled."""
    if entry := _faq_entry(text, paragraph, vocab):
        return entry
    heading = _MD_HEADING.match(paragraph[0].text) or _BANNER.match(paragraph[0].text)
    # A plain line above the fields names the section the entry stands in, not its document: a heading.
    section = None if heading else _section_line(paragraph, vocab)
    headed = heading or section
    read = _record_lines(text, paragraph[1:] if headed else paragraph, vocab, stop, headed=bool(headed))
    if read is None:
        return None
    fields, content, labelled, guessed = read
    if headed and content.end == content.start:
        return None  # a section of settings under its heading ("## Incident", then "Severity: high"), no node's metadata
    title = heading["title"].strip("*_ ") if heading else first_value(fields, vocab.title_labels)
    first = paragraph[0]
    source = Source(0, Span(first.start, paragraph[-1].end), Span(first.start, first.end if headed else first.start),
                    trim(text, content), title=title, fields=fields, heading_path=(section["title"],) if section else (), guessed=guessed)
    # Records are of one kind when they start alike: the same first label, or headings written alike ("###", "---").
    if section:
        kind = "section"
    else:
        kind = "#" + first.text[: heading.start("title")].strip() if heading else fields[0].label
    return source, kind, labelled


# A section's name on a line of its own: a few words, no sentence, no label ("Capstone Project").
_SECTION_LINE = re.compile(r"\s*(?P<title>[^\W\d_][\w '’&/-]{0,60}?)\s*$")
SECTION_WORDS = 6


def _section_line(paragraph: list[Line], vocab: Vocab) -> re.Match[str] | None:
    """A paragraph's first line as the section its record stands in, when it is a few words with no label and
    the next line is a field ("Capstone Project", then "Q: Is it a group project?"), as an FAQ export prints it."""
    if len(paragraph) < 3 or not _RECORD_FIELD.match(paragraph[1].lower):
        return None
    section = _SECTION_LINE.match(paragraph[0].text)
    if not section or len(section["title"].split()) > SECTION_WORDS or looks_like_instruction(paragraph[0], vocab.lexicon) or opens_with_imperative(paragraph[0], vocab.lexicon):
        return None
    return section


# A record's fields, its text, whether a label introduced the text, and whether the text was told by its role alone.
_Read = tuple[list[Field], Span, bool, bool]


def _record_lines(text: str, lines: list[Line], vocab: Vocab, stop: frozenset[str], headed: bool = False) -> _Read | None:
    """The fields and the text of a record's lines (``headed``: under its heading), whether a label introduced
    the text, and whether the text was told from the fields only by its role (see _text_by_role); None when the
    lines are no record (no fields or no text, a label in ``stop``, prose after the fields)."""
    fields: list[Field] = []
    content: Span | None = None
    labelled = trailing = False
    before_text = 0  # how many fields came before the text: those after it are trailing until prose follows
    opening: tuple[Line, re.Match[str], str] | None = None  # the content label's line while the text is that line alone
    for line in lines:
        field = _RECORD_FIELD.match(line.lower)
        label = normalise_label(field["label"]) if field else ""
        if _ends_the_record(line, field, label, bool(fields) or headed, vocab, stop):
            return None  # the question, the history or an instruction, not a source
        if field and label in vocab.content_labels and (content is None or _labels_the_text_after(opening, content, label, vocab)):
            if content is not None:
                # "Snippet: ..." then "Content: ...": the first line is a field beside the text the second labels.
                fields.append(record_field(text, *opening))
            content, labelled = Span(line.start + field.start("value"), line.end), True
            before_text, opening, trailing = len(fields), (line, field, label), False
        elif field and (items := _one_line_items(line)):
            fields.extend(inline_field(line.text, line.start, start, end) for start, end in items)
            trailing = content is not None
        elif field and field["value"].strip():
            fields.append(record_field(text, line, field, label))
            trailing = content is not None
        elif trailing:
            if not labelled:
                return None  # text after the trailing fields: prose, not a record
            # Prose after "Label: value" lines under a content label: those lines were the text's own.
            del fields[before_text:]
            content, trailing = Span(content.start, line.end), False
        elif content is None and _opens_the_text(fields, line):
            opened = fields.pop()
            content, labelled = Span(opened.value_span.start, line.end), True
            before_text = len(fields)
        else:
            content = Span(line.start, line.end) if content is None else Span(content.start, line.end)
    return _read_record(text, lines, fields, content, labelled, vocab)


def _labels_the_text_after(opening: tuple[Line, re.Match[str], str] | None, content: Span, label: str, vocab: Vocab) -> bool:
    """Whether a content label opens the record's text after a précis's ("Snippet:"), whose line is all the text so far."""
    return opening is not None and content.end == opening[0].end and label != opening[2] and opening[2] in vocab.lexicon.phrases("precis")


def record_field(text: str, line: Line, field: re.Match[str], label: str) -> Field:
    """A "Label: value" line of a record as a field (in brackets, "[Source: returns.pdf]", the value inside them)."""
    value = Span(line.start + field.start("value"), line.start + field.end("value"))
    return Field(label, text[value.start : value.end].strip(" *_"), with_newline(text, line), value, FieldForm.LINE)


def _one_line_items(line: Line) -> list[tuple[int, int]]:
    """The items of a one-line record ("Title: ..., URL: ..., Date Published: ..."), each labelled as the first is
    (in a sentence, "That said, I have downgraded from 5 to 3 stars" is no item "downgraded from 5"); [] for none."""
    items = split_items(line.lower, 0)
    return items if len(items) > 1 and all(_RECORD_FIELD.match(line.lower[start:end]) for start, end in items[1:]) else []


def _read_record(text: str, lines: list[Line], fields: list[Field], content: Span | None, labelled: bool, vocab: Vocab) -> _Read | None:
    """A record's fields and text, once its lines are read; None when they are no record."""
    asks = [names_the_question(f.label, vocab) for f in fields[:-1]]
    if any(asks) and (entry := _faq_fields(text, fields, content, asks)) is not None:
        return entry
    if content is None:
        return _text_by_role(fields, lines)
    if not fields or _announces(text, content, fields) or _names_a_step(text, content, fields, vocab):
        return None
    return fields, content, labelled, False


def _faq_fields(text: str, fields: list[Field], content: Span | None, asks: list[bool]) -> _Read | None:
    """An FAQ entry's fields and text, its question among the fields (``asks``); None when the entry is no FAQ's."""
    # ("section: ...", "question: ...", "answer: No, it is a solo project."): its question is a sentence and a value
    # of the entry all the same, and the field after it is the entry's text.
    if content is None and all(a or len(f.value.split()) < PROSE_WORDS for f, a in zip(fields, asks)):
        return fields[:-1], fields[-1].value_span, True, False
    if content is not None:
        # The answer's first line read as fields ("answer: In the project directory, run:"), its text on the lines
        # below. Not labelled: only entries of one kind, two or more, say they are an FAQ's, not a prompt's own
        # question and answer cue.
        at = len(asks) - asks[::-1].index(True)  # the field after the last question
        answer_line = Span(fields[at].value_span.start, fields[-1].value_span.start)
        if answer_line.end < content.start and "\n" not in text[answer_line.start : answer_line.end]:
            return fields[:at], Span(answer_line.start, content.end), False, False
    return None


def _text_by_role(fields: list[Field], lines: list[Line]) -> _Read | None:
    """The text of a record whose every line is labelled, by the role of its values; None when it has none."""
    prose = [f for f in fields if len(f.value.split()) >= PROSE_WORDS]
    written = [f for f in prose if _SENTENCE_END.search(f.value)]
    if len(fields) >= 3 and len(written) == 1:
        # One of them sentences ("Product: ...", "Review: This is the only cream ...", "Rating: 3.0"): that is the
        # record's text, whatever its label; the values around it are its fields. Not labelled: only records of one
        # kind, two or more, say so. Nothing says the records were retrieved (a product's own "Score: 4.5" reads
        # as a score too): the reading is a guess, and no fix of a field of it is certain.
        return [f for f in fields if f is not written[0]], written[0].value_span, False, True
    if len(fields) >= 2 and not prose:
        # Fields alone ("file_path: ...", "total_pages: 416"): the text is the paragraphs under them, as a
        # LlamaIndex node prints its metadata, a blank line, then its text. Only records of one kind say so,
        # and only values: a list of sentences under labels ("- SUMMARY: An executive summary of ...") is prose.
        return fields, Span(lines[-1].end, lines[-1].end), True, False
    return None


def _ends_the_record(line: Line, field: re.Match[str] | None, label: str, after_fields: bool, vocab: Vocab, stop: frozenset[str]) -> bool:
    """Whether a line says the lines are no record: an instruction, or a label of the question, the history or
    the context; but a question under another field ("Section: ...", then "Question: ...") is an FAQ entry's own."""
    if field and looks_like_instruction(line, vocab.lexicon):
        return True
    question = names_the_question(label, vocab)
    return (label in stop or question) and not (after_fields and question)


# A field's value this long is a sentence of text, not a value of metadata.
PROSE_WORDS = 8
# The end of a sentence: a stop, then a space or the end ("... others notice. This works"); not "2.11 Ounces".
_SENTENCE_END = re.compile(r"[.!?…。](?:\s|$)")


def _opens_the_text(fields: list[Field], line: Line) -> bool:
    """Whether the field on the line before an unlabelled line holds a sentence, not a value: its label
    opened the text ("Answer: Yes, even if you don't register, ..." and the lines after it)."""
    return bool(fields) and fields[-1].span.end == line.start and len(fields[-1].value.split()) >= PROSE_WORDS


def _announces(text: str, content: Span, fields: list[Field]) -> bool:
    """Whether the unlabelled text is one line that ends in a colon, before the fields: it announces them
    ("Each point should have the following fields:"), as a specification does; a passage does not."""
    written = text[content.start : content.end].rstrip(" *_")
    return "\n" not in written and written.endswith((":", "\uff1a")) and content.end <= fields[0].span.start


def _names_a_step(text: str, content: Span, fields: list[Field], vocab: Vocab) -> bool:
    """Whether the unlabelled text is a few words on one line above the fields, none of which a source carries (no
    title, address, date, score or origin): it names the step or setting they describe ("1. KEYWORD GENERATION",
    then "Input: User query", "Tool: ReasoningEngine", "Action: Generate 3-5 search keywords"), not a passage."""
    written = text[content.start : content.end]
    return (
        "\n" not in written and len(written.split()) <= SECTION_WORDS and content.end <= fields[0].span.start
        and not any(vocab.is_field(f.label) for f in fields)
    )


def document_template(text: str, lines: list[Line], vocab: Vocab) -> list[Source]:
    """A template a framework renders once per retrieved document (LangChain's document prompt): its one
    document-text slot (`{page_content}`) is the chunk, and each line that prints a slot under a label
    (`source_type: {source_type}`) a field of it. The whole template is that one source's wrapper."""
    slots = [(line, m) for line in lines for m in SLOT.finditer(line.lower) if normalise_label(m["name"]) in vocab.document_slots]
    if len(slots) != 1:
        return []
    [(content_line, slot)] = slots
    fields = []
    for line in lines:
        label = LABEL_LINE.match(line.lower) if line is not content_line else None
        if label and SLOT.fullmatch(label["value"].strip()):
            value = trim(text, Span(line.start + label.start("value"), line.end))
            fields.append(Field(normalise_label(label["label"]), text[value.start : value.end], with_newline(text, line), value, FieldForm.LINE))
    if not fields:
        return []
    title = first_value(fields, vocab.title_labels)
    whole = trim(text, Span(0, len(text)))
    return [Source(0, whole, Span(whole.start, slot.start()), Span(slot.start(), slot.end()), title=title, fields=fields)]


def separated_sources(text: str, lines: list[Line], vocab: Vocab, messages: list[Message]) -> list[Source]:
    """Sources with no headers, only "---" lines between them, under a "Context:" label."""
    for index, line in enumerate(lines):
        if section_label(line.lower) not in vocab.context_labels:
            continue
        block = cut_last_source(lines[index + 1 :], vocab, messages, line.start)
        chunks: list[list[Line]] = [[]]
        for body_line in block:
            if SEPARATOR.match(body_line.text):
                chunks.append([])
            else:
                chunks[-1].append(body_line)
        chunks = [c for c in (strip_blank_edges(c) for c in chunks) if c]
        if len(chunks) < 2:
            continue
        if any(len(c) == 1 and (slot := SLOT.fullmatch(c[0].lower.strip())) and slot_kind(slot["name"], vocab) == "context" for c in chunks):
            # "Context:\n{context_str}\n------\nYou are ...": the slot is the whole context, and the
            # rule after it closes the context block; it does not start another source.
            return []
        return [
            Source(n, Span(c[0].start, c[-1].end), Span(c[0].start, c[0].start), Span(c[0].start, c[-1].end))
            for n, c in enumerate(chunks)
        ]
    return []


# A list item that ends in a parenthesised group: "- {edge.fact} ({edge.valid_at} - {edge.invalid_at})".
_LIST_ITEM = re.compile(r"\s*(?:[-*\u2022]|\d+[.)])\s+(?P<text>\S.*?)\s*(?P<group>\((?:\{[^{}\n]*\}|[^()\n])*+\))\s*$")
_GROUP_SLOT = re.compile(r"\{[^{}\n]*\}")


def list_sources(text: str, lines: list[Line], vocab: Vocab) -> list[Source]:
    """Sources written as a list, one a line, each ending in a group of metadata ("- {fact} ({valid_at} - {invalid_at})").

    A run of two or more items counts, when every item's group holds a field the lexicon
    knows, by its label ("(updated: ...)") or by what its slot prints: a list of
    instructions with an aside in parentheses is not a list of sources.
    """
    sources: list[Source] = []
    run: list[Source] = []
    for line in [*lines, None]:
        item = _LIST_ITEM.match(line.text) if line is not None else None
        field = _group_field(text, line, item, vocab) if item else None
        if field is not None:
            content = Span(line.start + item.start("text"), line.start + item.end("text"))
            dated = _opening_date(text, content)
            if dated is not None:
                content = Span(dated.span.end, content.end)
            run.append(Source(0, Span(line.start, line.end), Span(line.start, line.start), content, fields=[f for f in (dated, field) if f]))
            continue
        if len(run) >= 2:
            sources.extend(run)
        run = []
    return by_position(sources)


# What parts an item's opening date from its text: "2023-04-10: ...", "2023-04-10 - ...", "2023-04-10 | ...".
_AFTER_DATE = re.compile(r"[ \t]*(?::|[ \t][-|\u2013\u2014])[ \t]+")


def _opening_date(text: str, content: Span) -> Field | None:
    """The date an item opens with, parted from its text ("- 2023-04-10: `Stock tumbles` (Source: Barron's)"): a
    field with no label, what a fix removes running to the text."""
    length = opening_date(text[content.start : content.end])
    parted = _AFTER_DATE.match(text, content.start + length, content.end) if length else None
    if parted is None:
        return None
    value = Span(content.start, content.start + length)
    return Field("", text[value.start : value.end], Span(content.start, parted.end()), value, FieldForm.INLINE)


def _group_field(text: str, line: Line, item: re.Match[str], vocab: Vocab) -> Field | None:
    """The group ending a list item as one field, named by its label or by its first slot the lexicon knows;
    None when nothing in it is metadata. A range ("({valid_at} - {invalid_at})") is one field."""
    start, end = line.start + item.start("group"), line.start + item.end("group")
    inner = Span(start + 1, end - 1)
    whole = with_space(text, 0, start, end)
    labelled = INLINE_ITEM.match(line.lower[: inner.end - line.start], inner.start - line.start)
    if labelled and vocab.is_field(label := normalise_label(labelled["label"])):
        value = Span(line.start + labelled.start("value"), line.start + labelled.end("value"))
        return Field(label, text[value.start : value.end], whole, value, FieldForm.INLINE)
    slots = list(_GROUP_SLOT.finditer(text, inner.start, inner.end))
    for slot in slots:
        reference = slot_reference(slot[0])
        if reference and vocab.is_field(reference.key):
            # The value is what the slots print, words around them aside ("(relevance {h.relevance})").
            value = Span(slots[0].start(), slots[-1].end())
            return Field(reference.key, text[value.start : value.end], whole, value, FieldForm.INLINE)
    return None
