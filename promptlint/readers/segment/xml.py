"""Sources wrapped in elements, found by repetition and read by role.

A source is the unit a renderer repeats. In markup that is an element: one whose name is a
source's (``<document>``, ``<search_result>``), or an element type that repeats as siblings
and shows that it carries retrieved text (it stands in a container of sources, or carries
metadata a rule reports). A source's name with a key written into it (``<Doc1a9d18a7-...>``, ``<source_2>``) is
that kind of element, keyed by what follows the name. Inside the unit each part is read by its role, not its name: the
longest text is the content, whatever its element is called (``<chunk>``, ``<body_text>``);
attributes and the other child elements are fields under their own names. A unit whose
children repeat and hold the text (a document of passages) is a group: the children are the
sources, and the group's attributes are their document's, its title theirs, its other fields
on its first source, where they are written once.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass, field

from ...meaning.vocabulary import normalise_label
from ...model.prompt import Field, FieldForm, Source, SourceStyle, Span, SpanSet
from .vocab import SLOT, Vocab, text_lines, trim
from .sources import Body, read_body


@dataclass(eq=False)
class _Element:
    """A closed element: its opening tag, where its closing tag starts and ends, its children."""

    name: str
    tag: Span
    close: int = -1
    end: int = -1
    children: list[_Element] = field(default_factory=list)
    kind: str = ""  # the name less a key written into it (`<doc1a9d18a7-...>` is a "doc"); else the name
    key: Span | None = None  # where that key is written

    @property
    def inner(self) -> Span:
        return Span(self.tag.end, self.close)


# An opening or closing tag; an opening tag ending in "/" closes itself.
_TAG = re.compile(r"<(/?)([a-z_][\w.:-]*)(\s[^<>]*)?>")
# An attribute, its value in double quotes, single quotes or none.
_ATTRIBUTE = re.compile(r"([\w:.-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'<>=/]+))")
# Past this depth an element's children are not looked into for sources.
_MAX_DEPTH = 32
# Words a child's text must have to be read as a chunk rather than a short value.
_CONTENT_WORDS = 6


def xml_sources(text: str, lower: str, vocab: Vocab) -> list[Source]:
    """Sources wrapped in elements: <document index="1">...</document>, <item>, <passage>, repeated <hit>..."""
    if "<" not in text:
        return []
    units = _units(_tree(lower, vocab), text, lower, vocab, 0)
    sources: list[Source] = []
    for n, (element, group) in enumerate(units):
        first = group is not None and (n == 0 or units[n - 1][1] is not group)
        sources.append(_xml_source(text, lower, len(sources), element, group, first, vocab))
    return sources


def _tree(lower: str, vocab: Vocab) -> _Element:
    """The closed elements of the text as a tree under a root that spans it. A tag never closed
    is text: its children are its parent's."""
    root = _Element("", Span(0, 0), len(lower), len(lower))
    stack = [root]
    depths: dict[str, list[int]] = {}  # an open name -> where it stands on the stack
    for match in _TAG.finditer(lower):
        name = match[2]
        if not match[1]:
            if not (match[3] or "").rstrip().endswith("/"):
                depths.setdefault(name, []).append(len(stack))
                stack.append(_keyed_by_name(_Element(name, Span(match.start(), match.end()), kind=name), match.start(2), vocab))
            continue
        if not depths.get(name):
            continue  # a closing tag with nothing open to close
        while len(stack) > depths[name][-1] + 1:
            _fold(stack, depths)
        element = stack.pop()
        depths[name].pop()
        element.close, element.end = match.start(), match.end()
        stack[-1].children.append(element)
    while len(stack) > 1:
        _fold(stack, depths)
    return root


# A key written into an element's name after a source's: <doc1a9d18a7-9499-...>, <source_2>, <chunk-3>.
_KEY_IN_NAME = re.compile(r"[-_:]?(\d[\w-]*|[0-9a-f]{6,}(?:-[0-9a-f]+)*)")


