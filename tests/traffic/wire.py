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


CHAT_REPLY = {"id": "c1", "object": "chat.completion", "created": 0, "model": "gpt-4o",
              "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
              "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


@contextmanager
def chat_server():
    """A server on 127.0.0.1 that answers every POST as OpenAI's chat completions do; yields its base URL."""

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            body = json.dumps(CHAT_REPLY).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
