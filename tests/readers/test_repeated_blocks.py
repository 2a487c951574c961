"""Sources written as blocks that open with a line repeated word for word (see segment/blocks.py).

Generated over the ways a renderer wraps each chunk over several lines (a banner line and
markers around labelled metadata, a lone "###" before and after each note) and over what the
metadata holds; each with twins that repeat a line and are no sources: few-shot examples,
a line under a header that varies, a value of such a header, units nothing announces.
"""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02"}, "test")
CHUNKS = [
    "Refunds are paid within 14 days of the return reaching the warehouse, by the original payment method.",
    "Parcels ship within two working days; express orders placed before noon arrive the next day.",
    "Store credit never expires and can be used on any product, including items on sale.",
]
# How a renderer writes one chunk: <META> is its metadata's lines, <TEXT> the chunk.
WRAPPERS = {
    "banner and markers": "Metadata for the next chunk, delimited by five stars:\n>> METADATA START\n<META>\n>> METADATA END\n\n*****\n<TEXT>\n*****\n",
    "lone hashes": "###\n<META>\n<TEXT>\n###\n",
    "banner and a rule": "=== RETRIEVED PASSAGE ===\n<META>\n---\n<TEXT>\n",
}
# The metadata of chunk n, and the rule it makes fire (a date on every source, a score on every source).
METADATA = {
    "a labelled date": ("Document name: policy-{n}.md\nUpdated: 2026-0{n}-14", "PL201"),
    "a date alone": ("# 1{n}-03-2025", "PL201"),
    "a labelled score": ("Document name: policy-{n}.md\nRelevance: 0.{m}", "PL102"),
}
OPENINGS = {
    "a context label": ("Answer from the context only.\n\n### Context:\n", "\n### Question: How long do refunds take?\n"),
    "an announcement, the question after": ("You answer from the notes below.\n\nHere are the notes:\n\n", "\nQuery: How long do refunds take?\nAnswer:\n"),
}


def _prompt(wrapper: str, metadata: str, opening: str) -> str:
    head, tail = OPENINGS[opening]
    meta = METADATA[metadata][0]
    units = [WRAPPERS[wrapper].replace("<META>", meta.format(n=n, m=9 - n)).replace("<TEXT>", chunk) for n, chunk in enumerate(CHUNKS, 1)]
    return head + "\n".join(units) + tail


@pytest.mark.parametrize("opening", sorted(OPENINGS))
@pytest.mark.parametrize("metadata", sorted(METADATA))
@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
def test_blocks_that_open_with_one_repeated_line_are_sources(wrapper, metadata, opening):
    text = _prompt(wrapper, metadata, opening)
    prompt = segment_text(text)
    assert [text[s.content.start : s.content.end] for s in prompt.sources] == CHUNKS
    code = METADATA[metadata][1]
    found = [f.line for f in lint_text(text, path="prompt.txt", config=CONFIG) if f.code == code]
    assert found and len(found) in (1, 3)
    # Read by what repeats, the fields are a guess: no fix of them is safe.
    assert fix_text(text, path="prompt.txt", config=CONFIG) == text


FEW_SHOT = ("Classify the sentiment of the review.\n\nExample:\nReview: The battery died after a week and support never answered.\n"
            "Sentiment: negative\n\nExample:\nReview: Setup took two minutes and it has worked flawlessly since then.\n"
            "Sentiment: positive\n\nReview: {review}\nSentiment:")
GLUED = ("Write SQL for the question from the schema.\n\nSchema:\nTABLE users (accounts):\n- id (BIGINT)\n- name (VARCHAR) the person's full name as registered\n"
         "- city (VARCHAR) where the person lives and receives parcels\n\nTABLE orders (purchases):\n- id (BIGINT)\n"
         "- user_id (INTEGER) the account that placed the order today\n- total (DECIMAL) the amount paid for the whole order\n\nQuestion: Who ordered most?\n")
REPEATED_VALUE = ("Answer from the pages.\n\nPages:\nPage 24:\nDeath benefit is paid as a lump sum to the nominee on claim approval.\n\n"
                  "Page 23:\nThe accidental death benefit doubles the sum assured until the tenth year.\n\nPage 24:\n"
                  "The sum assured is reduced by any loans outstanding against the policy.\n\nQuestion: How is the benefit paid?\n")


FENCED = ("Answer from the context.\n\n### Context:\n---------------\nRefunds are paid within 14 days of the return reaching the warehouse.\n\n"
          "Parcels ship within two working days; express orders arrive the next day.\n---------------\n\n### Question: How long do refunds take?\n")


@pytest.mark.parametrize("text", [FEW_SHOT, GLUED, REPEATED_VALUE, FENCED],
                         ids=["few-shot examples", "a line under a header that varies", "a value of a header that varies", "two rules fencing the context"])
def test_lines_repeated_for_another_reason_open_no_blocks(text):
    from promptlint.readers.segment import blocks, text_lines, lowercase, words

    assert blocks.repeated_blocks(text, text_lines(text, lowercase(text)), words(), []) == []


def test_units_nothing_announces_are_no_sources():
    """The same notes with no line that announces them and no question after them: a document of the prompt's own."""
    text = _prompt("lone hashes", "a date alone", "an announcement, the question after")
    text = text.replace("Here are the notes:\n\n", "").replace("\nQuery: How long do refunds take?\nAnswer:\n", "\n")
    assert segment_text(text).sources == []
