"""A question quoted after a label that says who asks, opening a sentence inside a line ("You are a tutor. A student
asked: "where is href taught?""), is the user's question, as it is when the label opens the line; a label that
says something else, or the same words with nothing quoted after them, is the prompt's own sentence."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-07", "select": ["PL305"]}, "test")
RULES = (
    "Write a short and friendly explanation of three to five sentences that covers what these notes say about it.\n"
    "Refer to the notes as the first note, the second note and so on, and never mention their page numbers or dates.\n"
)


@pytest.mark.parametrize("opening", ['A student asked: "where is the href attribute taught?"', "The customer asked: \u201cCan I return a kettle?\u201d"])
def test_a_quoted_question_after_who_asks_is_the_question(opening):
    first = "You are a friendly assistant. "
    findings = lint_text(f"{first}{opening}\n\n{RULES}", path="p.txt", config=CONFIG)
    # At the question's first word, inside its quotes.
    assert [(f.code, f.line, f.column) for f in findings] == [("PL305", 1, len(first) + opening.index(":") + 4)]


@pytest.mark.parametrize("opening", ['The manual says: "Kettles can be returned."', "A student asked about the href attribute last week."])
def test_a_sentence_that_quotes_no_question_is_the_prompts_own(opening):
    assert lint_text(f"You are a friendly assistant. {opening}\n\n{RULES}", path="p.txt", config=CONFIG) == []
