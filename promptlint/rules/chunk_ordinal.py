"""Chunk ordinal or chunk id shown to the model.

## What it does
Flags chunk numbers and ids in a source's wrapper: `chunk 14 of 52`,
`chunk_id: 8f3a...`, `part 2/5`, `node_id=...`, and in a template the id of an
item named as a chunk (`{{ chunk.id }}`, `{node['id']}`). The number the model is asked
to cite (`[1]`, `Document 1:`, `<document index="1">`) is a citation key, not an
ordinal, and is never flagged; nor is a count that heads its source in brackets
(`[{{ chunk.rank }}]`, `[S${chunk.rank}]`, a letter or two before the number as the key is cited: "[S1]"),
or a value first in a bracket after a word that names a source and not a chunk (`[Source ${source.index}: ${ref}]`,
`source-words` in `rules/segment.yaml` less the `counted-units`), or a number that is all a source shows beside its text (`<source>{{ r.rank }}</source>`), when the
instructions ask the model to cite: that is what it cites. A source's template read alone, with no
instructions beside it (a function that renders the sources), leaves such a key to the prompt that holds it, and it is not reported: bracketed, or all the source shows
under a name of its own (`<source>{rank}</source>`, not `[chunk_id={id}]`, which writes it as the chunk's number).
Where the file shows that prompt (code binds the sources' text to a name, `context = "\n\n".join(...)`, `context +=
...`, a list joined after, a function returning the join, and a prompt of the file prints it: `f"Context:\n{context}"`),
the file's prompts say it: the key is left to them when one asks to cite, and reported when none does.

A chunk's id is reported even where the model cites it (`[{{ chunk.id }}]` under "cite the chunk
ids", `identities` in `rules/chunk-ordinal.yaml`): a count keys a source as well, for fewer tokens.
Cited, it is reported without a fix, since removing it would leave the citations with no key. So is
an id a store gave each chunk, told by its shape whatever its name (a UUID, a hash, a name with a
zero-padded or "::"-joined index: `[large_pdf_page_003_001]`, `"id": "res-0000"`; under a field named an id alone,
the numbers a store gave its rows, `id=3159`, `id=3165`, on three sources or more, no renderer's count 1, 2, 3), each
chunk's own (an id over two different texts names the document they share): as the key that heads every source, without a fix; as a field named an id alone, with an unsafe fix (no fix where the
model is asked to cite); and as the value of a field named by a word for a source, or as an id of something
(`doc_id`), on every source, when it is a hash or a UUID (`[SOURCE: 746894995501337991]`, a 64-bit number written
out, as a store hashes its chunks; `doc_id=8dcfbe88...`; not `Policy ID: NIC-POLICY-AL-003`), with an unsafe fix. A writer's code ("SKU-4411"), a name or a count is no such id.

A header that numbers each source under a word meaning a chunk, with numbers no renderer
counts (`[Chunk 30]`, `[Chunk 20]`, `[Chunk 32]`, not 1, 2, 3 in order), shows each chunk's
place in the index; it is reported, without a fix (the key heads the source), unless the
instructions ask the model to cite. So is a count under a word that names the source as a chunk
(`--- Chunk {i + 1} ---`, `[Auszug {chunk_idx}]`, "Chunk 1", "Chunk 2", a tag named for the count, `<chunk_0>`: `counted-units` in
`rules/chunk-ordinal.yaml`; qualified by a word or two, `=== CONTEXT CHUNK {idx + 1} ===`) when the model is not asked to cite: the number only says where the
chunk came in the list. A source's template read alone that heads each source with such a count in
brackets (`[Excerpt ${i + 1}] (Page ${c.pageNum})`) leaves it to the prompt that holds the sources,
which may ask for citations like "[Excerpt 1]" (and is reported when that prompt is in view and asks none); written as a banner (`--- Chunk {i + 1} ---`), it is reported. Under a word that names it otherwise (`[Source 1]`, `Document 2:`) the
number is the source's key, as the canonical `[n]` is, and is not reported.

An ordinal has an ordinal's shape: `chunk 3`, `3 of 7`, `#3`, one id token, or a slot or
key named as one. A heading item ("Part 2", "Section 4", "Chapter 1", "Article 7.2",
"Version 4.2") is part of the heading path, and an element's text (`<chunk>Refunds are
...</chunk>`) is retrieved content: neither is reported.

## Why is this bad?
About 3 tokens per source for no measured gain (0.00): the position of a chunk
inside the index says nothing about the answer.

## Example
```
[1] Returns Policy (chunk 14 of 52)
```

## Use instead
```
[1] Returns Policy — Returns > Damaged goods
```
Use the ordinal to order chunks of one document, not to label them.

## Fix safety
Safe: the field is removed whole, with the words and punctuation bound to it
(`#{{ chunk.index }}` takes its `#`); the citation key and the chunk text are untouched.
A label on one source only, or another label on the next, makes the fix unsafe. When the
whole unit cannot be removed (`Chunk {{ i }} of {{ n }}`, `CHUNK {id}. {text}`), the
ordinal is reported without a fix: never a part of it.
"""

