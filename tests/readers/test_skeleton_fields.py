"""Sources found by their skeleton (a Markdown heading per hit, "### 1. docs/guide.md (1f83...)") whose text opens
with the same labelled line on every hit, its value varying ("- relevance: 0.9353"), have that line as a field,
as sources found by their header line do: the text starts after it. Generated over the line's label and its
list marker, each with its twin whose hits open with their own text."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-06", "select": ["PL102", "PL201"]}, "test")
HITS = [
    ("docs/brain/session-takeover.md", "1f835d16", "0.9353", "2025-11-02", "When the play timer expires with the page closed, the session restores itself and lands in the work phase."),
    ("docs/brain/timer.md", "2a835d16", "0.9291", "2025-10-14", "The timer has two modes, play and work, and the page keeps its state between the two of them."),
    ("docs/brain/lessons.md", "3f835d16", "0.9289", "2025-09-30", "A lesson is taken over when a second device opens it, and the first device is told so at once."),
]
LINES = {"relevance": ("relevance", 2, "PL102"), "score": ("score", 2, "PL102"), "updated": ("updated", 3, "PL201")}


def _pack(line: str | None, marker: str) -> str:
    blocks = []
    for n, (path, digest, score, date, text) in enumerate(HITS, 1):
        label, at, _ = LINES[line] if line else ("", 0, "")
        opening = f"{marker}{label}: {(score, date)[at - 2]}\n\n" if line else ""
        blocks.append(f"### {n}. {path} ({digest})\n{opening}{text}\n")
    return "# Pack\n\n## Question\n\nHow does the timer restore a session?\n\n## Ranked Evidence\n\n" + "\n".join(blocks) + "\n## Contract\n\nAnswer from the evidence above.\n"


@pytest.mark.parametrize("marker", ["- ", "", "* "])
@pytest.mark.parametrize("line", sorted(LINES))
def test_a_labelled_line_opening_every_hit_is_a_field(line, marker):
    code = LINES[line][2]
    assert [f.code for f in lint_text(_pack(line, marker), path="pack.md", config=CONFIG)] == [code] * 3
    assert lint_text(_pack(None, marker), path="pack.md", config=CONFIG) == []
