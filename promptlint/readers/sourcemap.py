"""Where a prompt's text stands in its file: one source map per prompt, one class per kind of mapping.

Every map answers the same questions (after sqlfluff's ``TemplatedFile``): where an offset
of the prompt's text is in the file, whether a fix may be offered at all, and how a
changed text is written back into the file's text (None when it cannot be written
exactly). A map whose write is only known to be exact once the file reads back with the
new text says so (``reread``); the document does that reading (``Document.writes_back``).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..meaning.lexicon import Lexicon
from ..model.findings import Edit
from ..model.lines import line_column
from . import chatjson

if TYPE_CHECKING:
    from .document import Prompt


class SourceMap:
    """The interface; each kind of mapping below is one small class."""

    editable = True  # whether a fix may be offered at all
    reread = False  # whether a written text is exact only when the file reads back with it
    rewritable = False  # whether a whole block may be rewritten (format), not only small edits
    chats: tuple[chatjson.ChatText, ...] | None = None  # the JSON strings the text is made of

    def locate(self, prompt: "Prompt", offset: int, raw: str, starts: list[int]) -> tuple[int, int]:
        """1-based line and column in the file (``raw``, whose lines start at ``starts``) of an offset of the text."""
        raise NotImplementedError

    def start(self, starts: list[int]) -> int:
        """Where the text starts in the file: prompts are written back from the last to the first."""
        return 0

    def fits(self, prompt: "Prompt", edits: tuple[Edit, ...]) -> bool:
        """Whether edits of the text (``prompt`` holding it) can be written back at all."""
        return True

    def write(self, raw: str, old: str, new: str) -> str | None:
        """``raw`` with the text changed from ``old`` to ``new``; None when it cannot be written so."""
        return None

    @classmethod
    def write_all(cls, raw: str, changed: list[tuple["Prompt", "Prompt"]], starts: list[int]) -> str:
        """``raw`` with each (old, new) prompt pair of one file written: from the last to the first,
        so that each one's place in ``raw`` still holds. A change that cannot be written exactly
        leaves its text as read."""
        for old, new in sorted(changed, key=lambda pair: pair[1].source.start(starts), reverse=True):
            raw = new.source.write(raw, old.texts[0], new.texts[0]) or raw
        return raw


@dataclass(frozen=True)
class Verbatim(SourceMap):
    """The text stands in the file character for character (a whole text file, a Prompty body,
    a plain Python literal); in a YAML file a scalar is exact only if the file reads back."""

    begin: int
    end: int
    reread: bool = False
    rewritable = True

    def locate(self, prompt, offset, raw, starts):
        return line_column(starts, self.begin + offset)

    def start(self, starts):
        return self.begin

    def write(self, raw, old, new):
        return raw[: self.begin] + new + raw[self.end :]


@dataclass(frozen=True)
class Anchored(SourceMap):
    """The text is not in the file verbatim (escapes in YAML, an f-string, JSON strings no
    separator can join): findings point at its literal, and it is never edited."""

    line: int
    column: int
    editable = False

    def locate(self, prompt, offset, raw, starts):
        return self.line, self.column


@dataclass(frozen=True)
class CharOffsets(SourceMap):
    """The file offset of each character of the text, and of its end. Alone it writes nothing:
    it is what a translation is mapped through (see Translated), and what Escaped writes through."""

    offsets: tuple[int, ...]

    def locate(self, prompt, offset, raw, starts):
        return line_column(starts, self.offsets[min(max(offset, 0), len(self.offsets) - 1)])

    def start(self, starts):
        return self.offsets[0]


@dataclass(frozen=True)
class Pieces(CharOffsets):
    """A text code builds from several literals (a loop body's adds, a helper's pieces): each character
    is placed in the literal it comes from, so a finding points at its own line; it is never edited."""

    editable = False


@dataclass(frozen=True)
class Escaped(CharOffsets):
    """A code string with escapes or in pieces, mapped character by character. A changed text
    is written back escaped, the code's reader checking that it reads back."""

    language: str  # whose escapes and reader: "javascript", else Python's
    # The words the file was read with: the read-back must find the prompt where the first reading did.
    lexicon: Lexicon | None = field(default=None, compare=False, repr=False)

    def write(self, raw, old, new):
        if self.language == "javascript":
            from .jssource import rewrite
        else:
            from .pysource import rewrite
        return rewrite(raw, self.offsets, old, new, self.lexicon)


