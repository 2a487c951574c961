"""The question is not the last thing before generation.

## What it does
Flags a question that is followed by retrieved sources or conversation history.
A short reminder after the question ("Answer:") is fine. Off by default
(`extend-select: [PL306]`): the reference chapter builds prompts this way but did
not measure the cost of other orders, and many good public prompts state the
question before the context.

## Why is this bad?
The question belongs next to generation, after everything the model must read to
answer it; the assembled prompt is: cached instructions, history, sources, then
the original question. Material after the question is read without knowing what
it is for, and then competes with it.

## Example
```
Question: Can I return a damaged item after 40 days?
Sources:
[1] Returns Policy ...
```

## Use instead
```
Sources:
[1] Returns Policy ...
Question: Can I return a damaged item after 40 days?
```

## Fix safety
No automatic fix, and `promptlint format` does not move the question either: it lays out
the sources block only (`check --fix` plus the canonical layout of the sources).
"""

from __future__ import annotations

from ..model.prompt import PartKind, Prompt
from ._context import RuleContext

CODE = "PL306"
NAME = "question-not-last"
SUMMARY = "Sources or history come after the question"
EFFECT = "text after the question competes with it (not measured)"
DEFAULT = False


def check(prompt: Prompt, ctx: RuleContext):
    question = prompt.question
    if question is None:
        return
    after = [p for p in prompt.parts if p.span.start >= question.end and p.kind in (PartKind.SOURCES, PartKind.HISTORY)]
    if after:
        yield ctx.finding(
            prompt,
            question,
            f"The question comes before {after[0].label}; put it last, next to generation",
            tokens_text="",
        )
