"""Turn the text of an assembled prompt into the prompt model.

The segmenter finds the parts every rule reasons about: chat turns, the sources
(each with its header, metadata fields and content), the question, and which
stretches are static instructions or per-request data. It reads the text once
per concern and looks closely only at wrappers (header lines, metadata lines,
tags), never scanning chunk content word by word.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from . import vocabulary
from .jsonsources import json_sources
from .model import Field, Message, Part, PartKind, Prompt, Source, Span
from .vocabulary import normalise_label

# A source whose text is only this is a written-out "and so on", not a source.
_ELISIONS = ("...", "\u2026", "[...]")
# A header "title" this long is the chunk's text on the header line.
PASSAGE_WORDS = 16
# "[[ ## question ## ]]" (DSPy) and "## Question" / "Question:" on a line of their own.
_SECTION_LABEL = re.compile(r"\s*(?:\[\[ ## (?P<dspy>[\w ]+?) ## \]\]|#{1,6}\s*(?P<md>[\w' ]+?)|(?P<plain>[a-z][\w' ]{0,25}?)\s*:)\s*$")


@dataclass(frozen=True)
class Vocab:
    question_labels: frozenset[str]
    content_labels: frozenset[str]
    title_labels: frozenset[str]
    heading_labels: frozenset[str]
    warning_labels: frozenset[str]
    field_labels: frozenset[str]  # every label worth reading as metadata
    history_labels: frozenset[str]
    context_labels: frozenset[str]
    slot_kinds: dict[str, str]  # template variable name -> "question", "rewritten", "context", "history", "volatile"
    volatile_prefixes: tuple[str, ...]
    source_header: re.Pattern[str]
    role_marker: re.Pattern[str]
    source_tag: re.Pattern[str]
    container_tags: frozenset[str]
    content_tags: frozenset[str]
    instruction_opener: re.Pattern[str]
    volatile: re.Pattern[str]


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# Template variables the user names in config, as (name, kind) pairs: what the
# names alone cannot tell ("hits" holds the sources, "user_query" the question).
SlotNames = tuple[tuple[str, str], ...]


@cache
def words(names: SlotNames = ()) -> Vocab:
    """The segmenter's vocabulary, with the variables ``names`` adds."""
    base = _vocabulary()
    if not names:
        return base
    # Only the kinds a slot can have; a "content" name is a field of a source, read by the Jinja front-end.
    added = {normalise_label(name): kind for name, kind in names if kind in ("question", "context")}
    return dataclasses.replace(base, slot_kinds={**base.slot_kinds, **added})


@cache
def _vocabulary() -> Vocab:
    seg = vocabulary.load("segment")
    rule_labels: set[str] = set()
    for name in ("retrieval-score", "unconditional-date", "source-system-name", "chunk-ordinal", "derived-text"):
        rule_labels |= vocabulary.label_set(vocabulary.load(name)["labels"])
    labelled = {
        key: vocabulary.label_set(seg[key])
        for key in ("question-labels", "content-labels", "title-labels", "heading-labels", "warning-labels", "history-labels", "context-labels")
    }
    words = _alternation(seg["source-words"])
    # Headers are matched on the lower-cased line. The number after the word must
    # be followed by punctuation or the end of the line, so that a sentence such
    # as "Source 1 says ..." inside a chunk is not taken for a header.
    # A citation key: a number, or in a template the slot that numbers the sources.
    key = r"\d+|\$?\{\{?[^{}\n]{1,40}\}\}?"
    source_header = re.compile(
        r"(?:[-=*#]{2,}\s*|#{1,6}\s+)?"
        r"(?:"
        r"\[#?(?P<key1>" + key + r")\](?P<rest1>.*)"
        r"|\[(?:" + words + r")\s*#?(?P<key2>" + key + r")\]\s*:?(?P<rest2>.*)"
        r"|\[(?:" + words + r")(?: from \w+)?\]\s*:?(?P<rest5>.*)"
        r"|(?:" + words + r")\s*\[?#?(?P<key3>" + key + r")\]?(?:\s+of\s+\d+)?"
        r"(?P<rest3>\s*(?::::|[:.\u2014\u2013|]|-(?=\s)|\)).*|\s*[(\[].*|\s*[-=*]{2,}\s*|\s*)"
        r"|\((?P<key4>\d+)\)\s+(?P<rest4>.*)"
        r")$"
    )
    roles = _alternation(seg["role-markers"])
    role_marker = re.compile(r"\s*(?:\[(?:" + roles + r")\]|(?:" + roles + r") message:|(?:" + roles + r"):(?=\s*$))\s*$")
    tag_names = _alternation(seg["source-tags"])
    volatile = vocabulary.patterns(vocabulary.load("cache-boundary")["volatile"])
    return Vocab(
        question_labels=labelled["question-labels"],
        content_labels=labelled["content-labels"],
        title_labels=labelled["title-labels"],
        heading_labels=labelled["heading-labels"],
        warning_labels=labelled["warning-labels"],
        field_labels=frozenset(rule_labels | labelled["title-labels"] | labelled["heading-labels"] | labelled["warning-labels"]),
        history_labels=labelled["history-labels"],
        context_labels=labelled["context-labels"],
        slot_kinds={
            normalise_label(word): kind
            for kind in ("question", "rewritten", "context", "history", "volatile")
            for word in seg[f"{kind}-vars"]
        },
        volatile_prefixes=tuple(normalise_label(w) + " " for w in seg["volatile-prefixes"]),
        source_header=source_header,
        role_marker=role_marker,
        source_tag=re.compile(r"<(" + tag_names + r")(\s[^<>]*)?>"),
        container_tags=frozenset(seg["container-tags"]),
        content_tags=frozenset(seg["content-tags"]),
        instruction_opener=re.compile(r"\s*(?:" + _alternation(seg["instruction-openers"]) + r")\b"),
        volatile=volatile,
    )


