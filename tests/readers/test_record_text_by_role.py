"""Records whose every line is labelled and whose text is under a label the lexicon does not know
("Product: ... / Review: This is the only cream ... / Rating: 3.0 / Similarity distance: 0.65"): the one
value written in sentences is the record's text, the short values around it are its fields. Generated
over the text's label, the field names and their order, and the way the context is opened, each with
its twin whose long value is a list of tags, no sentence (values, no retrieved text)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.model.findings import Applicability
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02"}, "test")

ITEMS = [("Velvachol Moisturizer Cream, 14 Ounce", "This is the only cream that does not bother my sensitive skin. I have used it for thirty years.", "3.0", "0.6517"),
         ("The Body Shop Whip Body Lotion, Shea, 8.4 Fluid Ounce", "I use this product every winter and it never disappoints. The smell is light.", "5.0", "0.6690"),
         ("Senka Perfect Emulsion 150ml", "My skin is sensitive and this really helps it. I had no reaction at all!", "4.0", "0.6800")]
TEXT_LABELS = ["Review", "Opinion", "Customer says", "Kommentar"]
NAME_LABELS = ["Product", "Item", "Listing"]
SCORE_LABELS = ["Similarity distance", "Match", "cos"]
OPENINGS = ["--- Retrieved Context ---", "Context:", "=== Search results ==="]
ORDERS = {"text second": (0, 1, 2, 3), "text last": (0, 2, 3, 1)}


def _record(item, text_label, name_label, score_label, order, short=False):
    name, text, rating, score = item
    lines = [f"{name_label}: {name}", f"{text_label}: {'sensitive skin, dry skin, eczema, rosacea, winter care, fragrance free' if short else text}", f"Rating: {rating}", f"{score_label}: {score}"]
    return "\n".join(lines[i] for i in order)


def _prompt(text_label, name_label, score_label, opening, order, short=False):
    records = "\n\n---\n\n".join(_record(item, text_label, name_label, score_label, ORDERS[order], short) for item in ITEMS)
    return (f"You recommend products from the listings below only.\n\n{opening}\n{records}\n\n"
            "Question: Which moisturizer suits sensitive skin?\n")


@pytest.mark.parametrize("text_label", TEXT_LABELS)
@pytest.mark.parametrize("name_label", NAME_LABELS)
@pytest.mark.parametrize("score_label", SCORE_LABELS)
@pytest.mark.parametrize("opening", OPENINGS)
@pytest.mark.parametrize("order", sorted(ORDERS))
def test_the_value_written_in_sentences_is_the_records_text(text_label, name_label, score_label, opening, order):
    text = _prompt(text_label, name_label, score_label, opening, order)
    prompt = segment_text(text)
    assert [text[s.content.start : s.content.end] for s in prompt.sources] == [item[1] for item in ITEMS]
    assert [[f.value for f in s.fields] for s in prompt.sources] == [[item[0], item[2], item[3]] for item in ITEMS]
    # The twin: the same records with a list of tags under the text's label, no sentence: values, no text (under
    # a bare context label each block is the context whatever it holds, whole).
    twin = _prompt(text_label, name_label, score_label, opening, order, short=True)
    assert [twin[s.content.start : s.content.end] for s in segment_text(twin).sources] == ([_record(item, text_label, name_label, score_label, ORDERS[order], True) for item in ITEMS] if opening == "Context:" else [])


@pytest.mark.parametrize("opening", OPENINGS)
def test_the_score_of_such_a_record_is_reported(opening):
    text = _prompt("Review", "Product", "Similarity distance", opening, "text second")
    scores = [n for n, line in enumerate(text.split("\n"), 1) if line.startswith("Similarity distance:")]
    assert [f.line for f in lint_text(text, path="prompt.txt", config=CONFIG) if f.code == "PL102"] == scores


def test_a_sentence_with_a_number_after_a_comma_is_no_one_line_record():
    # "That said, I downgraded from 5 to 3 stars": one value written in sentences, not a second item "downgraded from 5".
    text = _prompt("Review", "Product", "Similarity distance", "Context:", "text second").replace(
        "I have used it for thirty years.", "That said, I downgraded from 5 to 3 stars.")
    assert segment_text(text).sources[0].fields[0].value == ITEMS[0][0]
    assert len(segment_text(text).sources) == 3


def test_a_field_of_a_record_read_by_role_is_never_removed_by_a_safe_fix():
    # Nothing says such records were retrieved: "Score: 4.5" may be the product's own rating, a fact of the listing.
    text = ("You recommend products from the listings below only.\n\n"
            + "\n\n".join(f"Product: {name}\nReview: {review}\nScore: {rating}" for name, review, rating, _ in ITEMS)
            + "\n\nQuestion: Which moisturizer suits sensitive skin?\n")
    found = [f for f in lint_text(text, path="prompt.txt", config=CONFIG) if f.code == "PL102"]
    assert [f.line for f in found] == [5, 9, 13]
    assert [f.fix.applicability for f in found] == [Applicability.UNSAFE] * 3
    # The twin: under a label that names it the text ("Text:"), the record is read by its labels, as before.
    labelled = text.replace("Review: ", "Text: ")
    assert [f.line for f in lint_text(labelled, path="prompt.txt", config=CONFIG) if f.code == "PL102"] == [5, 9, 13]
