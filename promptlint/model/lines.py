"""Lines of a text: where each starts, the line and column of an offset, and a line's span.

One home for the line index every layer needs (a file's, a prompt's); positions stay
character offsets and become 1-based lines and columns only here.
"""

from __future__ import annotations

import bisect
import re


def line_starts(text: str) -> list[int]:
    """Where each line of ``text`` starts (a text without newlines has one line, at 0)."""
    return [0] + [m.end() for m in re.finditer("\n", text)]


def line_column(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of an offset, by bisection over the line starts."""
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1
