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
