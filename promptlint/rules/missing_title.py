"""Source without a title.

## What it does
Advisory. Flags a prompt whose sources carry no document title and no heading path
(reported once, at the first such source). A source template that renders its
item's own fields (beyond a URL) is taken to identify it, and so is a slot under a
name that holds a file name as often as a source system (`Content from {source}`:
the lexicon's `origin` names, PL202's `ambiguous-labels`). A loop over the chunks of
one document (`document.chunks`, `doc['chunks']`) takes its title from the document's
header around it. Where code adds one source's text in several statements (the title in
one, a field under an `if` in another), the whole is read, and a piece alone is never
reported. A loop over what is no document (memories, facts, a graph's triples or entities:
the lexicon's `not-document`) has no title to show. A template that writes a heading's mark
right before the text (`# {{ item.compiled }}`) says the text opens with its own heading.

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

import re

from ..meaning import vocabulary
from ..meaning.lexicon import split
from ..model.findings import Severity
from ..model.prompt import Field, Prompt, Source
from ._context import RuleContext
from ._fields import is_slot

CODE = "PL205"
NAME = "missing-title"
SUMMARY = "Sources are rendered without a document title"
EFFECT = "the title: +0.03 correctness for 5 tokens"
SEVERITY = Severity.INFO
# A loop's collection taken from one item (`document['chunks']`, `doc.chunks`): the item's name.
_ITEM_OF = re.compile(r"\s*([A-Za-z_]\w*)\s*[.\[]")


def _identified(source: Source, ctx: RuleContext) -> bool:
    """A source template that renders its item's own fields (a place's name, type and location), or
    a slot under a name that holds a file name as often as a system (`Content from {source}`)."""
    lexicon = ctx.lexicon
    origin = vocabulary.label_set(lexicon.phrases("origin"))

    def may_name(field: Field) -> bool:
        if lexicon.means(field.label, "url"):
            return False
        return not lexicon.reported(field.label) or (field.label in origin and is_slot(field.value))

    return source.repeated and any(may_name(f) for f in source.fields)


def _chunks_of_one_document(source: Source, ctx: RuleContext) -> bool:
    """A loop over the chunks of one document (`document['chunks']`, `file.parts`): the document's
    own header, outside the loop, is where its title stands."""
    base = _ITEM_OF.match(source.collection)
    return bool(base) and ctx.lexicon.means(base[1], "document")


def _not_a_document(source: Source, ctx: RuleContext) -> bool:
    """A loop over what is no document (`memories`, `user.facts`, `triples[:10]`: the lexicon's `not-document`)."""
    # What is iterated, not how it is filtered (`memories|sort(attribute='date')`).
    names = re.findall(r"[A-Za-z_]\w*", source.collection.split("|")[0])
    # The word the name ends in says what the items are (`global_memories`; `fact_sheets` are documents).
    words = split(names[-1]) if names else ()
    return bool(words) and words[-1] in ctx.lexicon.phrases("not-document")


_HEADING_MARK = re.compile(r"[ \t]*#{1,6}[ \t]*")


def _opens_with_a_heading(source: Source, prompt: Prompt) -> bool:
    """A template that writes a heading's mark right before the text (`f"# {item['compiled']}"`): the text's
    first line is a heading, its own title or path, which the template cannot show but the item can."""
    line_start = prompt.text.rfind("\n", 0, source.content.start) + 1
    return source.repeated and source.content.start > line_start and bool(_HEADING_MARK.fullmatch(prompt.text, line_start, source.content.start))


def _how_many(untitled: list[Source], prompt: Prompt) -> str:
    """A template renders every source alike, so it is counted only in assembled text."""
    if untitled[0].repeated:
        return "Each source this template renders has"
    return f"{len(untitled)} of {len(prompt.sources)} sources have"


def check(prompt: Prompt, ctx: RuleContext):
    # A piece of a source that code adds in several statements says nothing of what the whole shows;
    # a memory, a fact or a triple is no document, and has no title to show.
    whole = [s for s in prompt.sources if not s.partial and not _not_a_document(s, ctx)]
    untitled = [s for s in whole if not (s.title or s.heading_path or _identified(s, ctx) or _chunks_of_one_document(s, ctx) or _opens_with_a_heading(s, prompt))]
    if untitled:
        yield ctx.finding(
            prompt,
            untitled[0].header,
            f"{_how_many(untitled, prompt)} no title; a title costs about 5 tokens and measured +0.03",
            tokens_text="",
        )
