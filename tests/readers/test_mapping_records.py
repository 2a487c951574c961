"""A source whose body is one mapping on its line, as a store's record is printed (`{"citation": "...", "confidence":
0.9, "evidence": [...]}`, or a Python dict): its members are the source's fields, and the one that holds the text (a
content label's, else the longest value) is its content. A score among them is reported and removed as a field is,
the mapping left valid. Each with its twin."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02", "select": ["PL102"]}, "test")
RECORDS = [
    {"citation": "Recipe 1", "recipe_name": "Kung Pao chicken", "confidence": 0.9,
     "evidence": [{"claim": "Peanuts add a crisp texture to the dish.", "type": "text"}]},
    {"citation": "Recipe 2", "recipe_name": "Mapo tofu", "confidence": 0.7,
     "evidence": [{"claim": "Sichuan pepper gives the dish its numbing heat.", "type": "text"}]},
]
WRITERS = {"json": json.dumps, "python": repr}


def _prompt(write, records) -> str:
    blocks = "\n\n".join(f"[Evidence {n}]\n{write(record)}" for n, record in enumerate(records, 1))
    return f"Answer from the evidence only.\n\nQuestion: Why do the peanuts matter?\n\nEvidence:\n{blocks}\n\nRequirements:\n- Use only the evidence above, and answer directly.\n"


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_score_among_a_printed_records_members_is_reported_and_removed(writer):
    text = _prompt(WRITERS[writer], RECORDS)
    prompt = segment_text(text)
    assert [text[s.content.start : s.content.end] for s in prompt.sources] == [WRITERS[writer](r["evidence"]) for r in RECORDS]
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG)] == ["PL102", "PL102"]
    unscored = [{k: v for k, v in r.items() if k != "confidence"} for r in RECORDS]
    assert fix_text(text, path="p.txt", config=CONFIG) == _prompt(WRITERS[writer], unscored)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_the_twin_with_no_score_is_clean(writer):
    unscored = [{k: v for k, v in r.items() if k != "confidence"} for r in RECORDS]
    assert lint_text(_prompt(WRITERS[writer], unscored), path="p.txt", config=CONFIG) == []
