"""A field a renderer prints with nothing after it ("Published    :") shows no value: no rule reports
its value, and its label is part of the wrapper's cost."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")
RULE = "=" * 60


def _prompt(published: str, keyword: str = "") -> str:
    blocks = []
    for n in range(1, 4):
        fields = [("Company", "Acme"), ("Source File", "acme.md"), ("Keyword", keyword), ("Title", ""), ("Published", published), ("URL", ""), ("Author", ""), ("Language", "")]
        meta = "\n".join(f"{label:<13}: {value}".rstrip() for label, value in fields)
        blocks.append(f"{RULE}\nDOCUMENT {n}\n{RULE}\n\n{meta}\n\nCONTENT\n-------\n\nAcme opened plant number {n} in Pune this year.\n\n")
    return "Use only the supplied knowledge.\n\nRETRIEVED KNOWLEDGE:\n\n" + "".join(blocks) + "Question: What did Acme open?\n"


def _codes(text: str, code: str) -> list[int]:
    return [f.line for f in lint_text(text, path="dump.txt", config=CONFIG) if f.code == code]


@pytest.mark.parametrize("published, dated", [("", False), ("2026-11-30", True)])
def test_an_empty_date_field_shows_no_date(published, dated):
    assert bool(_codes(_prompt(published), "PL201")) == dated


def test_empty_fields_count_in_the_wrapper():
    """Labels printed with no value still cost their tokens on every source."""
    assert len(_codes(_prompt(""), "PL402")) == 1  # one finding for the three sources one renderer wraps
    # The twin: the same wrappers without the empty lines are within the budget.
    lean = "\n".join(line for line in _prompt("").split("\n") if not line.rstrip().endswith(":") or line.startswith(("RETRIEVED", "Question")))
    assert _codes(lean, "PL402") == []
