"""Retrieval score shown to the model.

## What it does
Flags a retrieval, rerank, relevance or similarity score (or distance) rendered in
a source's wrapper: `(score: 0.61)`, `(relevance 82%)`, `similarity=0.83`,
`<relevance_score>0.8</relevance_score>`. Numbers inside the chunk text (a credit
score in a lending policy) and parse warnings (`OCR confidence 0.86`) are not
retrieval scores and are left alone.

## Why is this bad?
The model reads the number as a confidence signal and defers to the top-ranked
chunk even when a lower-ranked one holds the answer: a ranking turns into an
instruction. Measured by ablation, showing the score cost 0.02 of answer
correctness for its 4 tokens per source.

## Example
```
[1] Returns Policy — Returns > Damaged goods (score: 0.91)
```

## Use instead
```
[1] Returns Policy — Returns > Damaged goods
```
Order the sources by score instead of showing it.

## Fix safety
Safe: the field is removed with its label and punctuation; the chunk text is untouched.
"""

from __future__ import annotations

from ..context import RuleContext
from ..model import Prompt
from ._fields import is_slot, number, remove_field, source_label

CODE = "PL102"
NAME = "retrieval-score"
SUMMARY = "A retrieval, rerank or similarity score is shown to the model"
FIX = "safe"


def check(prompt: Prompt, ctx: RuleContext):
    for source in prompt.sources:
        for field in ctx.fields(source, "score"):
            if number(field.value) is None and not is_slot(field.value):
                continue
            yield ctx.finding(
                prompt,
                field.value_span,
                f"{source_label(source)} shows its retrieval score "
                f"('{field.label}: {field.value}'); the model reads it as an instruction to defer to the top hit",
                fix=remove_field(prompt, field, "Remove the score"),
                tokens_text=field.elsewhere,
            )
