"""Marginal sources appended "in case they help".

## What it does
Flags a template that sends low-relevance hits after the relevant ones: a list
concatenated onto the relevant list (`relevant + marginal[:3]`, `docs + extra`; spread into one,
`[*correct, *ambiguous]`, in JavaScript `[...correct, ...ambiguous].map(...)`), or a
loop over a collection named for weaker hits (`marginal`, `low_score`, `weak`, `fallback`,
`near_misses`, `distractors`, or the `ambiguous` grade of a corrective-RAG grader). A name that only says a list adds to another (`extra`,
`others`, `more`, `backup`) counts when the list is added after another one: a loop
over `other_chunks` alone may hold another company's chunks, not weaker ones.

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
Unsafe, when the weaker hits are added to the relevant ones (`relevant +
marginal[:3]`): the fix takes them out of the loop (`relevant`), which changes what
the model can read and cite. No fix when the loop is over the weaker hits alone
(`{% for doc in fallback %}`): which chunks to send then is decided at retrieval.
"""

from __future__ import annotations

import re

from ..meaning.lexicon import split
from ..model.findings import Applicability, Edit, Fix
from ..model.prompt import Prompt, Span
from ._context import RuleContext

CODE = "PL107"
NAME = "marginal-sources"
SUMMARY = "Low-relevance sources are appended after the relevant ones"
FIX = "unsafe"
EFFECT = "a near-miss distractor, the costly kind (not measured)"

# A name in the loop's collection expression ("relevant + marginal[:3]").
_NAME = re.compile(r"[A-Za-z_]\w*")


def _starts_with(words: tuple[str, ...], entry: str) -> bool:
    wanted = entry.split()
    if len(words) < len(wanted):
        return False
    return all(w.startswith(e[:-1]) if e.endswith("*") else w == e for w, e in zip(words, wanted))


def _naming(text: str, entries: tuple[str, ...]) -> re.Match[str] | None:
    """The first name in the text whose words open like one of the entries."""
    return next((m for m in _NAME.finditer(text) if any(_starts_with(split(m[0]), e) for e in entries)), None)


def _operands(expression: str) -> list[Span]:
    """Where each operand of the expression's top-level `+` stands in it (one, when it adds nothing)."""
    spans, depth, start = [], 0, 0
    for i, char in enumerate(expression):
        depth += (char in "([{") - (char in ")]}")
        if char == "+" and depth == 0:
            spans.append(Span(start, i))
            start = i + 1
    return spans + [Span(start, len(expression))]


def _weaker(expression: str, weaker: tuple[str, ...], added: tuple[str, ...]) -> list[tuple[Span, re.Match[str]]]:
    """Each operand of the collection expression that names weaker hits, with the name: a name for weaker
    hits anywhere, a name for an added list only after the first operand (what it is added to)."""
    found = []
    for index, operand in enumerate(_operands(expression)):
        text = expression[operand.start : operand.end]
        match = _naming(text, weaker) or (_naming(text, added) if index else None)
        if match:
            found.append((operand, match))
    return found


def _without(expression: str, weaker: list[tuple[Span, re.Match[str]]], offset: int) -> Fix | None:
    """The unsafe fix that takes every operand naming weaker hits (with its `+`) out of an expression that
    stands at ``offset``; None when the first operand, what the loop is over, is one."""
    operands = _operands(expression)
    weak = [operands.index(operand) for operand, _ in weaker]
    if weak[0] == 0:
        return None
    edits = []
    for index in weak:
        # From the end of the operand before it: its spaces and its `+` go with it.
        before, operand = operands[index - 1], operands[index]
        start = before.start + len(expression[before.start : before.end].rstrip())
        end = operand.start + len(expression[operand.start : operand.end].rstrip())
        edits.append(Edit(Span(offset + start, offset + end), ""))
    return Fix(Applicability.UNSAFE, tuple(edits), "Send only the relevant sources")


def check(prompt: Prompt, ctx: RuleContext):
    collections = [s for s in prompt.sources if s.collection]
    names = (ctx.words("collections"), ctx.words("added")) if collections else ((), ())
    for source in collections:
        weaker = _weaker(source.collection, *names)
        if not weaker:
            continue
        operand, match = weaker[0]
        start = prompt.lower.find(source.collection.lower(), source.span.start, source.header.start)
        at = start + operand.start
        span = Span(at + match.start(), at + match.end()) if start >= 0 else source.header
        yield ctx.finding(
            prompt,
            span,
            f"'{source.collection}' sends weaker hits after the relevant ones; below the floor they can only mislead",
            fix=_without(source.collection, weaker, start) if start >= 0 else None,
            tokens_text="",
        )
