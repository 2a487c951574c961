"""Records a debug dump decorates: a banner over each section, the sources' own header style, metadata
padded to a column, and chunks that are Markdown files with headings of their own (Market Intelligence
Agent's report prompt: "DOCUMENT 1" between rules, "Chunk        : 617", then an article's "## Article 2").

Each case has a twin that differs in the one sign it tests.
"""

from __future__ import annotations

import pytest

from promptlint.engine.lint import lint_text
from promptlint.model.prompt import PartKind
from promptlint.readers.segment import segment_text

RULE = "=" * 60
ARTICLES = [
    "Acme opens a plant in Pune.\n\n## Article 2\n\nAcme signs a supply deal with Volta.",
    "Acme hires 400 engineers.\n\n## Article 2\n\nAcme wins a defence order.",
    "Acme buys a Canadian maker.\n\n## Article 3\n\nAcme reports record revenue.",
]
LABELS = {"padded": "{label:<13}: {value}", "snake": "{label}: {value}"}


def _dump(style="padded", banner="ANALYSIS INSTRUCTIONS", outer="DOCUMENT {n}"):
    blocks = []
    for n, article in enumerate(ARTICLES, 1):
        fields = [("Company", "Acme"), ("Source File", "acme.md"), ("Chunk", str(600 + n)), ("Keyword", "")]
        meta = "\n".join(LABELS[style].format(label=label, value=value).rstrip() for label, value in fields)
        blocks.append(f"{RULE}\n{outer.format(n=n)}\n{RULE}\n\n{meta}\n\nCONTENT\n-------\n\n{article}\n\n")
    return (f"You are a market analyst. Use only the supplied knowledge.\n\n{RULE}\nRETRIEVED KNOWLEDGE\n{RULE}\n\n"
            + "".join(blocks) + f"\n{RULE}\n{banner}\n{RULE}\n\nAnalyze the retrieved knowledge carefully.\nReturn only JSON.\n")


def test_headings_of_another_style_between_the_sources_headers_are_the_chunks_own():
    text = _dump()
    prompt = segment_text(text)
    assert [text[s.header.start : s.header.end].strip().split("\n")[0] for s in prompt.sources] == ["DOCUMENT 1", "DOCUMENT 2", "DOCUMENT 3"]
    # The last chunk keeps its own article, up to the banner of the next section.
    last = prompt.sources[-1]
    assert text[last.content.start : last.content.end].endswith("Acme reports record revenue.")
    instructions = [text[p.span.start : p.span.end] for p in prompt.parts if p.kind is PartKind.INSTRUCTIONS]
    assert "Article 3" not in "".join(instructions) and "Analyze the retrieved knowledge" in instructions[-1]


def test_the_twin_with_one_header_style_reads_each_header_as_a_source():
    """Headers of one style, with no other between them: each is a source, as before."""
    text = _dump().replace("## Article 2", "DOCUMENT 9").replace("## Article 3", "DOCUMENT 9")
    assert len(segment_text(text).sources) == 6


@pytest.mark.parametrize("banner, ends", [("ANALYSIS INSTRUCTIONS", True), ("Acme reports record revenue again.", False)])
def test_a_banner_ends_the_last_source_and_a_sentence_between_rules_does_not(banner, ends):
    text = _dump(banner=banner)
    last = segment_text(text).sources[-1]
    assert (banner not in text[last.span.start : last.span.end]) == ends


@pytest.mark.parametrize("style", sorted(LABELS))
def test_labels_padded_to_a_column_are_metadata_whatever_they_say(style):
    """`f"{name:<13}: {value}"` is a renderer's; "Company: Acme" alone is any document's text."""
    source = segment_text(_dump(style=style)).sources[0]
    labels = [f.label for f in source.fields]
    if style == "padded":
        assert labels == ["company", "source file", "chunk", "keyword"]
    else:
        assert "company" not in labels


SUMMARISED = "Answer from the sources.\n\n{blocks}\nQuestion: How long do I have to return damaged goods?\n"
CHUNKS = [("The returns window is 30 days.", "Damaged goods may be returned within 30 days of delivery with proof of purchase."),
          ("Delivery takes three to five days.", "Standard delivery takes 3-5 working days; express is next day.")]


