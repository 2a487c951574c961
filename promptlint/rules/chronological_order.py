"""Sources sorted by date.

## What it does
Flags a template that orders the sources by a date: `|sort(attribute='updated_at')`,
`sorted(docs, key=...date...)`, `|sort(attribute='published', reverse=true)`.

## Why is this bad?
Chronological order ignores relevance entirely: measured at 0.87 correctness
against 0.91 for rank order (best first). Grouping chunks by document, with groups
in rank order, ties rank order overall and wins when two chunks of one document
answer together.

## Example
```
{% for doc in documents|sort(attribute='updated_at') %}
```

## Use instead
```
{% for doc in documents %}   {# already in rank order #}
```

## Fix safety
No fix: the order should be decided where the sources are retrieved.
"""

from __future__ import annotations

import re

from ..context import RuleContext
from ..model import Prompt, Span

CODE = "PL302"
NAME = "chronological-order"
SUMMARY = "Sources are sorted by date instead of relevance"

_SORT_KEY = re.compile(r"sort(?:ed)?\s*\((?P<args>[^)]*)\)")


def check(prompt: Prompt, ctx: RuleContext):
    for source in prompt.sources:
        for match in _SORT_KEY.finditer(source.collection):
            keys = re.findall(r"[\"']([\w.\-]+)[\"']", match["args"])
            if any(ctx.lexicon.means(k, "date") for k in keys):
                start = prompt.text.find(source.collection, source.span.start, source.header.start)
                span = Span(start, start + len(source.collection)) if start >= 0 else source.header
                yield ctx.finding(
                    prompt,
                    span,
                    "The sources are sorted by date; chronological order ignores relevance (0.87 vs 0.91 for rank order)",
                    tokens_text="",
                )
