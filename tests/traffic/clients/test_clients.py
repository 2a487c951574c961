"""The SDKs the issue names as covered through httpx, beyond OpenAI and Anthropic: Groq, Ollama, Mistral,
Cohere, Google GenAI (async through aiohttp where it is installed), LiteLLM (through the OpenAI SDK,
and its own client for Ollama) and DSPy on its LiteLLM engine, each sync and async, sending to a local
server on 127.0.0.1 that answers as the provider does. Each request is captured once, with its own
shape (chat, Ollama's chat, Cohere's v2 chat, Gemini's contents), and linted, with a clean twin. A
case skips unless its SDK is installed (the `test-clients` extra, which .ci/run installs beside the
frameworks)."""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from wire import CHAT_REPLY, PLAIN, SCORED, SCORED_FINDINGS, SECRET, chat_server

import promptlint


def _messages(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def _groq(url, text, asynchronous):
    import groq

    client = (groq.AsyncGroq if asynchronous else groq.Groq)(api_key=SECRET, base_url=url, max_retries=0)
    return client.chat.completions.create(model="llama-3.3-70b-versatile", messages=_messages(text))


def _ollama(url, text, asynchronous):
    import ollama

    return (ollama.AsyncClient if asynchronous else ollama.Client)(host=url).chat(model="llama3.2", messages=_messages(text))


def _mistral(url, text, asynchronous):
    from mistralai.client import Mistral

    chat = Mistral(api_key=SECRET, server_url=url).chat
    return (chat.complete_async if asynchronous else chat.complete)(model="mistral-small-latest", messages=_messages(text))


def _cohere(url, text, asynchronous):
    import cohere

    client = (cohere.AsyncClientV2 if asynchronous else cohere.ClientV2)(api_key=SECRET, base_url=url)
    return client.chat(model="command-a-03-2025", messages=_messages(text))


def _gemini(url, text, asynchronous):
    from google import genai
    from google.genai import types

    client = genai.Client(api_key=SECRET, http_options=types.HttpOptions(base_url=url))
    models = client.aio.models if asynchronous else client.models
    return models.generate_content(model="gemini-2.0-flash", contents=text)


def _litellm(model: str, base: str):
    def send(url, text, asynchronous):
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # its price list read from its package, not fetched
        import litellm

        call = litellm.acompletion if asynchronous else litellm.completion
        return call(model=model, api_base=f"{url}{base}", api_key=SECRET, messages=_messages(text), num_retries=0)

    return send


OLLAMA_REPLY = {"model": "llama3.2", "created_at": "2026-12-01T00:00:00Z", "message": {"role": "assistant", "content": "ok"}, "done": True}
COHERE_REPLY = {"id": "c1", "finish_reason": "COMPLETE", "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
                "usage": {"billed_units": {"input_tokens": 1, "output_tokens": 1}, "tokens": {"input_tokens": 1, "output_tokens": 1}}}
GEMINI_REPLY = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}

# The SDK's module, how it sends, what the provider answers, the path it posts to, and where the text is in the body.
CLIENTS = {
    "groq": ("groq", _groq, CHAT_REPLY, "/openai/v1/chat/completions", lambda body: body["messages"][0]["content"]),
    "ollama": ("ollama", _ollama, OLLAMA_REPLY, "/api/chat", lambda body: body["messages"][0]["content"]),
    "mistral": ("mistralai.client", _mistral, CHAT_REPLY, "/v1/chat/completions", lambda body: body["messages"][0]["content"]),
    "cohere": ("cohere", _cohere, COHERE_REPLY, "/v2/chat", lambda body: body["messages"][0]["content"]),
    "gemini": ("google.genai", _gemini, GEMINI_REPLY, "/v1/models/gemini-2.0-flash:generateContent", lambda body: body["contents"][0]["parts"][0]["text"]),
    "litellm-openai": ("litellm", _litellm("openai/gpt-4o", "/v1"), CHAT_REPLY, "/v1/chat/completions", lambda body: body["messages"][0]["content"]),
    "litellm-ollama": ("litellm", _litellm("ollama_chat/llama3.2", ""), OLLAMA_REPLY, "/api/chat", lambda body: body["messages"][0]["content"]),
}


def _reply_text(reply) -> str:
    """The answer's text, as each SDK gives it."""
    if hasattr(reply, "choices"):
        return reply.choices[0].message.content
    if hasattr(reply, "text"):  # Gemini
        return reply.text
    content = reply.message.content  # Ollama's is the text, Cohere's a list of parts
    return content if isinstance(content, str) else content[0].text


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("text", "expected"), [(SCORED, SCORED_FINDINGS), (PLAIN, [])], ids=["scored", "clean"])
@pytest.mark.parametrize("name", list(CLIENTS))
def test_an_sdks_request_is_captured_and_linted(name, asynchronous, text, expected):
    module, send, reply, path, sent_text = CLIENTS[name]
    pytest.importorskip(module, reason=f"{module} is not installed (pip install -e '.[test-clients]')")
    with chat_server(reply, base="") as url, promptlint.capture() as captured:
        answer = send(url, text, asynchronous)
        answer = asyncio.run(answer) if asynchronous else answer
    assert _reply_text(answer) == "ok"
    [request] = captured.requests
    assert request.endpoint == f"127.0.0.1{path}"
    assert sent_text(json.loads(request.body)) == text
    assert SECRET.encode() not in request.body
    assert [(f.code, f.message, f.tokens) for f in captured.findings] == expected


PL305 = ("PL305", "2 lines of static instructions come after the retrieved context; everything from there on misses the prompt cache on every request", 48)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("text", "expected"), [(SCORED, [PL305, *SCORED_FINDINGS]), (PLAIN, [PL305])], ids=["scored", "clean"])
def test_a_dspy_program_on_its_litellm_engine_is_captured_and_linted(asynchronous, text, expected):
    # DSPy's default engine (lm15) sends over sockets of its own, which capture does not see; its LiteLLM
    # engine sends through the OpenAI SDK. Its chat adapter writes the fields as "[[ ## context ## ]]"
    # sections and ends the user message with a fixed instruction after them, which is PL305 on every
    # request: the clean twin differs by the scores alone.
    dspy = pytest.importorskip("dspy", reason="dspy is not installed (pip install -e '.[test-clients]')")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    reply = json.loads(json.dumps(CHAT_REPLY))
    reply["choices"][0]["message"]["content"] = "[[ ## answer ## ]]\nok\n\n[[ ## completed ## ]]"
    sources, question = "\n\n".join(text.split("\n\n")[1:3]), "How long do I have?"  # the two sources, the question
    predict = dspy.Predict("context, question -> answer")
    with chat_server(reply) as url, promptlint.capture() as captured:
        lm = dspy.LM("openai/gpt-4o", api_base=url, api_key=SECRET, cache=False, num_retries=0, engine="litellm")
        with dspy.context(lm=lm):
            answer = asyncio.run(predict.acall(context=sources, question=question)) if asynchronous else predict(context=sources, question=question)
    assert answer.answer == "ok"
    [request] = captured.requests
    assert request.endpoint == "127.0.0.1/v1/chat/completions"
    assert f"[[ ## context ## ]]\n{sources}\n\n[[ ## question ## ]]\n{question}" in json.loads(request.body)["messages"][-1]["content"]
    assert [(f.code, f.message, f.tokens) for f in captured.findings] == expected
