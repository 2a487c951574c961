"""Prompts a program's log printed as it sent them: where a run's output (a notebook cell's, a saved console
log) shows the text the model got, that text is the prompt, and the rest of the log is not.

Four ways of logging are read:

- LangChain's verbose chains print "Prompt after formatting:", then the prompt as it stands, in colour, up to the colour's
  reset (or the chain's end, "> Finished chain.");
- LangChain's debug trace and callbacks print the prompts of a model call as a list of string literals under the
  key `prompts` (`"prompts": ["System: ...\\nHuman: ..."]` as JSON, `prompts: ['...']` as Python writes a list):
  each literal, its escapes decoded, is a prompt;
- a program prints the messages it sends a chat model, the list whole as Python writes it
  (`[HumanMessage(content='...'), AIMessage(content='', ...), ToolMessage(content='Published: ...')]`, or dicts
  with a role and a content, which may be given as parts): the messages are one request, each with its role (see
  printed_requests);
- OpenAI's Python client, at the debug level, logs each request's options on one line (`Request options:
  {'method': 'post', 'url': '/chat/completions', ..., 'json_data': {'messages': [...], 'model': ...}}`): its
  `json_data` is the request's body.

Each prompt comes with the offset in the log of each of its characters and of its end, so that a finding
points at the line of the log that holds it; a request, with the offset where the log shows it. A prompt logged
again (a retry sends it as it was) is read once.
"""

from __future__ import annotations

import ast
import re

from .expressions import string_value

# LangChain's verbose log: the marker, then the colour the prompt is printed in, if any.
_FORMATTED_MARKER = "Prompt after formatting:"
_AFTER_FORMATTING = re.compile(r"Prompt after formatting:[ \t]*\n(?:\x1b\[[0-9;]*m)*")
_FORMATTED_END = re.compile(r"\x1b\[0m|\n> Finished chain")
# The list of prompts of a model call: its key, quoted or not, then the list's bracket.
_LIST_KEY = "prompts"
_PROMPTS = re.compile(r"""(?:"prompts"|'prompts'|\bprompts)[ \t]*[:=][ \t]*\[""")
# What separates the literals of a list.
_BETWEEN = re.compile(r"\s*,?\s*")
# A prompt as a model call sends it: a text of some length, over several lines (a list of short strings
# under that key is a program's own data, not a log of what it sent).
_PROMPT_CHARS = 200
# What an escape stands for, after its backslash; an escape not listed is kept as written, as Python keeps it.
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\", "/": "/"}
# The escapes written as a code point: how many hex digits follow each.
_CODE_POINTS = {"x": 2, "u": 4, "U": 8}


# A list of chat messages as Python prints it: its bracket, then a LangChain message object or a dict with a role.
_MESSAGE_LIST = re.compile(r"\s*\[\s*(?:[A-Z][A-Za-z]*Message\(|\{\s*'(?:role|content)'\s*:)")
# LangChain's message classes, by the role each sends; a ChatMessage names its own.
_MESSAGE_ROLES = {"SystemMessage": "system", "HumanMessage": "user", "AIMessage": "assistant", "ToolMessage": "tool", "FunctionMessage": "tool"}
# The items of OpenAI's Responses API that are no message: the model's call of a tool, and what the tool gave back.
_TOOL_CALL_TYPES = ("function_call", "ToolCall")
_TOOL_OUTPUT_TYPE = "function_call_output"
# OpenAI's Python client logging a request at the debug level: the options, a dict on the rest of the line.
_REQUEST_OPTIONS = re.compile(r"Request options: (\{.*)")
_MARKERS = ("Message(", "'role'", "Request options: ")


def printed_requests(log: str) -> list[tuple[int, dict]]:
    """The chat requests a log shows whole, each with the log offset where it is shown and its body as JSON holds
    it: the log a list of messages as Python prints it (see _listed_messages), and each request OpenAI's client
    logged with its options. Python's writing is parsed, never run."""
    if not any(marker in log for marker in _MARKERS):
        return []
    found = []
    if (messages := _listed_messages(log)) is not None:
        found.append((len(log) - len(log.lstrip()), {"messages": [{"role": role, "content": text} for role, text in messages]}))
    for options in _REQUEST_OPTIONS.finditer(log) if "Request options: " in log else ():
        body = _json_data(options[1])
        if isinstance(body, dict) and isinstance(body.get("messages"), list):
            found.append((options.start(), body))
    return found


