"""The tokens of JavaScript and TypeScript source, scanned by hand and never run.

Only what finding prompt strings needs: names, punctuation, numbers, and the
literals whose insides must not be read as code (strings, template literals,
regular expressions), with comments skipped. A template literal's `${...}`
fields are scanned as code in their turn, nested templates and all, and their
tokens follow the template's own, between a `${` and a `}` token, so that
brackets still match. No node, no parser package: a type annotation or a
generic is only more names and punctuation here, which is all the reader asks.

A string's value is decoded from its escapes, with the file offset of each of
its characters (where its escape starts) and of its end, so that a finding lands
where its text is written. A template keeps its fields as written, and the
escapes `\\$`, `\\{` and `\\\\` too: its text then splits into the same fields again
after a fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Token:
    kind: str  # "name", "number", "string", "template", "regex" or "punct"
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


_NAME = re.compile(r"[A-Za-z_$\u00c0-\uffff][\w$\u00c0-\uffff]*")
_NUMBER = re.compile(r"(?:0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)n?")
# Longest first: `?.` is optional chaining, `??` and `??=` nullish, `=>` an arrow.
_PUNCT = re.compile(r">>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|=>|==|!=|<=|>=|&&|\|\||\?\?|\?\.(?!\d)|\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<|>>|\*\*|[{}()\[\];,<>+\-*/%&|^!~?:=.@#]")
_SPACE = re.compile(r"(?:\s|//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/)*")
# After these a `/` starts a regular expression, not a division.
_BEFORE_REGEX = frozenset({"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "instanceof", "yield", "await"})
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
# Templates nested deeper than this are not read (each level is a call deeper in the scanner).
MAX_NESTING = 100
_ESCAPE = re.compile(r"\\(?:\n|x[\da-fA-F]{2}|u\{[\da-fA-F]{1,6}\}|u[\da-fA-F]{4}|.)", re.DOTALL)


def tokens(raw: str, jsx: bool = False) -> list[Token]:
    """The tokens of a whole file; JsSyntaxError for a string, template or comment that never ends.

    In a .jsx/.tsx file a quote left open at the end of its line is JSX text (`<p>Don't</p>`), not an error.
    """
    found: list[Token] = []
    _scan(raw, 0, found, jsx, in_field=False, nesting=0)
    return found


def _scan(raw: str, i: int, out: list[Token], jsx: bool, in_field: bool, nesting: int) -> int:
    """Tokens from ``i`` into ``out``; in a template's field, up to the `}` that closes it (returned)."""
    depth = 0
    n = len(raw)
    while True:
        space = _SPACE.match(raw, i)
        i = space.end()
        if raw.startswith("/*", i):
            raise JsSyntaxError("unterminated comment", i)
        if i >= n:
            if in_field:  # the template whose field this is says where it starts
                raise JsSyntaxError("unterminated template literal", -1)
            return i
        char = raw[i]
        if char == "}" and depth == 0 and in_field:
            return i  # the field's end
        if char in "'\"":
            out.append(_string(raw, i, jsx))
            i = out[-1].end
        elif char == "`":
            if nesting >= MAX_NESTING:
                raise JsSyntaxError(f"template literals nested more than {MAX_NESTING} deep", i)
            i = _template(raw, i, out, jsx, nesting + 1)
        elif char == "/" and _regex_allowed(out):
            token = _regex(raw, i)
            if token is None:
                out.append(Token("punct", i, i + 1, "/"))
                i += 1
            else:
                out.append(token)
                i = token.end
        elif (match := _NAME.match(raw, i)) is not None:
            out.append(Token("name", i, match.end(), match.group()))
            i = match.end()
        elif (match := _NUMBER.match(raw, i)) is not None and match.end() > i:
            out.append(Token("number", i, match.end(), match.group()))
            i = match.end()
        else:
            match = _PUNCT.match(raw, i)
            text = match.group() if match else char  # anything else (a stray `\`) is one character
            depth += (text == "{") - (text == "}")
            out.append(Token("punct", i, i + len(text), text))
            i += len(text)


