"""The pattern announced rather than rendered: with a pre-joined context, the words around it say
what every source carries (date order, restricted content, a framing sentence, derived text).

Each case is generated over several spellings and input forms, with a clean twin.
"""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

# The same prompt with the context pre-joined, as a format string, a Jinja template and assembled text.
FORMS = {
    "t.txt": "You answer from the knowledge base.\n\n{label}\n{{context}}\n\nQuestion: {{question}}\n",
    "t.j2": "You answer from the knowledge base.\n\n{label}\n{{{{ context }}}}\n\nQuestion: {{{{ question }}}}\n",
    "a.txt": ("You answer from the knowledge base.\n\n{label}\n- Returns are accepted within 30 days.\n"
              "- Refunds take 14 days.\n\nQuestion: How long do refunds take?\n"),
}


def _found(text, path, code):
    return [(f.line, f.column) for f in lint_text(text, path=path, config=CONFIG) if f.code == code]


def _at(text, needle):
    before = text[: text.index(needle)]
    return (before.count("\n") + 1, len(before) - before.rfind("\n"))


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("label, phrase", [
    ("Results, newest first:", "newest first"),
    ("Relevant memory content (in chronological order):", "in chronological order"),
    ("## Search results, sorted by date", "sorted by date"),
    ("Documents (most recent first):", "most recent first"),
    ("Notes, from oldest to newest:", "from oldest to newest"),
])
def test_sources_announced_in_date_order(path, label, phrase):
    text = FORMS[path].format(label=label)
    line, column = _at(text, label)
    assert _found(text, path, "PL302") == [(line, column + label.lower().index(phrase))]


@pytest.mark.parametrize("label", ["Past failures (most recent first):", "## Incidents, newest first", "Prior tickets (in chronological order):"])
def test_a_label_right_before_the_sources_introduces_them_whatever_it_calls_them(label):
    sources = "[1] Deploy rollback — Monitor\nThe latency regressed.\n\n[2] Sandbox timeout — Tests\nThe sandbox timed out.\n"
    text = f"You review the agent's past runs.\n\n{label}\n{sources}\nQuestion: Why does the tool fail?\n"
    assert len(_found(text, "a.txt", "PL302")) == 1
    # The twin: a line between them, and the label introduces that line, not the sources.
    apart = text.replace(f"{label}\n", f"{label}\nThey come from the monitor.\n\n")
    assert _found(apart, "a.txt", "PL302") == []


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("sentence, phrase", [
    ("Each meeting is given in a tag and meetings are ordered most recent first.", "are ordered most recent first"),
    ("The notes below are sorted by date, newest first.", "are sorted by date"),
    ("Entries are listed in reverse chronological order.", "are listed in reverse chronological order"),
    ("The context is presented oldest first.", "is presented oldest first"),
])
def test_a_sentence_saying_the_given_items_are_in_date_order_announces_it(path, sentence, phrase):
    text = FORMS[path].format(label=sentence + "\nContext:")
    line, column = _at(text, sentence)
    assert _found(text, path, "PL302") == [(line, column + sentence.lower().index(phrase))]


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("subject", ["The history", "The chat history", "The conversation", "Past queries", "The previous turns"])
@pytest.mark.parametrize("order", ["is arranged in chronological order", "are listed oldest first", "is sorted by date"])
def test_the_conversation_said_to_be_in_date_order_is_not_the_sources(path, subject, order):
    """Turns and past queries come in time order; a sentence that says so announces nothing of the sources."""
    sentence = f"{subject} {order}, with the newest at the bottom."
    assert _found(FORMS[path].format(label=sentence + "\nContext:"), path, "PL302") == []
    # The twin: the same sentence about the documents announces their order.
    twin = f"The documents {order.replace('is ', 'are ', 1)}, with the newest at the bottom."
    assert len(_found(FORMS[path].format(label=twin + "\nContext:"), path, "PL302")) == 1


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("label", [
    "List the events in chronological order.",  # an order asked of the answer
    "Sort your findings by date.",
    "List the events of your answer in chronological order:",  # about the answer, not the sources
    "Results:",
    "Answer newest first.",
])
def test_an_order_that_is_not_the_sources_is_not_announced(path, label):
    assert _found(FORMS[path].format(label=label), path, "PL302") == []


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("sentence, start", [
    ("The context may include confidential or personal data; never disclose it.", "may include confidential"),
    ("Some documents might contain sensitive customer details, and you must not reveal them.", "might contain sensitive"),
    ("Note that personal information in the excerpts must not be disclosed.", "personal information"),
])
def test_permission_to_see_restricted_content_is_announced(path, sentence, start):
    text = FORMS[path].format(label=f"{sentence}\nContext:")
    assert _found(text, path, "PL105") == [_at(text, start)]
    # The twin says what the context holds and asks nothing: no restricted content is implied.
    twin = FORMS[path].format(label="The context may include customer orders and invoices.\nContext:")
    assert _found(twin, path, "PL105") == []


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("sentence", [
    "If a document is marked as confidential, ignore it.",
    "Never reveal information from documents labelled PRIVATE DATA or PII.",
    "Documents tagged 'restricted' must not be used in the answer.",
    "Do not disclose any sensitive information found in the context.",
    "Exclude sources that are internal-only.",
])
def test_a_sentence_forbidding_restricted_parts_of_what_is_given_is_announced(path, sentence):
    text = FORMS[path].format(label=f"{sentence}\nContext:")
    assert _found(text, path, "PL105") == [_at(text, sentence)]


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("sentence", [
    "Do not use your internal knowledge; answer only from the documents.",
    "Never mention the context or documents; keep your internal reasoning private.",
    "Never share personal opinions about the sources.",
    "Ignore documents that are not relevant.",
    "Confidential answers are welcome.",
])
def test_a_sentence_about_other_things_is_no_restricted_content(path, sentence):
    assert _found(FORMS[path].format(label=f"{sentence}\nContext:"), path, "PL105") == []


