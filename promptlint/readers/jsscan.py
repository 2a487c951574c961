"""The tokens of JavaScript and TypeScript source, read by tree-sitter's grammar and never run.

What the reader of prompts asks of a file is its tokens in order: names, punctuation,
numbers, and the literals whose insides are not code (strings, template literals,
regular expressions), comments left out. They are the leaves of tree-sitter's tree of the
file (the TSX grammar for JavaScript and JSX, which it holds whole, the TypeScript one for
TypeScript, where `<T>x` is a cast), a literal taken whole. A template literal's `${...}`
fields are code in their turn: their tokens follow the template's own token, between a
`${` and a `}` token, so that brackets still match. JSX text is one token of its own.

A string's value is decoded from its escapes, with the file offset of each of its
characters (where its escape starts) and of its end, so that a finding lands where its
text is written. A template keeps its fields as written, and the escapes `\\$`, `\\{` and
`\\\\` too: its text then splits into the same fields again after a fix.

The grammar reads on past an error; a file is refused (JsSyntaxError) only for what leaves
its text unknown: a string, template literal or comment that never ends.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Token:
    kind: str  # "name", "number", "string", "template", "regex", "punct", or "text" (JSX text, a template literal type)
    start: int  # file offsets
    end: int
    text: str  # as written
    # A string or template: its value, and the file offset of each character and of its end.
    value: str | None = None
    offsets: tuple[int, ...] | None = None


class JsSyntaxError(Exception):
    """A literal or comment that never ends: the file cannot be read."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message, self.offset = message, offset


# Code with no literal in it: names, numbers, punctuation (longest first: `?.` is optional
# chaining, `??` and `??=` nullish, `=>` an arrow), any other character alone.
_CODE = re.compile(
    r"(?P<name>[A-Za-z_$\u00c0-\uffff][\w$\u00c0-\uffff]*)"
    r"|(?P<number>(?:0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)n?)"
    r"|(?P<punct>>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|=>|==|!=|<=|>=|&&|\|\||\?\?|\?\.(?!\d)|\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<|>>|\*\*|[^\w\s])"
)
# Templates nested deeper than this are not read (each level is a call deeper in the reader).
MAX_NESTING = 100
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ESCAPE = re.compile(r"\\(?:\n|x[\da-fA-F]{2}|u\{[\da-fA-F]{1,6}\}|u[\da-fA-F]{4}|.)", re.DOTALL)
_UNTERMINATED = {"'": "unterminated string literal", '"': "unterminated string literal", "`": "unterminated template literal"}


@lru_cache(maxsize=2)
def _parser(jsx: bool):
    """tree-sitter's parser of TSX (``jsx``) or TypeScript, loaded on the first JavaScript file read."""
    import tree_sitter
    import tree_sitter_typescript as grammar

    return tree_sitter.Parser(tree_sitter.Language(grammar.language_tsx() if jsx else grammar.language_typescript()))


def reads_jsx(suffix: str) -> bool:
    """Whether a file of ``suffix`` may hold JSX: any JavaScript, and TypeScript's .tsx."""
    return suffix not in (".ts", ".mts", ".cts")


class _Source:
    """A text as tree-sitter reads it: its tree, and a node's offsets in characters."""

    def __init__(self, raw: str, jsx: bool):
        from .pyversions import char_offsets

        data = raw.encode("utf-8", "surrogatepass")
        self.raw, self.jsx = raw, jsx
        self.root = _parser(jsx).parse(data).root_node
        self.char = char_offsets(raw, data)

    def span(self, node) -> tuple[int, int]:
        return self.char(node.start_byte), self.char(node.end_byte)


