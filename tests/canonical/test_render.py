import datetime

from promptlint.canonical.render import (
    DEFAULT_STALE_AFTER_DAYS,
    Chunk,
    build_prompt,
    freshness_note,
    order_sources,
    render_header,
    render_source,
    render_sources,
)

TODAY = datetime.date(2026, 12, 2)

RETURNS = Chunk(
    content=(
        "Damaged goods may be returned within 30 days of delivery, provided the damage\n"
        "is reported within 48 hours of receipt..."
    ),
    title="Returns and Credits Policy",
    heading_path=("Returns", "Damaged goods"),
)
SKU = Chunk(
    content="Standard lead time is 6 weeks from order confirmation...",
    title="SKU-4411 Specification",
    heading_path=("Availability",),
    updated=datetime.date(2025, 8, 2),
    parse_warnings=("OCR confidence 0.86",),
)

EXPECTED_SOURCES = (
    "[1] Returns and Credits Policy \u2014 Returns > Damaged goods\n"
    "Damaged goods may be returned within 30 days of delivery, provided the damage\n"
    "is reported within 48 hours of receipt...\n"
    "\n"
    "[2] SKU-4411 Specification \u2014 Availability (last updated 2025-08-02) \u26a0\ufe0f OCR confidence 0.86\n"
    "Standard lead time is 6 weeks from order confirmation..."
)


def titles(chunks):
    return [c.title for c in chunks]


# --- rendering ---------------------------------------------------------------


def test_two_source_example_byte_for_byte():
    assert render_sources([RETURNS, SKU], today=TODAY) == EXPECTED_SOURCES


def test_example_bytes_use_em_dash_and_emoji_warning_sign():
    encoded = render_header(SKU, 2, today=TODAY).encode("utf-8")
    assert b" \xe2\x80\x94 Availability" in encoded
    assert b" \xe2\x9a\xa0\xef\xb8\x8f OCR" in encoded


def test_render_sources_start():
    out = render_sources([RETURNS], today=TODAY, start=7)
    assert out.startswith("[7] Returns and Credits Policy")


def test_render_sources_empty():
    assert render_sources([], today=TODAY) == ""


def test_string_key():
    assert render_header(Chunk("x", title="T"), "a", today=TODAY) == "[a] T"


def test_fresh_date_shows_no_note():
    chunk = Chunk("x", title="T", updated=datetime.date(2026, 11, 1))
    assert freshness_note(chunk, today=TODAY) is None
    assert render_header(chunk, 1, today=TODAY) == "[1] T"


def test_no_date_shows_no_note():
    assert freshness_note(Chunk("x"), today=TODAY) is None


def test_stale_boundary():
    exactly = TODAY - datetime.timedelta(days=DEFAULT_STALE_AFTER_DAYS)
    one_more = exactly - datetime.timedelta(days=1)
    assert freshness_note(Chunk("x", updated=exactly), today=TODAY) is None
    assert (
        freshness_note(Chunk("x", updated=one_more), today=TODAY)
        == f"last updated {one_more.isoformat()}"
    )


def test_stale_boundary_custom_threshold():
    updated = datetime.date(2026, 11, 2)  # 30 days before TODAY
    chunk = Chunk("x", title="T", updated=updated)
    assert render_header(chunk, 1, today=TODAY, stale_after_days=30) == "[1] T"
    assert (
        render_header(chunk, 1, today=TODAY, stale_after_days=29)
        == "[1] T (last updated 2026-11-02)"
    )


def test_no_title_with_heading_path():
    chunk = Chunk("x", heading_path=("A", "B"))
    assert render_header(chunk, 3, today=TODAY) == "[3] A > B"


def test_no_title_no_heading_path():
    assert render_header(Chunk("x"), 3, today=TODAY) == "[3]"


def test_title_without_heading_path():
    assert render_header(Chunk("x", title="Guide"), 1, today=TODAY) == "[1] Guide"


def test_no_title_with_note_and_warning():
    chunk = Chunk(
        "x",
        updated=datetime.date(2020, 1, 1),
        parse_warnings=("table lost", "second warning"),
    )
    assert (
        render_header(chunk, 4, today=TODAY)
        == "[4] (last updated 2020-01-01) \u26a0\ufe0f table lost"
    )


def test_only_first_parse_warning():
    chunk = Chunk("x", title="T", parse_warnings=("first", "second"))
    assert render_header(chunk, 1, today=TODAY) == "[1] T \u26a0\ufe0f first"


def test_whitespace_in_title_and_headings_collapsed():
    chunk = Chunk(
        "body",
        title="  Returns\nand\t\tCredits  ",
        heading_path=("Returns \n", " Damaged\r\n goods"),
    )
    assert render_source(chunk, 1, today=TODAY) == (
        "[1] Returns and Credits \u2014 Returns > Damaged goods\nbody"
    )


def test_content_kept_exactly():
    content = "  leading\n\ttabbed  \ntrailing spaces   \n\n"
    chunk = Chunk(content, title="T")
    assert render_source(chunk, 1, today=TODAY) == "[1] T\n" + content
    assert render_sources([chunk, Chunk("y", title="U")], today=TODAY) == (
        "[1] T\n" + content + "\n\n[2] U\ny"
    )


