"""Chunks of one document are not adjacent.

## What it does
Flags chunks that come from the same document (same document id or title) but are
separated by chunks of other documents. A title that is a file's name and the lines the chunk
covers (`src/io.hpp:3093-3130`, `guide.md#L10-L20`) names the file; a field that numbers a
document of its own kind (`lecture_no`, `video_id`, `paper_id`: `document` in `rules/lexicon.yaml`)
names it; with no title, so does the address a chunk came from (`(from "https://.../streaming-data", similarity:
0.69)`: each chunk of a page gives the page's address). Two sources of one title that each carry an
identifier of another value (`ID: 91778`, `ID: 91770`) are two items that share a name,
not two chunks of one document, unless a field names their document. When the citation
keys number documents and are reused (`[Source 1]` on three chunks, `[Source 2]` on two: keys 1
to n, at most one for two chunks), each key names a document, whatever the titles say; so does an id a store gave
that keys two chunks or more (`<Doc1a9d18a7-...>` on two chunks of one paper: a chunk's own id would not repeat). An entry with no text under it (`[1] Engineering — https://...`
in a source index after the sources) names a document; it is no chunk of it.

## Why is this bad?
Grouped by document, sources tie with rank order overall and win on questions that
need two chunks of one document: adjacent chunks read as continuous prose, so
cross-references between them resolve. Chronological ordering, by contrast,
measured 0.87 against 0.91 for rank order.

## Example
```
[1] Returns Policy — Returns > Damaged goods
[2] Shipping FAQ
[3] Returns Policy — Returns > Refund timing
```

## Use instead
```
[1] Returns Policy — Returns > Damaged goods
[2] Returns Policy — Returns > Refund timing
[3] Shipping FAQ
```
Group by document, order groups by their best chunk, order chunks within a group
by their position in the document.

## Fix safety
Unsafe: the sources are regrouped (groups in order of their best-ranked chunk,
chunks by their ordinal when known, else in rank order) and the citation keys are
renumbered to match. Chunk text moves intact but is never edited. When only the
repeated keys tell the documents apart, there is no fix: the keys are what a
renumbering would change.
"""

from __future__ import annotations

from ..canonical.chunks import to_chunk
from ..canonical.render import order_sources
from ..meaning.values import machine_id
from ..model.findings import Applicability, Edit, Fix
from ..model.prompt import Prompt, Source
from ._context import RuleContext
from ._fields import source_label

CODE = "PL301"
NAME = "ungrouped-sources"
SUMMARY = "Chunks of one document are separated by other documents' chunks"
FIX = "unsafe"
EFFECT = "grouped ties rank order (0.91) and wins on adjacent chunks"


def grouped_order(prompt: Prompt) -> list[Source]:
    """The sources in the canonical renderer's order: grouped by document, groups in rank order."""
    chunks = [to_chunk(prompt, s) for s in prompt.sources]
    by_chunk = {id(c): s for c, s in zip(chunks, prompt.sources)}
    return [by_chunk[id(c)] for c in order_sources(chunks)]


def _renumbered(prompt: Prompt, source: Source, key: str | None) -> str:
    text = prompt.text[source.span.start : source.span.end]
    if key is None or source.key_span is None:
        return text
    start = source.key_span.start - source.span.start
    return text[:start] + key + text[start + len(source.key_span) :]


def _keys_are_ranks(sources: list[Source]) -> bool:
    return all(s.key == str(i + 1) for i, s in enumerate(sources))


def _told_apart(a: Source, b: Source, ctx: RuleContext) -> bool:
    """Two sources of one title that each carry an identifier of another value ("ID: 91778", "ID: 91770"):
    two items that share a name, as far as the text shows, not two chunks of one document."""
    if any(ctx.lexicon.means(f.label, "document") for f in a.fields + b.fields):
        return False  # a field names the document: that, not the title, says which it is
    keys = [{f.label: f.value for f in s.fields if ctx.lexicon.means(f.label, "key")} for s in (a, b)]
    return any(label in keys[1] and keys[1][label] != value for label, value in keys[0].items())


def _chunks(prompt: Prompt) -> list[Source]:
    """The sources that hold text: an entry with none (`[1] Engineering — https://...` in a source index after
    the sources) names a document, it is no chunk of it."""
    return [s for s in prompt.sources if s.repeated or prompt.text[s.content.start : s.content.end].strip()]


def _document_of(source: Source, keyed: bool, ctx: RuleContext) -> str | None:
    """Which document a chunk is from: by its key when keys repeat (`[Source 1]` on three chunks of one page,
    whose titles name only a section), else by what names it (see Lexicon.document_of)."""
    return f"[{source.key}]" if keyed else ctx.lexicon.document_of(source)


def _keyed(sources: list[Source], ctx: RuleContext) -> bool:
    """Whether the chunks' keys name their documents: every chunk has one, the keys number the documents
    1 to n and are reused (at most one key for two chunks), and chunks of one key never differ in what else
    names their document."""
    keys = {s.key for s in sources}
    if any(s.key is None or s.repeated for s in sources):
        return False
    # An id a store gave (`<Doc1a9d18a7-...>`) on two chunks is their document's: a chunk's own id would not repeat.
    stored = all(machine_id(k) for k in keys) and len(keys) < len(sources)
    if not stored and (2 * len(keys) > len(sources) or keys != {str(n) for n in range(1, len(keys) + 1)}):
        return False
    named: dict[str, str | None] = {}
    return all(named.setdefault(s.key, doc) == doc for s in sources for doc in [ctx.lexicon.document_of(s)])


def _named(source: Source, doc: str, keyed: bool) -> str:
    return f"the document cited as [{source.key}]" if keyed else f"'{source.title or doc}'"


def check(prompt: Prompt, ctx: RuleContext):
    sources = _chunks(prompt)
    keyed = _keyed(sources, ctx)
    seen: dict[str, Source] = {}
    previous = None
    for source in sources:
        doc = _document_of(source, keyed, ctx)
        if doc is not None and doc in seen and doc != previous and not _told_apart(seen[doc], source, ctx):
            yield ctx.finding(
                prompt,
                source.header,
                f"{source_label(source)} is from {_named(source, doc, keyed)}, like an earlier source, "
                "but not next to it; group chunks of one document together",
                fix=None if keyed else _regroup(prompt),
                tokens_text="",
            )
            return
        if doc is not None:
            seen.setdefault(doc, source)
        previous = doc


def _regroup(prompt: Prompt) -> Fix:
    sources = prompt.sources
    order = grouped_order(prompt)
    renumber = _keys_are_ranks(sources)
    edits = []
    for slot, (old, new) in enumerate(zip(sources, order)):
        if old is new and not renumber:
            continue
        replacement = _renumbered(prompt, new, str(slot + 1) if renumber else None)
        if replacement != prompt.text[old.span.start : old.span.end]:
            edits.append(Edit(old.span, replacement))
    return Fix(Applicability.UNSAFE, tuple(edits), "Group the sources by document and renumber them")
