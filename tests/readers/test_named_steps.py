"""A paragraph that is a few words on a line, then "Label: value" lines, names a step or a setting and describes
it ("1. KEYWORD GENERATION", then "Input: User query", "Tool: ReasoningEngine"): it is the prompt's own instruction,
not a retrieved record, when none of its fields is one a source carries (a title, an address, a date, a score, an
origin). The same line above a source's fields ("1. Ferry timetable", then "Published: 2026-11-02") heads a record."""

from __future__ import annotations

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-07", "select": ["PL201", "PL305"]}, "test")

STEPS = """You coordinate specialised tools to write thorough answers. Keep to this order:

When the search is done, always hand the results back to the reasoning model.

1. KEYWORD GENERATION
   Input: User query
   Tool: ReasoningEngine
   Action: Generate three to five search phrases
   Output format: List of {phrase, query_id}

2. SEARCH EXECUTION
   Input: Phrases from step 1
   Tool: SearchTool
   Action: Run one search per phrase
   Output format: List of {query_id, results[]}

3. SYNTHESIS
   Input:
   - The user's query
   - Every search result
   Tool: ReasoningEngine
   Action: Combine what the results say

Checks at every step:
- Tool outputs match the expected formats
- Failed steps are logged for a retry
- Every claim can be traced to its source
"""

RESULTS = """Answer the question from the search results.

1. Ferry timetable
   Published: 2026-11-02
   Origin: harbour site

2. Winter service changes
   Published: 2026-11-20
   Origin: harbour site

Question: when does the last ferry leave?
"""


def _findings(text: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in lint_text(text, path="prompt.txt", config=CONFIG)]


def test_steps_described_by_fields_are_instructions():
    assert _findings(STEPS) == []


def test_a_record_with_a_sources_fields_is_still_read():
    assert _findings(RESULTS) == [("PL201", 4), ("PL201", 8)]