class _SpanSet:
    """The union of some spans, with a logarithmic "is this offset inside?"."""

    def __init__(self, spans: list[Span]):
        self.spans: list[Span] = []
        for span in sorted(spans):
            if self.spans and span.start < self.spans[-1].end:
                self.spans[-1] = Span(self.spans[-1].start, max(self.spans[-1].end, span.end))
            else:
                self.spans.append(span)
        self.starts = [s.start for s in self.spans]

    def __contains__(self, offset: int) -> bool:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i >= 0 and offset < self.spans[i].end

    def end_at(self, offset: int) -> int:
        """The end of the span that holds ``offset`` (which must be inside one)."""
        return self.spans[bisect.bisect_right(self.starts, offset) - 1].end

    def covers(self, span: Span) -> bool:
        i = bisect.bisect_right(self.starts, span.start) - 1
        return i >= 0 and self.spans[i].contains(span)


# A template slot in text: {name}, {name:.2f}, {doc['x']}, {{ name }}, Dify's {{#name#}},
# Semantic Kernel's {{$name}}, string.Template's $name and Bedrock's $name$.
_SLOT = re.compile(
    r"(?:(?P<brace>\{\{?[#\s]*\$?)|(?<![\w$])\$)(?P<name>[a-z_][\w]*(?:\.[\w]+)*)"
    r"(?(brace)(?:[^{}\n]{0,80}?)[#\s]*\}\}?|\$?)"
)


def _may_hold_slot(text: str) -> bool:
    """The cheap test before looking for slots."""
    return "{" in text or "$" in text


def slot_kind(name: str, vocab: Vocab) -> str | None:
    """What a template variable holds, judged by its name; None when the name says nothing."""
    label = normalise_label(name.rsplit(".", 1)[-1])
    kind = vocab.slot_kinds.get(label)
    if kind is None and (label + " ").startswith(vocab.volatile_prefixes):
        kind = "volatile"
    return kind


def _slots(lower: str, start: int, end: int, vocab: Vocab) -> list[tuple[Span, str]]:
    """The slots between two offsets whose names say what they hold, with that kind."""
    found = []
    for match in _SLOT.finditer(lower, start, end):
        kind = slot_kind(match["name"], vocab)
        if kind is not None:
            found.append((Span(match.start(), match.end()), kind))
    return found


class Line(NamedTuple):
    # A named tuple, not a dataclass: a prompt has thousands of lines, and a frozen
    # dataclass is several times slower to build.
    start: int
    end: int  # without the newline
    text: str  # without the newline, as in the prompt
    lower: str

    @property
    def blank(self) -> bool:
        return not self.text.strip()


def text_lines(text: str, lower: str, start: int = 0, end: int | None = None) -> list[Line]:
    end = len(text) if end is None else end
    lines = []
    while start < end:
        stop = text.find("\n", start, end)
        stop = end if stop < 0 else stop
        lines.append(Line(start, stop, text[start:stop], lower[start:stop]))
        start = stop + 1
    return lines


# "Label: value" at the start of a metadata line.
_LABEL_LINE = re.compile(r"\s*(?:[-*•]\s+)?(?P<label>[a-z@][\w .@;/-]{0,40}?)\s*[:=]\s*(?P<value>.*)$")
# "label: value", "label=value" or "label value" inside a header group.
_INLINE_ITEM = re.compile(r"\s*(?P<label>[a-z@][a-z _.@;-]{0,30}?)\s*(?:[:=]\s*|\s+(?=[\d(]))(?P<value>\S.*?)\s*$")
# A line holding only a tag that groups metadata ("<document_metadata>") or ends a source ("[END CONTEXT 1]").
_LONE_TAG = re.compile(r"\s*(?:</?[a-z_][\w-]*>|\[end [^\]]*\])\s*$")
# "{context} := ...": a written-out prompt shape saying what a slot expands to.
_DEFINITION = re.compile(r"\s*\{\{?\s*[a-z_][\w.]*\s*\}\}?\s*:?=")
# A slot alone on a line that prints what names the source ({chunk_heading}, {doc_title}).
_NAMING_SLOTS = ("title", "heading", "name", "section")
_LONE_SLOT = re.compile(r"\s*\{\{?\s*(?P<name>[a-z_][\w.]*)\s*\}\}?\s*$")
_SLOT_LABEL_LINE = re.compile(r"\s*\{\{?\s*[a-z_][\w.]*\s*\}\}?\s*:")
_QUESTION_LINE = re.compile(r"\s*(?:#{1,6}\s*)?(?P<label>[a-z][\w' ]{0,20}?)\s*:\s*(?P<value>.*)$")
_SEPARATOR = re.compile(r"\s*(?:[-=*_]{3,}|```\w*)\s*$")
_WARNING_MARK = re.compile("\u26a0\ufe0f?")
_HEADING_SPLIT = re.compile(r"\s+[\u2014\u2013]\s+")


def lowercase(text: str) -> str:
    """``text`` in lower case, so that an offset in one is the same place in the other.

    str.lower keeps the length of every character but "\u0130" (capital I with a dot),
    which becomes "i" and a combining dot; here it becomes a plain "i".
    """
    return text.replace("\u0130", "i").lower()


