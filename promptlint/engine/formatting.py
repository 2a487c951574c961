"""`promptlint format`: `check --fix` plus the canonical layout of a prompt's sources, never more.

A sources block is rewritten in two steps. First the fixes `check --fix` applies inside
it (with `--unsafe-fixes`, the unsafe ones too: grouping by document, the stale-only
wrapper around a template's date), and no other. Then the layout: each source a header
line rebuilt from what the segmenter read (citation key, title, heading path, a stale
note, a parse warning), its text byte for byte, one blank line between sources. The
layout drops no fact: a field left after the fixes that the canonical header has no place
for (a URL, a version, a date that is not stale) keeps the block as it is, and so does a
layout whose text would have a finding, or more of one, than the prompt as read.

The block is rewritten only when every part of it is read: each source a header, fields
with a written label and a chunk text, and between the sources nothing but blank lines,
separators and markup. Anything else (Handlebars sections, JSON sources, text between
sources, a value read from its shape alone) leaves the prompt byte for byte, and
`Formatted.kept` says why in one line. Each source keeps its order and its citation key,
and the element that wraps it; only `unsafe` groups and renumbers them (PL301). Whatever
is rewritten must read back the same: formatting it again changes nothing.

In a Jinja template the body of each sources loop is rewritten to the same layout,
built from the template's own expressions. The `{% for %}` and `{% endfor %}` tags
stay as written: the loop variable and what it iterates are the application's.
What only the data knows is decided at render time, as render_sources decides it:
the title and the heading path show only when set, the dash between them only with
a title, a date only under the staleness test the template has. A date shown on every
source is left unless `--unsafe-fixes` wraps it in one (`{% if doc.stale %}`); then
`Formatted.notes` names the value the data must now hold. A loop body already
equivalent to the canonical one (the same sources on the prompt model, rendering the
same text with its heading path and tests set or not) is left as written. With more
than one sources loop (or one inside another loop) the citation numbers run on through
a namespace counter set before the first of them.

The comments of a rewritten body are kept, at its start, which renders nothing: at
the end of the `{% for %}` line, or at the start of the header line when the tag
strips its newline. That is the line the findings left on a formatted loop (a
missing title, a missing heading path) are reported on, so an `ignore` directive
kept there covers them. A line a directive keeps from check --fix, format keeps too.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import jinja2
from jinja2 import nodes
from jinja2.sandbox import SandboxedEnvironment
from jinja2.utils import Namespace

from . import registry
from .config import Config
from .lint import fix_sources, prompt_findings
from ..rules._context import RuleContext
from ..meaning import vocabulary
from ..meaning.lexicon import Lexicon
from ..meaning.values import parse_date
from ..model.findings import Applicability, Edit
from ..model.prompt import Field, FieldForm, Prompt, Source, SourceStyle, Span, Syntax
from ..readers import document
from ..readers.jinja import Block, Tag, check_syntax, environment, parses, segment_jinja, tree
from ..readers.segment import segment_text, words
from ..rules.unconditional_date import STALE_LABEL
from ..canonical.chunks import to_chunk
from ..canonical.render import TITLE_SEPARATOR, WARNING_MARK, Chunk, freshness_note, order_sources, render_header, render_source


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
    # One line per thing the new text needs from the data it did not need before (an unsafe fix's stale flag).
    notes: tuple[str, ...] = ()


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


def _check_placed(read: list[tuple[Prompt, Source]], chunks: list[Chunk], config: Config) -> None:
    """Raise _Kept if the canonical header of a source has no place for one of its fields.

    Format drops only what `check --fix` drops, and the fix pass before the layout has
    dropped that already: every field left must stand in the new header, as its title,
    an item of its heading path, its parse warning, or its date in the stale note.
    Its citation key is left out of the header searched: a `Page: 1` is no `[1]`.
    """
    stale_after = config.options["unconditional-date"]["stale-after"]
    for (_, source), chunk in zip(read, chunks):
        header = render_header(chunk, "", today=config.today, stale_after_days=stale_after)
        noted = freshness_note(chunk, today=config.today, stale_after_days=stale_after) is not None
        for field in source.fields:
            shown = re.search(rf"(?<!\w){re.escape(' '.join(field.value.split()))}(?!\w)", header)
            if not (shown or noted and parse_date(field.value) == chunk.updated):
                raise _Kept(f"a field the canonical header has no place for ({field.label})")


def _check_header_words(text: str, source: Source, rebuilt: str) -> None:
    """Raise _Kept if a word of the source's header goes: a heading keeps every character.

    What may go is what the new header says another way: the word naming a source and its
    key (`Document 3:`, `Chunk ID 3` become `[3]`), the fields as written (`Last modified:`;
    their values _check_placed and _loop_body keep), the labels of the content, markup and
    template tags, a metadata label; a key the unsafe fixes renumber.
    """
    segment = vocabulary.load("segment")
    names = {w for phrase in segment["source-words"] + segment["source-key-words"] for w in re.findall(r"\w+", phrase)}
    written = " ".join(_JINJA_TAG.sub(" ", text[f.span.start : f.span.end]) for f in source.fields)
    labels = {w for f in source.fields for w in f.label.split()} | set(re.findall(r"\w+", f"{written} {source.key or ''}".lower())) | _content_words()
    kept = set(re.findall(r"\w+", _JINJA_TAG.sub(" ", rebuilt).lower()))
    header = _MARKUP.sub(" ", _JINJA_TAG.sub(" ", text[source.header.start : source.header.end])).lower()
    # A metadata label standing alone (`(score ` once check --fix took its value) holds no fact.
    lost = [w for w in re.findall(r"\w+", header) if w not in names | labels | kept and not words().is_field(w)]
    if lost:
        raise _Kept(f"a word of a source's header the layout has no place for ({lost[0]})")


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
    _check_placed(read, chunks, config)
    rendered = [_rendered(prompt, s, c, key, config) for s, c, key in triples]
    for (where, source), text in zip(read, rendered):
        _check_header_words(where.text, source, text)
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


def _stale_test(template: str, date: Field, lexicon: Lexicon) -> str | None:
    """The test of the `{% if %}` a template shows a date under, when it is a staleness test (`doc.stale`)."""
    staleness = vocabulary.patterns(lexicon.words("unconditional-date", "staleness-tests"))
    tests = [block.tags[0].inner.strip().removeprefix("if").strip() for block in _blocks(tree(check_syntax(template)))
             if block.keyword == "if" and block.branch_spans()[0].contains(date.value_span)]
    return tests[-1] if date.conditional and tests and staleness.search(tests[-1].lower()) else None


def _stale_tests(template: str, lexicon: Lexicon) -> set[str]:
    """The staleness tests a template shows its sources' dates under."""
    found = (_stale_test(template, f, lexicon) for s in segment_jinja(template).sources for f in s.fields if f.conditional)
    return {test for test in found if test}


