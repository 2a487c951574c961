"""A date on every source.

## What it does
Flags dates rendered on every source (two or more sources, all dated). A date is
worth showing only when it is a warning: the source is older than `stale-after` days,
rendered `(last updated YYYY-MM-DD)` (in XML, `<last_updated>YYYY-MM-DD</last_updated>`, or the element's value
written as that note). Stale notes in that form are the recommended form and are not flagged, on one source or on all, and
neither is what code prints through a function named for staleness (`stale_note(d.updated_at)`, `memoryStalenessNote(age)`:
its own note, shown when the source is stale); a plain `Date:` on every source is
flagged even when every date has gone stale since (a logged prompt linted a year on). A field is a
date by its name (`published_at`, `crawled_on`, `as_of`, `dateModified`, a `Year`), by its
value when its name says nothing else and the value is a date (alone, after a word or two that name it,
"updated 2026-11-20", or as the first of its items; not a title holding one, "Outlook (last updated
2025-10-15)"; in brackets where a citation key would open the source, "[2026-07-01] id=... (score=0.67)"), or in a template by the word after its slot
when that prints it as a time before now (`({age} ago)`: the `relative-suffixes` list). In a list of
sources one a line, a date that opens every item ("- 2023-04-10: `Stock tumbles` (Source: Barron's)") is one.
A knowledge graph's summaries sent as records under their sections' headings (LightRAG's "-----Entities(KG)-----"
and "-----Relationships(KG)-----": `graph-sections` in `rules/derived-text.yaml`; a JSON array, one JSON object a
line, or a CSV table) are read too: when every record of a section, two or more, carries a date under one field
(`created_at`, the day the graph took it in), one finding names the sections, with no fix, since the graph's library
writes the records.

## Why is this bad?
With a date everywhere the model starts preferring recency over relevance; on a
corpus where the authoritative policy is five years old and unchanged, that is
exactly backwards. Measured at -0.01 correctness for 7 tokens per source, while
a freshness note shown only when stale measured +0.02.

## Example
```
[1] Returns Policy (updated 2026-11-20)
[2] Shipping FAQ (updated 2026-10-02)
```

## Use instead
```
[1] Returns Policy
[2] Shipping FAQ
```
and `(last updated 2024-03-01)` only on a source that is actually stale.

## Fix safety
Safe: every date that is not stale is removed and each stale one is rewritten as
`(last updated YYYY-MM-DD)` in the header, all in one fix. When a date cannot be
read the fix is unsafe, since that date might have been a needed staleness warning;
so it is when no label says what a date dates ("- 2026-11-30: The user moved to Berlin (source: chat)":
perhaps the day the item tells of, a fact of it, not the source's); when the sources' date labels differ ("Updated:" on one, "Published:" on the
next), which no one renderer writes; when a stale date's label says it is no update ("Filed:",
"Published:", "Created:"), for the note would say the source was last updated then; and when every
date is stale by today's clock: the renderer may show a date only when it is stale, and a
"Published:" date would be rewritten as "last updated"; and when a label may name a fact the document states
("Effective Date:", "As of:", "Year:": `own-dates` in `rules/unconditional-date.yaml`). A label a domain word qualifies ("Due date",
"Date of birth", "Expiry date") is the document's own content and never a date here.

In a template, a date slot outside a staleness test fires; the unsafe fix wraps it
in `{% if doc.stale %}...{% endif %}`, and the flag must then be set in the render
context.

## Options
- `stale-after` (days, default 365): older than this, a source is stale.
- `stale-flag` (default `stale`): the loop item's attribute the template fix tests.
- The run's `today` setting fixes "now" for reproducible results.
"""

from __future__ import annotations

import datetime
import re

from ..meaning import vocabulary
from ..meaning.lexicon import Lexicon
from ..meaning.vocabulary import normalise_label
from ..meaning.values import is_date, parse_date
from ..model.findings import Applicability, Edit, Fix
from ..model.lines import remove_line
from ..model.prompt import Field, FieldForm, Prompt, Source, SourceStyle, Span
from ._context import RuleContext
from ._fields import is_slot, read, written
from ._sections import records, sections

CODE = "PL201"
NAME = "unconditional-date"
SUMMARY = "Every source carries a date, so the model prefers recency over relevance"
FIX = "safe/unsafe"
EFFECT = "−0.01 correctness, 7 tokens a source (a stale note only: +0.02)"
OPTIONS = {"stale-after": 365, "stale-flag": "stale"}
STALE_LABEL = "last updated"


