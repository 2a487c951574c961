"""`pytest --promptlint`, run on a small test suite by pytester: the summary, the exit status, the
log that `promptlint audit` reads, the config and the selections, and a plugin idle until asked."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from promptlint.cli.commands import main
from promptlint.traffic.capture import Capture

# Put the capture's hooks on here, before pytester's inner runs: each run drops the modules it
# imported, and the hooks (on the HTTP clients, in LangChain's configure hooks) are the process's.
with Capture():
    pass

pytest_plugins = ["pytester"]

SECRET = "sk-test-0123456789-secret"
SUITE = f'''
import httpx

SOURCES = "Answer from the sources.\\n\\n[1] Returns Policy{{}}\\nDamaged goods may be returned within 30 days.\\n\\n[2] Shipping FAQ{{}}\\nDelivery takes 3-5 days.\\n\\nQuestion: How long do I have?"
SCORED = SOURCES.format(" (score: 0.91)", " (score: 0.82)")
PLAIN = SOURCES.format("", "")


def send(content):
    client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200, json={{}})))
    client.post("http://127.0.0.1:9/v1/chat/completions?key={SECRET}", headers={{"authorization": "Bearer {SECRET}"}},
                json={{"model": "gpt-4o", "messages": [{{"role": "user", "content": content}}]}})
    client.post("http://127.0.0.1:9/v1/embeddings", json={{"model": "e", "input": content}})


def test_scored():
    send(SCORED)


def test_scored_again():
    send(SCORED)


def test_plain():
    send(PLAIN)
'''
FINDINGS = [
    "PL102 retrieval-score: Source 1 shows its retrieval score ('score: 0.91'); the model reads it as an instruction to defer to the top hit (2 requests, 8 tokens)",
    "    test_app.py::test_scored",
    "    test_app.py::test_scored_again",
    "PL102 retrieval-score: Source 2 shows its retrieval score ('score: 0.82'); the model reads it as an instruction to defer to the top hit (2 requests, 8 tokens)",
    "    test_app.py::test_scored",
    "    test_app.py::test_scored_again",
    "2 findings in 2 of 3 model requests captured",
]


def _section(result) -> list[str]:
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if line.strip("= ") == "promptlint")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("====")), len(lines))
    return lines[start + 1 : end]


@pytest.fixture
def suite(pytester):
    pytester.makepyfile(test_app=SUITE)
    return pytester


def test_the_summary_lists_each_finding_once_with_its_requests_and_tests(suite):
    result = suite.runpytest("--promptlint")
    result.assert_outcomes(passed=3)
    assert result.ret == 0
    assert _section(result) == FINDINGS


def test_findings_fail_the_session_with_promptlint_fail(suite):
    result = suite.runpytest("--promptlint", "--promptlint-fail")
    result.assert_outcomes(passed=3)
    assert result.ret == 1
    assert _section(result) == [*FINDINGS, "FAIL: the captured requests have findings (--promptlint-fail)"]


def test_a_clean_suite_passes_with_promptlint_fail(suite):
    result = suite.runpytest("--promptlint", "--promptlint-fail", "-k", "plain")
    assert result.ret == 0
    assert _section(result) == ["0 findings in 0 of 1 model requests captured"]


def test_a_test_outcome_is_never_changed(pytester):
    pytester.makepyfile(test_app=SUITE + "\n\ndef test_broken():\n    send(SCORED)\n    assert False\n")
    result = pytester.runpytest("--promptlint", "--promptlint-fail")
    result.assert_outcomes(passed=3, failed=1)
    assert result.ret == 1
    assert _section(result)[-3:] == ["    test_app.py::test_scored_again", "    test_app.py::test_broken", "2 findings in 3 of 4 model requests captured"]


def test_the_log_audits_to_the_same_findings_and_holds_no_key(suite):
    result = suite.runpytest("--promptlint", "--promptlint-log", "requests.jsonl")
    log = suite.path / "requests.jsonl"
    assert _section(result) == [*FINDINGS, "3 requests written to requests.jsonl"]
    text = log.read_text(encoding="utf-8")
    assert SECRET not in text
    assert [json.loads(line)["messages"][0]["content"].count("score") for line in text.splitlines()] == [2, 2, 0]
    audited = CliRunner().invoke(main, ["audit", "--format", "json", "--jobs", "1", str(log)])
    report = json.loads(audited.output)
    assert (report["records"], report["prompts"], report["affected"]) == (3, 3, 2)
    assert [(rule["code"], rule["affected"], rule["findings"], rule["tokens"]) for rule in report["rules"]] == [("PL102", 2, 4, 32)]


@pytest.mark.parametrize(("options", "shown"), [
    (["--promptlint-ignore", "PL102"], "0 findings in 0 of 3 model requests captured"),
    (["--promptlint-select", "PL1"], "2 findings in 2 of 3 model requests captured"),
    # PL2 takes in PL204, off by default: no source of these shows a heading path.
    (["--promptlint-select", "PL2"], "1 finding in 3 of 3 model requests captured"),
])
def test_the_selections_narrow_the_rules(suite, options, shown):
    assert _section(suite.runpytest("--promptlint", *options))[-1] == shown


def test_the_project_config_applies(suite):
    suite.makefile(".yaml", **{".promptlint": "ignore: [retrieval-score]\n"})
    assert _section(suite.runpytest("--promptlint"))[-1] == "0 findings in 0 of 3 model requests captured"


def test_a_bad_config_is_a_usage_error(suite):
    result = suite.runpytest("--promptlint", "--promptlint-select", "PL999")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "promptlint:" in result.stderr.str() and "Traceback" not in result.stderr.str()


def test_the_plugin_is_idle_without_promptlint(pytester):
    pytester.makepyfile(test_idle='''
import sys

def test_nothing_of_promptlint_is_loaded():
    # Other plugins may load an HTTP client (langsmith's does); promptlint loads nothing of its own.
    loaded = sorted(name for name in sys.modules if name.startswith("promptlint.") and not name.startswith("promptlint.integrations"))
    assert loaded == []
    assert "promptlint.integrations.pytest_plugin" in sys.modules and "promptlint.integrations" in sys.modules
''')
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)
    assert not any(line.strip("= ") == "promptlint" for line in result.outlines)


def test_an_error_of_promptlint_is_reported_and_changes_no_exit_status(suite, monkeypatch):
    def broken(capture):
        raise RuntimeError("a bug")

    monkeypatch.setattr("promptlint.traffic.capture.Capture.requests", property(broken))
    result = suite.runpytest("--promptlint", "--promptlint-fail")
    result.assert_outcomes(passed=3)
    assert result.ret == 0
    assert _section(result) == ["the captured requests could not be linted: RuntimeError('a bug')"]


def test_a_log_that_cannot_be_written_is_reported(suite):
    result = suite.runpytest("--promptlint", "--promptlint-log", "missing-folder/requests.jsonl")
    assert result.ret == 0
    assert _section(result)[-1].startswith("the log could not be written: [Errno 2] No such file or directory")
