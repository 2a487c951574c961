"""Requests on their way out of an httpx (or httpx2) client, handed to whoever listens.

Every SDK built on httpx (OpenAI, Anthropic, Cohere, Mistral, Groq, Ollama, Google GenAI,
and the frameworks over them) sends through ``Client.send`` or ``AsyncClient.send``; the
OpenAI and Anthropic SDKs now send through httpx2, whose classes are the same. The first
listener wraps those methods, once, for good: restoring them later could undo another
library's wrapper put on after ours, and with no listener the wrapper only reads a tuple.

A listener gets a request's body and its host and path, never its headers (where the API
keys are) nor its query string (where some providers put one). Only a body already in
memory is handed on: reading a streamed body would consume it. The request is then sent as
it was: a listener's error is counted in ``errors`` and dropped, and nothing is awaited.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Callable

Listener = Callable[[bytes, str], None]

CLIENT_MODULES = ("httpx", "httpx2")

_lock = threading.Lock()
_listeners: tuple[Listener, ...] = ()
_wrapped: set[str] = set()
errors = 0  # listener (or body-reading) errors swallowed so far


def listen(listener: Listener) -> None:
    """Hand every request from now on to ``listener`` as well."""
    global _listeners
    with _lock:
        _wrap_clients()
        _listeners += (listener,)


def stop(listener: Listener) -> None:
    """No longer hand requests to ``listener`` (once, if it listens twice)."""
    global _listeners
    with _lock:
        found = list(_listeners)
        if listener in found:
            found.remove(listener)
        _listeners = tuple(found)


def _wrap_clients() -> None:
    for name in CLIENT_MODULES:
        if name in _wrapped or importlib.util.find_spec(name) is None:
            continue
        module = importlib.import_module(name)
        module.Client.send = _sync_send(module.Client.send, module.RequestNotRead)
        module.AsyncClient.send = _async_send(module.AsyncClient.send, module.RequestNotRead)
        _wrapped.add(name)


def _deliver(request, not_read: type[Exception]) -> None:
    global errors
    listeners = _listeners
    if not listeners:
        return
    try:
        body = request.content
        where = f"{request.url.host}{request.url.path}"
    except not_read:
        return  # a streamed body, not read yet
    except Exception:
        errors += 1
        return
    if not body:
        return
    for listener in listeners:
        try:
            listener(body, where)
        except Exception:
            errors += 1


def _sync_send(original, not_read: type[Exception]):
    def send(self, request, **options):
        _deliver(request, not_read)
        return original(self, request, **options)

    send.__wrapped__ = original
    return send


def _async_send(original, not_read: type[Exception]):
    async def send(self, request, **options):
        _deliver(request, not_read)
        return await original(self, request, **options)

    send.__wrapped__ = original
    return send
