"""Source system name shown to the model.

## What it does
Flags the name of the system, connector or retriever a chunk came from (Confluence,
SharePoint, Zendesk, Google Drive, a web search API such as DuckDuckGo or Tavily, a `retriever="bm25"` attribute,
...) when it is rendered as a field of the
source's wrapper (`Source: Confluence`, `[Zendesk]`), and a slot of a sources
template or a key of a per-source object that prints it (`{d.source_type}`,
`{{ doc.meta.datasource }}`, `${d.connector}`, `"connector": d.origin`). A title
that mentions a product is not flagged, nor a slot under a bare `source` or
`origin`, which as often prints the document's URL or file name.

## Why is this bad?
It costs about 4 tokens per source and measured no gain at all (0.00). The model
gains nothing from knowing which connector fetched the text, and the name can
read as a signal of authority.

## Example
```
DOCUMENT 1: Returns Policy
Source: Confluence
```

## Use instead
```
[1] Returns Policy — Returns > Damaged goods
```

## Fix safety
Safe: the field is removed whole; the chunk text is untouched. A system name on one
source only, or under another label on the next, is reported with an unsafe fix; when the
whole field cannot be removed (a slot inside a sentence, a key of text built in code), with
none. A slot is reported only inside a sources loop, where a renderer repeats it.
"""

from __future__ import annotations

from functools import cache

from ..meaning import vocabulary
from ..meaning.lexicon import Lexicon
from ..model.prompt import Field, Prompt, Source
from ._context import RuleContext
from ._fields import is_slot, read, remove_field, source_label

CODE = "PL202"
NAME = "source-system-name"
SUMMARY = "The name of the source system or connector is shown to the model"
FIX = "safe"
EFFECT = "0.00 gain for 4 tokens a source"


def _is_system(value: str, systems: frozenset[str]) -> bool:
    # Plain lower case: "SharePoint" is one word here, not camelCase to split.
    name = " ".join(value.strip(" \"'`").lower().replace("_", " ").split())
    return name in systems or any(name.startswith(s + " ") and not name[len(s) + 1 :].isalpha() for s in systems)


def _names_system(source: Source, field: Field, ambiguous: frozenset[str], lexicon: Lexicon) -> bool:
    """A slot of a sources loop whose name says it prints the system (`source_type`, `connector`),
    not one that may print a URL or a file name as well (`source`)."""
    return source.repeated and is_slot(field.value) and field.label not in ambiguous and lexicon.means(field.label, "system")


@cache
def _systems(words: tuple[str, ...]) -> frozenset[str]:
    # The rule asks for its list on every prompt: each list is normalised once.
    return frozenset(" ".join(w.lower().split()) for w in words)


def check(prompt: Prompt, ctx: RuleContext):
    systems = _systems(tuple(ctx.words("systems")))
    ambiguous = vocabulary.label_set(ctx.lexicon.phrases("origin"))
    for source in prompt.sources:
        for field in source.fields:
            named = (field.label == "" or ctx.lexicon.means(field.label, "system")) and _is_system(field.value, systems)
            if named or _names_system(source, field, ambiguous, ctx.lexicon):
                reading = read(prompt, source, field, "system", ctx.lexicon)
                yield ctx.finding(
                    prompt,
                    field.value_span,
                    f"{source_label(source)} {'names' if named else 'prints'} its source system ('{field.shown}'), "
                    "which tells the model nothing about the answer",
                    fix=remove_field(prompt, field, "Remove the system name", reading.applicability),
                    tokens_text=field.elsewhere,
                )
