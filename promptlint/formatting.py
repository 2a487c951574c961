"""`promptlint format`: rewrite a prompt's sources block with the canonical renderer.

Each source keeps its text byte for byte; its header is rebuilt from what the
segmenter read (title, heading path, a stale note, a parse warning), every other
field is dropped, and the sources are grouped by document and renumbered.
"""

from __future__ import annotations

from .chunks import to_chunk
from .config import Config
from .model import Prompt, Span
from .render import order_sources, render_sources
from .segment import segment_text


def format_text(text: str, config: Config, messages=None) -> str:
    """The text with its sources block rendered canonically (unchanged when it has none)."""
    prompt = segment_text(text, messages)
    edit = sources_edit(prompt, config)
    if edit is None:
        return text
    span, replacement = edit
    return text[: span.start] + replacement + text[span.end :]


def sources_edit(prompt: Prompt, config: Config) -> tuple[Span, str] | None:
    if not prompt.sources or prompt.sources_block is None:
        return None
    chunks = order_sources([to_chunk(prompt, s) for s in prompt.sources])
    stale_after = config.options["unconditional-date"]["stale-after"]
    return prompt.sources_block, render_sources(chunks, today=config.today, stale_after_days=stale_after)
