"""Pieces several rules share: reading metadata fields and building the fixes that drop them."""

from __future__ import annotations

import re

from ..model.findings import Applicability, Edit, Fix
from ..model.lines import remove_line
from ..model.prompt import Field, FieldForm, Prompt, Source, Span

# "{score:.2f}", "{{ doc.score }}", "{{ '%.3f' % hit.score }}", a JavaScript template's "${c.score}",
# or a prompt library's "[DOC_2_SCORE]".
_SLOT_VALUE = re.compile(r"\$?\{\{?[^{}]*[A-Za-z_][^{}]*\}\}?|\[[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\]")


def is_slot(value: str) -> bool:
    """A template slot standing for the value ("{score:.2f}", "{{ doc.score }}", "[DOC_2_SCORE]")."""
    return bool(_SLOT_VALUE.fullmatch(value.strip()))


def has_slot(value: str) -> bool:
    """Whether a template slot stands somewhere in the value ("{item.id}: {item.name}")."""
    return bool(_SLOT_VALUE.search(value))


def remove_field(prompt: Prompt, field: Field, description: str, applicability: Applicability = Applicability.SAFE) -> Fix:
    span = remove_line(prompt.text, field.span) if field.form != FieldForm.INLINE else field.span
    return Fix(applicability, (Edit(span),), description)


def remove_source(prompt: Prompt, source: Source, description: str) -> Fix:
    """Drop a whole source, with the blank line that separates it from the next."""
    end = source.span.end
    text = prompt.text
    while end < len(text) and text[end] in " \t":
        end += 1
    while end < len(text) and text[end] == "\n" and (end + 1 >= len(text) or text[end + 1] in "\n"):
        end += 1
    if end < len(text) and text[end] == "\n":
        end += 1
    return Fix(Applicability.UNSAFE, (Edit(Span(source.span.start, end)),), description)


def source_label(source: Source) -> str:
    """How a message names a source: by its citation key, or as every source of a template."""
    if source.repeated:
        return "Each source"
    return f"Source {source.key or source.position + 1}"
