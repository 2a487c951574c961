"""Dynamic content before the static instructions.

## What it does
Flags per-request content (conversation history, sources, the question, the
current date or time, user data) placed before the main block of static
instructions or examples. A one-line, one-sentence reminder after the context
("Answer:", "Cite your sources.") is not a violation; a timestamp rendered at the top of the
system prompt is.

## Why is this bad?
Providers cache the longest unchanged prefix of a prompt. Anything that changes
per request ends the cacheable prefix where it stands, so every static token after
it is paid for (and waited for) again on every call. The assembled prompt should be:
system prompt and examples (the cached prefix), then history, sources, and the
question.

## Example
```
Today's date is 2026-12-02.
You are a support assistant. Answer only from the sources...
(twenty more lines of rules)
```

## Use instead
```
You are a support assistant. Answer only from the sources...
(twenty more lines of rules)

Today's date is 2026-12-02.
```

## Fix safety
No automatic fix: moving instructions can change their meaning.
"""

from __future__ import annotations

import re

from ..context import RuleContext
from ..model import DYNAMIC_KINDS, PartKind, Prompt

CODE = "PL305"
NAME = "cache-boundary"
SUMMARY = "Per-request content comes before static instructions and breaks prefix caching"
# Static text after the first dynamic part that is more than a reminder.
OPTIONS = {"reminder-lines": 1, "reminder-chars": 300}

# Lines that carry no instruction: a label alone ("Context:") or a separator ("---").
_LABEL_ONLY = re.compile(r"\s*[#\[\]\w' ]{0,30}:?\s*[.:]?\s*$|\s*[-=*_~]{3,}\s*$")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


def _static_after(prompt: Prompt, start: int) -> list[tuple[int, str]]:
    """The static pieces after ``start``, with the line each is on; labels alone do not count."""
    pieces = []
    for part in prompt.parts:
        if part.kind is PartKind.INSTRUCTIONS and part.span.start >= start:
            offset = part.span.start
            for line in prompt.text[part.span.start : part.span.end].split("\n"):
                if line.strip() and not _LABEL_ONLY.fullmatch(line):
                    pieces.append((prompt.text.count("\n", 0, offset), line))
                offset += len(line) + 1
    return pieces


def _is_reminder(pieces: list[tuple[int, str]], ctx: RuleContext) -> bool:
    """One short line of one sentence ("Answer:", "Cite your sources.") is a reminder, not a block."""
    lines = {line for line, _ in pieces}
    text = " ".join(piece.strip() for _, piece in pieces)
    sentences = len(_SENTENCE_END.findall(text + " "))
    return len(lines) <= ctx.options["reminder-lines"] and sentences <= 1 and len(text) < ctx.options["reminder-chars"]


def check(prompt: Prompt, ctx: RuleContext):
    dynamic = next((p for p in prompt.parts if p.kind in DYNAMIC_KINDS), None)
    if dynamic is None:
        return
    static = _static_after(prompt, dynamic.span.end)
    if not static or _is_reminder(static, ctx):
        return
    lines = len({line for line, _ in static})
    yield ctx.finding(
        prompt,
        prompt.sources[0].header if dynamic.kind is PartKind.SOURCES and prompt.sources else dynamic.span,
        # Worded so that a plural label ("the sources") and a singular one both read right.
        f"{lines} line{'s' if lines != 1 else ''} of static instructions {'come' if lines != 1 else 'comes'} after "
        f"{dynamic.label}; everything from there on misses the prompt cache on every request",
        tokens_text="\n".join(piece for _, piece in static),
    )
