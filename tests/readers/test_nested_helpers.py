"""A helper defined inside the method that joins the sources (`def _fmt_chunk(i, chunk)` then
`"\\n\\n".join(_fmt_chunk(i, c) for i, c in enumerate(chunks))`) is read as a helper at the module's top is:
its text is each source's (blind64c PaultheAICoder)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-06"}, "test")
MODULE = '''class QueryService:
    def answer(self, query, context_chunks):
        def _fmt_chunk(i, chunk):
            name = chunk.get("document_name", f"Source {i + 1}")
            FIELD
            text = chunk.get("text", "")
            return f"[Document: {name}]WRITTEN\\n---\\n{text}\\n---"

        context_text = "\\n\\n".join(_fmt_chunk(i, chunk) for i, chunk in enumerate(context_chunks))
        return self.llm.invoke(f"Answer only from the context.\\n\\n{context_text}\\n\\nQuestion: {query}")
'''


@pytest.mark.parametrize("field, written, found", [
    ('part = chunk.get("chunk_index", i)', "[Chunk: {part}]", "PL203"),
    ('score = chunk.get("score", 0.0)', "[Score: {score:.2f}]", "PL102"),
])
def test_a_helper_nested_in_a_method_renders_each_source(field, written, found):
    text = MODULE.replace("FIELD", field).replace("WRITTEN", written)
    assert [(f.line, f.code) for f in lint_text(text, path="service.py", config=CONFIG)] == [(7, found)]
    # The twin: the helper shows only the document's name and its text.
    assert lint_text(MODULE.replace("FIELD", "pass").replace("WRITTEN", ""), path="service.py", config=CONFIG) == []
