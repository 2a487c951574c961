"""`promptlint format`: rewrite a prompt's sources block with the canonical renderer.

Format is held to the bar of `check --fix`: it never loses meaning. A sources block
is rewritten only when every part of it is read: each source a header, fields with
a written label and a chunk text, and between the sources nothing but blank lines,
separators and markup. Anything else (Handlebars sections, JSON sources, text between
sources, a value read from its shape alone) leaves the prompt byte for byte, and
`Formatted.kept` says why in one line. Each source keeps its text byte for byte, its
order and its citation key, and the element that wraps it; its header is rebuilt
from what the segmenter read (title, heading path, a stale note, a parse warning) and
every other field is dropped. Only with `unsafe` (`--unsafe-fixes`) are the sources
grouped by document and renumbered, the change `check` classes as unsafe (PL301).
Whatever is rewritten must read back the same: formatting it again changes nothing.

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

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from . import registry
from .config import Config
from ..rules._context import RuleContext
from ..model.findings import Edit
from ..model.prompt import Field, FieldForm, Prompt, Source, SourceStyle, Span, Syntax
from ..readers import document
from ..readers.jinja import Block, Tag, check_syntax, environment, parses, segment_jinja, tree
from ..readers.segment import segment_text, words
from ..rules.unconditional_date import STALE_LABEL
from ..canonical.chunks import to_chunk
from ..canonical.render import TITLE_SEPARATOR, WARNING_MARK, Chunk, order_sources, render_source


# Handlebars and Mustache section tags: `{{#each docs}}`, `{{/each}}`, `{{^docs}}`. A section
# repeats or hides what it holds; a rewrite that moved its text across them would change that.
_SECTION = re.compile(r"\{\{~?\s*[#^/]")
# A format-string or Mustache placeholder: `{snippet}`, `{doc['text']}`, `{{ title }}`.
_PLACEHOLDER = re.compile(r"\{\{?[^{}\n]+\}\}?")
_TAG_NAME = re.compile(r"</?([A-Za-z_][\w:.-]*)")
# Markup that carries no words of its own: tags, CDATA brackets.
_MARKUP = re.compile(r"<!\[CDATA\[|\]\]>|</?[A-Za-z_][\w:.-]*(?:\s[^<>]*)?/?>")


@dataclass(frozen=True)
class Formatted:
    """What `format` made of a file: its new text (None when unchanged), and why blocks were kept."""

    text: str | None
    kept: tuple[str, ...] = ()  # one line per sources block left as it was: "sources block kept: ..."


class _Kept(Exception):
    """A sources block format does not fully understand, so leaves byte for byte; the message says why."""


def _tags(text: str) -> set[str]:
    return {m[1] for m in _TAG_NAME.finditer(text)}


def _words_left(text: str, source: Source | None = None) -> bool:
    """Whether ``text`` holds words, other than markup and the labels of the source's fields and content."""
    labels = ({word for f in source.fields for word in f.label.split()} | _content_words()) if source else set()
    return any(word not in labels for word in re.findall(r"\w+", _MARKUP.sub("", text).lower()))


def _content_words() -> set[str]:
    return {word for label in words().content_labels for word in label.split()}


def _unread(text: str, whole: Span, read: list[Span]) -> str:
    """The text of ``whole`` that none of the ``read`` spans covers."""
    pieces, at = [], whole.start
    for span in sorted(read):
        if span.start > at:
            pieces.append(text[at : span.start])
        at = max(at, span.end)
    pieces.append(text[at : whole.end])
    return "".join(pieces)


def _check_source(prompt: Prompt, source: Source) -> None:
    """Raise _Kept unless format reads every part of the source."""
    if not len(source.content):
        raise _Kept("a source without chunk text")
    read = [source.header, source.content, *(f.span for f in source.fields), *source.wrapper_lines]
    if _words_left(_unread(prompt.text, source.span, read), source):
        raise _Kept("text in a source that is not a field")
    if "```" in _unread(prompt.text, source.span, [source.content]):
        raise _Kept("a code fence around a source")


def _labelled(text: str, field: Field) -> bool:
    """Whether the field's label is written out beside its value (a tag name counts)."""
    beside = text[field.span.start : field.value_span.start] + text[field.value_span.end : field.span.end]
    return bool(field.label) and "{" not in field.label and any(c.isalpha() for c in beside)


