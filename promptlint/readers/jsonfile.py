"""JSON and JSONL files: chat records (a request body, a log line), a Hugging Face config's chat
templates, or prompt strings under keys of no known shape. A prompt's text is made of JSON
strings, located through their escapes and written back re-encoded (sourcemap.ChatStrings)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

from ..model.prompt import Syntax
from . import chatjson
from .document import SEPARATORS, Document, DocumentKind, Input, Prompt, syntax_error
from .logged import printed_requests
from .sourcemap import Anchored, ChatStrings, Embedded, ReadOnlyChats


def read_json(file: Input) -> Document:
    """A JSON file holds one chat record, or a Hugging Face config's chat templates; an empty
    one holds no prompt (it is not broken JSON)."""
    record = _parse_json(file.raw) if file.raw.strip() else None
    if isinstance(record, chatjson.NotChat) and record.message == chatjson.SHAPE_ERROR:
        templates, members = chatjson.unshaped_texts(file.raw)
        if templates:
            return _chat_templates(file, templates)
        return _member_prompts(file, members)
    return _chat_records(file, DocumentKind.JSON, [record] if record is not None else [])


def embedded_request(file: Input, body: str, at: Anchored) -> list[Prompt]:
    """The prompts of a request's JSON body that a file holds in another form (a recording's string, a log's
    line), read as a JSON file's are and placed at ``at``, never edited; none when the body is broken."""
    sent = read_json(Input(file.display, body, ".json", file.lexicon))
    return [] if sent.errors else [replace(p, source=Embedded(p.source, at)) for p in sent.prompts]


def shown_requests(file: Input, log: str, place: Callable[[int], tuple[int, int]]) -> list[Prompt]:
    """The requests a log shows whole (see logged.printed_requests), each read as its JSON body is and placed at the
    file's line and column ``place`` gives for the log offset that shows it."""
    return [p for offset, body in printed_requests(log) for p in embedded_request(file, json.dumps(body), Anchored(*place(offset)))]


def read_jsonl(file: Input) -> Document:
    """A JSONL file holds a chat record on each non-blank line."""
    return _chat_records(file, DocumentKind.JSONL, chatjson.parse_chat_jsonl(file.raw))


def _parse_json(raw: str) -> list[chatjson.ChatText] | chatjson.JsonSyntaxError:
    try:
        return chatjson.parse_chat_json(raw)
    except chatjson.JsonSyntaxError as exc:
        return exc


def _member_prompts(file: Input, members: list[tuple[str, chatjson.ChatText]]) -> Document:
    """A JSON prompt file of no known shape: the strings that read as prompts (see segment.is_prompt_text) or
    as prompts as they were sent (segment.sent_with_sources), those of one object together as the messages of one prompt, a system one by its key."""
    from .jinja import parses
    from .segment import is_prompt_text, sent_with_sources, words

    vocab = words(lexicon=file.lexicon)
    by_object: dict[str, list[chatjson.ChatText]] = {}
    for key, text in members:
        if is_prompt_text(text.text, vocab, key) or sent_with_sources(text.text, file.lexicon):
            role = "system" if file.lexicon.mentions(key, "system-prompt") else "user"
            by_object.setdefault(text.path[: -len(key)], []).append(replace(text, role=role))
    prompts = []
    for texts in by_object.values():
        # An object's keys have no order a model sees: the system prompt goes first, as a chat API sends it.
        texts.sort(key=lambda t: t.role != "system")
        jinja = any("{%" in t.text for t in texts) and all(parses(t.text) for t in texts)
        prompts.append(_json_strings_prompt(texts, 0, Syntax.JINJA if jinja else Syntax.TEXT))
    return file.document(DocumentKind.JSON, prompts)


def _chat_templates(file: Input, templates: list[chatjson.ChatText]) -> Document:
    """Each chat template is a Jinja template. Its text is a JSON string, mapped through its
    escapes as a chat message is: findings point into it, and fixes are written back escaped."""
    from .jinja import TemplateError, check_syntax

    prompts, errors = [], []
    for template in templates:
        try:
            check_syntax(template.text)
        except TemplateError as exc:
            errors.append(syntax_error(file.display, f"invalid Jinja in {template.path}: {exc.message} (line {exc.line} of the template)", template.line, template.column))
            continue
        prompts.append(_json_strings_prompt([template], 0, Syntax.JINJA))
    return file.document(DocumentKind.JSON, prompts, errors)


def _chat_records(file: Input, kind: DocumentKind, records: list) -> Document:
    prompts, errors, unread = [], [], []
    for number, record in enumerate(records):
        if isinstance(record, chatjson.RecordTexts):
            unread.extend(f"record {number + 1}, {note}" if kind == DocumentKind.JSONL else note for note in record.unread)
        if isinstance(record, chatjson.NotChat) and record.message == chatjson.SHAPE_ERROR:
            continue  # valid JSON that is not a chat record (package.json, a config): not a prompt
        if isinstance(record, chatjson.NotChat):
            errors.append(syntax_error(file.display, f"valid {kind.upper()} but not a chat record: {record.message}", record.line, record.column))
        elif isinstance(record, chatjson.JsonSyntaxError):
            errors.append(syntax_error(file.display, f"invalid {kind.upper()}: {record.message}", record.line, record.column))
        elif record:
            prompts.append(_json_strings_prompt(record, number))
    return file.document(kind, prompts, errors, unread)


def _json_strings_prompt(chats: list[chatjson.ChatText], record: int, syntax: Syntax = Syntax.TEXT) -> Prompt:
    """A prompt made of JSON strings (a record's messages, a config's chat template): located
    through their escapes, and written back re-encoded (see ``ChatStrings.write_all``)."""
    texts = tuple(c.text for c in chats)
    separator = next((s for s in SEPARATORS if not any(s in t for t in texts)), None)
    if separator is None:
        # Every separator occurs in the texts: report, never edit.
        return Prompt(texts, ReadOnlyChats(tuple(chats)), record, syntax=syntax)
    return Prompt(texts, ChatStrings(tuple(chats), rewritable=syntax == Syntax.TEXT), record, syntax=syntax, separator=separator)
