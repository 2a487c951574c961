"""Source without a title.

## What it does
Advisory. Flags a prompt whose sources carry no document title and no heading path
(reported once, at the first such source). A source template that renders its
item's own fields (beyond a URL) is taken to identify it.

Two word lists say what titles or names a source: `title-attributes`, the
attributes of a source element that give its title (`<document title="...">`, the
first listed first), and `naming-slots`, how the name of a slot alone on a line of a
source's head ends when it prints the source's name (`{chunk_heading}`). Add to them
with `extend-title-attributes` and `extend-naming-slots`.

## Why is this bad?
The document title measured +0.03 correctness for about 5 tokens: it tells the
model what a fragment is part of, and what to cite.

## Example
```
[1]
Damaged goods may be returned within 30 days...
```

## Use instead
```
[1] Returns and Credits Policy
Damaged goods may be returned within 30 days...
```

## Fix safety
No fix: the title has to come from the retrieval metadata.
"""

from __future__ import annotations

from ..model.findings import Severity
from ..model.prompt import Prompt, Source
from ._context import RuleContext

CODE = "PL205"
NAME = "missing-title"
SUMMARY = "Sources are rendered without a document title"
EFFECT = "the title: +0.03 correctness for 5 tokens"
SEVERITY = Severity.INFO
def _identified(source: Source, ctx: RuleContext) -> bool:
    """A source template that renders its item's own fields (a place's name, type and location)."""
    lexicon = ctx.lexicon
    return source.repeated and any(not (lexicon.means(f.label, "url") or lexicon.reported(f.label)) for f in source.fields)


def check(prompt: Prompt, ctx: RuleContext):
    untitled = [s for s in prompt.sources if not s.title and not s.heading_path and not _identified(s, ctx)]
    if untitled:
        yield ctx.finding(
            prompt,
            untitled[0].header,
            f"{len(untitled)} of {len(prompt.sources)} sources have no title; a title costs about 5 tokens and measured +0.03",
            tokens_text="",
        )
