"""What a file holds: its prompts (each a text for the rules and a map back into the file),
how a file's bytes become the reader's Input, and how fixed prompts are written back.

Each format's reader is a module of its own (textfile, jsonfile, yamlfile, codefile), found
by suffix in the formats table; a chat record's messages are joined into one text for the
rules, and every offset in that text maps back to the file.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..meaning.lexicon import Lexicon, shipped
from ..model.findings import Finding, Severity
from ..model.lines import line_starts
from ..model.prompt import Message, Span, Syntax
from . import chatjson
from .sourcemap import Anchored, CharOffsets, ChatStrings, SourceMap, Translated, YamlBlock

if TYPE_CHECKING:  # the code readers, and the capture's, are imported only where they are used
    from .pybuild import Loop
    from .retrieved import Retrieved

# Messages are joined with a line holding only a separator control character: the
# segmenter reads it as a blank line, and the one chosen appears in no message,
# so the fixed text splits back into the same messages.
SEPARATORS = tuple(f"\n{c}\n" for c in "\x1e\x1d\x1c\x1f")
BOM = "\ufeff"


class UnreadableFile(Exception):
    """The file cannot be read as text; the message names the file and why."""


@dataclass(frozen=True)
class Prompt:
    """One prompt of a file: its text as the rules see it, and how to map it back."""

    texts: tuple[str, ...]  # one per message (a single one for a plain text file)
    source: SourceMap  # where the text stands in the file, and how a changed one is written back
    record: int | None = None
    syntax: Syntax = Syntax.TEXT
    # For a string code builds once per item of a loop: what the loop iterates (see pybuild).
    loop: Loop | None = None
    separator: str = SEPARATORS[0]  # how a chat prompt's messages are joined (see SEPARATORS)
    # For a request captured as it was sent: the documents a retriever returned before it (see retrieved.py).
    retrieved: tuple[Retrieved, ...] = ()
    # For a prompt in code: the kinds the code's calls give its slots beyond their names (see pybind).
    names: tuple[tuple[str, str], ...] = ()
    # For a source's template in code: the texts of the file's prompts, when one of them prints it (see codefile).
    hosts: tuple[str, ...] = ()

    @property
    def chats(self) -> tuple[chatjson.ChatText, ...] | None:
        """The JSON strings the text is made of (see sourcemap.ChatStrings); None for any other text."""
        return self.source.chats

    @property
    def writable(self) -> bool:
        return self.source.editable

    @property
    def translated(self) -> bool:
        return isinstance(self.source, Translated)

    @property
    def text(self) -> str:
        return self.separator.join(self.texts)

    @cached_property
    def message_spans(self) -> tuple[Span, ...]:
        """Where each message is in the joined text."""
        spans, start = [], 0
        for text in self.texts:
            spans.append(Span(start, start + len(text)))
            start += len(text) + len(self.separator)
        return tuple(spans)

    @cached_property
    def line_starts(self) -> list[int]:
        """Where each line of a one-text prompt starts (a YAML block's lines map to the file's one by one)."""
        return line_starts(self.texts[0])

    @cached_property
    def _starts(self) -> list[int]:
        return [span.start for span in self.message_spans]

    def message_index(self, offset: int) -> int:
        """The message that holds ``offset`` of the joined text (the one before, in a separator)."""
        return max(0, bisect.bisect_right(self._starts, offset) - 1)

    def messages(self) -> list[Message] | None:
        if self.chats is None:
            return None
        return [Message(chat.role, span, _message_name(chat)) for chat, span in zip(self.chats, self.message_spans)]

    def with_text(self, text: str) -> "Prompt":
        if text == self.text:
            return self
        if self.chats is None:
            return replace(self, texts=(text,))
        texts = text.split(self.separator)
        if len(texts) != len(self.texts):
            raise ValueError("a fix changed the message layout")
        return replace(self, texts=tuple(texts))


class DocumentKind(str, Enum):
    """What a file holds, which decides how fixed prompts are written back (a str, so it reads
    and prints as its value). A .prompty or Jinja file is text: its prompt stands in it verbatim."""

    TEXT = "text"
    JSON = "json"
    JSONL = "jsonl"
    YAML = "yaml"
    PYTHON = "python"
    JAVASCRIPT = "javascript"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Document:
    path: str
    raw: str  # the file's text, without a BOM and with \n newlines
    kind: DocumentKind
    bom: bool
    prompts: tuple[Prompt, ...]
    errors: tuple[Finding, ...]  # PL900 for what could not be parsed
    newline: str = "\n"  # "\r\n" when every line of the file ends so
    # What the file holds that no reader can read, each named by where it is: a request's
    # document given as a base64 PDF, a URL or a file id (see chatjson.RecordTexts).
    unread: tuple[str, ...] = ()
    # The format the file was read as, and the words it was read with: to read a fixed text again.
    suffix: str = ""
    lexicon: Lexicon = field(default_factory=shipped, compare=False, repr=False)

    @cached_property
    def line_starts(self) -> list[int]:
        return line_starts(self.raw)

    @property
    def holds_prompt(self) -> bool:
        """Whether a reader found a prompt here (or something broken): a reader that knows no
        prompt in a file (a package.json, YAML without a template) returns neither."""
        return bool(self.prompts or self.errors)

    @property
    def original(self) -> str:
        """The file's text exactly as read, BOM and newlines included."""
        return self._file_text(self.raw)

    def _file_text(self, raw: str) -> str:
        if self.newline != "\n":
            raw = raw.replace("\n", self.newline)
        return (BOM if self.bom else "") + raw

    def as_read(self, file_text: str) -> str:
        """A new text of this file (from with_prompts) as the rules see it: no BOM, LF newlines."""
        text = file_text.removeprefix(BOM) if self.bom else file_text
        return text.replace(self.newline, "\n") if self.newline != "\n" else text

    def locate(self, prompt: Prompt, offset: int) -> tuple[int, int]:
        """1-based line and column in the file of an offset in ``prompt.text``."""
        return prompt.source.locate(prompt, offset, self.raw, self.line_starts)

    def file_offset(self, line: int, column: int) -> int:
        """The offset in ``original`` (BOM and newlines as read) of a finding's 1-based line and column.

        Findings are placed in ``raw``; an editor holds the file as read, so the two
        differ by the BOM and by the carriage return of each line above.
        """
        line = min(max(line, 1), len(self.line_starts))
        offset = min(self.line_starts[line - 1] + max(column, 1) - 1, len(self.raw))
        return offset + self.bom + (line - 1) * (len(self.newline) - 1)

    def context(self, prompt: Prompt, offset: int) -> str:
        if prompt.chats is None:
            return ""
        name = _message_name(prompt.chats[prompt.message_index(offset)])
        return f"record {prompt.record + 1}, {name}" if self.kind == DocumentKind.JSONL else name

    def with_prompts(self, prompts: list[Prompt]) -> str:
        """The file's new text (with its BOM) after the prompts were fixed. One reader made
        them all, so their maps are of one family, which writes a file's changes together."""
        changed = [(old, new) for old, new in zip(self.prompts, prompts) if new.texts != old.texts]
        if not changed:
            return self.original
        return self._file_text(type(changed[0][1].source).write_all(self.raw, changed, self.line_starts))

    def writes_back(self, index: int, text: str) -> bool:
        """Whether prompt ``index`` fixed to ``text`` is written into the file exactly: the new
        file reads back with that text and every other prompt as it was. Only a map that says so
        (a YAML scalar, a translation) is read again here; the others write back through maps
        that cannot miss (a JSON string is re-encoded whole) or check themselves (a code literal)."""
        prompt = self.prompts[index]
        if text == prompt.text:
            return True
        if not prompt.source.editable:
            return False  # never written
        if not prompt.source.reread:
            return True
        prompts = list(self.prompts)
        prompts[index] = prompt.with_text(text)
        new = self.as_read(self.with_prompts(prompts))
        again = parse_text(new, self.path, self.suffix, self.lexicon)
        return [p.text for p in again.prompts] == [p.text for p in prompts]


