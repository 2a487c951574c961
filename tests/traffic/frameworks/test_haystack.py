"""Haystack: an InMemoryDocumentStore, a BM25 retriever, a ChatPromptBuilder and the OpenAI chat
generator pointed at a local server on 127.0.0.1. The request is captured as sent and read from its
text (Haystack's retrieved documents are not handed over yet). Skipped unless haystack-ai is installed
(the `test-frameworks` extra)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("haystack")

from haystack import Document, Pipeline  # noqa: E402
from haystack.components.builders import ChatPromptBuilder  # noqa: E402
from haystack.components.generators.chat import OpenAIChatGenerator  # noqa: E402
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever  # noqa: E402
from haystack.dataclasses import ChatMessage  # noqa: E402
from haystack.document_stores.in_memory import InMemoryDocumentStore  # noqa: E402
from haystack.utils import Secret  # noqa: E402
from wire import chat_server  # noqa: E402

import promptlint  # noqa: E402

SCORED = "[{{ loop.index }}] {{ doc.meta.title }} (score: {{ '%.2f' % doc.score }})\n{{ doc.content }}\n\n"
PLAIN = "[{{ loop.index }}] {{ doc.meta.title }}\n{{ doc.content }}\n\n"
QUESTION = "How long do I have to return damaged goods?"


def _pipeline(source: str, url: str) -> Pipeline:
    store = InMemoryDocumentStore()
    store.write_documents([Document(content="Damaged goods may be returned within 30 days of delivery.", meta={"title": "Returns Policy"}),
                           Document(content="Refunds are paid to the original card within five working days.", meta={"title": "Refunds FAQ"})])
    template = [ChatMessage.from_system("Answer from the sources only."),
                ChatMessage.from_user("Sources:\n{% for doc in documents %}" + source + "{% endfor %}Question: {{ question }}")]
    pipeline = Pipeline()
    pipeline.add_component("retriever", InMemoryBM25Retriever(document_store=store, top_k=2))
    pipeline.add_component("prompt", ChatPromptBuilder(template=template, required_variables=["question", "documents"]))
    pipeline.add_component("llm", OpenAIChatGenerator(api_key=Secret.from_token("sk-test"), model="gpt-4o", api_base_url=url, max_retries=0))
    pipeline.connect("retriever.documents", "prompt.documents")
    pipeline.connect("prompt.prompt", "llm.messages")
    return pipeline


def _score(n: int, value: str) -> tuple[str, str, int]:
    return ("PL102", f"Source {n} shows its retrieval score ('score: {value}'); the model reads it as an instruction to defer to the top hit", 8)


@pytest.mark.parametrize(("source", "expected"), [(SCORED, [_score(1, "1.75"), _score(2, "0.86")]), (PLAIN, [])], ids=["scored", "clean"])
def test_a_haystack_pipeline_is_captured_through_a_local_server(source, expected):
    with chat_server() as url, promptlint.capture() as captured:
        result = _pipeline(source, url).run({"retriever": {"query": QUESTION}, "prompt": {"question": QUESTION}})
    assert result["llm"]["replies"][0].text == "ok"
    [request] = captured.requests
    assert json.loads(request.body)["messages"][-1]["content"].endswith(f"Question: {QUESTION}")
    assert [(f.code, f.message, f.tokens) for f in captured.findings] == expected