def segment_text(text: str, messages: list[Message] | None = None, names: SlotNames = (), known: list[Source] = ()) -> Prompt:
    """Build the prompt model of ``text``.

    ``messages`` comes from a chat front-end (JSON): the regions of the text that
    are separate messages. Plain text gets its turns from role-marker lines.
    ``names`` are the template variables the config names. ``known`` are the sources
    a reader already knows (a request body's document blocks); more are looked for
    only outside them.
    """
    lower = lowercase(text)
    vocab = words(names)
    lines = text_lines(text, lower)
    if messages is None:
        messages = role_messages(text, lines, vocab)
    sources = list(known) + [s for s in _xml_sources(text, lower, vocab) if not any(s.span.overlaps(k.span) for k in known)]
    sources = _by_position(sources + _text_sources(text, lines, vocab, messages, _SpanSet([s.span for s in sources])))
    json_block = None
    if not sources:
        sources, json_block = json_sources(text, vocab.content_labels, vocab.title_labels, vocab.heading_labels)
    if not sources:
        sources = _section_sources(text, lines, vocab) or _separated_sources(text, lines, vocab, messages)
    if _may_hold_slot(text):
        sources = [dataclasses.replace(s, repeated=bool(_SLOT.search(lower, s.span.start, s.span.end))) for s in sources]
    block = json_block or (_widen_to_container(lower, Span(sources[0].span.start, sources[-1].span.end), vocab) if sources else None)
    questions, rewritten = _questions(text, lower, lines, vocab, sources, messages)
    parts = _parts(text, lower, lines, vocab, sources, block, questions + rewritten, messages)
    return Prompt(
        text=text,
        lower=lower,
        sources=sources,
        parts=parts,
        questions=questions,
        messages=messages,
        sources_block=block,
        rewritten_questions=rewritten,
        # Edits inside JSON would have to mend its commas: its sources are reported, not fixed.
        locked=[json_block] if json_block else [],
    )


# ---------------------------------------------------------------- messages


def role_messages(text: str, lines: list[Line], vocab: Vocab) -> list[Message]:
    markers = [line for line in lines if vocab.role_marker.match(line.lower)]
    messages = []
    for i, marker in enumerate(markers):
        end = markers[i + 1].start if i + 1 < len(markers) else len(text)
        role = re.sub(r"[\[\]:]|message", "", marker.lower).strip()
        role = {"human": "user", "ai": "assistant"}.get(role, role)
        messages.append(Message(role=role, span=Span(marker.start, end), name=f"{role} turn at offset {marker.start}"))
    return messages


# ---------------------------------------------------------------- text sources


def _by_position(sources: list[Source]) -> list[Source]:
    ordered = sorted(sources, key=lambda s: s.span.start)
    return [dataclasses.replace(s, position=i) for i, s in enumerate(ordered)]


def _text_sources(text: str, lines: list[Line], vocab: Vocab, messages: list[Message], taken: _SpanSet) -> list[Source]:
    """Sources written as text: a header line ("[1] Title", "Document 2:") and the lines under it."""
    headers = []
    for index, line in enumerate(lines):
        if line.start in taken:
            continue
        match = vocab.source_header.match(line.lower.strip())
        if match:
            headers.append((index, match))
    sources = []
    for n, (index, match) in enumerate(headers):
        last = n + 1 == len(headers)
        stop = headers[n + 1][0] if not last else len(lines)
        body = [line for line in lines[index + 1 : stop] if line.start not in taken]
        if last:
            body = _cut_last_source(body, vocab, messages, lines[index].start)
        source = _text_source(text, n, lines[index], match, body, vocab)
        if text[source.content.start : source.content.end].strip() not in _ELISIONS or source.fields:
            sources.append(source)
    return sources


_SECTION_OPEN = re.compile(r"\s*\{\{#(?:each\s+)?(?P<name>[\w.]+)[^{}]*\}\}\s*$")
_SECTION_CLOSE = re.compile(r"\s*\{\{/[\w.]+\}\}\s*$")


def _section_sources(text: str, lines: list[Line], vocab: Vocab) -> list[Source]:
    """A Mustache/Handlebars section ({{#each results}} ... {{/each}}) that renders each source."""
    for index, line in enumerate(lines):
        opened = _SECTION_OPEN.match(line.lower)
        if not opened:
            continue
        close = next((j for j in range(index + 1, len(lines)) if _SECTION_CLOSE.match(lines[j].lower)), None)
        if close is None or any(_SECTION_OPEN.match(ln.lower) for ln in lines[index + 1 : close]):
            continue  # the innermost section is the one that renders a source
        body = _read_body(text, lines[index + 1 : close], vocab, default_start=line.end)
        if body.content.end > body.content.start and any(_SLOT.search(ln.lower) for ln in lines[index + 1 : close]):
            title = _first_value(body.fields, vocab.title_labels)
            return [Source(0, Span(line.start, lines[close].end), Span(line.start, line.end), body.content, title=title, fields=body.fields, repeated=True)]
    return []


