"""The documents a framework's retriever returns, handed to whoever listens.

LangChain calls ``on_retriever_end`` of every callback handler a run is configured with; a
configure hook adds ours to every run started in a context where it is set (the thread
that started listening, and what it runs in threads and tasks of its own). LlamaIndex
sends a ``RetrievalEndEvent`` with the nodes and their scores to the handlers of its root
dispatcher, from any thread; a node's score is handed on as its metadata ``score``.
Haystack traces each component a pipeline runs, and hands the span its output as a content
tag, which a tracer may take whether or not content tracing is on: our tracer goes around
the one Haystack traces with, passes every span and tag on to it unchanged, and hands on the
``documents`` a component outputs (a retriever, a ranker), each score as the metadata
``score``. A listener gets each document's text and its metadata of plain values (strings,
numbers, dates). An error here is counted in ``intercept.errors``; no framework raises a
handler's error into the application, and ours are caught before they reach it.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib.util
from collections.abc import Mapping

from ..readers.retrieved import Retrieved
from . import intercept

_hooked: set[str] = set()
_langchain: dict = {}  # the context variable LangChain's configure hook reads, and our handler
_haystack: dict = {}  # our tracer's class
_PLAIN = (str, int, float, datetime.date)


def _hook_frameworks() -> None:
    _hook_langchain()
    _hook_llama_index()
    _hook_haystack()


def _hand_on(found: list[Retrieved]) -> None:
    for listener in _retrievals.all:
        listener(found)


def _plain(metadata: dict, score: float | None = None) -> tuple[tuple[str, object], ...]:
    """The plain values of ``metadata``, and the retriever's ``score`` (when it gives one) as its ``score``."""
    scored = {**metadata, "score": score} if score is not None else metadata
    return tuple((str(key), value) for key, value in scored.items() if isinstance(value, _PLAIN))


def _hook_langchain() -> None:
    """Our handler, set in the context that starts listening (each time: a context copied earlier,
    as a task's or a thread's is, does not see what is set after); the hook, registered once."""
    if "langchain" not in _hooked:
        if importlib.util.find_spec("langchain_core") is None:
            return
        _register_langchain()
    _langchain["variable"].set(_langchain["handler"])


def _register_langchain() -> None:
    from contextvars import ContextVar

    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.tracers.context import register_configure_hook

    class Retrievals(BaseCallbackHandler):
        def on_retriever_end(self, documents, **kwargs) -> None:
            try:
                _hand_on([Retrieved(d.page_content, _plain(d.metadata)) for d in documents])
            except Exception:
                intercept.errors += 1

    variable: ContextVar[BaseCallbackHandler | None] = ContextVar("promptlint_retrievals", default=None)
    register_configure_hook(variable, True)
    _langchain.update(variable=variable, handler=Retrievals())
    _hooked.add("langchain")


def _hook_llama_index() -> None:
    # The dispatcher is a package of its own (what llama_index.core.instrumentation re-exports):
    # hooking it does not import LlamaIndex itself, nor numpy under it.
    if "llama_index" in _hooked or importlib.util.find_spec("llama_index_instrumentation") is None:
        return
    from llama_index_instrumentation import get_dispatcher
    from llama_index_instrumentation.event_handlers import BaseEventHandler

    class Retrievals(BaseEventHandler):
        @classmethod
        def class_name(cls) -> str:
            return "PromptlintRetrievals"

        def handle(self, event, **kwargs) -> None:
            if type(event).__name__ != "RetrievalEndEvent":  # its class is in LlamaIndex itself
                return
            try:
                found = [Retrieved(n.node.get_content(), _plain(n.node.metadata, n.score)) for n in event.nodes]
                _hand_on(found)
            except Exception:
                intercept.errors += 1

    get_dispatcher().add_event_handler(Retrievals())
    _hooked.add("llama_index")


def _hook_haystack() -> None:
    """Our tracer around the one Haystack traces with (each time: the application may enable its own
    after ours, which replaces it); its class, made once."""
    if "haystack" not in _hooked and importlib.util.find_spec("haystack") is None:
        return
    try:
        if "haystack" not in _hooked:
            _register_haystack()
        from haystack import tracing

        if not isinstance(tracing.tracer.actual_tracer, _haystack["tracer"]):
            tracing.enable_tracing(_haystack["tracer"](tracing.tracer.actual_tracer))
    except Exception:  # a Haystack whose tracing we do not know: its documents are not seen, and capture goes on
        intercept.errors += 1


def _register_haystack() -> None:
    from haystack import tracing
    from haystack.dataclasses import Document

    def take(output) -> None:
        if not _retrievals.all:  # no capture running: the tracer only passes things on
            return
        try:
            documents = output.get("documents") if isinstance(output, Mapping) else None
            found = [Retrieved(d.content, _plain(d.meta, d.score)) for d in documents or () if isinstance(d, Document) and isinstance(d.content, str)]
            if found:
                _hand_on(found)
        except Exception:
            intercept.errors += 1

    class Span(tracing.Span):
        """A span of the application's tracer, which sees the component's output go by."""

        def __init__(self, inner: tracing.Span):
            self.inner = inner

        def set_tag(self, key, value) -> None:
            self.inner.set_tag(key, value)

        def set_tags(self, tags) -> None:
            self.inner.set_tags(tags)

        def set_content_tag(self, key, value) -> None:
            if key == "haystack.component.output":
                take(value)
            self.inner.set_content_tag(key, value)  # which keeps it only where content tracing is on

        def raw_span(self):
            return self.inner.raw_span()

        def get_correlation_data_for_logs(self) -> dict:
            return self.inner.get_correlation_data_for_logs()

        def __getattr__(self, name):  # what the application's span has beyond Haystack's interface
            if name == "inner":  # not set yet (a copy being made): not the inner span's
                raise AttributeError(name)
            return getattr(self.inner, name)

    class Tracer(tracing.Tracer):
        """The application's tracer (Haystack's null one by default), its spans seen by ``Span``."""

        def __init__(self, inner: tracing.Tracer):
            self.inner = inner

        @contextlib.contextmanager
        def trace(self, operation_name, tags=None, parent_span=None):
            parent = parent_span.inner if isinstance(parent_span, Span) else parent_span
            with self.inner.trace(operation_name, tags=tags, parent_span=parent) as span:
                yield Span(span)

        def current_span(self):
            return self.inner.current_span()

        def __getattr__(self, name):  # what the application's tracer has beyond Haystack's interface
            if name == "inner":
                raise AttributeError(name)
            return getattr(self.inner, name)

    _haystack["tracer"] = Tracer
    _hooked.add("haystack")


_retrievals = intercept.Listeners(_hook_frameworks)
listen, stop = _retrievals.add, _retrievals.remove