@dataclass(frozen=True)
class Input:
    """A file's text as a reader gets it (decoded, without its BOM, with \\n newlines), and the
    lexicon, the user's words included, that says which strings are prompts."""

    display: str
    raw: str
    suffix: str
    lexicon: Lexicon
    bom: bool = False
    newline: str = "\n"

    def document(self, kind: DocumentKind, prompts=(), errors=(), unread=()) -> Document:
        return Document(self.display, self.raw, kind, self.bom, tuple(prompts), tuple(errors), self.newline, tuple(unread), self.suffix, self.lexicon)


def _message_name(chat: chatjson.ChatText) -> str:
    # A chat template renders every role: it is named by its key alone.
    return f"{chat.path} ({chat.role})" if chat.role else chat.path


def syntax_error(path: str, message: str, line: int, column: int) -> Finding:
    return Finding(
        code="PL900",
        name="syntax-error",
        message=message,
        span=Span(0, 0),
        severity=Severity.ERROR,
        path=path,
        line=line,
        column=column,
        end_line=line,
        end_column=column,
    )


def read(path: Path, display: str | None = None, suffix: str | None = None, lexicon: Lexicon | None = None) -> Document:
    """The document of a file; ``suffix`` picks its format when not its own (config `file-types`),
    and ``lexicon`` (the config's) which strings read as prompts."""
    display = display or str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableFile(f"{display}: cannot read: {exc.strerror or exc}") from None
    return parse(data, display, suffix or path.suffix.lower(), lexicon)


