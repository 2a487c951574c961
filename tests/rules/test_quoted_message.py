"""A user's message quoted whole inside a longer message the app builds is the question asked twice
(PL101), with no question mark and no label to say so; reported, never fixed (the copy that stays is
inside a sentence). Twins: no quote, a message too short to tell, and the same words said again as a
turn of the same length (a user repeating themself) are no repeat."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")
ASKED = ["Which devs know laravel", "list the contracts signed in March", "how do I reset the router password",
         "Quels fournisseurs livrent en Bretagne"]
WRAPS = [
    "This is data from the search results for the users prompt which is ### START PROMPT ### {q} ### END PROMPT ### use only this context: {ctx}",
    "Context:\n{ctx}\n\nThe user asked: \"{q}\". Answer in markdown.",
    "<query>{q}</query>\n<documents>{ctx}</documents>",
]
CONTEXT = "Jose Carlo Anaya: PHP 7.2, Laravel 5.8, MySQL; built REST web applications and reports for an institute."


def _body(*contents, roles=None):
    roles = roles or ["user"] * len(contents)
    return json.dumps({"messages": [{"role": r, "content": c} for r, c in zip(roles, contents)]}, indent=2)


@pytest.mark.parametrize("asked", ASKED)
@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("role", ["user", "system"])
def test_a_users_message_quoted_in_a_longer_one_is_asked_twice(asked, wrap, role):
    text = _body(asked, wrap.format(q=asked, ctx=CONTEXT), roles=["user", role])
    found = [f for f in lint_text(text, path="request.json", config=CONFIG) if f.code == "PL101"]
    assert len(found) == 1 and found[0].fix is None
    first = text.index(f'"content": {json.dumps(asked)}')
    assert found[0].line == text[:first].count("\n") + 1


@pytest.mark.parametrize("asked", ASKED)
def test_no_quote_no_short_message_and_no_repeated_turn_is_a_repeat(asked):
    twins = [
        _body(asked, f"Use only this context: {CONTEXT}"),                       # not quoted
        _body("thanks", f"thanks for asking; the context is {CONTEXT}"),          # too short to tell
        _body(asked, "Sorry, I did not find that.", asked, roles=["user", "assistant", "user"]),  # said again, as a turn
    ]
    for text in twins:
        assert [f.code for f in lint_text(text, path="request.json", config=CONFIG) if f.code == "PL101"] == []