from __future__ import annotations

import functools
import re

from ..meaning import vocabulary
from ..meaning.vocabulary import normalise_label
from ..meaning.lexicon import split
from ..meaning.values import hashed_id, machine_id, renderer_count
from ..model.findings import Applicability
from ..model.prompt import Field, PartKind, Prompt, Source, Span
from ._context import RuleContext
from ._fields import read, remove_field, source_label, written

CODE = "PL203"
NAME = "chunk-ordinal"
SUMMARY = "A chunk number or chunk id is shown to the model"
FIX = "safe"
EFFECT = "0.00 gain for 3 tokens a source"

_OF = re.compile(r"\d+\s*(?:of|/)\s*\d+")


# What may open a citation key in brackets before its number: "[", "[S", "[doc-", "[#".
_KEY_OPENING = re.compile(r"\[(?:[A-Za-z]{1,3}[-_#]?|#)?")


def _in_key_position(prompt: Prompt, field, named_keys: frozenset[str]) -> bool:
    """Whether the field's value is a citation key by its place: in brackets, first on its line, perhaps after a
    letter or two that the key is written with (`[S${chunk.rank}]`, cited as "[S1]"), or after a word that names a
    source but not a chunk (``named_keys``: `[Source ${source.index}: ${ref}]`), what follows in the bracket the
    source's name."""
    line_start = prompt.text.rfind("\n", 0, field.value_span.start) + 1
    opening = prompt.text[line_start : field.value_span.start].strip()
    after = prompt.text[field.value_span.end : field.value_span.end + 1]
    if _KEY_OPENING.fullmatch(opening) is not None and after == "]":
        return True
    named = _NAMED_KEY_OPENING.fullmatch(opening)
    return named is not None and named[1].lower() in named_keys and (after == "]" or _REST_OF_BRACKET.match(prompt.text, field.value_span.end) is not None)


# "[Source ", "[Document #": a bracket opened by a word and its key; after the key, the rest of the bracket.
_NAMED_KEY_OPENING = re.compile(r"\[([^\W\d_]+)\s*#?")
_REST_OF_BRACKET = re.compile(r"\s*[-\u2013\u2014|,;:][^\[\]\n]*\]")


_SLOT = re.compile(r"\$?\{(?![%#])\{?[^{}%\n]+\}\}?")  # a printed value, not a tag ("{% for %}") or a comment


def _sole_identifier(prompt: Prompt, source, field) -> bool:
    """Whether the field is all a source shows besides its text: no title, no key, no other field, and no
    other slot in its wrapper (`### {source}` names the document even where it is no title field)."""
    if source.title is not None or source.key is not None or source.heading_path or list(source.fields) != [field]:
        return False
    own = (field.value_span, source.content)
    return not any(not any(s.contains(Span(m.start(), m.end())) for s in own) for m in _SLOT.finditer(prompt.text, source.span.start, source.span.end))


# The words a template writes before a value: "CHUNK {chunk.id}" gives "CHUNK", "<source>\n{rank}" gives "source".
_WORDS_BEFORE = re.compile(r"([^\W\d][\w -]{0,40}?)[\s\W]*$")


