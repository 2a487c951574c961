"""A chat template whose last message is its slot alone (`("human", "{question}")`) is read as one text with the
messages before it: the question stands last, where the model reads it, so a rewritten question bound to it at
the call that fills the template is reported."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL304"]}, "test")
SOURCE = (
    "from langchain_core.prompts import ChatPromptTemplate\n\n"
    'prompt = ChatPromptTemplate.from_messages([("system", "Answer only from the context.\\n\\nContext:\\n{context}"), ("human", "{question}")])\n'
    "chain = prompt | llm\n\n\n"
    "def answer(q, docs):\n    VALUE = rewrite(q)\n"
    '    return chain.invoke({"question": VALUE, "context": docs})\n'
)


@pytest.mark.parametrize("value, found", [("rewritten_query", ["PL304"]), ("user_query", [])])
def test_a_rewrite_filling_a_chat_templates_last_slot_is_reported(value, found):
    assert [f.code for f in lint_text(SOURCE.replace("VALUE", value), path="rag.py", config=CONFIG)] == found