def tokens(raw: str, jsx: bool = False) -> list[Token]:
    """The tokens of a whole file (``jsx``: read with the TSX grammar); JsSyntaxError for a string,
    template or comment that never ends. A quote left open in a file that may hold JSX is JSX text
    (`<p>Don't</p>`), not an error.

    The grammar says where the literals, comments and JSX text are (what a scanner cannot know
    without parsing: a `/` that starts a regular expression, a quote in JSX text); the code
    between them is split into names, numbers and punctuation by pattern, which is all the
    reader asks of it and much faster than visiting each node of the tree.
    """
    source = _Source(raw, jsx)
    if source.root.has_error:
        _refuse(source)
    atoms = sorted((node for nodes in _atoms(jsx).captures(source.root).values() for node in nodes), key=lambda node: node.start_byte)
    found: list[Token] = []
    _Reader(source, atoms, found).read(0, len(raw), 0)
    return found


@lru_cache(maxsize=2)
def _atoms(jsx: bool):
    """What the grammar reads whole: literals, comments, JSX text."""
    import tree_sitter

    names = "(string) (template_string) (template_literal_type) (regex) (comment) (hash_bang_line)" + (" (jsx_text) (html_comment)" if jsx else "")
    return tree_sitter.QueryCursor(tree_sitter.Query(_parser(jsx).language, "[" + names + "] @atom"))


class _Reader:
    """The tokens of a range of the file: the code between the grammar's atoms split by pattern."""

    def __init__(self, source: _Source, atoms: list, out: list[Token]):
        self.source, self.atoms, self.out, self.next = source, atoms, out, 0

    def read(self, a: int, b: int, nesting: int) -> None:
        """Tokens of ``raw[a:b]`` into the output, the atoms within it taken whole."""
        source, atoms = self.source, self.atoms
        at = a
        while self.next < len(atoms):
            node = atoms[self.next]
            start, end = source.span(node)
            if start >= b:
                break
            self.next += 1
            if start < at:
                continue  # inside an atom already taken whole (a string in a regex's class)
            self._code(at, start)
            at = end
            if node.type == "string":
                self.out.append(_string(source, node))
            elif node.type == "template_string":
                self._template(node, nesting)
            elif node.type == "regex":
                self.out.append(Token("regex", start, end, source.raw[start:end]))
            elif node.type in ("jsx_text", "template_literal_type"):  # text no model reads
                self.out.append(Token("text", start, end, source.raw[start:end]))
        self._code(at, b)

    def _template(self, node, nesting: int) -> None:
        """A template's token, then its fields' tokens, each between a `${` and a `}`."""
        if nesting >= MAX_NESTING:
            raise JsSyntaxError(f"template literals nested more than {MAX_NESTING} deep", self.source.span(node)[0])
        self.out.append(_template(self.source, node))
        for child in node.children:
            if child.type == "template_substitution":
                start, end = self.source.span(child)
                self.out.append(Token("punct", start, start + 2, "${"))
                self.read(start + 2, end - 1, nesting + 1)
                self.out.append(Token("punct", end - 1, end, "}"))

    def _code(self, a: int, b: int) -> None:
        raw, out = self.source.raw, self.out
        for match in _CODE.finditer(raw, a, b):
            kind = match.lastgroup
            out.append(Token(kind, match.start(), match.end(), match.group()))


def _refuse(source: _Source) -> None:
    """Raises for the first literal or comment whose opening the grammar left unclosed (a leaf of an error)."""
    import tree_sitter

    errors = tree_sitter.QueryCursor(tree_sitter.Query(_parser(source.jsx).language, "(ERROR) @error")).captures(source.root).get("error", [])
    leaves = sorted((child for error in errors for child in error.children if not child.child_count), key=lambda node: node.start_byte)
    for node in leaves:
        start = source.span(node)[0]
        if node.type in _UNTERMINATED and not (source.jsx and node.type != "`"):
            raise JsSyntaxError(_UNTERMINATED[node.type], start)
        if node.type == "/" and source.raw.startswith("/*", start):
            raise JsSyntaxError("unterminated comment", start)


