"""Format-string templates read as text: slots ({question}, {score:.2f}) say what they hold."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")


def _found(text):
    return [(f.line, f.column, f.code) for f in lint_text(text, path="t.txt", config=CONFIG)]


@pytest.mark.parametrize(
    "text, expected",
    [
        # the same question slot twice: the earlier one is the extra copy
        ("User message just asked: {input}\nDocuments:\n{context}\nUser Query: {input}\n", [(1, 26, "PL101")]),
        # a rewritten question sent beside the original
        ("Answer from {context}.\nOriginal task: {task}\nRephrased task: {rephrased_task}\n", [(3, 17, "PL101")]),
        # a score slot in the source template
        ("PASSAGE {i} (RELEVANCE: {score:.2f}) [Source: {file_name}]:\n{doc}\n\nQUESTION: {question}\n", [(1, 25, "PL102")]),
        # a date slot rendered on every source
        ("DOCUMENT {ind}: {title}\nUpdated: {updated_at}\n{content}\n\nQuestion: {question}\n", [(2, 10, "PL201")]),
    ],
)
def test_slots(text, expected):
    assert _found(text) == expected


def test_current_date_slot_before_static_rules_breaks_the_cache():
    text = (
        "Today's date is {today_date}.\n"
        "You are a helpful assistant.\n- Answer in markdown.\n- Be concise.\n- Use only the context.\n\n"
        "{context}\n\nQuestion: {question}\n"
    )
    assert _found(text) == [(1, 17, "PL305")]


def test_slots_after_the_static_rules_are_fine():
    text = "You are a helpful assistant.\n- Answer in markdown.\n- Be concise.\n\nContext:\n{context}\n\nQuestion: {question}\n"
    assert _found(text) == []
