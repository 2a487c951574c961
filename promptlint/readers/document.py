"""Files in, files out: read a prompt file into the prompts it holds, and write fixes back.

A plain text or Markdown file holds one prompt. A chat JSON file holds one
record and a JSONL file one per line; each record's messages are joined into
one text for the rules, and every offset in that text maps back to the file.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property
from pathlib import Path

import yaml

from ..meaning import lexicon
from ..model.findings import Finding, Severity
from ..model.lines import line_column, line_starts
from ..model.prompt import Message, Span, Syntax
from . import chatjson
from .pybuild import Loop
from .sourcemap import Anchored, CharOffsets, ChatStrings, Escaped, ReadOnlyChats, SourceMap, Translated, Verbatim, YamlBlock

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
    suffix: str = ""  # the format the file was read as, to read a fixed text again

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
        """The file's new text (with its BOM) after the prompts were fixed."""
        chats = [(p.source, p.texts) for p in prompts if p.chats is not None]
        if chats:
            # A file's JSON strings are re-encoded in one pass: one object's strings may stand around another's.
            return self._file_text(ChatStrings.write_all(self.raw, chats))
        changed = [(old, new) for old, new in zip(self.prompts, prompts) if new.text != old.text]
        raw = self.raw
        # From the last to the first, so that each one's place in ``raw`` still holds; a change
        # that cannot be written exactly (or a text not in the file verbatim) leaves it as read.
        for old, new in sorted(changed, key=lambda pair: pair[1].source.start(self.line_starts), reverse=True):
            raw = new.source.write(raw, old.texts[0], new.texts[0]) or raw
        return self._file_text(raw)

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
        again = parse_text(new, self.path, self.suffix) if prompt.translated else read_yaml(self.path, new, self.bom, self.newline, "")
        return [p.text for p in again.prompts] == [p.text for p in prompts]


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


def read(path: Path, display: str | None = None, suffix: str | None = None) -> Document:
    """The document of a file; ``suffix`` picks its format when not its own (config `file-types`)."""
    display = display or str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableFile(f"{display}: cannot read: {exc.strerror or exc}") from None
    return parse(data, display, suffix or path.suffix.lower())


def parse(data: bytes, display: str, suffix: str) -> Document:
    """A file's document; a NUL byte near the start marks a binary file, which is not read."""
    if b"\0" in data[:8192]:
        raise UnreadableFile(f"{display}: binary file, skipped")
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(f"{display}: not valid UTF-8 (byte offset {exc.start})") from None
    return parse_text(raw, display, suffix)


_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_text(raw: str, display: str, suffix: str) -> Document:
    """The document of a text already decoded: a file's, or one given to the Python API."""
    surrogate = _SURROGATE.search(raw)
    if surrogate:
        # Only a str built in Python can hold one; it cannot be encoded, written or tokenized.
        raise UnreadableFile(f"{display}: not valid Unicode text (a lone surrogate at character offset {surrogate.start()})")
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
    from .formats import for_suffix

    return _handlebars_as_jinja(replace(for_suffix(suffix).read(display, raw, bom, newline, suffix), suffix=suffix))


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


def read_text(display: str, raw: str, bom: bool, newline: str, suffix: str) -> Document:
    """A text file holds one prompt, or several one after another (each ending on the line the
    model answers after); a .prompt file that uses Jinja tags is a template; a Markdown page
    that documents a prompt in fenced blocks holds those blocks."""
    syntax = Syntax.JINJA if suffix == ".prompt" and ("{%" in raw or "{{" in raw) else Syntax.TEXT
    pieces = _fenced_prompts(raw) if suffix == ".md" else []
    if not pieces and syntax == Syntax.TEXT:
        from .segment import consecutive_prompts

        pieces = consecutive_prompts(raw)
    if pieces:
        prompts = tuple(Prompt((raw[start:end],), Verbatim(start, end), syntax=Syntax.JINJA if "{%" in raw[start:end] else Syntax.TEXT) for start, end in pieces)
        return Document(display, raw, DocumentKind.TEXT, bom, prompts, (), newline)
    header = _comment_header_end(raw) if syntax == Syntax.TEXT else None
    if header is not None:
        # "# Prompt template for ...\n#\n# Placeholders: ..." documents the template; the prompt follows it.
        return Document(display, raw, DocumentKind.TEXT, bom, (Prompt((raw[header:],), Verbatim(header, len(raw))),), (), newline)
    return _template(display, raw, bom, newline, syntax)