def _written_before(prompt: Prompt, field) -> str:
    """What the file writes just before a field's value, on its line or, with nothing there, the line above:
    the name it shows the value under (`CHUNK`, `chunk_id=`, `<source>`)."""
    start = prompt.text.rfind("\n", 0, field.value_span.start) + 1
    before = prompt.text[start : field.value_span.start]
    if not re.search(r"[^\W\d]", before) and start:
        before = prompt.text[prompt.text.rfind("\n", 0, start - 1) + 1 : start]
    words = _WORDS_BEFORE.search(_SLOT.sub(" ", before))
    return normalise_label(words[1]) if words else ""


def _asks_to_cite(prompt: Prompt, ctx: RuleContext) -> bool:
    pattern = vocabulary.patterns(ctx.words("cite"))
    return any(pattern.search(prompt.lower, p.span.start, p.span.end) for p in prompt.parts if p.kind is PartKind.INSTRUCTIONS)


# The word a header writes before its key: "[Chunk 30]" gives "chunk", "### Chunk #4:" gives "chunk", and so
# does a tag named for the count, "<chunk_{i}>".
_KEY_WORD = re.compile(r"([a-z][a-z ]*?)[\s_-]*(?:no\.?|#)?[\s_-]*$")


def _keyed_by_the_index(prompt: Prompt, ctx: RuleContext) -> list[Source]:
    """Sources whose header keys them under a word that means an ordinal ("[Chunk 30]", "[Chunk 20]",
    "[Chunk 32]") with numbers a renderer does not count (1, 2, 3 in order): each is the chunk's place in
    the index, not a citation number."""
    if len(prompt.sources) < 2 or not all(s.key and s.key.isdigit() and s.key_span for s in prompt.sources):
        return []
    if renderer_count([s.key for s in prompt.sources]):
        return []
    words = {_word_before_key(prompt, s) for s in prompt.sources}
    word = next(iter(words)) if len(words) == 1 else None
    if not (word and ctx.lexicon.means(word, "ordinal")) or _asks_to_cite(prompt, ctx):
        return []  # asked to cite, the model cites what the header shows, whatever numbers it
    return list(prompt.sources)


def _numbered_as_chunks(prompt: Prompt, ctx: RuleContext) -> list[Source]:
    """Sources numbered under a word that names them as chunks of the index ("--- Chunk {i + 1} ---",
    "[Auszug {chunk_idx}]", "Chunk 1", "Chunk 2"), when the model is not asked to cite: the number says
    only where the chunk came in the list."""
    units = ctx.labels("counted-units")
    numbered = [s for s in prompt.sources if s.key and s.key_span and _counted_unit(_word_before_key(prompt, s), units)]
    if not numbered or _asks_to_cite(prompt, ctx):
        return []
    # A source's template read alone keys each source in brackets (`[Excerpt ${i + 1}]`): whether the model cites
    # that key is for the prompt that holds the sources to say, and it is not read here.
    bracketed = all(prompt.text[s.header.start : s.key_span.start].lstrip().startswith("[") for s in numbered)
    return [] if bracketed and _left_to_the_prompt_that_holds_it(prompt, ctx) else numbered


def _counted_unit(words: str | None, units) -> bool:
    """Whether the words a key is written under name a counted unit, alone ("chunk") or qualified by a word or
    two ("context chunk", "retrieved text chunk")."""
    named = (words or "").split()
    return len(named) <= 3 and bool(named) and (words in units or named[-1] in units)


def _word_before_key(prompt: Prompt, source: Source) -> str | None:
    before = _KEY_WORD.search(prompt.lower[source.header.start : source.key_span.start].lstrip("[(<#-=* "))
    return before[1] if before else None


def _keyed_by_store_ids(prompt: Prompt) -> list[Source]:
    """Sources whose keys are each an id a store assigned ("[large_pdf_page_003_001]", "[4731e598-...]"), not a
    count: the chunk's id, where [1], [2] would key it as well. An id over two different texts is no chunk's:
    it names the document the chunks share."""
    if not prompt.sources or not all(s.key and s.key_span and machine_id(s.key) for s in prompt.sources):
        return []
    return list(prompt.sources) if _each_keys_one_text(prompt, [(s.key, s) for s in prompt.sources]) else []