SOURCE_TEMPLATES = {
    "t.txt": "Answer from the excerpts.\n\n[{{i}}] {{title}}\n{framing}\n{{content}}\n\nQuestion: {{question}}\n",
    "a.txt": ("Answer from the excerpts.\n\n[1] Returns Policy\n{framing}\nDamaged goods may be returned within 30 days.\n\n"
              "[2] Shipping FAQ\n{framing}\nDelivery takes 3-5 days.\n\nQuestion: How long?\n"),
}


FRAMINGS = [
    "The following excerpt mentions the search terms returns, damaged:",
    "The excerpt below was retrieved for the query.",
    "This passage was retrieved because it matches the search query.",
    "Retrieved text, which contains the keywords of the question:",
]


@pytest.mark.parametrize("path", sorted(SOURCE_TEMPLATES))
@pytest.mark.parametrize("framing", FRAMINGS)
def test_a_framing_sentence_around_every_chunk_is_a_per_source_instruction(path, framing):
    text = SOURCE_TEMPLATES[path].format(framing=framing)
    lines = [i + 1 for i, line in enumerate(text.split("\n")) if line == framing]
    assert _found(text, path, "PL103") == [(n, 1) for n in lines]


@pytest.mark.parametrize("path", sorted(SOURCE_TEMPLATES))
@pytest.mark.parametrize("first", [
    "This document describes the returns process.",
    "The following steps apply to damaged goods:",
    "The excerpts of the contract are in section 7.",
])
def test_a_chunk_that_starts_by_describing_itself_is_content(path, first):
    assert _found(SOURCE_TEMPLATES[path].format(framing=first), path, "PL103") == []


@pytest.mark.parametrize("label", ["Key facts", "Highlights", "Highlight", "Key points", "TL;DR", "Keywords",
                                   "Questions this answers", "Relevance explanation", "Why relevant"])
@pytest.mark.parametrize("form", ["line", "xml"])
def test_derived_text_under_the_names_the_chapter_gives(label, form):
    if form == "line":
        text = (f"Answer from the sources.\n\n[1] Returns Policy\n{label}: returns within 30 days\n"
                "Damaged goods may be returned within 30 days.\n\nQuestion: How long?\n")
        where = (4, 1)
    else:
        tag = label.lower().replace(";", "").replace(" ", "_")
        text = (f"Answer from the sources.\n<document index=\"1\">\n<source>Returns Policy</source>\n"
                f"<{tag}>returns within 30 days</{tag}>\n<document_content>Damaged goods may be returned within 30 days."
                f"</document_content>\n</document>\nQuestion: How long?\n")
        where = (4, 1)
    assert _found(text, "t.txt", "PL104") == [where]


@pytest.mark.parametrize("path", sorted(FORMS)[1:])
@pytest.mark.parametrize("sentence, phrase", [
    ("Use the passages that have the highest score and favor recent ones.", "highest score"),
    ("Prefer top-scoring passages.", "top-scoring"),
    ("Passages are sorted by relevance score.", "sorted by relevance score"),
    ("Trust the higher similarity scores more.", "higher similarity scores"),
])
def test_weighing_the_sources_by_their_score_is_announced(path, sentence, phrase):
    text = FORMS[path].replace("You answer from the knowledge base.", f"You answer from the knowledge base. {sentence}").format(label="Context:")
    assert _found(text, path, "PL102") == [_at(text, phrase)]