def _date_field(source: Source, lexicon: Lexicon) -> tuple[Field, datetime.date | None] | None:
    for field in source.fields:
        if not field.value.strip():
            continue  # "Published    :" with nothing after it shows no date
        date = parse_date(field.value)
        # A label the lexicon does not know ("valid", or none) is a date by its value; one a domain
        # word qualifies ("due date", "date of birth") is the document's own date.
        known = lexicon.concepts(field.label) or lexicon.qualified(field.label, "date")
        if lexicon.means(field.label, "date") or (date is not None and not known and is_date(field.value)):
            return field, date
    return None


def is_stale(date: datetime.date | None, ctx: RuleContext) -> bool:
    return date is not None and (ctx.today - date).days > ctx.options["stale-after"]


def _canonical(field: Field, date: datetime.date) -> bool:
    """A stale note as the fix writes it: "(last updated 2015-01-01)" in a header, or in an element, whatever the
    element is named, "last updated 2015-01-01" (`<last_updated>2015-01-01</last_updated>` says the same)."""
    note = f"{STALE_LABEL} {date.isoformat()}"
    if field.form == FieldForm.TAG:
        return field.value == note or field.label == STALE_LABEL and field.value == date.isoformat()
    return field.form == FieldForm.INLINE and field.label == STALE_LABEL and field.value == date.isoformat()


def _header_end(prompt: Prompt, source: Source) -> int:
    """Where a stale note goes: the end of the header, before a parse warning."""
    warning = next((f for f in source.fields if f.label == "parse warning" and f.form == FieldForm.INLINE), None)
    return warning.span.start if warning else source.header.end


def _edits(prompt: Prompt, source: Source, field: Field, date: datetime.date | None, ctx: RuleContext) -> tuple[Edit, ...]:
    if date is None or not is_stale(date, ctx):
        return (Edit(remove_line(prompt.text, field.span) if field.form == FieldForm.LINE else field.span),)
    note = f"{STALE_LABEL} {date.isoformat()}"
    if source.style == SourceStyle.XML:
        return (Edit(field.value_span, note),)
    if field.form == FieldForm.INLINE and source.header.contains(field.span):
        return (Edit(field.span, f" ({note})"),)
    at = _header_end(prompt, source)
    return (Edit(field.span), Edit(Span(at, at), f" ({note})"))


def _fix(prompt: Prompt, dated: list, ctx: RuleContext) -> Fix:
    """One fix for every source at once: removing only some dates would leave the rest unjudged."""
    edits = [e for source, (field, date) in dated for e in _edits(prompt, source, field, date, ctx)]
    unreadable = any(date is None for _, (_, date) in dated)
    if unreadable:
        return Fix(Applicability.UNSAFE, tuple(edits), "Remove the dates (one could not be read) and keep stale ones as notes")
    if not all(read(prompt, source, field, "date", ctx.lexicon).certain for source, (field, _) in dated):
        # "Updated:" on one source, "Published:" on the next: no one renderer wrote them.
        return Fix(Applicability.UNSAFE, tuple(edits), "Remove the dates (their labels differ) and keep stale ones as notes")
    if any(not field.label for _, (field, _) in dated):
        # "- 2026-11-30: The user moved to Berlin": a date no label names may be when what the text tells happened.
        return Fix(Applicability.UNSAFE, tuple(edits), "Remove the dates (no label says they date the source) and keep stale ones as notes")
    own_dates = ctx.labels("own-dates")
    if any(field.label in own_dates for _, (field, _) in dated):
        # "Effective Date: 2026-01-27" on each policy: the day it takes effect is the policy's own fact.
        return Fix(Applicability.UNSAFE, tuple(edits), "Remove the dates (their label may name a fact of the document) and keep stale ones as notes")
    updates = vocabulary.label_set(ctx.lexicon.words("unconditional-date", "update-labels"))
    if any(is_stale(date, ctx) and field.label not in updates and not _canonical(field, date) for _, (field, date) in dated):
        # "Filed: 2024-02-02" would become "(last updated 2024-02-02)": a filing date is not when the source changed.
        return Fix(Applicability.UNSAFE, tuple(edits), "Remove the dates that are not stale; keep stale ones as notes (their label names no update)")
    if all(date is not None and is_stale(date, ctx) for _, (_, date) in dated):
        # Stale by today's clock, each one: the renderer may show a date only when stale, and "Published:"
        # would be rewritten as "last updated". Nothing tells the two readings apart.
        return Fix(Applicability.UNSAFE, tuple(edits), "Keep the dates, all stale now, as stale notes")
    return Fix(Applicability.SAFE, tuple(edits), "Remove the dates that are not stale; keep stale ones as notes")


