"""Chat turns, from the role-marker lines of a plain text."""

from __future__ import annotations

from ...model.prompt import Message, Span
from .vocab import Line, Vocab


def role_messages(text: str, lines: list[Line], vocab: Vocab) -> list[Message]:
    markers = [line for line in lines if vocab.role_marker.match(line.lower)]
    messages = []
    for i, marker in enumerate(markers):
        end = markers[i + 1].start if i + 1 < len(markers) else len(text)
        role = vocab.role_word.search(marker.lower)[0]
        role = vocab.role_names.get(role, role)
        messages.append(Message(role=role, span=Span(marker.start, end), name=f"{role} turn at offset {marker.start}"))
    return messages
