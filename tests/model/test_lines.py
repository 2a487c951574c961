"""The line services of the model: the line index of a text, a line's span, what removes a line."""

from __future__ import annotations

import pytest

from promptlint.model.lines import line_column, line_span, line_starts, remove_line, with_newline
from promptlint.model.prompt import Span

TEXT = "Answer.\n\nContext: {context}\nQuestion"


def test_the_line_and_column_of_an_offset():
    starts = line_starts(TEXT)
    assert starts == [0, 8, 9, 28]
    assert [line_column(starts, offset) for offset in (0, 7, 8, 9, 30, len(TEXT))] == [(1, 1), (1, 8), (2, 1), (3, 1), (4, 3), (4, 9)]


@pytest.mark.parametrize(("offset", "span"), [(3, Span(0, 7)), (7, Span(0, 7)), (8, Span(8, 8)), (12, Span(9, 27)), (30, Span(28, 36))])
def test_a_lines_span_is_without_its_newline(offset, span):
    assert line_span(TEXT, offset) == span


def test_removing_a_line_takes_its_newline_when_it_has_one():
    assert with_newline(TEXT, Span(9, 27)) == Span(9, 28)
    assert with_newline(TEXT, Span(28, 36)) == Span(28, 36)  # the last line has none


def test_removing_a_line_leaves_no_doubled_blank_line():
    text = "Answer.\n\nDate: today\n\nQuestion\n"
    assert remove_line(text, Span(9, 21)) == Span(9, 22)
    assert remove_line("Answer.\nDate: today\n\nQuestion\n", Span(8, 20)) == Span(8, 20)
    assert remove_line(text, Span(10, 21)) == Span(10, 21)  # not a whole line: as it is
