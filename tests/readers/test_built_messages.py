"""A chat request whose messages a function builds by statements (`messages = [system]`, `messages.extend(...)`,
`messages.append(...)`) is read as the list it ends with. A history the question was appended to holds the
question, so a last message that shows it again repeats it (blind72g koffandaff's chat page; drawn and scored
before this change). Branches that each append their own message are alternatives, never one request."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL101"]}, "test")
SYSTEM = '{"role": "system", "content": "You answer from the documents. Cite each claim as [n]."}'
ASK = '{"role": "user", "content": f"Context:\\n{context}\\n\\nQuestion: {question}"}'


def _found(body: str) -> list[tuple[int, str]]:
    code = f"def answer(question, docs, client, history):\n    context = '\\n\\n'.join(d.text for d in docs)\n{body}    return client.chat.completions.create(model='m', messages=messages)\n"
    return [(f.line, f.code) for f in lint_text(code, path="chat.py", config=CONFIG)]


@pytest.mark.parametrize("body", [
    # the question appended to the history, the history sent, the question shown again
    f'    history.append({{"role": "user", "content": question}})\n    messages = [{SYSTEM}]\n    messages.extend(history[-4:])\n    messages.append({ASK})\n',
    f'    log = []\n    log.append({{"role": "user", "content": question}})\n    messages = [{SYSTEM}]\n    messages += log\n    messages.append({ASK})\n',
    # the question as its own message, and again in the last
    f'    messages = [{SYSTEM}]\n    messages.append({{"role": "user", "content": question}})\n    if docs:\n        messages.append({ASK})\n',
])
def test_a_built_list_that_sends_the_question_twice_repeats_it(body):
    assert [code for _, code in _found(body)] == ["PL101"]


@pytest.mark.parametrize("body", [
    # the history appended to after the request is built: its copy of the question comes later
    f'    messages = [{SYSTEM}]\n    messages.extend(history[-4:])\n    messages.append({ASK})\n    history.append({{"role": "user", "content": question}})\n',
    # alternatives: the question in the template, or alone
    f'    messages = [{SYSTEM}]\n    if docs:\n        messages.append({ASK})\n    else:\n        messages.append({{"role": "user", "content": question}})\n',
    # the history keeps its first turns only: the question appended last is not among them
    f'    log = [{{"role": "user", "content": "Hi"}}, {{"role": "assistant", "content": "Hello"}}]\n    log.append({{"role": "user", "content": question}})\n    messages = [{SYSTEM}]\n    messages.extend(log[:2])\n    messages.append({ASK})\n',
])
def test_the_twins_that_send_it_once_do_not(body):
    assert _found(body) == []
