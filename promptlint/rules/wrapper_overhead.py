"""Heavy per-source wrapper.

## What it does
Flags a source whose wrapper (header line, metadata lines, tags: everything but
the chunk text) costs more than `wrapper-budget` tokens, 25 by default, and more
than the canonical header for the same source would, by at least `min-saving` tokens (a long title, a heading
path, a stale note and a parse warning are worth their tokens; the rest is not).
Fields that another rule already reports (scores, dates, system names, ordinals,
derived text) and instruction lines (PL103) are not counted again here (an empty one,
"Published    :", is reported by none and is counted), nor are fence lines (`-----`, a code
fence) that only mark where the text begins and ends.

A header line alone that names the source and carries no labelled field of its own (`[1] Civil
Code – Article 466 (Repayment of loans), Clause 5 (similarity: 0.67)`, its score left to PL102) is
its title and outline as written, which the canonical header keeps: not measured, however long.

Only a wrapper a renderer certainly repeats around retrieved text is measured: a request
body's document blocks (whose own structure, the provider's, is not counted), or a source
whose skeleton (the wrapper with its values and digits masked) at least one other source
of the prompt shares, whose content is its longest varying text, and none of whose
fields is a chat turn ("User:", "AI:"). Sections of instructions, worked examples,
output formats and few-shot chat exchanges read as sources are left alone. A template's
loop body holds slots, not the text the model gets, and is not measured.

## Why is this bad?
A good wrapper (citation key, title, heading path, a stale note or parse warning
only when present) costs about 25 tokens; the chunk itself about 420. Beyond that,
metadata competes with the content for the model's attention and for the budget.

## Example
```
<document index="1"><source>returns.pdf</source><chunk_id>8f3a91</chunk_id>
<retrieved_at>2026-12-01T10:22:03Z</retrieved_at><connector>sharepoint</connector>...
```

## Use instead
```
[1] Returns and Credits Policy — Returns > Damaged goods
```

One finding covers every such source of a prompt, at the first: one renderer wraps them all. It says how
many there are and which costs the most.

## Fix safety
No fix of its own: the other metadata rules remove the fields that cost the most.

## Options
- `wrapper-budget` (tokens, default 25).
- `min-saving` (tokens, default 10): a wrapper is reported only when it costs at least this
  much more than the larger of the budget and the canonical header, more than one metadata
  field costs; a wrapper a few tokens over is not worth rewriting.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter

from ..canonical.chunks import to_chunk
from ..canonical.render import render_header
from ..meaning import tokens
from ..meaning.lexicon import Lexicon
from ..model.prompt import Prompt, Source, SourceStyle, Span
from ._context import RuleContext
from ._fields import source_label

CODE = "PL402"
NAME = "wrapper-overhead"
SUMMARY = "A source's wrapper costs more tokens than the wrapper budget"
EFFECT = "a good wrapper is ~25 tokens beside a ~420-token chunk"
OPTIONS = {"wrapper-budget": 25, "min-saving": 10}


_FENCE = re.compile(r"^[ \t]*(?:[-=*_]{3,}|```\w*)[ \t]*\n?", re.MULTILINE)
_MASK = "\x00"


def _outside(prompt: Prompt, source: Source, skip: list[Span], mark: str = "") -> str:
    """The source's text outside the spans of ``skip``, each gap left as ``mark``."""
    pieces, pos = [], source.span.start
    for span in sorted(skip) + [Span(source.span.end, source.span.end)]:
        if span.start >= pos:
            pieces.append(prompt.text[pos : span.start])
            pos = span.end
    return mark.join(pieces)


def _skeleton(prompt: Prompt, source: Source) -> str:
    """The wrapper as a renderer writes it for every source: the text outside the content with each
    value (a field's, the key, the title, the headings, a note on one source) and every digit masked,
    and whitespace collapsed."""
    values = [f.value_span for f in source.fields] + source.wrapper_lines + ([source.key_span] if source.key_span else [])
    text = _outside(prompt, source, values + [source.content], _MASK)
    for value in filter(None, (source.title, *source.heading_path)):
        text = text.replace(value, _MASK)
    return re.sub(f"{_MASK}(?:\\s*{_MASK})+", _MASK, " ".join(re.sub(r"\d+", "#", text).split()))


def _words(text: str) -> int:
    return len(text.split())


