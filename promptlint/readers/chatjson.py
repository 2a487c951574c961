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
from enum import Enum
from json.decoder import scanstring

from ..model.lines import line_column, line_starts

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


class SourcePart(str, Enum):
    TITLE = "title"
    CONTEXT = "context"  # per-source metadata and notes written beside the text
    CONTENT = "content"
    FIELD = "field"  # one named field of the source (a key of a Cohere document's data)


@dataclass(frozen=True)
class SourceText:
    """Which source of its record a text belongs to, and which part of it the text is."""

    number: int
    part: SourcePart
    label: str = ""  # a field's key
    # For a field whose value is not a string (a number): the value as written. The
    # text is then the key, which a fix may only remove whole.
    value: str | None = None


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
    path: str  # where the text is in its record, as findings name it: "messages[2].content[1]"
    role: str
    text: str  # the decoded string
    literal: tuple[int, int]  # half-open span in the raw file of the string literal, quotes included
    line: int  # 1-based file line of the opening quote
    column: int  # 1-based column, in characters, of the opening quote
    # For a text of a source the request body marks as one (a document block): the
    # source's number in its record, and which part of it the text is.
    source: SourceText | None = None
    # The raw span of the text's key, its value and one comma: what goes when a fix
    # empties a text that may be left out (a document's context).
    pair: tuple[int, int] | None = None
    # Filled by raw_offset on first use, so that each later call is a bisection: for each
    # character written as an escape, its offset in text and how many more raw characters
    # than decoded ones the escapes up to and including it take.
    escapes: list[tuple[int, int]] = field(default_factory=list, init=False, repr=False, compare=False)


class _Positions:
    """Turns raw offsets into lines and columns without rescanning the file each time."""

    def __init__(self, raw: str):
        self.raw = raw
        self.starts = line_starts(raw)

    def position(self, offset: int) -> tuple[int, int]:
        return line_column(self.starts, offset)

    def error(self, message: str, offset: int) -> JsonSyntaxError:
        return JsonSyntaxError(message, *self.position(offset))

    def not_chat(self, message: str, offset: int) -> NotChat:
        return NotChat(message, *self.position(offset))


class _Node:
    """A parsed JSON value and the half-open raw span it was written in."""

    __slots__ = ("kind", "value", "start", "end", "key_starts", "_ordered")

    def __init__(self, kind: str, value: object, start: int, end: int = -1):
        self.kind = kind  # object, array, string, number, boolean or null
        self.value = value  # dict of key to node, list of nodes, the string, or None for other scalars
        self.start = start
        self.end = end
        self.key_starts: dict[str, int] = {}  # of an object: where each key's opening quote is
        self._ordered: list[int] | None = None

    def get(self, key: str, kind: str | None = None) -> _Node | None:
        """The value of ``key`` in an object (of that kind when one is given); None otherwise."""
        value = self.value.get(key) if self.kind == "object" else None
        return value if value is not None and (kind is None or value.kind == kind) else None

    def pair(self, key: str) -> tuple[int, int]:
        """The raw span of ``key`` and its value, up to the next key when one follows (see replace_texts)."""
        if self._ordered is None:
            self._ordered = sorted(self.key_starts.values())
        start = self.key_starts[key]
        after = bisect.bisect_right(self._ordered, start)
        return start, self._ordered[after] if after < len(self._ordered) else self.value[key].end


class _Open:
    """A container still being read, and the key its next value belongs to."""

    __slots__ = ("node", "key", "key_start")

    def __init__(self, node: _Node, key: str | None, key_start: int = -1):
        self.node = node
        self.key = key
        self.key_start = key_start


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
            key, after = self._key(pos)
            stack.append(_Open(node, key, pos))
            pos = after
        else:
            stack.append(_Open(node, None))
        return None, pos

    def _after_value(self, value: _Node, pos: int, stack: list[_Open]) -> tuple[_Node | None, int]:
        """Stores a finished value in its container; returns the container if that closes it."""
        top = stack[-1]
        container = top.node
        if container.kind == "object":
            container.value[top.key] = value  # the last of duplicate keys wins, as with json.loads
            container.key_starts[top.key] = top.key_start
        else:
            container.value.append(value)
        pos = self._skip(pos)
        char = self._char(pos)
        closer = "}" if container.kind == "object" else "]"
        if char == ",":
            pos = self._skip(pos + 1)
            if container.kind == "object":
                top.key_start = pos
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