def _separated_sources(text: str, lines: list[Line], vocab: Vocab, messages: list[Message]) -> list[Source]:
    """Sources with no headers, only "---" lines between them, under a "Context:" label."""
    for index, line in enumerate(lines):
        section = _SECTION_LABEL.match(line.lower)
        if not section or normalise_label(section["dspy"] or section["md"] or section["plain"]) not in vocab.context_labels:
            continue
        block = _cut_last_source(lines[index + 1 :], vocab, messages, line.start)
        chunks: list[list[Line]] = [[]]
        for body_line in block:
            if _SEPARATOR.match(body_line.text):
                chunks.append([])
            else:
                chunks[-1].append(body_line)
        chunks = [c for c in (_strip_blank_edges(c) for c in chunks) if c]
        if len(chunks) < 2:
            continue
        return [
            Source(n, Span(c[0].start, c[-1].end), Span(c[0].start, c[0].start), Span(c[0].start, c[-1].end))
            for n, c in enumerate(chunks)
        ]
    return []


def _cut_last_source(body: list[Line], vocab: Vocab, messages: list[Message], start: int) -> list[Line]:
    """Where the last source ends: at the next part of the prompt, not at the end of the text."""
    message_end = next((m.span.end for m in messages if m.span.start <= start < m.span.end), None)
    seen_content = False
    for i, line in enumerate(body):
        if message_end is not None and line.start >= message_end:
            return body[:i]
        stripped = line.lower.strip()
        if not stripped:
            nxt = body[i + 1] if i + 1 < len(body) else None
            if seen_content and nxt is not None and (
                vocab.instruction_opener.match(nxt.lower) or _is_boundary(nxt, vocab)
            ):
                return body[:i]
            continue
        if seen_content and _is_boundary(line, vocab):
            return body[:i]
        seen_content = True
    return body


def _is_boundary(line: Line, vocab: Vocab) -> bool:
    stripped = line.lower.strip()
    if vocab.role_marker.match(line.lower) or stripped.startswith(("</", "#", "[[ ##", "[end ")):
        return True
    label = _QUESTION_LINE.match(line.lower)
    return bool(label) and normalise_label(label["label"]) in vocab.question_labels | vocab.history_labels


def _text_source(text: str, position: int, header: Line, match: re.Match[str], body: list[Line], vocab: Vocab) -> Source:
    key_group = next((g for g in ("key1", "key2", "key3", "key4") if match[g] is not None), None)
    rest_group = next(g for g in ("rest1", "rest2", "rest3", "rest4", "rest5") if match[g] is not None)
    offset = header.start + (len(header.lower) - len(header.lower.lstrip()))
    key = match[key_group] if key_group else None
    key_span = Span(offset + match.start(key_group), offset + match.end(key_group)) if key_group else None
    rest = Span(offset + match.start(rest_group), offset + match.end(rest_group))
    if _is_passage(text[rest.start : rest.end]):
        # "[1] «chunk text»": the header line carries the chunk itself, and has no title.
        lines = _strip_blank_edges(body)
        end = max(rest.end, lines[-1].end if lines else rest.end)
        return Source(position, Span(header.start, end), Span(header.start, rest.start), _trim(text, Span(rest.start, end)), key, key_span)
    title, heading, fields = _parse_header(text, rest, vocab)
    body_read = _read_body(text, body, vocab, default_start=header.end)
    fields += body_read.fields
    wrapper_lines = body_read.wrapper_lines
    content_start, content_end = body_read.content.start, body_read.content.end
    title = title or _first_value(fields, vocab.title_labels) or _first_value(fields, frozenset({"source"}))
    if not heading and (path := _first_value(fields, vocab.heading_labels)):
        heading = tuple(p.strip() for p in path.split(">") if p.strip())
    end = max([content_end, header.end] + [f.span.end for f in fields] + [w.end for w in wrapper_lines])
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


@dataclass(frozen=True)
class _Body:
    fields: list[Field]
    wrapper_lines: list[Span]
    content: Span


def _read_body(text: str, body: list[Line], vocab: Vocab, default_start: int) -> _Body:
    """Split the lines under a header into metadata lines, wrapper lines and the content.

    Metadata and wrapper lines come first; the content starts at the first line
    that is neither, or after an explicit "Content:" (or bare "Text") label.
    """
    fields: list[Field] = []
    wrapper_lines: list[Span] = []
    content_start = None
    inline_content_end = None  # "Content: text" on the label's own line
    labelled_content = False
    i = 0
    while i < len(body):
        line = body[i]
        if line.blank or _SEPARATOR.match(line.text) or _LONE_TAG.match(line.lower):
            i += 1
            continue
        labelled = _LABEL_LINE.match(line.lower)
        # The label as written, so that "sourceDocument" reads as "source document".
        label = normalise_label(line.text[labelled.start("label") : labelled.end("label")]) if labelled else ""
        if not labelled and normalise_label(line.lower.strip()) in vocab.content_labels:
            labelled_content = True  # "Text" alone on its line
            i += 1
            break
        if labelled and label in vocab.content_labels:
            value_start = line.start + labelled.start("value")
            content_start = value_start if labelled["value"].strip() else None
            inline_content_end = line.end if content_start is not None else None
            labelled_content = True
            i += 1
            break
        slot = _LONE_SLOT.match(line.lower)
        if slot and normalise_label(slot["name"]).endswith(_NAMING_SLOTS):
            # "{chunk_heading}" alone on a line: the slot names what it prints.
            fields.append(Field(normalise_label(slot["name"]), line.text.strip(), _line_span(text, line), Span(line.start, line.end), "line"))
            i += 1
            continue
        if not labelled and _SLOT_LABEL_LINE.match(line.lower):
            # "{key}: {value}": a template line that prints any metadata field.
            fields.append(Field("metadata", line.text.strip(), _line_span(text, line), Span(line.start, line.end), "line"))
            i += 1
            continue
        if labelled and (label in vocab.field_labels or "_" in labelled["label"].strip()):
            fields.append(_line_field(text, line, labelled, label))
            i += 1
            continue
        if looks_like_instruction(line):
            wrapper_lines.append(_line_span(text, line))
            i += 1
            continue
        break
    if inline_content_end is not None and _LONE_SLOT.match(lowercase(text[content_start:inline_content_end])):
        # "Snippet: {{Snippet}}" in a source template: the labelled lines after it are fields too.
        while i < len(body) and (labelled := _LABEL_LINE.match(body[i].lower)):
            label = normalise_label(body[i].text[labelled.start("label") : labelled.end("label")])
            if label not in vocab.field_labels:
                break
            fields.append(_line_field(text, body[i], labelled, label))
            i += 1
    rest_lines = body[i:]
    content_lines, trailing = _split_trailing_fields(rest_lines, vocab) if labelled_content else (rest_lines, [])
    for line, labelled in trailing:
        label = normalise_label(labelled["label"])
        fields.append(_line_field(text, line, labelled, label))
    content_lines = _strip_blank_edges(content_lines)
    if content_start is None:
        content_start = content_lines[0].start if content_lines else (body[i - 1].end if i and body else default_start)
    content_end = content_lines[-1].end if content_lines else (inline_content_end or content_start)
    return _Body(fields, wrapper_lines, Span(content_start, max(content_end, content_start)))


