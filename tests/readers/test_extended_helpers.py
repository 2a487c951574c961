"""A loop that adds each item's text through a helper inside a list it extends with (`lines.extend(["",
_source_block(n, chunk)])`) builds one source per item, as `lines.append(_source_block(n, chunk))` does; and a
source's `valid_from` is its date (blind64b lemanhcuong6904)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-06"}, "test")
MODULE = '''def _source_block(index, chunk):
    return "\\n".join(
        [
            f"[SOURCE {index}]",
            f"title: {chunk.title or ''}",
            f"FIELD: {chunk.FIELD or ''}",
            "content:",
            chunk.text,
        ]
    )


def build_context(chunks):
    blocks = []
    for i, chunk in enumerate(chunks, 1):
        ADD
    return "\\n\\n".join(blocks)
'''


@pytest.mark.parametrize("add", ['blocks.append(_source_block(i, chunk))', 'blocks.extend(["", _source_block(i, chunk)])'])
@pytest.mark.parametrize("field, found", [("score", "PL102"), ("valid_from", "PL201"), ("effective_until", "PL201")])
def test_a_helpers_text_added_per_item_is_a_source(add, field, found):
    text = MODULE.replace("ADD", add).replace("FIELD", field)
    assert [(f.line, f.code) for f in lint_text(text, path="context.py", config=CONFIG)] == [(4, found)]


def test_a_field_named_for_where_a_value_came_from_is_no_date():
    text = MODULE.replace("ADD", 'blocks.extend(["", _source_block(i, chunk)])').replace("FIELD", "copied_from")
    assert lint_text(text, path="context.py", config=CONFIG) == []
