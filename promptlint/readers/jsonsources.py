"""Sources written as JSON: the list of result objects a search tool hands the model.

`{"results": [{"title": "...", "updated_at": "...", "content": "..."}]}`, compact or
pretty-printed, or serialised into a JSON string once more (an agent's tool result:
`"[{\\"title\\": ...}]"`), which is read where it stands. The reader is tolerant, as prompts are often shown with comments and
bare placeholders (`"document": <citation_id>,  // why`), and it never fails: what it
cannot read is not a source. An object is a source when one of its keys names the
chunk text (a content label: `content`, `text`, `page_content`, ...) with a string
value and it has at least one other key; the other keys are its fields, and the keys of an object that is
the value of a key naming metadata (`"metadata": {...}`). Objects Python prints (`Document(page_content='...', metadata={...})`,
a list of dicts `[{'title': ..., 'snippet': '...'}]`) are the same objects written another way, and are read by the same walk.

A field's span is what removing it takes, its comma included, so that the JSON left
behind still reads: up to the next key, or, for the last key, from the end of the
value before it. The segmenter locks the span of these sources, and only such a
removal is made inside it (any other edit would have to know the JSON's quoting).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field

from ..meaning.vocabulary import normalise_label
from ..model.prompt import Field, FieldForm, Source, SourceStyle, Span

# A string, a comment, a structural character, or a bare run (a number, `true`, `<placeholder>`).
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[{}\[\]:,]|[^\s{}\[\]:,"]+')
# The quote that opens a JSON value serialised into a string: `"[{\"title\": ...`.
_SERIALISED = re.compile(r'"(?=[\[{]+\s*\\")')
# An escaped quote that opens a key or a value: after a bracket, a comma or a colon.
_OPENING_QUOTE = re.compile(r'([{\[,:]\s*)\\"')
# The rest of a JSON string, to its closing quote.
_STRING_END = re.compile(r'(?:[^"\\]|\\.)*"?', re.DOTALL)
# The cheap test that the text may hold such sources at all.
_CONTENT_KEY = re.compile(r'"[\w -]{1,30}"\s*:\s*"')
# Objects printed as Python writes them (`[Document(metadata={'source': 'a.pdf'}, page_content='...')]`, a retriever's
# results put into the prompt as they are): a keyword given a string after a call's parenthesis or a comma, looked up as a
# content label.
_PYTHON_KEYWORD = re.compile(r"[(,]\s*(\w{1,30})\s*=\s*['\"]")
# A dict's key as Python prints it, before a string: `{'snippet': '...'`.
_PYTHON_KEY = re.compile(r"[{,]\s*'([\w -]{1,30})'\s*:\s*['\"]")
# The tokens of Python's objects: JSON's, and strings in single quotes, a call's name and its parenthesis, `=` after a keyword.
_PYTHON_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|[A-Za-z_]\w*\(|[{}\[\]:,()=]|[^\s{}\[\]:,"\'()=]+')
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_CLOSING = {"}": "{", "]": "[", ")": "("}
# Sources are shallow and have a few keys: deeper nesting and longer objects are only
# matched up, not kept, so hostile input costs no more memory than this.
MAX_DEPTH = 64
MAX_KEYS = 100


@dataclass
class _Container:
    bracket: str  # "{" for an object, "(" for an object Python prints as a call, "[" for a list
    start: int
    key: Span | None  # the key it is the value of
    called: str = ""  # the call's name, for an object Python prints (`Document`)
    pairs: list[tuple[Span, Span, Span]] = field(default_factory=list)  # (key, value, the whole pair), in order
    # The objects among the values, by the start of their pair: a source's metadata (`"metadata": {"score": 0.8}`).
    objects: dict[int, _Container] = field(default_factory=dict)


def json_sources(
    text: str, content_labels: frozenset[str], title_labels: frozenset[str], heading_labels: frozenset[str], roles: frozenset[str],
    metadata_labels: frozenset[str],
) -> tuple[list[Source], Span | None, Span | None]:
    """The sources among the JSON objects of ``text``, in text order, the JSON value that holds them all, and
    the chat turns written out as JSON objects (two or more), from the first to the last.

    Objects Python prints (`[Document(page_content='...', metadata={...})]`, a retriever's results put into the
    prompt as they are) are looked for when JSON gives no source and a keyword names the chunk text: only such
    a call is a source, and one named for a message (`AIMessage(content=...)`) is a chat turn.

    One pass over the tokens, holding only the open brackets.
    """
    labels = (content_labels, title_labels, heading_labels, roles, metadata_labels)
    text = _unserialised(text) if "{" in text else text
    walk = _walked(text, labels, python=False) if "{" in text and _CONTENT_KEY.search(text) else None
    if (walk is None or not walk.sources) and _printed_by_python(text, content_labels):
        printed = _walked(text, labels, python=True)
        walk = printed if printed.sources else walk
    if walk is None:
        return [], None, None
    turns = Span(walk.turns[0].start, walk.turns[-1].end) if len(walk.turns) > 1 else None
    if not walk.sources:
        return [], None, turns
    # Inner objects close first: back into text order, numbered.
    sources = [dataclasses.replace(s, position=i) for i, s in enumerate(sorted(walk.sources, key=lambda s: s.span.start))]
    block = walk.holders[0] if len(walk.holders) == 1 else Span(sources[0].span.start, sources[-1].span.end)
    return sources, block, turns


# The mean length of a record's text read by its role: longer than a name, a date or an id.
_TEXT_CHARS = 80


def text_key_by_role(text: str) -> str | None:
    """The key that holds each record's text in a JSON list of records (or a list under one key of an object,
    `{"results": [...]}`) that no key's name says holds it: the records, two or more, share one set of keys, and
    the text is the key whose values are long and vary (a FAQ record's `answer`, beside its `id`, `section` and
    `question`). None when the text is no such list. What a tool gives back is read so: a search tool's results."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict):
        value = next((v for v in value.values() if isinstance(v, list)), None)
    if not isinstance(value, list) or len(value) < 2 or not all(isinstance(v, dict) and len(v) >= 2 for v in value):
        return None
    keys = list(value[0])
    if any(list(v) != keys for v in value):
        return None
    texts = {k: [v[k] for v in value] for k in keys if all(isinstance(v[k], str) for v in value)}
    varying = {k: sum(map(len, vs)) / len(vs) for k, vs in texts.items() if len(set(vs)) == len(vs)}
    longest = max(varying, key=varying.__getitem__, default=None)
    return longest if longest is not None and varying[longest] >= _TEXT_CHARS else None


