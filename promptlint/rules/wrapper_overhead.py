"""Heavy per-source wrapper.

## What it does
Flags a source whose wrapper (header line, metadata lines, tags: everything but
the chunk text) costs more than `wrapper-budget` tokens, 25 by default, and more
than the canonical header for the same source would (a long title, a heading
path, a stale note and a parse warning are worth their tokens; the rest is not).

## Why is this bad?
A good wrapper (citation key, title, heading path, a stale note or parse warning
only when present) costs about 25 tokens; the chunk itself about 420. Beyond that,
metadata competes with the content for the model's attention and for the budget.

## Example
```
<document index="1"><source>returns.pdf</source><chunk_id>8f3a91</chunk_id>
<retrieved_at>2026-12-01T10:22:03Z</retrieved_at><connector>sharepoint</connector>...
```

## Use instead
```
[1] Returns and Credits Policy — Returns > Damaged goods
```

## Fix safety
No fix of its own: the other metadata rules remove the fields that cost the most.

## Options
- `wrapper-budget` (tokens, default 25).
"""

from __future__ import annotations

import dataclasses

from .. import tokens
from ..chunks import to_chunk
from ..context import RuleContext
from ..model import Prompt
from ..render import render_header

CODE = "PL402"
NAME = "wrapper-overhead"
SUMMARY = "A source's wrapper costs more tokens than the wrapper budget"
OPTIONS = {"wrapper-budget": 25}


def check(prompt: Prompt, ctx: RuleContext):
    budget = ctx.options["wrapper-budget"]
    for source in prompt.sources:
        text = prompt.text
        wrapper = text[source.span.start : source.content.start] + text[source.content.end : source.span.end]
        # Cheap bound first: a cl100k token is rarely under one character.
        if len(wrapper) <= budget:
            continue
        cost = tokens.count(wrapper)
        if cost <= budget:
            continue
        canonical = tokens.count(render_header(to_chunk(prompt, source), source.key or source.position + 1, today=ctx.today) + "\n")
        if cost > canonical:
            finding = ctx.finding(
                prompt,
                source.header,
                f"Source {source.key or source.position + 1} has a {cost}-token wrapper, over the budget of {budget}; "
                f"the canonical header would take {canonical}",
                tokens_text="",
            )
            yield dataclasses.replace(finding, tokens=cost - max(budget, canonical))
