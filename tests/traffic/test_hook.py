"""The production hook: it samples at its rate, keeps only model requests, rotates its logs, and never
raises into the application nor changes what it sends."""

from __future__ import annotations

import json
import random

import httpx

import promptlint
from promptlint.traffic.hook import Hook

SECRET = "sk-test-0123456789-secret"
REPLY = {"choices": []}


def _client(seen: list[bytes] | None = None) -> httpx.Client:
    def answer(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request.content)
        return httpx.Response(200, json=REPLY)

    return httpx.Client(transport=httpx.MockTransport(answer), headers={"authorization": f"Bearer {SECRET}"})


def _chat(number: int) -> dict:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": f"Question {number:03}: what is the refund window?"}]}


def test_every_model_request_is_written_at_rate_one_and_nothing_else(tmp_path):
    log = tmp_path / "logs" / "requests.jsonl"
    client = _client()
    with promptlint.sample_requests(log, rate=1.0) as hook:
        for number in range(3):
            client.post("http://127.0.0.1:9/v1/chat/completions", json=_chat(number))
            client.post("http://127.0.0.1:9/v1/embeddings", json={"model": "e", "input": "text"})
    assert (hook.sampled, hook.written, hook.skipped, hook.dropped, hook.errors) == (6, 3, 3, 0, 0)
    text = log.read_text(encoding="utf-8")
    assert SECRET not in text
    assert [json.loads(line) for line in text.splitlines()] == [_chat(n) for n in range(3)]


def test_nothing_is_written_at_rate_zero(tmp_path):
    with promptlint.sample_requests(tmp_path / "requests.jsonl", rate=0.0) as hook:
        _client().post("http://127.0.0.1:9/v1/chat/completions", json=_chat(0))
    assert (hook.sampled, hook.written) == (0, 0)
    assert list(tmp_path.iterdir()) == []


def test_a_rate_samples_that_share_of_requests(tmp_path):
    random.seed(22)
    client = _client()
    with promptlint.sample_requests(tmp_path / "requests.jsonl", rate=0.25) as hook:
        for number in range(400):
            client.post("http://127.0.0.1:9/v1/chat/completions", json=_chat(number))
    assert 70 <= hook.sampled <= 130
    assert hook.written == hook.sampled == len((tmp_path / "requests.jsonl").read_text().splitlines())


def test_the_log_rotates_and_keeps_its_backups(tmp_path):
    log = tmp_path / "requests.jsonl"
    size = len(json.dumps(_chat(0)).encode()) + 1  # every line is as long
    client = _client()
    with promptlint.sample_requests(log, rate=1.0, max_bytes=2 * size, backups=2) as hook:
        for number in range(7):
            client.post("http://127.0.0.1:9/v1/chat/completions", json=_chat(number))
    assert hook.written == 7
    kept = {path.name: [json.loads(line)["messages"][0]["content"][9:12] for line in path.read_text().splitlines()] for path in sorted(tmp_path.iterdir())}
    # Two lines a file, the newest in requests.jsonl; the oldest pair went with the third rotation.
    assert kept == {"requests.jsonl": ["006"], "requests.1.jsonl": ["004", "005"], "requests.2.jsonl": ["002", "003"]}


def test_its_own_errors_are_counted_and_never_raised(tmp_path):
    (tmp_path / "a-file").write_text("")
    seen: list[bytes] = []
    client = _client(seen)
    with promptlint.sample_requests(tmp_path / "a-file" / "requests.jsonl", rate=1.0) as hook:
        for number in range(2):
            assert client.post("http://127.0.0.1:9/v1/chat/completions", json=_chat(number)).json() == REPLY
    assert (hook.written, hook.errors) == (0, 2)
    assert [json.loads(body) for body in seen] == [_chat(0), _chat(1)]


def test_a_full_queue_drops_the_request_instead_of_waiting(tmp_path, monkeypatch):
    monkeypatch.setattr("promptlint.traffic.hook.QUEUED", 1)
    hook = Hook(tmp_path / "requests.jsonl", rate=1.0)  # not started: nothing takes from its queue
    for number in range(3):
        hook._take(json.dumps(_chat(number)).encode(), "127.0.0.1/v1/chat/completions")
    assert (hook.sampled, hook.dropped) == (3, 2)
