"""Bedrock through botocore, stubbed by its Stubber (no request leaves the process): Converse,
InvokeModel and RetrieveAndGenerate are captured where botocore serialises them, each with a clean twin."""

from __future__ import annotations

import io
import json

import botocore.session
import pytest
from botocore.stub import Stubber

import promptlint
from conftest import ROOT

KEY_ID, SECRET = "AKIAEXAMPLEKEY0000", "secret-access-key-0123456789"
SHAPES = ROOT / "fixtures/shapes"
SOURCES = "Answer from the sources.\n\n[1] Returns Policy{}\nDamaged goods may be returned within 30 days.\n\n[2] Shipping FAQ{}\nDelivery takes 3-5 days.\n\nQuestion: How long do I have?"
SCORED = SOURCES.format(" (score: 0.91)", " (score: 0.82)")
PLAIN = SOURCES.format("", "")
CONVERSE_REPLY = {"output": {"message": {"role": "assistant", "content": [{"text": "ok"}]}}, "stopReason": "end_turn",
                  "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": {"latencyMs": 1}}


def _client(service: str):
    session = botocore.session.get_session()
    return session.create_client(service, region_name="us-east-1", aws_access_key_id=KEY_ID, aws_secret_access_key=SECRET)


def _converse(name: str) -> dict:
    body = json.loads((SHAPES / "bedrock-converse" / name).read_text(encoding="utf-8"))
    for message in body["messages"]:
        for block in message["content"]:
            source = block.get("document", {}).get("source", {})
            if "bytes" in source:
                source["bytes"] = b"%PDF-1.4\n"  # botocore takes the bytes and sends them in base64
    return body


def _found(captured) -> list[tuple[str, str, int]]:
    return [(f.code, f.message, f.tokens) for f in captured.findings]


@pytest.mark.parametrize(("name", "expected"), [
    ("bad.json", [
        ("PL103", "Source 1 carries an instruction to the model; it competes with the system prompt's rules", 6),
        ("PL102", "Source 1 shows its retrieval score ('score 0.9'); the model reads it as an instruction to defer to the top hit", 7),
    ]),
    ("good.json", []),
])
def test_a_converse_request_is_captured_from_a_stubbed_client(name, expected):
    client = _client("bedrock-runtime")
    with promptlint.capture() as captured, Stubber(client) as stub:
        stub.add_response("converse", CONVERSE_REPLY)
        assert client.converse(**_converse(name))["stopReason"] == "end_turn"
    assert [r.endpoint.split("/")[-1] for r in captured.requests] == ["converse"]
    assert _found(captured) == expected
    assert KEY_ID not in repr(captured.requests) and SECRET not in repr(captured.requests)


@pytest.mark.parametrize(("content", "expected"), [
    (SCORED, [
        ("PL102", "Source 1 shows its retrieval score ('score: 0.91'); the model reads it as an instruction to defer to the top hit", 8),
        ("PL102", "Source 2 shows its retrieval score ('score: 0.82'); the model reads it as an instruction to defer to the top hit", 8),
    ]),
    (PLAIN, []),
])
def test_an_invoke_model_body_is_captured_as_the_model_reads_it(content, expected):
    client = _client("bedrock-runtime")
    body = {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 256, "messages": [{"role": "user", "content": content}]}
    with promptlint.capture() as captured, Stubber(client) as stub:
        stub.add_response("invoke_model", {"body": io.BytesIO(b"{}"), "contentType": "application/json"})
        client.invoke_model(modelId="anthropic.claude-3-5-sonnet-20240620-v1:0", body=json.dumps(body))
    assert [json.loads(r.body) for r in captured.requests] == [body]
    assert _found(captured) == expected


@pytest.mark.parametrize(("name", "expected"), [
    ("bad.json", [("PL305", "4 lines of static instructions come after the retrieved context; everything from there on misses the prompt cache on every request", 35)]),
    ("good.json", []),
])
def test_a_retrieve_and_generate_request_is_captured(name, expected):
    client = _client("bedrock-agent-runtime")
    body = json.loads((SHAPES / "bedrock-knowledge-base" / name).read_text(encoding="utf-8"))
    with promptlint.capture() as captured, Stubber(client) as stub:
        stub.add_response("retrieve_and_generate", {"sessionId": "s1", "output": {"text": "ok"}})
        client.retrieve_and_generate(**body)
    assert len(captured.requests) == 1
    assert _found(captured) == expected
