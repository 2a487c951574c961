"""A notebook output that shows the messages a chat model is sent, the list whole as Python writes it
(`[HumanMessage(content='...'), AIMessage(...), ToolMessage(content='Published: ...')]`, or dicts with a role
and a content), is that request: read as its JSON body is, its findings placed at the output (blind82
farrelsp: a tool message with two dated PubMed records, "no prompt found"; drawn and scored before this change)."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL201", "PL402"]}, "test")
RECORD = ("Published: 2025-06-{day}\\nTitle: A randomized trial number {day} of a treatment for lung cancer\\n"
          "Copyright Information: (c) The Author(s) 2025. Published by a university press. All rights reserved. For commercial "
          "re-use, please contact the publisher for reprints and translation rights.\\nSummary::\\n" + "The trial enrolled patients and measured survival. " * 8)
TOOL = "\\n\\n".join(RECORD.format(day=day) for day in (11, 18))
LANGCHAIN = (f"[HumanMessage(content='What is medicine for lung cancer?', additional_kwargs={{}}, response_metadata={{}}),\n"
             f" AIMessage(content='', additional_kwargs={{}}, tool_calls=[{{'name': 'pubmed_search', 'args': {{'query': 'lung cancer'}}}}]),\n"
             f" ToolMessage(content='{TOOL}', name='pubmed_search', tool_call_id='fe8d')]")
DICTS = f"[{{'role': 'user', 'content': 'What is medicine for lung cancer?'}}, {{'role': 'tool', 'content': '{TOOL}'}}]"


def _notebook(code: str, output: str, kind: str = "execute_result") -> str:
    lines = [line + "\n" for line in output.split("\n")]
    lines[-1] = lines[-1][:-1]
    shown = {"output_type": "execute_result", "data": {"text/plain": lines}, "execution_count": 2, "metadata": {}}
    printed = {"output_type": "stream", "name": "stdout", "text": lines}
    cells = [{"cell_type": "code", "source": [code], "outputs": [shown if kind == "execute_result" else printed], "metadata": {}, "execution_count": 2}]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def _found(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_text(text, path="tools.ipynb", config=CONFIG)]


@pytest.mark.parametrize(("output", "kind", "code"), [
    (LANGCHAIN, "execute_result", "messages"),
    (DICTS, "stream", "print(messages)"),
])
def test_the_messages_an_output_shows_are_the_request_sent(output, kind, code):
    text = _notebook(code, output, kind)
    line = next(n for n, l in enumerate(text.split("\n"), 1) if "What is medicine" in l)
    assert _found(text) == [(line, "PL201"), (line, "PL402")]


@pytest.mark.parametrize("output", [
    # a list of retrieved documents, not of messages
    f"[Document(page_content='{TOOL}', metadata={{'source': 'pubmed'}})]",
    # no message of the user's: a program's own data
    f"[{{'role': 'tool', 'content': '{TOOL}'}}]",
    # the conversation's turns alone: a history kept, not a request made
    f"[HumanMessage(content='What is medicine for lung cancer?'), AIMessage(content='{TOOL}')]",
    # one item is no message
    f"[HumanMessage(content='What is medicine for lung cancer?'), ToolMessage(content='{TOOL}'), 'done']",
])
def test_an_output_that_is_no_list_of_messages_is_no_request(output):
    assert _found(_notebook("messages", output)) == []


SYSTEM = "Answer from the records below in English and cite each record you use as [n]."
RENDERED = f"[{{'role': 'system', 'content': '{SYSTEM}\\n\\nContext:\\n{TOOL}'}}, {{'role': 'user', 'content': 'What is medicine for lung cancer?'}}]"


@pytest.mark.parametrize("system", [
    f'f"{SYSTEM}\\n\\nContext:\\n{{context}}"',
    # the words between the slots of a line are the prompt's own, the value rendered in the slot is not
    'f"Answer from the records below in {language} and cite each record you use as [n].\\n\\nContext:\\n{context}"',
])
def test_a_printed_rendering_of_a_prompt_the_code_holds_is_read_once_in_the_code(system):
    code = f"system = {system}\nmessages = [{{'role': 'system', 'content': system}}, {{'role': 'user', 'content': query}}]\nmessages"
    assert _found(_notebook(code, RENDERED)) == []
    assert [code for _, code in _found(_notebook("messages", RENDERED))] == ["PL201", "PL402"]


# OpenAI's Python client at the debug level logs each request's options on one line, the body under `json_data`.
OPTIONS = ("2025-10-16 09:19:41,517 [DEBUG] openai._base_client: Request options: {'method': 'post', 'url': '/chat/completions', "
           "'headers': {'X-Stainless-Raw-Response': 'true'}, 'files': None, 'json_data': {'messages': [{'content': 'What is medicine "
           f"for lung cancer?', 'role': 'user'}}, {{'content': '{TOOL}', 'role': 'tool', 'tool_call_id': 'fe8d'}}], 'model': 'llama3.2', 'stream': False}}}}")


def test_a_request_the_client_logged_with_its_options_is_the_request_sent():
    text = _notebook("answer(query)", "connecting\n" + OPTIONS + "\ndone", kind="stream")
    line = next(n for n, l in enumerate(text.split("\n"), 1) if "Request options" in l)
    assert _found(text) == [(line, "PL201"), (line, "PL402")]
    # options with no body, or a body that sends no messages, are no request
    assert _found(_notebook("answer(query)", OPTIONS.replace("'json_data'", "'params'"), kind="stream")) == []
    assert _found(_notebook("answer(query)", OPTIONS.replace("'messages'", "'input_texts'"), kind="stream")) == []


@pytest.mark.parametrize("path", ["run.log", "debug.txt"])
def test_a_saved_log_holding_the_logged_request_is_that_request(path):
    log = "starting\n" + OPTIONS + "\nfinished\n"
    assert [(f.line, f.code) for f in lint_text(log, path=path, config=CONFIG)] == [(2, "PL201"), (2, "PL402")]


@pytest.mark.parametrize("output", [
    # the assistant's message that calls the tool has no text
    (f"[{{'role': 'user', 'content': 'What is medicine for lung cancer?'}}, {{'content': None, 'role': 'assistant', "
     f"'tool_calls': [{{'id': 'call_1', 'function': {{'name': 'pubmed_search'}}}}]}}, {{'role': 'tool', 'tool_call_id': 'call_1', 'content': '{TOOL}'}}]"),
    # OpenAI's Responses API: the tool's call and its output are items of their own
    (f"[{{'role': 'user', 'content': 'What is medicine for lung cancer?'}},\n ResponseFunctionToolCall(arguments='{{}}', call_id='call_1', "
     f"name='search', type='function_call'),\n {{'type': 'function_call_output', 'call_id': 'call_1', 'output': '{TOOL}'}}]"),
])
def test_a_tool_call_and_its_output_are_messages_of_the_request(output):
    assert [code for _, code in _found(_notebook("messages", output))] == ["PL201", "PL402"]


def test_a_request_with_a_tool_output_is_read_though_the_code_holds_its_user_message():
    """The tool's output is what no prompt of the code holds: the request is read, the code's message in it."""
    code = "question = 'Find the latest trials of a medicine for lung cancer and summarise them.'\nmessages = [{'role': 'user', 'content': question}]\nmessages"
    output = DICTS.replace("What is medicine for lung cancer?", "Find the latest trials of a medicine for lung cancer and summarise them.")
    assert [code for _, code in _found(_notebook(code, output))] == ["PL201", "PL402"]


def test_a_message_s_content_given_as_parts_is_their_text():
    """The Responses API prints the model's reply with its content as parts (`ResponseOutputMessage(content=
    [ResponseOutputText(text='...')], role='assistant')`): the list is still a request, read (blind87 Sanjomwa).
    The twin: a part with no text (an image) leaves the list unread, as any item with no text does."""
    reply = "ResponseOutputMessage(id='msg_1', content=[ResponseOutputText(annotations=[], text='Aspirin is no cancer medicine.', type='output_text')], role='assistant', type='message')"
    output = (f"[{{'role': 'user', 'content': 'What is medicine for lung cancer?'}},\n ResponseFunctionToolCall(arguments='{{}}', call_id='call_1', "
              f"name='search', type='function_call'),\n {{'type': 'function_call_output', 'call_id': 'call_1', 'output': '{TOOL}'}},\n {reply}]")
    assert [code for _, code in _found(_notebook("messages", output))] == ["PL201", "PL402"]
    imaged = output.replace("ResponseOutputText(annotations=[], text='Aspirin is no cancer medicine.', type='output_text')", "ResponseOutputImage(url='a.png')")
    assert _found(_notebook("messages", imaged)) == []