def _each_keys_one_text(prompt: Prompt, keyed: list[tuple[str, Source]]) -> bool:
    """Whether each id keys one text: a chunk's id is its chunk's, whatever else is retrieved twice."""
    texts: dict[str, set[str]] = {}
    for key, source in keyed:
        texts.setdefault(key, set()).add(prompt.text[source.content.start : source.content.end].strip())
    return all(len(found) == 1 for found in texts.values())


def _store_id_fields(prompt: Prompt, ctx: RuleContext) -> list[Field]:
    """The field named an id alone ("id", "uuid") whose value is on every source an id a store assigned
    (`"id": "res-0000"`): each chunk's id, whatever the lexicon makes of the bare name, where no two chunks share it.
    So is a field named by a word for a source, or an id of something (`doc_id`), whose value is on every source
    a hash or a UUID, nothing a writer would choose (`[SOURCE: 746894995501337991]`, `doc_id=8dcfbe88...`; a code
    with an index, `Policy ID: NIC-POLICY-AL-003`, may be the writer's)."""
    identities = ctx.labels("identities")
    named = _fields_named(prompt, lambda label: label in identities)
    if not (named and (all(machine_id(f.value) for f in named) or _row_numbers([f.value for f in named]))):
        source_words = frozenset(ctx.lexicon.words("segment", "source-words"))
        named = _fields_named(prompt, lambda label: label in source_words or bool(identities.intersection(split(label)[-1:])))
        named = named if named and all(hashed_id(f.value) for f in named) else []
    return named if named and _each_keys_one_text(prompt, [(f.value, s) for f, s in zip(named, prompt.sources)]) else []


def _fields_named(prompt: Prompt, named) -> list[Field]:
    """The field of each source whose label is ``named`` and that has a value, in the sources' order; [] when a
    source has none."""
    fields = [next((f for f in s.fields if named(f.label)), None) for s in prompt.sources]
    return fields if prompt.sources and all(f is not None and f.value_span for f in fields) else []


# Sources enough to tell a store's row numbers from a count.
ROW_NUMBER_SOURCES = 3


def _row_numbers(values: list[str]) -> bool:
    """Whether an id field's values are the numbers a store gave its rows (`id=3159`, `id=3165`, `id=3157`): a number
    on each of three sources or more, no two the same, that no renderer counts (not 1, 2, 3 in order, nor 0, 1, 2)."""
    if len(values) < ROW_NUMBER_SOURCES or not all(v.strip().isdigit() for v in values):
        return False
    numbers = [int(v) for v in values]
    return len(set(numbers)) == len(numbers) and not renderer_count(values)


def check(prompt: Prompt, ctx: RuleContext):
    yield from _numbered_sources(prompt, ctx)
    stored = _store_id_fields(prompt, ctx)
    # Asked only when a finding depends on it, once a prompt.
    asks = functools.cache(lambda: _asks_to_cite(prompt, ctx))
    yield from _store_ids(prompt, ctx, stored, asks)
    yield from _named_ordinals(prompt, ctx, {id(f) for f in stored}, asks)


def _numbered_sources(prompt: Prompt, ctx: RuleContext):
    numbered, place = _keyed_by_the_index(prompt, ctx), "numbered by its place in the index"
    if not numbered:
        numbered, place = _numbered_as_chunks(prompt, ctx), "numbered as a chunk, with a number the model is not asked to cite"
    if not numbered:
        numbered, place = _keyed_by_store_ids(prompt), "keyed by the id its store gave the chunk, where a count ([1], [2]) would do"
    for source in numbered:
        header = prompt.text[source.header.start : source.key_span.end].strip("[(<#-=* \n")
        # The key heads the source: removing it leaves a header to rewrite, so no fix is offered.
        yield ctx.finding(
            prompt,
            source.key_span,
            f"{source_label(source)} is {place} ('{header}'), "
            "which costs tokens and says nothing about the answer",
        )