def _comment_header_end(raw: str) -> int | None:
    """Where a template's comment header ends: three or more leading "#" comment lines, one of
    them a bare "#" (no Markdown heading is empty), then a blank line and the prompt."""
    lines, at, bare = raw.split("\n"), 0, False
    count = 0
    for line in lines:
        if not (line.startswith("#") and (line.rstrip() == "#" or line[1:2] in (" ", "\t"))):
            break
        bare = bare or line.rstrip() == "#"
        at += len(line) + 1
        count += 1
    if count < 3 or not bare or count >= len(lines) or lines[count].strip() or not raw[at:].strip():
        return None
    return at


_FENCE = re.compile(r"^(?P<fence>```|~~~)[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)


def _fenced_prompts(raw: str) -> list[tuple[int, int]]:
    """Where the prompts of a Markdown page stand when the page documents them: the fenced
    blocks that read as prompts, when the prose around them does not. The prose (a rationale, a changelog) is then no part of any prompt."""
    from .segment import is_prompt_text, segment_text, words

    if "```" not in raw and "~~~" not in raw:
        return []
    vocab = words()
    fences = list(_FENCE.finditer(raw))
    # A block with a context slot, or an assembled prompt whose sources are written out.
    inside = [m for m in fences if is_prompt_text(m["body"], vocab) or len(segment_text(m["body"]).sources) >= 2]
    if not inside or is_prompt_text(_FENCE.sub("", raw), vocab):
        return []
    return [(m.start("body"), m.end("body")) for m in inside]


def read_jinja(display: str, raw: str, bom: bool, newline: str, suffix: str) -> Document:
    return _template(display, raw, bom, newline, Syntax.JINJA)


def _template(display: str, raw: str, bom: bool, newline: str, syntax: Syntax) -> Document:
    if syntax == Syntax.JINJA:
        from .jinja import TemplateError, check_syntax

        try:
            check_syntax(raw)
        except TemplateError as exc:
            return Document(display, raw, DocumentKind.TEXT, bom, (), (syntax_error(display, f"invalid Jinja: {exc.message}", exc.line, exc.column),), newline)
    return Document(display, raw, DocumentKind.TEXT, bom, (Prompt((raw,), Verbatim(0, len(raw)), syntax=syntax),), (), newline)


def read_json(display: str, raw: str, bom: bool, newline: str, suffix: str) -> Document:
    """A JSON file holds one chat record, or a Hugging Face config's chat templates; an empty
    one holds no prompt (it is not broken JSON)."""
    record = _parse_json(raw) if raw.strip() else None
    if isinstance(record, chatjson.NotChat) and record.message == chatjson.SHAPE_ERROR:
        templates, members = chatjson.unshaped_texts(raw)
        if templates:
            return _chat_templates(display, raw, bom, newline, templates)
        return _member_prompts(display, raw, bom, newline, members)
    return _chat_records(display, raw, bom, newline, DocumentKind.JSON, [record] if record is not None else [])


def _member_prompts(display: str, raw: str, bom: bool, newline: str, members: list[tuple[str, chatjson.ChatText]]) -> Document:
    """A JSON prompt file of no known shape: the strings that read as prompts (see segment.is_prompt_text),
    those of one object together as the messages of one prompt, a system one by its key."""
    from .jinja import parses
    from .segment import is_prompt_text, words

    vocab = words()
    by_object: dict[str, list[chatjson.ChatText]] = {}
    for key, text in members:
        if is_prompt_text(text.text, vocab, key):
            role = "system" if "system" in lexicon.split(key) else "user"
            by_object.setdefault(text.path[: -len(key)], []).append(replace(text, role=role))
    prompts = []
    for texts in by_object.values():
        jinja = any("{%" in t.text for t in texts) and all(parses(t.text) for t in texts)
        prompts.append(_json_strings_prompt(texts, 0, Syntax.JINJA if jinja else Syntax.TEXT))
    return Document(display, raw, DocumentKind.JSON, bom, tuple(prompts), (), newline)


def _chat_templates(display: str, raw: str, bom: bool, newline: str, templates: list[chatjson.ChatText]) -> Document:
    """Each chat template is a Jinja template. Its text is a JSON string, mapped through its
    escapes as a chat message is: findings point into it, and fixes are written back escaped."""
    from .jinja import TemplateError, check_syntax

    prompts, errors = [], []
    for template in templates:
        try:
            check_syntax(template.text)
        except TemplateError as exc:
            errors.append(syntax_error(display, f"invalid Jinja in {template.path}: {exc.message} (line {exc.line} of the template)", template.line, template.column))
            continue
        prompts.append(_json_strings_prompt([template], 0, Syntax.JINJA))
    return Document(display, raw, DocumentKind.JSON, bom, tuple(prompts), tuple(errors), newline)


def read_jsonl(display: str, raw: str, bom: bool, newline: str, suffix: str) -> Document:
    """A JSONL file holds a chat record on each non-blank line."""
    return _chat_records(display, raw, bom, newline, DocumentKind.JSONL, chatjson.parse_chat_jsonl(raw))


def _chat_records(display: str, raw: str, bom: bool, newline: str, kind: DocumentKind, records: list) -> Document:
    prompts, errors, unread = [], [], []
    for number, record in enumerate(records):
        if isinstance(record, chatjson.RecordTexts):
            unread.extend(f"record {number + 1}, {note}" if kind == DocumentKind.JSONL else note for note in record.unread)
        if isinstance(record, chatjson.NotChat) and record.message == chatjson.SHAPE_ERROR:
            continue  # valid JSON that is not a chat record (package.json, a config): not a prompt
        if isinstance(record, chatjson.NotChat):
            errors.append(syntax_error(display, f"valid {kind.upper()} but not a chat record: {record.message}", record.line, record.column))
        elif isinstance(record, chatjson.JsonSyntaxError):
            errors.append(syntax_error(display, f"invalid {kind.upper()}: {record.message}", record.line, record.column))
        elif record:
            prompts.append(_json_strings_prompt(record, number))
    return Document(display, raw, kind, bom, tuple(prompts), tuple(errors), newline, tuple(unread))


def _json_strings_prompt(chats: list[chatjson.ChatText], record: int, syntax: Syntax = Syntax.TEXT) -> Prompt:
    """A prompt made of JSON strings (a record's messages, a config's chat template): located
    through their escapes, and written back re-encoded (see ``with_prompts``)."""
    texts = tuple(c.text for c in chats)
    separator = next((s for s in SEPARATORS if not any(s in t for t in texts)), None)
    if separator is None:
        # Every separator occurs in the texts: report, never edit.
        return Prompt(texts, ReadOnlyChats(tuple(chats)), record, syntax=syntax)
    return Prompt(texts, ChatStrings(tuple(chats), rewritable=syntax == Syntax.TEXT), record, syntax=syntax, separator=separator)


def read_prompty(display: str, raw: str, bom: bool, newline: str, suffix: str) -> Document:
    """A .prompty file: YAML front matter between --- lines, then a Jinja body."""
    from .jinja import TemplateError, check_syntax

    match = re.match(r"---[ \t]*\n(.*?\n)---[ \t]*\n", raw, re.DOTALL)
    head = match.group(0) if match else ""
    if match:
        try:
            yaml.safe_load(match.group(1))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line, column = (mark.line + 2, mark.column + 1) if mark else (1, 1)
            error = syntax_error(display, f"invalid front matter: {getattr(exc, 'problem', None) or exc}", line, column)
            return Document(display, raw, DocumentKind.TEXT, bom, (), (error,), newline)
    body = raw[len(head) :]
    try:
        check_syntax(body)
    except TemplateError as exc:
        error = syntax_error(display, f"invalid Jinja: {exc.message}", exc.line + head.count("\n"), exc.column)
        return Document(display, raw, DocumentKind.TEXT, bom, (), (error,), newline)
    return Document(display, raw, DocumentKind.TEXT, bom, (Prompt((body,), Verbatim(len(head), len(raw)), syntax=Syntax.JINJA),), (), newline)


def read_python(display: str, raw: str, bom: bool, newline: str, suffix: str) -> Document:
    """A Python file: each prompt template found in it is one prompt."""
    from .pysource import PythonSyntaxError, templates_in

    try:
        found = templates_in(raw)
    except PythonSyntaxError as exc:
        return Document(display, raw, DocumentKind.PYTHON, bom, (), (syntax_error(display, f"invalid Python: {exc.message}", exc.line, exc.column),), newline)
    return _code_document(display, raw, bom, newline, DocumentKind.PYTHON, found)


def read_javascript(display: str, raw: str, bom: bool, newline: str, suffix: str) -> Document:
    """A JavaScript or TypeScript file: each prompt found in it is one prompt (see jssource)."""
    from .jsscan import JsSyntaxError
    from .jssource import templates_in

    try:
        found = templates_in(raw, jsx=suffix in (".jsx", ".tsx"))
    except JsSyntaxError as exc:
        language = "TypeScript" if "ts" in suffix else "JavaScript"
        line, column = line_column(line_starts(raw), exc.offset)
        return Document(display, raw, DocumentKind.JAVASCRIPT, bom, (), (syntax_error(display, f"invalid {language}: {exc.message}", line, column),), newline)
    return _code_document(display, raw, bom, newline, DocumentKind.JAVASCRIPT, found)


def _code_document(display: str, raw: str, bom: bool, newline: str, kind: DocumentKind, found: list) -> Document:
    """The document of a source file from the templates its reader found (pysource.PyTemplate)."""
    from .jinja import parses

    prompts = []
    for template in found:
        syntax = template.syntax if template.syntax == Syntax.TEXT or parses(template.text) else Syntax.TEXT
        prompts.append(Prompt((template.text,), _code_source(template, kind), syntax=syntax, loop=template.loop))
    return Document(display, raw, kind, bom, tuple(prompts), (), newline)


def _code_source(template, kind: DocumentKind) -> SourceMap:
    """A code string stands in the file verbatim, or through its escapes, or (an f-string) not at all."""
    if template.origin:
        return Verbatim(*template.origin)
    if template.offsets:
        return Escaped(template.offsets, kind.value)
    return Anchored(template.line, template.column)


def read_yaml(display: str, raw: str, bom: bool, newline: str, suffix: str) -> Document:
    """A prompt file: a mapping with `template` (LangChain, Semantic Kernel), or chat messages
    (a GitHub Models `.prompt.yml` with `messages`, a promptfoo list of messages); other
    YAML is not a prompt."""
    from .jinja import parses

    try:
        node = yaml.compose(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        error = syntax_error(display, f"invalid YAML: {getattr(exc, 'problem', None) or exc}", line, column)
        return Document(display, raw, DocumentKind.YAML, bom, (), (error,), newline)
    fields = _yaml_fields(node)
    messages = fields.get("messages", node)
    if isinstance(messages, yaml.SequenceNode):
        # Each message's content is a prompt of its own, placed as a template string is.
        contents = [_yaml_fields(m).get("content") for m in messages.value if "role" in _yaml_fields(m)]
        prompts = tuple(Prompt((c.value,), _yaml_source(raw, c)) for c in contents if _yaml_string(c))
        return Document(display, raw, DocumentKind.YAML, bom, prompts, (), newline)
    template = fields.get("template")
    if not _yaml_string(template):
        return Document(display, raw, DocumentKind.YAML, bom, tuple(_yaml_prompts(raw, node)), (), newline)
    style = fields.get("template_format")
    text = template.value
    syntax = Syntax.JINJA if style is not None and style.value == "jinja2" and parses(text) else Syntax.TEXT
    prompt = Prompt((text,), _yaml_source(raw, template), syntax=syntax)
    return Document(display, raw, DocumentKind.YAML, bom, (prompt,), (), newline)


def _yaml_prompts(raw: str, root: yaml.Node | None) -> list[Prompt]:
    """A YAML prompt file of no known shape: each string under a key that reads as a prompt
    (see segment.is_prompt_text), in file order."""
    from .jinja import parses
    from .segment import is_prompt_text, words

    vocab = words()
    found, pending = [], [root]
    while pending:
        node = pending.pop()
        if isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and _yaml_string(value) and is_prompt_text(value.value, vocab, str(key.value)):
                    found.append(value)
                pending.append(value)
    prompts = []
    for node in sorted(found, key=lambda n: n.start_mark.index):
        syntax = Syntax.JINJA if "{%" in node.value and parses(node.value) else Syntax.TEXT
        prompts.append(Prompt((node.value,), _yaml_source(raw, node), syntax=syntax))
    return prompts


def _yaml_fields(node: yaml.Node | None) -> dict[str, yaml.Node]:
    """A mapping's values by key; only plain keys count (complex ones, `? [a, b]`, are skipped)."""
    mapping = node.value if isinstance(node, yaml.MappingNode) else []
    return {k.value: v for k, v in mapping if isinstance(k, yaml.ScalarNode)}


def _yaml_string(node: yaml.Node | None) -> bool:
    return isinstance(node, yaml.ScalarNode) and isinstance(node.value, str) and node.tag.endswith(":str")


def _yaml_source(raw: str, node: yaml.ScalarNode) -> SourceMap:
    """Where a YAML string's text stands in the file: exactly for a one-line value written
    as it reads (plain, or quoted with no escape), line by line under a `|` block, else
    at the value's start (a folded or multi-line value, a quoted one with escapes: its
    findings point there and are not fixed)."""
    start, end = node.start_mark.index, node.end_mark.index
    if node.style is None and raw[start:end] == node.value:
        return Verbatim(start, end, reread=True)
    if node.style in ("'", '"') and raw[start + 1 : end - 1] == node.value and "\n" not in node.value:
        return Verbatim(start + 1, end - 1, reread=True)
    if node.style == "|":
        first = node.start_mark.line + 1  # the block starts on the line after `|`
        lines = raw.split("\n")
        indent = next((len(ln) - len(ln.lstrip(" ")) for ln in lines[first:] if ln.strip()), 0)
        return YamlBlock(tuple((first + 1 + k, indent) for k in range(node.value.count("\n") + 1)))
    return Anchored(node.start_mark.line + 1, node.start_mark.column + 1)


def _parse_json(raw: str) -> list[chatjson.ChatText] | chatjson.JsonSyntaxError:
    try:
        return chatjson.parse_chat_json(raw)
    except chatjson.JsonSyntaxError as exc:
        return exc
