"""What capture costs a test suite: 1,000 model requests sent through the OpenAI SDK, with and without it.

The network is httpx's MockTransport answering as the provider does, so the figure is the
capture's share of a request's own cost in the SDK (building, sending, parsing the reply),
the least a real request costs; a real network only makes the share smaller. Each request
is a RAG chat of about 1,500 tokens (eight scored sources and a question), distinct from
the others, so that the reading and linting at the end has a body of each to do.

    python bench/capture.py                 # in this process: sending, then reading and linting
    python bench/capture.py --pytest        # also a suite of 1,000 tests, pytest vs pytest --promptlint

Two figures: the capture on the request path (the goal: at most 5%), and the reading and
linting of the captured requests, which waits until the end (``captured.findings``, the
plugin's summary) and is the same work as ``promptlint audit`` on their log.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openai
import openai._base_client

import promptlint

HTTP = getattr(openai._base_client, "httpx2", None) or openai._base_client.httpx  # what the installed SDK sends through
REPLY = {"id": "c1", "object": "chat.completion", "created": 0, "model": "gpt-4o",
         "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
SOURCE = "[{n}] Returns Policy \u2014 Returns > Damaged goods (score: 0.{score})\n" + "Damaged goods may be returned within 30 days of delivery, with the receipt. " * 12 + "\n\n"


def prompt(number: int) -> str:
    sources = "".join(SOURCE.format(n=n, score=99 - n) for n in range(1, 9))
    return f"Answer from the sources and cite them as [n].\n\n{sources}Question {number}: how long do I have to return damaged goods?"


def client() -> openai.OpenAI:
    transport = HTTP.MockTransport(lambda request: HTTP.Response(200, json=REPLY))
    return openai.OpenAI(api_key="sk-bench", base_url="http://127.0.0.1:9/v1", http_client=HTTP.Client(transport=transport))


def send(sdk: openai.OpenAI, count: int) -> float:
    start = time.perf_counter()
    for number in range(count):
        sdk.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt(number)}])
    return time.perf_counter() - start


def in_process(count: int, rounds: int) -> None:
    sdk = client()
    send(sdk, 50)  # warm: the SDK's first request builds its models
    plain, captured_times = [], []
    for _ in range(rounds):  # side by side, so a busy machine slows both alike
        plain.append(send(sdk, count))
        with promptlint.capture() as captured:
            captured_times.append(send(sdk, count))
    best, with_capture = min(plain), min(captured_times)
    print(f"{count} requests through the OpenAI SDK, best of {rounds}: {best:.3f} s without capture, {with_capture:.3f} s with it: "
          f"{(with_capture - best) / best:+.1%}")
    start = time.perf_counter()
    findings = captured.findings
    print(f"reading and linting the {len(captured.requests)} requests afterwards: {time.perf_counter() - start:.2f} s ({len(findings)} findings)")


SUITE = '''
import pytest
from capture import client, prompt

SDK = client()

@pytest.mark.parametrize("number", range({count}))
def test_request(number):
    SDK.chat.completions.create(model="gpt-4o", messages=[{{"role": "user", "content": prompt(number)}}])
'''


def under_pytest(count: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        suite = Path(folder) / "test_bench.py"
        suite.write_text(SUITE.format(count=count), encoding="utf-8")
        env_path = str(Path(__file__).resolve().parent)
        times: dict[str, list[float]] = {"pytest": [], "pytest --promptlint": []}
        for _ in range(rounds):
            for label, extra in (("pytest", []), ("pytest --promptlint", ["--promptlint"])):
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite), *extra],
                               cwd=folder, env={"PYTHONPATH": env_path, "PATH": ""}, check=True, capture_output=True)
                times[label].append(time.perf_counter() - start)
        base, turned_on = min(times["pytest"]), min(times["pytest --promptlint"])
        print(f"a suite of {count} tests, best of {rounds}: {base:.2f} s, {turned_on:.2f} s with --promptlint "
              f"(capture, reading, linting and the summary): {(turned_on - base) / base:+.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pytest", action="store_true", help="also time a suite of that many tests under pytest")
    options = parser.parse_args()
    in_process(options.requests, options.rounds)
    if options.pytest:
        under_pytest(options.requests, max(1, options.rounds // 2))


if __name__ == "__main__":
    main()