def parse(data: bytes, display: str, suffix: str, lexicon: Lexicon | None = None) -> Document:
    """A file's document; a NUL byte near the start marks a binary file, which is not read."""
    if b"\0" in data[:8192]:
        raise UnreadableFile(f"{display}: binary file, skipped")
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(f"{display}: not valid UTF-8 (byte offset {exc.start})") from None
    # Strict UTF-8 decodes no lone surrogate: the text needs no looking for one.
    return _parse_unicode(raw, display, suffix, lexicon)


_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_text(raw: str, display: str, suffix: str, lexicon: Lexicon | None = None) -> Document:
    """The document of a text already decoded: a file's, or one given to the Python API."""
    surrogate = _SURROGATE.search(raw)
    if surrogate:
        # Only a str built in Python can hold one; it cannot be encoded, written or tokenized.
        raise UnreadableFile(f"{display}: not valid Unicode text (a lone surrogate at character offset {surrogate.start()})")
    return _parse_unicode(raw, display, suffix, lexicon)


def _parse_unicode(raw: str, display: str, suffix: str, lexicon: Lexicon | None) -> Document:
    """The document of a text that holds no lone surrogate."""
    bom = raw.startswith(BOM)
    raw = raw[1:] if bom else raw
    # The rules read lines ending in \n; a stray \r would hide a blank line from
    # the segmenter. A file whose every line ends in \r\n is read with \n and
    # written back with \r\n; a file that mixes the two is read as it is, so
    # that writing it back changes no line it did not fix.
    newline = "\n"
    if "\r\n" in raw and raw.count("\r\n") == raw.count("\n"):
        newline = "\r\n"
        raw = raw.replace("\r\n", "\n")
    from .formats import for_text

    return _handlebars_as_jinja(for_text(suffix, raw).read(Input(display, raw, suffix, lexicon or shipped(), bom, newline)))


def _handlebars_as_jinja(doc: Document) -> Document:
    """The document with each prompt written as a Handlebars or Mustache template (in a file of
    its own, or in a string of code) read as the Jinja template it means: its sections become
    loops and conditions the Jinja reader knows."""
    from . import handlebars

    if not any(handlebars.is_template(p.texts[0]) for p in doc.prompts if p.chats is None):
        return doc
    return replace(doc, prompts=tuple(_as_jinja(p) for p in doc.prompts))


def _as_jinja(prompt: Prompt) -> Prompt:
    from . import handlebars
    from .jinja import parses

    # A text of JSON strings or of a YAML block is not mapped character by character.
    kept_as_is = prompt.syntax != Syntax.TEXT or isinstance(prompt.source, (ChatStrings, YamlBlock)) or prompt.loop is not None
    if kept_as_is or not handlebars.is_template(prompt.texts[0]):
        return prompt
    translation = handlebars.translate(prompt.texts[0])
    if translation is None or not parses(translation.text):
        return prompt
    source = prompt.source
    if not isinstance(source, Anchored):
        # Where each character of the prompt's text stands in the file, and where each of the translation's does.
        where = source.offsets if isinstance(source, CharOffsets) else range(source.begin, source.end + 1)
        source = CharOffsets(tuple(where[i] for i in translation.positions))
    return replace(prompt, texts=(translation.text,), syntax=Syntax.JINJA, source=Translated(source))
