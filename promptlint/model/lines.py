"""Lines of a text: where each starts, the line and column of an offset, a line's span, and what removes a line.

One home for the line index every layer needs (a file's, a prompt's); positions stay
character offsets and become 1-based lines and columns only here.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from .prompt import Span


def line_starts(text: str) -> list[int]:
    """Where each line of ``text`` starts (a text without newlines has one line, at 0)."""
    return [0] + [m.end() for m in re.finditer("\n", text)]


class LinePattern:
    """A pattern tried only where a line starts, as one opened by "^" under re.MULTILINE, for a pattern that
    matches within one line. The regular-expression engine tries a pattern opened by "^" at every character of a
    text; opened by a newline, it jumps from one newline to the next (five to eight times as fast on the bench
    corpus). A match that ran over a line would hide the next line's: hence within one line."""

    def __init__(self, pattern: str):
        self._first = re.compile(pattern, re.MULTILINE)
        self._after_newline = re.compile(f"\n(?:{pattern})", re.MULTILINE)

    def finditer(self, text: str) -> Iterator[tuple[int, re.Match[str]]]:
        """The matches in ``text``, in order, each with where its line starts (but on the first line, a match
        holds the newline before its line)."""
        if (first := self._first.match(text)) is not None:
            yield 0, first
        for match in self._after_newline.finditer(text):
            yield match.start() + 1, match


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
