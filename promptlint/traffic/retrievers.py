"""The documents a framework's retriever returns, handed to whoever listens.

LangChain calls ``on_retriever_end`` of every callback handler a run is configured with; a
configure hook adds ours to every run started in a context where it is set (the thread
that started listening, and what it runs in threads and tasks of its own). A listener gets
each document's text and its metadata of plain values (strings, numbers, dates). An error
here is counted in ``intercept.errors``, and LangChain never raises a handler's error into
the chain.
"""

from __future__ import annotations

import datetime
import importlib.util
import threading
from collections.abc import Callable

from ..readers.retrieved import Retrieved
from . import intercept

Listener = Callable[[list[Retrieved]], None]

_lock = threading.Lock()
_listeners: tuple[Listener, ...] = ()
_hooked = False
_PLAIN = (str, int, float, datetime.date)


def listen(listener: Listener) -> None:
    global _listeners
    with _lock:
        _hook_langchain()
        _listeners += (listener,)


def stop(listener: Listener) -> None:
    global _listeners
    with _lock:
        found = list(_listeners)
        if listener in found:
            found.remove(listener)
        _listeners = tuple(found)


def _hand_on(documents) -> None:
    try:
        found = [Retrieved(d.page_content, tuple((str(k), v) for k, v in d.metadata.items() if isinstance(v, _PLAIN))) for d in documents]
        for listener in _listeners:
            listener(found)
    except Exception:
        intercept.errors += 1


def _hook_langchain() -> None:
    global _hooked
    if _hooked or importlib.util.find_spec("langchain_core") is None:
        return
    from contextvars import ContextVar

    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.tracers.context import register_configure_hook

    class Retrievals(BaseCallbackHandler):
        def on_retriever_end(self, documents, **kwargs) -> None:
            _hand_on(documents)

    handler: ContextVar[BaseCallbackHandler | None] = ContextVar("promptlint_retrievals", default=None)
    register_configure_hook(handler, True)
    handler.set(Retrievals())
    _hooked = True