def _line_field(text: str, line: Line, labelled: re.Match[str], label: str) -> Field:
    """A "Label: value" line as a field; removing it removes the line."""
    value_start = line.start + labelled.start("value")
    return Field(label, text[value_start : line.end].strip(), _line_span(text, line), Span(value_start, line.end), "line")


def _is_passage(rest: str) -> bool:
    """A header line that carries the chunk itself rather than a title."""
    rest = rest.strip()
    if rest.startswith(("«", '"', "“")):
        return True
    # A long run of prose with no metadata groups, ending like a sentence.
    return len(rest.split()) >= PASSAGE_WORDS and not re.search(r"[(\[|\u2014]", rest) and rest.endswith((".", "!", "?", "…"))


def _first_value(fields: list[Field], labels: frozenset[str]) -> str | None:
    return next((f.value for f in fields if f.label in labels and f.value), None)


def _split_trailing_fields(lines: list[Line], vocab: Vocab) -> tuple[list[Line], list[tuple[Line, re.Match[str]]]]:
    """Derived fields rendered after the chunk text ("\\n\\nSummary: ...") belong to the wrapper.

    Called only when the text was introduced by a label ("Text:", "Content:"),
    and only a labelled line after a blank line at the end of the source counts:
    otherwise a "Summary:" paragraph is the document's own text.
    """
    derived = vocabulary.label_set(vocabulary.load("derived-text")["labels"])
    trailing: list[tuple[Line, re.Match[str]]] = []
    end = len(lines)
    while end > 0 and lines[end - 1].blank:
        end -= 1
    i = end - 1
    while i > 0:
        line = lines[i]
        labelled = _LABEL_LINE.match(line.lower)
        if labelled and normalise_label(labelled["label"]) in derived and lines[i - 1].blank:
            trailing.insert(0, (line, labelled))
            end = i
            i -= 1
            continue
        if labelled and normalise_label(labelled["label"]) in derived:
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
    while end + 1 < len(lines) and not lines[end + 1].blank and not _LABEL_LINE.match(lines[end + 1].lower):
        end += 1
    if end == index:
        return line, match
    last = lines[end]
    joined_text = line.text + "\n" + "\n".join(l.text for l in lines[index + 1 : end + 1])
    merged = Line(line.start, last.end, joined_text, lowercase(joined_text))
    return merged, _LABEL_LINE.match(merged.lower.replace("\n", " "))


def _edge(line: Line) -> bool:
    return line.blank or bool(_SEPARATOR.match(line.text) or _LONE_TAG.match(line.lower))


def _strip_blank_edges(lines: list[Line]) -> list[Line]:
    start, end = 0, len(lines)
    while start < end and _edge(lines[start]):
        start += 1
    while end > start and _edge(lines[end - 1]):
        end -= 1
    return lines[start:end]


def _line_span(text: str, line: Line) -> Span:
    """A whole line with its newline, which is what removing a line removes."""
    end = line.end + 1 if line.end < len(text) and text[line.end] == "\n" else line.end
    return Span(line.start, end)


@cache
def _instruction_pattern() -> re.Pattern[str]:
    return vocabulary.patterns(vocabulary.load("per-source-instruction")["phrases"])


def looks_like_instruction(line: Line) -> bool:
    """A line of its own that talks to the model ("NOTE: prefer this source"), not chunk text that happens to."""
    stripped = line.lower.lstrip(" \t*_-")
    if stripped.startswith(("note:", "nb:", "important:", "instruction:", "guidance:")):
        return True
    return _instruction_pattern().match(stripped) is not None


# ---------------------------------------------------------------- headers


