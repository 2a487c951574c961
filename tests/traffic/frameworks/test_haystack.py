"""Haystack: an InMemoryDocumentStore, a BM25 retriever, a ChatPromptBuilder and the OpenAI chat
generator pointed at a local server on 127.0.0.1, run sync and async. The retriever's output documents
come to the capture through Haystack's tracer, so each source is known, not guessed: the wrapper's score
(the document's BM25 score) and date are found by their values. Skipped unless haystack-ai is installed
(the `test-frameworks` extra, which .ci/run installs in an environment of its own)."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest

pytest.importorskip("haystack")

from haystack import Document, Pipeline, tracing  # noqa: E402
from haystack.components.builders import ChatPromptBuilder  # noqa: E402
from haystack.components.generators.chat import OpenAIChatGenerator  # noqa: E402
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever  # noqa: E402
from haystack.dataclasses import ChatMessage  # noqa: E402
from haystack.document_stores.in_memory import InMemoryDocumentStore  # noqa: E402
from haystack.utils import Secret  # noqa: E402
from wire import chat_server  # noqa: E402

import promptlint  # noqa: E402

SCORED = "[{{ loop.index }}] {{ doc.meta.title }} (relevance {{ '%.2f' % doc.score }}, updated {{ doc.meta.last_modified }})\n{{ doc.content }}\n\n"
DATED = "[{{ loop.index }}] {{ doc.meta.title }}: {{ doc.content }} [{{ doc.meta.last_modified }}]\n\n"
PLAIN = "[{{ loop.index }}] {{ doc.meta.title }}\n{{ doc.content }}\n\n"
QUESTION = "How long do I have to return damaged goods?"
DATE = "All 2 sources are dated; a date on every source makes the model prefer recency over relevance"


def _pipeline(source: str, url: str) -> Pipeline:
    store = InMemoryDocumentStore()
    store.write_documents([
        Document(content="Damaged goods may be returned within 30 days of delivery.", meta={"title": "Returns Policy", "last_modified": "2026-11-20"}),
        Document(content="Refunds are paid to the original card within five working days.", meta={"title": "Refunds FAQ", "last_modified": "2026-10-02"}),
    ])
    template = [ChatMessage.from_system("Answer from the sources only."),
                ChatMessage.from_user("Sources:\n{% for doc in documents %}" + source + "{% endfor %}Question: {{ question }}")]
    pipeline = Pipeline()
    pipeline.add_component("retriever", InMemoryBM25Retriever(document_store=store, top_k=2))
    pipeline.add_component("prompt", ChatPromptBuilder(template=template, required_variables=["question", "documents"]))
    pipeline.add_component("llm", OpenAIChatGenerator(api_key=Secret.from_token("sk-test"), model="gpt-4o", api_base_url=url, max_retries=0))
    pipeline.connect("retriever.documents", "prompt.documents")
    pipeline.connect("prompt.prompt", "llm.messages")
    return pipeline


def _run(pipeline: Pipeline, asynchronous: bool) -> dict:
    data = {"retriever": {"query": QUESTION}, "prompt": {"question": QUESTION}}
    return asyncio.run(pipeline.run_async(data)) if asynchronous else pipeline.run(data)


def _score(n: int, value: str) -> tuple[str, str, int]:
    return ("PL102", f"Source {n} shows its retrieval score ('{value}'); the model reads it as an instruction to defer to the top hit", 5)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("source", "printed", "expected"), [
    (SCORED, "[1] Returns Policy (relevance 1.75, updated 2026-11-20)\nDamaged goods", [_score(1, "1.75"), ("PL201", DATE, 6), _score(2, "0.86"), ("PL201", DATE, 6)]),
    (DATED, "[1] Returns Policy: Damaged goods may be returned within 30 days of delivery. [2026-11-20]", [("PL201", DATE, 6), ("PL201", DATE, 6)]),
    (PLAIN, "[1] Returns Policy\nDamaged goods", []),
], ids=["scored", "dated", "clean"])
def test_a_haystack_pipeline_is_linted_with_the_documents_it_retrieved(asynchronous, source, printed, expected):
    with chat_server() as url, promptlint.capture() as captured:
        result = _run(_pipeline(source, url), asynchronous)
    assert result["llm"]["replies"][0].text == "ok"
    [request] = captured.requests
    sent = json.loads(request.body)["messages"][-1]["content"]
    assert printed in sent and sent.endswith(f"Question: {QUESTION}")
    assert [(f.code, f.message, f.tokens) for f in captured.findings] == expected


@pytest.mark.parametrize(("source", "expected"), [
    # A BM25 score (1.75) has no score's shape, but the word before it says what it measures ("relevance 1.75"):
    # read alone, the scores are found beside the dates.
    (SCORED, ["PL102", "PL201", "PL102", "PL201"]),
    # Read alone, each source's whole line is its wrapper, chunk and all; rewriting it would save fewer
    # tokens than PL402's min-saving, so only the dates are reported.
    (DATED, ["PL201", "PL201"]),
    (PLAIN, []),
], ids=["scored", "dated", "clean"])
def test_without_the_retrieved_documents_the_same_request_is_read_from_its_text_alone(source, expected):
    with chat_server() as url, promptlint.capture() as captured:
        _run(_pipeline(source, url), False)
    alone = promptlint.capture()
    alone._take(captured.requests[0].body, "")
    assert [f.code for f in alone.findings] == expected


class Recording(tracing.Tracer):
    """An application's own tracer: each span's operation, tags and parent."""

    def __init__(self):
        self.spans: list[RecordedSpan] = []

    @contextlib.contextmanager
    def trace(self, operation_name, tags=None, parent_span=None):
        span = RecordedSpan(operation_name, dict(tags or {}), parent_span)
        self.spans.append(span)
        yield span

    def current_span(self):
        return self.spans[-1] if self.spans else None

    def seen(self) -> list[tuple[str, list[str], int | None]]:
        return [(s.operation, sorted(s.tags), None if s.parent is None else self.spans.index(s.parent)) for s in self.spans]


class RecordedSpan(tracing.Span):
    def __init__(self, operation: str, tags: dict, parent):
        self.operation, self.tags, self.parent = operation, tags, parent

    def set_tag(self, key, value) -> None:
        self.tags[key] = value


@pytest.mark.parametrize("content", [False, True], ids=["content-tracing-off", "content-tracing-on"])
def test_the_applications_own_tracer_sees_the_same_spans_and_tags_under_capture(monkeypatch, content):
    monkeypatch.setattr(tracing.tracer, "is_content_tracing_enabled", content)
    seen = []
    try:
        for capturing in (False, True):
            recording = Recording()
            tracing.enable_tracing(recording)
            with chat_server() as url, promptlint.capture() if capturing else contextlib.nullcontext() as captured:
                _run(_pipeline(SCORED, url), False)
            seen.append(recording.seen())
    finally:
        tracing.disable_tracing()
    assert [f.code for f in captured.findings] == ["PL102", "PL201", "PL102", "PL201"]
    assert seen[0] == seen[1]
    outputs = sum("haystack.component.output" in tags for _, tags, _ in seen[1])
    assert outputs == (3 if content else 0)  # the retriever's, the prompt builder's and the generator's
    assert all(parent is not None for operation, _, parent in seen[1] if operation == "haystack.component.run")