@dataclass(frozen=True)
class Translated(SourceMap):
    """The text is a translation of what the file holds (a Handlebars template read as the Jinja
    it means), through the file offset of each of its characters, or an anchor when what it
    translates is not in the file verbatim. A change is written where the characters it replaces stand, as it is; whether that
    means the change is for the read-back to say."""

    through: CharOffsets | Anchored
    reread = True

    @property
    def editable(self) -> bool:
        return self.through.editable

    def locate(self, prompt, offset, raw, starts):
        return self.through.locate(prompt, offset, raw, starts)

    def start(self, starts):
        return self.through.start(starts)

    def write(self, raw, old, new):
        if not self.editable:
            return None
        from .pysource import rewrite_through

        return rewrite_through(raw, self.through.offsets, old, new, lambda text: text, lambda _, offset: offset + 1)


@dataclass(frozen=True)
class Embedded(SourceMap):
    """A document inside a string of the file (a recorded request's JSON body in a YAML cassette): its text
    read as that document's reader gives it (``inner``, whose JSON strings stay the text's structure), its
    findings placed at the string (``at``); never edited."""

    inner: SourceMap
    at: Anchored
    editable = False

    @property
    def chats(self) -> tuple[chatjson.ChatText, ...] | None:
        return self.inner.chats

    def locate(self, prompt, offset, raw, starts):
        return self.at.line, self.at.column


@dataclass(frozen=True)
class YamlBlock(SourceMap):
    """A YAML literal block scalar: the file line and the indentation of each line of the text
    (the indentation is not part of the text). A changed text is written line by line."""

    lines: tuple[tuple[int, int], ...]
    reread = True

    def locate(self, prompt, offset, raw, starts):
        index, column = line_column(prompt.line_starts, offset)
        line, indent = self.lines[min(index - 1, len(self.lines) - 1)]
        return line, indent + column

    def start(self, starts):
        return starts[min(self.lines[0][0], len(starts)) - 1]

    def write(self, raw, old, new):
        """Each line of the text that changed is written on its file line, indented as the block
        is; an empty line is written empty. Lines that did not change stay byte for byte."""
        lines = raw.split("\n")
        indent = " " * self.lines[0][1]
        old_lines, new_lines = old.split("\n"), new.split("\n")
        # From the last change to the first, so that the lines above each still stand where mapped.
        changes = [c for c in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes() if c[0] != "equal"]
        for _, i1, i2, j1, j2 in reversed(changes):
            # An insertion after the block's last line goes where that line's next one would be.
            first = self.lines[i1][0] - 1 if i1 < len(self.lines) else self.lines[-1][0]
            last = self.lines[i2 - 1][0] if i2 > i1 else first
            lines[first:last] = [indent + line if line else line for line in new_lines[j1:j2]]
        return "\n".join(lines)


@dataclass(frozen=True)
class ChatStrings(SourceMap):
    """JSON strings joined into one text (a record's messages, a config's chat template), each
    mapped through its escapes (chatjson.raw_offset). An edit must stay inside one message;
    the strings of a file are re-encoded together (``write_all``), as one file's objects nest."""

    chats: tuple[chatjson.ChatText, ...]
    rewritable: bool = True  # a chat template (Jinja) is only edited, never rewritten whole

    def locate(self, prompt, offset, raw, starts):
        index = prompt.message_index(offset)
        chat = self.chats[index]
        inner = min(max(offset - prompt.message_spans[index].start, 0), len(chat.text))
        return line_column(starts, chatjson.raw_offset(chat, raw, inner))

    def fits(self, prompt, edits):
        """An edit must stay inside one message; a key standing for its value (a field whose
        value is a number) may only be removed whole."""
        for edit in edits:
            index = prompt.message_index(edit.span.start)
            span, source = prompt.message_spans[index], self.chats[index].source
            if not span.contains(edit.span) or (source is not None and source.value is not None and (edit.span != span or edit.replacement)):
                return False
        return True

    @classmethod
    def write_all(cls, raw, changed, starts):
        """JSON strings are re-encoded in one pass over the file, as one object's strings may
        stand around another's; an emptied text that may be left out goes with its key."""
        replacements, removals = {}, []
        for _, new in changed:
            for chat, text in zip(new.source.chats, new.texts):
                if not text and chat.pair:
                    removals.append(chat.pair)
                elif text != chat.text:
                    replacements[chat.literal] = text
        return chatjson.replace_texts(raw, replacements, tuple(removals))


@dataclass(frozen=True)
class ReadOnlyChats(ChatStrings):
    """JSON strings no separator can join (every one occurs in the texts): findings point at
    the first string, and the prompt is never edited."""

    editable = False

    def locate(self, prompt, offset, raw, starts):
        return self.chats[0].line, self.chats[0].column
