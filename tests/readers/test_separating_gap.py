"""The last source of an assembled prompt ends at a gap as wide as the one that ends every other source.

A renderer writes the same gap after each source; when the sources' own text never holds a blank run that
wide, the same gap after the last source's text is where the next part of the prompt starts, whatever its
words (an instruction with a verb no list holds, a history block, notes). Each case has twins where the
gap says nothing: a gap of one blank line (a paragraph break), or sources whose text holds such gaps.
"""

from __future__ import annotations

import pytest

from promptlint.model.prompt import PartKind
from promptlint.readers.segment import segment_text

CHUNKS = [
    "Damaged goods may be returned within 30 days of delivery with proof of purchase.",
    "Refunds are issued to the original payment method within five business days.",
    "Standard lead time is six weeks from order confirmation for made-to-order items.",
    "Gift cards cannot be exchanged for cash except where the law requires it.",
]
HEADERS = {
    "bracketed key and fields": "[{n}] doc_id={h} source=policy.pdf",
    "numbered document": "Document {n}: Returns handbook",
    "key and title": "[{n}] Returns handbook, part {n}",
}
# What follows the sources, in words no list of openers or labels holds.
TAILS = {
    "sections to produce": "Produce the final answer with the following exact sections:\n1) SHORT ANSWER: one paragraph.",
    "tone": "Make the language clear and professional, without commentary.",
    "history block": "CHAT HISTORY (for context):\nUSER: Hello\nASSISTANT: Hi",
}


def _prompt(header, count, gap, tail, inner=0, ragged=False):
    blocks = []
    for n in range(1, count + 1):
        chunk = CHUNKS[n - 1] + ("\n" * (inner + 1) + "A second paragraph of the same document." if inner else "")
        chunk += "\nA line more of the same document." if ragged and n == 1 else ""
        blocks.append(header.format(n=n, h=f"{n:040x}") + "\n" + chunk)
    return "You are a support assistant.\n\nQUESTION: How long do I have?\n\n" + ("\n" * (gap + 1)).join(blocks) + "\n" * (gap + 1) + tail + "\n"


@pytest.mark.parametrize("header", sorted(HEADERS))
@pytest.mark.parametrize("count", [3, 4])
@pytest.mark.parametrize("gap", [2, 3])
@pytest.mark.parametrize("tail", sorted(TAILS))
def test_the_last_source_ends_at_the_gap_every_source_ends_at(header, count, gap, tail):
    text = _prompt(HEADERS[header], count, gap, TAILS[tail])
    prompt = segment_text(text)
    assert len(prompt.sources) == count
    last = prompt.sources[-1]
    assert text[last.content.start : last.content.end].strip() == CHUNKS[count - 1]
    after = text.index(TAILS[tail].split("\n")[0])
    assert prompt.sources_block.end <= after
    assert not any(p.kind is PartKind.SOURCES and p.span.end > after for p in prompt.parts)


# Tails no other reading ends a source at (the history block's label ends it whatever the gap).
UNMARKED = ["sections to produce", "tone"]


@pytest.mark.parametrize("header", sorted(HEADERS))
@pytest.mark.parametrize("tail", UNMARKED)
@pytest.mark.parametrize("twin", ["one blank line", "sources holding the gap"])
def test_a_gap_of_one_blank_line_or_one_the_sources_hold_says_nothing(header, tail, twin):
    """Sources of different lengths: one blank line is also how a chunk's paragraphs are set apart."""
    text = _prompt(HEADERS[header], 3, 1, TAILS[tail], ragged=True) if twin == "one blank line" else _prompt(HEADERS[header], 3, 2, TAILS[tail], inner=2)
    last = segment_text(text).sources[-1]
    content = text[last.content.start : last.content.end]
    # Not cut by the gap: the last source's text runs on (its own second paragraph, then the tail).
    assert CHUNKS[2] in content and TAILS[tail].split("\n")[0] in content
    assert ("A second paragraph" in content) == (twin == "sources holding the gap")


# Sources a renderer writes one line each: the header carries a few words of chunk, or none.
ONE_LINE_HEADERS = {
    "titled group then text": "Document [{n}](Title: doc {n}) text {n}",
    "key and title": "[{n}] Returns handbook, part {n}",
    "numbered document": "Document {n}: returns-{n}.pdf",
}


@pytest.mark.parametrize("header", sorted(ONE_LINE_HEADERS))
@pytest.mark.parametrize("count", [2, 3])
@pytest.mark.parametrize("tail", sorted(TAILS) + ["question"])
def test_the_last_of_one_line_sources_ends_at_the_first_blank_line(header, count, tail):
    """Every source before the last is its header line alone: so is the last, and what follows a blank
    line is the next part (litm's fixtures: `Document [2](Title: second doc) second doc text`, then the
    question again)."""
    follows = "Question: How long do I have?\nAnswer:" if tail == "question" else TAILS[tail]
    lines = [ONE_LINE_HEADERS[header].format(n=n) for n in range(1, count + 1)]
    text = "Answer from the documents.\n\nQuestion: How long do I have?\n\n" + "\n".join(lines) + "\n\n" + follows + "\n"
    prompt = segment_text(text)
    assert len(prompt.sources) == count
    assert prompt.sources[-1].span.end == text.index(lines[-1]) + len(lines[-1])
    assert len(prompt.questions) == (2 if tail == "question" else 1)
    # The twin: a source before the last has a body line, so the last one may too, past its blank line.
    lines[0] += "\n" + CHUNKS[0]
    twin = "Answer from the documents.\n\n" + "\n".join(lines) + "\n\nSee the returns page for details.\n"
    assert segment_text(twin).sources[-1].span.end == len(twin.rstrip("\n"))


@pytest.mark.parametrize("header", sorted(HEADERS))
@pytest.mark.parametrize("lines", [1, 2])
@pytest.mark.parametrize("count", [3, 4])
@pytest.mark.parametrize("tail", UNMARKED)
def test_the_last_of_records_of_one_shape_ends_at_its_first_blank_line(header, lines, count, tail):
    """Every source before the last is its header and the same few lines (ARIA's retrieved failures: a
    dated header and a quoted message): the last one is too, and what follows its blank line is the next part."""
    extra = "\nSeen again after the rollback." if lines == 2 else ""
    blocks = [HEADERS[header].format(n=n, h=f"{n:040x}") + "\n" + CHUNKS[n - 1] + extra for n in range(1, count + 1)]
    text = "You are a support assistant.\n\n" + "\n".join(blocks) + "\n\n" + TAILS[tail] + "\n"
    last = segment_text(text).sources[-1]
    assert text[last.content.start : last.content.end].strip() == CHUNKS[count - 1] + extra
    # The twin: the first record is a line longer, so the shape is no renderer's and the gap says nothing.
    blocks[0] += "\nA line more of the same document."
    twin = "You are a support assistant.\n\n" + "\n".join(blocks) + "\n\n" + TAILS[tail] + "\n"
    last = segment_text(twin).sources[-1]
    assert TAILS[tail].split("\n")[0] in twin[last.content.start : last.content.end]