def _store_ids(prompt: Prompt, ctx: RuleContext, stored: list[Field], asks):
    for source, field in zip(prompt.sources, stored):
        # Read by its value's shape, not its name: removing it is a guess, and no guess where the model cites it.
        fix = None if asks() else remove_field(prompt, field, "Remove the chunk id", Applicability.UNSAFE)
        yield _field_finding(prompt, ctx, source, field, "shows the id its store gave the chunk", fix)


def _named_ordinals(prompt: Prompt, ctx: RuleContext, read_already: set[int], asks):
    """The fields named as a chunk's ordinal or id (but those ``read_already``, by id), each reported unless it is a
    count the model cites."""
    of_words, citable, identities = ctx.labels("of-words"), ctx.labels("citable"), ctx.labels("identities")
    named_keys = frozenset(ctx.lexicon.words("segment", "source-words")) - ctx.labels("counted-units")
    for source in prompt.sources:
        for field in (f for f in source.fields if id(f) not in read_already):
            is_ordinal = ctx.lexicon.means(field.label, "ordinal") or (field.label in of_words and _OF.match(field.value))
            keyed = is_ordinal and citable.intersection(split(field.label)[-1:]) and _in_key_position(prompt, field, named_keys)
            cited = (keyed or is_ordinal and _sole_identifier(prompt, source, field)) and _cited(prompt, ctx, field, keyed, asks)
            if cited:
                # A count keys the source; a chunk's id ("[{{ chunk.id }}]") does too, at an id's cost, where [n] would do.
                is_ordinal = bool(identities.intersection(split(field.label)[-1:]))
            if not (is_ordinal and field.value):
                continue  # most fields are no ordinal: their reading is not needed
            reading = read(prompt, source, field, "ordinal", ctx.lexicon)
            if reading.shaped:
                yield _ordinal_finding(prompt, ctx, source, field, reading, cited)


def _cited(prompt: Prompt, ctx: RuleContext, field: Field, keyed: bool, asks) -> bool:
    """Whether a key ("[{{ chunk.rank }}]" heading a source) or the one thing that tells a source from the others
    (`<source>{rank}</source>` beside the text alone) is what the model cites: when it is asked to cite. A key of a
    source's template read alone (no instructions beside it) is left to the prompt that holds it, unless the template
    writes it as a chunk's number (`[chunk_id={id}]`, not `<source>{rank}</source>`)."""
    if asks():
        return True
    return _left_to_the_prompt_that_holds_it(prompt, ctx) and (keyed or not ctx.lexicon.means(_written_before(prompt, field), "ordinal"))


def _left_to_the_prompt_that_holds_it(prompt: Prompt, ctx: RuleContext) -> bool:
    """Whether a source's template read alone, with no instructions beside it (a function that renders the sources
    for a prompt elsewhere), leaves its keys to the prompt that holds the sources: whether the model cites them is
    that prompt's to say. Where the file shows that prompt (its hosts: it prints what the template renders), its
    request's instructions say it: the keys are left to them when they ask to cite, and not otherwise."""
    if any(p.kind is PartKind.INSTRUCTIONS for p in prompt.parts):
        return False
    pattern = vocabulary.patterns(ctx.words("cite"))
    return not prompt.hosts or any(pattern.search(_SLOT.sub(" ", host.lower())) for host in prompt.hosts)


def _ordinal_finding(prompt: Prompt, ctx: RuleContext, source: Source, field: Field, reading, cited: bool):
    if cited:
        # The model cites the id: removing it would leave citations with no key, so no fix is offered.
        return _field_finding(prompt, ctx, source, field, "is keyed by its chunk id", None, ": a count ([1], [2]) keys a source as well")
    fix = remove_field(prompt, field, "Remove the chunk ordinal", reading.applicability)
    return _field_finding(prompt, ctx, source, field, "shows a chunk ordinal", fix)


def _field_finding(prompt: Prompt, ctx: RuleContext, source: Source, field: Field, shows: str, fix, after: str = ""):
    message = f"{source_label(source)} {shows} ('{written(prompt, field)}'), which costs tokens and says nothing about the answer{after}"
    return ctx.finding(prompt, field.value_span, message, fix=fix, tokens_text=field.elsewhere)
