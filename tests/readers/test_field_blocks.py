"""A source whose body is sections under labels in capitals ("SUMMARY:", then "TABLES:"): each section runs to the
next label written the same way, blank lines, headings and bold labels of its own included, and a heading inside a
field's section ends no source (blind66m moksh-m9u: a generated summary with "### ..." headings beside the chunk's
own table was cut at its first heading and read as instructions, so the derived text was missed)."""

from __future__ import annotations

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.model.prompt import PartKind
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02", "select": ["PL104", "PL305"]}, "test")

SUMMARY = """### Searchable description of the LM2596 datasheet

#### 1. Key facts
- **Part number**: LM2596, fixed 5.0 V output
- **Load current**: 3 A

#### 2. Questions this content could answer
- "What inductor does the LM2596 need?"
"""
PROMPT = """Answer from the retrieved chunks below.

QUESTION: What is the pinout of the LM2596?

RETRIEVED CONTEXT:

--- Chunk 1 ---
SUMMARY:
{summary}
{label}
Pin 1 is the input, pin 2 the output, pin 3 ground, pin 4 feedback and pin 5 the on/off control.
"""


def test_a_section_under_a_capital_label_runs_to_the_next_label_written_the_same_way():
    text = PROMPT.format(summary=SUMMARY, label="TEXT:")
    prompt = segment_text(text)
    [source] = prompt.sources
    [summary] = source.fields
    assert (summary.label, summary.value) == ("summary", SUMMARY.strip())
    assert text[source.content.start : source.content.end].endswith("pin 5 the on/off control.")
    assert [p.kind for p in prompt.parts][-1] is PartKind.SOURCES
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG)] == ["PL104"]
    # The summary goes whole with its label (an unsafe fix: it is the lossy copy, and the text stays).
    fixed = fix_text(text, path="p.txt", config=CONFIG, unsafe=True)
    assert "SUMMARY:" not in fixed and "Key facts" not in fixed and "TEXT:\nPin 1 is the input" in fixed


def test_a_heading_after_the_chunks_text_still_ends_the_source():
    """The twin: with no field's label above it, a heading at the margin opens the next part of the prompt."""
    text = PROMPT.format(summary="", label="").replace("SUMMARY:\n", "") + "\n### Answer format\nAnswer in two sentences, cite the chunk, and say when the context does not hold the answer.\n"
    prompt = segment_text(text)
    assert text[prompt.sources[0].content.start : prompt.sources[0].content.end].endswith("pin 5 the on/off control.")
    assert [p.kind for p in prompt.parts][-1] is PartKind.INSTRUCTIONS


def test_a_heading_after_a_fields_short_block_in_lower_case_still_ends_the_source():
    """The twin: "Summary:" in lower case holds the lines up to a blank one, and the heading after the text is the prompt's."""
    text = PROMPT.format(summary="A 3 A buck regulator.\n", label="Text:").replace("SUMMARY:", "Summary:") + "\n## Rules\n- Answer only from the chunks.\n"
    prompt = segment_text(text)
    assert text[prompt.sources[0].content.start : prompt.sources[0].content.end].endswith("pin 5 the on/off control.")
    assert [p.kind for p in prompt.parts][-1] is PartKind.INSTRUCTIONS
