"""Heavy per-source wrapper.

## What it does
Flags a source whose wrapper (header line, metadata lines, tags: everything but
the chunk text) costs more than `wrapper-budget` tokens, 25 by default, and more
than the canonical header for the same source would (a long title, a heading
path, a stale note and a parse warning are worth their tokens; the rest is not).
Fields that another rule already reports (scores, dates, system names, ordinals,
derived text) and instruction lines (PL103) are not counted again here, nor are fence lines (`-----`, a code
fence) that only mark where the text begins and ends.

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
import re

from ..canonical.chunks import to_chunk
from ..canonical.render import render_header
from ..meaning import tokens
from ..meaning.lexicon import Lexicon
from ..model.prompt import Prompt, Source, Span
from ._context import RuleContext
from ._fields import source_label

CODE = "PL402"
NAME = "wrapper-overhead"
SUMMARY = "A source's wrapper costs more tokens than the wrapper budget"
OPTIONS = {"wrapper-budget": 25}


_FENCE = re.compile(r"^[ \t]*(?:[-=*_]{3,}|```\w*)[ \t]*\n?", re.MULTILINE)


def _wrapper(prompt: Prompt, source: Source, lexicon: Lexicon) -> str:
    """The source's text outside its content, less the fields and instruction lines other rules report."""
    skip = sorted([f.span for f in source.fields if lexicon.reported(f.label)] + source.wrapper_lines)
    pieces, pos = [], source.span.start
    for span in skip + [source.content, Span(source.span.end, source.span.end)]:
        if span.start >= pos:
            pieces.append(prompt.text[pos : span.start])
            pos = span.end
    return _FENCE.sub("", "".join(pieces))


def check(prompt: Prompt, ctx: RuleContext):
    budget = ctx.options["wrapper-budget"]
    # A source template's wrapper holds slots, not the text the model gets: not measurable.
    for source in (s for s in prompt.sources if not s.repeated):
        wrapper = _wrapper(prompt, source, ctx.lexicon)
        # Cheap bound first: a wrapper this short needs no encoding.
        if tokens.at_most(wrapper) <= budget:
            continue
        cost = tokens.count(wrapper)
        if cost <= budget:
            continue
        canonical = tokens.count(render_header(to_chunk(prompt, source), source.key or source.position + 1, today=ctx.today) + "\n")
        if cost > canonical:
            finding = ctx.finding(
                prompt,
                source.header,
                f"{source_label(source)} has a {cost}-token wrapper, over the budget of {budget}; "
                f"the canonical header would take {canonical}",
                tokens_text="",
            )
            yield dataclasses.replace(finding, tokens=cost - max(budget, canonical))
