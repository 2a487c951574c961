"""Lines that talk to the model, told apart from the chunk text around them."""

from __future__ import annotations

import re
from functools import cache

from ...meaning import vocabulary
from .vocab import Line, alternation


@cache
def _instruction_pattern() -> re.Pattern[str]:
    return vocabulary.patterns(vocabulary.load("per-source-instruction")["phrases"])


FRAMING_CHARS = 200


@cache
def _note_openers() -> tuple[str, ...]:
    return tuple(f"{label}:" for label in vocabulary.load("per-source-instruction")["note-labels"])


@cache
def _framing_pattern() -> re.Pattern[str]:
    return vocabulary.patterns(vocabulary.load("per-source-instruction")["framing"])


@cache
def _imperatives() -> str:
    return alternation(vocabulary.load("per-source-instruction")["imperatives"])


@cache
def _addressing() -> re.Pattern[str]:
    """A clause that addresses the reader: it starts with an imperative ("prefer it", "do not cite") or says "you"."""
    return re.compile(r"(?:^|[,;:.!?]\s*|\band\s+)(?:" + _imperatives() + r")\b|\byou(?:r)?\b")


@cache
def _imperative_line() -> re.Pattern[str]:
    # Not a label that starts with such a word ("Use case: {{ d.use_case }}"): no colon right after.
    return re.compile(r"\s*(?:[-*\u2022]\s+)?(?:" + _imperatives() + r")\s+[a-z](?![^:\n]{0,20}:)")


def opens_with_imperative(line: Line) -> bool:
    """A line that opens with an imperative verb ("Treat the following as background only.").
    Talk to the model only where the text cannot be a chunk's own: a template's literal text."""
    return _imperative_line().match(line.lower) is not None


def looks_like_instruction(line: Line) -> bool:
    """A line of its own that talks to the model ("NOTE: prefer this source", "The following excerpt
    mentions the search terms ..."), not chunk text that happens to.

    A note that states a fact ("Note: the warranty was extended in 2024.") is the source's content.
    """
    stripped = line.lower.lstrip(" \t*_-")
    if stripped.startswith(_note_openers()):
        return _addressing().search(stripped, stripped.index(":")) is not None or _instruction_pattern().search(stripped) is not None
    if _instruction_pattern().match(stripped):
        return True
    # A framing sentence is short; a chunk's first line can be long, and is not one.
    return len(stripped) <= FRAMING_CHARS and _framing_pattern().search(stripped) is not None