def _as_read(prompt: Prompt, source: Source) -> tuple[Prompt, Source]:
    """The source as format reads it, in the prompt its spans point into.

    An element that holds nothing but one source in the text layout (what format writes
    inside an `<item>`) is read as that source, so that a second format changes nothing.
    """
    if source.style != SourceStyle.XML or any(f.form == FieldForm.TAG for f in source.fields):
        return prompt, source
    inner = segment_text(prompt.text[source.content.start : source.content.end])
    if len(inner.sources) != 1 or inner.sources_block != Span(0, len(inner.text)):
        return prompt, source
    return inner, inner.sources[0]


def _check_understood(prompt: Prompt) -> None:
    """Raise _Kept unless every part of the sources block is a source format can rebuild."""
    text, sources = prompt.text, prompt.sources
    if prompt.locked:
        raise _Kept("JSON sources")
    if _SECTION.search(text):
        raise _Kept("Handlebars sections")
    for source in sources:
        _check_source(prompt, source)
        _check_source(*_as_read(prompt, source))
    between = [Span(a.span.end, b.span.start) for a, b in zip(sources, sources[1:])]
    block = prompt.sources_block
    edges = [Span(block.start, sources[0].span.start), Span(sources[-1].span.end, block.end)]
    if any(_words_left(text[s.start : s.end]) for s in between + edges):
        raise _Kept("text between sources")


def _rendered(prompt: Prompt, source: Source, chunk: Chunk, key: str, config: Config) -> str:
    """The canonical source, inside the element that wrapped it when it was wrapped in one."""
    stale_after = config.options["unconditional-date"]["stale-after"]
    canonical = render_source(chunk, key, today=config.today, stale_after_days=stale_after)
    if source.style != SourceStyle.XML:
        return canonical
    opening = prompt.text[source.header.start : source.header.end]
    closing = prompt.text[prompt.text.rindex("</", source.span.start, source.span.end) : source.span.end]
    return f"{opening}\n{canonical}\n{closing}"


def _check_nothing_lost(prompt: Prompt, read: list[tuple[Prompt, Source]], span: Span, replacement: str) -> None:
    """Raise _Kept if ``replacement`` for ``span`` would drop more than the fields' labelled metadata."""
    sources = prompt.sources
    # A field read from its shape alone (a bracketed value, a placeholder's name) may be the
    # text itself: it may go only into the new header (a parse warning after its mark).
    for where, source in [(prompt, s) for s in sources] + read:
        if any(not _labelled(where.text, f) and f.value.strip() not in replacement for f in source.fields):
            raise _Kept("a field without a written label")
    dropped = [f.span for s in sources for f in s.fields]
    placeholders = Counter(m[0] for m in _PLACEHOLDER.finditer(_unread(prompt.text, span, dropped)))
    if placeholders - Counter(m[0] for m in _PLACEHOLDER.finditer(replacement)):
        raise _Kept("a placeholder the layout has no place for")
    _check_named_tags(prompt.text, span, replacement)


def _check_named_tags(text: str, span: Span, replacement: str) -> None:
    """Raise _Kept if a tag the replacement of ``span`` drops is named in the rest of the text."""
    lower = text.lower()
    outside = lower[: span.start] + "\n" + lower[span.end :]
    if any(re.search(rf"</?{re.escape(name)}\b", outside) for name in _tags(lower[span.start : span.end]) - _tags(replacement.lower())):
        raise _Kept("a tag the instructions name")