class RecordTexts(list):
    """The texts of one record, in order (ChatText), and the document blocks it holds whose
    text is not in the request (a base64 PDF, a URL, a file id): each is noted, not read."""

    def __init__(self):
        super().__init__()
        self.unread: list[str] = []  # "messages[0].content[1]: a document given as a URL is not read ..."


# How a document block gives what is not its text, as a note names it.
_UNREAD_SOURCES = {"base64": "base64 data", "url": "a URL", "file": "a file id", "bytes": "bytes", "s3Location": "an S3 location"}


class _Record:
    """Reads the texts of one record, each named by its path in the record.

    Chat messages (OpenAI Chat Completions, Anthropic Messages, Bedrock Converse,
    Cohere Chat v2) hold a string or a list of content blocks; an OpenAI Responses
    request has `instructions` and `input`, a Gemini one `systemInstruction` and
    `contents`. A block the body marks as a source (an Anthropic `document` or
    `search_result`, a Bedrock `document`, a Cohere document) keeps its title,
    context, text and fields as texts of that source.
    """

    def __init__(self, index: int, positions: _Positions):
        self.index = index
        self.positions = positions
        self.texts = RecordTexts()
        self.sources = 0

    def add(self, path: str, role: str, node: _Node, source: SourceText | None = None, pair: tuple[int, int] | None = None):
        line, column = self.positions.position(node.start)
        self.texts.append(ChatText(self.index, path, role, node.value, (node.start, node.end), line, column, source, pair))

    def error(self, message: str, node: _Node) -> NotChat:
        return self.positions.not_chat(message, node.start)

    def string(self, parent: _Node, key: str) -> _Node | None:
        """``parent[key]`` when it is a string; None when it is absent or null."""
        value = parent.get(key)
        if value is None or value.kind == "null":
            return None
        if value.kind != "string":
            raise self.error(f'"{key}" must be a string', value)
        return value

    def system(self, system: _Node, path: str):
        """A system prompt beside the messages: a string, or a list of text blocks."""
        if system.kind == "string":
            self.add(path, "system", system)
        elif system.kind == "array":
            for number, block in enumerate(system.value):
                self.block(block, f"{path}[{number}]", "system")
        else:
            raise self.error(f'"{path}" must be a string or a list of text blocks', system)

    def messages(self, messages: _Node, name: str = "messages"):
        for number, message in enumerate(messages.value):
            if message.kind != "object":
                raise self.error('expected a message object with "role" and "content"', message)
            if message.get("type", "string") and message.get("role") is None:
                self.item(message, f"{name}[{number}]")
                continue
            role = message.get("role") or message.get("speaker")
            typed = _typed_role(message)
            if role is None and typed is None:
                raise self.error('message has no "role"', message)
            if role is not None and role.kind != "string":
                raise self.error('"role" must be a string', role)
            if typed == "metadata":
                continue  # a template's own description, never sent
            content = message.get("content")
            # Sourcegraph's `{"speaker": "human", "text": ...}` writes the content as "text".
            self.content(message.get("text") if content is None else content, f"{name}[{number}]", typed or role.value)

    def item(self, item: _Node, path: str):
        """An item of an OpenAI Responses `input` that is not a message: a tool's output is read."""
        if item.get("type").value == "function_call_output":
            output = item.get("output")
            if output is not None and output.kind == "string":
                self.add(f"{path}.output", "tool", output)
            else:
                self.content(output, f"{path}.output", "tool")

    def content(self, content: _Node | None, path: str, role: str):
        # Assistant turns that only call tools have no content, or a null one.
        if content is None or content.kind == "null":
            return
        if content.kind == "string":
            self.add(path, role, content)
        elif content.kind == "array":
            for number, block in enumerate(content.value):
                self.block(block, f"{path}.content[{number}]", role)
        else:
            raise self.error('"content" must be a string, a list of parts, or null', content)

    def block(self, block: _Node, path: str, role: str):
        if block.kind != "object":
            raise self.error('expected a content part object such as {"type": "text", "text": ...}', block)
        kind = block.get("type", "string")
        # A Bedrock Converse block has no type: its one key says what it is.
        kind = kind.value if kind else next((k for k in ("text", "document", "toolResult") if k in block.value), None)
        if kind in ("text", "input_text", "output_text"):
            body = block.get("text", "string")
            if body is None:
                raise self.error('a text part needs a string "text"', block.get("text") or block)
            self.add(path, role, body)
        elif kind == "document" and "document" in block.value:
            document = block.get("document", "object") or block
            self.source(document, f"{path}.document", role, self.document_text(document, f"{path}.document"), title_key="name")
        elif kind == "document":
            self.source(block, path, role, self.document_text(block, path))
        elif kind == "search_result":
            self.source(block, path, role, self.text_blocks(block.get("content"), f"{path}.content"))
        elif kind == "tool_result":
            # What a tool returned to the model: a string, or blocks of any of these kinds.
            self.content(block.get("content"), path, "tool")
        elif kind == "toolResult":
            result = block.get("toolResult", "object")
            if result is not None:
                self.content(result.get("content"), f"{path}.toolResult", "tool")
        # Other blocks (images, files, tool calls, thinking) hold no prompt text.

    def document_text(self, block: _Node, path: str) -> list[tuple[str, _Node]]:
        """The text of a document block; a base64 PDF, a URL or a file id holds none to read, and is noted."""
        source = block.get("source", "object")
        if source is None:
            return []
        typed = source.get("type", "string")
        if typed is not None:  # Anthropic: {"type": "text", "data": ...} or {"type": "content", "content": [...]}
            kind, text_key = typed.value, "data"
        else:  # Bedrock: {"text": ...}, {"content": [...]}, {"bytes": ...} or {"s3Location": ...}
            kind, text_key = next((k for k in ("text", "content", "bytes", "s3Location") if k in source.value), None), "text"
        if kind == "text":
            text = self.string(source, text_key)
            return [(f"{path}.source.{text_key}", text)] if text else []
        if kind == "content":
            return self.text_blocks(source.get("content"), f"{path}.source.content")
        if kind is not None:
            given = _UNREAD_SOURCES.get(kind, f"a {kind!r} source")
            self.texts.unread.append(f"{path}: a document given as {given} is not read (its text is not in the request)")
        return []

    def text_blocks(self, content: _Node | None, path: str) -> list[tuple[str, _Node]]:
        """The text of a string or of a list of text blocks."""
        if content is None:
            return []
        if content.kind == "string":
            return [(path, content)]
        if content.kind != "array":
            raise self.error('"content" must be a string or a list of text blocks', content)
        texts = []
        for number, item in enumerate(content.value):
            kind = item.get("type", "string")
            body = item.get("text", "string")
            if (kind is None or kind.value == "text") and body is not None:
                texts.append((f"{path}[{number}]", body))
        return texts

    def source(self, block: _Node, path: str, role: str, content: list[tuple[str, _Node]], title_key: str = "title"):
        """A source of the request: its title, its context, then its text."""
        title, context = self.string(block, title_key), self.string(block, "context")
        if not (title or context or content):
            return
        number = self.sources
        self.sources += 1
        if title:
            self.add(f"{path}.{title_key}", role, title, SourceText(number, SourcePart.TITLE))
        if context:
            self.add(f"{path}.context", role, context, SourceText(number, SourcePart.CONTEXT), block.pair("context"))
        for text_path, node in content:
            self.add(text_path, role, node, SourceText(number, SourcePart.CONTENT))

    def parts(self, content: _Node, path: str, role: str):
        """A Gemini content: `parts`, of which the `text` ones are read."""
        parts = content.get("parts")
        if parts is None or parts.kind != "array":
            raise self.error('a content needs a list of "parts"', parts or content)
        for number, part in enumerate(parts.value):
            text = part.get("text")
            if text is not None:
                if text.kind != "string":
                    raise self.error('"text" must be a string', text)
                self.add(f"{path}.parts[{number}]", role, text)

    def documents(self, documents: _Node):
        """Cohere's top-level documents, each a string or {"id", "data": {any fields}}.

        Cohere renders them in a system turn after the conversation. Of a document's
        data, `title` is its title, `text`, `snippet` or `content` its text, and every
        other key a field, read by its name (a `summary` is derived text).
        """
        if documents.kind != "array":
            raise self.error('"documents" must be a list of documents', documents)
        for number, document in enumerate(documents.value):
            path = f"documents[{number}]"
            if document.kind == "string":
                self.add(path, "system", document, SourceText(self.sources, SourcePart.CONTENT))
                self.sources += 1
                continue
            data = document.get("data", "object") or document
            if document.kind != "object":
                raise self.error("a document must be a string or an object", document)
            where = f"{path}.data" if data is not document else path
            self.fields(data, where, self.sources)
            self.sources += 1

    def fields(self, data: _Node, path: str, number: int):
        pieces = []
        for key, value in sorted(data.value.items(), key=lambda item: data.key_starts[item[0]]):
            label = key.lower()
            part = SourcePart.TITLE if label == "title" else SourcePart.CONTENT if label in ("text", "snippet", "content") else SourcePart.FIELD
            if value.kind == "string":
                pieces.append((part, f"{path}.{key}", value, SourceText(number, part, key), data.pair(key)))
            elif part is SourcePart.FIELD and value.kind in ("number", "boolean"):
                # Only the key is text in the file: a fix may remove the field, never edit it.
                written = self.positions.raw[value.start : value.end]
                start = data.key_starts[key]
                key_node = _Node("string", key, start, scanstring(self.positions.raw, start + 1)[1])
                pieces.append((part, f"{path}.{key}", key_node, SourceText(number, part, key, written), data.pair(key)))
        order = {SourcePart.TITLE: 0, SourcePart.FIELD: 1, SourcePart.CONTENT: 2}
        for part, where, node, source, pair in sorted(pieces, key=lambda piece: order[piece[0]]):
            self.add(where, "system", node, source, pair if part is SourcePart.FIELD else None)


