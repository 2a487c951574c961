"""The sources a request body marks as such (a `document` or `search_result` block).

The JSON reader knows where each such source's title, context and text are; this
turns them into the model's Sources, so the segmenter does not guess them from the
text. A context is per-source metadata: each of its lines with a known label
("Relevance: 0.82", "Last updated: 2024-03-01") is a field, any other line is a note
to the model about that source (a wrapper line). A field of a Cohere document is a
field of its own. Removing the last line of a context, or a field, empties its
text, and the writer then removes the key itself.
"""

from __future__ import annotations

from ..meaning.vocabulary import normalise_label
from ..model.prompt import Field, FieldForm, Source, Span
from .chatjson import ChatText, SourcePart, SourceText
from .segment import LABEL_LINE, Vocab, lowercase


def body_sources(text: str, chats: tuple[ChatText, ...], spans: tuple[Span, ...], vocab: Vocab) -> list[Source]:
    """The sources of a chat prompt's joined ``text``; ``spans`` are where each of ``chats`` is in it."""
    parts: dict[int, list[tuple[SourceText, Span]]] = {}
    for chat, span in zip(chats, spans):
        # An empty text stands for nothing (a fix emptied it, and writing it removes its key).
        if chat.source is not None and span.end > span.start:
            parts.setdefault(chat.source.number, []).append((chat.source, span))
    return [_source(text, number, pieces, vocab) for number, pieces in sorted(parts.items())]


def _source(text: str, number: int, pieces: list[tuple[SourceText, Span]], vocab: Vocab) -> Source:
    title = next((span for piece, span in pieces if piece.part is SourcePart.TITLE), None)
    contents = [span for piece, span in pieces if piece.part is SourcePart.CONTENT]
    whole = Span(pieces[0][1].start, pieces[-1][1].end)
    source = Source(
        position=number,
        span=whole,
        header=title or Span(whole.start, whole.start),
        content=Span(contents[0].start, contents[-1].end) if contents else Span(whole.end, whole.end),
        title=text[title.start : title.end] if title else None,
        marked=True,
    )
    for piece, span in pieces:
        if piece.part is SourcePart.CONTEXT:
            _read_context(text, span, vocab, source)
        elif piece.part is SourcePart.FIELD:
            value = text[span.start : span.end] if piece.value is None else piece.value
            source.fields.append(Field(normalise_label(piece.label), value.strip(), span, span, FieldForm.LINE))
    return source


def _read_context(text: str, context: Span, vocab: Vocab, source: Source):
    start = context.start
    for line in text[context.start : context.end].split("\n"):
        end = start + len(line)
        if line.strip():
            # What a fix removes: the line with its newline, or with the one before it when it is last.
            removed = Span(start, end + 1) if end < context.end else Span(start - 1 if start > context.start else start, end)
            labelled = LABEL_LINE.match(lowercase(line))
            label = normalise_label(line[labelled.start("label") : labelled.end("label")]) if labelled else ""
            if labelled and (vocab.is_field(label) or "_" in labelled["label"].strip()):
                value = Span(start + labelled.start("value"), end)
                source.fields.append(Field(label, text[value.start : value.end].strip(), removed, value, FieldForm.LINE))
            else:
                source.wrapper_lines.append(removed)
        start = end + 1
