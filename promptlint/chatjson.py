"""Chat prompts stored as JSON or JSONL, with the raw position of every text.

The json module decodes a file but forgets where each value was written. The
linter needs exactly that: to report findings as file lines and columns, and to
fix a message by rewriting its string literal in place while the rest of the
file (indentation, key order, escapes elsewhere) stays as it was. So this module
parses JSON itself and keeps the span of every string literal.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from json.decoder import scanstring

# Far beyond any real chat file; the limit keeps pathological input a clean error
# for every later consumer, including the json module, which recurses.
MAX_DEPTH = 500

SHAPE_ERROR = 'expected an object with "messages", a list of messages, or {"prompt": ...}'

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
# NaN and the infinities are not JSON, but Python's json module writes and reads
# them, so files made with it may hold them in keys this module ignores.
_CONSTANTS = {"true": "boolean", "false": "boolean", "null": "null", "NaN": "number", "Infinity": "number", "-Infinity": "number"}
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)")
# One decoded character's escape. As in scanstring, an escaped high surrogate followed
# by an escaped low one is a single character; a lone surrogate is a character of its own.
_ESCAPED_CHARACTER = re.compile(r"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)")


class JsonSyntaxError(Exception):
    """Invalid JSON, or valid JSON that does not hold chat messages."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(f"line {line}, column {column}: {message}")
        self.message = message
        self.line = line
        self.column = column


class NotChat(JsonSyntaxError):
    """Valid JSON that does not hold chat messages."""


@dataclass(frozen=True)
class ChatText:
    record: int  # 0-based record: 0 for a .json file, the non-blank line's index for JSONL
    message: int  # 0-based index of the message in its record
    part: int | None  # index in a list-of-parts content, None for a plain string content
    role: str
    text: str  # the decoded string
    literal: tuple[int, int]  # half-open span in the raw file of the string literal, quotes included
    line: int  # 1-based file line of the opening quote
    column: int  # 1-based column, in characters, of the opening quote
    # Filled by raw_offset on first use, so that each later call is a bisection: for each
    # character written as an escape, its offset in text and how many more raw characters
    # than decoded ones the escapes up to and including it take.
    escapes: list[tuple[int, int]] = field(default_factory=list, init=False, repr=False, compare=False)


class _Positions:
    """Turns raw offsets into lines and columns without rescanning the file each time."""

    def __init__(self, raw: str):
        self.starts = [0] + [match.end() for match in re.finditer("\n", raw)]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def error(self, message: str, offset: int) -> JsonSyntaxError:
        return JsonSyntaxError(message, *self.position(offset))

    def not_chat(self, message: str, offset: int) -> NotChat:
        return NotChat(message, *self.position(offset))


class _Node:
    """A parsed JSON value and the half-open raw span it was written in."""

    __slots__ = ("kind", "value", "start", "end")

    def __init__(self, kind: str, value: object, start: int, end: int = -1):
        self.kind = kind  # object, array, string, number, boolean or null
        self.value = value  # dict of key to node, list of nodes, the string, or None for other scalars
        self.start = start
        self.end = end


class _Open:
    """A container still being read, and the key its next value belongs to."""

    __slots__ = ("node", "key")

    def __init__(self, node: _Node, key: str | None):
        self.node = node
        self.key = key