def _chat_texts(record: _Node, index: int, positions: _Positions, log: bool = False) -> list[ChatText]:
    """The texts of one record, checking that it has one of the accepted shapes (``log``: a line
    of a log of requests, where every record claims to be one)."""
    reader = _Record(index, positions)
    # A key names a shape only with the type the shape gives it (`"instructions": {...}` in a
    # prompt file is no Responses request), unless the record says it is a request by naming
    # its model or its messages: then a wrongly typed key is a broken request, reported as one.
    request = log or record.kind == "object" and (record.get("model") is not None or record.get("messages") is not None)

    def shaped(key: str, kind: str) -> _Node | None:
        # A key set to null says the record has no such thing (`"prompt": null` on a line of results whose run
        # failed), not that it is broken.
        value = record.get(key) if request else record.get(key, kind)
        return None if value is not None and value.kind == "null" else value

    messages = shaped("messages", "array")
    if messages is not None:
        _chat_request(reader, record, messages, positions)
    elif record.get("retrieveAndGenerateConfiguration", "object") is not None:
        _bedrock_knowledge_base(reader, record)
    elif shaped("contents", "array") is not None:
        _gemini(reader, record)
    elif shaped("instructions", "string") is not None or record.get("input", "array") is not None:
        _responses(reader, record)
    elif record.get("lc") is not None and record.get("kwargs", "object") is not None:
        _langchain(reader, record, "", None)
    elif record.get("_type", "string") is not None and record.get("template") is not None:
        _langchain_prompt_file(reader, record)
    elif shaped("prompt", "string") is not None:
        _completion(reader, record, positions)
    elif record.kind == "array" and (request or _reads_as_messages(record)):
        reader.messages(record)
    else:
        raise positions.not_chat(SHAPE_ERROR, record.start)
    return reader.texts


