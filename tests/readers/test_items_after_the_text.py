"""A source written as a list of labelled items, its text one of them ("- Title: ...", "- Snippet: <text>",
"- Engine: tavily"): the text is its item's alone, and the items after it are the source's fields as the items
before it are. When anything but such items follows, the lines stay the text's own."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.fix import apply_fixes
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-07", "select": ["PL202"]}, "test")
RESULTS = [
    ("Ferry timetable - Harbour Lines", "Boats leave the north pier every forty minutes from six in the morning until ten at night."),
    ("Winter service changes", "From December the last boat leaves at nine, and the Sunday service runs once an hour."),
    ("Tickets and passes", "A day pass covers every line in the harbour and can be bought on board or at the pier."),
]


def _prompt(after: str) -> str:
    blocks = [f"**Result {n}:**\n- Title: {title}\n- Snippet: {text}\n{after}\n" for n, (title, text) in enumerate(RESULTS, 1)]
    return "# Search Query: last ferry\n\n## Search Results:\n\n" + "\n".join(blocks) + "\n## Instructions\nAnswer from the results above.\n"


@pytest.mark.parametrize("marker", ["- ", "* "])
def test_the_items_after_the_text_are_fields(marker):
    text = _prompt("- Source: tavily").replace("- ", marker)
    findings = lint_text(text, path="results.md", config=CONFIG)
    assert [(f.code, f.line) for f in findings] == [("PL202", 8), ("PL202", 13), ("PL202", 18)]
    fixed, _ = apply_fixes(text, [f.fix for f in findings])
    assert fixed == text.replace(f"{marker}Source: tavily\n", "")


def test_a_line_that_is_no_item_after_them_keeps_them_in_the_text():
    findings = lint_text(_prompt("- Source: tavily\nThe pier closes in storms."), path="results.md", config=CONFIG)
    assert findings == []
