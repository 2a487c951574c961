"""`promptlint format`: rewrite a prompt's sources block with the canonical renderer.

Each source keeps its text byte for byte; its header is rebuilt from what the
segmenter read (title, heading path, a stale note, a parse warning), every other
field is dropped, and the sources are grouped by document and renumbered.
"""

from __future__ import annotations

from . import document
from .chunks import to_chunk
from .config import Config
from .findings import Edit
from .model import Prompt, Span
from .render import order_sources, render_sources
from .segment import segment_text


def sources_edit(prompt: Prompt, config: Config) -> tuple[Span, str] | None:
    if not prompt.sources or prompt.sources_block is None:
        return None
    chunks = order_sources([to_chunk(prompt, s) for s in prompt.sources])
    stale_after = config.options["unconditional-date"]["stale-after"]
    return prompt.sources_block, render_sources(chunks, today=config.today, stale_after_days=stale_after)


def format_document(doc: document.Document, config: Config) -> str | None:
    """The document with every prompt's sources block in canonical form, or None when unchanged."""
    pieces = []
    for piece in doc.prompts:
        prompt = segment_text(piece.text, piece.messages())
        edit = sources_edit(prompt, config)
        text = piece.text
        if edit is not None:
            span, replacement = edit
            if piece.chats is None or piece.edits_fit((Edit(span, replacement),)):
                text = text[: span.start] + replacement + text[span.end :]
        pieces.append(piece.with_text(text))
    new = doc.with_prompts(pieces)
    return None if new == doc.original else new
