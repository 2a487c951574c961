"""Sources a retriever handed over, found in the request they were sent in: each document's text is
a source's content exactly, and its wrapper's fields are found by their values, printed however
the formatter printed them, under the metadata key they came from; a clean twin prints none."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import check_document
from promptlint.readers import document as documents
from promptlint.readers.retrieved import Retrieved, retrieved_sources
from promptlint.readers.segment import words

CONFIG = build({"today": "2026-12-02"}, "test")
DOCS = [
    {"title": "Returns Policy", "text": "Damaged goods may be returned within 30 days of delivery.", "score": 0.8231, "updated": "2026-11-20", "rank": 1},
    {"title": "Refunds FAQ", "text": "Refunds are paid to the original card within five working days.", "score": 0.7714, "updated": "2026-10-02", "rank": 2},
]
RETRIEVED = tuple(Retrieved(d["text"], tuple((k, v) for k, v in d.items() if k != "text")) for d in DOCS)
# How a formatter prints a document, the rule that fires on it, and its clean twin without the field.
FORMS = [
    ("{title} (relevance {score:.2f})\n{text}", "PL102", "{title}\n{text}"),
    ("{title} ({score:.0%})\n{text}", "PL102", "{title}\n{text}"),
    ("[{score:.3f}] {title}\n{text}", "PL102", "{title}\n{text}"),
    ("{title} | {score}\n{text}", "PL102", "{title} | {rank}\n{text}"),
    ("Title: {title}\nRelevance: {score:.2f}\n{text}", "PL102", "Title: {title}\n{text}"),
    ("{title}: {text} (score {score:.2f})", "PL102", "{title}: {text}"),
    ("<doc title=\"{title}\" similarity=\"{score:.4f}\">{text}</doc>", "PL102", "<doc title=\"{title}\">{text}</doc>"),
    ("{title} (updated {updated})\n{text}", "PL201", "{title}\n{text}"),
    ("{title} \u2014 {updated}\n{text}", "PL201", "{title} \u2014 rank {rank}\n{text}"),
    ("{title}: {text} [{updated}]", "PL201", "{title}: {text}"),
    # LlamaIndex's default: the metadata as "key: value" lines, a blank line above the text.
    ("title: {title}\nupdated: {updated}\n\n{text}", "PL201", "title: {title}\n\n{text}"),
    ("source: {title}\nscore: {score}\n\n{text}", "PL102", "source: {title}\n\n{text}"),
]
INSTRUCTIONS = ["Answer the question from the context only.\n\nContext:\n{context}", "Use these documents:\n{context}\n\nCite their titles."]


def _findings(form: str, instructions: str, retrieved=RETRIEVED) -> list[str]:
    context = "\n\n".join(form.format(**d) for d in DOCS)
    body = {"messages": [{"role": "system", "content": instructions.format(context=context)}, {"role": "user", "content": "How long do I have?"}]}
    doc = documents.parse(json.dumps(body).encode(), "request", ".json", CONFIG.lexicon)
    doc = replace(doc, prompts=tuple(replace(p, retrieved=retrieved) for p in doc.prompts))
    return [f.code for f in check_document(doc, CONFIG).findings]


@pytest.mark.parametrize("instructions", INSTRUCTIONS)
@pytest.mark.parametrize(("form", "code", "twin"), FORMS)
def test_a_printed_metadata_value_is_a_field_and_its_twin_is_clean(form, code, twin, instructions):
    assert _findings(form, instructions) == [code, code]
    assert _findings(twin, instructions) == []


def test_without_the_documents_most_of_these_forms_are_not_read():
    # What the documents add: from the text alone, only the markup's attribute, the header lines
    # whose skeleton repeats (a value in brackets, a measure's words and its fraction, or a value after ' | '),
    # labelled records and metadata lines over the text (a LlamaIndex node's) are read as fields.
    read = [form for form, code, _ in FORMS if _findings(form, INSTRUCTIONS[0], ()) == [code, code]]
    assert read == ["{title} (relevance {score:.2f})\n{text}", "{title} ({score:.0%})\n{text}", "{title} | {score}\n{text}", "Title: {title}\nRelevance: {score:.2f}\n{text}",
                    '<doc title="{title}" similarity="{score:.4f}">{text}</doc>', "{title} (updated {updated})\n{text}",
                    "title: {title}\nupdated: {updated}\n\n{text}"]


def test_a_source_is_its_document_text_with_the_wrapper_before_it():
    text = "Context:\nReturns Policy (relevance 0.82)\nDamaged goods may be returned within 30 days of delivery.\n\nUnrelated text."
    vocab = words((), CONFIG.lexicon)
    [source] = retrieved_sources(text, RETRIEVED, (), vocab)
    assert text[source.span.start : source.span.end] == "Returns Policy (relevance 0.82)\nDamaged goods may be returned within 30 days of delivery."
    assert text[source.content.start : source.content.end] == DOCS[0]["text"]
    assert source.title == "Returns Policy"
    assert [(f.label, f.value, text[f.value_span.start : f.value_span.end]) for f in source.fields] == [("score", "0.82", "0.82")]


def test_a_document_not_in_the_prompt_is_no_source_and_a_short_value_no_field():
    text = "Context:\nRank 1 \u2014 Damaged goods may be returned within 30 days of delivery."
    [source] = retrieved_sources(text, (Retrieved("Not sent."), RETRIEVED[0]), (), words((), CONFIG.lexicon))
    assert source.fields == [] and source.title is None


@pytest.mark.parametrize(("written", "removed"), [
    ("Returns Policy (score: 0.82)\n", "Returns Policy\n"),
    ("Returns Policy (relevance=0.82)\n", "Returns Policy\n"),
    ("Returns Policy, score: 0.82\n", "Returns Policy,\n"),
    ("Returns Policy\nRelevance: 0.82\n", "Returns Policy\n"),
    ("Returns Policy (0.82)\n", None),  # no label before it: the field is the value alone
])
def test_a_value_found_by_its_value_takes_its_label_when_it_goes(written, removed):
    """The field a document's value is found at spans the label written before it: removing it leaves
    no dangling "score:" nor empty brackets."""
    text = f"Context:\n{written}{DOCS[0]['text']}\n"
    [source] = retrieved_sources(text, RETRIEVED[:1], (), words((), CONFIG.lexicon))
    [field] = source.fields
    assert text[field.value_span.start : field.value_span.end] == "0.82"
    if removed is None:
        assert field.span == field.value_span
    else:
        assert text[: field.span.start] + text[field.span.end :] == f"Context:\n{removed}{DOCS[0]['text']}\n"
