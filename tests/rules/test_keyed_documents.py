"""PL301 with citation keys that name documents, and with a source index after the sources.

When keys repeat (`[Source 1]` on several chunks), each key is a document, whatever the titles say:
chunks of one key apart are ungrouped. An index that names the sources again after them, each entry a
header with no text, is no chunk. Generated over header forms, title forms and index forms, each with
a twin: the same chunks grouped, or the same index after sources that are grouped."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL301"]}, "test")
HEADERS = {"source": "[Source {key}]: {title}", "bracket": "[{key}] {title}", "document": "Document {key}: {title}"}
TITLES = {"one section name": "[Title: Engineering]", "none": ""}
TEXTS = ["Fees are paid per semester in two instalments.", "The hostel fee covers meals and laundry.", "Scholarships need a minimum aggregate of 85%.",
         "Lateral entry is open to diploma holders.", "The programme runs for four years full time."]


def _prompt(keys: list[int], header: str, title: str, index: str = "") -> str:
    blocks = "\n\n".join(HEADERS[header].format(key=key, title=title).rstrip() + "\n" + text for key, text in zip(keys, TEXTS))
    return f"Answer only from the sources below.\n\nCONTEXT SOURCES:\n{blocks}\n\n{index}USER QUESTION: what is the fee?\n"


def _pl301(text: str) -> list[tuple[int, bool]]:
    return [(f.line, f.fix is not None) for f in lint_text(text, path="p.txt", config=CONFIG)]


@pytest.mark.parametrize("title", sorted(TITLES))
@pytest.mark.parametrize("header", sorted(HEADERS))
def test_chunks_of_one_key_apart_are_ungrouped(header, title):
    found = _pl301(_prompt([1, 2, 1, 2, 1], header, TITLES[title]))
    # The third chunk (line 10) is the first back under a key seen before; no fix, as the keys are the documents.
    assert found == [(10, False)]


@pytest.mark.parametrize("title", sorted(TITLES))
@pytest.mark.parametrize("header", sorted(HEADERS))
def test_chunks_of_one_key_together_are_grouped(header, title):
    assert _pl301(_prompt([1, 1, 1, 2, 2], header, TITLES[title])) == []


INDEXES = {
    "with urls": "SOURCE INDEX:\n[1] Engineering — https://example.edu/a\n[2] Fees — https://example.edu/b\n[3] Hostel — https://example.edu/c\n\n",
    "titles": "References:\n[1] Engineering\n[2] Fees\n[3] Hostel\n\n",
}


@pytest.mark.parametrize("index", sorted(INDEXES))
def test_a_source_index_after_the_sources_is_no_chunk(index):
    text = "Answer only from the sources below.\n\n" + "\n\n".join(
        f"[{key}] {title}\n{body}" for key, title, body in zip([1, 2, 3], ["Engineering", "Fees", "Hostel"], TEXTS)
    ) + "\n\n" + INDEXES[index] + "Question: what is the fee?\n"
    assert _pl301(text) == []


@pytest.mark.parametrize("header", sorted(HEADERS))
def test_repeated_identifiers_that_number_no_documents_are_no_document_keys(header):
    # A reference list's ids ([25430763](https://...) cited twice) repeat, but no renderer numbered documents 1 to n.
    assert _pl301(_prompt([25430763, 206561241, 25430763, 206561241, 25430763], header, "")) == []
