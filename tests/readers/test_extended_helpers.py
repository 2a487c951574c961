"""A loop that adds each item's text through a helper inside a list it extends with (`lines.extend(["",
_source_block(n, chunk)])`) builds one source per item, as `lines.append(_source_block(n, chunk))` does; and a
source's `valid_from` is its date (blind64b lemanhcuong6904). A list extended with lines that show an item's field through
a function defined elsewhere (`truncate_for_prompt(chunk.text, max_chars=800)`) reads that line as the field, one
line per item (blind68a AbhigyanShreshtha)."""

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


IMPORTED = '''from app.text import truncate_for_prompt


def build_user_prompt(question, chunks):
    lines = ["Use the context below to answer the question.", "", "[Context]"]
    for chunk in chunks:
        lines.extend(
            [
                f"{chunk.source_id} | file={chunk.filename} | HEADER",
                SHOWN,
                "",
            ]
        )
    lines.extend(["", "[Question]", question])
    return "\\n".join(lines).strip()
'''


@pytest.mark.parametrize("shown", ["truncate_for_prompt(chunk.text, max_chars=800)", "chunk.text", "str(chunk.text).strip()"])
@pytest.mark.parametrize("header, found", [("score={chunk.score:.3f}", [(9, "PL102")]), ("chunk_id={chunk.chunk_id}", [(9, "PL203")]), ("updated={chunk.updated_at}", [(9, "PL201")]), ("kind={chunk.kind}", [])])
def test_a_line_showing_an_items_field_through_any_function_is_that_field(shown, header, found):
    text = IMPORTED.replace("HEADER", header).replace("SHOWN", shown)
    assert [(f.line, f.code) for f in lint_text(text, path="context.py", config=CONFIG)] == found


@pytest.mark.parametrize("returned", [
    'return [(result["_distance"], result["text"], result["metadata"]) for result in results]',
    'return [(hit.payload, hit.score) for hit in results]',
])
def test_a_list_of_values_with_no_text_of_its_own_is_no_prompt(returned):
    """A vector store's search returning (score, text, metadata) tuples shows no text: nothing in it is written for a
    model (DocsGPT's lancedb and qdrant stores, read as sources by a first version)."""
    text = f"def search(self, query, k=2):\n    results = self.table.search(query).limit(k).to_list()\n    {returned}\n"
    assert lint_text(text, path="store.py", config=CONFIG) == []
