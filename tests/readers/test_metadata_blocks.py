"""A source whose metadata sits under a "metadata:" line, one field a bulleted line, each
heading level a field of its own ("Header 1: ...", as Markdown splitters store them), then a
content label; numbered paragraphs inside its text stay its text."""

from __future__ import annotations

import itertools

import pytest

from promptlint.engine.lint import lint_text
from promptlint.readers.segment import segment_text

DOCS = {"Regulation": ("Regulations", "Title II"), "Directive": ("Directives", "Article 7")}
CHUNKS = [
    ("Regulation", "3. For the purposes of this Article, the term undertaking means the holding company."),
    ("Regulation", "(iii) where applicable, a list of the related undertakings excluded from the model."),
    ("Directive", "(71) Insurance undertakings should have assets of sufficient quality.\n(72) Member States should not require pledging."),
    ("Regulation", "(24) The segmentation of obligations should reflect the nature of the risks."),
]
OPENERS = ["metadata:", "Metadata:", "**Metadata:**", "document metadata:"]
BULLETS = ["* ", "- ", ""]
CONTENT = ["extract:", "Content:", "text:"]


def _prompt(opener: str, bullet: str, content: str, chunks=CHUNKS) -> str:
    blocks = []
    for n, (doc, text) in enumerate(chunks, start=1):
        h1, h2 = DOCS[doc]
        lines = [f"### source {n}", "", opener, f"{bullet}Title: {doc} 2015/35", f"{bullet}Header 1: {h1}", f"{bullet}Header 2: {h2}", ":", "", content, "", text]
        blocks.append("\n".join(lines))
    return "## Question\nWhat is the solvency formula?\n\n## Context\n\n" + "\n\n".join(blocks) + "\n\n## Answer\n"


CASES = list(itertools.product(OPENERS, BULLETS, CONTENT))


@pytest.mark.parametrize(("opener", "bullet", "content"), CASES)
def test_fields_under_a_metadata_line_and_the_text_under_a_content_label(opener, bullet, content):
    text = _prompt(opener, bullet, content)
    sources = segment_text(text).sources
    assert [(s.key, s.title, s.heading_path) for s in sources] == [
        (str(n), f"{doc} 2015/35", DOCS[doc]) for n, (doc, _) in enumerate(CHUNKS, start=1)
    ]
    assert [text[s.content.start : s.content.end] for s in sources] == [chunk for _, chunk in CHUNKS]


@pytest.mark.parametrize(("opener", "bullet", "content"), CASES[:: len(CONTENT) + 1])
def test_interleaved_documents_are_reported_and_grouped_ones_are_not(opener, bullet, content):
    assert [f.code for f in lint_text(_prompt(opener, bullet, content), path="p.txt") if f.code == "PL301"] == ["PL301"]
    grouped = sorted(CHUNKS, key=lambda chunk: chunk[0])
    assert [f.code for f in lint_text(_prompt(opener, bullet, content, grouped), path="p.txt") if f.code == "PL301"] == []


def test_numbered_paragraphs_alone_still_head_sources():
    text = "Context:\n\n(1) Returns are accepted within 30 days.\n\n(2) We ship within 2 days.\n\nQuestion: Can I return it?\n"
    assert [s.key for s in segment_text(text).sources] == ["1", "2"]



# A scanned document's own clauses, its pages twice over: a renderer numbers its sources in order.
CLAUSES = ["Debt — updated 2026-03-01\nThe undersigned owes no federal debt.", "Lobbying — updated 2026-03-02\nNo funds were paid to influence an award.",
           "Subawards — updated 2026-03-03\nThis certification binds all subawards."]


@pytest.mark.parametrize("marker", ["({n})", "{n}."])
def test_numbered_paragraphs_whose_numbers_go_back_head_no_sources(marker):
    numbers = [1, 2, 3, 1, 2]
    text = "Extract the title and the sender of this document.\n\n" + "\n\n".join(
        f"{marker.format(n=n)} {CLAUSES[n - 1]}" for n in numbers) + "\n"
    assert segment_text(text).sources == []
    # The twin, numbered in order, heads one source a paragraph.
    ordered = "Extract the title and the sender of this document.\n\n" + "\n\n".join(
        f"{marker.format(n=at)} {CLAUSES[n - 1]}" for at, n in enumerate(numbers, start=1)) + "\n"
    assert [s.key for s in segment_text(ordered).sources] == ["1", "2", "3", "4", "5"]
