"""A function of the module whose result a prompt prints whole (`context = retrieve_docs(q)`, then
`f"Context:\\n{context}"`) hands the model the list it returns: the dicts it makes are sources, read as the JSON
they print as. A result the code only reads from (`for doc in results: ... doc['text']`) is not printed whole."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL102"]}, "test")
RETRIEVE = (
    "def retrieve_docs(query):\n"
    "    results = collection.query(query_texts=[query], n_results=3)\n"
    "    docs = []\n"
    '    for text, dist in zip(results["documents"][0], results["distances"][0]):\n'
    '        docs.append({"content": text, "score": dist})\n'
    "    return docs\n\n\n"
)


@pytest.mark.parametrize("prints", [
    '    context = retrieve_docs(query)\n    prompt = f"Answer from the context.\\n\\nContext:\\n{context}\\n\\nQuestion: {query}"\n',
    '    context = retrieve_docs(query)\n    prompt = TEMPLATE.format(context=context, question=query)\n',
])
def test_a_result_printed_whole_into_the_context_shows_its_scores(prints):
    source = RETRIEVE + "def answer(query):\n" + prints + "    return llm(prompt)\n"
    assert [(f.code, f.line) for f in lint_text(source, path="rag.py", config=CONFIG)] == [("PL102", 5)]


def test_a_result_only_read_from_is_not_printed_whole():
    source = RETRIEVE + (
        "def answer(query):\n    context = retrieve_docs(query)\n"
        '    text = "\\n\\n".join(d["content"] for d in context)\n'
        '    prompt = f"Answer from the context.\\n\\nContext:\\n{text}\\n\\nQuestion: {query}"\n    return llm(prompt)\n'
    )
    assert lint_text(source, path="rag.py", config=CONFIG) == []