def _printed_by_python(text: str, content_labels: frozenset[str]) -> bool:
    """Whether the text may hold objects as Python prints them, one of whose keys names the chunk text: a call's keyword
    (`Document(page_content='...')`) or a dict's key in single quotes (`[{'title': ..., 'snippet': '...'}]`)."""
    keyed = (_PYTHON_KEYWORD.finditer(text) if "(" in text else ()), (_PYTHON_KEY.finditer(text) if "'" in text else ())
    return any(normalise_label(m[1]) in content_labels for found in keyed for m in found)


def _walked(text: str, labels: tuple[frozenset[str], ...], python: bool) -> _Walk:
    """The pass over the tokens of ``text``, read as JSON or as the objects Python prints."""
    walk = _Walk(text, labels, python)
    for token in (_PYTHON_TOKEN if python else _TOKEN).finditer(text):
        kind = token[0]
        span = Span(token.start(), token.end())
        if kind in ("{", "[") or python and kind.endswith("("):
            walk.open(kind[-1], span)
        elif kind in ("}", "]") or python and kind == ")":
            walk.close(kind, span)
        elif kind == ":" or python and kind == "=":
            walk.key, walk.string = walk.string, None
        elif kind == ",":
            walk.string = None
        elif not kind.startswith("//"):
            walk.scalar(kind, span)
    return walk


