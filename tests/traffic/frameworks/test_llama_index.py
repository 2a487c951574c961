"""LlamaIndex: a VectorStoreIndex with MockEmbedding and the default query engine, on nodes with metadata,
its LLM sending through httpx's MockTransport. Pins what the default text-QA prompt sends (each node's
metadata as "key: value" lines, a blank line above its text) and what fires on it: the nodes come from
the retrieval event, so the dates are known as the nodes' metadata. Skipped unless llama-index-core and
llama-index-llms-openai are installed (the `test-frameworks` extra, which .ci/run installs in an environment
of its own)."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("llama_index.core")
pytest.importorskip("llama_index.llms.openai")

from llama_index.core import Document, VectorStoreIndex  # noqa: E402
from llama_index.core.embeddings import MockEmbedding  # noqa: E402
from llama_index.llms.openai import OpenAI  # noqa: E402
from wire import CHAT_REPLY as REPLY
from wire import OPENAI_HTTP  # noqa: E402

import promptlint  # noqa: E402

TEXTS = {"returns.md": ("Damaged goods may be returned within 30 days of delivery.", "2026-11-20"),
         "refunds.md": ("Refunds are paid to the original card within five working days.", "2026-10-02")}
DATE = "All 2 sources are dated; a date on every source makes the model prefer recency over relevance"


def _engine(hidden: list[str]):
    documents = [Document(text=text, metadata={"file_name": name, "last_modified": date}, excluded_llm_metadata_keys=hidden)
                 for name, (text, date) in TEXTS.items()]
    answer = OPENAI_HTTP.MockTransport(lambda request: OPENAI_HTTP.Response(200, json=REPLY))
    llm = OpenAI(model="gpt-4o", api_key="sk-test", api_base="http://127.0.0.1:9/v1", max_retries=0,
                 http_client=OPENAI_HTTP.Client(transport=answer), async_http_client=OPENAI_HTTP.AsyncClient(transport=answer))
    index = VectorStoreIndex.from_documents(documents, embed_model=MockEmbedding(embed_dim=8))
    return index.as_query_engine(llm=llm, similarity_top_k=2)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("hidden", "printed", "expected"), [
    # The date's whole `last_modified: ...` line is the field (label and value go together): 11 tokens.
    ([], "file_name: returns.md\nlast_modified: 2026-11-20\n\nDamaged goods", [("PL201", DATE, 11), ("PL201", DATE, 11)]),
    (["last_modified"], "file_name: returns.md\n\nDamaged goods", []),
], ids=["dated", "clean"])
def test_the_default_query_engine_is_linted_with_its_nodes(asynchronous, hidden, printed, expected):
    engine = _engine(hidden)
    question = "How long do I have to return damaged goods?"
    with promptlint.capture() as captured:
        answer = asyncio.run(engine.aquery(question)) if asynchronous else engine.query(question)
    assert str(answer) == "ok"
    [request] = captured.requests
    sent = json.loads(request.body)["messages"][-1]["content"]
    assert sent.startswith("Context information is below.\n---------------------\n") and printed in sent
    assert [(f.code, f.message, f.tokens) for f in captured.findings] == expected