def _chat_request(reader: _Record, record: _Node, messages: _Node, positions: _Positions) -> None:
    """A chat completions request: its messages, with Anthropic's top-level system prompt and Cohere's documents."""
    if messages.kind != "array":
        raise positions.not_chat('"messages" must be a list of messages', messages.start)
    system = record.get("system")
    if system is not None:
        reader.system(system, "system")
    reader.messages(messages)
    documents = record.get("documents")
    if documents is not None:
        reader.documents(documents)


def _langchain_prompt_file(reader: _Record, record: _Node) -> None:
    """A LangChain prompt file (`{"_type": "prompt", "template": ...}`)."""
    template = reader.string(record, "template")
    if template is not None:
        reader.add("template", "user", template)


def _completion(reader: _Record, record: _Node, positions: _Positions) -> None:
    """A completions request: one prompt string, after the system prompt the request gives beside it (Ollama's
    generate request, `"system"`; a call logged with its keywords, `"system_prompt"`)."""
    system = next((node for key in ("system", "system_prompt") if (node := record.get(key, "string")) is not None), None)
    if system is not None:
        reader.system(system, "system" if record.get("system") is system else "system_prompt")
    prompt = record.get("prompt")
    # The API takes a list of prompts too; a list of one is that prompt (a batch is several requests).
    if prompt.kind == "array" and len(prompt.value) == 1 and prompt.value[0].kind == "string":
        prompt = prompt.value[0]
    if prompt.kind != "string":
        raise positions.not_chat('"prompt" must be a string, or a list of one string', prompt.start)
    reader.add("messages[0]", "user", prompt)


