"""Chunk ordinal or chunk id shown to the model.

## What it does
Flags chunk numbers and ids in a source's wrapper: `chunk 14 of 52`,
`chunk_id: 8f3a...`, `part 2/5`, `node_id=...`, and in a template the id of an
item named as a chunk (`{{ chunk.id }}`, `{node['id']}`). The number the model is asked
to cite (`[1]`, `Document 1:`, `<document index="1">`) is a citation key, not an
ordinal, and is never flagged.

## Why is this bad?
About 3 tokens per source for no measured gain (0.00): the position of a chunk
inside the index says nothing about the answer.

## Example
```
[1] Returns Policy (chunk 14 of 52)
```

## Use instead
```
[1] Returns Policy — Returns > Damaged goods
```
Use the ordinal to order chunks of one document, not to label them.

## Fix safety
Safe: the field is removed; the citation key and the chunk text are untouched.
"""

from __future__ import annotations

import re

from ..context import RuleContext
from ..model import Prompt
from ._fields import remove_field, source_label

CODE = "PL203"
NAME = "chunk-ordinal"
SUMMARY = "A chunk number or chunk id is shown to the model"
FIX = "safe"

_OF = re.compile(r"\d+\s*(?:of|/)\s*\d+")


def check(prompt: Prompt, ctx: RuleContext):
    of_words = ctx.labels("of-words")
    for source in prompt.sources:
        for field in source.fields:
            is_ordinal = ctx.lexicon.means(field.label, "ordinal") or (field.label in of_words and _OF.match(field.value))
            if is_ordinal and field.value:
                yield ctx.finding(
                    prompt,
                    field.value_span,
                    f"{source_label(source)} shows a chunk ordinal ('{field.label}: {field.shown}'), "
                    "which costs tokens and says nothing about the answer",
                    fix=remove_field(prompt, field, "Remove the chunk ordinal"),
                    tokens_text=field.elsewhere,
                )
