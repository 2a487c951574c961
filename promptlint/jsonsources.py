"""Sources written as JSON: the list of result objects a search tool hands the model.

`{"results": [{"title": "...", "updated_at": "...", "content": "..."}]}`, compact or
pretty-printed. The reader is tolerant, as prompts are often shown with comments and
bare placeholders (`"document": <citation_id>,  // why`), and it never fails: what it
cannot read is not a source. An object is a source when one of its keys names the
chunk text (a content label: `content`, `text`, `page_content`, ...) with a string
value and it has at least one other key; the other keys are its fields.

Fixes are not offered inside the JSON (dropping a key must also mend its commas), so
the segmenter locks the span of these sources: their findings are reported, not fixed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .model import Field, Source, Span
from .vocabulary import normalise_label

# A string, a comment, a structural character, or a bare run (a number, `true`, `<placeholder>`).
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[{}\[\]:,]|[^\s{}\[\]:,"]+')
# The cheap test that the text may hold such sources at all.
_CONTENT_KEY = re.compile(r'"[\w -]{1,30}"\s*:\s*"')


@dataclass
class _Container:
    bracket: str  # "{" for an object, "[" for a list
    start: int
    pairs: list[tuple[Span, Span, Span]] = field(default_factory=list)  # (key, value, the whole pair), in order
    end: int = -1


def json_sources(
    text: str, content_labels: frozenset[str], title_labels: frozenset[str], heading_labels: frozenset[str]
) -> tuple[list[Source], Span | None]:
    """The sources among the JSON objects of ``text``, in text order, and the JSON value that holds them all."""
    if "{" not in text or not _CONTENT_KEY.search(text):
        return [], None
    containers = _containers(text)
    sources = []
    for obj in containers:
        source = _source(text, obj, len(sources), content_labels, title_labels, heading_labels) if obj.bracket == "{" else None
        if source is not None:
            sources.append(source)
    if not sources:
        return [], None
    # The outermost: its other keys ("note") and closing brackets are part of the tool's result, not instructions.
    first, last = sources[0].span, sources[-1].span
    holder = next(c for c in containers if c.start <= first.start and last.end <= c.end)
    return sources, Span(holder.start, holder.end)


def _containers(text: str) -> list[_Container]:
    """Every closed object and list, in the order they open; one pass over the tokens."""
    closed: list[_Container] = []
    # Open brackets: the container, and the key it is the value of.
    stack: list[tuple[_Container, Span | None]] = []
    key: Span | None = None  # a key waiting for its value
    tokens = [t for t in _TOKEN.finditer(text) if not t[0].startswith("//")]
    for i, token in enumerate(tokens):
        kind = token[0]
        span = Span(token.start(), token.end())
        # Keys and values are read only directly inside an object.
        top = stack[-1][0] if stack and stack[-1][0].bracket == "{" else None
        if kind in ("{", "["):
            stack.append((_Container(kind, span.start), key))
            key = None
        elif kind in ("}", "]"):
            opening = "{" if kind == "}" else "["
            while stack and stack[-1][0].bracket != opening:
                stack.pop()  # an unclosed bracket inside: forget it
            if not stack:
                continue
            container, of_key = stack.pop()
            container.end = span.end
            closed.append(container)
            parent = stack[-1][0] if stack else None
            if of_key is not None and parent is not None and parent.bracket == "{":
                parent.pairs.append((of_key, Span(container.start, span.end), Span(of_key.start, span.end)))
            key = None
        elif kind in (":", ","):
            continue
        elif top is not None and key is None and kind.startswith('"') and i + 1 < len(tokens) and tokens[i + 1][0] == ":":
            key = span
        elif top is not None and key is not None:
            value = Span(span.start + 1, span.end - 1) if kind.startswith('"') else span
            top.pairs.append((key, value, Span(key.start, span.end)))
            key = None
    return sorted(closed, key=lambda c: c.start)


def _source(
    text: str, obj: _Container, position: int, content_labels: frozenset[str], title_labels: frozenset[str], heading_labels: frozenset[str]
) -> Source | None:
    labelled = [(normalise_label(text[k.start + 1 : k.end - 1]), value, pair) for k, value, pair in obj.pairs]
    content = next(((value, pair) for label, value, pair in labelled if label in content_labels and text[value.start - 1 : value.start] == '"'), None)
    if content is None or len(labelled) < 2:
        return None
    content_value, content_pair = content
    fields = [
        Field(label=label, value=text[value.start : value.end], span=pair, value_span=value, form="json")
        for label, value, pair in labelled
        if pair is not content_pair
    ]
    title = next((f.value for f in fields if f.label in title_labels), None)
    heading = next((f.value for f in fields if f.label in heading_labels), None)
    return Source(
        position=position,
        span=Span(obj.start, obj.end),
        header=Span(obj.start, content_pair.start),
        content=content_value,
        title=title,
        heading_path=(heading,) if heading else (),
        fields=fields,
        style="json",
    )