def _parse_header(text: str, rest: Span, vocab: Vocab) -> tuple[str | None, tuple[str, ...], list[Field]]:
    """Split "Title — A > B (score: 0.61) ⚠️ OCR confidence 0.86" into title, heading path and fields."""
    fields: list[Field] = []
    raw = text[rest.start : rest.end]
    lowered = lowercase(raw)
    end = len(raw)
    warning = _WARNING_MARK.search(raw)
    if warning:
        value_start = warning.end() + (len(raw[warning.end() :]) - len(raw[warning.end() :].lstrip()))
        fields.append(
            Field("parse warning", raw[value_start:].strip(), _with_space(raw, rest.start, warning.start(), end), Span(rest.start + value_start, rest.end), "inline")
        )
        end = warning.start()
    # Parenthesised and bracketed groups hold metadata; "|" separates items.
    title_end = end
    for group in re.finditer(r"\(([^()]*)\)|\[([^\[\]]*)\]", lowered[:end]):
        inner_start = group.start() + 1
        inner = lowered[inner_start : group.end() - 1]
        items = list(_split_items(inner, inner_start))
        group_fields = [_inline_field(raw, rest.start, s, e) for s, e in items]
        if len(group_fields) == 1:
            f = group_fields[0]
            fields.append(Field(f.label, f.value, _with_space(raw, rest.start, group.start(), group.end()), f.value_span, "inline"))
        else:
            fields.extend(group_fields)
        title_end = min(title_end, group.start())
    pieces = [(s, e) for s, e in _split_items(lowered[:title_end], 0, separators="|")]
    if len(pieces) > 1:
        fields.extend(_inline_field(raw, rest.start, s, e, separator="|") for s, e in pieces[1:])
        title_end = pieces[0][1]
    title_text = raw[:title_end].strip(" \t:.-|\u2014\u2013")
    title_text = re.sub(r"^[-=*]{2,}|[-=*]{2,}$", "", title_text).strip()
    items = _split_items(lowered[:title_end], 0)
    labelled = _LABEL_LINE.match(lowercase(title_text))
    if len(items) > 1 and labelled and normalise_label(labelled["label"]) in vocab.field_labels:
        # "[1] source_id=RAGAS2023, chunk_id=17": every item is a field, one may be the title.
        item_fields = [_inline_field(raw, rest.start, s, e) for s, e in items]
        fields.extend(item_fields)
        title_text = next((f.value for f in item_fields if f.label in vocab.title_labels), "")
    elif labelled and normalise_label(labelled["label"]) in vocab.title_labels:
        title_text = title_text[labelled.start("value") :].strip()
    heading: tuple[str, ...] = ()
    parts = _HEADING_SPLIT.split(title_text, maxsplit=1)
    if len(parts) == 2:
        title_text = parts[0].strip()
        heading = tuple(p.strip() for p in parts[1].split(">") if p.strip())
    return (title_text or None), heading, fields


# After a comma, what starts a new item: "label: value", "label=value" or "label 3".
_ITEM_START = re.compile(r"\s*[a-z@][\w .@-]{0,30}?(?:\s*[:=]|\s+\d)")


def _split_items(inner: str, base: int, separators: str = ",;|") -> list[tuple[int, int]]:
    """Split a header group into items; a comma inside a value ("March 3, 2019") does not split."""
    items, start = [], 0
    for i, ch in enumerate(inner):
        if ch in separators and (ch == "|" or _ITEM_START.match(inner, i + 1)):
            items.append((base + start, base + i))
            start = i + 1
    items.append((base + start, base + len(inner)))
    return [(s, e) for s, e in items if inner[s - base : e - base].strip()]


def _inline_field(raw: str, offset: int, start: int, end: int, separator: str = ",;") -> Field:
    item = raw[start:end]
    match = _INLINE_ITEM.match(lowercase(item))
    if match:
        label = normalise_label(match["label"])
        value_start = start + match.start("value")
        value = raw[value_start : start + match.end("value")]
    else:
        # An unlabelled item ("(2025-08-02)", "[Confluence]"): the rules judge it by its value.
        label = ""
        value_start = start + len(item) - len(item.lstrip())
        value = item.strip()
    # The span a fix removes: the item and the separator before it (or after it, for the first item).
    span_start, span_end = start, end
    # Where the text before the item ends, found without copying it: a header line can be megabytes long.
    before = start
    while before > 0 and raw[before - 1].isspace():
        before -= 1
    if before > 0 and raw[before - 1] in separator:
        span_start = before - 1
    elif raw[end : end + 1] and raw[end] in separator:
        span_end = end + 1
        while span_end < len(raw) and raw[span_end] == " ":
            span_end += 1
    return Field(label, value.strip(), Span(offset + span_start, offset + span_end), Span(offset + value_start, offset + value_start + len(value.rstrip())), "inline")


def _with_space(raw: str, offset: int, start: int, end: int) -> Span:
    """A header group and the one space before it, so that removing it leaves no double space."""
    if start > 0 and raw[start - 1] == " ":
        start -= 1
    return Span(offset + start, offset + end)


# ---------------------------------------------------------------- XML sources


def _xml_sources(text: str, lower: str, vocab: Vocab) -> list[Source]:
    """Sources wrapped in elements: <document index="1">...</document>, <item>, <search_result>, ..."""
    if "<" not in text:
        return []
    sources: list[Source] = []
    # Tags with no closing tag after the current position, which only moves on: without
    # this, each of n unclosed tags would search the rest of the text (n squared).
    unclosed: set[str] = set()
    pos = 0
    while True:
        match = vocab.source_tag.search(lower, pos)
        if not match:
            break
        tag = match[1]
        close = -1 if tag in unclosed else lower.find(f"</{tag}>", match.end())
        if close < 0:
            unclosed.add(tag)
            pos = match.end()
            continue
        sources.append(_xml_source(text, lower, len(sources), match, close, vocab))
        pos = close + len(tag) + 3
    return sources


