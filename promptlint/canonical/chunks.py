"""Read a segmented source as a renderer Chunk, so the fixes and `format` share one ordering."""

from __future__ import annotations

from ..meaning.lexicon import Lexicon, shipped
from ..meaning.values import number, parse_date
from ..model.prompt import Prompt, Source
from .render import Chunk


# The chunks of the prompt asked about last, by source: two rules read every source of a prompt as
# its chunk (wrapper-overhead, to render its header; ungrouped-sources, to order them). The prompt
# and the sources are held, so that no other is taken for them.
_last: tuple[Prompt, Lexicon | None, dict[int, tuple[Source, Chunk]]] | None = None


def to_chunk(prompt: Prompt, source: Source, lexicon: Lexicon | None = None) -> Chunk:
    """The chunk as the canonical renderer sees it; no score, since sources already stand in rank order."""
    global _last
    if _last is None or _last[0] is not prompt or _last[1] is not lexicon:
        _last = (prompt, lexicon, {})
    known = _last[2].get(id(source))
    if known is None or known[0] is not source:
        known = _last[2][id(source)] = (source, _chunk(prompt, source, lexicon or shipped()))
    return known[1]


def _chunk(prompt: Prompt, source: Source, lexicon: Lexicon) -> Chunk:
    dates = [d for f in source.fields if (f.label == "" or lexicon.means(f.label, "date")) and (d := parse_date(f.value))]
    ordinals = [int(n) for f in source.fields if lexicon.means(f.label, "position") and (n := number(f.value)) is not None]
    return Chunk(
        content=prompt.text[source.content.start : source.content.end],
        title=source.title,
        heading_path=source.heading_path,
        document_id=lexicon.document_of(source),
        ordinal=ordinals[0] if ordinals else None,
        updated=dates[0] if dates else None,
        parse_warnings=tuple(f.value for f in source.fields if f.label == "parse warning"),
    )
