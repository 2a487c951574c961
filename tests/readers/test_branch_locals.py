"""A loop body that sets a local in each branch of an `if`, then adds it: the branch that shows the most fields
is what a source may hold, wherever it stands; a local set to another local is that local's text."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

RICH = "header = f\"[{i}] {doc.metadata['title']} (relevance: {doc.metadata['score']:.2f})\""
POOR = 'header = f"[{i}]"'
BRANCHES = {
    "rich in the if": (RICH, POOR),
    "rich in the else": (POOR, RICH),
}


def _body(first: str, second: str, added: str = 'parts.append(f"{header}\\n{doc.page_content}")') -> str:
    return (
        "def build_context(docs):\n    parts = []\n    for i, doc in enumerate(docs, 1):\n"
        f"        if doc.metadata.get('title'):\n            {first}\n        else:\n            {second}\n"
        f"        {added}\n    return \"\\n\\n\".join(parts)\n"
    )


@pytest.mark.parametrize("form", sorted(BRANCHES))
def test_the_branch_that_shows_the_most_fields_is_read(form):
    source = _body(*BRANCHES[form])
    assert [(f.line, f.code) for f in lint_text(source, path="build.py", config=CONFIG)] == [(8, "PL102")]


def test_a_local_set_again_after_the_if_is_read_as_set_last():
    """The twin: set in sequence, not in two branches, the later text is the one added, however poor."""
    source = (
        "def build_context(docs):\n    parts = []\n    for i, doc in enumerate(docs, 1):\n"
        f"        {RICH}\n        {POOR}\n        parts.append(f\"{{header}}\\n{{doc.page_content}}\")\n    return \"\\n\\n\".join(parts)\n"
    )
    assert [f.code for f in lint_text(source, path="build.py", config=CONFIG)] == ["PL205"]


def test_a_local_set_to_another_holds_its_text():
    """`line = block`, then `parts.append(line)`: the block's fields are the source's."""
    rich, poor = (text.replace("header", "block")[:-1] + '\\n{doc.page_content}"' for text in (RICH, POOR))
    source = _body(rich, poor, "line = block\n        parts.append(line)")
    assert [(f.line, f.code) for f in lint_text(source, path="build.py", config=CONFIG)] == [(5, "PL102")]


NESTED = '''def build_rag_context(result):
    context_parts = []
    for r in result["results"]:
        text = r.get("text_preview", "")
        chunk_text = ""
        for other in result["results"]:
            if other["chunk_id"] == r["chunk_id"]:
                chunk_text = SET
                break
        context_parts.append(f"[RAG] (published: {r['published_at']}) {chunk_text}")
    return "\\n\\n".join(context_parts)
'''


@pytest.mark.parametrize("value, found", [("text", [(10, "PL201")]), ('r["text"]', [(10, "PL201")]), ("other['summary']", [])])
def test_a_local_set_from_the_item_inside_a_nested_loop_holds_its_field(value, found):
    """`chunk_text = text` under an `if ...: break` of a loop nested in the body is the item's text, and the item's
    fields around it make a source (blind68g ismael-mello); set from the other loop's item, it is no field of this one."""
    source = NESTED.replace("SET", value)
    assert [(f.line, f.code) for f in lint_text(source, path="build.py", config=CONFIG) if f.code != "PL205"] == found