def _typed_role(message: _Node) -> str | None:
    """The role a message's type names (`"_type": "systemmessage"`, as PromptingTools writes a template):
    "system", "user", "ai", "metadata"; None when it has no such type."""
    typed = message.get("_type")
    if typed is None or typed.kind != "string" or not typed.value.endswith("message") or typed.value == "message":
        return None
    return typed.value[: -len("message")]


def _reads_as_messages(record: _Node) -> bool:
    """Whether a list that does not claim to be a request is one of messages: empty, or its first item has a role or content."""
    return not record.value or any(record.value[0].get(key) is not None for key in ("role", "content"))


# LangChain's message templates, by class name, and the role of the message each makes.
_LANGCHAIN_ROLES = {"SystemMessagePromptTemplate": "system", "HumanMessagePromptTemplate": "user", "AIMessagePromptTemplate": "assistant"}


def _langchain(reader: _Record, node: _Node, path: str, role: str | None):
    """A prompt serialized by LangChain (as the prompt hub stores it): constructors by class name."""
    names = node.get("id", "array")
    kind = names.value[-1].value if names and names.value and names.value[-1].kind == "string" else None
    kwargs = node.get("kwargs", "object")
    if kwargs is None:
        return
    where = f"{path}.kwargs".lstrip(".")
    if kind == "ChatPromptTemplate":
        messages = kwargs.get("messages", "array")
        for number, message in enumerate(messages.value if messages else ()):
            _langchain(reader, message, f"{where}.messages[{number}]", None)
    elif kind in _LANGCHAIN_ROLES and kwargs.get("prompt", "object"):
        _langchain(reader, kwargs.get("prompt"), f"{where}.prompt", _LANGCHAIN_ROLES[kind])
    elif kind == "PromptTemplate":
        template = reader.string(kwargs, "template")
        if template is not None:
            reader.add(f"{where}.template", role or "user", template)
    # A MessagesPlaceholder stands for the chat history: no text of its own.


def _bedrock_knowledge_base(reader: _Record, record: _Node):
    """A Bedrock RetrieveAndGenerate request: the prompt template of its answer step, then the query.

    Bedrock fills the template's `$search_results$` (and `$query$`, `$output_format_instructions$`)."""
    config = record.get("retrieveAndGenerateConfiguration")
    for kind in ("knowledgeBaseConfiguration", "externalSourcesConfiguration"):
        node = config.get(kind, "object")
        generation = node.get("generationConfiguration", "object") if node else None
        template = generation.get("promptTemplate", "object") if generation else None
        text = reader.string(template, "textPromptTemplate") if template else None
        if text is not None:
            reader.add(f"retrieveAndGenerateConfiguration.{kind}.generationConfiguration.promptTemplate.textPromptTemplate", "system", text)
    query = record.get("input", "object")
    text = reader.string(query, "text") if query else None
    if text is not None:
        reader.add("input.text", "user", text)


