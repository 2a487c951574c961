"""A system message whose text code adds up with `+` (`"...Context:\\n" + context + "\\n\\nQuestion:\\n" + question`)
shows its values as an f-string does: when a later message sends one of them again, the request holds it twice
(blind82 marslanalvi: the question in the system text and again as the user's message; drawn and scored before
this change)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL101"]}, "test")
SUMMED = '"Use the pieces of retrieved context to answer.\\n\\nContext:\\n" + context + "\\n\\nQuestion:\\n" + question'


def _found(system: str, user: str = "question", bound: bool = True) -> list[tuple[int, str]]:
    content = "prompt" if bound else f"({system})"
    code = (
        "def answer(client, question, chunks):\n"
        "    context = '\\n\\n'.join(chunks)\n"
        + (f"    prompt = ({system})\n" if bound else "")
        + "    return client.chat.completions.create(model='m', messages=[\n"
        f"        {{'role': 'system', 'content': {content}}},\n"
        f"        {{'role': 'user', 'content': {user}}},\n"
        "    ])\n"
    )
    return [(f.line, f.code) for f in lint_text(code, path="chat.py", config=CONFIG)]


@pytest.mark.parametrize("bound", [True, False])
def test_a_summed_system_text_and_the_question_sent_again_repeat_it(bound):
    assert [code for _, code in _found(SUMMED, bound=bound)] == ["PL101"]


@pytest.mark.parametrize(("system", "user"), [
    # the system text shows the context only: the question is sent once
    ('"Use the pieces of retrieved context to answer.\\n\\nContext:\\n" + context', "question"),
    # the user's message sends something the system text does not show
    (SUMMED, "follow_up"),
])
def test_the_twins_that_send_it_once_do_not(system, user):
    assert _found(system, user) == []
