"""Units of one skeleton whose head is a bracketed group ("[Previous conversation - Score: 0.87]"): the group's
items part at a dash before a labelled item, a line written once inside a unit's text ("### Context (2025)")
does not break the run, and a heading that speaks of the context ("# Relevant Context from Memory") says
where sources stand. Each case has its clean twin."""

from __future__ import annotations

import pytest

from promptlint.engine.lint import lint_text
from promptlint.readers.segment import segment_text

RECALLED = [("0.87", "Et la France et l'Europe ne risquent-elles pas d'entrer en guerre cette année ?"),
            ("0.72", "## Implication de la France\n\n### Contexte géopolitique (2025)\nLa France soutient activement l'Ukraine depuis 2022 avec des livraisons d'armes."),
            ("0.71", "Quel est l'avenir économique et politique de la France dans les années à venir ?")]
TOOLS = "## Available Tools\n\nYou have access to the following tools. Use them when needed to gather information.\n"


def _prompt(heading: str, head: str) -> str:
    units = "\n\n".join(f"{head.format(score=score)}\n{text}" for score, text in RECALLED)
    return f"# Your Objectives\n- Search and analyze the scientific literature.\n- Cite peer-reviewed sources.\n\n{heading}\n{units}\n\n{TOOLS}"


@pytest.mark.parametrize("heading", ["# Relevant Context from Memory", "## Context", "Relevant context from memory:"])
@pytest.mark.parametrize("head", ["[Previous conversation - Score: {score}]", "[Memory — similarity: {score}]"])
def test_recalled_turns_with_a_score_are_sources(heading, head):
    text = _prompt(heading, head)
    sources = segment_text(text).sources
    assert [text[s.content.start : s.content.end].split("\n")[0] for s in sources] == [t.split("\n")[0] for _, t in RECALLED]
    assert [f.code for f in lint_text(text, path="p.txt") if f.code == "PL102"] == ["PL102"] * 3


def test_the_twin_without_a_score_shows_none():
    text = _prompt("# Relevant Context from Memory", "[Previous conversation]")
    assert [f.code for f in lint_text(text, path="p.txt") if f.code == "PL102"] == []


def test_a_heading_that_does_not_speak_of_the_context_holds_no_sources():
    # The same lines under a heading of the prompt's own ("# Examples") are examples, not retrieved text.
    assert segment_text(_prompt("# Examples of past answers", "[Previous conversation - Score: {score}]")).sources == []
