"""A langchain-core retrieval chain: an in-memory vector store with fake embeddings, documents whose
score and date a ``document_prompt`` prints, and ChatOpenAI sending through httpx's MockTransport.
The retriever's callback hands over the documents, so each source is known, not guessed: the
wrapper's score and date are found by their values, under the metadata keys they came from."""

from __future__ import annotations

import asyncio
import contextvars
import json

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate, format_document
from langchain_core.runnables import RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_openai import ChatOpenAI
from wire import CHAT_REPLY as REPLY
from wire import OPENAI_HTTP

import promptlint

DOCUMENTS = [
    Document(page_content="Damaged goods may be returned within 30 days of delivery.",
             metadata={"title": "Returns Policy", "score": 0.8231, "last_modified": "2026-11-20"}),
    Document(page_content="Refunds are paid to the original card within five working days.",
             metadata={"title": "Refunds FAQ", "score": 0.7714, "last_modified": "2026-10-02"}),
]
PROMPT = ChatPromptTemplate.from_messages([("system", "Answer the question from the context only.\n\nContext:\n{context}"), ("human", "{question}")])
SCORED = "{title} (relevance {score:.2f}, updated {last_modified})\n{page_content}"
DATED = "{title}: {page_content} [{last_modified}]"
PLAIN = "{title}\n{page_content}"
DATE = "All 2 sources are dated; a date on every source makes the model prefer recency over relevance"


def _score(n: int, value: str) -> tuple[str, str, int]:
    return ("PL102", f"Source {n} shows its retrieval score ('{value}'); the model reads it as an instruction to defer to the top hit", 5)


def _chain(document_prompt: str):
    store = InMemoryVectorStore.from_documents(DOCUMENTS, DeterministicFakeEmbedding(size=16))
    llm = ChatOpenAI(model="gpt-4o", api_key="sk-test", base_url="http://127.0.0.1:9/v1", max_retries=0,
                     http_client=OPENAI_HTTP.Client(transport=OPENAI_HTTP.MockTransport(lambda request: OPENAI_HTTP.Response(200, json=REPLY))),
                     http_async_client=OPENAI_HTTP.AsyncClient(transport=OPENAI_HTTP.MockTransport(lambda request: OPENAI_HTTP.Response(200, json=REPLY))))
    template = PromptTemplate.from_template(document_prompt)

    def join(found: list[Document]) -> str:
        return "\n\n".join(format_document(document, template) for document in found)

    return {"context": store.as_retriever(search_kwargs={"k": 2}) | join, "question": RunnablePassthrough()} | PROMPT | llm | StrOutputParser()


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("document_prompt", "expected"), [
    (SCORED, [_score(1, "0.77"), ("PL201", DATE, 6), _score(2, "0.82"), ("PL201", DATE, 6)]),
    (DATED, [("PL201", DATE, 6), ("PL201", DATE, 6)]),
    (PLAIN, []),
], ids=["scored", "dated", "clean"])
def test_a_retrieval_chain_is_linted_with_the_sources_it_retrieved(asynchronous, document_prompt, expected):
    chain = _chain(document_prompt)
    question = "How long do I have to return damaged goods?"
    with promptlint.capture() as captured:
        answer = asyncio.run(chain.ainvoke(question)) if asynchronous else chain.invoke(question)
    assert answer == "ok"
    [request] = captured.requests
    assert json.loads(request.body)["messages"][1]["content"] == question
    assert [(f.code, f.message, f.tokens) for f in captured.findings] == expected


def test_without_the_retrieved_documents_the_same_request_is_read_from_its_text_alone():
    chain = _chain(SCORED)
    with promptlint.capture() as captured:
        chain.invoke("How long do I have to return damaged goods?")
    alone = promptlint.capture()
    alone._take(captured.requests[0].body, "")
    # The text alone reads what the documents tell: the header's skeleton gives the dates (a date-shaped value
    # in brackets on each source) and the scores beside them (a measure's word and its number, "relevance 1.75").
    assert [f.code for f in alone.findings] == ["PL102", "PL201", "PL102", "PL201"]


def test_retrievals_are_seen_in_a_context_that_starts_capture_after_another_did():
    # Each capture here starts in a context of its own, empty (as a new thread's is): the first
    # inside a task, whose context is a copy; the second in the empty context itself, which
    # must see the retriever's documents although the hook was put on before.
    chain = _chain(SCORED)

    async def first():
        with promptlint.capture():
            pass

    def second() -> list[str]:
        asyncio.run(first())
        with promptlint.capture() as captured:
            chain.invoke("How long do I have to return damaged goods?")
        return [f.code for f in captured.findings]

    assert contextvars.Context().run(second) == ["PL102", "PL201", "PL102", "PL201"]