@pytest.mark.parametrize("path", sorted(FORMS)[1:])
@pytest.mark.parametrize("sentence, phrase", [
    ("Use the following pieces of retrieved context and similarity scores (lower is closer):", "context and similarity scores"),
    ("Below are the passages along with their relevance scores.", "passages along with their relevance scores"),
    ("You get the search results plus rerank scores.", "results plus rerank scores"),
    ("Here are the documents and the corresponding distance scores:", "documents and the corresponding distance scores"),
    ("The context holds retrieved chunks with some similarity score to the question.", "with some similarity score"),
    ("You get the retrieved chunks, each with a relevance score.", "each with a relevance score"),
])
def test_naming_the_scores_sent_beside_the_sources_is_announced(path, sentence, phrase):
    text = FORMS[path].replace("You answer from the knowledge base.", f"You answer from the knowledge base. {sentence}").format(label="Context:")
    assert _found(text, path, "PL102") == [_at(text, phrase)]


@pytest.mark.parametrize("sentence", [
    "Use the context and your confidence score to decide.",  # a score the model gives, not one sent with the sources
    "Read the documents and score each answer.",
    "Answer with the context and a relevance score for your answer.",
    "Only chunks with a similarity score above 0.7 are kept.",
])
def test_a_score_that_is_not_sent_beside_the_sources_is_not_announced(sentence):
    text = FORMS["t.txt"].replace("You answer from the knowledge base.", f"You answer from the knowledge base. {sentence}").format(label="Context:")
    assert _found(text, "t.txt", "PL102") == []


@pytest.mark.parametrize("sentence", ["Give the answer a score between 0 and 5.", "Pick the best answer.", "Score each answer for helpfulness."])
def test_scoring_the_answer_is_not_weighing_the_sources(sentence):
    text = FORMS["t.txt"].replace("You answer from the knowledge base.", f"You answer from the knowledge base. {sentence}").format(label="Context:")
    assert _found(text, "t.txt", "PL102") == []


@pytest.mark.parametrize("path", sorted(FORMS)[1:])
@pytest.mark.parametrize("task", [
    "3. Determine a relevance score for each document with respect to the queries (higher score means more relevant).",
    "- Assign each passage a similarity score; the highest score wins.",
    "Rate the documents with relevance scores from 0 to 1.",
])
def test_asking_the_model_to_score_the_sources_is_its_task(path, task):
    """The model is asked to give the scores (a reranker's prompt): nothing says the sources carry one."""
    text = FORMS[path].replace("\nQuestion:", f"\n{task}\n\nQuestion:").format(label="Context:")
    assert _found(text, path, "PL102") == []
    # The twin: the same words stated of the sources announce their scores.
    twin = "The documents are sorted by relevance score, the highest score first."
    assert len(_found(FORMS[path].replace("\nQuestion:", f"\n{twin}\n\nQuestion:").format(label="Context:"), path, "PL102")) == 2


@pytest.mark.parametrize("path", sorted(FORMS)[1:])
@pytest.mark.parametrize("listing, phrase", [
    ("Each source includes:\n- Document title\n- Content chunk\n- Similarity score (0.0-1.0, higher is more relevant)", "Each source includes"),
    ("Every result has a title, a URL and a relevance score.", "Every result has"),
    ("Each passage comes with its rerank score.", "Each passage comes with"),
    ("Every document contains the text and a confidence score between 0 and 1.", "Every document contains"),
])
def test_listing_a_score_among_what_each_source_carries_is_announced(path, listing, phrase):
    text = FORMS[path].replace("\nQuestion:", f"\n{listing}\n\nQuestion:").format(label="Context:")
    assert _found(text, path, "PL102") == [_at(text, phrase)]


@pytest.mark.parametrize("listing", [
    "Each source includes:\n- Document title\n- Content chunk\n- Publication year",
    "Every answer has a confidence score.",
    "Each document contains a title and its text.",
])
def test_listing_what_each_source_carries_without_a_score_is_quiet(listing):
    text = FORMS["t.txt"].replace("\nQuestion:", f"\n{listing}\n\nQuestion:").format(label="Context:")
    assert _found(text, "t.txt", "PL102") == []