def _keyed_by_name(element: _Element, name_at: int, vocab: Vocab) -> _Element:
    """The element with its kind and key, where its name is a source's with a key written into it."""
    for cut in range(2, len(element.name)):
        keyed = _KEY_IN_NAME.fullmatch(element.name, cut)
        if keyed and vocab.source_tag.fullmatch(f"<{element.name[:cut]}>"):
            element.kind, element.key = element.name[:cut], Span(name_at + keyed.start(1), name_at + keyed.end(1))
            break
    return element


def _fold(stack: list[_Element], depths: dict[str, list[int]]) -> None:
    """Drop the unclosed element on top of the stack; its closed children are its parent's."""
    dropped = stack.pop()
    depths[dropped.name].pop()
    stack[-1].children.extend(dropped.children)


def _units(parent: _Element, text: str, lower: str, vocab: Vocab, depth: int) -> list[tuple[_Element, _Element | None]]:
    """The source elements under ``parent``, in text order, each with the group it is a member of."""
    if depth > _MAX_DEPTH or normalise_label(parent.name) in vocab.history_labels:
        return []
    counts = Counter(child.kind for child in parent.children)
    found: list[tuple[_Element, _Element | None]] = []
    for child in parent.children:
        if not _is_unit(child, parent, counts, text, lower, vocab):
            found.extend(_units(child, text, lower, vocab, depth + 1))
            continue
        members = _members(child, parent, text, lower, vocab)
        found.extend([(m, child) for m in members] if members else [(child, None)])
    return found


def _is_unit(element: _Element, parent: _Element, counts: Counter[str], text: str, lower: str, vocab: Vocab) -> bool:
    """Whether an element is a source (or a group of them): named as one, or one of a repeated
    type that shows it carries retrieved text."""
    if vocab.source_tag.fullmatch(lower, element.tag.start, element.tag.end) or element.key is not None:
        return True
    if counts[element.kind] < 2 or element.name in vocab.question_tags or vocab.lexicon.mentions(element.name, "messages"):
        return False
    if not _words(_text_of(text, element)):
        return False
    # Or by what it prints: a repeated element whose text prints a chunk's text (`<data>{p.title}:{p.content}</data>`).
    return parent.name in vocab.container_tags or _carries_reported(element, text, lower, vocab) or _prints_a_chunk(_text_of(text, element), vocab)


def _prints_a_chunk(value: str, vocab: Vocab) -> bool:
    """Whether a text holds a slot whose name is the chunk text's (`{p.content}`, `{{ d.page_content }}`)."""
    return any(_names_the_chunk(slot, vocab) for slot in SLOT.finditer(value.lower()))


def _names_the_chunk(slot: re.Match[str], vocab: Vocab) -> bool:
    return vocab.lexicon.means(slot["name"].rsplit(".", 1)[-1], "content-key")


def _carries_reported(element: _Element, text: str, lower: str, vocab: Vocab) -> bool:
    """Whether an attribute or a child element of ``element`` holds metadata a rule reports."""
    names = [m[1] for m in _ATTRIBUTE.finditer(lower, element.tag.start, element.tag.end)] + [c.name for c in element.children]
    return any(vocab.lexicon.reported(normalise_label(name)) for name in names)


def _members(group: _Element, parent: _Element, text: str, lower: str, vocab: Vocab) -> list[_Element]:
    """The children of a unit that are its sources: those of a type that repeats as siblings, in
    it or in another unit of its name beside it, and holds the text. None: the unit is a source."""
    repeated: set[str] = set()
    for peer in (p for p in parent.children if p.name == group.name):
        repeated.update(name for name, n in Counter(c.name for c in peer.children).items() if n >= 2)
    holding = {c.name for c in group.children if c.name in repeated and _holds_chunk(text, c, vocab)}
    return [c for c in group.children if c.name in holding]


def _text_of(text: str, element: _Element) -> str:
    """The text inside an element, its tags left out."""
    return _TAG.sub(" ", text[element.inner.start : element.inner.end])


def _words(value: str) -> int:
    return len(value.split())


def _holds_chunk(text: str, element: _Element, vocab: Vocab) -> bool:
    """Whether an element's text is a chunk: several words, or a slot whose name says it prints one."""
    inner = _text_of(text, element)
    return _words(inner) >= _CONTENT_WORDS or _prints_content(inner, vocab)