class _Walk:
    """What the pass over the tokens holds: the open brackets, a key waiting for its value, and what was found."""

    def __init__(self, text: str, labels: tuple[frozenset[str], ...], python: bool):
        self.text = text
        self.python = python  # Python's objects: a bare name may be a key (`page_content=`)
        self.labels = labels  # content, title and heading labels, the names of chat roles, and metadata labels
        self.sources: list[Source] = []
        self.turns: list[Span] = []  # objects that are chat messages
        self.holders: list[Span] = []  # outermost values that hold sources: the tool's result, "note" keys and all
        self.stack: list[_Container] = []
        self.deeper = 0  # brackets open past MAX_DEPTH
        self.key: Span | None = None  # a key waiting for its value
        self.string: Span | None = None  # the last string in an object, a key if a colon follows

    def open(self, bracket: str, span: Span) -> None:
        if len(self.stack) < MAX_DEPTH:
            self.stack.append(_Container(bracket, span.start, self.key, self.text[span.start : span.end - 1] if bracket == "(" else ""))
        else:
            self.deeper += 1
        self.key = self.string = None

    def close(self, bracket: str, span: Span) -> None:
        self.key = self.string = None
        if self.deeper:
            self.deeper -= 1
            return
        opening = _CLOSING[bracket]
        while self.stack and self.stack[-1].bracket != opening:
            self.stack.pop()  # an unclosed bracket inside: forget it
        if not self.stack:
            return
        closed = self.stack.pop()
        whole = Span(closed.start, span.end)
        parent = self.stack[-1] if self.stack else None
        if closed.key is not None and parent is not None and parent.bracket in _OBJECTS and len(parent.pairs) < MAX_KEYS:
            parent.pairs.append((closed.key, whole, Span(closed.key.start, span.end)))
            if closed.bracket in _OBJECTS:
                parent.objects[closed.key.start] = closed
        source = _source(self.text, closed, whole, *self.labels) if self._may_be_source(closed, parent) else None
        if isinstance(source, Source):
            self.sources.append(source)
        elif source is _TURN:
            self.turns.append(whole)
        if not self.stack and self.sources and whole.contains(self.sources[-1].span):
            self.holders.append(whole)

    def _may_be_source(self, closed: _Container, parent: _Container | None) -> bool:
        """A JSON object; of what Python prints, an object of a class (`Document(...)`, capitalised, as a class is
        named), or a dict among the items of a list (`[{'title': ..., 'snippet': ...}, ...]`, results printed): a
        dict alone is as often a tool's arguments, and a function's call (`reply_text(text=...)`) is code, not a result."""
        if not self.python or closed.bracket == "{" and parent is not None and parent.bracket == "[":
            return closed.bracket == "{"
        return closed.bracket == "(" and closed.called[:1].isupper() and self.text[closed.start - 1 : closed.start] != "."

    def scalar(self, token: str, span: Span) -> None:
        """A string or a bare run (a number, `true`, `<placeholder>`): a key, or the value of one."""
        top = self.stack[-1] if self.stack and self.stack[-1].bracket in _OBJECTS else None  # keys and values only directly in an object
        if top is None:
            return
        quoted = token[0] == '"' or self.python and token[0] == "'"
        if self.key is None:
            self.string = span if quoted or self.python and _IDENTIFIER.fullmatch(token) else None
            return
        value = Span(span.start + 1, span.end - 1) if quoted else span
        if len(top.pairs) < MAX_KEYS:
            top.pairs.append((self.key, value, Span(self.key.start, span.end)))
        self.key = None


_OBJECTS = ("{", "(")
_QUOTES = ("\"", "'")

# A value written as "and so on": the object describes what a source looks like.
_ELIDED = frozenset({"", "...", "\u2026", "[...]", "<text>", "<content>", "string"})


def _unserialised(text: str) -> str:
    """The text with each JSON value written inside a JSON string (a tool's result serialised twice:
    `"[{\\"title\\": ...}]"`) read as JSON: the string's quotes as spaces, each escaped quote inside it as a
    quote with a space on its outer side. The same length, so every span stands where it is."""
    if '\\"' not in text:
        return text
    pieces, at = [], 0
    for match in _SERIALISED.finditer(text):
        if match.start() < at:
            continue
        end = _STRING_END.match(text, match.start() + 1).end()
        inner = _OPENING_QUOTE.sub(r'\1 "', text[match.start() + 1 : end - 1]).replace('\\"', '" ')
        pieces += [text[at : match.start()], " ", inner, " "]
        at = end
    return "".join(pieces) + text[at:]


# What _source gives for an object that is a chat message.
_TURN = object()


