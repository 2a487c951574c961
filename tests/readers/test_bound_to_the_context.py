"""A loop whose text is bound to a name that says it is the context (`context = "\\n".join(...)`, or a function
`context(...)` that returns the join, which a prompt prints) goes through the retrieved context whatever the
collection it iterates is called: `zip(texts, scores)`, `rows`, `items`. Before, only a collection named as the
context (`docs`, `passages`) was read so. The twin: the same loop bound to a name that says nothing of the
context, and printed by no prompt, is no source."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-07", "select": ["PL102"]}, "test")

RETURNED = '''def FUNCTION(COLLECTION, scores):
    final = [f"Context: {c} (Score: {score})" for c, score in zip(COLLECTION, scores)]
    return "\\n".join(final)


def prompt(question, COLLECTION, scores):
    return f"Answer from the context.\\n{FUNCTION(COLLECTION, scores)}\\nQuestion: {question}"
'''
ASSIGNED = '''def prompt(question, COLLECTION, scores):
    NAME = "\\n".join(f"Text: {t} (similarity {s:.2f})" for t, s in zip(COLLECTION, scores))
    return f"Answer from the passages below.\\n{NAME}\\nQuestion: {question}"
'''


@pytest.mark.parametrize("collection", ["texts", "rows", "items", "values"])
@pytest.mark.parametrize("function", ["context", "get_context", "build_context"])
def test_a_function_that_returns_the_context_goes_through_it(collection, function):
    text = RETURNED.replace("FUNCTION", function).replace("COLLECTION", collection)
    assert [(f.code, f.line) for f in lint_text(text, path="rag.py", config=CONFIG)] == [("PL102", 2)]


@pytest.mark.parametrize("collection", ["texts", "rows", "items"])
def test_a_name_that_says_context_goes_through_it(collection):
    text = ASSIGNED.replace("NAME", "context_text").replace("COLLECTION", collection)
    assert [(f.code, f.line) for f in lint_text(text, path="rag.py", config=CONFIG)] == [("PL102", 2)]


@pytest.mark.parametrize("collection", ["texts", "rows", "items"])
def test_the_twin_a_report_line_is_no_source(collection):
    text = RETURNED.replace("FUNCTION", "table_lines").replace("COLLECTION", collection)
    text = text.replace('return f"Answer from the context.\\n{table_lines(COLLECTION, scores)}\\nQuestion: {question}"'.replace("COLLECTION", collection),
                        f"print(table_lines({collection}, scores))")
    assert "print(table_lines" in text
    assert lint_text(text, path="report.py", config=CONFIG) == []
