"""The canonical way to render retrieved chunks into a RAG prompt.

Any application can import this module to build its prompts, and it is the
layout that ``promptlint format`` rewrites prompts towards. Each source is a
single header line followed by the chunk text, verbatim::

    [2] SKU-4411 Specification — Availability (last updated 2025-08-02) ⚠️ OCR confidence 0.86
    Standard lead time is 6 weeks from order confirmation...

The header carries only what helps the model weigh and cite the source: a
citation key, the title, where in the document the chunk sits, a date only when
the source is old enough to doubt, and the first parse warning if there is one.
Everything else is noise that costs attention.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_STALE_AFTER_DAYS = 365

_HEADING_SEP = " > "
TITLE_SEPARATOR = " \u2014 "  # em dash
WARNING_MARK = " \u26a0\ufe0f "  # warning sign with emoji presentation


@dataclass(frozen=True)
class Chunk:
    content: str
    title: str | None = None
    heading_path: tuple[str, ...] = ()
    document_id: str | None = None  # falls back to title, then to the chunk alone
    ordinal: int | None = None  # position of the chunk within its document
    score: float | None = None
    rerank_score: float | None = None
    updated: datetime.date | None = None  # last modification date of the source
    parse_warnings: tuple[str, ...] = ()


def _one_line(text: str) -> str:
    # A stray newline would end the header early and leak metadata into the content.
    return " ".join(text.split())


def freshness_note(
    chunk: Chunk,
    *,
    today: datetime.date,
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
) -> str | None:
    """Return ``"last updated YYYY-MM-DD"`` for a stale source, else ``None``.

    A date on every source invites the model to reason about dates it has no
    reason to doubt, so the note appears only once the source is strictly older
    than ``stale_after_days``.
    """
    if chunk.updated is None:
        return None
    if (today - chunk.updated).days <= stale_after_days:
        return None
    return f"last updated {chunk.updated.isoformat()}"


def render_header(
    chunk: Chunk,
    n: int | str,
    *,
    today: datetime.date,
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
) -> str:
    """Return the header line of a source, without a trailing newline."""
    title = _one_line(chunk.title) if chunk.title else ""
    path = _HEADING_SEP.join(
        item for item in (_one_line(h) for h in chunk.heading_path) if item
    )
    header = f"[{n}]"
    if title:
        header += f" {title}"
    if path:
        # The dash separates title from path; without a title it would dangle.
        header += (TITLE_SEPARATOR if title else " ") + path
    note = freshness_note(chunk, today=today, stale_after_days=stale_after_days)
    if note:
        header += f" ({note})"
    warnings = [w for w in (_one_line(w) for w in chunk.parse_warnings) if w]
    if warnings:
        # One warning is enough to make the model cautious; more is clutter.
        header += WARNING_MARK + warnings[0]
    return header


def render_source(
    chunk: Chunk,
    n: int | str,
    *,
    today: datetime.date,
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
) -> str:
    """Return the header line, a newline, then the chunk content unchanged."""
    header = render_header(chunk, n, today=today, stale_after_days=stale_after_days)
    return f"{header}\n{chunk.content}"


def order_sources(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Order chunks so that each document reads as one contiguous passage.

    Chunks are grouped by ``document_id`` (else title; a chunk with neither is
    a group of its own). Groups are ordered by their best chunk, using rerank
    scores when any chunk has one and retrieval scores otherwise, so that the
    two scales are never compared with each other; unscored groups follow in
    input order, which is taken to be rank order. Inside a group, chunks with a
    known ordinal come first in document order, the rest keep input order.
    """
    groups: dict[object, list[Chunk]] = {}
    for index, chunk in enumerate(chunks):
        key = chunk.document_id if chunk.document_id is not None else chunk.title
        groups.setdefault(("doc", key) if key is not None else ("own", index), []).append(chunk)

    if any(c.rerank_score is not None for c in chunks):
        attr = "rerank_score"
    else:
        attr = "score"

    def best(group: list[Chunk]) -> tuple[bool, float]:
        scores = [getattr(c, attr) for c in group if getattr(c, attr) is not None]
        return (not scores, -max(scores) if scores else 0.0)

    # sorted() is stable, so ties and unscored groups keep first-appearance order.
    ordered_groups = sorted(groups.values(), key=best)
    return [
        chunk
        for group in ordered_groups
        for chunk in sorted(
            group, key=lambda c: (c.ordinal is None, c.ordinal if c.ordinal is not None else 0)
        )
    ]


def render_sources(
    chunks: Sequence[Chunk],
    *,
    today: datetime.date,
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
    start: int = 1,
) -> str:
    """Number and render the chunks in the order given, one blank line apart."""
    return "\n\n".join(
        render_source(chunk, n, today=today, stale_after_days=stale_after_days)
        for n, chunk in enumerate(chunks, start)
    )


def build_prompt(
    *,
    system: str = "",
    examples: str = "",
    history: str = "",
    chunks: Sequence[Chunk] = (),
    question: str,
    today: datetime.date,
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
) -> str:
    """Assemble the whole prompt, one blank line between pieces.

    The static pieces (system prompt, then examples) come first so that they
    form a prefix the provider can cache; the question comes last, closest to
    where the model starts answering. Blank pieces are left out and the others
    are used as given.
    """
    sources = ""
    if chunks:
        ordered = order_sources(chunks)
        sources = "Sources:\n" + render_sources(
            ordered, today=today, stale_after_days=stale_after_days
        )
    pieces = [system, examples, history, sources, f"Question: {question}"]
    return "\n\n".join(p for p in pieces if p.strip())
