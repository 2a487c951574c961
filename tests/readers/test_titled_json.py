"""In a prompt as it was sent, a JSON value under a title of its own is the request's input, as a slot
alone under its label is in a template: static instructions after it are after per-request data
(PL305). Generated over titles and JSON shapes, with twins: a title that names the deployment's setup, an
example's marker, a one-line value, and a template (where literal JSON is the template's own text)."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.model.prompt import PartKind
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02", "select": ["PL305"]}, "test")
OPENING = "You are a senior security consultant writing a report for the client."
RULES = "\n".join(
    [
        "1. Use only the findings given above; never invent a vulnerability.",
        "2. Keep the severity and priority of each finding exactly as given.",
        "3. Write one paragraph per finding, then a numbered remediation plan.",
        "4. Explain how to verify each fix in the HTTP response or the configuration.",
        "5. Answer in plain English and end with a short conclusion section.",
    ]
)
FINDINGS = [{"title": "CSP header not set", "severity": "medium", "evidence": "default-src missing"},
            {"title": "Cookie without Secure flag", "severity": "low", "evidence": "Set-Cookie: sid=..."}]
SHAPES = {"array": FINDINGS, "object": {"scan": "2026-11-30", "findings": FINDINGS}}
TITLES = ["--- FINDINGS ---", "Findings:", "## Scan results", "SCAN DATA:"]


def _prompt(title: str, value: str) -> str:
    return f"{OPENING}\n\n{title}\n{value}\n\n{RULES}\n"


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("title", TITLES)
def test_json_under_a_title_is_the_requests_input(title, shape):
    text = _prompt(title, json.dumps(SHAPES[shape], indent=2))
    assert PartKind.INPUT in [p.kind for p in segment_text(text).parts]
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG)] == ["PL305"]


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("title", ["Tools:", "Output schema:", "## Output format", "Example:"])
def test_json_under_a_setup_or_example_title_is_static(title, shape):
    text = _prompt(title, json.dumps(SHAPES[shape], indent=2))
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG)] == []


@pytest.mark.parametrize("title", TITLES)
def test_json_on_one_line_is_not_read_so(title):
    assert [f.code for f in lint_text(_prompt(title, json.dumps(FINDINGS)), path="p.txt", config=CONFIG)] == []


@pytest.mark.parametrize("title", TITLES)
def test_literal_json_in_a_template_is_the_templates_own(title):
    text = _prompt(title, json.dumps(FINDINGS, indent=2)) + "\nQuestion: {question}\n"
    assert PartKind.INPUT not in [p.kind for p in segment_text(text).parts]
