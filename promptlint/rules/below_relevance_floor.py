"""Chunk below the relevance floor.

## What it does
When scores are visible in the prompt and a `relevance-floor` is configured, flags
each source whose score is under the floor. The rule is on by default but reports
nothing until `relevance-floor` is set: what counts as too low depends on the
retriever's scale, which only its owner knows.

## Why is this bad?
A chunk below the floor cannot be the answer and can be mistaken for it: it is a
near-miss distractor, the expensive kind. Sending it "in case it helps" is
strictly negative.

## Example
With `relevance-floor: 0.5`:
```
[3] Shipping FAQ (score: 0.21)
```

## Use instead
Filter chunks under the floor before building the prompt.

## Fix safety
Unsafe: the whole source is dropped, which changes what the model can cite.

## Options
- `relevance-floor` (number, default unset): scores under it are below the floor.
"""

from __future__ import annotations

from ..meaning.values import number
from ..model.prompt import Prompt
from ._context import RuleContext
from ._fields import remove_source, source_label

CODE = "PL106"
NAME = "below-relevance-floor"
SUMMARY = "A chunk under the configured relevance floor is sent to the model"
FIX = "unsafe"
EFFECT = "a near-miss distractor, the costly kind (not measured)"
OPTIONS = {"relevance-floor": None}
NEEDS = "relevance-floor"


def check(prompt: Prompt, ctx: RuleContext):
    floor = ctx.options.get("relevance-floor")
    if floor is None:
        return
    for source in prompt.sources:
        scores = [s for s in (number(f.value) for f in ctx.fields(source, "score")) if s is not None]
        if scores and max(scores) < floor:
            yield ctx.finding(
                prompt,
                source.header,
                f"{source_label(source)} scores {max(scores):g}, under the relevance floor of {floor:g}; "
                "it cannot be the answer and can be mistaken for it",
                fix=remove_source(prompt, source, "Drop the source"),
            )