def _regex_allowed(before: list[Token]) -> bool:
    """Whether a `/` here starts a regular expression: where a value is expected, not after one."""
    if not before:
        return True
    last = before[-1]
    if last.kind == "name":
        return last.text in _BEFORE_REGEX
    if last.kind == "punct":
        return last.text not in (")", "]")
    return False


def _regex(raw: str, i: int) -> Token | None:
    """A regular expression literal at ``i``; None when it does not end on its line (then it was a division)."""
    j, in_class = i + 1, False
    while j < len(raw) and raw[j] != "\n":
        char = raw[j]
        if char == "\\":
            j += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "/" and not in_class:
            flags = _NAME.match(raw, j + 1)
            end = flags.end() if flags else j + 1
            return Token("regex", i, end, raw[i:end])
        j += 1
    return None


def _string(raw: str, i: int, jsx: bool) -> Token:
    quote, j = raw[i], i + 1
    value: list[str] = []
    offsets: list[int] = []
    while j < len(raw) and raw[j] != quote:
        if raw[j] == "\n":
            break
        if raw[j] == "\\":
            escape = _ESCAPE.match(raw, j)
            if escape is None:  # a backslash at the end of the file
                break
            decoded = _decode(escape.group())
            value.append(decoded)
            offsets += [j] * len(decoded)
            j = escape.end()
        else:
            value.append(raw[j])
            offsets.append(j)
            j += 1
    if j >= len(raw) or raw[j] != quote:
        if jsx:  # JSX text with an apostrophe: a lone character, not a string
            return Token("punct", i, i + 1, quote)
        raise JsSyntaxError("unterminated string literal", i)
    offsets.append(j)
    return Token("string", i, j + 1, raw[i : j + 1], "".join(value), tuple(offsets))


def _template(raw: str, i: int, out: list[Token], jsx: bool, nesting: int) -> int:
    """Scans the template literal at ``i``: its token, then its fields' tokens, into ``out``; where it ends."""
    at = len(out)
    fields: list[Token] = []
    value: list[str] = []
    offsets: list[int] = []
    j = i + 1
    while True:
        if j >= len(raw):
            raise JsSyntaxError("unterminated template literal", i)
        char = raw[j]
        if char == "`":
            break
        if char == "\\":
            escape = _ESCAPE.match(raw, j)
            if escape is None:
                raise JsSyntaxError("unterminated template literal", i)
            written = escape.group()
            # `\$`, `\{` and `\\` stay as written, so that the text never shows a field that is not one.
            decoded = written if written in ("\\$", "\\{", "\\\\") else _decode(written)
            value.append(decoded)
            offsets += range(j, j + 2) if decoded == written else [j] * len(decoded)
            j = escape.end()
        elif raw.startswith("${", j):
            fields.append(Token("punct", j, j + 2, "${"))
            try:
                close = _scan(raw, j + 2, fields, jsx, in_field=True, nesting=nesting)
            except JsSyntaxError as exc:
                raise JsSyntaxError(exc.message, i) if exc.offset < 0 else exc from None
            fields.append(Token("punct", close, close + 1, "}"))
            value.append(raw[j : close + 1])  # a field as written
            offsets += range(j, close + 1)
            j = close + 1
        else:
            value.append(char)
            offsets.append(j)
            j += 1
    offsets.append(j)
    out.insert(at, Token("template", i, j + 1, raw[i : j + 1], "".join(value), tuple(offsets)))
    out.extend(fields)
    return j + 1


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
    """Each `${...}` field of a template's text: (start, end, expression); None when a field does not close."""
    found = []
    i = 0
    while True:
        i = text.find("${", i)
        if i < 0:
            return found
        if i and text[i - 1] == "\\" and not _escaped_backslash(text, i - 1):
            i += 2  # `\${`, written so: not a field
            continue
        try:
            inner: list[Token] = []
            close = _scan(text, i + 2, inner, False, in_field=True, nesting=1)
        except JsSyntaxError:
            return None
        found.append((i, close + 1, text[i + 2 : close]))
        i = close + 1


def _escaped_backslash(text: str, i: int) -> bool:
    """Whether the backslash at ``i`` is itself escaped (an odd run of backslashes before it)."""
    run = len(text[: i + 1]) - len(text[: i + 1].rstrip("\\"))
    return run % 2 == 0