def _responses(reader: _Record, record: _Node):
    """An OpenAI Responses request: `instructions`, then `input` (a string or a list of items)."""
    instructions = reader.string(record, "instructions")
    if instructions is not None:
        reader.add("instructions", "system", instructions)
    prompt = record.get("input")
    if prompt is None or prompt.kind == "null":
        return
    if prompt.kind == "string":
        reader.add("input", "user", prompt)
    elif prompt.kind == "array":
        reader.messages(prompt, "input")
    else:
        raise reader.error('"input" must be a string or a list of items', prompt)


def _gemini(reader: _Record, record: _Node):
    """A Gemini generateContent request: `systemInstruction`, then `contents[].parts[]`."""
    system = record.get("systemInstruction") or record.get("system_instruction")
    if system is not None:
        name = "systemInstruction" if record.get("systemInstruction") else "system_instruction"
        reader.parts(system, name, "system")
    contents = record.get("contents")
    if contents.kind != "array":
        raise reader.error('"contents" must be a list of contents', contents)
    for number, content in enumerate(contents.value):
        role = content.get("role", "string")
        # Gemini calls the assistant "model"; a content without a role is the user's.
        reader.parts(content, f"contents[{number}]", {"model": "assistant"}.get(role.value, role.value) if role else "user")


def parse_chat_json(raw: str) -> list[ChatText]:
    """The texts of a .json file holding one chat prompt."""
    positions = _Positions(raw)
    record = _Parser(raw, positions).parse(0, len(raw))
    return _chat_texts(record, 0, positions)


def unshaped_texts(raw: str) -> tuple[list[ChatText], list[tuple[str, ChatText]]]:
    """What a .json file of no request shape holds, read in one parse: the chat templates of a
    Hugging Face config; or, when it has none, every string that is the value of an object's
    member, with its key (where a prompt file keeps its prompts)."""
    positions = _Positions(raw)
    record = _Parser(raw, positions).parse(0, len(raw))
    templates = _chat_templates(record, positions)
    return templates, [] if templates else _member_strings(record, positions)


def _chat_templates(record: _Node, positions: _Positions) -> list[ChatText]:
    """The Jinja chat templates of a Hugging Face tokenizer config (`tokenizer_config.json`,
    `chat_template.json`): `chat_template` is a template, or a list of {"name", "template"}."""
    reader = _Record(0, positions)
    templates = record.get("chat_template")
    # A template renders the messages of every role: it has none of its own.
    if templates is not None and templates.kind == "string":
        reader.add("chat_template", "", templates)
    elif templates is not None and templates.kind == "array":
        for number, item in enumerate(templates.value):
            template = item.get("template", "string")
            if template is not None:
                reader.add(f"chat_template[{number}].template", "", template)
    return reader.texts


def _member_strings(record: _Node, positions: _Positions) -> list[tuple[str, ChatText]]:
    """Every string that is an object member's value, with its key, in file order
    (`{"qa": {"system_prompt": "...", "template": "..."}}`)."""
    reader = _Record(0, positions)
    keys: list[str] = []
    pending: list[tuple[_Node, str, str | None]] = [(record, "", None)]
    while pending:
        node, path, key = pending.pop()
        if node.kind == "object":
            members = sorted(node.value.items(), key=lambda item: item[1].start, reverse=True)
            pending.extend((value, f"{path}.{name}".lstrip("."), name) for name, value in members)
        elif node.kind == "array":
            pending.extend((item, f"{path}[{n}]", None) for n, item in reversed(list(enumerate(node.value))))
        elif node.kind == "string" and key is not None:
            reader.add(path, "", node)
            keys.append(key)
    return list(zip(keys, reader.texts))


