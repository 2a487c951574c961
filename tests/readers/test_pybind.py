"""A question slot the module fills with the question rewritten, at the call that fills it, is the
rewritten question (PL304), however the template names the slot. Generated over the ways a module
fills a template and the names a rewrite goes by, each with its clean twin that passes the original."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

TEMPLATE = '"""Answer the question from the context.\n\nContext:\n{context}\n\nQuestion: {question}\nAnswer:"""'
FILLED = {
    "format by keyword": f"QA_PROMPT = {TEMPLATE}\n\n\ndef answer(llm, docs, VALUE_ROOT):\n    return llm.invoke(QA_PROMPT.format(context=docs, question=VALUE))\n",
    "invoke with a dict": f"QA_PROMPT = PromptTemplate.from_template({TEMPLATE})\n\n\ndef answer(llm, docs, VALUE_ROOT):\n    return llm.invoke(QA_PROMPT.invoke({{\"context\": docs, \"question\": VALUE}}))\n",
    "piped chain": f"QA_PROMPT = PromptTemplate.from_template({TEMPLATE})\nchain = QA_PROMPT | llm | parser\n\n\ndef answer(docs, VALUE_ROOT):\n    return chain.invoke({{\"context\": docs, \"question\": VALUE}})\n",
    "function by position": f"def build_prompt(context, question):\n    return f{TEMPLATE}\n\n\ndef answer(llm, docs, VALUE_ROOT):\n    return llm.invoke(build_prompt(docs, VALUE))\n",
    "function by keyword": f"def build_prompt(context, question):\n    return f{TEMPLATE}\n\n\ndef answer(llm, docs, VALUE_ROOT):\n    return llm.invoke(build_prompt(context=docs, question=VALUE))\n",
}
REWRITTEN = ["standalone_question", "rewritten_query", "condensed_question", "enhanced['standalone_query']", "state.rephrased_question"]
ORIGINAL = ["question", "user_question", "query", "state.original_question"]


def _module(form: str, value: str) -> str:
    root = value.split("[")[0].split(".")[0]
    return FILLED[form].replace("VALUE_ROOT", root).replace("VALUE", value)


def _found(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_text(text, path="qa.py", config=CONFIG)]


@pytest.mark.parametrize("form", FILLED)
@pytest.mark.parametrize("value", REWRITTEN)
def test_a_question_slot_filled_with_a_rewrite_is_the_rewritten_question(form, value):
    text = _module(form, value)
    line = next(n for n, row in enumerate(text.split("\n"), 1) if "Question: {question}" in row)
    assert _found(text) == [(line, "PL304")]
    # The slot is named for the question already: the fix belongs to the call, and none is written.
    assert fix_text(text, path="qa.py", config=CONFIG) == text


@pytest.mark.parametrize("form", FILLED)
@pytest.mark.parametrize("value", ORIGINAL)
def test_a_question_slot_filled_with_the_question_is_clean(form, value):
    assert _found(_module(form, value)) == []


# A local that a function named for rewriting the question fills, whatever the local is called (blind33a daxrsa:
# `standalone = rewrite_question(question, history)`, then the prompt is filled with `standalone`).
REWRITING = ["rewrite_question(q, history)", "condense_query(q, history) if history else q", "await rephrase_question(q)",
             "self.make_standalone_question(q, history)"]


@pytest.mark.parametrize("form", FILLED)
@pytest.mark.parametrize("call", REWRITING)
def test_a_local_a_rewriting_function_fills_is_the_rewritten_question(form, call):
    text = _module(form, "asked").replace("def answer(", "async def answer(q, history, ").replace("    return", f"    asked = {call}\n    return", 1)
    line = next(n for n, row in enumerate(text.split("\n"), 1) if "Question: {question}" in row)
    assert _found(text) == [(line, "PL304")]
    # The twins: a function that only reads the question (`normalise_question`), or one named for a rewrite
    # of something else (`rewrite_summary`), fills the slot with the question as asked.
    for other in ("normalise_question(q)", "rewrite_summary(q)"):
        assert _found(text.replace(call, other)) == []