@pytest.mark.parametrize("label", ["SUMMARY", "Summary", "Key points"])
def test_a_label_alone_over_its_lines_is_one_field_when_text_follows(label):
    blocks = "".join(f"--- Chunk {n} ---\n{label}:\n{summary}\n\nTEXT:\n{text}\n\n" for n, (summary, text) in enumerate(CHUNKS, 1))
    text = SUMMARISED.format(blocks=blocks)
    prompt = segment_text(text)
    assert [[f.value for f in s.fields] for s in prompt.sources] == [[summary] for summary, _ in CHUNKS]
    assert [text[s.content.start : s.content.end] for s in prompt.sources] == [body for _, body in CHUNKS]


def test_the_twin_with_nothing_after_the_labelled_lines_keeps_them_as_the_text():
    """The summary is all the source has: it is its text, and nothing may remove it."""
    blocks = "".join(f"[{n}] Returns\nSummary:\n{summary}\n\n" for n, (summary, _) in enumerate(CHUNKS, 1))
    text = SUMMARISED.format(blocks=blocks)
    prompt = segment_text(text)
    assert [text[s.content.start : s.content.end] for s in prompt.sources] == [summary for summary, _ in CHUNKS]


def test_the_summary_beside_the_text_is_removed_and_the_summary_alone_is_kept():
    from promptlint.engine.lint import fix_text
    beside = SUMMARISED.format(blocks="".join(f"--- Chunk {n} ---\nSUMMARY:\n{s}\n\nTEXT:\n{t}\n\n" for n, (s, t) in enumerate(CHUNKS, 1)))
    fixed = fix_text(beside, path="p.txt")
    assert "SUMMARY" not in fixed and all(t in fixed for _, t in CHUNKS)
    alone = SUMMARISED.format(blocks="".join(f"[{n}] Returns\nSummary:\n{s}\n\n" for n, (s, _) in enumerate(CHUNKS, 1)))
    assert fix_text(alone, path="p.txt") == alone


# Chunks as a PDF extractor leaves them, on one line each: far longer than any title.
TEXTS = [" ".join([sentence] * 16) for sentence in (
    "Leydig cells make testosterone from cholesterol under LH (see Figure 48-1).", "FSH acts on Sertoli cells to support sperm maturation.",
    "GnRH pulses set the rhythm of LH release.", "Inhibin from the gonads holds FSH back.")]


@pytest.mark.parametrize("dash", ["\u2014", "\u2013"])
def test_an_attribution_after_each_text_names_its_document(dash):
    """"[n] text — Book (year), Chapter, Page": the renderer wrote the document after the text (Melchizedek's dump).
    A short text before a dash is a title, as the canonical header writes it: only a chunk's length tells them apart."""
    books = ["Costanzo Physiology (2021, Elsevier)", "Guyton and Hall Physiology (2021, Elsevier)"] * 2
    lines = [f"[{n}] {t} {dash} {b}, 10 Reproductive Physiology, Page {400 + n}" for n, (t, b) in enumerate(zip(TEXTS, books), 1)]
    text = "Answer with citations.\nQuestion: What does LH do?\nContext:\n" + "\n".join(lines) + "\nFinal answer:\n"
    prompt = segment_text(text)
    assert [s.title for s in prompt.sources] == books
    assert [text[s.content.start : s.content.end] for s in prompt.sources] == TEXTS
    assert [f.code for f in lint_text(text, path="p.txt") if f.code == "PL301"] == ["PL301"]  # one cause, one finding
    # The twin: no document named twice, so nothing shows the dash heads an attribution; the text keeps it.
    distinct = "\n".join(f"[{n}] {t} {dash} note {n}, page {n}" for n, t in enumerate(TEXTS, 1))
    twin = segment_text("Answer with citations.\nContext:\n" + distinct + "\n")
    assert [s.title for s in twin.sources] == [None] * 4


def test_the_twin_with_another_style_inside_one_chunk_only_reads_it_as_a_source():
    """A header of another style inside one chunk alone may be a source written another way ("[2]" then "Document 3:")."""
    text = _dump().replace("## Article 2\n\nAcme wins a defence order.", "Acme wins a defence order.").replace("## Article 3", "Acme adds:")
    assert sum("## Article 2" in text[s.header.start : s.header.end] for s in segment_text(text).sources) == 1