def _template_findings(prompt: Prompt, ctx: RuleContext):
    """A date slot in a source template, outside a staleness test, is rendered on every source."""
    for source in prompt.sources:
        for field in source.fields:
            if source.repeated and (ctx.lexicon.means(field.label, "date") or _relative(prompt, field, ctx)) and not field.conditional:
                yield ctx.finding(
                    prompt,
                    field.value_span,
                    f"Every source is rendered with its date ('{written(prompt, field)}'); show a date only when it is stale",
                    fix=_wrap_in_staleness_test(prompt, source, field, ctx),
                    tokens_text=field.elsewhere or prompt.text[field.span.start : field.span.end],
                )


def _relative(prompt: Prompt, field: Field, ctx: RuleContext) -> bool:
    """A slot printed as a time before now ("{age} ago"): a date, whatever the slot is named."""
    after = prompt.text[field.value_span.end : field.value_span.end + 16].lower()
    return is_slot(field.value) and any(re.match(rf"[ \t]*{re.escape(word)}(?!\w)", after) for word in ctx.words("relative-suffixes"))


def _wrap_in_staleness_test(prompt: Prompt, source: Source, field: Field, ctx: RuleContext) -> Fix | None:
    """In a Jinja template: show the date only under `{% if doc.<flag> %}`; the flag must be in the render context."""
    root = re.match(r"\{\{-?\s*([A-Za-z_]\w*)", field.value)
    if source.style != SourceStyle.TEMPLATE or not root:
        return None
    test = f"{{% if {root[1]}.{ctx.options['stale-flag']} %}}"
    original = prompt.text[field.span.start : field.span.end]
    return Fix(
        Applicability.UNSAFE,
        (Edit(field.span, f"{test}{original}{{% endif %}}"),),
        f"Show the date only when the source is stale ({root[1]}.{ctx.options['stale-flag']})",
    )


def _graph_records(prompt: Prompt, ctx: RuleContext):
    """The records of a knowledge graph's summaries (`graph-sections` in `rules/derived-text.yaml`: LightRAG's
    "-----Entities(KG)-----" and "-----Relationships(KG)-----"), when every record of a section, two or more, carries
    a date under one field (`created_at`): one finding, at the first, with no fix (the graph's library writes them)."""
    graph = vocabulary.label_set(ctx.lexicon.words("derived-text", "graph-sections"))
    dated = []
    for section in (s for s in sections(prompt) if s.name in graph):
        listed = records(prompt.text, section.body)
        keys = [k for k in listed[0] if ctx.lexicon.means(normalise_label(k), "date")] if len(listed) > 1 else []
        key = next((k for k in keys if all(parse_date(r.get(k) or "") for r in listed)), None)
        if key is not None and (at := prompt.text.find(key, section.body.start, section.body.end)) >= 0:
            dated.append((section, key, Span(at, at + len(key)), " ".join(f'"{key}": "{r[key]}",' for r in listed)))
    if dated:
        _, key, at, _ = dated[0]
        names = ", ".join(f"'{prompt.text[s.heading.start : s.heading.end]}'" for s, *_ in dated)
        yield ctx.finding(
            prompt,
            at,
            f"Every record of the knowledge graph's summaries ({names}) carries its date ('{key}'); a date on every "
            "record makes the model prefer recency over relevance",
            tokens_text=" ".join(cost for *_, cost in dated),
        )


def check(prompt: Prompt, ctx: RuleContext):
    yield from _template_findings(prompt, ctx)
    yield from _graph_records(prompt, ctx)
    if len(prompt.sources) < 2 or any(s.repeated for s in prompt.sources):
        return
    dated = [(source, _date_field(source, ctx.lexicon)) for source in prompt.sources]
    if any(found is None for _, found in dated):
        return
    # Stale dates already written as notes are the recommended form; any other date on every source is not,
    # even when all of them have gone stale since (a logged prompt read a year later).
    dated = [(source, found) for source, found in dated if not (is_stale(found[1], ctx) and _canonical(*found))]
    if not dated:
        return
    fix = _fix(prompt, dated, ctx)
    for source, (field, date) in dated:
        yield ctx.finding(
            prompt,
            field.value_span,
            f"All {len(prompt.sources)} sources are dated; a date on every source makes the model prefer recency over relevance",
            fix=fix,
            tokens_text=field.elsewhere or prompt.text[field.span.start : field.span.end],
        )
