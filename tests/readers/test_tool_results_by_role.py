"""A tool's message that gives back a JSON list of records whose text no key's name says holds it (a FAQ search's
`{"id", "section", "question", "answer"}`) is read by the role of each key: the long text that varies from record to
record is the content, the other keys its fields. A reading by shape: its sources are guessed, so no fix of them is
safe. Twins: the same list in a user's message (a pasted table), records with no long text, and records whose text
is the same on each. Seen in blind87 Sanjomwa (a notebook printing an agent's Responses API messages)."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.model.findings import Applicability

CONFIG = build({"today": "2026-12-07"}, "test")
ANSWERS = [
    "Yes, but if you want a certificate you need to submit your project while submissions are still open.",
    "No. We do not give individual deadline extensions, and once the form is closed you can no longer submit.",
    "Start with the course docs and the repository, then watch the lesson videos and work through the notebooks.",
]
IDS = ["74eb249bbf", "cdc3b285e5", "04919992b3"]


def _records(answers=ANSWERS):
    return [{"id": i, "section": "General questions", "question": f"Question {n}?", "answer": a} for n, (i, a) in enumerate(zip(IDS, answers))]


def _body(records, role="tool"):
    messages = [{"role": "system", "content": "You are a course assistant. Answer from the FAQ search results."},
                {"role": "user", "content": "Can I still join the course?"}]
    if role == "tool":
        messages += [{"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}]},
                     {"role": "tool", "tool_call_id": "c1", "content": json.dumps(records, indent=2)}]
    else:
        messages[1]["content"] += "\n\n" + json.dumps(records, indent=2)
    return json.dumps({"model": "m", "messages": messages}, indent=1)


def test_a_tool_s_records_are_read_by_the_role_of_their_keys():
    findings = [f for f in lint_text(_body(_records()), path="body.json", config=CONFIG) if f.code == "PL203"]
    assert [f.message.split(" (")[0] for f in findings] == [f"Source {n} shows the id its store gave the chunk" for n in (1, 2, 3)]
    assert all(f.fix is None or f.fix.applicability is Applicability.UNSAFE for f in findings)


@pytest.mark.parametrize("case", ["in a user's message", "no long text", "the same text on each"])
def test_the_twins_are_no_sources(case):
    records = {
        "in a user's message": _records(),
        "no long text": _records(["Yes.", "No.", "Start with the docs."]),
        "the same text on each": _records([ANSWERS[0]] * 3),
    }[case]
    body = _body(records, role="user" if case == "in a user's message" else "tool")
    assert [f.code for f in lint_text(body, path="body.json", config=CONFIG) if f.code == "PL203"] == []
