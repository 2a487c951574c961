"""Derived text beside its source.

## What it does
Flags text derived from a source and placed next to it: a summary, TL;DR, key
facts or points, highlights, a generated title (`document_title`), extracted
keywords, or an explanation of why the chunk was retrieved. Only the source's
wrapper counts: a "Summary" section inside the document's own text is content.
A `document_title` is a generated title only beside another name of the source (a
file name, a title); alone, or beside a section's title, it is the source's title, and so
it is where the renderer labels it as the title (`Title: {source.document_title}`). A document's header above its
chunks (`Document Title: ...` then `Summary: ...`) counts as their wrapper. A page's
précis (`Description:`, `Abstract:`, a search engine's `Snippet:`, the `precis-labels` word list) is
derived text only beside the page's own text under a content label (`Content:`, `Text:`); alone,
it is the content the source has. A summary written as a label alone on its line and
the lines under it (`SUMMARY:`, then its text) counts when the source has text after it;
with none, that text is the source's own. A source with no text beside the derived text
is never reported, nor a field that holds no value (`'guard_summary': None`, `null`, empty). A knowledge graph's summaries, each a section under a heading marked as one
(`-----Entities-----`, `## Relationships`, `=== Community Reports ===`: the `graph-sections` list), sent
beside a section of the chunks they were written from (`-----Sources-----`, `Document Chunks`: the
`text-sections` list) are reported once, at the first summary's heading, with no fix: which to keep
is the application's choice. So is, in a template that asks a question from a context given as one slot, a slot
that prints a summary (by its name, `{doc_summary}`, or its label, `Summary:`) in the paragraph of the context's slot
(`Summary of the policy:{summary}` over `Context from document:{context}`); not a summary of the conversation
(`{chat_summary}`, `history-vars` in `rules/segment.yaml`).

## Why is this bad?
The model cannot tell which of the two is authoritative, and the derived copy is
shorter and lossy, so it often wins. A one-line ingest-time summary above each
source dropped correctness from 0.91 to 0.86 in the measured system; generated
titles, extracted facts, highlighted sentences and relevance explanations all cost
correctness too. Derived text also goes stale without anyone noticing.

## Example
```
[1] Returns Policy
Summary: This section covers returns within the warranty period.
Damaged goods may be returned within 30 days of delivery...
```

## Use instead
```
[1] Returns Policy — Returns > Damaged goods
Damaged goods may be returned within 30 days of delivery...
```
The heading path orients the model in 8 tokens and cannot disagree with the text.

## Fix safety
Safe: the derived line or element is removed; the chunk text is untouched. Safe only
when a renderer wrote it: a template's field, or in assembled text the same label on two
or more of the sources written the same way and no other such label beside it. A
`Summary:` on one source only may be the document's own, and its fix is unsafe. A generated title
(`document_title`) may be the document's real title, a search snippet is the page's own words, which a
page text cut to a limit may not hold, and a summary of the whole document or of a section around or next to the
chunk (`Document summary:`, `prev_section_summary`), or a blurb that situates a chunk in its document (contextual
retrieval's `contextualized_content`), is drawn from beyond the chunk and may hold a fact it does not: their fixes
are always unsafe.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..meaning import values
from ..meaning.vocabulary import normalise_label
from ..model.findings import Applicability
from ..model.prompt import Field, PartKind, Prompt, Source, Span
from ._context import RuleContext
from ._fields import Reading, label_written, read, remove_field, source_label
from ._sections import sections

CODE = "PL104"
NAME = "derived-text"
SUMMARY = "Text derived from a source (summary, key facts, generated title) sits beside it"
FIX = "safe"
EFFECT = "0.91 → 0.86 correctness with a summary line per source"


def check(prompt: Prompt, ctx: RuleContext):
    yield from _graph_beside_text(prompt, ctx)
    yield from _summary_beside_the_context(prompt, ctx)
    for reading in [*ctx.readings(prompt, "derived"), *_precis(prompt, ctx)]:
        source, field = reading.source, reading.field
        if values.is_null(field.value) or _names_the_source(source, field, ctx) or _titled_as_such(prompt, field, ctx):
            continue
        if not prompt.text[source.content.start : source.content.end].strip():
            continue  # nothing beside it: the derived text is all the source has, and removing it would remove that

        yield ctx.finding(
            prompt,
            field.span,
            f"{source_label(source)} carries derived text ('{label_written(prompt, field)}') beside its content; "
            "the shorter, lossy copy competes with the source",
            fix=remove_field(prompt, field, f"Remove the {field.label}", _applicability(prompt, reading, ctx)),
            tokens_text=field.elsewhere,
        )


def _graph_beside_text(prompt: Prompt, ctx: RuleContext) -> Iterator:
    """A knowledge graph's summaries (entities, relations, community reports, each a section under its heading) sent
    beside a section of the chunks they were extracted from: one finding, at the first such summary's heading."""
    found = sections(prompt)
    graph, text = ctx.labels("graph-sections"), ctx.labels("text-sections")
    summaries = [s for s in found if s.name in graph]
    chunks = [s for s in found if s.name in text]
    if not summaries or not chunks:
        return
    names = ", ".join(f"'{prompt.text[s.heading.start : s.heading.end]}'" for s in summaries)
    yield ctx.finding(
        prompt,
        summaries[0].heading,
        f"A knowledge graph's summaries ({names}) are sent beside the chunks they were extracted from "
        f"('{prompt.text[chunks[0].heading.start : chunks[0].heading.end]}'); the shorter, lossy copies compete with the text",
        tokens_text="".join(prompt.text[s.body.start : s.body.end] for s in summaries),
    )


