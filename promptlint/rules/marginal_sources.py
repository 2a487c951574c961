"""Marginal sources appended "in case they help".

## What it does
Flags a template that sends low-relevance hits after the relevant ones: a list
concatenated onto the relevant list (`relevant + marginal[:3]`), or a loop over a
collection named for weaker hits (`marginal`, `low_score`, `fallback`, `extra`,
`others`, `near_misses`).

## Why is this bad?
A chunk below the relevance floor cannot be the answer and can be mistaken for
it: a near-miss distractor, the expensive kind. "It might help" does not hold.

## Example
```
{% for doc in relevant + marginal[:3] %}
```

## Use instead
```
{% for doc in relevant %}
```

## Fix safety
No fix: which chunks to send is decided at retrieval.
"""

from __future__ import annotations

import re

from ..meaning.lexicon import split
from ..model.prompt import Prompt, Span
from ._context import RuleContext

CODE = "PL107"
NAME = "marginal-sources"
SUMMARY = "Low-relevance sources are appended after the relevant ones"

# A name in the loop's collection expression ("relevant + marginal[:3]").
_NAME = re.compile(r"[A-Za-z_]\w*")


def _starts_with(words: tuple[str, ...], entry: str) -> bool:
    wanted = entry.split()
    if len(words) < len(wanted):
        return False
    return all(w.startswith(e[:-1]) if e.endswith("*") else w == e for w, e in zip(words, wanted))


def _marginal(collection: str, entries: list[str]) -> re.Match[str] | None:
    """The first name in the collection expression that names weaker hits."""
    return next((m for m in _NAME.finditer(collection) if any(_starts_with(split(m[0]), e) for e in entries)), None)


def check(prompt: Prompt, ctx: RuleContext):
    entries = ctx.words("collections")
    for source in prompt.sources:
        collection = source.collection.lower()
        match = _marginal(source.collection, entries)
        if match:
            start = prompt.lower.find(collection, source.span.start, source.header.start)
            span = Span(start + match.start(), start + match.end()) if start >= 0 else source.header
            yield ctx.finding(
                prompt,
                span,
                f"'{source.collection}' sends weaker hits after the relevant ones; below the floor they can only mislead",
                tokens_text="",
            )