def _prints_content(value: str, vocab: Vocab) -> bool:
    """A slot alone whose name is the chunk text's ({{ d.page_content }}, {passage})."""
    slot = SLOT.fullmatch(value.strip().lower())
    return slot is not None and _names_the_chunk(slot, vocab)


def _xml_source(text: str, lower: str, position: int, element: _Element, group: _Element | None, first: bool, vocab: Vocab) -> Source:
    """One source element: the key and fields of its opening tag and of its children, and its chunk;
    in a group, the group's title, and on its first source the group's other fields."""
    key, key_span, fields = _attribute_fields(text, lower, element.tag, vocab)
    if key is None and element.key is not None:
        key, key_span = text[element.key.start : element.key.end], element.key
    leaves = _leaves(element)
    chunk = _content_leaf(text, element, leaves, vocab)
    wrapper_lines: list[Span] = []
    children = [_child_field(text, leaf) for leaf in leaves if leaf is not chunk]
    if chunk is not None:
        content = Span(chunk.tag.end, chunk.close)
        fields += _attribute_fields(text, lower, chunk.tag, vocab, keyed=False)[2]
    else:
        body = _body_between_children(text, lower, element.inner, [f.span for f in children], vocab)
        fields += body.fields
        wrapper_lines = body.wrapper_lines
        content = body.content
    fields += children
    title, heading = _title_and_heading(children, vocab)
    title = title or _attribute_title(fields, vocab)
    if group is not None:
        _, _, shared = _attribute_fields(text, lower, group.tag, vocab)
        title = title or _attribute_title(shared, vocab)
        fields = (shared if first else []) + fields
    return Source(
        position=position,
        span=Span(element.tag.start, element.end),
        header=element.tag,
        content=trim(text, content),
        key=key,
        key_span=key_span,
        title=title,
        heading_path=heading,
        fields=fields,
        wrapper_lines=wrapper_lines,
        style=SourceStyle.XML,
    )


def _attribute_fields(text: str, lower: str, tag: Span, vocab: Vocab, keyed: bool = True) -> tuple[str | None, Span | None, list[Field]]:
    """The key of an opening tag (its first key attribute: "index", "id", ...) and its other
    attributes as fields, each removed with the space before it (or its line, alone on one)."""
    fields: list[Field] = []
    key = key_span = None
    for attr in _ATTRIBUTE.finditer(lower, tag.start, tag.end):
        label = normalise_label(attr[1])
        group = next(g for g in (2, 3, 4) if attr[g] is not None)
        value_span = Span(attr.start(group), attr.end(group))
        if keyed and label in vocab.key_attributes and key is None:
            key, key_span = text[value_span.start : value_span.end], value_span
            continue
        fields.append(Field(label, text[value_span.start : value_span.end], _attribute_span(text, Span(attr.start(), attr.end())), value_span, FieldForm.INLINE))
    return key, key_span, fields


def _attribute_span(text: str, attribute: Span) -> Span:
    """What removes an attribute: the spaces before it, or its whole line when it stands alone on one."""
    start = attribute.start
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    line_end = text.find("\n", attribute.end)
    if start > 0 and text[start - 1] == "\n" and line_end >= 0 and not text[attribute.end : line_end].strip():
        return Span(start, line_end + 1)
    return Span(start, attribute.end)


def _leaves(element: _Element) -> list[_Element]:
    """The elements inside ``element`` that hold no others, in text order: a child that groups
    metadata (<metadata><score>..</score></metadata>) gives its own children."""
    found: list[_Element] = []
    stack = list(reversed(element.children))
    while stack:
        child = stack.pop()
        if child.children:
            stack.extend(reversed(child.children))
        else:
            found.append(child)
    return found


