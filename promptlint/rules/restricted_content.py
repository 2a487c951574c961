"""Restricted content sent to the model.

## What it does
Flags a source marked restricted, confidential or do-not-use (`[RESTRICTED]`,
`classification: confidential`, "do not use this document"), a template loop over
restricted items (`{% for c in forbidden %}`), and an instruction
that tells the model not to use restricted or confidential sources, or says the
context may include confidential or personal data that it must never disclose:
either means such content is being sent. Such a sentence names what is given (a
document, the context), a class of restricted content and forbids using it ("If a document
is marked confidential, ignore it", "Never quote confidential documents"); "do not use your internal knowledge" names no
restricted content, "Do not store retrieved content or sensitive inferences in memory" forbids no use of it, and
"Do not generate answers that don't use the internal sources" asks that they be used (the negation in a clause
that describes the answers forbids nothing). Written apart, a sentence that says what is given may hold such
content ("Some of these documents may contain PII.") and another that forbids it
("Never reveal sensitive details.") are one finding, at the first. Markers and words are in `rules/restricted-content.yaml`.

## Why is this bad?
Sending forbidden content with an instruction not to use it treats the prompt as a
permission system, which it is not: the model may still use it, and the content
now sits in your logs and traces. Filter it before the prompt is built.

## Example
```
[2] [RESTRICTED] Q3 layoff plan
...
```

## Use instead
Leave the source out; enforce access before retrieval results reach the prompt.

## Fix safety
Unsafe: the whole marked source is dropped, which changes what the model can cite.
An instruction about restricted content is reported without a fix.
"""

from __future__ import annotations

import re
from functools import cache

from ..meaning.vocabulary import alternation, may_match, patterns
from ..model.findings import Severity
from ..model.prompt import PartKind, Prompt, Span
from ._context import RuleContext
from ._fields import remove_source, source_label

CODE = "PL105"
NAME = "restricted-content"
SUMMARY = "Content marked restricted or do-not-use is sent to the model"
FIX = "unsafe"
EFFECT = "the model may still use it, and it is logged (not measured)"
SEVERITY = Severity.ERROR


_RESTRICTED_NAME = re.compile(r"\b\w*(?:restricted|forbidden|confidential|denied|blocked|secret|classified)\w*\b")


def _first_line(prompt: Prompt, span: Span) -> Span:
    end = prompt.text.find("\n", span.start, span.end)
    return Span(span.start, span.end if end < 0 else end)


def check(prompt: Prompt, ctx: RuleContext):
    marker_words = ctx.words("markers")
    markers = patterns(marker_words)
    for source in prompt.sources:
        scopes = [source.header, _first_line(prompt, source.content)] + [f.span for f in source.fields] + source.wrapper_lines
        # Most scopes hold none of the markers' fixed strings: they are not searched. Nor, most often, does
        # the stretch that holds them all (the header, the fields, the first line), looked at once. (The
        # instructions below are searched without this test: they are a small part of a prompt.)
        if not may_match(marker_words, prompt.lower, min(s.start for s in scopes), max(s.end for s in scopes)):
            continue
        match = next((m for s in scopes if may_match(marker_words, prompt.lower, s.start, s.end) and (m := markers.search(prompt.lower, s.start, s.end))), None)
        if match:
            yield ctx.finding(
                prompt,
                Span(match.start(), match.end()),
                f"{source_label(source)} is marked '{prompt.text[match.start():match.end()]}' "
                "and is still sent; an instruction not to use it is no access control",
                fix=remove_source(prompt, source, "Drop the restricted source"),
            )
    for source in prompt.sources:
        # A template loop over restricted items sends every one of them.
        match = _RESTRICTED_NAME.search(source.collection.lower())
        if match:
            yield ctx.finding(
                prompt,
                source.header,
                f"The sources loop iterates '{source.collection}': restricted content is rendered into the prompt",
                tokens_text="",
            )
    for span in _restricting(prompt, ctx):
        yield ctx.finding(
            prompt,
            span,
            "The prompt tells the model not to use restricted content, so such content is being sent; "
            "filter it before the prompt is built",
            tokens_text="",
        )


# A sentence from its first word to its stop (or the last word of a line without one).
_SENTENCE = re.compile(r"[^\s.!?](?:[^.!?\n]*[^\s.!?])?[.!?]?")


@cache
def _words(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(?:" + alternation(words) + r")(?![\w-])")


@cache
def _forbidding(forbidding: tuple[str, ...], negations: tuple[str, ...], acts: tuple[str, ...]) -> re.Pattern[str]:
    """A word that forbids by itself ("ignore", "omit"), or a negation with an act of using after it, at most
    two words apart ("never quote", "do not directly use"); not a negation that opens a relative clause ("answers
    that don't use the internal sources"): that describes something else, and forbids no use."""
    return re.compile(
        r"(?<![\w-])(?:(?:" + alternation(forbidding) + r")|(?<!\bthat\s)(?<!\bwhich\s)(?<!\bwho\s)(?:" + alternation(negations) + r")\s+(?:\w+\s+){0,2}?(?:" + alternation(acts) + r"))(?![\w-])"
    )


def _restricting(prompt: Prompt, ctx: RuleContext) -> list[Span]:
    """The places in the instructions that tell the model not to use restricted content: a phrase
    of rules/restricted-content.yaml, or a sentence that names what is given, a class of
    restricted content, and forbids it; or, when none does, the first sentence that says what is
    given may hold such content while another forbids it. One finding a sentence."""
    phrases = patterns(ctx.words("instructions"))
    given, restricted, holding = (_words(tuple(ctx.words(key))) for key in ("given", "restricted", "holding"))
    forbidding = _forbidding(tuple(ctx.words("forbidding")), tuple(ctx.words("negations")), tuple(ctx.words("acts")))
    sentences = [s for part in prompt.parts if part.kind is PartKind.INSTRUCTIONS for s in _SENTENCE.finditer(prompt.lower, part.span.start, part.span.end)]
    found, announcing = [], []
    forbids_the_class = False
    for sentence in sentences:
        start, end = sentence.start(), sentence.end()
        # But for a phrase, a sentence counts only where it names a class of restricted content: most
        # name none, and are not searched for the other words.
        names = restricted.search(prompt.lower, start, end) is not None
        says = [names and bool(w.search(prompt.lower, start, end)) for w in (given, forbidding, holding)]
        phrase = phrases.search(prompt.lower, start, end)
        if phrase:
            found.append(Span(phrase.start(), phrase.end()))
        elif says[0] and says[1]:
            found.append(Span(start, end))
        elif says[0] and says[2]:
            announcing.append(Span(start, end))
        forbids_the_class = forbids_the_class or says[1]
    # One cause: the announcement counts only where no sentence already said it all.
    return found or (announcing[:1] if forbids_the_class else [])
