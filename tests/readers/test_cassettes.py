"""An HTTP recording (a VCR cassette: `interactions`, each with a `request` whose `body` is what the app sent)
holds the requests an app made: each JSON body is read as a request body is, and its findings are placed at
the body in the YAML file, never fixed. The body may be a string or stand under `string`; a body that is no
JSON, a response, or a recording with no model request holds no prompt."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL102", "PL305"]}, "test")
SOURCES = "".join(f"[{n}] Returns policy, part {n} (score: 0.9{n})\nDamaged goods may be returned within {n}0 days of delivery.\n\n" for n in range(1, 4))
RULES = "Answer only from the sources.\nCite every claim as [n].\nKeep answers under 120 words.\nNever guess a date the sources do not give."
BODY = {"model": "gpt-4o", "messages": [{"role": "user", "content": f"Sources:\n{SOURCES}Question: How long do I have to return a broken kettle?\n\n{RULES}"}]}


def _cassette(form: str, body: dict | str = BODY) -> str:
    sent = body if isinstance(body, str) else json.dumps(body)
    quoted = "'" + sent.replace("'", "''") + "'"
    written = f"      body: {quoted}\n" if form == "string" else f"      body:\n        string: {quoted}\n"
    return ("interactions:\n  - request:\n" + written + "      method: POST\n      uri: https://example.invalid/v1/chat/completions\n"
            "    response:\n      status:\n        code: 200\n")


@pytest.mark.parametrize("form", ["string", "under string"])
def test_each_recorded_request_is_read_as_its_body(form):
    text = _cassette(form)
    found = [(f.line, f.code) for f in lint_text(text, path="cassette.yaml", config=CONFIG)]
    line = 3 if form == "string" else 4
    assert found == [(line, "PL102"), (line, "PL102"), (line, "PL102"), (line, "PL305")]
    # Placed at the body, the fixes are never written.
    assert fix_text(text, path="cassette.yaml", config=CONFIG) == text


@pytest.mark.parametrize("body", ["grant_type=client_credentials", '{"input": "hello"}', ""])
def test_a_body_that_is_no_model_request_holds_no_prompt(body):
    assert lint_text(_cassette("string", body), path="cassette.yaml", config=CONFIG) == []


def _parsed_body_cassette(body: dict) -> str:
    import yaml

    recorded = {"interactions": [{"request": {"method": "POST", "parsed_body": body, "uri": "https://example.invalid/v1/chat/completions"},
                                  "response": {"status": {"code": 200}}}]}
    return yaml.safe_dump(recorded, sort_keys=False, width=10_000)


def test_a_body_the_recorder_wrote_as_yaml_is_read_as_its_json():
    """`parsed_body` (a recorder that decodes the body) holds the same request written as YAML: read as its JSON,
    placed at the body's start, never fixed."""
    text = _parsed_body_cassette(BODY)
    found = [(f.line, f.code) for f in lint_text(text, path="cassette.yaml", config=CONFIG)]
    assert found == [(5, "PL102"), (5, "PL102"), (5, "PL102"), (5, "PL305")]  # the mapping under `parsed_body:`
    assert fix_text(text, path="cassette.yaml", config=CONFIG) == text
    # The twin: a decoded body that is no model request (an embeddings call) holds no prompt.
    assert lint_text(_parsed_body_cassette({"model": "e5", "input": ["Returns policy"]}), path="cassette.yaml", config=CONFIG) == []
