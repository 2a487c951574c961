"""A text that documents its prompts in titled sections (a "prompt log": "1. SYSTEM PROMPT" over a
banner rule, "2. CONFIGURATION PARAMETERS", "3. EXAMPLE INFERENCE PROMPT"): the sections whose titles
name a prompt are the prompts, and the rest (the log's dated header, settings, notes) is none. Generated
over title forms and banner marks, with twins: a prompt whose headings name its own parts, and a prompt
with short "---" separators, are each one prompt as before."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers.document import parse_text

CONFIG = build({"today": "2026-12-02"}, "test")
TEMPLATE = "You are a handbook assistant. Answer only from the context.\n\nQuestion: {question}\n\nContext:\n{context}\n"
NOTES = "\n".join(f"- {line}" for line in ["Chunk size: 300 words", "Top-k: 5 chunks", "Similarity threshold: 0.25 (cosine)",
                                           "Always cite the page numbers the answer uses", "Keep answers under 200 words"])
SHOWN = ("Question: \"What are the evaluation criteria?\"\n\nFull Prompt Sent to LLM:\n---\nYou are a handbook assistant. "
         "Answer only from the context.\n\nQuestion: What are the evaluation criteria?\n\nContext:\n[Chunk from p.52]\nEvaluation: A to F.\n---\n")
TITLES = {"numbered": ["1. SYSTEM PROMPT TEMPLATE", "2. CONFIGURATION PARAMETERS", "3. EXAMPLE INFERENCE PROMPT (Sample Query)"],
          "plain": ["User prompt template (LLM)", "Retrieval settings", "Example prompt"]}


def _banner(title: str, mark: str, over: bool) -> str:
    rule = mark * 60
    return (rule + "\n" if over else "") + title + "\n" + rule + "\n\n"


def _log(titles: list[str], mark: str, over: bool) -> str:
    header = _banner("PROMPT LOG: Handbook Assistant", mark, over) + "Date: November 12, 2025 (updated)\n\n"
    return header + "".join(_banner(t, mark, over) + body + "\n" for t, body in zip(titles, [TEMPLATE, NOTES, SHOWN]))


@pytest.mark.parametrize("over", [True, False], ids=["between rules", "underlined"])
@pytest.mark.parametrize("mark", ["=", "-"])
@pytest.mark.parametrize("titles", sorted(TITLES))
def test_the_sections_that_name_a_prompt_are_the_prompts(titles, mark, over):
    text = _log(TITLES[titles], mark, over)
    doc = parse_text(text, "log.txt", ".txt")
    # The template, and the example's prompt between its rules; not the dated header nor the settings.
    assert [p.texts[0].strip().splitlines()[0] for p in doc.prompts] == ["You are a handbook assistant. Answer only from the context."] * 2
    assert "Date:" not in "".join(p.texts[0] for p in doc.prompts)
    assert [f.code for f in lint_text(text, path="log.txt", config=CONFIG) if f.code in ("PL305", "PL102")] == []


@pytest.mark.parametrize("mark", ["=", "-"])
def test_headings_that_name_a_prompts_own_parts_keep_it_one_prompt(mark):
    rule = mark * 40
    text = f"System prompt\n{rule}\nYou are a handbook assistant. Answer only from the context.\n\nContext\n{rule}\n{{context}}\n\nQuestion\n{rule}\n{{question}}\n"
    assert len(parse_text(text, "p.txt", ".txt").prompts) == 1


def test_short_separators_are_no_headings():
    text = "System prompt\n---\nYou are a handbook assistant.\n\nNotes\n---\nAnswer only from the context: {context}\n"
    assert len(parse_text(text, "p.txt", ".txt").prompts) == 1


ASSEMBLED = """RULE
REPORT DATE
RULE
2026-02-01

RULE
TITLE
RULE

RULE
DOCUMENT 1
RULE
Company      : Kaynes Technology
Chunk        : 617

Kaynes expands into aerospace with a targeted acquisition of a machine maker in Pune.

RULE
ANALYSIS INSTRUCTIONS
RULE
Analyze the retrieved knowledge carefully and write the findings as JSON.
Identify expansions, acquisitions, partnerships and risks, each with its date.
""".replace("RULE", "=" * 70)


@pytest.mark.parametrize("title, whole", [("RETRIEVED KNOWLEDGE", True), ("Sources", True), ("Context", True), ("Company profile", False)])
def test_a_section_titled_for_the_context_makes_the_titles_one_prompts(title, whole):
    """A logged prompt in banner sections ("RETRIEVED KNOWLEDGE", then "ANALYSIS INSTRUCTIONS") is one prompt as sent,
    where only the section named for instructions was read (blind70c coolMadhu17: its sources and their chunk numbers
    unread). Twin: with no section titled for the context, the section that names a prompt is still the prompt."""
    text = ASSEMBLED.replace("TITLE", title)
    [prompt] = parse_text(text, "debug_prompt.txt", ".txt").prompts
    assert ("Kaynes expands" in prompt.texts[0]) is whole
    assert [f.code for f in lint_text(text, path="debug_prompt.txt", config=CONFIG) if f.code == "PL203"] == (["PL203"] if whole else [])
