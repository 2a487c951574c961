"""Prompts a run's log shows as sent (see promptlint/readers/logged.py): LangChain's debug trace and callbacks
print the prompts of a model call as string literals under `prompts`, in a notebook's output or a saved log;
each literal, decoded, is the prompt, placed at the log's line, and the rest of the log is not read. Each with a
twin: the same text under another key, or a list of short strings, is no prompt sent."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.document import parse_text
from promptlint.readers.logged import logged_prompts

CONFIG = build({"today": "2026-12-02"}, "test")

PROMPT = ("System: Answer from the sources only. If they do not hold the answer, say so.\n"
          "[1] Refund policy (score: 0.91)\nRefunds are paid within 14 days of the return, to the card used.\n\n"
          "[2] Shipping guide (score: 0.62)\nParcels ship within two working days of the order.\n"
          "Human: How long do refunds take?")


def _debug_trace(prompt: str, key: str = "prompts") -> str:
    """LangChain's debug trace of a chain: JSON under each run's line, the model call's prompts a list."""
    return ("[chain/start] [1:chain:RetrievalQA] Entering Chain run with input:\n"
            + json.dumps({"query": "How long do refunds take?"}, indent=2) + "\n"
            + "[llm/start] [1:chain:RetrievalQA > 5:llm:ChatOpenAI] Entering LLM run with input:\n"
            + json.dumps({key: [prompt]}, indent=2) + "\n"
            + "[llm/end] [1:chain:RetrievalQA > 5:llm:ChatOpenAI] [1.2s] Exiting LLM run with output:\n"
            + json.dumps({"generations": [[{"text": "Within 14 days."}]]}, indent=2) + "\n")


def _callback(prompt: str) -> str:
    """A callback that prints what the model is called with, as Python writes a dict and a list."""
    return f"on_llm_start {{'name': 'ChatOpenAI'}}, prompts: {[prompt]!r}\nDone.\n"


def _verbose(prompt: str) -> str:
    """A verbose chain's log: the prompt as it stands under its marker, in colour."""
    return f"> Entering new StuffDocumentsChain chain...\nPrompt after formatting:\n\x1b[32;1m{prompt}\x1b[0m\n\n> Finished chain.\n"


LOGS = {"debug trace": _debug_trace, "callback": _callback, "verbose": _verbose}


def _notebook(output: str, code: str = "chain.invoke(query)\n") -> str:
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": output.splitlines(keepends=True)}],
            "source": code.splitlines(keepends=True)}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def _scores(text: str, path: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in lint_text(text, path=path, config=CONFIG) if f.code == "PL102"]


def _line_of(text: str, fragment: str) -> int:
    return next(number for number, line in enumerate(text.split("\n"), 1) if fragment in line)


@pytest.mark.parametrize("log", sorted(LOGS))
def test_the_prompts_a_log_shows_as_sent_are_read_in_a_saved_log(log):
    text = LOGS[log](PROMPT)
    assert _scores(text, "run.txt") == [("PL102", _line_of(text, "score: 0.91")), ("PL102", _line_of(text, "score: 0.62"))]
    assert fix_text(text, path="run.txt", config=CONFIG) == text  # a log is reported, never edited


@pytest.mark.parametrize("log", sorted(LOGS))
def test_the_prompts_a_log_shows_as_sent_are_read_in_a_notebooks_output(log):
    notebook = _notebook(LOGS[log](PROMPT))
    assert _scores(notebook, "run.ipynb") == [("PL102", _line_of(notebook, "score: 0.91")), ("PL102", _line_of(notebook, "score: 0.62"))]


def test_the_twin_under_another_key_is_output_not_a_prompt():
    notebook = _notebook(_debug_trace(PROMPT, key="outputs"))
    assert _scores(notebook, "run.ipynb") == []


def test_a_list_of_short_strings_under_the_key_is_a_programs_data():
    assert logged_prompts('prompts = ["Summarise the notes.", "Translate the notes."]\n') == []


def test_escapes_are_decoded_and_each_character_placed_where_the_log_writes_it():
    log = 'prompts: ["Caf\\u00e9 \\ud83d\\ude00\\n' + "x" * 200 + '\\tend"]'
    [(text, offsets)] = logged_prompts(log)
    assert text == "Caf\u00e9 \U0001F600\n" + "x" * 200 + "\tend"
    assert [log[offsets[i]] for i in (0, 3, 5, 6)] == ["C", "\\", "\\", "\\"]
    assert log[offsets[-1]] == '"'  # the end of the text is the closing quote


def test_a_prompt_the_code_holds_is_read_there_and_a_log_of_another_is_read_too():
    """A chain that condenses the question (its template in the code) and then answers from sources (built by a
    framework): the log's rendering of the code's template is that template, read once; the other is read."""
    code = 'CONDENSE_PROMPT = """Given the conversation and a follow up question, write a standalone question.\n\n{question}"""\n'
    condense = "Human: Given the conversation and a follow up question, write a standalone question.\n\n" + "Where is my parcel? " * 10
    notebook = _notebook(_debug_trace(condense) + _debug_trace(PROMPT), code=code)
    assert len(_scores(notebook, "run.ipynb")) == 2
    prompts = parse_text(notebook, "run.ipynb", ".ipynb").prompts
    assert [p.texts[0][:9] for p in prompts] == ["Given the", "System: A"]
    # The twin with no template in the code: both logged prompts are read.
    assert [p.texts[0][:9] for p in parse_text(_notebook(_debug_trace(condense) + _debug_trace(PROMPT)), "run.ipynb", ".ipynb").prompts] == [
        "Human: Gi", "System: A"]