class _Parser:
    """Reads one JSON value between two raw offsets.

    Offsets stay absolute in the whole file, so that JSONL lines report file
    positions. Containers are kept on an explicit stack rather than the Python
    call stack, so nesting depth is bounded by MAX_DEPTH alone.
    """

    def __init__(self, raw: str, positions: _Positions):
        self.raw = raw
        self.positions = positions
        self.end = len(raw)

    def parse(self, start: int, end: int) -> _Node:
        self.end = end
        pos = self._skip(start)
        stack: list[_Open] = []
        while True:
            value, pos = self._start_value(pos, stack)
            while value is not None:
                if not stack:
                    pos = self._skip(pos)
                    if pos < end:
                        raise self.positions.error("Extra data after the JSON value", pos)
                    return value
                value, pos = self._after_value(value, pos, stack)

    def _skip(self, pos: int) -> int:
        return _WHITESPACE.match(self.raw, pos, self.end).end()

    def _char(self, pos: int) -> str:
        # Reading past self.end would see the next JSONL line.
        return self.raw[pos] if pos < self.end else ""

    def _start_value(self, pos: int, stack: list[_Open]) -> tuple[_Node | None, int]:
        """Reads a scalar or an empty container; else opens a container and returns None."""
        char = self._char(pos)
        if char not in ("{", "["):
            return self._scalar(pos)
        if len(stack) == MAX_DEPTH:
            raise self.positions.error(f"Nested too deeply (more than {MAX_DEPTH} levels)", pos)
        node = _Node("object", {}, pos) if char == "{" else _Node("array", [], pos)
        pos = self._skip(pos + 1)
        if self._char(pos) == ("}" if char == "{" else "]"):
            node.end = pos + 1
            return node, pos + 1
        if char == "{":
            key, pos = self._key(pos)
            stack.append(_Open(node, key))
        else:
            stack.append(_Open(node, None))
        return None, pos

    def _after_value(self, value: _Node, pos: int, stack: list[_Open]) -> tuple[_Node | None, int]:
        """Stores a finished value in its container; returns the container if that closes it."""
        top = stack[-1]
        container = top.node
        if container.kind == "object":
            container.value[top.key] = value  # the last of duplicate keys wins, as with json.loads
        else:
            container.value.append(value)
        pos = self._skip(pos)
        char = self._char(pos)
        closer = "}" if container.kind == "object" else "]"
        if char == ",":
            pos = self._skip(pos + 1)
            if container.kind == "object":
                top.key, pos = self._key(pos)
            return None, pos
        if char == closer:
            stack.pop()
            container.end = pos + 1
            return container, pos + 1
        raise self.positions.error(f"Expecting ',' or '{closer}'", pos)

    def _key(self, pos: int) -> tuple[str, int]:
        """Reads a key and its colon; returns the key and where its value starts."""
        if self._char(pos) != '"':
            raise self.positions.error("Expecting property name enclosed in double quotes", pos)
        key, pos = self._scalar(pos)
        pos = self._skip(pos)
        if self._char(pos) != ":":
            raise self.positions.error("Expecting ':' delimiter", pos)
        return key.value, self._skip(pos + 1)

    def _scalar(self, pos: int) -> tuple[_Node, int]:
        raw, end = self.raw, self.end
        if self._char(pos) == '"':
            # A string cannot run past self.end: scanstring rejects the raw
            # newline that ends a JSONL line.
            try:
                text, after = scanstring(raw, pos + 1)
            except json.JSONDecodeError as error:
                message = error.msg.removesuffix(" starting at").removesuffix(" at")
                raise self.positions.error(message, error.pos) from None
            return _Node("string", text, pos, after), after
        for constant, kind in _CONSTANTS.items():
            if raw.startswith(constant, pos, end):
                return _Node(kind, None, pos, pos + len(constant)), pos + len(constant)
        match = _NUMBER.match(raw, pos, end)
        if match:
            return _Node("number", None, pos, match.end()), match.end()
        raise self.positions.error("Expecting value", pos)


def _chat_texts(record: _Node, index: int, positions: _Positions) -> list[ChatText]:
    """The texts of one record, checking that it has one of the accepted shapes."""

    def chat_text(message: int, part: int | None, role: str, node: _Node) -> ChatText:
        line, column = positions.position(node.start)
        return ChatText(index, message, part, role, node.value, (node.start, node.end), line, column)

    fields = record.value if record.kind == "object" else {}
    if "messages" in fields:
        messages = fields["messages"]
        if messages.kind != "array":
            raise positions.not_chat('"messages" must be a list of messages', messages.start)
    elif "prompt" in fields:
        prompt = fields["prompt"]
        if prompt.kind != "string":
            raise positions.not_chat('"prompt" must be a string', prompt.start)
        return [chat_text(0, None, "user", prompt)]
    elif record.kind == "array":
        messages = record
    else:
        raise positions.not_chat(SHAPE_ERROR, record.start)

    texts = []
    for number, message in enumerate(messages.value):
        if message.kind != "object":
            raise positions.not_chat('expected a message object with "role" and "content"', message.start)
        role = message.value.get("role")
        if role is None:
            raise positions.not_chat('message has no "role"', message.start)
        if role.kind != "string":
            raise positions.not_chat('"role" must be a string', role.start)
        content = message.value.get("content")
        # Assistant turns that only call tools have no content, or a null one.
        if content is None or content.kind == "null":
            continue
        if content.kind == "string":
            texts.append(chat_text(number, None, role.value, content))
        elif content.kind == "array":
            for part_number, part in enumerate(content.value):
                if part.kind != "object":
                    raise positions.not_chat('expected a content part object such as {"type": "text", "text": ...}', part.start)
                part_type = part.value.get("type")
                if part_type is None or part_type.kind != "string" or part_type.value != "text":
                    continue
                body = part.value.get("text")
                if body is None or body.kind != "string":
                    raise positions.not_chat('a text part needs a string "text"', (body or part).start)
                texts.append(chat_text(number, part_number, role.value, body))
        else:
            raise positions.not_chat('"content" must be a string, a list of parts, or null', content.start)
    return texts


