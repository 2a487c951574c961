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

from ..context import RuleContext
from ..model import Prompt, Span

CODE = "PL107"
NAME = "marginal-sources"
SUMMARY = "Low-relevance sources are appended after the relevant ones"

_MARGINAL = re.compile(r"\b(?:marginal\w*|low_?scor\w*|low_?relevan\w*|below_?\w*|fallback\w*|extra\w*|others?|near_?miss\w*|also_?\w*|more_\w+|backup\w*)\b")


def check(prompt: Prompt, ctx: RuleContext):
    for source in prompt.sources:
        collection = source.collection.lower()
        match = _MARGINAL.search(collection)
        if match:
            start = prompt.lower.find(collection, source.span.start, source.header.start)
            span = Span(start + match.start(), start + match.end()) if start >= 0 else source.header
            yield ctx.finding(
                prompt,
                span,
                f"'{source.collection}' sends weaker hits after the relevant ones; below the floor they can only mislead",
                tokens_text="",
            )
