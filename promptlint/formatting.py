"""`promptlint format`: rewrite a prompt's sources block with the canonical renderer.

Each source keeps its text byte for byte; its header is rebuilt from what the
segmenter read (title, heading path, a stale note, a parse warning), every other
field is dropped, and the sources are grouped by document and renumbered.

In a Jinja template the body of each sources loop is rewritten to the same layout,
built from the template's own expressions. The `{% for %}` and `{% endfor %}` tags
stay as written: the loop variable and what it iterates are the application's.
What only the data knows is decided at render time, as render_sources decides it:
the title and the heading path show only when set, the dash between them only with
a title. With more than one sources loop (or one inside another loop) the citation
numbers run on through a namespace counter set before the first of them.

The comments of a rewritten body are kept, at its start, which renders nothing: at
the end of the `{% for %}` line, or at the start of the header line when the tag
strips its newline. That is the line the findings left on a formatted loop (a
missing title, a missing heading path) are reported on, so an `ignore` directive
kept there covers them. A directive about a line that format dropped (a score, a
date) then suppresses nothing: PL901 reports it, with a safe fix that removes it.
Format does not drop it itself: whether a comment is obsolete is the user's call.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import document, registry
from .chunks import to_chunk
from .config import Config
from .context import RuleContext
from .findings import Edit
from .jinja import Block, check_syntax, environment, parses, segment_jinja, tree
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


def _when_set(value: str, before: str) -> str:
    """The output ``value`` after ``before``, both printed only when the value is set at render time."""
    expression = _expression(value)
    return f"{{% if {expression} %}}{before}{{{{ {expression} }}}}{{% endif %}}"


def _loop_body(template: str, source: Source, config: Config, key: str) -> str:
    """The canonical body of a sources loop: a header line, then the content and a newline."""
    rule = registry.get("unconditional-date")
    options = config.rule_options(rule)
    date = source.field_named(*RuleContext(rule, options, config.today).labels())
    warning = source.field_named(*words().warning_labels)
    header = key
    if source.title:
        header += _when_set(source.title, " ")
    if source.heading_path:
        before = " "
        if source.title:
            # The dash separates title from path; without a title it would dangle. (Tags, not a
            # string literal: no quote can then clash with the string a template is written in.)
            before = f"{{% if {_expression(source.title)} %}}{_TITLE_SEP}{{% else %}} {{% endif %}}"
        header += _when_set(source.heading_path[0], before)
    if date:
        # Only the application knows today's date, so it decides staleness and sets the flag.
        variable = environment().parse(template[source.span.start : source.span.end]).body[0].target.name
        header += f"{{% if {variable}.{options['stale-flag']} %}} ({STALE_LABEL} {_output(date.value)}){{% endif %}}"
    if warning:
        header += _when_set(warning.value, _WARNING_MARK)
    content = _output(template[source.content.start : source.content.end])
    return f"{header}\n{content}\n"


# The citation key of a loop that is the only one to number and renders once.
_LOOP_KEY = "[{{ loop.index }}]"
# Otherwise `loop.index` would restart at 1 in each loop (and in each pass of an enclosing
# loop) where render_sources numbers on. An offset from the earlier loops' lengths
# (`loop.index + relevant|length`) is wrong for a loop with a condition (`for d in docs if
# d.score > 0.5`) or under an `{% if %}`, and `length` fails on a filtered iterable (a
# generator); a counter counts the sources actually rendered, so it is right in every case.
# Set at the top level, it is seen by every loop, in a `{% block %}` or `{% with %}` too.
_COUNTER_KEY = "{% set citation.n = citation.n + 1 %}[{{ citation.n }}]"
# Bodies that may render more than once, so that `loop.index` restarts inside them:
# a loop's, and a `{% call %}`'s (the macro calls `caller()` as often as it likes).
_REPEATING = frozenset({"for", "call"})


def _blocks(items: list) -> Iterator[Block]:
    for item in items:
        if isinstance(item, Block):
            yield item
            yield from _blocks(item.children)


def _reads_in_body(source: Source, loop: Block) -> bool:
    """Whether the loop's own body prints the source's content and fields (not a macro it calls)."""
    body = loop.branch_spans()[0]
    return all(body.contains(span) for span in (source.content, *(f.value_span for f in source.fields)))


def _counter_start(template: str, at: int) -> str:
    """The tag that sets the counter, to stand right before the block tag at ``at``."""
    # With that tag's `{%-` (or `{%+`): it then strips (or keeps) the whitespace the block tag did.
    opening = template[at : at + 3] if template[at + 2 : at + 3] in ("-", "+") else "{%"
    return opening + " set citation = namespace(n=0) %}"


def format_template(template: str, config: Config) -> str:
    """The template with each sources loop's body in canonical form; unchanged if that would not parse."""
    flat = check_syntax(template)  # the same tags segment_jinja reads below, remembered
    roots = tree(flat)
    blocks = list(_blocks(roots))
    loops = {block.span: block for block in blocks if block.keyword == "for"}
    # A loop with no `{{ doc.content }}` output renders its items some other way, and one
    # that prints them through a macro names them by the macro's parameters: both stay.
    rewritten = [source for source in segment_jinja(template).sources if len(source.content) and _reads_in_body(source, loops[source.span])]
    repeating = [block.span for block in blocks if block.keyword in _REPEATING]
    counted = len(rewritten) > 1 or any(
        outer != source.span and outer.contains(source.span) for outer in repeating for source in rewritten
    )
    key = _COUNTER_KEY if counted else _LOOP_KEY
    formatted = template
    # From the last loop back, so the spans of the earlier ones still hold.
    for source in reversed(rewritten):
        body = loops[source.span].branch_spans()[0]  # up to `{% else %}` or `{% endfor %}`
        # The user's comments stay, without their dashes: a `{#-` or `-#}` would strip the line break.
        comments = "".join("{#" + tag.inner + "#}" for tag in flat if tag.kind == "comment" and body.contains(tag.span))
        # The header starts a line of its own, so with the loop's tags on lines of their own
        # the sources render one blank line apart, as render_sources joins them. (The text
        # of a `-%}` tag takes the newline it strips, so the line is already broken.)
        line_break = "" if template.endswith("\n", 0, body.start) else "\n"
        formatted = formatted[: body.start] + comments + line_break + _loop_body(template, source, config, key) + formatted[body.end :]
    if counted:
        at = next(item.span.start for item in roots if isinstance(item, Block) and item.span.contains(rewritten[0].span))
        start = _counter_start(template, at)
        if not template.endswith(start, 0, at):  # set by an earlier format
            formatted = formatted[:at] + start + formatted[at:]
    return formatted if parses(formatted) else template


def _formatted(piece: document.Prompt, config: Config) -> str:
    if piece.loop is not None:
        return piece.text  # one source's wrapper, built by code: there is no sources block to rewrite
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
    again = document.parse(new.encode("utf-8"), doc.path, config.suffix_for(doc.path))
    return new if [p.text for p in again.prompts] == [p.text for p in pieces] else None