def sources_edit(prompt: Prompt, config: Config, unsafe: bool = False) -> tuple[Span, str] | None:
    """The canonical sources, to stand from the first source to the last; None with no sources.

    The sources keep their order and citation keys; only ``unsafe`` (`--unsafe-fixes`) groups
    them by document and numbers them anew, the change check classes as unsafe (PL301).
    Raises _Kept when the block holds what format does not read.
    """
    if not prompt.sources or prompt.sources_block is None:
        return None
    _check_understood(prompt)
    sources = prompt.sources
    read = [_as_read(prompt, s) for s in sources]
    chunks = [to_chunk(*pair) for pair in read]
    keys = [s.key or inner.key for s, (_, inner) in zip(sources, read)]
    if unsafe or not any(keys):
        keys = [str(n) for n in range(1, len(sources) + 1)]
    elif not all(keys) or len(set(keys)) < len(keys):
        # New numbers would no longer match the citations written elsewhere (an example's answer).
        raise _Kept("citation keys missing or repeated")
    triples = list(zip(sources, chunks, keys))
    if unsafe:
        by_chunk = {id(c): s for s, c, _ in triples}
        triples = [(by_chunk[id(c)], c, key) for c, key in zip(order_sources(chunks), keys)]
    rendered = [_rendered(prompt, s, c, key, config) for s, c, key in triples]
    start, end = sources[0].span.start, sources[-1].span.end
    span = Span(start, start + len(prompt.text[start:end].rstrip()))  # the line breaks after it stay
    replacement = "\n\n".join(rendered)
    _check_nothing_lost(prompt, read, span, replacement)
    return span, replacement


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
    date = source.field_named(*RuleContext(rule, options, config.today, config.lexicon).labels())
    warning = source.field_named(*words().warning_labels)
    header = key
    if source.title:
        header += _when_set(source.title, " ")
    if source.heading_path:
        before = " "
        if source.title:
            # The dash separates title from path; without a title it would dangle. (Tags, not a
            # string literal: no quote can then clash with the string a template is written in.)
            before = f"{{% if {_expression(source.title)} %}}{TITLE_SEPARATOR}{{% else %}} {{% endif %}}"
        header += _when_set(source.heading_path[0], before)
    if date:
        # Only the application knows today's date, so it decides staleness and sets the flag.
        variable = environment().parse(template[source.span.start : source.span.end]).body[0].target.name
        header += f"{{% if {variable}.{options['stale-flag']} %}} ({STALE_LABEL} {_output(date.value)}){{% endif %}}"
    if warning:
        header += _when_set(warning.value, WARNING_MARK)
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


# Jinja tags, which the word check leaves out (outputs are checked one by one).
_JINJA_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
# An element that wraps the whole body of a loop (`<document index="{{ loop.index }}">`).
_WRAPPER = re.compile(r"\s*(<([A-Za-z_][\w:.-]*)(?:\s[^<>]*)?>)")


def _wrapper(body: str) -> tuple[str, str] | None:
    """The opening and closing tag of the element the body is wrapped in, if it is."""
    opening = _WRAPPER.match(body)
    if opening is None or not body.rstrip().endswith(f"</{opening[2]}>"):
        return None
    return opening[1], f"</{opening[2]}>"


def _check_loop(template: str, source: Source, body: Span, flat: list[Tag]) -> None:
    """Raise _Kept unless the loop body holds only what its canonical form is built from."""
    fields = [f.span for f in source.fields]
    comments = [t.span for t in flat if t.kind == "comment" and body.contains(t.span)]
    reprinted = {_expression(t) for t in (source.title, *source.heading_path[:1]) if t} | {"loop.index", "citation.n"}
    for tag in flat:
        known = tag.span == source.content or any(f.contains(tag.span) for f in fields)
        if tag.kind == "variable" and body.contains(tag.span) and not known and _expression(tag.inner) not in reprinted:
            raise _Kept("an output the layout has no place for")
    unread = _unread(template, body, [source.header, source.content, *fields, *comments])
    if _words_left(_JINJA_TAG.sub("", unread), source):
        raise _Kept("text in a source that is not a field")


def format_template(template: str, config: Config) -> str:
    """The template with each sources loop's body in canonical form; unchanged if that would not parse.

    Raises _Kept when a loop body holds what the canonical body has no place for.
    """
    flat = check_syntax(template)  # the same tags segment_jinja reads below, remembered
    roots = tree(flat)
    blocks = list(_blocks(roots))
    loops = {block.span: block for block in blocks if block.keyword == "for"}
    # A loop with no `{{ doc.content }}` output renders its items some other way, and one
    # that prints them through a macro names them by the macro's parameters: both stay.
    rewritten = [source for source in segment_jinja(template).sources if len(source.content) and _reads_in_body(source, loops[source.span])]
    counted = _numbered_by_counter(rewritten, blocks)
    key = _COUNTER_KEY if counted else _LOOP_KEY
    formatted = template
    # From the last loop back, so the spans of the earlier ones still hold.
    for source in reversed(rewritten):
        body = loops[source.span].branch_spans()[0]  # up to `{% else %}` or `{% endfor %}`
        formatted = formatted[: body.start] + _new_body(template, flat, source, body, config, key) + formatted[body.end :]
    if counted:
        at = next(item.span.start for item in roots if isinstance(item, Block) and item.span.contains(rewritten[0].span))
        start = _counter_start(template, at)
        if not template.endswith(start, 0, at):  # set by an earlier format
            formatted = formatted[:at] + start + formatted[at:]
    return formatted if parses(formatted) else template


