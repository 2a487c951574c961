"""A unit's head written in brackets that wrap its cells, then groups of metadata after them ("[Title | 15-10-2025
13:36:00] (score=0.7667, rerank=-8.1688)"): the cells are read inside the brackets (title, date) and the groups'
items beside them; and a value that merely holds a date ("Title (last updated 2025-10-15)") is no date, so fixing
the prompt twice never removes a title (blind70s trantran2929's shape; drawn and scored before this change)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.fix import apply_fixes
from promptlint.engine.lint import lint_text
from promptlint.model.findings import Applicability
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02"}, "test")
NEWS = [("Signal of a short-term top", "15-11-2026 13:36:00", "0.7667", "-8.1688", "Blue chips rose while the rest of the market weakened."),
        ("First broker reports a loss", "14-11-2026 10:49:00", "0.625", "-6.2736", "Revenue grew 157% but the company lost 18 billion.")]


def _prompt(head: str) -> str:
    units = "\n\n".join(head.format(title=t, date=d, score=s, rerank=r) + f"\n{text}\n(Source: )" for t, d, s, r, text in NEWS)
    return f"Answer from the news.\n\n## Retrieved Context:\n{units}\n\n## Task Input:\n**User:** What is new today?\n"


def test_the_groups_after_a_wrapped_head_are_its_fields():
    text = _prompt("[{title} | {date}] (score={score}, rerank={rerank})")
    read = [(s.title, [(f.label, f.value) for f in s.fields]) for s in segment_text(text).sources]
    assert read == [(t, [("", d), ("score", s), ("rerank", r)]) for t, d, s, r, _ in NEWS]
    assert sorted({f.code for f in lint_text(text, path="p.txt", config=CONFIG)}) == ["PL102", "PL201"]


@pytest.mark.parametrize("year", ["2026", "2024"])
def test_fixing_twice_keeps_every_title(year):
    """All fixes, unsafe ones too, applied and then applied again to what they left: a stale date becomes a
    note inside the brackets, a fresh one goes; the titles stay, and so do the brackets."""
    text = _prompt("[{title} | {date}] (score={score}, rerank={rerank})").replace("2026 ", f"{year} ")
    for _ in range(2):
        text, _ = apply_fixes(text, [f.fix for f in lint_text(text, path="p.txt", config=CONFIG) if f.fix])
    note = {"2026": "", "2024": " (last updated {y}-11-{d})"}[year]
    assert [line for line in text.splitlines() if line.startswith("[")] == [
        f"[{title}{note.format(y=year, d=date[:2])}]" for title, date, *_ in NEWS]


@pytest.mark.parametrize("value", ["Signal of a short-term top (last updated 2025-10-15)", "Report filed 2025-10-15 by the desk"])
def test_a_value_holding_a_date_is_no_date(value):
    """Bracketed titles with a date in their words, and no label: not dated sources."""
    text = "Answer from the news.\n\n" + "\n\n".join(f"[{value} {n}]\nThe market rose.\n" for n in range(2)) + "\nQuestion: What is new?\n"
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL201"] == []