_ATTRIBUTE = re.compile(r"([\w:.-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_CHILD_OPEN = re.compile(r"<([a-z_][\w.-]*)(?:\s[^<>]*)?>")


def _xml_source(text: str, lower: str, position: int, match: re.Match[str], close: int, vocab: Vocab) -> Source:
    tag = match[1]
    end = close + len(tag) + 3
    fields: list[Field] = []
    key = key_span = None
    for attr in _ATTRIBUTE.finditer(lower, match.start(), match.end()):
        label = normalise_label(attr[1])
        group = 2 if attr[2] is not None else 3
        value_span = Span(attr.start(group), attr.end(group))
        if label in ("index", "id", "n", "number", "key") and key is None:
            key, key_span = text[value_span.start : value_span.end], value_span
            continue
        start = attr.start() - 1 if text[attr.start() - 1] == " " else attr.start()
        fields.append(Field(label, text[value_span.start : value_span.end], Span(start, attr.end()), value_span, "inline"))
    inner_start, inner_end = match.end(), close
    content: Span | None = None
    title = None
    heading: tuple[str, ...] = ()
    child_spans: list[Span] = []
    unclosed: set[str] = set()  # as in _xml_sources
    pos = inner_start
    while True:
        child = _CHILD_OPEN.search(lower, pos, inner_end)
        if not child:
            break
        name = child[1]
        child_close = -1 if name in unclosed else lower.find(f"</{name}>", child.end(), inner_end)
        if child_close < 0:
            unclosed.add(name)
            pos = child.end()
            continue
        value_span = Span(child.end(), child_close)
        value = text[value_span.start : value_span.end].strip()
        child_end = child_close + len(name) + 3
        if name in vocab.content_tags and content is None:
            content = value_span
        else:
            label = normalise_label(name)
            span = _tag_line_span(text, Span(child.start(), child_end))
            fields.append(Field(label, value, span, value_span, "tag"))
            child_spans.append(span)
            if label in vocab.title_labels | {"source"} and title is None:
                title = value
            elif label in vocab.heading_labels and not heading:
                heading = tuple(p.strip() for p in value.split(">") if p.strip())
        pos = child_end
    if content is None:
        # No content element: the text between the children reads like a text source's body.
        covered = _SpanSet(child_spans)
        inner_lines = text_lines(text, lower, inner_start, inner_end)
        body = _read_body(text, [ln for ln in inner_lines if ln.start not in covered], vocab, default_start=inner_start)
        fields += body.fields
        content = body.content
        # The body leaves out the children's lines, but the content runs from its first line
        # to its last. Over a child read as a field (a tag left unclosed above the child makes
        # the content start there), a fix that removes the field would edit the content.
        crossed = [ln.end for ln in inner_lines if ln.start in covered and content.start < ln.start < content.end]
        if crossed:
            content = Span(max(crossed), content.end)
    content = _trim(text, content)
    for name in ("title", "name", "source", "filename", "file"):
        f = next((f for f in fields if f.label == name and f.form == "inline"), None)
        if f and title is None:
            title = f.value
    return Source(
        position=position,
        span=Span(match.start(), end),
        header=Span(match.start(), match.end()),
        content=content,
        key=key,
        key_span=key_span,
        title=title,
        heading_path=heading,
        fields=fields,
        style="xml",
    )


def _trim(text: str, span: Span) -> Span:
    start, end = span.start, span.end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end)


def _tag_line_span(text: str, span: Span) -> Span:
    """A child element alone on its line is removed with its line."""
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.end)
    line_end = len(text) if line_end < 0 else line_end
    if not text[line_start : span.start].strip() and not text[span.end : line_end].strip():
        return Span(line_start, min(line_end + 1, len(text)))
    return span


def _widen_to_container(lower: str, block: Span, vocab: Vocab) -> Span:
    before = lower[: block.start].rstrip()
    opened = re.search(r"<([a-z_]+)(?:\s[^<>]*)?>$", before)
    if not opened or opened[1] not in vocab.container_tags:
        return block
    closing = f"</{opened[1]}>"
    after = lower[block.end :]
    if after.lstrip().startswith(closing):
        end = block.end + (len(after) - len(after.lstrip())) + len(closing)
        return Span(opened.start(), end)
    return block


# ---------------------------------------------------------------- the question


def _questions(text: str, lower: str, lines: list[Line], vocab: Vocab, sources: list[Source], messages: list[Message]) -> tuple[list[Span], list[Span]]:
    """Every place the question is asked outside the sources, and every slot for a rewritten form of it."""
    inside = _SpanSet([s.span for s in sources])
    found: list[Span] = []
    for index, line in enumerate(lines):
        if line.start in inside:
            continue
        match = _QUESTION_LINE.match(line.lower)
        if match and normalise_label(match["label"]) in vocab.question_labels and match["value"].strip():
            start = line.start + match.start("value")
            found.append(_trim(text, Span(start, line.end)))
            continue
        section = _SECTION_LABEL.match(line.lower)
        if section and normalise_label(section["dspy"] or section["md"] or section["plain"]) in vocab.question_labels:
            nxt = next((ln for ln in lines[index + 1 :] if not ln.blank), None)
            if nxt is not None and not _SECTION_LABEL.match(nxt.lower) and nxt.start not in inside:
                found.append(_trim(text, Span(nxt.start, nxt.end)))
    for tag in ("question", "query", "user_query", "user_question"):
        pos = 0
        while (open_at := lower.find(f"<{tag}>", pos)) >= 0:
            close = lower.find(f"</{tag}>", open_at)
            if close < 0:
                break
            span = _trim(text, Span(open_at + len(tag) + 2, close))
            if span.end > span.start and not inside.covers(span):
                found.append(span)
            pos = close
    rewritten: list[Span] = []
    if _may_hold_slot(text):
        for span, kind in _slots(lower, 0, len(text), vocab):
            if span.start in inside:
                continue
            if kind == "question":
                found.append(span)
            elif kind == "rewritten":
                rewritten.append(span)
    if not found:
        last_user = next((m for m in reversed(messages) if m.role == "user"), None)
        if last_user is not None:
            tail = Span(max([last_user.span.start] + [s.span.end for s in sources if last_user.span.contains(s.span)]), last_user.span.end)
            body = [ln for ln in text_lines(text, lower, tail.start, tail.end) if not ln.blank and not vocab.role_marker.match(ln.lower)]
            if body and body[-1].text.rstrip().endswith("?"):
                found.append(_trim(text, Span(body[-1].start, body[-1].end)))
    found.sort()
    return _restated(text, found), rewritten


