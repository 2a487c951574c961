"""A log of several requests: the same marker line over each prompt sent, and another over the model's response.
Each prompt is read alone, up to the next marker, less the next record's banner; the responses and the banners
were never sent."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers.document import parse_text

CONFIG = build({"today": "2026-12-02"}, "test")
PROMPTS = [
    "You narrate a dark fantasy game.\nDescribe the place in three sentences.\n\nLore:\n- The ruins were built by necromancers.\n- A spider plague sweeps the kingdom.",
    "You narrate a dark fantasy game.\nDescribe the place in three sentences.\n\nLore:\n- The marsh swallows travellers.\n- Rats carry the plague.",
]
RESPONSES = ["The air is thick and still. Bones line the altar.", "Fog hangs low over the reeds."]


def _log(prompt_marker, response_marker, banner=True):
    records = []
    for n, (prompt, response) in enumerate(zip(PROMPTS, RESPONSES)):
        head = f"{'=' * 40}\nTIMESTAMP: 2025-09-16 00:2{n}:41\n{'=' * 40}\n\n" if banner else ""
        tail = f"\n{response_marker}\n{response}\n\n" if response_marker else "\n\n"
        records.append(f"{head}{prompt_marker}\n{prompt}\n{tail}")
    return "".join(records)


def _prompts(text):
    return [p.text.strip() for p in parse_text(text, "run.log.txt", ".txt", CONFIG.lexicon).prompts]


@pytest.mark.parametrize("prompt_marker, response_marker", [
    ("--- PROMPT SENT TO LLM --->", "<--- RAW RESPONSE FROM LLM ---"),
    ("=== PROMPT ===", "=== RESPONSE ==="),
    ("[PROMPT]", "[MODEL OUTPUT]"),
    ("### Final prompt ###", None),
])
@pytest.mark.parametrize("banner", [True, False])
def test_each_logged_prompt_is_read_alone(prompt_marker, response_marker, banner):
    text = _log(prompt_marker, response_marker, banner)
    assert _prompts(text) == PROMPTS
    assert [f.code for f in lint_text(text, path="run.log.txt", config=CONFIG) if f.code in ("PL305", "PL402", "PL301")] == []


@pytest.mark.parametrize("markers", [("--- PROMPT SENT TO LLM --->",), ("=== PROMPT 1 ===", "=== PROMPT 2 ===")])
def test_the_twin_whose_prompt_marker_does_not_repeat_is_no_log_of_requests(markers):
    """One marker, or markers that differ, are no evidence of a log: the file is read as before, whole."""
    text = "".join(f"{marker}\n{prompt}\n\n" for marker, prompt in zip(markers, PROMPTS))
    assert len(_prompts(text)) == 1


def test_a_question_over_the_next_records_banner_stays_in_its_prompt():
    text = "".join(f"=== PROMPT ===\n{p}\n\nQuestion: Where am I?\n\n{'=' * 40}\nTIMESTAMP: 2025-09-16\n{'=' * 40}\n" for p in PROMPTS)
    assert [p.rsplit("\n", 1)[-1] for p in _prompts(text)] == ["Question: Where am I?"] * 2


def test_a_template_whose_section_label_repeats_is_no_log():
    """A template with its slots at the top and "Instructions:" over two blocks below them is one prompt, not a log
    of two (blind83 kunjshukla: the question and the context were dropped as the log's preamble)."""
    template = ("Answer the question from the contract excerpts.\n\nQuestion: {question}\n\nContext:\n{contexts}\n\n"
                "Instructions:\n1. Answer only from the excerpts.\n2. Cite each excerpt you use.\n\n"
                "Rationale:\n- Reranked excerpts keep the answer grounded.\n\n"
                "Instructions:\n1. Answer in two to four sentences.\n2. Give a confidence between 0 and 1.\n")
    assert _prompts(template) == [template.strip()]
    # The twin: the same markers over rendered prompts, nothing before the first, is a log of two.
    log = template.split("Instructions:\n", 1)[1]
    assert len(_prompts("Instructions:\n" + log)) == 2
