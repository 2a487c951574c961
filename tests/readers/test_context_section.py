"""Units of one skeleton stand where sources do under a Markdown heading that speaks of the context, whatever stands
between the heading and them: the heading holds its section ("## Retrieved Context:", then a note of the day the news
runs to, then "[title | date] (score=0.75, rerank=2.37)" hits; blind70 trantran2929, where the note ended the run's
claim to the context). Under a heading that speaks of something else, the same lines are no sources."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-06", "select": ["PL102"]}, "test")
HITS = """\
[Bank shares lead the market on Thursday | 15-10-2025 22:47:00] (score=0.75, rerank=2.3688)
Bank and property shares led trading, and the index closed at 1,757 points, three points lower on the day.

[Broker posts record nine-month profit | 15-10-2025 17:30:00] (score=0.5955, rerank=4.4115)
The broker reported a profit of 1,379 billion dong for nine months, above its plan for the whole year.
"""
NOTE = "[News as of: Thursday, 16 October 2025.\nYesterday was Wednesday, 15 October 2025.]\n\n"


def _prompt(heading: str, between: str) -> str:
    return f"Answer in Vietnamese, briefly.\n\n## {heading}:\n{between}{HITS}\n## Task Input:\n**User:** How did the market close yesterday?\n"


@pytest.mark.parametrize("between", [NOTE, "Below are the latest news, use them first.\n\n" + NOTE, ""])
def test_units_anywhere_in_a_section_headed_for_the_context_are_sources(between):
    assert [f.code for f in lint_text(_prompt("Retrieved Context", between), path="p.txt", config=CONFIG)] == ["PL102"] * 4


def test_the_same_lines_under_a_heading_of_something_else_are_not():
    assert lint_text(_prompt("Market Calendar", NOTE), path="p.txt", config=CONFIG) == []
