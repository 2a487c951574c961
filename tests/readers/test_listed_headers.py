"""A numbered item or a Markdown heading that carries metadata heads a source when it is one of
a run with text under each; a list of instructions or one dated section heading does not."""

from __future__ import annotations

import itertools

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers.segment import segment_text

CHUNKS = [("Returns Policy", "Damaged goods may be returned within 30 days."), ("Shipping FAQ", "We ship within 2 days.")]
MARKERS = {"dot": "{n}. ", "paren": "{n}) ", "h3": "### ", "h2 numbered": "## {n}. "}
# What each header shows after the title, and the rule that reports it.
SHOWN = {
    "dashed score": (" — match score {score}", "PL102"),
    "grouped relevance": (" (relevance: {score})", "PL102"),
    "piped similarity": (" | similarity {score}", "PL102"),
    "bare date": (" ({date})", "PL201"),
    "dashed updated": (" - updated {date}", "PL201"),
}
# The dates are judged against a fixed day: stale on 2026-12-02 or not, whatever the clock says.
CONFIG = build({"today": "2026-12-02"}, "test")
VALUES = [{"score": "0.92", "date": "2026-03-01"}, {"score": "0.81", "date": "2025-11-12"}]


def _prompt(marker: str, shown: str, blank: bool = True) -> str:
    blocks = [
        marker.format(n=n) + title + shown.format(**values) + "\n" + text + "\n"
        for n, ((title, text), values) in enumerate(zip(CHUNKS, VALUES), start=1)
    ]
    return "Answer from the sources below.\n\n" + ("\n" if blank else "").join(blocks) + "\nQuestion: Can I return it?\n"


CASES = list(itertools.product(MARKERS, SHOWN))


@pytest.mark.parametrize(("marker", "shown"), CASES, ids=[f"{m}:{s}" for m, s in CASES])
def test_listed_headers_with_metadata_head_sources(marker, shown):
    text = _prompt(MARKERS[marker], SHOWN[shown][0])
    prompt = segment_text(text)
    assert [s.title for s in prompt.sources] == ["Returns Policy", "Shipping FAQ"]
    assert [text[s.content.start : s.content.end].strip() for s in prompt.sources] == [t for _, t in CHUNKS]
    assert {f.code for f in lint_text(text, path="p.txt", config=CONFIG)} == {SHOWN[shown][1]}


@pytest.mark.parametrize("marker", MARKERS)
def test_the_clean_twin_passes(marker):
    assert lint_text(_prompt(MARKERS[marker], ""), path="p.txt", config=CONFIG) == []


@pytest.mark.parametrize(
    "text",
    [
        # Instructions: nothing under each item.
        "Rules:\n1. Cite sources by number (score 0.5 or more only).\n2. Prefer recent documents (dated 2024).\n3. Answer briefly.\n\nContext:\n{context}\n\nQuestion: {question}\n",
        # One dated section heading is a section, not a source.
        "## Context (updated 2026-01-01)\n{context}\n\n## Question\n{question}\n",
        # Headings with asides that are no metadata.
        "# Answering guide\n\n## Tone (formal)\nBe concise.\n\n## Format (markdown)\nUse bullets.\n\nContext:\n{context}\n",
        # Steps with text under them, no metadata.
        "Follow these steps.\n\n1. Read the question (carefully)\nThen find the passage.\n\n2. Write the answer (short)\nCite the passage.\n\nContext:\n{context}\n",
    ],
)
def test_lists_and_headings_without_a_run_of_metadata_head_nothing(text):
    assert segment_text(text).sources == []
    assert lint_text(text, path="p.txt", config=CONFIG) == []


@pytest.mark.parametrize(
    ("rest", "title", "field"),
    [
        ("Returns Policy - updated 2026-03-01", "Returns Policy", ("updated", "2026-03-01")),
        ("Returns Policy - rerank score 0.92", "Returns Policy", ("rerank score", "0.92")),
        ("Pre-sale FAQ - 12 March 2026", "Pre-sale FAQ", ("", "12 March 2026")),
        ("Q3 - Outlook", "Q3 - Outlook", None),
        ("Returns - Damaged goods", "Returns - Damaged goods", None),
    ],
)
def test_after_a_last_spaced_hyphen_only_a_known_field_or_a_date_is_metadata(rest, title, field):
    [source] = segment_text(f"[1] {rest}\nDamaged goods may be returned within 30 days.\n").sources
    assert source.title == title
    assert [(f.label, f.value) for f in source.fields] == ([field] if field else [])


FILES = [("docs/Returns.txt", "Damaged goods may be returned within 30 days of delivery."), ("docs\\shipping.txt", "We ship every order within 2 working days."),
         ("docs/Returns.txt", "Refunds reach the card used within 5 working days of the return.")]


def test_a_run_of_file_names_alone_heads_the_files_text():
    """"docs/returns.txt:" over the file's text, twice or more: each names its source, so chunks of one file
    apart are ungrouped (PL301)."""
    blocks = "\n\n".join(f"{name}:\n{text}" for name, text in FILES)
    text = f"Answer from the extracted parts below.\n=========\n{blocks}\n=========\nQuestion: Can I return it?\n"
    prompt = segment_text(text)
    assert [(s.title, text[s.content.start : s.content.end]) for s in prompt.sources] == FILES
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG)] == ["PL301"]


def test_one_file_name_under_a_line_that_speaks_of_the_context_heads_its_text():
    """"With this context", then "docs/seizure.txt:" over the file's text: the file retrieved. The instructions
    after it ("create a final answer ...") end it, and stand after the source (PL305)."""
    text = (
        "Instruction: With this context\n\ndocs/what-to-do-if-someone-has-a-seizure.txt:\nturn them on to their side after the convulsions stop\n"
        "stay with them and talk to them calmly until they recover\n\ncreate a final answer with references (\"SOURCES\"). If you don't know the answer, "
        "just say that you don't know. Don't try to make up an answer. Always return the file name from the context used to answer.\n\n"
        "Question: What can I do if someone has a seizure?\nOutput:\n"
    )
    prompt = segment_text(text)
    assert [(s.title, text[s.content.start : s.content.end]) for s in prompt.sources] == [
        ("docs/what-to-do-if-someone-has-a-seizure.txt", "turn them on to their side after the convulsions stop\nstay with them and talk to them calmly until they recover")
    ]
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG)] == ["PL305"]


@pytest.mark.parametrize("after", ["settings.yaml:\n  retries: 3\n  timeout: 30 seconds for every call", "main.py:\nprint('the program says hello to everyone')"])
def test_one_file_name_alone_heads_nothing(after):
    text = f"Fix the bug in the file below.\n\n{after}\n\nQuestion: Why does it fail?\n"
    assert segment_text(text).sources == []
