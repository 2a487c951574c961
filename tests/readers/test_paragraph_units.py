"""Sources written as paragraphs of one skeleton inside a labelled context, with no header the
lexicon knows: a key of one token and the text, then a line the renderer writes for each (see
segment/paragraphs)."""

from __future__ import annotations

import pytest

from promptlint.engine.lint import lint_text
from promptlint.readers.segment import segment_text

TEXTS = (
    "Counterfactual explanations are actionable because they suggest which features to alter to change an outcome.",
    "Counterfactuals suggest modifications to molecules that lead to desired changes in their measured properties.",
    "The excerpt discusses molecular counterfactuals used to explain black-box models in chemistry and drug design.",
)
CITATION = "From Wellawatte, Gandhi, Seshadri and White. A perspective on explanations of molecular prediction models. ChemRxiv, 2022. URL: https://doi.org/10.26434/chemrxiv-2022-qfv02. This article has 1 citations."


def _prompt(keys: tuple[str, ...], tail: str | None = CITATION) -> str:
    units = "\n\n".join(f"{key}: {text}" + (f"\n{tail}" if tail else "") for key, text in zip(keys, TEXTS))
    return f"Answer the question below with the context.\n\nContext:\n\n{units}\n\nValid Keys: {', '.join(keys)}\n\nQuestion: Are counterfactuals actionable?\n"


@pytest.mark.parametrize("keys", [("pqac-2a9aa41f", "pqac-b4c5b571", "pqac-e3ce979c"), ("doc_1", "doc_2", "doc_3"), ("refunds.md", "pricing.md", "billing.md")])
def test_paragraphs_of_one_skeleton_are_the_sources_and_their_key_the_citation_key(keys):
    text = _prompt(keys)
    prompt = segment_text(text)
    assert [s.key for s in prompt.sources] == list(keys)
    assert [text[s.content.start : s.content.end] for s in prompt.sources] == list(TEXTS)
    # The citation line repeated under each text is the wrapper, and it costs far more than a header.
    assert [f.message.split(" sources ")[0] for f in lint_text(text, path="p.txt") if f.code == "PL402"] == ["3 of 3"]


def test_the_twin_with_no_line_of_wrapper_is_no_unit_of_this_kind():
    text = _prompt(("pqac-2a9aa41f", "pqac-b4c5b571", "pqac-e3ce979c"), tail=None)
    assert [f.code for f in lint_text(text, path="p.txt") if f.code == "PL402"] == []


def test_paragraphs_of_prose_under_a_context_label_are_not_units():
    prose = "\n\n".join(f"{text}\nIt was measured again in a later study." if i != 1 else text for i, text in enumerate(TEXTS))
    text = f"Context:\n\n{prose}\n\nQuestion: Are counterfactuals actionable?\n"
    assert segment_text(text).sources == []