def _loop_body(template: str, source: Source, config: Config, key: str) -> str:
    """The canonical body of a sources loop: a header line, then the content and a newline."""
    rule = registry.get("unconditional-date")
    date = source.field_named(*RuleContext(rule, config.rule_options(rule), config.today, config.lexicon).labels())
    warning = source.field_named(*words().warning_labels)
    placed = {_expression(f.value) for f in (date, warning) if f} | {_expression(t) for t in (source.title, *source.heading_path[:1]) if t}
    for field in source.fields:
        if _expression(field.value) not in placed:
            raise _Kept(f"a field the canonical header has no place for ({field.label})")
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
        # Only the application knows today's date, so it decides staleness, under the test the template has.
        test = _stale_test(template, date, config.lexicon)
        if test is None:
            # Showing it only under a staleness test makes the template read a flag the data
            # may not have: check's unsafe fix, applied only with --unsafe-fixes.
            raise _Kept("a date on every source (to show it only when stale is an unsafe fix: --unsafe-fixes)")
        header += f"{{% if {test} %}} ({STALE_LABEL} {_output(date.value)}){{% endif %}}"
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
        loop = loops[source.span]
        body = loop.branch_spans()[0]  # up to `{% else %}` or `{% endfor %}`
        new_body = _new_body(template, flat, source, body, config, key)
        # Numbers that restart in each loop are not the ones a counter runs on.
        if not (counted and "citation.n" not in template[body.start : body.end]) and _equivalent(template, loop, new_body):
            continue
        formatted = formatted[: body.start] + new_body + formatted[body.end :]
    if formatted == template:
        return template
    if counted:
        at = next(item.span.start for item in roots if isinstance(item, Block) and item.span.contains(rewritten[0].span))
        start = _counter_start(template, at)
        if not template.endswith(start, 0, at):  # set by an earlier format
            formatted = formatted[:at] + start + formatted[at:]
    return formatted if parses(formatted) else template


