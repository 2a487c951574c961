"""Retrieval score shown to the model.

## What it does
Flags a retrieval, rerank, relevance or similarity score (or distance) rendered in
a source's wrapper: `(score: 0.61)`, `(relevance 82%)`, `similarity=0.83`,
`<relevance_score>0.8</relevance_score>`, `{{ '%.3f' % hit.rerank_score }}`. A field
is a score by its name (`vector_distance`, `@search.rerankerScore`, `_score`; a name that says nothing, a loop's
one-letter `s`, is read by the label written before it: `Score: {s}` is a score, `Page: {s}` a page), or
by its shape when it has no name: a fraction or a percentage on every source
(`[1] Returns Policy (0.82)`). A header's measure is read however it is written (`(similarity 91%)`,
`（相似度：0.91）`, `(score de pertinence : 0,91)`), and so is a score on the labelled line under a source's
heading (`## Returns`, then `Relevance: 0.91`). When the sources arrive pre-joined in one slot, an
instruction that says they carry scores ("Passages (with similarity scores):",
"the paragraphs and their corresponding scores", "chunks, each with a relevance score") or tells the model to weigh them by
it ("use the answers with the highest score", "sorted by relevance score") is flagged
where it says so; a sentence that asks the model to give the scores ("Determine a
relevance score for each document") is its task, not what the sources carry, and
is left alone. Numbers inside the chunk text (a credit
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
Safe: the field is removed with its label, its punctuation and the words bound to it
(`(relevance {{ doc.score }})` goes whole); the chunk text is untouched. A field is
metadata only on its evidence: its label names the concept without a domain qualifier
("rerank score", not "risk score", "credit score" or "minimum score", which are the
document's own content and never reported), its value has the concept's shape (a number
or a slot; a date is none, and under `rank`, which ordinals share, only a fraction or a
percentage), and in assembled text a renderer wrote it: the same label on two or more of
the sources written the same way, and no other score label beside it (in markup, the same
attribute or child element on two sibling sources or more).
A score on one source only, or under another label on the next, is reported with an
unsafe fix; so is the score of a template loop taken for the sources only because its item
shows a score (`{% for u in urls %}[weight={{ u.score }}] ...`), or of records whose text is told from their
fields only by being written in sentences ("Product: ... / Review: I use it daily. ... / Score: 4.5"): a
product's rating is a score too. When the whole unit cannot be told (`(score {{ s }}, {{ t }})`), there is no
fix. An announced score has no fix: the scores are added where the slot is filled.
"""

from __future__ import annotations

import re

from ..meaning import vocabulary
from ..model.prompt import Field, PartKind, Prompt, Span
from ._context import RuleContext
from ._fields import read, remove_field, source_label, written

CODE = "PL102"
NAME = "retrieval-score"
SUMMARY = "A retrieval, rerank or similarity score is shown to the model"
FIX = "safe"
EFFECT = "−0.02 correctness, 4 tokens a source"


# A score's shape: a fraction ("0.82", ".5", "1.0") or a percentage ("82%", "82.6 %").
_SCORE_SHAPE = re.compile(r"(?:0?\.\d+|1\.0+|\d{1,3}(?:\.\d+)?\s*%)")


def _shaped_scores(prompt: Prompt, ctx: RuleContext) -> list[Field]:
    """Unnamed fields shaped like a score on every source (two or more): "[1] Returns Policy (0.82)"."""
    if len(prompt.sources) < 2 or any(s.repeated for s in prompt.sources):
        return []
    found = []
    for source in prompt.sources:
        # Only a field with no name: a name the lexicon does not know ("ratio", "version") says it is something else.
        shaped = [f for f in source.fields if not f.label and _SCORE_SHAPE.fullmatch(f.value)]
        if not shaped:
            return []
        found.append(shaped[0])
    return found


# Where a sentence starts: after its end mark and the list marker that opens it ("3. ", "- ").
_SENTENCE_OPENING = re.compile(r"\s*(?:(?:\d{1,2}[.)]|[-*•])\s+)?")


def _sentence_start(lower: str, start: int, at: int) -> int:
    mark = max(start, *(lower.rfind(end, start, at) + 1 for end in (". ", "! ", "? ", ":\n", "\n")))
    opening = _SENTENCE_OPENING.match(lower, mark)
    return opening.end() if opening else mark


def _announced(prompt: Prompt, ctx: RuleContext):
    """With the sources pre-joined in one slot, an instruction that says each carries a score."""
    if prompt.sources or not any(p.kind is PartKind.SOURCES for p in prompt.parts):
        return
    phrases = ctx.words("announced")
    pattern = vocabulary.patterns(phrases)
    asked = vocabulary.patterns(ctx.words("asked-to-score"))
    for part in (p for p in prompt.parts if p.kind is PartKind.INSTRUCTIONS):
        if not vocabulary.may_match(phrases, prompt.lower[part.span.start : part.span.end]):
            continue
        for match in pattern.finditer(prompt.lower, part.span.start, part.span.end):
            if asked.match(prompt.lower, _sentence_start(prompt.lower, part.span.start, match.start())):
                continue  # "3. Determine a relevance score for each document": the model's task, not the sources'
            yield ctx.finding(
                prompt,
                Span(match.start(), match.end()),
                f"The prompt speaks of the sources' scores ('{' '.join(prompt.text[match.start() : match.end()].split())}'); "
                "the model reads a score as an instruction to defer to the top hit",
                tokens_text="",
            )


def check(prompt: Prompt, ctx: RuleContext):
    yield from _announced(prompt, ctx)
    # One shaped field per source, in the sources' order (or none): read once, not once a source.
    shaped = [read(prompt, source, f, "score", ctx.lexicon) for source, f in zip(prompt.sources, _shaped_scores(prompt, ctx))]
    for reading in [*ctx.readings(prompt, "score"), *shaped]:
        if not reading.shaped:
            continue  # "Score: high" is no number a ranking gave
        field = reading.field
        yield ctx.finding(
            prompt,
            field.value_span,
            f"{source_label(reading.source)} shows its retrieval score "
            f"('{written(prompt, field)}'); the model reads it as an instruction to defer to the top hit",
            fix=remove_field(prompt, field, "Remove the score", reading.applicability),
            tokens_text=field.elsewhere,
        )
