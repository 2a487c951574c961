"""A source's field is named by the item's key, the better witness ("distance_m" is meters), unless the key is a
kind of what the printed label names that the lexicon does not know: `Relevance Score: {llm_score}` shows a
score the model reads as a relevance score, whatever the code calls it. A key that is no kind of it keeps its
own name (`Distance: {{ d.distance_m }}`), and so does a label that names another kind (`Credit score:`)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-06", "select": ["PL102"]}, "test")
JINJA = "Answer from the sources.\n{% for c in chunks %}\n[{{ loop.index }}] {{ c.title }}\nLABEL: {{ c.KEY }}\n{{ c.text }}\n{% endfor %}\nQuestion: {{ question }}\n"
PYTHON = '''def format_context(chunks):
    parts = []
    for i, c in enumerate(chunks, 1):
        parts.append(f"[{i}] {c['title']}")
        parts.append(f"LABEL: {c['KEY']}")
        parts.append(f"Content: {c['text']}")
    return "\\n".join(parts)
'''
CASES = [
    ("Relevance Score", "llm_score", True),
    ("Similarity", "judge_score", True),
    ("Relevance", "custom_score", True),
    ("Distance", "distance_m", False),
    ("Credit score", "credit_score", False),
    ("Score", "score", True),
]


@pytest.mark.parametrize(("path", "template"), [("t.j2", JINJA), ("context.py", PYTHON)])
@pytest.mark.parametrize(("label", "key", "reported"), CASES)
def test_a_label_names_a_key_of_a_kind_it_does_not_know(path, template, label, key, reported):
    text = template.replace("LABEL", label).replace("KEY", key)
    assert [f.code for f in lint_text(text, path=path, config=CONFIG)] == (["PL102"] if reported else [])
