"""Lines of a text: where each starts, the line and column of an offset, a line's span, and what removes a line.

One home for the line index every layer needs (a file's, a prompt's); positions stay
character offsets and become 1-based lines and columns only here.
"""

from __future__ import annotations

import bisect
import re

from .prompt import Span


def line_starts(text: str) -> list[int]:
    """Where each line of ``text`` starts (a text without newlines has one line, at 0)."""
    return [0] + [m.end() for m in re.finditer("\n", text)]


def line_column(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of an offset, by bisection over the line starts."""
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def line_span(text: str, offset: int) -> Span:
    """The line that holds ``offset``, without its newline."""
    end = text.find("\n", offset)
    return Span(text.rfind("\n", 0, offset) + 1, len(text) if end < 0 else end)


def with_newline(text: str, line: Span) -> Span:
    """A line (``line.end`` before its newline) with its newline: what removing the line removes."""
    return Span(line.start, line.end + 1 if line.end < len(text) and text[line.end] == "\n" else line.end)


def remove_line(text: str, span: Span) -> Span:
    """A whole-line span, widened so that removing it leaves no doubled blank line."""
    if not (span.start == 0 or text[span.start - 1] == "\n") or not text[span.start : span.end].endswith("\n"):
        return span
    blank_before = span.start == 0 or text[max(0, span.start - 2) : span.start] == "\n\n"
    if blank_before and text[span.end : span.end + 1] == "\n":
        return Span(span.start, span.end + 1)
    return span
