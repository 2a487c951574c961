"""Jupyter notebooks: the code cells read as one Python module, in cell order, as the kernel runs them.

A notebook is JSON, each line of a cell one string: the module is those strings joined, and each of
its characters is placed where the file writes it, so that a finding points at its own line. Nothing
in a notebook is edited: a fix would have to be written back through the JSON of every line it
touches. IPython's own syntax (`%pip install`, `!ls`, a `%%bash` cell, `pip install` run as a magic) is no Python: its lines are
read as comments. A cell that still does not parse alone is left out, and said so. The prompts the cells'
outputs show as they were sent (a chain's log of them, or a chat request's messages printed whole,
`[HumanMessage(...), ToolMessage(...)]`, read as that request's JSON body is and placed at the output) are read
where the code does not hold them already (see _with_printed).
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import replace

from ..model.lines import line_column, line_starts
from . import chatjson
from .document import Document, DocumentKind, Input, Prompt, syntax_error
from .logged import logged_prompts, may_show_prompts
from .sourcemap import Anchored, CharOffsets, Pieces, Verbatim

# A line of IPython's own syntax: a magic, a shell escape, help (`?obj`), or a magic IPython runs without its `%`
# (`pip install langchain`: automagic).
_IPYTHON_LINE = re.compile(r"^[ \t]*(?:[%!?]|(?:pip|conda|mamba) +(?:install|uninstall)\b)", re.M)


def read_notebook(file: Input) -> Document:
    try:
        cells = chatjson.notebook_cells(file.raw)
    except chatjson.JsonSyntaxError as error:
        return file.document(DocumentKind.JSON, errors=[syntax_error(file.display, f"invalid notebook JSON: {error.message}", error.line, error.column)])
    code = [cell.source for cell in cells or [] if cell.kind == "code" and cell.source]
    if not code:
        return file.document(DocumentKind.JSON)
    module, offsets, cell_spans = _module(file.raw, code)
    unread = []
    for number, (start, end) in enumerate(cell_spans):
        if not _parses(module[start:end]):
            module = module[:start] + _blank(module[start:end]) + module[end:]
            unread.append(f"not read: notebook code cell {number + 1} is not Python this reader parses")
    from .codefile import read_python

    document = read_python(Input(file.display, module, ".py", file.lexicon))
    if document.errors:
        return file.document(DocumentKind.JSON, unread=[*unread, "not read: its code cells do not parse as one module"])
    starts, file_starts = line_starts(module), line_starts(file.raw)
    prompts = [replace(prompt, source=_placed(prompt.source, offsets, starts, file_starts)) for prompt in document.prompts]
    return file.document(DocumentKind.JSON, _with_printed(prompts, _printed_prompts(file, cells)), unread=(*unread, *document.unread))


def _with_printed(code: list[Prompt], printed: list[Prompt]) -> list[Prompt]:
    """The code's prompts and the prompts the outputs show as sent, each prompt read once. The prompts a chain logged
    are read where the code holds none the reader finds (a framework's chain, or another file, builds them); a logged
    rendering of a prompt the code holds is that prompt, read in the code. A request that holds a tool's output holds
    what no prompt of the code can (the results a tool returned at run time): it is read, and the code's prompts it
    renders (its user's message, its system prompt) are read in it."""
    own = [_own_lines("\n".join(prompt.texts)) for prompt in code]
    kept, rendered = [], set()
    for prompt in printed:
        renders = {n for n, lines in enumerate(own) if any(line in text for text in prompt.texts for line in lines)}
        if not renders or any(chat.role == "tool" for chat in prompt.chats or ()):
            kept.append(prompt)
            rendered |= renders
    return [prompt for n, prompt in enumerate(code) if n not in rendered] + kept


def _printed_prompts(file: Input, cells: list[chatjson.NotebookCell]) -> list[Prompt]:
    """The prompts the cells' outputs show as they were sent: logged by a chain, or a request's messages."""
    return [prompt for cell in cells for output in cell.printed for prompt in (*_logged_prompts(file.raw, output), *_printed_requests(file, output))]


# The words past which a line of a prompt is its own text, not a label or a rule any prompt may write.
_OWN_WORDS = 3


# A slot of a prompt in code: what a rendering writes in its place is not the prompt's own.
_SLOT = re.compile(r"\{[^{}\n]*\}")


def _own_lines(text: str) -> set[str]:
    """The prompt's own text, line by line and between its slots: each piece of three words or more (what a
    rendering of it writes as is, a log perhaps after a role: "Human: ...", a value where the slot was)."""
    return {piece.strip() for line in text.split("\n") for piece in _SLOT.split(line) if len(piece.split()) >= _OWN_WORDS}


def _logged_prompts(raw: str, strings: tuple[chatjson.ChatText, ...]) -> list[Prompt]:
    """The prompts one printed output logs as they were sent (see logged), each placed in the file."""
    text = "".join(s.text for s in strings)
    if not may_show_prompts(text):
        return []
    offsets = [chatjson.raw_offset(s, raw, i) for s in strings for i in range(len(s.text))]
    offsets.append(chatjson.raw_offset(strings[-1], raw, len(strings[-1].text)))
    return [Prompt((prompt,), Pieces(tuple(offsets[at] for at in placed))) for prompt, placed in logged_prompts(text)]


def _printed_requests(file: Input, strings: tuple[chatjson.ChatText, ...]) -> list[Prompt]:
    """The requests an output shows whole, each placed where the output shows it (see jsonfile.shown_requests)."""
    from .jsonfile import shown_requests

    starts = functools.cache(lambda: line_starts(file.raw))  # an output that shows no request needs none

    def place(offset: int) -> tuple[int, int]:
        string, inner = _string_at(strings, offset)
        return line_column(starts(), chatjson.raw_offset(string, file.raw, inner))

    return shown_requests(file, "".join(s.text for s in strings), place)


def _string_at(strings: tuple[chatjson.ChatText, ...], offset: int) -> tuple[chatjson.ChatText, int]:
    """The output's string that holds an offset of the output's text, and the offset in it."""
    for string in strings:
        if offset < len(string.text):
            return string, offset
        offset -= len(string.text)
    return strings[-1], len(strings[-1].text)


def _module(raw: str, cells: list[tuple[chatjson.ChatText, ...]]) -> tuple[str, list[int], list[tuple[int, int]]]:
    """The code cells joined into one module, the file offset of each of its characters (and of its end),
    and each cell's span in it. IPython lines are made comments, character for character."""
    parts: list[str] = []
    offsets: list[int] = []
    spans = []
    at = 0
    for strings in cells:
        start = at
        for string in strings:
            text = string.text
            offsets.extend(chatjson.raw_offset(string, raw, i) for i in range(len(text)))
            parts.append(text)
            at += len(text)
        if not parts[-1].endswith("\n"):
            # The line break between two cells stands at the end of the last string.
            offsets.append(chatjson.raw_offset(strings[-1], raw, len(strings[-1].text)))
            parts.append("\n")
            at += 1
        spans.append((start, at))
    offsets.append(offsets[-1] if offsets else 0)
    module = "".join(parts)
    if _IPYTHON_LINE.search(module):
        module = _commented(module, spans)
    return module, offsets, spans


def _commented(module: str, spans: list[tuple[int, int]]) -> str:
    """The module with each IPython line written as a comment of the same length; a cell magic
    (`%%bash`) makes its whole cell one."""
    lines = []
    for start, end in spans:
        cell = module[start:end]
        if cell.lstrip().startswith("%%"):
            lines.append(_blank(cell))
            continue
        lines.append("".join("#" + line[1:] if _IPYTHON_LINE.match(line) else line for line in cell.splitlines(keepends=True)))
    return "".join(lines)


def _blank(cell: str) -> str:
    """A cell written as comments of the same length, line for line."""
    return "".join(("#" + line[1:]) if line.strip() else line for line in cell.splitlines(keepends=True))


def _parses(cell: str) -> bool:
    try:
        ast.parse(cell)
    except (SyntaxError, ValueError):
        return False
    return True


def _placed(source: Verbatim | CharOffsets | Anchored, offsets: list[int], starts: list[int], file_starts: list[int]) -> Pieces | Anchored:
    """A source map of the module (one the Python reader gives, see codefile._code_source) made one of the
    notebook file; never editable (see the module's doc)."""
    if isinstance(source, Verbatim):
        return Pieces(tuple(offsets[source.begin : source.end + 1]))
    if isinstance(source, CharOffsets):
        return Pieces(tuple(offsets[offset] for offset in source.offsets))
    at = offsets[min(starts[source.line - 1] + source.column - 1, len(offsets) - 1)]
    return Anchored(*line_column(file_starts, at))
