"""Sources sorted by date.

## What it does
Flags a template that orders the sources by a date: `|sort(attribute='updated_at')`,
`sorted(docs, key=...date...)`, `|sort(attribute='published', reverse=true)`; code that
sorts what its loop renders by a date before the loop (`docs.sort(key=lambda d: d.date)`,
`df = df.sort_values(by="published")`, `for d in sorted(docs, key=itemgetter("date"))`); and a
label or heading that introduces the sources and says they are in date order
("Results, newest first:", "Memory content (in chronological order):"; a label right
before the sources introduces them, whatever it calls them), or a sentence
that says what is given is in date order ("meetings are ordered most recent first"),
which announces the order even when the context comes pre-joined. An order asked of the
answer ("List the events in chronological order") is not about the sources. In an
assembled prompt, sources whose dates are in order, newest or oldest first, are flagged
when there are at least five of them, all dated, with at least three different dates:
in a random order that happens less than once in 60 times.

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
from functools import cache

from ..meaning.values import parse_date
from ..meaning.vocabulary import patterns
from ..model.prompt import PartKind, Prompt, Span
from ._context import RuleContext

CODE = "PL302"
NAME = "chronological-order"
SUMMARY = "Sources are sorted by date instead of relevance"
EFFECT = "0.87 correctness against 0.91 for rank order"

_SORT_KEY = re.compile(r"sort(?:ed)?\s*\((?P<args>[^)]*)\)")


# A label or heading: a short line that ends with a colon, or a Markdown heading.
_LABEL = re.compile(r"\s*(?:#{1,6}\s+(?P<heading>.{1,80})|(?P<label>[^\n.!?]{1,80})[:\uff1a])\s*$")
LABEL_WORDS = 10


@cache
def _compiled(announced: tuple[str, ...], nouns: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    return patterns(list(announced)), _any_of(nouns)


@cache
def _any_of(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b")


def _announced(prompt: Prompt, ctx: RuleContext):
    """The labels that introduce the sources and say they are in date order."""
    phrases, nouns = _compiled(tuple(ctx.words("announced")), tuple(ctx.words("sources-nouns")))
    # A label that stands right before the first source introduces them, whatever it calls them
    # ("SIMILAR PAST FAILURES (most recent first):").
    first = prompt.sources[0].span.start if prompt.sources else None
    for part in prompt.parts:
        if part.kind is not PartKind.INSTRUCTIONS or not phrases.search(prompt.lower, part.span.start, part.span.end):
            continue
        offset = part.span.start
        for line in prompt.lower[part.span.start : part.span.end].split("\n"):
            label = _LABEL.match(line)
            group = label and ("heading" if label["heading"] else "label")
            if group and len(label[group].split()) <= LABEL_WORDS and (
                nouns.search(label[group]) or (first is not None and not prompt.text[offset + len(line) : first].strip())
            ):
                match = phrases.search(label[group])
                if match:
                    start = offset + label.start(group) + match.start()
                    yield Span(start, start + len(match[0]))
            offset += len(line) + 1


def _described(prompt: Prompt, ctx: RuleContext):
    """The sentences of the instructions that say the given items are in date order, unless what the
    sentence speaks of is the conversation (`not-sources`): turns and past queries come in time order."""
    sentence = patterns(ctx.words("described"))
    other = _any_of(tuple(ctx.words("not-sources")))
    for part in prompt.parts:
        if part.kind is PartKind.INSTRUCTIONS:
            for match in sentence.finditer(prompt.lower, part.span.start, part.span.end):
                opening = max(prompt.lower.rfind(mark, part.span.start, match.start()) for mark in ".!?\n")
                if not other.search(prompt.lower, max(opening, part.span.start), match.start()):
                    yield Span(match.start(), match.end())


# So many dated sources in date order are no accident: five in a random order are sorted either way 1 time in 60.
MIN_SORTED = 5


def _sorted_by_their_dates(prompt: Prompt, ctx: RuleContext) -> bool:
    """Every source dated, at least ``MIN_SORTED`` of them, at least three dates, and the dates in order
    (newest first or oldest first): what an assembled prompt shows of a sort by date."""
    if len(prompt.sources) < MIN_SORTED:
        return False
    dates = [next((d for f in ctx.fields(s, "date") if (d := parse_date(f.value))), None) for s in prompt.sources]
    if None in dates or len(set(dates)) < 3:
        return False
    pairs = list(zip(dates, dates[1:]))
    return all(a >= b for a, b in pairs) or all(a <= b for a, b in pairs)


def check(prompt: Prompt, ctx: RuleContext):
    if _sorted_by_their_dates(prompt, ctx):
        yield ctx.finding(
            prompt,
            prompt.sources[0].header,
            f"The {len(prompt.sources)} sources are in the order of their dates; chronological order ignores relevance "
            "(0.87 vs 0.91 for rank order)",
            tokens_text="",
        )
    for span in [*_announced(prompt, ctx), *_described(prompt, ctx)]:
        yield ctx.finding(
            prompt,
            span,
            "The sources are announced in date order; chronological order ignores relevance (0.87 vs 0.91 for rank order)",
            tokens_text="",
        )
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