# A value a template prints: `{summary}`, `{{ doc_summary }}`, `${summary}`.
_PRINTED = re.compile(r"\$?\{\{?[ \t]*(?P<name>[A-Za-z_][\w.]*)[ \t]*\}?\}")


def _summary_beside_the_context(prompt: Prompt, ctx: RuleContext) -> Iterator:
    """In a template whose retrieved context is one slot, a slot that prints a summary (by its name or its label:
    "Summary of the policy:{summary}") in the paragraph of the context's slot: a summary sent beside the text it
    was written from, to answer a question. Not a summary of the conversation (`{chat_summary}`), which the sources did
    not give, nor one a prompt that asks no question is given to refine (a summarizer's running summary)."""
    if prompt.assembled or prompt.sources or "{" not in prompt.text or not any(p.kind is PartKind.QUESTION for p in prompt.parts):
        return
    history = frozenset(word for phrase in ctx.lexicon.words("segment", "history-vars") for word in phrase.split())
    for part in (p for p in prompt.parts if p.kind is PartKind.SOURCES):
        start, end = _paragraph(prompt.text, part.span)
        for printed in _PRINTED.finditer(prompt.text, start, end):
            at = printed.start()
            if any(p.kind is not PartKind.INSTRUCTIONS and p.span.start <= at < p.span.end for p in prompt.parts):
                continue  # the context's slot, or another the request fills (the question, the history)
            name = normalise_label(printed["name"].rsplit(".", 1)[-1])
            label = normalise_label(prompt.text[prompt.text.rfind("\n", 0, at) + 1 : at].strip(" \t:*#-"))
            if not (ctx.lexicon.means(name, "derived") or ctx.lexicon.means(label, "derived")) or history.intersection(f"{name} {label}".split()):
                continue
            yield ctx.finding(
                prompt,
                Span(at, printed.end()),
                f"A summary ('{printed[0]}') is sent beside the retrieved context ('{prompt.text[part.span.start : part.span.end]}') it was "
                "written from; the shorter, lossy copy competes with the text",
                tokens_text="",
            )


def _paragraph(text: str, span: Span) -> tuple[int, int]:
    """The lines around ``span`` up to a blank line on each side."""
    start = text.rfind("\n\n", 0, span.start)
    end = text.find("\n\n", span.end)
    return (start + 2 if start >= 0 else 0), (end if end >= 0 else len(text))


def _applicability(prompt: Prompt, reading: Reading, ctx: RuleContext) -> Applicability:
    """A title under a derived-sounding label may be the document's own title, a snippet is the page's own
    words, which the text beside it may not hold whole (a page cut to a limit), and a summary of the document or
    of another section, or a blurb that situates the chunk in its document, is drawn from beyond the chunk: facts
    no fix may take unasked, so removing any is unsafe, however the renderer wrote it."""
    kept = ctx.labels("extract-labels") | ctx.labels("beyond-the-chunk")
    labels = {reading.field.label, normalise_label(label_written(prompt, reading.field).strip("*_#: "))}
    if ctx.lexicon.means(reading.field.label.split()[-1], "title") or labels & kept:
        return min(reading.applicability, Applicability.UNSAFE)
    return reading.applicability


def _precis(prompt: Prompt, ctx: RuleContext) -> Iterator[Reading]:
    """A description or snippet beside the page's own text under a content label: the search
    engine's précis sent with the page it was taken from."""
    precis = ctx.labels("precis-labels")
    for source in prompt.sources:
        # Whether the text stands under a content label matters only beside a précis: most sources
        # have none, and their header lines are not looked up in the lexicon.
        # By its label, or (a field read from a slot, `Snippet: {clean_snippet}`) by the label the file writes before it.
        fields = [f for f in source.fields if f.label in precis or normalise_label(label_written(prompt, f).strip("*_#: ")) in precis]
        if fields and _content_labelled(prompt, source, precis, ctx):
            yield from (read(prompt, source, f, "derived", ctx.lexicon) for f in fields)


def _content_labelled(prompt: Prompt, source: Source, precis: frozenset[str], ctx: RuleContext) -> bool:
    """Whether the source's text stands under a content label: a field of its own, or the label
    that opens the content's line or stands on the line before it."""
    if any(ctx.lexicon.means(f.label, "content") and f.label not in precis for f in source.fields):
        return True
    before = prompt.text[source.header.start : source.content.start].rstrip(" \t\n")
    label = before[before.rfind("\n") + 1 :].strip(" \t*#").rstrip(":\uff1a").strip()
    return bool(label) and label.lower() not in precis and ctx.lexicon.means(label, "content")


def _titled_as_such(prompt: Prompt, field: Field, ctx: RuleContext) -> bool:
    """A value the file labels as the title ("Title: {source.document_title}") is the title the renderer
    names, whatever its key; a generated title is printed under its key ("document_title: ...")."""
    label = normalise_label(label_written(prompt, field))
    return label != field.label and ctx.lexicon.means(label, "title") and not ctx.lexicon.means(label, "derived")


def _names_the_source(source: Source, field: Field, ctx: RuleContext) -> bool:
    """A title under a derived-sounding label ("document_title") is generated, and competes, only
    beside another name of the source (a file name, a title); alone, it is the source's title. A section's
    title beside it names a part of the document, not the document."""
    return ctx.lexicon.means(field.label.split()[-1], "title") and not any(
        ctx.lexicon.means(other.label, "title") and not ctx.lexicon.means(other.label, "heading")
        for other in source.fields
        if other is not field
    )
