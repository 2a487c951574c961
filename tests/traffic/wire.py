"""The HTTP client module each SDK sends through (``client_module``): openai and anthropic moved from httpx to httpx2, and
a framework may pin either (llama-index-llms-openai wants openai 2, on httpx). Tests build their
MockTransport from the module the installed SDK uses, so they test the version installed. A framework
that takes no client of the caller's (Haystack) talks to a local server instead."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import openai._base_client


def client_module(base):
    """The module a SDK's ``_base_client`` sends through."""
    return getattr(base, "httpx2", None) or base.httpx


OPENAI_HTTP = client_module(openai._base_client)


# What the SDK tests send: two sources, each with its score, and its clean twin; and the key they send with.
SECRET = "sk-test-0123456789-secret"
SOURCES = "Answer from the sources.\n\n[1] Returns Policy{}\nDamaged goods may be returned within 30 days.\n\n[2] Shipping FAQ{}\nDelivery takes 3-5 days.\n\nQuestion: How long do I have?"
SCORED = SOURCES.format(" (score: 0.91)", " (score: 0.82)")
PLAIN = SOURCES.format("", "")
SCORED_FINDINGS = [
    ("PL102", "Source 1 shows its retrieval score ('score: 0.91'); the model reads it as an instruction to defer to the top hit", 8),
    ("PL102", "Source 2 shows its retrieval score ('score: 0.82'); the model reads it as an instruction to defer to the top hit", 8),
]


CHAT_REPLY = {"id": "c1", "object": "chat.completion", "created": 0, "model": "gpt-4o",
              "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
              "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


@contextmanager
def chat_server(reply: dict = CHAT_REPLY, base: str = "/v1", received: list | None = None):
    """A server on 127.0.0.1 that answers every POST with ``reply`` (as OpenAI's chat completions do, by
    default), keeping each body it read in ``received``; yields its URL, with ``base`` as its path."""

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["content-length"])) if "content-length" in self.headers else self._chunks()
            if received is not None:
                received.append(body)
            body = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _chunks(self) -> bytes:
            body = b""
            while size := int(self.rfile.readline().split(b";")[0], 16):
                body += self.rfile.read(size)
                self.rfile.readline()
            self.rfile.readline()
            return body

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}{base}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
