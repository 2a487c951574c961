"""The tags of a Jinja template: its lexer's tokens placed at exact offsets, nested into blocks.

Also what a tag's statement means (Jinja's parser on the tag alone), whether a
template parses, and the `{% message %}` blocks of a Haystack chat template.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache

import jinja2
from jinja2 import nodes

from ...model.prompt import Message, Span
from ..expressions import environment

PAIRS = {
    "for": "endfor",
    "if": "endif",
    "macro": "endmacro",
    "call": "endcall",
    "filter": "endfilter",
    "block": "endblock",
    "with": "endwith",
    "autoescape": "endautoescape",
    "trans": "endtrans",
    "set": "endset",
    "message": "endmessage",
}
BRANCHES = {"elif", "else", "pluralize"}


class TemplateError(Exception):
    def __init__(self, message: str, line: int, column: int = 1):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


@dataclass
class Tag:
    kind: str  # "data", "variable", "block", "comment"
    span: Span
    keyword: str = ""  # the first name in a block tag: "for", "endif", ...
    inner: str = ""  # the text between the delimiters


@dataclass
class Block:
    """A block statement and its branches: `{% if %}` ... `{% else %}` ... `{% endif %}`."""

    keyword: str
    tags: list[Tag]  # the opening tag, each branch tag, the closing tag
    node: nodes.Node | None = None
    children: list = field(default_factory=list)  # Tag | Block, in source order

    @property
    def span(self) -> Span:
        return Span(self.tags[0].span.start, self.tags[-1].span.end)

    def branch_spans(self) -> list[Span]:
        return [Span(a.span.end, b.span.start) for a, b in zip(self.tags, self.tags[1:])]


def tags(source: str) -> list[Tag]:
    """The template as tags with exact offsets; their slices and the stripped whitespace join back into ``source``."""
    env = environment()
    found: list[Tag] = []
    pos = 0
    current: Tag | None = None
    try:
        stream = list(env.lexer.tokeniter(source, None))
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(exc.message or str(exc), exc.lineno or 1) from None
    for _, token, value in stream:
        at = source.find(value, pos) if value else pos
        if at < 0 or source[pos:at].strip():
            raise TemplateError(f"cannot place token {value!r}", source.count("\n", 0, pos) + 1)
        end = at + len(value)
        if token == "data":
            found.append(Tag("data", Span(at, end)))
        elif token.endswith("_begin"):
            current = Tag(token[: -len("_begin")], Span(at, end))
            found.append(current)
        elif current is not None:
            if token.endswith("_end"):
                current.inner = source[current.span.end : at]
                # `-%}\n` swallows the newline in the token value: it belongs to the tag.
                current.span = Span(current.span.start, end)
                current = None
            elif token == "name" and current.kind == "block" and not current.keyword:
                current.keyword = value
        pos = end
    if source[pos:].strip():
        raise TemplateError("unexpected text at the end", source.count("\n", 0, pos) + 1)
    return found


def tree(found: Iterable[Tag]) -> list:
    """Nest block tags into Blocks; data, variable and comment tags stay leaves."""
    root: list = []
    stack: list[tuple[Block, list]] = []
    for tag in found:
        children = stack[-1][1] if stack else root
        if tag.kind != "block":
            children.append(tag)
            continue
        word = tag.keyword
        if word in PAIRS and not (word == "set" and _inline_set(tag)):
            block = Block(word, [tag])
            children.append(block)
            stack.append((block, block.children))
        elif word in BRANCHES and stack:
            stack[-1][0].tags.append(tag)
            children.append(tag)
        elif word.startswith("end") and stack and PAIRS.get(stack[-1][0].keyword) == word:
            stack[-1][0].tags.append(tag)
            stack.pop()
        else:
            children.append(tag)
    return root


def _inline_set(tag: Tag) -> bool:
    """`{% set x = 1 %}` stands alone; `{% set x %}...{% endset %}` is a block."""
    return "=" in tag.inner


@lru_cache(maxsize=8)
def check_syntax(source: str) -> tuple[Tag, ...]:
    """The template's tags; raises TemplateError, with the line, when it does not parse.

    Remembered for the last few sources: loading a file, segmenting it and checking
    each fix ask about the same text. The tags are shared, so nothing may change them.
    """
    try:
        environment().parse(source)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(exc.message or str(exc), exc.lineno or 1) from None
    except RecursionError:
        # Jinja's parser recurses once per nesting level; past Python's limit say so.
        raise TemplateError("nested too deeply to read", 1) from None
    return tuple(tags(source))


def parses(source: str) -> bool:
    try:
        check_syntax(source)
    except TemplateError:
        return False
    return True


_ROLE = re.compile(r"""\brole\s*=\s*["']([\w-]+)["']""")


def message_blocks(flat: tuple[Tag, ...]) -> list[Message]:
    """The `{% message role="..." %}` blocks of a Haystack chat template, each a message."""
    messages, opened = [], None
    for tag in flat:
        if tag.kind == "block" and tag.keyword == "message":
            opened = tag
        elif tag.kind == "block" and tag.keyword == "endmessage" and opened is not None:
            role = _ROLE.search(opened.inner)
            name = role.group(1) if role else "user"
            messages.append(Message(name, Span(opened.span.start, tag.span.end), f"{name} message at offset {opened.span.start}"))
            opened = None
    return messages


# ---------------------------------------------------------------- what expressions read


@cache
def tag_statement(inner: str) -> nodes.Node | None:
    """The statement of a tag that stands alone: `{% include 'x' %}`, `{% from 'x' import m %}`."""
    try:
        body = environment().parse("{%" + inner + "%}").body
    except jinja2.TemplateSyntaxError:
        return None
    return body[0] if body else None


@cache
def statement(inner: str, closing: str) -> nodes.Node | None:
    try:
        body = environment().parse("{%" + inner + "%}{% " + closing + " %}").body
    except jinja2.TemplateSyntaxError:
        return None
    return body[0] if body else None
