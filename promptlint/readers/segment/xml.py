"""Sources wrapped in elements: the key and fields of an opening tag, child elements and the chunk."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

from ...meaning.vocabulary import normalise_label
from ...model.prompt import Field, FieldForm, Source, SourceStyle, Span, SpanSet
from .vocab import Vocab, text_lines, trim
from .sources import Body, read_body


def xml_sources(text: str, lower: str, vocab: Vocab) -> list[Source]:
    """Sources wrapped in elements: <document index="1">...</document>, <item>, <search_result>, ..."""
    if "<" not in text:
        return []
    sources: list[Source] = []
    for match, close in _closed_elements(lower, vocab.source_tag, 0, len(lower)):
        sources.append(_xml_source(text, lower, len(sources), match, close, vocab))
    return sources


def _closed_elements(lower: str, opening: re.Pattern[str], start: int, end: int) -> Iterator[tuple[re.Match[str], int]]:
    """Each element of ``lower[start:end]`` that ``opening`` opens (its name its first group) and that
    is closed there, with where its closing tag starts; the next is looked for after that tag."""
    # Tags with no closing tag after the current position, which only moves on: without
    # this, each of n unclosed tags would search the rest of the text (n squared).
    unclosed: set[str] = set()
    pos = start
    while match := opening.search(lower, pos, end):
        tag = match[1]
        close = -1 if tag in unclosed else lower.find(f"</{tag}>", match.end(), end)
        if close < 0:
            unclosed.add(tag)
            pos = match.end()
            continue
        yield match, close
        pos = close + len(tag) + 3


_ATTRIBUTE = re.compile(r"([\w:.-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_CHILD_OPEN = re.compile(r"<([a-z_][\w.-]*)(?:\s[^<>]*)?>")


def _xml_source(text: str, lower: str, position: int, match: re.Match[str], close: int, vocab: Vocab) -> Source:
    """One source element: the key and fields of its opening tag and of its children, and its chunk."""
    end = close + len(match[1]) + 3
    key, key_span, fields = _attribute_fields(text, lower, match, vocab)
    inner = Span(match.end(), close)
    content, children, child_spans = _child_elements(text, lower, inner, vocab)
    fields += children
    title, heading = _title_and_heading(children, vocab)
    wrapper_lines: list[Span] = []
    if content is None:
        body = _body_between_children(text, lower, inner, child_spans, vocab)
        fields += body.fields
        wrapper_lines = body.wrapper_lines
        content = body.content
    content = trim(text, content)
    if title is None:
        title = _attribute_title(fields, vocab)
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
        wrapper_lines=wrapper_lines,
        style=SourceStyle.XML,
    )


def _attribute_fields(text: str, lower: str, match: re.Match[str], vocab: Vocab) -> tuple[str | None, Span | None, list[Field]]:
    """The key of a source element's opening tag (its first key attribute: "index", "id", ...) and its other attributes as fields."""
    fields: list[Field] = []
    key = key_span = None
    for attr in _ATTRIBUTE.finditer(lower, match.start(), match.end()):
        label = normalise_label(attr[1])
        group = 2 if attr[2] is not None else 3
        value_span = Span(attr.start(group), attr.end(group))
        if label in vocab.key_attributes and key is None:
            key, key_span = text[value_span.start : value_span.end], value_span
            continue
        start = attr.start() - 1 if text[attr.start() - 1] == " " else attr.start()
        fields.append(Field(label, text[value_span.start : value_span.end], Span(start, attr.end()), value_span, FieldForm.INLINE))
    return key, key_span, fields


def _child_elements(text: str, lower: str, inner: Span, vocab: Vocab) -> tuple[Span | None, list[Field], list[Span]]:
    """What the child elements of a source element hold: the chunk, when the first content
    element does, and the others as fields, with the spans a fix removes them by."""
    content: Span | None = None
    fields: list[Field] = []
    child_spans: list[Span] = []
    for child, child_close in _closed_elements(lower, _CHILD_OPEN, inner.start, inner.end):
        name = child[1]
        value_span = Span(child.end(), child_close)
        if name in vocab.content_tags and content is None:
            content = value_span
            continue
        span = _tag_line_span(text, Span(child.start(), child_close + len(name) + 3))
        fields.append(Field(normalise_label(name), text[value_span.start : value_span.end].strip(), span, value_span, FieldForm.TAG))
        child_spans.append(span)
    return content, fields, child_spans


def _title_and_heading(children: list[Field], vocab: Vocab) -> tuple[str | None, tuple[str, ...]]:
    """The title and the heading path the child elements give, each from the first that names one."""
    title = None
    heading: tuple[str, ...] = ()
    for child in children:
        if child.label in vocab.title_labels | vocab.fallback_title_labels and title is None:
            title = child.value
        elif child.label in vocab.heading_labels and not heading:
            heading = tuple(p.strip() for p in child.value.split(">") if p.strip())
    return title, heading


def _body_between_children(text: str, lower: str, inner: Span, child_spans: list[Span], vocab: Vocab) -> Body:
    """With no content element, the text between the children, read as a text source's body."""
    covered = SpanSet(child_spans)
    inner_lines = text_lines(text, lower, inner.start, inner.end)
    body = read_body(text, [ln for ln in inner_lines if ln.start not in covered], vocab, default_start=inner.start)
    # The body leaves out the children's lines, but the content runs from its first line
    # to its last. Over a child read as a field (a tag left unclosed above the child makes
    # the content start there), a fix that removes the field would edit the content.
    content = body.content
    crossed = [ln.end for ln in inner_lines if ln.start in covered and content.start < ln.start < content.end]
    if crossed:
        return dataclasses.replace(body, content=Span(max(crossed), content.end))
    return body


def _attribute_title(fields: list[Field], vocab: Vocab) -> str | None:
    """The title an attribute of the opening tag gives, the first the lexicon's title attributes
    name in their order ("title", then "name", "source", a file name)."""
    for name in vocab.lexicon.phrases("title-attribute"):
        found = next((f for f in fields if f.label == name and f.form == FieldForm.INLINE), None)
        if found:
            return found.value
    return None


def _tag_line_span(text: str, span: Span) -> Span:
    """A child element alone on its line is removed with its line."""
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.end)
    line_end = len(text) if line_end < 0 else line_end
    if not text[line_start : span.start].strip() and not text[span.end : line_end].strip():
        return Span(line_start, min(line_end + 1, len(text)))
    return span


def widen_to_container(lower: str, block: Span, vocab: Vocab) -> Span:
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
