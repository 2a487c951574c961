"""A question the user's message states and a tool's output quotes again, in a chat of written-out
messages, is a repeated question (PL101), though no label names it. Generated over the questions,
the way the copy is quoted and the chat's form, with twins: the question once, and a sentence
repeated in the instructions alone."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

QUESTIONS = ["what's the relationship between Mistral Large 2 and Mistral AI?",
             "How long do customers have to return a damaged item?",
             "Which languages does the model support for code generation?"]
QUOTED = {"braces": "Original Query:\n{{ {q} }}", "quotes": 'The search was run for "{q}"', "label": "Query: {q}"}
DOCS = ("Retrieved Context:\nMistral Large 2 is designed for single-node inference with long-context applications in mind.\n"
        "Returns of damaged goods are accepted within 30 days of delivery, with the original receipt.")


def _chat(form: str, system: str, user: str) -> tuple[str, str]:
    if form == "text":
        return f"[system]\n{system}\n\n[user]\n{user}\n", "chat.txt"
    return json.dumps({"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}, indent=2), "chat.json"


SYSTEM = "You are a helpful assistant. Answer the Original Query based on the Retrieved Context."


@pytest.mark.parametrize("form", ["text", "json"])
@pytest.mark.parametrize("quoted", QUOTED)
@pytest.mark.parametrize("question", QUESTIONS)
def test_a_question_stated_then_quoted_again_is_repeated(form, quoted, question):
    user = f"The Original Query is {question}\nThe Retrieved Context is {QUOTED[quoted].format(q=question)}\n{DOCS}"
    text, path = _chat(form, SYSTEM, user)
    assert [f.code for f in lint_text(text, path=path, config=CONFIG)] == ["PL101"]
    # The twin: stated once, it is no repeat.
    once = f"The Original Query is {question}\n{DOCS}"
    assert [f.code for f in lint_text(_chat(form, SYSTEM, once)[0], path=path, config=CONFIG)] == []


@pytest.mark.parametrize("form", ["text", "json"])
def test_a_sentence_the_instructions_repeat_is_no_users_question(form):
    rule = "Is the answer fully supported by the retrieved context and nothing else?"
    system = f"{SYSTEM}\nBefore answering, ask yourself: {rule}\nAfter answering, ask again: {rule}"
    text, path = _chat(form, system, f"Tell me about returns.\n{DOCS}")
    assert "PL101" not in [f.code for f in lint_text(text, path=path, config=CONFIG)]


@pytest.mark.parametrize("form", ["text", "json"])
def test_a_long_line_with_no_question_mark_is_read_once(form):
    """A user message holding a page of text on one line, with no question mark (a scraped document):
    the words before each question mark are found by scanning, never by a pattern that tries every
    start of the line (such a pattern never finished on a real 40 KB message)."""
    page = " ".join(f"word{n} and more words" for n in range(8000))
    text, path = _chat(form, SYSTEM, f"{page}\n{DOCS}")
    assert lint_text(text, path=path, config=CONFIG) == []
    # Its twin asks the question twice around the page: the copy is still found.
    question = QUESTIONS[1]
    asked, path = _chat(form, SYSTEM, f"The Original Query is {question}\n{page}\nQuery: {question}\n{DOCS}")
    assert [f.code for f in lint_text(asked, path=path, config=CONFIG)] == ["PL101"]
