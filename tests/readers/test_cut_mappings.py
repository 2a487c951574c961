"""A source printed as a store's record, one mapping on its line, cut at a length limit (`str(record)[:300]`): the
mapping is read up to the cut, its members the source's fields, so the score it opens with is found; a key cut in
two is no field. A member that holds no value (`'summary': None`) carries nothing beside the text."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.fix import apply_fixes
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-07", "select": ["PL102", "PL104"]}, "test")
RECORDS = [
    ("Payments", 0.0333, "Single payment reference codes are processed in one nightly run with no screens at all."),
    ("Refunds", 0.0331, "Refunds are posted on the next business day after a supervisor approves them in the ledger."),
    ("Fees", 0.0322, "A late fee is charged when a payment arrives after the due date printed on the statement."),
]
CUT = 120


def _prompt(summary: str, cut: int | None) -> str:
    blocks = []
    for n, (title, score, text) in enumerate(RECORDS, 1):
        record = f"{{'@search.score': {score}, 'program': '{title.upper()}', 'summary': {summary}, 'text': '{text}'}}"
        blocks.append(f"**[{n}] {title}**\n{record[:cut]}\n")
    return "Answer from the records below.\n\n" + "\n".join(blocks) + "\nQuestion: when are refunds posted?\n"


def _findings(text: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in lint_text(text, path="records.txt", config=CONFIG)]


@pytest.mark.parametrize("cut", [None, CUT])
def test_the_score_of_a_record_is_found_whole_or_cut(cut):
    text = _prompt("None", cut)
    assert text.count("}") == (3 if cut is None else 0)
    findings = lint_text(text, path="records.txt", config=CONFIG)
    assert [(f.code, f.line) for f in findings] == [("PL102", 4), ("PL102", 7), ("PL102", 10)]
    fixed, _ = apply_fixes(text, [f.fix for f in findings])
    assert fixed == text.replace("'@search.score': 0.0333, ", "").replace("'@search.score': 0.0331, ", "").replace("'@search.score': 0.0322, ", "")


def test_a_summary_beside_the_text_is_derived_text():
    assert _findings(_prompt("'Late payments cost a fee.'", None)) == [("PL102", 4), ("PL104", 4), ("PL102", 7), ("PL104", 7), ("PL102", 10), ("PL104", 10)]