@dataclass(frozen=True)
class NotebookCell:
    """A Jupyter notebook cell: its kind and its source's strings (one string, or a string a line)."""

    kind: str  # code, markdown or raw
    source: tuple[ChatText, ...]
    # What a code cell printed (each `stream` output's strings, and the text an `execute_result` shows): where a
    # chain logs the prompts it sends.
    printed: tuple[tuple[ChatText, ...], ...] = ()


def notebook_cells(raw: str) -> list[NotebookCell] | None:
    """The cells of a .ipynb file, each string placed in the file; None when it holds no cell list."""
    positions = _Positions(raw)
    cells = _Parser(raw, positions).parse(0, len(raw)).get("cells", "array")
    if cells is None:
        return None
    reader = _Record(0, positions)
    found = []
    for number, cell in enumerate(cells.value):
        kind, source = cell.get("cell_type", "string"), cell.get("source")
        lines = [source] if source is not None and source.kind == "string" else source.value if source is not None and source.kind == "array" else []
        first = len(reader.texts)
        for index, line in enumerate(lines):
            if line.kind == "string":
                reader.add(f"cells[{number}].source[{index}]", "", line)
        found.append(NotebookCell(kind.value if kind else "", tuple(reader.texts[first:]), _printed(reader, cell, number)))
    return found


def _printed(reader: _Record, cell: _Node, number: int) -> tuple[tuple[ChatText, ...], ...]:
    """The strings of each `stream` output of a cell (what it printed) and of each `execute_result`'s plain text (the
    value of its last line, as Python writes it), one tuple an output."""
    outputs = cell.get("outputs", "array")
    printed = []
    for index, output in enumerate(outputs.value if outputs is not None else []):
        kind = output.get("output_type", "string")
        data = output.get("data", "object") if kind is not None and kind.value == "execute_result" else None
        text = data.get("text/plain") if data is not None else output.get("text") if kind is not None and kind.value == "stream" else None
        if text is None:
            continue
        lines = [text] if text.kind == "string" else text.value if text.kind == "array" else []
        first = len(reader.texts)
        for line in (line for line in lines if line.kind == "string"):
            reader.add(f"cells[{number}].outputs[{index}]", "", line)
        printed.append(tuple(reader.texts[first:]))
    return tuple(p for p in printed if p)


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
            results.append(_chat_texts(parser.parse(start, end), len(results), positions, log=True))
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


def _mend(raw: str, removals: tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
    """Removals joined where they meet, each widened to the comma before it when it would leave
    one before a closing bracket (the object's last keys were removed)."""
    joined: list[list[int]] = []
    for start, end in sorted(removals):
        if joined and start <= joined[-1][1]:
            joined[-1][1] = max(joined[-1][1], end)
        else:
            joined.append([start, end])
    for span in joined:
        after = _WHITESPACE.match(raw, span[1]).end()
        before = span[0]
        while before and raw[before - 1] in " \t\n\r":
            before -= 1
        if raw[after : after + 1] in ("}", "]") and raw[before - 1 : before] == ",":
            span[0] = before - 1
    return [(start, end) for start, end in joined]


def replace_texts(raw: str, replacements: dict[tuple[int, int], str], removals: tuple[tuple[int, int], ...] = ()) -> str:
    """raw with each literal span rewritten to encode its new text, each removal span cut out,
    and nothing else changed."""
    # Every span refers to the original raw, so the pieces are cut from it in
    # order and joined once, which keeps the work linear in the file's size.
    edits = [(span, None) for span in _mend(raw, removals)] + sorted(replacements.items())
    pieces = []
    done = 0
    for (start, end), text in sorted(edits, key=lambda edit: edit[0]):
        if start < done:
            raise ValueError(f"span {(start, end)} overlaps another replacement")
        if text is not None and not (0 <= start and end - start >= 2 and end <= len(raw) and raw[start] == '"' and raw[end - 1] == '"'):
            raise ValueError(f"span {(start, end)} is not a string literal")
        pieces.append(raw[done:start])
        pieces.append("" if text is None else _encode(text, raw[start:end]))
        done = end
    pieces.append(raw[done:])
    return "".join(pieces)