def _content_leaf(text: str, element: _Element, leaves: list[_Element], vocab: Vocab) -> _Element | None:
    """The child element that holds the chunk, by its role: the one with the most words, when it
    has more than the text between the children (of several with a chunk's words, the one a
    content element's name holds); of slots, the one whose name prints the chunk,
    else the one a content element's name holds. None: the text between the children is the chunk."""
    if not leaves:
        return None
    printing = [leaf for leaf in leaves if _prints_content(_text_of(text, leaf), vocab)]
    if printing:
        return printing[0]
    counts = [_words(_text_of(text, leaf)) for leaf in leaves]
    # Two texts long enough to be a chunk: the element named for the content holds it.
    named_chunks = [leaf for leaf, n in zip(leaves, counts) if n >= _CONTENT_WORDS and leaf.name in vocab.content_tags]
    if named_chunks:
        return named_chunks[0]
    most = max(counts)
    # The element's text with its tags left out is the children's and the text between them.
    between = _words(_text_of(text, element)) - sum(counts)
    longest = leaves[counts.index(most)]
    # A short value is a field even when it is the longest ({file.filename}): a chunk has words.
    if most > between and (most >= _CONTENT_WORDS or longest.name in vocab.content_tags):
        return longest
    named = [leaf for leaf in leaves if leaf.name in vocab.content_tags]
    return named[0] if named and not between else None


def _child_field(text: str, leaf: _Element) -> Field:
    """A child element as a field under its name, removed with its line when alone on it."""
    value_span = Span(leaf.tag.end, leaf.close)
    span = _tag_line_span(text, Span(leaf.tag.start, leaf.end))
    return Field(normalise_label(leaf.name), text[value_span.start : value_span.end].strip(), span, value_span, FieldForm.TAG)


def _title_and_heading(children: list[Field], vocab: Vocab) -> tuple[str | None, tuple[str, ...]]:
    """The title and the heading path the child elements give, each from the first that names one."""
    title = None
    heading: tuple[str, ...] = ()
    for child in children:
        if child.label in vocab.title_labels | vocab.fallback_title_labels and title is None:
            title = child.value
        elif child.label in vocab.heading_labels and not heading:
            heading = tuple(p.strip() for p in child.value.split(">") if p.strip())
    return title, heading


def _body_between_children(text: str, lower: str, inner: Span, child_spans: list[Span], vocab: Vocab) -> Body:
    """With no content element, the text between the children, read as a text source's body."""
    covered = SpanSet(child_spans)
    inner_lines = text_lines(text, lower, inner.start, inner.end)
    body = read_body(text, [ln for ln in inner_lines if ln.start not in covered], vocab, default_start=inner.start)
    # The body leaves out the children's lines, but the content runs from its first line
    # to its last. Over a child read as a field (a tag left unclosed above the child makes
    # the content start there), a fix that removes the field would edit the content.
    content = body.content
    crossed = [ln.end for ln in inner_lines if ln.start in covered and content.start < ln.start < content.end]
    if crossed:
        return dataclasses.replace(body, content=Span(max(crossed), content.end))
    return body


def _attribute_title(fields: list[Field], vocab: Vocab) -> str | None:
    """The title an attribute of the opening tag gives, the first the lexicon's title attributes
    name in their order ("title", then "name", "source", a file name)."""
    for name in vocab.lexicon.phrases("title-attribute"):
        found = next((f for f in fields if f.label == name and f.form == FieldForm.INLINE), None)
        if found:
            return found.value
    return None


def _tag_line_span(text: str, span: Span) -> Span:
    """A child element alone on its line is removed with its line."""
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.end)
    line_end = len(text) if line_end < 0 else line_end
    if not text[line_start : span.start].strip() and not text[span.end : line_end].strip():
        return Span(line_start, min(line_end + 1, len(text)))
    return span


def widen_to_container(lower: str, block: Span, vocab: Vocab) -> Span:
    """The sources block with the elements that hold nothing else around it: a container of
    sources (<documents>), and the documents that group passages (<doc name="..."> ... </doc>)."""
    while True:
        before = lower[: block.start].rstrip()
        opened = re.search(r"<([a-z_][\w.:-]*)(?:\s[^<>]*)?>$", before)
        if not opened or not (opened[1] in vocab.container_tags or vocab.source_tag.fullmatch(opened[0])):
            return block
        after = lower[block.end :]
        closing = f"</{opened[1]}>"
        if not after.lstrip().startswith(closing):
            return block
        block = Span(opened.start(), block.end + (len(after) - len(after.lstrip())) + len(closing))
