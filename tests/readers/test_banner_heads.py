"""Units whose head is written inside a banner ("--- README.md (lines 27-72) ---") are read by their skeleton like
any other head: the banner's rules are the wrapper, a word and a range ("lines 27-72") a field, and a unit's own
text may hold rules, headings and tables (blind61e madgiitch). A banner that only titles a section or a group
("--- Islam ---", "--- CONTEXTE RAG ---") heads no unit."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text, segment_document
from promptlint.readers import document as documents

CONFIG = build({"today": "2026-12-06"}, "test")
PROMPT = """Use ONLY the provided snippets.

Context:
Semantic matches:
RULE README.md (lines 27-72) RULE
The palette roles are defined for interface design, with a visual hierarchy built in from the start.

---

## Status

| Sprint | Feature |
| 0 | Setup |
| 1 | Energy |

RULE MVP.md (lines 426-479) RULE
The plan covers dual themes, exports and the accessibility checks that run on every palette.

RULE README.md (lines 1-34) RULE
The introduction says what the product is and how to install it, step by step, on any machine.

Question: where is the contrast adjusted?
"""


def _sources(text: str) -> list[tuple[str, list[tuple[str, str]]]]:
    doc = documents.parse_text(text, "prompt.txt", CONFIG.suffix_for("prompt.txt"), CONFIG.lexicon)
    (prompt,) = segment_document(doc, CONFIG)
    return [(s.title, [(f.label, f.value) for f in s.fields]) for s in prompt.sources]


@pytest.mark.parametrize("rule", ["---", "===", "~~~~"])
def test_units_headed_inside_banners_are_sources(rule):
    text = PROMPT.replace("RULE", rule)
    assert _sources(text) == [("README.md", [("lines", "27-72")]), ("MVP.md", [("lines", "426-479")]), ("README.md", [("lines", "1-34")])]
    # Read so, the chunks of one file apart from each other are seen.
    assert [(f.line, f.code) for f in lint_text(text, path="prompt.txt", config=CONFIG)] == [(19, "PL301")]


def test_banners_that_title_groups_head_no_units():
    text = """Use ONLY the passages below.

Passages (grouped by religion):

--- Islam ---
Quran 41:43 — "Nothing is said to thee that was not said to the messengers before thee."

--- Christianity ---
Matthew 6:14 — "For if ye forgive men their trespasses, your heavenly Father will also forgive you."

Question: what do these say about forgiveness?
"""
    assert [title for title, _ in _sources(text)] != ["Islam", "Christianity"]
