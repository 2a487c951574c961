"""The documents a framework's retriever returns, handed to whoever listens.

LangChain calls ``on_retriever_end`` of every callback handler a run is configured with; a
configure hook adds ours to every run started in a context where it is set (the thread
that started listening, and what it runs in threads and tasks of its own). LlamaIndex
sends a ``RetrievalEndEvent`` with the nodes and their scores to the handlers of its root
dispatcher, from any thread; a node's score is handed on as its metadata ``score``. A
listener gets each document's text and its metadata of plain values (strings, numbers,
dates). An error here is counted in ``intercept.errors``; neither framework raises a
handler's error into the application.
"""

from __future__ import annotations

import datetime
import importlib.util

from ..readers.retrieved import Retrieved
from . import intercept

_hooked: set[str] = set()
_langchain: dict = {}  # the context variable LangChain's configure hook reads, and our handler
_PLAIN = (str, int, float, datetime.date)


def _hook_frameworks() -> None:
    _hook_langchain()
    _hook_llama_index()


def _hand_on(found: list[Retrieved]) -> None:
    for listener in _retrievals.all:
        listener(found)


def _plain(metadata: dict) -> tuple[tuple[str, object], ...]:
    return tuple((str(key), value) for key, value in metadata.items() if isinstance(value, _PLAIN))


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
                found = [Retrieved(n.node.get_content(), _plain({**n.node.metadata, **({"score": n.score} if n.score is not None else {})})) for n in event.nodes]
                _hand_on(found)
            except Exception:
                intercept.errors += 1

    get_dispatcher().add_event_handler(Retrievals())
    _hooked.add("llama_index")


_retrievals = intercept.Listeners(_hook_frameworks)
listen, stop = _retrievals.add, _retrievals.remove
