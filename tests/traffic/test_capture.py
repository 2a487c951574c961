"""Capture on the wire: the real OpenAI and Anthropic SDKs, sync and async, their network replaced
by httpx's MockTransport that answers as the provider does; each request that must be found has a
clean twin that must not, and capture never changes, fails or records more than the body."""

from __future__ import annotations

import asyncio
import json

import anthropic
import anthropic._base_client
import httpx
import openai
import pytest
from wire import CHAT_REPLY, OPENAI_HTTP, PLAIN, SCORED, SCORED_FINDINGS, SECRET, chat_server, client_module

import promptlint
from conftest import ROOT
from promptlint.traffic import intercept

ANTHROPIC_HTTP = client_module(anthropic._base_client)  # not in wire: the frameworks' environment has no anthropic
ANTHROPIC_BAD = json.loads((ROOT / "fixtures/shapes/anthropic-messages/bad.json").read_text(encoding="utf-8"))
ANTHROPIC_GOOD = json.loads((ROOT / "fixtures/shapes/anthropic-messages/good.json").read_text(encoding="utf-8"))
ANTHROPIC_FINDINGS = [
    ("PL102", "Source 1 shows its retrieval score ('Relevance score: 0.91'); the model reads it as an instruction to defer to the top hit", 8),
    ("PL103", "Source 2 carries an instruction to the model; it competes with the system prompt's rules", 8),
]

EMBEDDING_REPLY = {"object": "list", "model": "e", "data": [{"object": "embedding", "index": 0, "embedding": [0.1]}],
                   "usage": {"prompt_tokens": 1, "total_tokens": 1}}
MESSAGE_REPLY = {"id": "m1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "ok"}],
                 "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


def _provider(http):
    def answer(request):
        """What OpenAI or Anthropic answers, by path; it also checks the key arrived unchanged."""
        assert SECRET in (request.headers.get("authorization", "") + request.headers.get("x-api-key", ""))
        path = request.url.path
        reply = MESSAGE_REPLY if path.endswith("/messages") else EMBEDDING_REPLY if path.endswith("/embeddings") else CHAT_REPLY
        return http.Response(200, json=reply)

    return http.MockTransport(answer)


def _openai(asynchronous: bool):
    transport = _provider(OPENAI_HTTP)
    if asynchronous:
        return openai.AsyncOpenAI(api_key=SECRET, base_url="http://127.0.0.1:9/v1", http_client=OPENAI_HTTP.AsyncClient(transport=transport))
    return openai.OpenAI(api_key=SECRET, base_url="http://127.0.0.1:9/v1", http_client=OPENAI_HTTP.Client(transport=transport))


def _anthropic(asynchronous: bool):
    transport = _provider(ANTHROPIC_HTTP)
    if asynchronous:
        return anthropic.AsyncAnthropic(api_key=SECRET, base_url="http://127.0.0.1:9", http_client=ANTHROPIC_HTTP.AsyncClient(transport=transport))
    return anthropic.Anthropic(api_key=SECRET, base_url="http://127.0.0.1:9", http_client=ANTHROPIC_HTTP.Client(transport=transport))


def _send(call, asynchronous: bool):
    return asyncio.run(call()) if asynchronous else call()


def _found(captured) -> list[tuple[str, str, int]]:
    return [(f.code, f.message, f.tokens) for f in captured.findings]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("content", "expected"), [(SCORED, SCORED_FINDINGS), (PLAIN, [])], ids=["scored", "clean"])
def test_an_openai_chat_request_is_captured_and_linted(asynchronous, content, expected):
    client = _openai(asynchronous)
    with promptlint.capture() as captured:
        reply = _send(lambda: client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": content}]), asynchronous)
    assert reply.choices[0].message.content == "ok"
    assert [(r.endpoint, json.loads(r.body)["messages"][0]["content"], r.label) for r in captured.requests] == [("127.0.0.1/v1/chat/completions", content, "")]
    assert _found(captured) == expected
    assert {f.path for f in captured.findings} <= {"request 1"}


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("body", "expected"), [(ANTHROPIC_BAD, ANTHROPIC_FINDINGS), (ANTHROPIC_GOOD, [])], ids=["bad", "clean"])
def test_an_anthropic_messages_request_with_documents_is_captured_and_linted(asynchronous, body, expected):
    client = _anthropic(asynchronous)
    with promptlint.capture() as captured:
        reply = _send(lambda: client.messages.create(**body), asynchronous)
    assert reply.content[0].text == "ok"
    assert [r.endpoint for r in captured.requests] == ["127.0.0.1/v1/messages"]
    assert json.loads(captured.requests[0].body)["messages"] == body["messages"]
    assert _found(captured) == expected


def test_a_request_no_reader_knows_is_not_kept():
    client = _openai(False)
    with promptlint.capture() as captured:
        client.embeddings.create(model="e", input=SCORED)
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": PLAIN}])
    assert [r.endpoint for r in captured.requests] == ["127.0.0.1/v1/chat/completions"]


