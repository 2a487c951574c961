"""Python of every version, read by the running one: syntax newer than it, rewritten to its own.

promptlint reads Python with ``ast``, which knows only the syntax of the Python it runs on. A
file that it cannot parse is first read with tree-sitter's Python grammar, which knows the
newer syntax; each newer construct found is rewritten to what the running Python reads, in
the same number of characters on the same lines (PEP 695's ``type X[T] = ...`` becomes
``X         = ...``, a type-parameter list becomes blanks, a PEP 701 f-string's nested
string takes the other quote, the escapes and comments inside its fields become blanks).
Every node then stands where it stands in the file, and the strings read are the file's
own: the readers keep reading the file's text, only the tree comes from the rewritten one.

Without tree-sitter (it is installed only where Python is older than 3.12), or when its
grammar fails to load, nothing is rewritten: the file reads as it did before.
"""

from __future__ import annotations

import ast
from functools import lru_cache


class NewerSyntax(SyntaxError):
    """The file is valid Python of a newer version, in a form that could not be rewritten: not
    the file's error, it was just not read."""


def parse_module(raw: str) -> ast.Module:
    """The module's tree; SyntaxError for a file no Python reads (at the line of its error),
    NewerSyntax for one only a newer Python reads."""
    try:
        return ast.parse(raw)
    except SyntaxError as error:
        first = error
    rewritten = _older(raw)
    if rewritten is None:
        raise first
    text, valid, values = rewritten
    if text is None and valid:
        raise NewerSyntax(first.msg, (first.filename, first.lineno, first.offset, first.text))
    try:
        return _restored(ast.parse(text if text is not None else raw), values)
    except SyntaxError as error:
        if valid:
            raise NewerSyntax(first.msg, (first.filename, first.lineno, first.offset, first.text)) from None
        # A file no grammar reads: the error of its rewritten text is at the line of its real error,
        # not at the newer construct before it that the running Python stopped at first.
        raise error from None


def has_grammar() -> bool:
    """Whether newer syntax can be told from an error: the grammar is installed and loads."""
    return _parser() is not None


def _restored(module: ast.Module, values: dict[tuple[int, int], str]) -> ast.Module:
    """The tree with the value of each string whose escapes were rewritten read from the file's
    own literal (``values``: its line and byte column -> its text): a field's slot shows it as written."""
    if values:
        for node in ast.walk(module):
            if isinstance(node, ast.Constant) and (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) in values:
                try:
                    node.value = ast.literal_eval(values[node.lineno, node.col_offset])
                except (ValueError, SyntaxError):  # a literal of pieces: its stand-in stays
                    pass
    return module


@lru_cache(maxsize=1)
def _parser():
    """tree-sitter's Python parser; None when it is not installed or its grammar does not load."""
    try:
        import tree_sitter
        import tree_sitter_python

        return tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))
    except Exception:  # an absent or broken grammar reads as before
        return None


def _older(raw: str) -> tuple[str | None, bool, dict[tuple[int, int], str]] | None:
    """The text with its newer constructs rewritten (None when one cannot be rewritten in place),
    whether the grammar read it without an error, and the strings whose escapes were rewritten
    (see _restored); None when there is nothing to rewrite, or no grammar."""
    parser = _parser()
    if parser is None:
        return None
    data = raw.encode("utf-8")
    try:
        tree = parser.parse(data)
    except Exception:  # a grammar that fails on a text reads as before
        return None
    rewrites = _Rewrites(data)
    rewrites.visit(tree.root_node, ())
    edits = rewrites.edits
    valid = not tree.root_node.has_error
    if not edits:
        return None
    if None in (edit[2] for edit in edits):
        return None, valid, {}
    chars = char_offsets(raw, data)
    out, at = [], 0
    for start, end, new in sorted(edits):
        start, end = chars(start), chars(end)
        if start < at:
            return None, valid, {}  # overlapping rewrites: a construct nested in a way not foreseen
        out += [raw[at:start], new]
        at = end
    return "".join(out) + raw[at:], valid, rewrites.values


def char_offsets(raw: str, data: bytes):
    """A byte offset of the UTF-8 text -> its character offset (tree-sitter counts bytes)."""
    if len(raw) == len(data):
        return lambda offset: offset
    index = [i for i, char in enumerate(raw) for _ in range(len(char.encode("utf-8", "surrogatepass")))] + [len(raw)]
    return lambda offset: index[offset]


def _blank(text: bytes) -> str | None:
    """Spaces in place of a region, its line breaks kept; None when the region holds a character
    of more than one byte: the ast columns after it on its line, counted in bytes, would move."""
    if not text.isascii():
        return None
    return "".join("\n" if char == "\n" else " " for char in text.decode("ascii"))


