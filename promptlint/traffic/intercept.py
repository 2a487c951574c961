"""Requests on their way out of an httpx (or httpx2) client or botocore, handed to whoever listens.

Every SDK built on httpx (OpenAI, Anthropic, Cohere, Mistral, Groq, Ollama, Google GenAI,
and the frameworks over them) sends through ``Client.send`` or ``AsyncClient.send``; the
OpenAI and Anthropic SDKs now send through httpx2, whose classes are the same. The first
listener wraps those methods, once, for good: restoring them later could undo another
library's wrapper put on after ours, and with no listener the wrapper only reads a tuple.

An SDK that sends asynchronously through aiohttp where it is installed (Google GenAI's async
client) is taken in ``ClientSession._request``, which every request of a session passes through;
but not when an httpx client sends it through aiohttp (LiteLLM's transport): it was taken there.

botocore (Bedrock's ``Converse``, ``InvokeModel``, ``RetrieveAndGenerate``) sends through
urllib3, and a stubbed client (botocore's ``Stubber``) sends nothing at all: its request is
taken where the client has just serialised it, which every call passes through.

A listener gets a request's body and its host and path, never its headers (where the API
keys are) nor its query string (where some providers put one). Only a body already in
memory is handed on: reading a streamed body would consume it. The request is then sent as
it was: a listener's error is counted in ``errors`` and dropped, and nothing is awaited.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import threading
from collections.abc import Callable
from contextvars import ContextVar
from urllib.parse import urlsplit

Listener = Callable[[bytes, str], None]

CLIENT_MODULES = ("httpx", "httpx2")

errors = 0  # listener (or body-reading) errors swallowed so far
_sending: ContextVar[bool] = ContextVar("promptlint_sending", default=False)  # inside an async httpx send


class Listeners:
    """Who listens, changed under a lock and read without one (a tuple, replaced whole); the
    first listener runs ``wrap``, which puts the wrappers on once."""

    def __init__(self, wrap: Callable[[], None]):
        self._wrap = wrap
        self._lock = threading.Lock()
        self.all: tuple[Callable, ...] = ()

    def add(self, listener: Callable) -> None:
        """Hand everything from now on to ``listener`` as well."""
        with self._lock:
            self._wrap()
            self.all += (listener,)

    def remove(self, listener: Callable) -> None:
        """No longer hand anything to ``listener`` (once, if it listens twice)."""
        with self._lock:
            found = list(self.all)
            if listener in found:
                found.remove(listener)
            self.all = tuple(found)


_wrapped: set[str] = set()


def _wrap_clients() -> None:
    for name in CLIENT_MODULES:
        if name in _wrapped or importlib.util.find_spec(name) is None:
            continue
        module = importlib.import_module(name)
        module.Client.send = _sync_send(module.Client.send, module.RequestNotRead)
        module.AsyncClient.send = _async_send(module.AsyncClient.send, module.RequestNotRead)
        _wrapped.add(name)
    if "aiohttp" not in _wrapped and importlib.util.find_spec("aiohttp") is not None:
        from aiohttp import ClientSession

        ClientSession._request = _aiohttp_request(ClientSession._request)
        _wrapped.add("aiohttp")
    if "botocore" not in _wrapped and importlib.util.find_spec("botocore") is not None:
        from botocore.client import BaseClient

        BaseClient._convert_to_request_dict = _botocore_serialise(BaseClient._convert_to_request_dict)
        _wrapped.add("botocore")


def _deliver(request, not_read: type[Exception]) -> None:
    global errors
    if not _requests.all:
        return
    try:
        body = request.content
        where = f"{request.url.host}{request.url.path}"
    except not_read:
        return  # a streamed body, not read yet
    except Exception:
        errors += 1
        return
    _hand_on(body, where)


def _deliver_botocore(request: dict) -> None:
    global errors
    if not _requests.all:
        return
    try:
        body, url = request["body"], urlsplit(request["url"])
        body = body.encode("utf-8") if isinstance(body, str) else body
    except Exception:
        errors += 1
        return
    if isinstance(body, bytes):  # not a file the caller streams
        _hand_on(body, f"{url.hostname}{url.path}")


def _deliver_aiohttp(url, data, document) -> None:
    """``data`` as sent, or the JSON ``document`` as aiohttp writes it by default; a form, a file
    or a stream is not read."""
    global errors
    if not _requests.all or _sending.get():
        return
    try:
        if document is not None:
            body = json.dumps(document).encode("utf-8")
        elif isinstance(data, str | bytes | bytearray):
            body = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        else:
            return
        where = urlsplit(str(url))
    except Exception:
        errors += 1
        return
    _hand_on(body, f"{where.hostname or ''}{where.path}")


def _hand_on(body: bytes, where: str) -> None:
    global errors
    if not body:
        return
    for listener in _requests.all:
        try:
            listener(body, where)
        except Exception:
            errors += 1


_requests = Listeners(_wrap_clients)
listen, stop = _requests.add, _requests.remove


def _sync_send(original, not_read: type[Exception]):
    def send(self, request, **options):
        _deliver(request, not_read)
        return original(self, request, **options)

    send.__wrapped__ = original
    return send


def _async_send(original, not_read: type[Exception]):
    async def send(self, request, **options):
        _deliver(request, not_read)
        sending = _sending.set(True)
        try:
            return await original(self, request, **options)
        finally:
            _sending.reset(sending)

    send.__wrapped__ = original
    return send


def _aiohttp_request(original):
    async def _request(self, method, str_or_url, **options):
        _deliver_aiohttp(str_or_url, options.get("data"), options.get("json"))
        return await original(self, method, str_or_url, **options)

    _request.__wrapped__ = original
    return _request


def _botocore_serialise(original):
    def serialise(self, *args, **kwargs):
        request = original(self, *args, **kwargs)
        _deliver_botocore(request)
        return request

    serialise.__wrapped__ = original
    return serialise
