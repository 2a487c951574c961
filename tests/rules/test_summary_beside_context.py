"""A template that answers a question from a context given as one slot, with a summary printed in the paragraph of that
slot: the summary is sent beside the text it was written from (blind69 mananmehtaxc: "Summary of the policy:{summary}"
over "Context from document:{context}", an expected PL104 missed). Reported once, at the summary's slot, with no fix.
Generated over the summary's name and label and the template syntax, with twins: a summary of the conversation, one in
another paragraph, and a prompt that asks nothing (a summarizer refining its running summary)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL104"]}, "test")
SUMMARIES = [("Summary of the policy:", "summary"), ("Document summary:", "doc_summary"), ("Overview:", "document_summary"), ("Summary:", "text_1")]
SYNTAX = {"t.txt": ("{", "}"), "t.j2": ("{{ ", " }}")}


def _template(label: str, name: str, path: str, between: str = "\n", question: bool = True) -> str:
    open_, close = SYNTAX[path]
    asked = f"\n\nAnswer the following question:\n{open_}question{close}\n" if question else "\n\nRefine the summary with the new context.\n"
    return f"Use ONLY the context below.\n\n---\n\n{label}{open_}{name}{close}{between}Context from document:{open_}context{close}{asked}"


def _found(text: str, path: str) -> list[tuple[int, str, bool]]:
    return [(f.line, f.code, f.fix is None) for f in lint_text(text, path=path, config=CONFIG)]


@pytest.mark.parametrize("path", list(SYNTAX))
@pytest.mark.parametrize(("label", "name"), SUMMARIES)
def test_a_summary_in_the_paragraph_of_the_context_slot(label, name, path):
    assert _found(_template(label, name, path), path) == [(5, "PL104", True)]


@pytest.mark.parametrize("path", list(SYNTAX))
@pytest.mark.parametrize("name", ["chat_summary", "conversation_summary", "history_summary"])
def test_a_summary_of_the_conversation_is_no_derived_text(name, path):
    assert _found(_template("Summary:", name, path), path) == []


@pytest.mark.parametrize("path", list(SYNTAX))
def test_a_summary_in_another_paragraph_or_with_no_question_is_not_reported(path):
    assert _found(_template("Summary:", "summary", path, between="\n\nRead the summary first.\n\n"), path) == []
    assert _found(_template("Summary:", "summary", path, question=False), path) == []
    # And a slot that holds no summary is nothing: the twin of the first test.
    assert _found(_template("Customer name:", "customer", path), path) == []
