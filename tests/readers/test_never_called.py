"""A module's private function that nothing runs (a leading underscore, no decorator, never named elsewhere in the
module) builds no prompt: what it writes is not reported. Its twins are read as before: the same helper called, or
decorated (a framework may call it), or public (another module may import it)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL203"]}, "test")

HELPER = '''
def NAME(chunks):
    parts = []
    for i, c in enumerate(chunks, start=1):
        parts.append(f"Chunk {i}: {c.text}")
    return "\\n\\n".join(parts)


def build_prompt(question, chunks):
    context = CALL
    return f"Answer from the context.\\n\\nCONTEXT:\\n{context}\\n\\nQuestion: {question}"
'''


def _codes(name: str, call: str, decorator: str = "") -> list[str]:
    code = HELPER.replace("def NAME", f"{decorator}def {name}").replace("CALL", call)
    return [f.code for f in lint_text(code, path="rag.py", config=CONFIG)]


def test_a_private_helper_nothing_calls_builds_no_prompt():
    assert _codes("_chunk_context", '"\\n".join(c.text for c in chunks)') == []


@pytest.mark.parametrize("name, call, decorator", [
    ("_chunk_context", "_chunk_context(chunks)", ""),
    ("_chunk_context", '"\\n".join(c.text for c in chunks)', "@cache\n"),
    ("chunk_context", '"\\n".join(c.text for c in chunks)', ""),
], ids=["called", "decorated", "public"])
def test_the_twins_that_may_run_are_read(name, call, decorator):
    assert _codes(name, call, decorator) == ["PL203"]
