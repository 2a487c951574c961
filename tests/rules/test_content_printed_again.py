"""A field that prints the source's own text again is content, never metadata: code that writes
the last item apart (`if i < n - 1: ... else: ...`) prints the chunk in both branches. Generated
over keys that also name metadata concepts, with a twin where the field is a real ordinal."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

CODE = '''def build(query, retrieved_chunks):
    context_info = ""
    for enum, chunk in enumerate(retrieved_chunks):
        if enum < len(retrieved_chunks) - 1:
            context_info += f"Document {{enum + 1}}:\\n{{chunk['{key}']}}\\nReference: {{chunk['path']}}\\n\\n"
        else:
            context_info += f"Document {{enum + 1}}:\\n{{chunk['{key}']}}\\nReference: {{chunk['path']}}\\n"
    return f"Answer from the context.\\n---\\n{{context_info}}---\\nQuery: {{query}}\\nAnswer:"
'''


def _codes(key, extra=""):
    text = CODE.format(key=key)
    if extra:
        text = text.replace("\\nReference:", f"\\n{extra}\\nReference:")
    return sorted({f.code for f in lint_text(text, path="build.py", config=CONFIG)} - {"PL205"})


@pytest.mark.parametrize("key", ["chunk", "passage", "text", "content"])
def test_the_chunk_printed_in_both_branches_is_content(key):
    assert _codes(key) == []


@pytest.mark.parametrize("key", ["chunk", "passage", "text"])
def test_a_real_ordinal_beside_it_is_still_reported(key):
    assert _codes(key, extra="Chunk ID: {chunk['chunk_id']}") == ["PL203"]
