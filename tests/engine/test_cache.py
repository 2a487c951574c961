"""The results cache and parallel checking, through the command line.

Each test works in its own temporary folder (the current folder, where the cache
lives) on copies of the rule fixtures, with a config that pins ``today``. Rule
runs are counted by wrapping ``promptlint.engine.lint.check_document``; those runs use
``--jobs 1`` so that the linting happens in this process, where the wrapper is.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT
from promptlint.cli.commands import main
from promptlint.engine import files, lint, parallel

FIXTURES = ROOT / "fixtures"
CONFIG = "config.yaml"
ENTRIES = Path(".promptlint_cache") / "entries"


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / CONFIG).write_text("today: 2026-12-02\n", encoding="utf-8")
    # Without the fixtures' rule configs: they hold no prompt, so they are never cached.
    shutil.copytree(FIXTURES, tmp_path / "prompts", ignore=shutil.ignore_patterns("config.yaml"))
    return tmp_path


@pytest.fixture
def linted(monkeypatch):
    """The paths of the documents the rules ran on, in order."""
    seen: list[str] = []
    real = lint.check_document

    def counting(doc, config, fix=None):
        seen.append(doc.path)
        return real(doc, config, fix)

    monkeypatch.setattr(lint, "check_document", counting)
    return seen


@pytest.fixture
def pooled(monkeypatch):
    """Two jobs really start two workers, however little work the fixtures are: the job counts of each run."""
    monkeypatch.setattr(parallel, "WORK_PER_WORKER", 1)
    jobs: list[int] = []
    real = parallel.ordered_map

    def recording(function, items, count, initializer, initargs):
        jobs.append(count)
        return real(function, items, count, initializer, initargs)

    monkeypatch.setattr(parallel, "ordered_map", recording)
    return jobs


def run(*args: str):
    result = CliRunner().invoke(main, ["check", "--config", CONFIG, *args], prog_name="promptlint")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def outcome(result) -> tuple[int, str, str]:
    return result.exit_code, result.stdout, result.stderr


def prompt_files() -> list[str]:
    return sorted(str(p) for p in files.expand([Path("prompts")]))


def test_second_run_is_served_from_the_cache(work, linted):
    first = run("--jobs", "1", "--output-format", "json", "prompts")
    assert first.exit_code == 1
    assert sorted(linted) == prompt_files()
    linted.clear()
    second = run("--jobs", "1", "--output-format", "json", "prompts")
    assert linted == []
    assert outcome(second) == outcome(first)


def test_cached_findings_render_exactly_as_fresh_ones_in_every_format(work):
    for output_format in ("full", "json", "sarif", "gitlab", "junit"):
        fresh = run("--jobs", "1", "--no-cache", "--output-format", output_format, "prompts")
        run("--jobs", "1", "--output-format", output_format, "prompts")  # fills the cache
        cached = run("--jobs", "1", "--output-format", output_format, "prompts")
        assert outcome(cached) == outcome(fresh), output_format


def test_a_changed_file_misses_the_cache(work, linted):
    run("--jobs", "1", "prompts")
    changed = Path("prompts/PL102-retrieval-score/good.txt")
    changed.write_text(changed.read_text(encoding="utf-8") + "\n[9] Extra source (score: 0.42)\nMore text.\n", encoding="utf-8")
    linted.clear()
    result = run("--jobs", "1", "--output-format", "json", "prompts")
    assert linted == [str(changed)]
    assert outcome(result) == outcome(run("--jobs", "1", "--no-cache", "--output-format", "json", "prompts"))
    assert any(r["path"] == str(changed) and r["code"] == "PL102" for r in json.loads(result.stdout))


def test_a_changed_config_misses_the_cache(work, linted):
    run("--jobs", "1", "prompts")
    linted.clear()
    run("--jobs", "1", "--select", "PL102", "prompts")
    assert sorted(linted) == prompt_files()
    linted.clear()
    Path(CONFIG).write_text("today: 2027-06-01\n", encoding="utf-8")
    run("--jobs", "1", "--select", "PL102", "prompts")
    assert sorted(linted) == prompt_files()


def test_per_file_ignores_are_part_of_the_key(work):
    run("--jobs", "1", "prompts")
    Path(CONFIG).write_text("today: 2026-12-02\nper-file-ignores:\n  'prompts/PL102-*/*.txt': [PL102]\n", encoding="utf-8")
    records = json.loads(run("--jobs", "1", "--output-format", "json", "prompts").stdout)
    flagged = {r["path"] for r in records if r["code"] == "PL102"}
    assert not any(path.startswith("prompts/PL102-retrieval-score/") and path.endswith(".txt") for path in flagged)
    assert "prompts/PL102-retrieval-score/bad-template.j2" in flagged


def test_no_cache_neither_reads_nor_writes_it(work, linted):
    run("--jobs", "1", "--no-cache", "prompts")
    assert not Path(".promptlint_cache").exists()
    run("--jobs", "1", "prompts")
    linted.clear()
    run("--jobs", "1", "--no-cache", "prompts")
    assert sorted(linted) == prompt_files()


@pytest.mark.parametrize("garbage", [b"", b"{not json", b"\xff\xfe", b"[]", b'{"path": 1}', b"null", b"[" * 100_000 + b"]" * 100_000])
def test_a_corrupt_entry_is_ignored_and_replaced(work, linted, garbage):
    first = run("--jobs", "1", "--output-format", "json", "prompts")
    entries = sorted(ENTRIES.iterdir())
    assert len(entries) == len(prompt_files())
    for entry in entries:
        entry.write_bytes(garbage)
    linted.clear()
    assert outcome(run("--jobs", "1", "--output-format", "json", "prompts")) == outcome(first)
    assert sorted(linted) == prompt_files()
    linted.clear()
    assert outcome(run("--jobs", "1", "--output-format", "json", "prompts")) == outcome(first)
    assert linted == []


def test_an_entry_with_wrong_types_is_ignored(work, linted):
    first = run("--jobs", "1", "--output-format", "json", "prompts/PL102-retrieval-score/bad.txt")
    (entry,) = ENTRIES.iterdir()
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["findings"][0]["line"] = "3"
    entry.write_text(json.dumps(data), encoding="utf-8")
    linted.clear()
    assert outcome(run("--jobs", "1", "--output-format", "json", "prompts/PL102-retrieval-score/bad.txt")) == outcome(first)
    assert linted == ["prompts/PL102-retrieval-score/bad.txt"]


@pytest.mark.parametrize("index", ["0", -1, 1, 0.0, [0]])
def test_an_entry_whose_finding_names_no_stored_fix_is_ignored(work, linted, index):
    name = "prompts/PL201-unconditional-date/bad.txt"
    first = run("--jobs", "1", "--output-format", "json", name)
    (entry,) = ENTRIES.iterdir()
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["findings"][0]["fix"] = index
    entry.write_text(json.dumps(data), encoding="utf-8")
    linted.clear()
    assert outcome(run("--jobs", "1", "--output-format", "json", name)) == outcome(first)
    assert linted == [name]


@pytest.mark.parametrize("n", [2, 9, 60])
def test_a_fix_shared_by_many_findings_is_stored_once_and_served_shared(work, linted, n):
    sources = "".join(f"[{i}] Guide (updated 2026-11-{i % 28 + 1:02d})\nText {i}.\n\n" for i in range(1, n + 1))
    Path("dated.txt").write_text(f"Answer.\n\n{sources}Question: Why?\n", encoding="utf-8")
    first = run("--jobs", "1", "--select", "PL201", "--output-format", "json", "dated.txt")
    (entry,) = ENTRIES.iterdir()
    data = json.loads(entry.read_text(encoding="utf-8"))
    assert [record["fix"] for record in data["findings"]] == [0] * n
    assert [len(fix["edits"]) for fix in data["fixes"]] == [n]
    linted.clear()
    served = run("--jobs", "1", "--select", "PL201", "--output-format", "json", "dated.txt")
    assert linted == []
    # Served from the cache, the findings share the fix again: its edits are written once.
    assert outcome(served) == outcome(first)
    assert [len(record["fix"]["edits"]) for record in json.loads(served.stdout)] == [n] + [0] * (n - 1)


def test_a_file_changed_between_its_lookup_and_its_turn_is_linted_as_it_is_then(work, linted, monkeypatch):
    # A cached file's text is read when its result is printed, not held from the lookup:
    # if the file changed meanwhile, the cached findings no longer hold, and it is linted.
    name = "prompts/PL102-retrieval-score/bad.txt"
    run("--jobs", "1", "--output-format", "json", name)
    real = parallel._served

    def changing(path, *args):
        path.write_text(path.read_text(encoding="utf-8").replace("(score: 0.91)", ""), encoding="utf-8")
        return real(path, *args)

    monkeypatch.setattr(parallel, "_served", changing)
    linted.clear()
    served = run("--jobs", "1", "--output-format", "json", name)
    assert linted == [name]
    monkeypatch.setattr(parallel, "_served", real)
    assert outcome(served) == outcome(run("--jobs", "1", "--no-cache", "--output-format", "json", name))


def test_a_cache_folder_that_cannot_be_written_is_not_used(work):
    Path(".promptlint_cache").write_text("in the way\n", encoding="utf-8")
    result = run("--jobs", "1", "--output-format", "json", "prompts")
    assert outcome(result) == outcome(run("--jobs", "1", "--no-cache", "--output-format", "json", "prompts"))


def test_the_cache_keeps_itself_out_of_version_control(work):
    run("--jobs", "1", "prompts/PL102-retrieval-score/bad.txt")
    assert Path(".promptlint_cache/.gitignore").read_text(encoding="utf-8") == "*\n"
    assert Path(".promptlint_cache/CACHEDIR.TAG").read_text(encoding="utf-8").startswith("Signature: 8a477f597d28d172789f06886806bc55")


def test_fix_skips_cached_clean_files_and_writes_no_entries(work, linted):
    run("--jobs", "1", "prompts")
    entries = {p.name: p.read_bytes() for p in ENTRIES.iterdir()}
    dirty = {r["path"] for r in json.loads(run("--jobs", "1", "--output-format", "json", "prompts").stdout)}
    linted.clear()
    fixed = run("--jobs", "1", "--fix", "prompts")
    assert sorted(set(linted)) == sorted(dirty)
    assert {p.name: p.read_bytes() for p in ENTRIES.iterdir()} == entries
    # What the fix run reported matches a fresh run of the fixed files, and the cache serves it next.
    after = run("--jobs", "1", "--no-cache", "--output-format", "json", "prompts")
    assert outcome(run("--jobs", "1", "--output-format", "json", "prompts")) == outcome(after)
    assert fixed.exit_code == after.exit_code


@pytest.mark.parametrize("output_format", ["full", "json"])
def test_two_jobs_print_exactly_what_one_job_prints(work, pooled, output_format):
    one = run("--jobs", "1", "--no-cache", "--output-format", output_format, "prompts")
    assert one.exit_code == 1
    assert outcome(run("--jobs", "2", "--no-cache", "--output-format", output_format, "prompts")) == outcome(one)
    assert outcome(run("--jobs", "2", "--output-format", output_format, "prompts")) == outcome(one)  # filling the cache
    assert outcome(run("--jobs", "2", "--output-format", output_format, "prompts")) == outcome(one)  # served from it
    assert pooled == [1, 2, 2, 1]  # the last run has nothing to lint: no workers


def test_two_jobs_fix_and_diff_exactly_as_one_job(work, pooled, tmp_path):
    (tmp_path / "two").mkdir()
    shutil.copytree(FIXTURES, tmp_path / "two" / "prompts", ignore=shutil.ignore_patterns("config.yaml"))
    diff_one = run("--jobs", "1", "--diff", "prompts")
    fix_one = run("--jobs", "1", "--no-cache", "--fix", "--unsafe-fixes", "prompts")
    shutil.copy(CONFIG, tmp_path / "two" / CONFIG)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path / "two")
        diff_two = run("--jobs", "2", "--diff", "prompts")
        fix_two = run("--jobs", "2", "--no-cache", "--fix", "--unsafe-fixes", "prompts")
    assert pooled == [1, 1, 2, 2]
    assert outcome(diff_two) == outcome(diff_one)
    assert outcome(fix_two) == outcome(fix_one)
    for path in Path("prompts").rglob("*"):
        if path.is_file():
            assert (tmp_path / "two" / path).read_bytes() == path.read_bytes(), path


def test_an_unreadable_file_is_reported_in_its_place_with_two_jobs(work, pooled):
    Path("prompts/PL102-retrieval-score/broken.txt").write_bytes(b"\xff\xfe not utf-8")
    one = run("--jobs", "1", "--output-format", "concise", "prompts")
    assert one.exit_code == 2
    assert "error: prompts/PL102-retrieval-score/broken.txt: not valid UTF-8 (byte offset 0)\n" in one.stderr
    assert outcome(run("--jobs", "2", "--output-format", "concise", "prompts")) == outcome(one)
    assert pooled == [1, 2]