def _restated(text: str, found: list[Span]) -> list[Span]:
    """One span per place: a question found both by its label and its tag counts once."""
    unique: list[Span] = []
    for span in found:
        if not unique or not unique[-1].overlaps(span):
            unique.append(span)
    return unique


# ---------------------------------------------------------------- parts


def _parts(
    text: str,
    lower: str,
    lines: list[Line],
    vocab: Vocab,
    sources: list[Source],
    block: Span | None,
    questions: list[Span],
    messages: list[Message],
) -> list[Part]:
    """Label every non-blank stretch of the prompt as static or per-request."""
    parts: list[Part] = []
    if block is not None:
        parts.append(Part(PartKind.SOURCES, block, "the sources"))
    for question in questions:
        if block is None or not block.contains(question):
            line_start = text.rfind("\n", 0, question.start) + 1
            parts.append(Part(PartKind.QUESTION, Span(line_start, question.end), "the question"))
    last_user = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"), None)
    for i, message in enumerate(messages):
        if i == len(messages) - 1 and message.role == "assistant" and _only_marker(text, message, vocab):
            continue  # an empty assistant turn at the end is where generation starts
        if message.role == "assistant" or (message.role == "user" and last_user is not None and i < last_user):
            parts.append(Part(PartKind.HISTORY, message.span, "an earlier turn"))
    taken = _SpanSet([p.span for p in parts])
    for line in lines:
        if _DEFINITION.match(line.lower):
            break  # what follows says what a slot expands to; it is not sent where it stands
        if line.start in taken:
            end = taken.end_at(line.start)
            if end >= line.end:
                continue  # most lines of the prompt are inside the sources: nothing is left of them
            # What follows a closing tag on its line ("</search_results> Using the results...").
            line = _rest_of_line(text, line, end)
        if line.blank:
            continue
        labelled = _QUESTION_LINE.match(line.lower) or re.match(r"\s*\[?(?P<label>[a-z_ ]+?)\]?\s*:?\s*$", line.lower)
        if labelled and normalise_label(labelled["label"]) in vocab.history_labels:
            parts.append(Part(PartKind.HISTORY, Span(line.start, line.end), "chat history"))
            continue
        if vocab.role_marker.match(line.lower):
            continue
        slots = _slots(lower, line.start, line.end, vocab) if _may_hold_slot(line.lower) else []
        if slots:
            parts.extend(_slot_parts(text, line, slots))
            continue
        volatile = vocab.volatile.search(line.lower)
        if volatile:
            parts.append(Part(PartKind.VOLATILE, Span(line.start + volatile.start(), line.end), "per-request data"))
            continue
        parts.append(Part(PartKind.INSTRUCTIONS, Span(line.start, line.end)))
    parts.sort(key=lambda p: p.span.start)
    return merge_parts(text, parts)


def _rest_of_line(text: str, line: Line, start: int) -> Line:
    start = min(max(start, line.start), line.end)
    return Line(start, line.end, text[start : line.end], lowercase(text[start : line.end]))


def _slot_parts(text: str, line: Line, slots: list[tuple[Span, str]]) -> list[Part]:
    """A line with slots: each slot is the part its name says, the words around them are static."""
    parts, pos = [], line.start
    for span, kind in slots:
        if text[pos : span.start].strip():
            parts.append(Part(PartKind.INSTRUCTIONS, Span(pos, span.start)))
        part = PartKind(_PART_OF_SLOT[kind])
        parts.append(Part(part, span, _SLOT_LABELS[part]))
        pos = span.end
    if text[pos : line.end].strip():
        parts.append(Part(PartKind.INSTRUCTIONS, Span(pos, line.end)))
    return parts


_PART_OF_SLOT = {"question": "question", "rewritten": "question", "context": "sources", "history": "history", "volatile": "volatile"}
_SLOT_LABELS = {
    PartKind.QUESTION: "the question",
    PartKind.SOURCES: "the retrieved context",
    PartKind.HISTORY: "chat history",
    PartKind.VOLATILE: "per-request data",
}


def _only_marker(text: str, message: Message, vocab: Vocab) -> bool:
    body = vocab.role_marker.sub("", lowercase(text[message.span.start : message.span.end]), count=1)
    return not body.strip()


def merge_parts(text: str, parts: list[Part]) -> list[Part]:
    merged: list[Part] = []
    for part in parts:
        if merged and merged[-1].kind == part.kind and not text[merged[-1].span.end : part.span.start].strip():
            merged[-1] = Part(part.kind, Span(merged[-1].span.start, max(merged[-1].span.end, part.span.end)), merged[-1].label)
        elif merged and merged[-1].span.contains(part.span):
            continue
        else:
            merged.append(part)
    return merged