def _string(source: _Source, node) -> Token:
    start, end = source.span(node)
    raw = source.raw
    value: list[str] = []
    offsets: list[int] = []
    j = start + 1
    while j < end - 1:
        if raw[j] == "\\" and (escape := _ESCAPE.match(raw, j, end - 1)) is not None:
            decoded = _decode(escape.group())
            value.append(decoded)
            offsets += [j] * len(decoded)
            j = escape.end()
        else:
            value.append(raw[j])
            offsets.append(j)
            j += 1
    offsets.append(end - 1)
    return Token("string", start, end, raw[start:end], "".join(value), tuple(offsets))


def _template(source: _Source, node) -> Token:
    """A template literal's token: its text with its fields as written."""
    start, end = source.span(node)
    raw = source.raw
    fields = {a: b for a, b in (source.span(child) for child in node.children if child.type == "template_substitution")}
    value: list[str] = []
    offsets: list[int] = []
    j = start + 1
    while j < end - 1:
        if j in fields:
            value.append(raw[j : fields[j]])  # a field as written
            offsets += range(j, fields[j])
            j = fields[j]
        elif raw[j] == "\\" and (escape := _ESCAPE.match(raw, j, end - 1)) is not None:
            written = escape.group()
            # `\$`, `\{` and `\\` stay as written, so that the text never shows a field that is not one.
            decoded = written if written in ("\\$", "\\{", "\\\\") else _decode(written)
            value.append(decoded)
            offsets += range(j, j + 2) if decoded == written else [j] * len(decoded)
            j = escape.end()
        else:
            value.append(raw[j])
            offsets.append(j)
            j += 1
    offsets.append(end - 1)
    return Token("template", start, end, raw[start:end], "".join(value), tuple(offsets))


def _decode(escape: str) -> str:
    """What one escape stands for: `\\n` a newline, `\\u00e9` é; a backslash and newline nothing."""
    body = escape[1:]
    if body == "\n":
        return ""
    if body in _SIMPLE:
        return _SIMPLE[body]
    if body.startswith("u{"):
        code = int(body[2:-1], 16)
        return chr(code) if code <= 0x10FFFF else body
    if body[0] in "xu" and len(body) > 1:
        return chr(int(body[1:], 16))
    return body


def fields(text: str) -> list[tuple[int, int, str]] | None:
    """Each `${...}` field of a template's text: (start, end, expression); None when a field does not close.

    The text is read as the template literal it is the inside of. A backquote of its own (written
    `\\`` in the file, decoded in the text) would end that literal early: each one the grammar
    stops at is escaped in turn, and the offsets counted back.
    """
    if "${" not in text:
        return []
    inserted: list[int] = []  # where in ``text`` a backslash was put before a backquote
    written = text
    for _ in range(text.count("`") + 1):
        source = _Source("`" + written + "`", jsx=False)
        literal = _whole_template(source)
        if literal is None:
            return None
        start, end = source.span(literal)
        if end == len(source.raw):
            break
        at = end - 2  # the backquote that ended it, in ``written``
        inserted.append(at - len(inserted))
        written = written[:at] + "\\" + written[at:]
    else:
        return None

    def back(offset: int) -> int:
        at = offset - 1
        return at - bisect.bisect_right([k + n for n, k in enumerate(inserted)], at)

    found = []
    for child in literal.children:
        if child.type == "template_substitution":
            a, b = source.span(child)
            found.append((back(a), back(b), text[back(a) + 2 : back(b) - 1]))
    return found


def _whole_template(source: _Source):
    """The template literal that starts the text, when it is read with no error; else None."""
    statement = source.root.children[0] if source.root.child_count else None
    literal = statement.children[0] if statement is not None and statement.child_count else None
    if literal is None or literal.type != "template_string" or literal.has_error:
        return None
    if any(child.is_error or child.is_missing for child in source.root.children) and source.span(literal)[1] == len(source.raw):
        return None
    return literal
