"""A value's number as the world writes it: a decimal point or a decimal comma, a percentage as a fraction, and
three digits after a comma after a whole number read as thousands."""

from __future__ import annotations

import pytest

from promptlint.meaning.values import number


@pytest.mark.parametrize(
    ("written", "read"),
    [("0.91", 0.91), ("0,91", 0.91), ("0,913", 0.913), ("-0,5", -0.5), ("12,5 %", 0.125), ("91%", 0.91), ("1,234", 1234.0), ("3.", 3.0), ("page 3", None)],
)
def test_a_number_is_read_as_written(written, read):
    assert number(written) == read
