"""The reference chapter's Atlas examples, end to end: findings, fixes, format, renderer."""

from __future__ import annotations

import datetime
from pathlib import Path

from promptlint.engine.formatting import format_document
from promptlint.canonical.render import Chunk, build_prompt
from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers import document

ATLAS = Path(__file__).resolve().parent.parent / "fixtures" / "atlas"
CONFIG = build({"today": "2026-12-02"}, "test")
ALL = build({"select": ["ALL"], "today": "2026-12-02"}, "test")


def _read(name: str) -> str:
    return (ATLAS / name).read_text(encoding="utf-8")


def test_before_has_every_leave_out_finding():
    found = [(f.line, f.code) for f in lint_text(_read("before.txt"), path="before.txt", config=CONFIG)]
    assert found == [
        (4, "PL101"),
        # No PL402: without the NOTE line (PL103) and the fields the other rules report, the wrapper is in budget.
        (8, "PL102"),
        (8, "PL201"),
        (9, "PL103"),
        (10, "PL104"),
        (14, "PL102"),
        (14, "PL201"),
        (15, "PL202"),
        (18, "PL301"),
        (18, "PL102"),
        (18, "PL201"),
    ]


def test_fixing_before_gives_after():
    assert fix_text(_read("before.txt"), path="before.txt", config=CONFIG, unsafe=True) == _read("after.txt")


def test_after_is_clean_under_every_rule():
    assert lint_text(_read("after.txt"), path="after.txt", config=ALL) == []


def test_format_gives_the_canonical_sources_block():
    doc = document.parse(_read("before.txt").encode(), "before.txt", ".txt")
    formatted = format_document(doc, CONFIG, unsafe=True).text
    assert formatted == _read("before.txt").split("Sources:")[0] + "Sources:\n\n" + _read("after.txt").split("Sources:\n\n")[1]
    assert [f.code for f in lint_text(formatted, path="x.txt", config=CONFIG)] == ["PL101"]


def test_renderer_builds_a_prompt_that_lints_clean():
    today = datetime.date(2026, 12, 2)
    chunks = [
        Chunk("Standard lead time is 6 weeks from order confirmation.", "SKU-4411 Specification", ("Availability",),
              score=0.74, updated=datetime.date(2025, 8, 2), parse_warnings=("OCR confidence 0.86",)),
        Chunk("Damaged goods may be returned within 30 days of delivery.", "Returns and Credits Policy",
              ("Returns", "Damaged goods"), score=0.91, ordinal=3, updated=datetime.date(2026, 11, 20)),
        Chunk("Returns after the window are refunded as store credit only.", "Returns and Credits Policy",
              ("Credits", "Store credit"), score=0.62, ordinal=9),
    ]
    prompt = build_prompt(
        system="You are Atlas. Answer only from the sources and cite them as [n].",
        chunks=chunks,
        question="Can I return a damaged item 40 days after delivery?",
        today=today,
    )
    assert prompt == (
        "You are Atlas. Answer only from the sources and cite them as [n].\n\n"
        "Sources:\n"
        "[1] Returns and Credits Policy — Returns > Damaged goods\n"
        "Damaged goods may be returned within 30 days of delivery.\n\n"
        "[2] Returns and Credits Policy — Credits > Store credit\n"
        "Returns after the window are refunded as store credit only.\n\n"
        "[3] SKU-4411 Specification — Availability (last updated 2025-08-02) ⚠️ OCR confidence 0.86\n"
        "Standard lead time is 6 weeks from order confirmation.\n\n"
        "Question: Can I return a damaged item 40 days after delivery?"
    )
    assert lint_text(prompt, path="built.txt", config=ALL) == []
