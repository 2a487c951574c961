"""A metadata field rendered on every source.

## What it does
Advisory, and off by default (`extend-select: [PL206]` turns it on). Flags a
metadata field that every source carries (two or more sources, or a source
template that prints it for each item): an author, a URL, a category, a language,
a file type. Titles, heading paths and citation keys are left alone, and so are
the fields other rules report (scores, dates, system names, chunk ordinals,
derived text). Reported once per field, at its first source; the message names
the field and the tokens it costs.

## Why is this bad?
Conditional metadata is the reference chapter's rule throughout: a field that
appears on every source is noise the model learns to skip, while a field that
appears on one is a signal. Every field also costs its tokens once per source, out
of a budget that should go to content.

## Example
```
[1] Returns Policy
Author: J. Smith
Damaged goods may be returned within 30 days.

[2] Shipping FAQ
Author: K. Lee
Orders ship within two business days.
```

## Use instead
```
[1] Returns Policy
Damaged goods may be returned within 30 days.

[2] Shipping FAQ
Orders ship within two business days.
```
and the field only on the source where it tells the model something.

## Fix safety
No fix: whether a field is a signal for some sources is decided where the prompt is built.
"""

from __future__ import annotations

from ..meaning import tokens
from ..model.findings import Severity
from ..model.prompt import Field, Prompt, Source
from ._context import RuleContext
from ._fields import label_written

CODE = "PL206"
NAME = "unconditional-field"
SUMMARY = "A metadata field is rendered on every source, so it is noise rather than a signal"
EFFECT = "noise, paid for on every source (not measured)"
SEVERITY = Severity.INFO
DEFAULT = False

# What lets the model cite a source or read it: never noise. A URL is also a title
# (it names a source that has none), but only when it is the source's title.
_IDENTIFYING = frozenset({"title", "heading", "key", "content", "warning"})


def _judged(field: Field, source: Source, ctx: RuleContext) -> bool:
    """Whether this rule judges the field: labelled, not identifying, and reported by no other rule."""
    if not field.label or not field.value or field.conditional or field.value == source.title:
        return False
    if "\n" in field.value.strip() or field.value.lstrip().startswith("<"):
        return False  # an element that holds more elements or lines: part of the wrapper, not a field
    concepts = ctx.lexicon.concepts(field.label)
    if concepts & _IDENTIFYING and "url" not in concepts:
        return False
    return not ctx.lexicon.reported(field.label)


def _text(prompt: Prompt, field: Field) -> str:
    """What the field costs: its label and value as rendered (in another file, as written there)."""
    return field.elsewhere if field.elsewhere is not None else prompt.text[field.span.start : field.span.end]


def _on_every_source(prompt: Prompt, ctx: RuleContext) -> list[list[Field]]:
    """Each field rendered on every source, as the list of its renderings."""
    templates = [s for s in prompt.sources if s.repeated]
    if templates:
        # A source template prints its fields for every item it renders.
        return [[f] for s in templates for f in {f.label: f for f in reversed(s.fields) if _judged(f, s, ctx)}.values()]
    if len(prompt.sources) < 2:
        return []
    per_source = [{f.label: f for f in reversed(s.fields) if _judged(f, s, ctx)} for s in prompt.sources]
    common = set.intersection(*(set(found) for found in per_source))
    return [[found[label] for found in per_source] for label in common]


def check(prompt: Prompt, ctx: RuleContext):
    everywhere = "every source" if any(s.repeated for s in prompt.sources) else f"each of the {len(prompt.sources)} sources"
    for rendered in sorted(_on_every_source(prompt, ctx), key=lambda fields: fields[0].value_span.start):
        first = rendered[0]
        yield ctx.finding(
            prompt,
            first.value_span,
            f"The field '{label_written(prompt, first)}' ({tokens.count(_text(prompt, first))} tokens) is rendered on {everywhere}; "
            "a field on every source is noise the model learns to skip, a field on one is a signal",
            tokens_text="".join(_text(prompt, f) for f in rendered),
        )
