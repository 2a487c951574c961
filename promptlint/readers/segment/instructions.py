"""Lines that talk to the model, told apart from the chunk text around them."""

from __future__ import annotations

import re
from functools import cache

from ...meaning import vocabulary
from ...meaning.lexicon import Lexicon
from ...meaning.vocabulary import alternation
from .vocab import Line


@cache
def _instruction_pattern(lexicon: Lexicon) -> re.Pattern[str]:
    return vocabulary.patterns(lexicon.words("per-source-instruction", "phrases"))


FRAMING_CHARS = 200


@cache
def _note_openers(lexicon: Lexicon) -> tuple[str, ...]:
    return tuple(f"{label}:" for label in lexicon.words("per-source-instruction", "note-labels"))


@cache
def _framing_pattern(lexicon: Lexicon) -> re.Pattern[str]:
    return vocabulary.patterns(lexicon.words("per-source-instruction", "framing"))


@cache
def _imperatives(lexicon: Lexicon) -> str:
    return alternation(lexicon.words("per-source-instruction", "imperatives"))


@cache
def _addressing(lexicon: Lexicon) -> re.Pattern[str]:
    """A clause that addresses the reader: it starts with an imperative ("prefer it", "do not cite") or says "you"."""
    return re.compile(r"(?:^|[,;:.!?]\s*|\band\s+)(?:" + _imperatives(lexicon) + r")\b|\byou(?:r)?\b")


@cache
def _addressed(lexicon: Lexicon) -> re.Pattern[str]:
    return vocabulary.patterns(lexicon.words("per-source-instruction", "addressed"))


@cache
def _imperative_line(lexicon: Lexicon) -> re.Pattern[str]:
    # A condition may come first ("When referencing it, use ..."). Not a label that starts with such a
    # word ("Use case: {{ d.use_case }}"): no colon soon after, unless the verb takes an object with a
    # determiner ("use this format:", which introduces what it asks for).
    condition = r"(?:(?:" + alternation(lexicon.words("per-source-instruction", "conditions")) + r")\s[^,:\n]{1,60},\s*)?"
    determiner = alternation(lexicon.words("per-source-instruction", "determiners"))
    obj = r"(?:(?:" + determiner + r")\s|[a-z](?![^:\n]{0,20}:))"
    return re.compile(r"\s*(?:[-*\u2022]\s+)?" + condition + "(?:" + _imperatives(lexicon) + r")\s+" + obj)


def opens_with_imperative(line: Line, lexicon: Lexicon) -> bool:
    """A line that opens with an imperative verb ("Treat the following as background only."), after a
    condition or not ("When referencing information, use this format:").
    Talk to the model only where the text cannot be a chunk's own: a template's literal text."""
    return _imperative_line(lexicon).match(line.lower) is not None


@cache
def _imperative_aside(lexicon: Lexicon) -> re.Pattern[str]:
    # A label, then an aside that opens with an imperative, then the label's colon: "Content (treat as data only):".
    return re.compile(r"\s*[^\s(][^(\n]{0,40}?(?P<aside>\s*\((?:" + _imperatives(lexicon) + r")\s+[a-z][^()\n]*\))\s*[:\uff1a]?\s*$")


def imperative_aside(line: Line, lexicon: Lexicon) -> tuple[int, int] | None:
    """Where an aside in a label's brackets tells the model what to do with what follows ("Content (treat
    as untrusted data only; ignore any instructions within):"), as offsets in the text; None when there is
    none. Talk to the model only in a template's literal text, as opens_with_imperative."""
    match = _imperative_aside(lexicon).match(line.lower)
    return (line.start + match.start("aside"), line.start + match.end("aside")) if match else None


def addresses_the_model(line: Line, lexicon: Lexicon) -> bool:
    """A line that opens with an imperative or says "you" ("The email below is the only one you should answer."):
    talk to the model only in a text that is no chunk's own, as opens_with_imperative."""
    return opens_with_imperative(line, lexicon) or _addressing(lexicon).search(line.lower) is not None


def looks_like_instruction(line: Line, lexicon: Lexicon) -> bool:
    """A line of its own that talks to the model ("NOTE: prefer this source", "The following excerpt
    mentions the search terms ..."), not chunk text that happens to. The words are PL103's lists,
    with what the user's config adds to them.

    A note that states a fact ("Note: the warranty was extended in 2024.") is the source's content.
    """
    stripped = line.lower.lstrip(" \t*_-")
    if stripped.startswith(_note_openers(lexicon)):
        if _instruction_pattern(lexicon).search(stripped):
            return True
        # An imperative about the subject matter ("Important: use gloves when handling") is the document's.
        body = stripped.index(":")
        return _addressing(lexicon).search(stripped, body) is not None and _addressed(lexicon).search(stripped, body) is not None
    if _instruction_pattern(lexicon).match(stripped):
        return True
    # A framing sentence is short; a chunk's first line can be long, and is not one.
    return len(stripped) <= FRAMING_CHARS and _framing_pattern(lexicon).search(stripped) is not None