# The block tags of a canonical loop body, besides its `{% for %}` and `{% endfor %}`.
_HEADER_TAGS = frozenset({"if", "elif", "else", "endif", "set"})
# A path of attributes or keys from the loop variable (`doc.meta.title`, `doc['path']`): data a sample sets.
_PATH = re.compile(r"[A-Za-z_]\w*(?:\.\w+|\[['\"]\w+['\"]\])*")


class _Sample:
    """A loop item of sample data: a value set for a path, and any other path prints its name («doc.url»)."""

    def __init__(self, path: str, values: dict[str, object]):
        self._path, self._values = path, values

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]

    def __getitem__(self, key):
        path = f"{self._path}.{key}"
        return self._values.get(path, _Sample(path, self._values))

    def __str__(self) -> str:
        return f"«{self._path}»"


def _renders(loop_text: str, values: dict[str, object], target: str) -> str | None:
    """The loop rendered over two sample items; None when sample data cannot render it."""
    try:
        # Sandboxed: the template is the user's, and rendering it must not reach past its data.
        env = SandboxedEnvironment(undefined=jinja2.ChainableUndefined, extensions=["jinja2.ext.loopcontrols", "jinja2.ext.do"])
        items = [_Sample(target, values) for _ in range(2)]
        return env.from_string(loop_text).render(__items=items, citation=Namespace(n=0))
    except Exception:  # a filter, a test or a call sample data cannot satisfy; an include
        return None


def _model(prompt: Prompt) -> list[tuple]:
    """What a source of the prompt model is made of: its key, title, heading path, fields and content."""
    # Expressions without their whitespace control: what that changes, the rendering shows.
    return [([_expression(t) for t in (s.key or "", s.title or "", *s.heading_path, prompt.text[s.content.start : s.content.end])],
             sorted((f.label, _expression(f.value), f.conditional) for f in s.fields)) for s in prompt.sources]


def _dotted(path: str) -> str:
    """A path with its keys as attributes: `doc['meta'].title` is `doc.meta.title`."""
    return re.sub(r"\[['\"](\w+)['\"]\]", r".\1", path)


def _loop_texts(template: str, loop: Block, new_body: str) -> tuple[str, str, str] | None:
    """The loop as written and with ``new_body``, over sample items, and its variable; None
    when sample items cannot stand for what it iterates (a tuple, `for i, doc in ...`)."""
    opening, body = loop.tags[0], loop.branch_spans()[0]
    target = environment().parse(template[loop.span.start : loop.span.end]).body[0].target
    if not isinstance(target, nodes.Name):
        return None
    tag = template[opening.span.start : opening.span.end]
    # The tag's own whitespace control: it strips (or keeps) the same around the body.
    for_tag = f"{tag[:3] if tag[2] in '-+' else tag[:2]} for {target.name} in __items {'-%}' if tag.endswith('-%}') else '%}'}"
    closing = template[body.end : loop.span.end]
    return for_tag + template[body.start : body.end] + closing, for_tag + new_body + closing, target.name


def _sample_paths(old: str, new: str, source: Source, target: str) -> list[str]:
    """What sample data sets and unsets: the paths the tests of either loop read, the heading
    path and the parse warning; not the title (taken to be set)."""
    tests = " ".join(t.inner for text in (old, new) for t in check_syntax(text) if t.keyword in ("if", "elif"))
    printed = {_expression(t) for t in source.heading_path} | {_expression(f.value) for f in source.fields if f.label in words().warning_labels}
    paths = {_dotted(p) for p in printed | set(_PATH.findall(tests)) if _PATH.fullmatch(p)}
    return sorted(p for p in paths if p.startswith(f"{target}.") and p != _dotted(_expression(source.title or "")))