# --- ordering ----------------------------------------------------------------


def test_groups_ordered_by_best_score():
    chunks = [
        Chunk("a1", title="A", score=0.5),
        Chunk("b1", title="B", score=0.4),
        Chunk("a2", title="A", score=0.3),
        Chunk("b2", title="B", score=0.9),
    ]
    assert [c.content for c in order_sources(chunks)] == ["b1", "b2", "a1", "a2"]


def test_unscored_groups_by_first_appearance():
    chunks = [
        Chunk("b1", document_id="b"),
        Chunk("a1", document_id="a"),
        Chunk("b2", document_id="b"),
        Chunk("c1", document_id="c"),
        Chunk("a2", document_id="a"),
    ]
    assert [c.content for c in order_sources(chunks)] == ["b1", "b2", "a1", "a2", "c1"]


def test_ordinal_within_group():
    chunks = [
        Chunk("third", document_id="d", ordinal=7),
        Chunk("first", document_id="d", ordinal=2),
        Chunk("second", document_id="d", ordinal=5),
    ]
    assert [c.content for c in order_sources(chunks)] == ["first", "second", "third"]


def test_unknown_ordinal_keeps_input_order():
    chunks = [
        Chunk("x", document_id="d"),
        Chunk("y", document_id="d"),
        Chunk("z", document_id="d"),
    ]
    assert [c.content for c in order_sources(chunks)] == ["x", "y", "z"]


def test_rerank_score_preferred_over_score():
    chunks = [
        Chunk("a", document_id="a", score=0.9, rerank_score=0.1),
        Chunk("b", document_id="b", score=0.1, rerank_score=0.8),
    ]
    assert [c.content for c in order_sources(chunks)] == ["b", "a"]


def test_document_id_falls_back_to_title():
    chunks = [
        Chunk("a1", title="A", score=0.9),
        Chunk("b1", title="B", score=0.8),
        Chunk("a2", title="A", score=0.1),
    ]
    assert [c.content for c in order_sources(chunks)] == ["a1", "a2", "b1"]


def test_document_id_takes_precedence_over_title():
    chunks = [
        Chunk("p1", title="Same", document_id="p", score=0.9),
        Chunk("q1", title="Same", document_id="q", score=0.8),
        Chunk("p2", title="Same", document_id="p", score=0.1),
    ]
    assert [c.content for c in order_sources(chunks)] == ["p1", "p2", "q1"]


def test_chunks_without_id_or_title_are_their_own_groups():
    chunks = [
        Chunk("x", score=0.2, ordinal=1),
        Chunk("y", score=0.9, ordinal=0),
        Chunk("z", score=0.5),
    ]
    assert [c.content for c in order_sources(chunks)] == ["y", "z", "x"]


def test_order_sources_does_not_mutate_input():
    chunks = [Chunk("b", document_id="b", score=0.1), Chunk("a", document_id="a", score=0.9)]
    before = list(chunks)
    order_sources(chunks)
    assert chunks == before


# --- whole prompt ------------------------------------------------------------


def test_build_prompt_full():
    prompt = build_prompt(
        system="You answer from the sources.",
        examples="Q: ex\nA: ex",
        history="User: hi\nAssistant: hello",
        chunks=[RETURNS, SKU],
        question="Can I return damaged goods?",
        today=TODAY,
    )
    assert prompt == (
        "You answer from the sources.\n\n"
        "Q: ex\nA: ex\n\n"
        "User: hi\nAssistant: hello\n\n"
        "Sources:\n" + EXPECTED_SOURCES + "\n\n"
        "Question: Can I return damaged goods?"
    )


def test_build_prompt_without_history_and_examples():
    prompt = build_prompt(
        system="You answer from the sources.",
        chunks=[Chunk("body", title="T")],
        question="Why?",
        today=TODAY,
    )
    assert prompt == "You answer from the sources.\n\nSources:\n[1] T\nbody\n\nQuestion: Why?"


def test_build_prompt_without_chunks():
    prompt = build_prompt(
        system="sys", history="User: hi", question="What now?", today=TODAY
    )
    assert prompt == "sys\n\nUser: hi\n\nQuestion: What now?"


def test_build_prompt_question_only():
    assert build_prompt(question="Q?", today=TODAY) == "Question: Q?"


def test_build_prompt_orders_chunks():
    chunks = [
        Chunk("low", title="Low", score=0.1),
        Chunk("high", title="High", score=0.9),
    ]
    prompt = build_prompt(chunks=chunks, question="?", today=TODAY)
    assert prompt == "Sources:\n[1] High\nhigh\n\n[2] Low\nlow\n\nQuestion: ?"


def test_build_prompt_question_kept_verbatim_and_last():
    question = "  What is the lead time for SKU-4411?  "
    prompt = build_prompt(system="s", chunks=[SKU], question=question, today=TODAY)
    assert prompt.endswith("\n\nQuestion: " + question)


def test_build_prompt_passes_stale_threshold():
    chunk = Chunk("x", title="T", updated=datetime.date(2026, 11, 2))
    prompt = build_prompt(chunks=[chunk], question="?", today=TODAY, stale_after_days=10)
    assert "[1] T (last updated 2026-11-02)\nx" in prompt
