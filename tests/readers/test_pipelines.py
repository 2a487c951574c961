"""A LangChain pipeline fills a prompt's variable with the result of the function it ends in
(`{"context": queries | retriever.map() | fuse} | prompt`). What that function returns is printed
whole into the variable: a list of (document, score) pairs shows every document's score. The
RAG-Fusion recipe copied in many tutorials does so (blind44d youmin, blind45d vedanth)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({}, "test")

FUSION = '''from langchain.load import dumps, loads


def fuse(results, k=60):
    fused = {}
    for docs in results:
        for rank, doc in enumerate(docs):
            fused[dumps(doc)] = fused.get(dumps(doc), 0) + 1 / (rank + k)
    reranked = [
        PAIR
        for doc, score in sorted(fused.items(), key=lambda x: x[1], reverse=True)
    ]
    return RETURNED


fusion_chain = queries | retriever.map() | fuse
template = """Answer the question from this context:

{context}

Question: {question}
"""
prompt = ChatPromptTemplate.from_template(template)
chain = {"KEY": VALUE, "question": itemgetter("question")} | prompt | llm | StrOutputParser()
'''


def _source(pair="(loads(doc), score)", returned="reranked", key="context", value="fusion_chain"):
    return FUSION.replace("PAIR", pair).replace("RETURNED", returned).replace("KEY", key).replace("VALUE", value)


def _found(source):
    return [(f.line, f.column, f.code, f.fix is not None) for f in lint_text(source, path="fusion.py", config=CONFIG) if f.code != "PL205"]


@pytest.mark.parametrize("value", ["fusion_chain", "queries | retriever.map() | fuse", "fuse"])
@pytest.mark.parametrize("returned", ["reranked", "reranked[:top_n]"])
def test_pairs_a_pipeline_prints_into_the_context_show_each_score(value, returned):
    # The repr is the model's text: reported where the pair is made, with no fix (a repr is not edited).
    assert _found(_source(returned=returned, value=value)) == [(10, 9, "PL102", False)]


def test_the_twins():
    # The documents alone, no score beside them.
    assert _found(_source(pair="loads(doc)")) == []
    # The pipeline fills another variable than the context.
    assert _found(_source(key="history")) == []
    # The pipeline's value is a call's result, not the function's (the list is made into text elsewhere).
    assert _found(_source(value="fusion_chain.invoke(question)")) == []