def _read_as_sources(prompt: Prompt, lexicon: Lexicon) -> list[Source]:
    """The sources whose wrapper is certainly one a renderer repeats around retrieved text.

    A request body's document blocks are; otherwise the unit must repeat (two sources or more
    share its skeleton), its content must be its longest varying text, and no field of it may be
    a turn of a conversation. A block of instructions, a worked example or a few-shot exchange
    read as a source fails one of these: its "wrapper" is text no sibling repeats, its "content"
    is a label ("Example Chat History:") under values longer than itself, or its fields are the
    turns of an example chat ("User:", "AI:").
    """
    skeletons = {s.position: _skeleton(prompt, s) for s in prompt.sources}
    shared = Counter(skeletons.values())
    roles = frozenset(lexicon.words("segment", "role-markers"))
    return [s for s in prompt.sources if s.marked or (shared[skeletons[s.position]] > 1 and _unit_of_text(prompt, s, roles))]


def _unit_of_text(prompt: Prompt, source: Source, roles: frozenset[str]) -> bool:
    """Whether the content is the source's longest varying text and no field is a chat turn."""
    if any(f.label in roles for f in source.fields):
        return False
    most = max((_words(f.value) for f in source.fields), default=-1)
    # More words than the longest field: the content's words are counted only that far.
    return most < 0 or len(prompt.text[source.content.start : source.content.end].split(None, most)) > most


def _wrapper(prompt: Prompt, source: Source, lexicon: Lexicon) -> str:
    """The source's text outside its content, less the fields and instruction lines other rules report."""
    # An empty field ("Published    :") is reported by no rule: its label is counted here.
    skip = [f.span for f in source.fields if f.value.strip() and lexicon.reported(f.label)] + source.wrapper_lines
    return _FENCE.sub("", _outside(prompt, source, skip + [source.content]))


def _named_only(prompt: Prompt, source: Source, lexicon: Lexicon) -> bool:
    """Whether a source's wrapper is one header line that names it and nothing else: no line of its own
    beside it, and no labelled field that no other rule reports ("[1] Civil Code – Article 466 (Repayment),
    Clause 5"). Its words are the document's title and outline as written, which the canonical header keeps."""
    before, after = prompt.text[source.span.start : source.content.start].strip(), prompt.text[source.content.end : source.span.end].strip()
    if source.style != SourceStyle.TEXT or source.wrapper_lines or "\n" in before or after:
        return False
    return all(not f.label or lexicon.reported(f.label) for f in source.fields)


def _canonical_header(prompt: Prompt, source: Source, ctx: RuleContext) -> str:
    return render_header(to_chunk(prompt, source), source.key or source.position + 1, today=ctx.today) + "\n"


def check(prompt: Prompt, ctx: RuleContext):
    budget = ctx.options["wrapper-budget"]
    # A source template's wrapper holds slots, not the text the model gets: not measurable.
    # Cheap bound first: a wrapper this short needs no encoding, nor the sources read as a renderer's units.
    over = [(s, w) for s in prompt.sources if not s.repeated and tokens.at_most(w := _wrapper(prompt, s, ctx.lexicon)) > budget and not _named_only(prompt, s, ctx.lexicon)]
    # A wrapper written as the canonical header costs exactly what it would: never more, so neither
    # is counted (a clean prompt in the canonical layout then loads no tokenizer), nor are the
    # sources read as a renderer's units.
    over = [(s, w, header) for s, w in over if w != (header := _canonical_header(prompt, s, ctx))]
    read = {id(s) for s in _read_as_sources(prompt, ctx.lexicon)} if over else set()
    heavy = []  # (source, its wrapper's cost, its canonical header's), for each source worth reporting
    for source, wrapper, header in ((s, w, h) for s, w, h in over if id(s) in read):
        if (cost := tokens.count(wrapper)) <= budget:
            continue
        canonical = tokens.count(header)
        # Fewer tokens saved than one metadata field costs (3 to 9 in the chapter's table) is not worth a finding.
        if cost - max(budget, canonical) >= ctx.options["min-saving"]:
            heavy.append((source, cost, canonical))
    if not heavy:
        return
    # One renderer wraps every source: one finding for them all, at the first, that says how many and the worst.
    source, cost, canonical = max(heavy, key=lambda h: h[1])
    if len(heavy) == 1:
        message = f"{source_label(source)} has a {cost}-token wrapper, over the budget of {budget}; the canonical header would take {canonical}"
    else:
        message = (f"{len(heavy)} of {len(prompt.sources)} sources have a wrapper over the budget of {budget} tokens, up to {cost} "
                   f"({source_label(source)}); its canonical header would take {canonical}")
    finding = ctx.finding(prompt, heavy[0][0].header, message, tokens_text="")
    yield dataclasses.replace(finding, tokens=sum(c - max(budget, h) for _, c, h in heavy))