def test_no_header_nor_query_string_is_recorded():
    # Some providers take the key in the query string (?key=...), the others in a header.
    client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200, json=CHAT_REPLY)))
    with promptlint.capture() as captured:
        client.post(f"http://127.0.0.1:9/v1/chat/completions?key={SECRET}", headers={"authorization": f"Bearer {SECRET}"},
                    json={"messages": [{"role": "user", "content": SCORED}]})
    assert [(r.endpoint, r.label) for r in captured.requests] == [("127.0.0.1/v1/chat/completions", "")]
    assert SECRET not in repr(captured.requests)
    assert _found(captured) == SCORED_FINDINGS


def test_a_streamed_body_is_sent_whole_and_not_taken():
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.read())
        return httpx.Response(200, json=CHAT_REPLY)

    body = json.dumps({"messages": [{"role": "user", "content": SCORED}]}).encode()
    with promptlint.capture() as captured:
        httpx.Client(transport=httpx.MockTransport(handler)).post("http://127.0.0.1:9/v1/chat/completions", content=iter([body[:10], body[10:]]))
    assert seen == [body]
    assert captured.requests == []


def test_a_listener_that_fails_fails_no_request():
    def broken(body: bytes, endpoint: str) -> None:
        raise RuntimeError("a bug in a listener")

    before = intercept.errors
    intercept.listen(broken)
    try:
        with promptlint.capture() as captured:
            reply = _openai(False).chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": SCORED}])
    finally:
        intercept.stop(broken)
    assert reply.choices[0].message.content == "ok"
    assert intercept.errors == before + 1
    assert _found(captured) == SCORED_FINDINGS


def test_only_requests_sent_inside_the_context_are_captured():
    client = _openai(False)
    client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": SCORED}])
    with promptlint.capture() as captured:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": PLAIN}])
    client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": SCORED}])
    assert [json.loads(r.body)["messages"][0]["content"] for r in captured.requests] == [PLAIN]
    assert captured.findings == []


def test_the_config_given_decides_the_rules():
    client = _openai(False)
    with promptlint.capture(promptlint.build_config({"ignore": ["PL102"]}, "test")) as captured:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": SCORED}])
    assert len(captured.requests) == 1 and captured.findings == []


def test_a_body_sent_again_is_read_once_and_each_request_named():
    client = _openai(False)
    with promptlint.capture() as captured:
        for _ in range(3):
            client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": SCORED}])
    assert [(f.path, f.code) for f in captured.findings] == [(f"request {n}", "PL102") for n in (1, 1, 2, 2, 3, 3)]
    assert len(captured._bodies) == 1


def test_an_aiohttp_request_is_captured_as_sent_and_a_streamed_one_is_sent_whole_and_not_taken():
    # Google GenAI's async client sends through aiohttp where it is installed: a JSON document, bytes or
    # text is taken; a stream is not read (it would be consumed); the server gets each body unchanged.
    aiohttp = pytest.importorskip("aiohttp")
    document = {"messages": [{"role": "user", "content": SCORED}]}
    text = json.dumps({"messages": [{"role": "user", "content": PLAIN}]})

    async def stream():
        yield text.encode()

    async def send(url):
        async with aiohttp.ClientSession() as session:
            for options in ({"json": document}, {"data": text.encode()}, {"data": text}, {"data": stream()}):
                async with session.post(f"{url}/chat/completions?key={SECRET}", headers={"authorization": SECRET}, **options) as reply:
                    assert (await reply.json())["choices"][0]["message"]["content"] == "ok"

    received = []
    with chat_server(received=received) as url, promptlint.capture() as captured:
        asyncio.run(send(url))
    assert received == [json.dumps(document).encode()] + [text.encode()] * 3
    assert [(r.endpoint, r.body) for r in captured.requests] == [("127.0.0.1/v1/chat/completions", body) for body in received[:3]]
    assert SECRET not in repr(captured.requests)
    assert _found(captured) == SCORED_FINDINGS


def test_an_httpx_request_sent_on_through_aiohttp_is_taken_once():
    # LiteLLM's async httpx client sends through an aiohttp transport: the request is taken by httpx only.
    aiohttp = pytest.importorskip("aiohttp")

    class ThroughAiohttp(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            async with aiohttp.ClientSession() as session, session.post(str(request.url), data=request.content) as reply:
                return httpx.Response(reply.status, content=await reply.read())

    async def send(url):
        async with httpx.AsyncClient(transport=ThroughAiohttp()) as client:
            return (await client.post(f"{url}/chat/completions", json={"messages": [{"role": "user", "content": SCORED}]})).json()

    received = []
    with chat_server(received=received) as url, promptlint.capture() as captured:
        assert asyncio.run(send(url)) == CHAT_REPLY
    assert [(r.endpoint, r.body) for r in captured.requests] == [("127.0.0.1/v1/chat/completions", received[0])]
    assert _found(captured) == SCORED_FINDINGS