def _numbered_by_counter(rewritten: list[Source], blocks: list[Block]) -> bool:
    """Whether the rewritten loops number their sources with a counter (see _COUNTER_KEY):
    there is more than one, or one inside a body that repeats."""
    repeating = [block.span for block in blocks if block.keyword in _REPEATING]
    return len(rewritten) > 1 or any(
        outer != source.span and outer.contains(source.span) for outer in repeating for source in rewritten
    )


def _new_body(template: str, flat: tuple[Tag, ...], source: Source, body: Span, config: Config, key: str) -> str:
    """What replaces a sources loop's body: its comments, then the canonical body in the loop's wrapper element.

    Raises _Kept when the body holds what the canonical one has no place for.
    """
    _check_loop(template, source, body, flat)
    # The user's comments stay, without their dashes: a `{#-` or `-#}` would strip the line break.
    comments = "".join("{#" + tag.inner + "#}" for tag in flat if tag.kind == "comment" and body.contains(tag.span))
    # The header starts a line of its own, so with the loop's tags on lines of their own
    # the sources render one blank line apart, as render_sources joins them. (The text
    # of a `-%}` tag takes the newline it strips, so the line is already broken.)
    line_break = "" if template.endswith("\n", 0, body.start) else "\n"
    canonical = _loop_body(template, source, config, key)
    # The element each source is wrapped in stays, the canonical lines inside it.
    wrapper = _wrapper(template[body.start : body.end])
    if wrapper:
        canonical = f"{wrapper[0]}\n{canonical}{wrapper[1]}\n"
    _check_named_tags(template, body, canonical)
    return comments + line_break + canonical


def _format_text(piece: document.Prompt, config: Config, unsafe: bool) -> str:
    edit = sources_edit(segment_text(piece.text, piece.messages()), config, unsafe)
    if edit is None:
        return piece.text
    span, replacement = edit
    if not piece.source.fits(piece, (Edit(span, replacement),)):
        raise _Kept("sources in more than one chat message")
    return piece.text[: span.start] + replacement + piece.text[span.end :]


def _formatted(piece: document.Prompt, config: Config, unsafe: bool) -> str:
    if piece.loop is not None:
        return piece.text  # one source's wrapper, built by code: there is no sources block to rewrite
    if piece.syntax == Syntax.JINJA:
        once = format_template(piece.text, config)
        settled = once == piece.text or format_template(once, config) == once
    else:
        once = _format_text(piece, config, unsafe)
        # The new layout must read back as the same sources: formatting it again changes nothing.
        try:
            settled = once == piece.text or _format_text(piece.with_text(once), config, unsafe) == once
        except _Kept:
            settled = False
    if not settled:
        raise _Kept("the new layout would not read back the same")
    return once


def _would_format(piece: document.Prompt, config: Config, unsafe: bool) -> bool:
    try:
        return _formatted(piece, config, unsafe) != piece.text
    except _Kept:
        return True


def format_document(doc: document.Document, config: Config, unsafe: bool = False) -> Formatted:
    """The document with every prompt's sources block in canonical form, and the blocks kept as they were.

    A block is rewritten only when format reads every part of it; otherwise it stays byte
    for byte and ``kept`` says why. With ``unsafe`` the sources are also grouped and renumbered.
    """
    pieces, kept = [], []
    for piece in doc.prompts:
        if piece.translated and _would_format(piece, config, unsafe):
            # A Handlebars template is read as the Jinja it means; that text is not the file's.
            kept.append("sources block kept: Handlebars sections")
        # Only a text whose source map takes a whole new block is rewritten: one not in the file
        # verbatim (a YAML block) or written through escapes (check --fix writes small edits
        # there, a Python literal or a config's chat template in a JSON string) is left as it is.
        if not (piece.source.editable and piece.source.rewritable):
            pieces.append(piece)
            continue
        try:
            pieces.append(piece.with_text(_formatted(piece, config, unsafe)))
        except _Kept as reason:
            pieces.append(piece)
            kept.append(f"sources block kept: {reason}")
    if pieces == list(doc.prompts):
        # Rebuilding the file is not a no-op for a prompt without an origin in it (a YAML block).
        return Formatted(None, tuple(kept))
    new = doc.with_prompts(pieces)
    # A line break cannot go into every string as written (a one-line Python or YAML string):
    # the file must read back as the prompts formatted, or it is left as it is.
    again = document.parse(new.encode("utf-8"), doc.path, config.suffix_for(doc.path), config.lexicon)
    if [p.text for p in again.prompts] != [p.text for p in pieces]:
        return Formatted(None, tuple(kept))
    return Formatted(new, tuple(kept))