def _source(
    text: str, obj: _Container, span: Span, content_labels: frozenset[str], title_labels: frozenset[str], heading_labels: frozenset[str],
    roles: frozenset[str], metadata_labels: frozenset[str],
) -> Source | object | None:
    """The source an object is, ``_TURN`` when it is a chat message, or None."""
    labelled = [(_key(text, k), value, pair) for k, value, pair in obj.pairs]
    content = next(((value, pair) for label, value, pair in labelled if label in content_labels and text[value.start - 1 : value.start] in _QUOTES), None)
    if content is None or len(labelled) < 2:
        return None
    # `{"role": "system", "content": ...}`, `{"sender": "AI", "content": ...}`, `AIMessage(content=...)`: a chat message
    # written out as text, whatever the key that names who speaks, is no source.
    if _names_a_speaker(text, labelled, content[1], roles) or "message" in normalise_label(obj.called):
        return _TURN
    content_value, content_pair = content
    if text[content_value.start : content_value.end].strip() in _ELIDED:
        return None  # `{"source": "...", "text": "..."}`: the shape of a source described, not one
    removals = _removals([pair for _, _, pair in labelled], [key for key, _, _ in obj.pairs])
    fields = [
        field
        for (label, value, pair), (key, _, _), removal in zip(labelled, obj.pairs, removals)
        if pair is not content_pair
        for field in _fields(text, label, value, removal, obj.objects.get(key.start), metadata_labels)
    ]
    title = next((f.value for f in fields if f.label in title_labels), None)
    heading = next((f.value for f in fields if f.label in heading_labels), None)
    return Source(
        position=0,
        span=span,
        header=Span(span.start, content_pair.start),
        content=content_value,
        title=title,
        heading_path=(heading,) if heading else (),
        fields=fields,
        style=SourceStyle.JSON,
    )


def _fields(text: str, label: str, value: Span, removal: Span, inner: _Container | None, metadata_labels: frozenset[str]) -> list[Field]:
    """The fields one key of a source gives: itself, or, when its value is an object (``inner``) under a key that
    names metadata, the keys of that object whose values are no objects nor lists: a source's metadata
    (`"metadata": {"source": "a.pdf", "score": 0.8}`) is read by its keys; a match's `"stats": {"score": 3}`
    is the document's own and stays one field. An object of one key goes whole with it."""
    read = inner is not None and label in metadata_labels
    scalars = [(k, v, pair) for k, v, pair in inner.pairs if text[v.start : v.start + 1] not in ("{", "[")] if read else []
    if not scalars:
        return [Field(label=label, value=text[value.start : value.end], span=removal, value_span=value, form=FieldForm.JSON)]
    inner_removals = _removals([pair for _, _, pair in inner.pairs], [k for k, _, _ in inner.pairs]) if len(inner.pairs) > 1 else [removal]
    by_pair = {pair.start: cut for (_, _, pair), cut in zip(inner.pairs, inner_removals)}
    return [
        Field(label=_key(text, k), value=text[v.start : v.end], span=by_pair[pair.start], value_span=v, form=FieldForm.JSON)
        for k, v, pair in scalars
    ]


def _key(text: str, key: Span) -> str:
    """A key's name, normalised: a string's text without its quotes, or a keyword as written."""
    written = text[key.start : key.end]
    return normalise_label(written[1:-1] if written[:1] in _QUOTES else written)


def _names_a_speaker(text: str, labelled: list[tuple[str, Span, Span]], content: Span, roles: frozenset[str]) -> bool:
    """Whether a field other than the ``content`` pair names who speaks: its key is "role", or its value a chat role."""
    return any(label == "role" or text[value.start : value.end].strip().lower() in roles for label, value, pair in labelled if pair is not content)


def _removals(pairs: list[Span], keys: list[Span]) -> list[Span]:
    """What removing each pair takes with its comma: up to the next key, so the comma after it
    and the indentation before the next key go; the last pair, from the end of the one before
    it, so the comma before it goes. Either way the object left has no stray comma."""
    return [
        Span(pair.start, keys[i + 1].start) if i + 1 < len(pairs) else Span(pairs[i - 1].end, pair.end)
        for i, pair in enumerate(pairs)
    ]