class _Rewrites:
    """The rewrites of a tree: (start byte, end byte, new text); new text None when a newer
    construct cannot be rewritten in the same length."""

    def __init__(self, data: bytes):
        self.data = data
        self.edits: list[tuple[int, int, str | None]] = []
        self.values: dict[tuple[int, int], str] = {}  # see _restored

    def text(self, node) -> bytes:
        return self.data[node.start_byte : node.end_byte]

    def visit(self, node, quotes: tuple[str, ...]) -> None:
        """Rewrite ``node`` and what it holds; ``quotes`` are those of the f-strings whose fields hold it."""
        kind = node.type
        inner = quotes
        if kind == "type_alias_statement":
            self.type_alias(node)
        elif kind == "type_parameter" and node.parent is not None and node.parent.type in ("function_definition", "class_definition"):
            region = self.text(node)
            # A list over several lines would leave blank lines inside the statement's head.
            self.edits.append((node.start_byte, node.end_byte, _blank(region) if b"\n" not in region else None))
            return
        elif kind == "string":
            inner = self.string(node, quotes)
        elif quotes and kind == "comment":
            self.edits.append((node.start_byte, node.end_byte, _blank(self.text(node))))
        elif quotes and kind == "escape_sequence":
            # A backslash in a field (allowed from Python 3.12): a same-length stand-in, whose
            # value no rule reads (fields are read from the file's own text).
            self.edits.append((node.start_byte, node.end_byte, "_" * (node.end_byte - node.start_byte)))
        for child in node.children:
            # Only an f-string's fields are inside its quotes; its own text keeps its escapes.
            self.visit(child, inner if child.type == "interpolation" else quotes)

    def type_alias(self, node) -> None:
        """``type X[T] = V`` -> ``X         = V``: an assignment of the same value."""
        equals = next((child for child in node.children if child.type == "="), None)
        name = node.child_by_field_name("left")
        name = name.children[0] if name is not None and name.children else name
        while name is not None and name.type != "identifier" and name.children:
            name = name.children[0]
        if equals is None or name is None or name.type != "identifier":
            self.edits.append((node.start_byte, node.end_byte, None))
            return
        head = self.text(node)[: equals.start_byte - node.start_byte]
        new = self.text(name).decode("utf-8")
        fits = head.isascii() and b"\n" not in head
        self.edits.append((node.start_byte, equals.start_byte, new.ljust(len(head)) if fits else None))

    def string(self, node, quotes: tuple[str, ...]) -> tuple[str, ...]:
        """A string inside f-string fields takes a quote none around it uses; an f-string passes its quote on."""
        start = next((child for child in node.children if child.type == "string_start"), None)
        if start is None:
            return quotes
        opening = self.text(start).decode("utf-8", "replace")
        prefix = opening.rstrip("'\"")
        quote = opening[len(prefix) :]
        if quotes and _clashes(quote, quotes):
            quote = self.requote(node, start, prefix, quote, quotes)
        if "f" not in prefix.lower():
            if quotes and b"\\" in self.text(node):
                self.values[node.start_point[0] + 1, node.start_point[1]] = self.text(node).decode("utf-8")
            return quotes
        if len(quote) == 1 and any(child.type == "interpolation" and b"\n" in self.text(child) for child in node.children):
            self.edits.append((node.start_byte, node.end_byte, None))  # a field over lines in a one-line string
        return (*quotes, quote)

    def requote(self, node, start, prefix: str, quote: str, quotes: tuple[str, ...]) -> str:
        """Write the string with the other quote character, when that clashes with nothing around
        it and its text does not hold it; else mark it as one that cannot be rewritten."""
        other = quote.translate(str.maketrans("'\"", "\"'"))
        body = self.text(node)[len(self.text(start)) : -len(quote)]
        if _clashes(other, quotes) or other[0].encode() in body:
            self.edits.append((node.start_byte, node.end_byte, None))
            return quote
        opening_at = start.end_byte - len(quote)
        self.edits.append((opening_at, start.end_byte, other))
        self.edits.append((node.end_byte - len(quote), node.end_byte, other))
        return other


def _clashes(quote: str, around: tuple[str, ...]) -> bool:
    """Whether a string quoted by ``quote`` ends an f-string quoted by one of ``around`` before
    Python 3.12: the same quote, or the same character around a one-character quote."""
    return any(quote == outer or (len(outer) == 1 and quote[0] == outer) for outer in around)