def _listed_messages(log: str) -> list[tuple[str, str]] | None:
    """The messages of a chat request a log is, printed whole as Python writes a list of them, each (role, text);
    None when the log is anything else, one of the list's items is no message with a text, or the list holds no
    message of the user's, or none of the system's or a tool's (turns alone are a conversation kept, not a request
    made)."""
    if not _MESSAGE_LIST.match(log):
        return None
    listed = _parsed(log.strip())
    messages = [_message(item) for item in listed.elts] if isinstance(listed, ast.List) else [None]
    roles = {m[0] for m in messages if m is not None}
    if any(m is None for m in messages) or "user" not in roles or not roles & {"system", "tool"}:
        return None
    return messages


def _json_data(options: str) -> object:
    """The body in a request's options as OpenAI's client logs them (`{'method': 'post', ..., 'json_data': {...}}`);
    None when there is none or it is no literal (the options' other values may be objects Python writes otherwise)."""
    parsed = _parsed(options)
    if not isinstance(parsed, ast.Dict):
        return None
    data = next((v for k, v in zip(parsed.keys, parsed.values) if isinstance(k, ast.Constant) and k.value == "json_data"), None)
    try:
        return ast.literal_eval(data) if data is not None else None
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None


def _parsed(text: str) -> ast.expr | None:
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _message(item: ast.expr) -> tuple[str, str] | None:
    """A printed message's role and text: `HumanMessage(content='...')`, `ChatMessage(role='user', content=...)`,
    `{'role': 'user', 'content': '...'}`, a message with no text (`'content': None`, the model calling a tool) as
    an empty one; an item of OpenAI's Responses API, a call of a tool as the assistant's (`ResponseFunctionToolCall(...)`,
    `{'type': 'function_call', ...}`) and its output as the tool's (`{'type': 'function_call_output', 'output': '...'}`);
    None for anything else."""
    fields = _named_values(item)
    if fields is None or isinstance(item, ast.Call) and not isinstance(item.func, ast.Name):
        return None
    if isinstance(item, ast.Call):
        kind, text = item.func.id, fields.get("content", item.args[0] if item.args else None)
        role = _MESSAGE_ROLES.get(kind) or string_value(fields.get("role"))
    else:
        kind, text, role = string_value(fields.get("type")) or "", fields.get("content"), string_value(fields.get("role"))
        if kind == _TOOL_OUTPUT_TYPE:
            text, role = fields.get("output"), "tool"
    if role is None and kind.endswith(_TOOL_CALL_TYPES):
        return "assistant", ""
    text = _text(text)
    return (role, text) if role and text is not None else None


def _named_values(item: ast.expr) -> dict | None:
    """The values of a printed object by name: a call's keywords (`HumanMessage(content=...)`), a dict's keys; None
    for anything else."""
    if isinstance(item, ast.Call):
        return {k.arg: k.value for k in item.keywords}
    if isinstance(item, ast.Dict):
        return {k.value: v for k, v in zip(item.keys, item.values) if isinstance(k, ast.Constant)}
    return None


def _text(content: ast.expr | None) -> str | None:
    """A message's text: a string, none (`None`, the model calling a tool) as an empty one, or its parts' texts joined
    (the Responses API's `[ResponseOutputText(text='...')]`, `[{'type': 'input_text', 'text': '...'}]`); None when
    it is anything else, or a part has no text."""
    if isinstance(content, ast.Constant) and content.value is None:
        return ""
    if not isinstance(content, ast.List):
        return string_value(content)
    texts = [string_value(fields.get("text")) if (fields := _named_values(part)) is not None else None for part in content.elts]
    return None if None in texts else "\n".join(texts)


