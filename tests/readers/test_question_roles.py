"""Where the question is, read by the role of what holds it before the name it goes by: a loop's item is no
request's question, a run of questions answered in writing is worked examples, a label that says the user asks
stands over the user's words, and a function that makes a question's context does not rewrite the question."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.model.prompt import PartKind
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02"}, "test")


def _codes(text: str, path: str) -> list[str]:
    return [f.code for f in lint_text(text, path=path, config=CONFIG)]


# -- a loop's item

JINJA = (
    "Answer the user's question from the notes.\n\nQuestion: {{ question }}\n\n"
    "{% for transit in transits %}\n- {{ transit.NAME }}\n{% endfor %}\n"
)


@pytest.mark.parametrize("name", ["interpretation", "question", "rephrased_question"])
def test_a_loop_items_field_named_for_the_question_is_the_items_own(name):
    assert "PL101" not in _codes(JINJA.replace("NAME", name), "p.j2")


def test_the_twin_outside_a_loop_is_the_question_rewritten():
    text = "Answer the user's question from the notes.\n\nQuestion: {{ question }}\n\nInterpreted as: {{ interpretation }}\n"
    assert _codes(text, "p.j2").count("PL101") == 1


# -- questions answered in writing

FEW_SHOT = """PROMPT = ['''You are a fact checker. Check each claim by asking questions and answering them.

Claim: The bridge opened in 1932.
To verify it, a fact checker asks:
Question: When did the bridge open?
Answer: It opened in March 1932.
Based on the answers, the claim is True.

Claim: The river floods every spring.
To verify it, a fact checker asks:
Question: Does the river flood each year?
Answer: Records show floods in most springs since 1900.
Question: Did it flood last spring?
Tell me if you are confident to answer the question or not. Answer me 'yes' or 'no': No.
Answer: It did not; the spring was dry, and the gauges at the mill recorded the lowest water of the decade.
Based on the answers to these questions, it is clear that among False, Mostly False, Mixture, Mostly True and True the claim is classified as Mostly True.

Claim: ''', "A fact checker will"]


def check(claim, generate):
    return generate(PROMPT[0], claim + "\\n" + PROMPT[1])
"""


def test_a_run_of_questions_answered_in_writing_is_worked_examples():
    assert "PL305" not in _codes(FEW_SHOT, "check.py")


EXAMPLES = "Question: When did the bridge open?\nAnswer: It opened in March 1932.\n\nQuestion: Does the river flood?\nAnswer: Most springs.\n\n"


@pytest.mark.parametrize("answer", ["", "<end_of_turn>", "<your answer here>"])
def test_a_question_whose_answer_is_left_to_the_model_is_live(answer):
    text = "Answer like the examples.\n\n" + EXAMPLES + f"Question: When did it open?\nAnswer:{answer}\n"
    prompt = segment_text(text)
    assert [text[q.start : q.end] for q in prompt.questions] == ["When did it open?"]


# The worked examples of a question-answering prompt with sources: each example's documents stand between its
# question and its written answer, over paragraphs; the live exchange leaves its answer to the model.
EXCHANGES = """Given the extracted parts of a long document and a question, answer with references ("SOURCES").

QUESTION: Which law governs the contract?
=========
Content: This Agreement is governed by English law and the parties submit to the English courts.

Either party may apply to any court for an injunction to protect its rights.
Source: 28-pl
Content: Failure or delay in exercising any right shall not constitute a waiver of it.
Source: 30-pl
=========
FINAL ANSWER: This Agreement is governed by English law.
SOURCES: 28-pl

QUESTION: What did the speaker say about the river?
=========
Content: The river floods most springs, and the mill keeps records of every flood since 1900.

The gauges at the mill recorded the lowest water of the decade last year.
Source: 3-pl
Content: The bridge over the river opened in March 1932 and was widened in 1961.
Source: 7-pl
=========
FINAL ANSWER: The speaker did not mention the river.
SOURCES:

QUESTION: When did the bridge open?
=========
Content: The bridge was opened by the mayor in March 1932, after four years of building work.
Source: https://example.org/bridge
Content: The old ferry across the river ran until the bridge opened, carrying carts and cattle.
Source: https://example.org/ferry
=========
FINAL ANSWER:"""


def test_worked_exchanges_over_paragraphs_hold_no_source_of_the_request():
    prompt = segment_text(EXCHANGES)
    assert [EXCHANGES[q.start : q.end] for q in prompt.questions] == ["When did the bridge open?"]
    live = EXCHANGES.index("When did the bridge open?")
    assert [EXCHANGES.index("Content:", live), EXCHANGES.index("Content: The old ferry")] == [s.span.start for s in prompt.sources]


def test_the_twin_with_one_answered_exchange_keeps_it_as_the_question():
    """One question answered in writing may be the live one, printed with the model's reply."""
    text = EXCHANGES[: EXCHANGES.index("QUESTION: What did")]
    prompt = segment_text(text)
    assert [text[q.start : q.end] for q in prompt.questions] == ["Which law governs the contract?"]


# -- a label that says the user asks

CODE = '''
def build_prompt(prompt: str, context: list[str]) -> str:
    context_text = "\\n\\n".join(context)
    return "\\n".join([
        "You are a code generator that writes C.",
        f"LABEL: '{prompt.strip()}'",
        "Use the implementations below as a guide.",
        "Do not copy them; adapt them to the request.",
        "Avoid needless allocations and redundant checks.",
        "Make sure the code compiles without warnings.",
        f"Implementations:\\n{context_text}",
    ])
'''


@pytest.mark.parametrize("label", ["The user wants", "User asked", "the customer requests"])
def test_a_label_that_says_the_user_asks_stands_over_the_question(label):
    assert "PL305" in _codes(CODE.replace("LABEL", label), "build.py")


@pytest.mark.parametrize("label", ["The template is", "Customer says"])
def test_the_twin_under_another_label_holds_the_setup(label):
    assert "PL305" not in _codes(CODE.replace("LABEL", label), "build.py")


def test_a_quoted_question_after_its_label_is_the_words_quoted():
    text = 'Context:\nThe bridge opened in 1932.\n\nThe user asked: "When did the bridge open?" Answer in one line.\n'
    prompt = segment_text(text)
    assert [text[q.start : q.end] for q in prompt.questions] == ["When did the bridge open?"]


# -- a function that makes a question's context

FLOW = '''
def answer(query, llm, retriever):
    hint = VERB(query)
    prompt = f"{hint}The user asked: {query}. Answer from the documents."
    return llm.invoke(prompt)
'''


def test_a_function_making_the_questions_context_does_not_rewrite_it():
    assert "PL101" not in _codes(FLOW.replace("VERB", "expand_query_context"), "bot.py")


def test_the_twin_that_expands_the_question_rewrites_it():
    assert "PL101" in _codes(FLOW.replace("VERB", "expand_query"), "bot.py")


# -- the whole context after a label is no source's key

def test_a_label_before_the_whole_context_slot_heads_no_source():
    text = "You review code.\nContext {context}\nCode to review: {input}\nPoint out the issues.\nSuggest fixes.\nBe brief.\n"
    prompt = segment_text(text)
    assert prompt.sources == [] and [text[p.span.start : p.span.end] for p in prompt.parts if p.kind is PartKind.SOURCES] == ["{context}"]
