"""Retrieved content over the token budget.

## What it does
Flags a prompt whose retrieved sources (wrappers and text) exceed the budget
allocated to retrieved content, 3,000 tokens by default.

## Why is this bad?
Every token in context either helps the model answer or competes with the tokens
that do. The budget (about six chunks of ~420 tokens plus ~25-token wrappers) was
allocated against the rest of the prompt; overrunning it crowds out instructions,
history and the answer.

## Example
Twelve chunks of 420 tokens: about 5,000 tokens of sources.

## Use instead
Send fewer, better chunks: raise the relevance floor, or rerank and cut.

## Fix safety
No fix: which chunks to drop is a retrieval decision.

## Options
- `budget` (tokens, default 3000).
"""

from __future__ import annotations

import dataclasses

from ..meaning import tokens
from ..model.prompt import Prompt
from ._context import RuleContext

CODE = "PL401"
NAME = "context-budget"
SUMMARY = "Retrieved content exceeds the token budget"
EFFECT = "budget: about six chunks of ~420 tokens plus ~25-token wrappers"
OPTIONS = {"budget": 3000}


def check(prompt: Prompt, ctx: RuleContext):
    # A source template's size says nothing of what it renders to.
    if not prompt.sources or any(s.repeated for s in prompt.sources):
        return
    budget = ctx.options["budget"]
    texts = [prompt.text[s.span.start : s.span.end] for s in prompt.sources]
    # Cheap bound first: sources this short need no encoding.
    if sum(tokens.at_most(t) for t in texts) <= budget:
        return
    used = sum(tokens.count(t) for t in texts)
    if used > budget:
        finding = ctx.finding(
            prompt,
            prompt.sources[0].header,
            f"The {len(prompt.sources)} sources take {used} tokens, over the budget of {budget}",
            tokens_text="",
        )
        yield dataclasses.replace(finding, tokens=used - budget)
