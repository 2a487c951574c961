"""The HTTP client module each SDK sends through: openai and anthropic moved from httpx to httpx2, and
a framework may pin either (llama-index-llms-openai wants openai 2, on httpx). Tests build their
MockTransport from the module the installed SDK uses, so they test the version installed."""

from __future__ import annotations

import anthropic._base_client
import openai._base_client


def _client_module(base):
    return getattr(base, "httpx2", None) or base.httpx


OPENAI_HTTP = _client_module(openai._base_client)
ANTHROPIC_HTTP = _client_module(anthropic._base_client)
