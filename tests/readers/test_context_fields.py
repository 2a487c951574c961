"""A code string is a prompt by a slot that prints the retrieved context; a slot that reads a field of an object
named for the context prints that field, not the context (`{evaluation_results['pass_rate']}` is a rate, in a
Markdown report's line), unless the field is the context's text or the context itself."""

from __future__ import annotations

import pytest

from promptlint.readers.document import parse_text
from promptlint.readers.segment import is_prompt_text, words

VOCAB = words()


@pytest.mark.parametrize("slot", ["{evaluation_results['pass_rate']}", "{results.count}", "{docs[0]['title']}"])
def test_a_field_of_the_context_is_no_context(slot):
    assert not is_prompt_text(f"**Overall pass rate:** {slot} over the test set", VOCAB)


@pytest.mark.parametrize("slot", ["{evaluation_results}", "{docs[0]}", "{doc.page_content}", "{docs[0]['content']}"])
def test_the_twin_that_prints_the_context_or_its_text_is_a_prompt(slot):
    assert is_prompt_text(f"Answer from these: {slot} over the test set", VOCAB)


REPORT = """class ReportGenerator:
    def markdown(self, evaluation_results, path):
        lines = [
            "# RAG Evaluation Report",
            f"**Implementation:** {evaluation_results['rag_implementation']}",
            f"**Overall Pass Rate:** {SLOT}%",
        ]
        path.write_text("\\n".join(lines))
"""


def test_a_report_line_reading_a_field_of_results_is_no_prompt():
    assert parse_text(REPORT.replace("SLOT", "evaluation_results['pass_rate']"), "report.py", ".py").prompts == ()


def test_the_twin_printing_the_results_whole_is_one():
    assert len(parse_text(REPORT.replace("SLOT", "evaluation_results"), "report.py", ".py").prompts) == 1