def may_show_prompts(log: str) -> bool:
    """Whether a log may show a prompt as sent: a cheap test of its markers, before the log is placed or read."""
    return _FORMATTED_MARKER in log or _LIST_KEY in log


def logged_prompts(log: str) -> list[tuple[str, tuple[int, ...]]]:
    """The prompts a log shows, in log order, each with the log offset of each of its characters and of its end."""
    found: dict[str, tuple[int, ...]] = {}
    for text, offsets in [*_formatted(log), *_listed(log)]:
        found.setdefault(text, offsets)
    return sorted(found.items(), key=lambda item: item[1][0])


def _formatted(log: str) -> list[tuple[str, tuple[int, ...]]]:
    """The prompts a verbose chain printed after "Prompt after formatting:"."""
    prompts = []
    if _FORMATTED_MARKER not in log:
        return prompts
    for marker in _AFTER_FORMATTING.finditer(log):
        start = marker.end()
        stop = _FORMATTED_END.search(log, start)
        end = len(log[: stop.start() if stop else len(log)].rstrip())
        if end > start:
            prompts.append((log[start:end], tuple(range(start, end + 1))))
    return prompts


def _listed(log: str) -> list[tuple[str, tuple[int, ...]]]:
    """The prompts of each list under the key `prompts` that holds a prompt as sent."""
    prompts = []
    if _LIST_KEY not in log:
        return prompts
    for key in _PROMPTS.finditer(log):
        at = _BETWEEN.match(log, key.end()).end()
        while at < len(log) and log[at] in "\"'":
            literal = _literal(log, at)
            if literal is None:
                break
            text, offsets, at = literal
            if len(text) >= _PROMPT_CHARS and "\n" in text:
                prompts.append((text, offsets))
            at = _BETWEEN.match(log, at).end()
    return prompts


def _literal(log: str, opening: int) -> tuple[str, tuple[int, ...], int] | None:
    """The string literal whose quote stands at ``opening``: its text with escapes decoded, the log offset of
    each of its characters and of its closing quote, and where it ends; None when it does not close on the line
    it opens (a log cut short)."""
    quote = log[opening]
    chars: list[str] = []
    offsets: list[int] = []
    at = opening + 1
    while at < len(log):
        char = log[at]
        if char == quote:
            return "".join(chars), (*offsets, at), at + 1
        if char == "\n":
            return None
        if char != "\\" or at + 1 >= len(log):
            chars.append(char)
            offsets.append(at)
            at += 1
            continue
        decoded, width = _escape(log, at)
        chars.append(decoded)
        offsets.extend(range(at, at + len(decoded)) if decoded == log[at : at + width] else [at] * len(decoded))
        at += width
    return None


def _escape(log: str, at: int) -> tuple[str, int]:
    """What the escape at ``at`` (its backslash) stands for, and how many characters it takes."""
    mark = log[at + 1]
    if mark in _ESCAPES:
        return _ESCAPES[mark], 2
    point = _code_point(log, at)
    if point is None:
        return log[at : at + 2], 2
    value, width = point
    if 0xD800 <= value < 0xDC00 and (low := _code_point(log, at + width)) is not None and 0xDC00 <= low[0] < 0xE000:
        # JSON writes a character beyond the first plane as two escapes, a surrogate pair.
        return chr(0x10000 + (value - 0xD800) * 0x400 + low[0] - 0xDC00), width + low[1]
    return (chr(value), width) if value <= 0x10FFFF and not 0xD800 <= value < 0xE000 else (log[at : at + width], width)


def _code_point(log: str, at: int) -> tuple[int, int] | None:
    """The code point an escape at ``at`` writes in hex (`\\u00e9`, `\\x41`) and its width; None for any other."""
    digits = _CODE_POINTS.get(log[at + 1 : at + 2]) if log.startswith("\\", at) else None
    code = log[at + 2 : at + 2 + digits] if digits else ""
    if not digits or len(code) != digits or any(c not in "0123456789abcdefABCDEF" for c in code):
        return None
    return int(code, 16), 2 + digits
