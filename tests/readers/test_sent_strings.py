"""A prompt as it was sent, kept as a string under a key of any name in a JSON or YAML file (a run's log, a test
snapshot): read when its sources are written out and it asks a question or is written as a chat's turns. A
script or a text with no question kept beside it is no prompt."""

from __future__ import annotations

import json

import pytest
import yaml

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL102", "PL301"]}, "test")
SENT = (
    "SYSTEM:\nAnswer from the retrieved context only.\n\nUSER:\nQuestion: How long do refunds take?\n\nRetrieved context:\n"
    "[1] Returns policy (score: 0.91)\nRefunds are issued within 14 days of receiving the returned item.\n\n"
    "[2] Shipping guide (score: 0.84)\nDamaged parcels are replaced at no cost once the carrier confirms the damage.\n"
)
# The same sources in a script's comments and lists, and no question: what a data file keeps beside its prompts.
SCRIPT = (
    "import re\n\n# Indicators to keep\nindicators = [\n    'Total Assets', 'Total Equity', 'Tangible Book Value',\n]\n\n"
    "# Units for each indicator\nunit_map = {\n    'Total Assets': 'USD', 'Total Equity': 'USD',\n}\n\ndef main(text):\n    return text\n"
)


def _file(kind: str, text: str) -> str:
    run = {"run_id": "r-1", "pipeline": {"final_prompt_sent_to_llm": text, "response": "Within 14 days [1]."}}
    return json.dumps(run, indent=2) if kind == "json" else yaml.safe_dump(run, sort_keys=False, width=10_000)


@pytest.mark.parametrize("kind", ["json", "yaml"])
def test_a_sent_prompt_under_a_key_of_any_name_is_read(kind):
    found = [f.code for f in lint_text(_file(kind, SENT), path=f"run.{kind}", config=CONFIG)]
    assert found == ["PL102", "PL102"]


@pytest.mark.parametrize("kind", ["json", "yaml"])
def test_a_script_kept_under_a_key_is_no_prompt(kind):
    assert lint_text(_file(kind, SCRIPT), path=f"run.{kind}", config=CONFIG) == []
    # Nor is the sent prompt's own text without its question and turns.
    unasked = SENT.replace("SYSTEM:\n", "").replace("USER:\nQuestion: How long do refunds take?\n\n", "")
    assert lint_text(_file(kind, unasked), path=f"run.{kind}", config=CONFIG) == []
