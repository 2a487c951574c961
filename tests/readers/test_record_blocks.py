"""Records of labelled lines ("URL: / Title: / Content:") whose page text runs over several
paragraphs, opened by a lone tag or a context label: each record is one source, its text all of
its paragraphs; what follows the last record is the prompt again. Generated over the openings,
the forms (text and a logged chat request) and the number of paragraphs, each with its twin."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text, segment_document
from promptlint.readers import document

CONFIG = build({"today": "2026-12-02"}, "test")

PAGES = [("https://example.com/refunds", "Refund rules",
          ["Refunds are accepted within 30 days of delivery.", "Open your order page and press Return.\nPrint the label and drop the parcel at a post office."]),
         ("https://example.com/shipping", "Shipping times",
          ["Standard shipping takes 3-5 business days.", "Customs fees are paid by the recipient.\nTracking numbers are sent by email."])]
OPENINGS = {"tag": ("<search_results>", "</search_results>"), "label": ("Context:", ""), "heading": ("## Search results", "")}
RULES = "Rules:\nNever guess an answer the results do not give.\nCite the URL of each result you use.\nAnswer in two short paragraphs at most."


def _records(paragraphs):
    return "\n\n".join(f"URL: {url}\nTitle: {title}\nContent:\n" + "\n\n".join(texts[:paragraphs]) for url, title, texts in PAGES)


def _prompt(opening, paragraphs, tail=""):
    start, end = OPENINGS[opening]
    block = "\n".join(x for x in (start, _records(paragraphs), end) if x)
    return f"You are a search assistant. Answer from the results.\n\n{block}\n{tail}\nQuestion: How long do refunds take?\n"


def _forms(text):
    system, _, question = text.rpartition("Question: ")
    request = {"model": "m", "messages": [{"role": "system", "content": system}, {"role": "user", "content": question.strip()}]}
    return {"prompt.txt": text, "request.json": json.dumps(request)}


def _contents(text, path):
    doc = document.parse(text.encode(), path, "." + path.rsplit(".", 1)[1])
    [prompt] = segment_document(doc, CONFIG)
    return [prompt.text[s.content.start : s.content.end] for s in prompt.sources]


@pytest.mark.parametrize("paragraphs", [1, 2])
@pytest.mark.parametrize("opening", sorted(OPENINGS))
def test_each_record_holds_all_of_its_page_text(opening, paragraphs):
    for path, text in _forms(_prompt(opening, paragraphs)).items():
        assert _contents(text, path) == ["\n\n".join(texts[:paragraphs]) for _, _, texts in PAGES], path
        assert [f.code for f in lint_text(text, path=path, config=CONFIG)] == [], path


@pytest.mark.parametrize("opening", ["label", "heading"])
def test_instructions_after_the_last_record_are_the_prompt_again(opening):
    # The twin: rules after the records, a blank line before them, are static text after the context.
    for path, text in _forms(_prompt(opening, 2, tail="\n" + RULES + "\n")).items():
        assert _contents(text, path)[-1] == "\n\n".join(PAGES[-1][2]), path
        assert [f.code for f in lint_text(text, path=path, config=CONFIG)] == ["PL305"], path


# A specification of the fields each item of the answer has, written twice around the context.
SPEC_FIELDS = [("Description", "A comprehensive description of the point."),
               ("Importance Score", "An integer between 0 and 100 that says how much the point matters.")]


@pytest.mark.parametrize("lead_in", ["Each key point in the response should have the following element:",
                                     "Every item you return has these fields:", "**Each finding must include:**", "Format of each entry："])
@pytest.mark.parametrize("bullet", ["- ", "", "* "])
def test_a_line_announcing_fields_is_a_specification_not_a_record(lead_in, bullet):
    spec = lead_in + "\n" + "\n".join(f"{bullet}{label}: {value}" for label, value in SPEC_FIELDS)
    text = f"Summarise the reports.\n\n{spec}\n\n---Data---\n\n{{context_data}}\n\n---Goal---\n\n{spec}\n"
    assert _sources(text) == 0
    assert {f.code for f in lint_text(text, path="prompt.txt", config=CONFIG)} <= {"PL305"}
    # The twin: a passage in place of the announcement is a record's text, and the records are sources.
    assert _sources(text.replace(lead_in, "Revenue grew by 8% in the third quarter against the same quarter of last year.")) == 2


def _sources(text: str) -> int:
    return sum(len(p.sources) for p in segment_document(document.parse_text(text, "prompt.txt", ".txt"), CONFIG))
