"""`promptlint format`: rewrite a prompt's sources block with the canonical renderer.

Each source keeps its text byte for byte; its header is rebuilt from what the
segmenter read (title, heading path, a stale note, a parse warning), every other
field is dropped, and the sources are grouped by document and renumbered.

In a Jinja template the body of each sources loop is rewritten to the same layout,
built from the template's own expressions. The `{% for %}` and `{% endfor %}` tags
stay as written: the loop variable and what it iterates are the application's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from . import document, registry
from .chunks import to_chunk
from .config import Config
from .context import RuleContext
from .findings import Edit
from .jinja import Block, environment, parses, segment_jinja, tags, tree
from .model import Prompt, Source, Span
from .render import _TITLE_SEP, _WARNING_MARK, order_sources, render_sources
from .rules.unconditional_date import STALE_LABEL
from .segment import segment_text, words


def sources_edit(prompt: Prompt, config: Config) -> tuple[Span, str] | None:
    if not prompt.sources or prompt.sources_block is None:
        return None
    chunks = order_sources([to_chunk(prompt, s) for s in prompt.sources])
    stale_after = config.options["unconditional-date"]["stale-after"]
    return prompt.sources_block, render_sources(chunks, today=config.today, stale_after_days=stale_after)


def _expression(tag_text: str) -> str:
    """The expression of a `{{ ... }}` output, without its delimiters and whitespace-control dashes."""
    inner = tag_text.strip().removeprefix("{{").removesuffix("}}")
    return inner.removeprefix("-").removesuffix("-").strip()


def _output(tag_text: str) -> str:
    return "{{ " + _expression(tag_text) + " }}"


def _loop_body(template: str, source: Source, config: Config) -> str:
    """The canonical body of a sources loop: a header line, then the content and a newline."""
    rule = registry.get("unconditional-date")
    options = config.rule_options(rule)
    date = source.field_named(*RuleContext(rule, options, config.today).labels())
    warning = source.field_named(*words().warning_labels)
    header = "[{{ loop.index }}]"
    if source.title:
        header += " " + _output(source.title)
    if source.heading_path:
        # The dash separates title from path; without a title it would dangle.
        header += (_TITLE_SEP if source.title else " ") + _output(source.heading_path[0])
    if date:
        # Only the application knows today's date, so it decides staleness and sets the flag.
        variable = environment().parse(template[source.span.start : source.span.end]).body[0].target.name
        header += f"{{% if {variable}.{options['stale-flag']} %}} ({STALE_LABEL} {_output(date.value)}){{% endif %}}"
    if warning:
        test = _expression(warning.value)
        header += f"{{% if {test} %}}{_WARNING_MARK}{_output(warning.value)}{{% endif %}}"
    content = _output(template[source.content.start : source.content.end])
    return f"{header}\n{content}\n"


def _for_blocks(items: list) -> Iterator[Block]:
    for item in items:
        if isinstance(item, Block):
            if item.keyword == "for":
                yield item
            yield from _for_blocks(item.children)


def format_template(template: str, config: Config) -> str:
    """The template with each sources loop's body in canonical form; unchanged if that would not parse."""
    loops = {block.span: block for block in _for_blocks(tree(tags(template)))}
    formatted = template
    # From the last loop back, so the spans of the earlier ones still hold.
    for source in reversed(segment_jinja(template).sources):
        if len(source.content) == 0:
            continue  # no `{{ doc.content }}` output: the loop renders its items some other way
        body = loops[source.span].branch_spans()[0]  # up to `{% else %}` or `{% endfor %}`
        # The header starts a line of its own, so with the loop's tags on lines of their own
        # the sources render one blank line apart, as render_sources joins them. (The text
        # of a `-%}` tag takes the newline it strips, so the line is already broken.)
        line_break = "" if template.endswith("\n", 0, body.start) else "\n"
        formatted = formatted[: body.start] + line_break + _loop_body(template, source, config) + formatted[body.end :]
    return formatted if parses(formatted) else template


def _formatted(piece: document.Prompt, config: Config) -> str:
    if piece.syntax == "jinja":
        return format_template(piece.text, config)
    edit = sources_edit(segment_text(piece.text, piece.messages()), config)
    if edit is None:
        return piece.text
    span, replacement = edit
    if piece.chats is not None and not piece.edits_fit((Edit(span, replacement),)):
        return piece.text
    return piece.text[: span.start] + replacement + piece.text[span.end :]


def format_document(doc: document.Document, config: Config) -> str | None:
    """The document with every prompt's sources block in canonical form, or None when unchanged."""
    # A text that is not in the file verbatim (escapes, a YAML block) cannot be written back.
    pieces = [piece.with_text(_formatted(piece, config)) if piece.writable else piece for piece in doc.prompts]
    if pieces == list(doc.prompts):
        # Rebuilding the file is not a no-op for a prompt without an origin in it (a YAML block).
        return None
    new = doc.with_prompts(pieces)
    # A line break cannot go into every string as written (a one-line Python or YAML string):
    # the file must read back as the prompts formatted, or it is left as it is.
    again = document.parse(new.encode("utf-8"), doc.path, Path(doc.path).suffix.lower())
    return new if [p.text for p in again.prompts] == [p.text for p in pieces] else None
