"""Items written a label and a value a line, under a counted heading the source word is qualified in ("Knowledge Item
3"), and closing lines the renderer writes after every item's text: what repeats word for word after each chunk is
the renderer's, not a chunk's, and when it talks to the model it is one instruction written as many times as there
are sources (PL103, reported once, with no fix). Each with its twin."""

from __future__ import annotations

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02"}, "test")

ITEMS = [
    ("class", "0.3135", "Scratch Coding Lab: Build With Scratch", "Build games with Scratch in six weekly lessons for ages eight to twelve."),
    ("faq", "0.3002", "Refund policy", "Refunds are paid within fourteen days of the request, to the card used."),
    ("faq", "0.2871", "Class sizes", "Each class takes at most twelve learners, so that every learner gets time with the teacher."),
]
CLOSING = ("IMPORTANT\n\nThe CURRENT EMAIL below is the only email you should answer.\n\n"
           "Do not continue discussing previous issues unless the customer asks about them.")


def _prompt(closing: str = CLOSING, head: str = "Knowledge Item", items=ITEMS) -> str:
    blocks = "\n".join(
        f"\n{head} {n}\n\nSource:\n{kind}\n\nSimilarity:\n{score}\n\nTitle:\n{title}\n\nContent:\n{text}\n\n{closing}\n" + "-" * 40 + "\n"
        for n, (kind, score, title, text) in enumerate(items, 1)
    )
    return f"You answer customer emails for a school.\n\nRelevant Knowledge\n{blocks}\n\nCURRENT EMAIL\n\nWhen do I get my refund?\n"


def test_items_under_a_qualified_counted_heading_are_sources_with_their_fields():
    prompt = segment_text(_prompt())
    assert [(s.title, [(f.label, f.value) for f in s.fields if f.label != "title"]) for s in prompt.sources] == [
        (title, [("source", kind), ("similarity", score)]) for kind, score, title, _ in ITEMS]


def test_the_twin_with_one_such_heading_is_no_run_of_sources():
    text = "You answer customer emails.\n\nKnowledge Item 1\n\nRefunds are paid within fourteen days of the request.\n\nWhen do I get my refund?\n"
    assert segment_text(text).sources == []


def test_closing_lines_after_every_item_are_the_renderers_and_end_the_last_item():
    text = _prompt()
    prompt = segment_text(text)
    assert [text[s.content.start : s.content.end] for s in prompt.sources] == [item[3] for item in ITEMS]
    assert text[prompt.sources[-1].span.end :].lstrip("-\n").startswith("CURRENT EMAIL")


def test_instructions_after_every_item_are_one_finding_without_a_fix():
    text = _prompt()
    found = [f for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL103"]
    assert [(f.line, f.fix) for f in found] == [(text[: text.index("The CURRENT EMAIL")].count("\n") + 1, None)]
    assert "Every source (3)" in found[0].message
    assert "The CURRENT EMAIL" in fix_text(text, path="p.txt", config=CONFIG)


def test_the_twin_whose_closing_lines_state_a_fact_keeps_them_as_each_chunks_text():
    footer = "Coral Academy is a registered school in Ontario."
    text = _prompt(closing=footer)
    prompt = segment_text(text)
    assert all(text[s.content.start : s.content.end].endswith(footer) for s in prompt.sources)
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL103"] == []


def test_the_twin_with_the_instruction_under_one_item_alone_is_no_renderers():
    items = [(kind, score, title, text + (f"\n\n{CLOSING}" if n == 0 else "")) for n, (kind, score, title, text) in enumerate(ITEMS)]
    text = _prompt(closing="", items=items)
    found = [f for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL103"]
    assert all("Every source" not in f.message for f in found)


def test_a_labelled_line_under_a_label_alone_is_its_own_field_unless_every_label_stands_alone():
    """"Source:" with no value, then "Title: Refund policy": the title is the title, never the source's value (a fix
    removing the source field would take the title with it); and an empty label ("URL :") is no value."""
    text = ("Answer from the documents.\n\n"
            "Document 1\nSource:\nTitle: Refund policy\n\nURL    : \nPublished    : \n\nRefunds are paid within fourteen days of the request.\n\n"
            "Document 2\nSource:\nTitle: Shipping guide\n\nURL    : \nPublished    : \n\nParcels ship within two working days of the order.\n\n"
            "Question: When do I get my refund?\n")
    prompt = segment_text(text)
    assert [s.title for s in prompt.sources] == ["Refund policy", "Shipping guide"]
    assert all(f.value != "URL    :" and "Title" not in f.value for s in prompt.sources for f in s.fields)