def parse_chat_json(raw: str) -> list[ChatText]:
    """The texts of a .json file holding one chat prompt."""
    positions = _Positions(raw)
    record = _Parser(raw, positions).parse(0, len(raw))
    return _chat_texts(record, 0, positions)


def parse_chat_jsonl(raw: str) -> list[list[ChatText] | JsonSyntaxError]:
    """The texts of each non-blank line, or its error, so one bad line spoils no other."""
    positions = _Positions(raw)
    parser = _Parser(raw, positions)
    results: list[list[ChatText] | JsonSyntaxError] = []
    starts = positions.starts
    for number, start in enumerate(starts):
        end = starts[number + 1] - 1 if number + 1 < len(starts) else len(raw)
        if _WHITESPACE.match(raw, start, end).end() == end:
            continue
        try:
            results.append(_chat_texts(parser.parse(start, end), len(results), positions))
        except JsonSyntaxError as error:
            results.append(error)
    return results


def raw_offset(chat: ChatText, raw: str, offset: int) -> int:
    """The raw offset of the encoding of chat.text[offset]; len(text) gives the closing quote."""
    if not 0 <= offset <= len(chat.text):
        raise ValueError(f"offset {offset} is outside a text of {len(chat.text)} characters")
    start, end = chat.literal
    if not chat.escapes and end - start - 2 != len(chat.text):
        chat.escapes.extend(_escapes(raw, start + 1, end - 1))
    before = bisect.bisect_left(chat.escapes, (offset,))
    return start + 1 + offset + (chat.escapes[before - 1][1] if before else 0)


def _escapes(raw: str, start: int, end: int) -> list[tuple[int, int]]:
    table, extra = [], 0
    for match in _ESCAPED_CHARACTER.finditer(raw, start, end):
        decoded = match.start() - start - extra
        extra += len(match[0]) - 1
        table.append((decoded, extra))
    return table


def _encode(text: str, literal: str) -> str:
    """The JSON literal for text, in the style of the literal it replaces."""
    escapes_non_ascii = any(match.group(1) and int(match.group(1), 16) > 0x7F for match in _ESCAPE.finditer(literal))
    # A lone surrogate cannot be written as UTF-8, so it has to stay escaped.
    lone_surrogate = any("\ud800" <= char <= "\udfff" for char in text)
    return json.dumps(text, ensure_ascii=(escapes_non_ascii and literal.isascii()) or lone_surrogate)


def replace_texts(raw: str, replacements: dict[tuple[int, int], str]) -> str:
    """raw with each literal span rewritten to encode its new text, and nothing else changed."""
    # Every span refers to the original raw, so the pieces are cut from it in
    # order and joined once, which keeps the work linear in the file's size.
    pieces = []
    done = 0
    for (start, end), text in sorted(replacements.items()):
        if start < done:
            raise ValueError(f"span {(start, end)} overlaps another replacement")
        if not (0 <= start and end - start >= 2 and end <= len(raw) and raw[start] == '"' and raw[end - 1] == '"'):
            raise ValueError(f"span {(start, end)} is not a string literal")
        pieces.append(raw[done:start])
        pieces.append(_encode(text, raw[start:end]))
        done = end
    pieces.append(raw[done:])
    return "".join(pieces)
