"""A label alone on its line over a sentence that instructs about the context ("INSTRUCTIONS:", then "Based on the
sources provided above, answer ...") after the last source opens the prompt's next part: the last source's text is
its chunk's, up to the blank line before it (blind77 mzienert: a logged prompt whose closing instructions were read as
the fifth chunk's text, so PL305 saw nothing after the sources). Generated over the label and the opening of the
instruction, with twins: a chunk's own label over a line that speaks of no context stays its text."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers.segment import segment_text

CHUNKS = [
    "Lots shall have a depth to width ratio of no greater than four to one.",
    "Side lot lines should be at approximate right angles to the road right-of-way.",
    "Each lot shall have access to a private street or a dedicated street.",
]
CLOSINGS = [
    "Based on the sources provided above, answer the user's question accurately and concisely. Include citation markers [n]. "
    "Provide a complete answer and then stop.",
    "Using only the sources above, answer the question in three sentences. Cite each source you use as [n]. Do not add "
    "facts the sources do not state.",
]
CONFIG = build({"today": "2026-12-02", "select": ["PL305"]}, "test")


def _prompt(label: str, closing: str) -> str:
    sources = "\n\n".join(f"[{n}] (collection=county_code, id={3150 + 7 * n})\n{text}" for n, text in enumerate(CHUNKS, 1))
    return (f"You answer questions about the county code.\n\nQUESTION: What are the lot requirements?\n\nSOURCES:\n{sources}\n\n\n"
            f"{label}\n{closing}\n\nANSWER:\n")


@pytest.mark.parametrize("closing", CLOSINGS)
@pytest.mark.parametrize("label", ["INSTRUCTIONS:", "Instructions:", "Task:", "YOUR TASK:"])
def test_a_labelled_instruction_about_the_sources_ends_the_last_source(label, closing):
    text = _prompt(label, closing)
    prompt = segment_text(text)
    assert [text[s.content.start : s.content.end] for s in prompt.sources] == CHUNKS
    assert [f.code for f in lint_text(text, path="prompt.txt", config=CONFIG)] == ["PL305"]


def test_a_chunks_own_label_over_a_line_of_no_context_stays_its_text():
    text = _prompt("Exceptions:", "Lots on a cul-de-sac may be narrower at the street line than elsewhere on the lot.")
    prompt = segment_text(text)
    assert text[prompt.sources[-1].content.start : prompt.sources[-1].content.end].endswith("narrower at the street line than elsewhere on the lot.")
