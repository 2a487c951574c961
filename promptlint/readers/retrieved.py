"""The sources a retriever handed over, found in the prompt it was sent in.

Text read alone must guess where a source's wrapper ends and its chunk starts, and which of
the wrapper's words are metadata. A framework that retrieves knows: it hands over each
document's text and metadata (LangChain's ``on_retriever_end``). Each document whose text
is in the prompt is then a source whose content is that text exactly; its wrapper is what
its block writes before it, and a field of the wrapper is recognised by its value, under
the metadata key it came from, whatever label (or none) the formatter printed: a score of
0.8231 printed as "0.82" or "82%", a date printed as it was stored.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from ..meaning.vocabulary import normalise_label
from ..model.prompt import Field, FieldForm, Source, Span
from .segment import Vocab


@dataclass(frozen=True)
class Retrieved:
    """A document as the retriever returned it: its text and its metadata, in the order given."""

    text: str
    metadata: tuple[tuple[str, object], ...] = ()


def _printed(value: object) -> list[str]:
    """How a formatter may print a metadata value, the longest first."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, float):
        forms = [repr(value)] + [f"{value:.{digits}f}" for digits in (4, 3, 2, 1)]
        if 0 <= value <= 1:
            forms += [f"{value * 100:.{digits}f}%" for digits in (1, 0)]
    elif isinstance(value, datetime.datetime | datetime.date):
        forms = [value.isoformat(), value.isoformat()[:10]]
    elif isinstance(value, int | str):
        forms = [str(value)]
    else:
        return []
    # A value of a character or two ("1", "en") is found anywhere: it says nothing on its own.
    return sorted({form for form in forms if len(form.strip()) > 2}, key=len, reverse=True)


def _found(text: str, retrieved: tuple[Retrieved, ...]) -> list[tuple[Span, Retrieved]]:
    """Each document whose text is in the prompt, where it is (the first place not taken), by position."""
    taken: list[tuple[Span, Retrieved]] = []
    for document in retrieved:
        content = document.text.strip()
        start = text.find(content) if content else -1
        while start >= 0 and any(span.start < start + len(content) and start < span.end for span, _ in taken):
            start = text.find(content, start + 1)
        if start >= 0:
            taken.append((Span(start, start + len(content)), document))
    return sorted(taken, key=lambda found: found[0].start)


def retrieved_sources(text: str, retrieved: tuple[Retrieved, ...], messages: tuple[Span, ...], vocab: Vocab) -> list[Source]:
    """The sources of a prompt's ``text`` that are documents the retriever returned.

    A source's wrapper is the text of its block before its content (back to the previous
    source's content, a blank line, or the start of its message, whichever is nearest; over
    the blank line when the lines above it each print the document's metadata) and the rest
    of the line its content ends on ("{title}: {text} [{date}]").
    """
    sources, previous = [], 0
    for number, (content, document) in enumerate(_found(text, retrieved)):
        message = next((span for span in messages if span.start <= content.start <= span.end), Span(0, len(text)))
        floor = max(previous, message.start)
        block = max(floor, text.rfind("\n\n", 0, content.start) + 2)
        if block == content.start and text.startswith("\n\n", block - 2):
            # A block of the document's metadata a blank line above its text (LlamaIndex's "key: value" lines).
            above = _printing(text, floor, block - 2, document)
            block = block if above is None else above
        line_end = text.find("\n", content.end, message.end)
        trailing = Span(content.end, message.end if line_end < 0 else line_end)
        fields = _fields(text, (Span(block, content.start), trailing), document)
        # The header starts at the first line that prints the document's metadata, or at the content's own line.
        first = min([content.start, *(f.span.start for f in fields)])
        header = Span(min(text.rfind("\n", 0, first) + 1, content.start), content.start)
        header = header if header.start >= block else Span(block, content.start)
        title = next((f.value for f in fields if vocab.lexicon.means(f.label, "title")), None)
        end = max([content.end, *(f.span.end for f in fields)])
        source = Source(number, Span(header.start, end), header, content, title=title, marked=True)
        source.fields.extend(f for f in fields if f.value != title)
        sources.append(source)
        previous = end
    return sources


def _printing(text: str, floor: int, end: int, document: Retrieved) -> int | None:
    """Where the lines before ``end`` (back to ``floor``) that each print a metadata value of the document start; None if the last does not."""
    forms = [form for _, value in document.metadata for form in _printed(value)]
    start = end
    while start > floor:
        line_start = max(floor, text.rfind("\n", floor, start - 1) + 1)
        if not any(form in text[line_start:start] for form in forms):
            break
        start = line_start
    return start if start < end else None


def _fields(text: str, wrapper: tuple[Span, ...], document: Retrieved) -> list[Field]:
    """Each metadata value the wrapper prints, once, where it is first printed in its longest form."""
    found: list[Field] = []
    for key, value in document.metadata:
        places = ((part, form) for part in wrapper for form in _printed(value))
        for part, form in places:
            start = text.find(form, part.start, part.end)
            if start >= 0 and not any(f.span.start < start + len(form) and start < f.span.end for f in found):
                value = Span(start, start + len(form))
                found.append(Field(normalise_label(key), form, _written(text, value), value, FieldForm.INLINE))
                break
    return sorted(found, key=lambda f: f.span.start)


# A label written just before a value on its line: "score: ", "(relevance=".
_LABEL_BEFORE = re.compile(r"(?:^|(?<=[\s(\[,;|]))[^\W\d_][\w .-]{0,30}?\s*[:=]\s*$")


def _written(text: str, value: Span) -> Span:
    """What removing a value found by its value removes: the label written before it on its line with it,
    the whole line when the line is only that, the brackets when the two are all they hold, and the
    white space before them; the value alone when no label stands before it."""
    line_start = text.rfind("\n", 0, value.start) + 1
    label = _LABEL_BEFORE.search(text[line_start : value.start])
    if label is None:
        return value
    start, end = line_start + label.start(), value.end
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if not text[line_start:start].strip() and not text[end:line_end].strip():
        return Span(line_start, min(line_end + 1, len(text)))
    if text[start - 1 : start] == "(" and text[end : end + 1] == ")":
        start, end = start - 1, end + 1
    while start > line_start and text[start - 1] in " \t":
        start -= 1
    return Span(start, end)