def _equivalent(template: str, loop: Block, new_body: str) -> bool:
    """Whether the loop is already equivalent to its canonical body, so that format leaves it alone.

    Judged on the prompt model, not the bytes: both bodies read as sources with the same
    title, heading path, fields (a date under the same staleness test) and content; and
    they render the same text over sample data with the heading path, the staleness test
    and the parse warning each set and unset (a title is taken to be set: the canonical
    body tests it only so as not to leave a space where it is missing).
    """
    texts = _loop_texts(template, loop, new_body)
    # An expression the canonical tags cannot hold fails to parse: format_template then keeps the template.
    if texts is None or not parses(texts[1]):
        return False
    old, new, target = texts
    # The canonical body tests and sets, nothing more; a body that loops or calls is not its
    # shape (and sample data must not run its loops, which may be long).
    if [t.keyword for t in check_syntax(old) if t.kind == "block" and t.keyword not in _HEADER_TAGS] != ["for", "endfor"]:
        return False
    old_model, new_model = segment_jinja(old), segment_jinja(new)
    if _model(old_model) != _model(new_model) or len(old_model.sources) != 1:
        return False
    paths = _sample_paths(old, new, new_model.sources[0], target)
    if len(paths) > 6:  # more than the canonical header's tests: not its shape
        return False
    for unset in range(2 ** len(paths)):
        values: dict[str, object] = {p: "" if unset >> i & 1 else True for i, p in enumerate(paths)}
        before = _renders(old, values, target)
        if before is None or before != _renders(new, values, target):
            return False
    return True


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
    _check_header_words(template, source, canonical)
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


def _check_no_new_finding(doc: document.Document, index: int, text: str, config: Config) -> None:
    """Raise _Kept if the prompt's new text has a finding, or more of one, than its text as read.

    Counted per code: the layout rewrites the header lines findings on a source point at.
    """
    if text == doc.prompts[index].text:
        return
    before = Counter(f.code for f in prompt_findings(doc, index, doc.prompts[index].text, config))
    new = sorted(Counter(f.code for f in prompt_findings(doc, index, text, config)) - before)
    if new:
        raise _Kept(f"the new layout would read with a finding the prompt does not have ({', '.join(new)})")


def format_document(doc: document.Document, config: Config, unsafe: bool = False) -> Formatted:
    """The document with every prompt's sources block in canonical form, and the blocks kept as they were.

    A block is rewritten only when format reads every part of it; otherwise it stays byte
    for byte and ``kept`` says why. With ``unsafe`` the sources are also grouped and renumbered.
    """
    pieces, kept, notes = [], [], []
    threshold = Applicability.UNSAFE if unsafe else Applicability.SAFE
    for index, piece in enumerate(doc.prompts):
        # Only a text whose source map takes a whole new block is rewritten: one not in the file
        # verbatim (a YAML block) or written through escapes (check --fix writes small edits
        # there, a Python literal or a config's chat template in a JSON string) is left as it is,
        # and so is one source's wrapper built by code: it has no sources block to rewrite.
        rewritable = piece.source.editable and piece.source.rewritable and piece.loop is None
        if not (rewritable or piece.translated):
            pieces.append(piece)
            continue
        # What check --fix removes from the sources goes first; the layout then drops nothing more.
        fixed = piece.with_text(fix_sources(doc, index, config, threshold))
        if piece.translated and _would_format(fixed, config, unsafe):
            # A Handlebars template is read as the Jinja it means; that text is not the file's.
            kept.append("sources block kept: Handlebars sections")
        if not rewritable:
            pieces.append(piece)
            continue
        try:
            text = _formatted(fixed, config, unsafe)
            _check_no_new_finding(doc, index, text, config)
        except _Kept as reason:
            pieces.append(piece)
            kept.append(f"sources block kept: {reason}")
            continue
        pieces.append(piece.with_text(text))
        if piece.syntax == Syntax.JINJA:
            added = _stale_tests(text, config.lexicon) - _stale_tests(piece.text, config.lexicon)
            notes += [f"the template now needs a `{test.rpartition('.')[2]}` value on each source ({test}): "
                      "set it when the source is stale, or its date never shows" for test in sorted(added)]
    if pieces == list(doc.prompts):
        # Rebuilding the file is not a no-op for a prompt without an origin in it (a YAML block).
        return Formatted(None, tuple(kept))
    new = doc.with_prompts(pieces)
    # A line break cannot go into every string as written (a one-line Python or YAML string):
    # the file must read back as the prompts formatted, or it is left as it is.
    again = document.parse(new.encode("utf-8"), doc.path, config.suffix_for(doc.path), config.lexicon)
    if [p.text for p in again.prompts] != [p.text for p in pieces]:
        return Formatted(None, tuple(kept))
    return Formatted(new, tuple(kept), tuple(notes))
