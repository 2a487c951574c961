"""`promptlint audit` at scale: compressed and Parquet partitions, folders and globs, and the dask engine.

The records are test_audit's generated log, whose figures are known. A real
dask.distributed.LocalCluster (two worker processes, one thread each) is started
once for the module; the dask engine joins it with --scheduler, and its report is
compared byte for byte with the local engine's.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow
import pyarrow.parquet
import pytest
import zstandard
from click.testing import CliRunner
from distributed import Client, LocalCluster, get_task_stream
from hypothesis import given, settings
from hypothesis import strategies as st
from test_audit import CONFIG, PROMPTS, by_code, log_lines

from conftest import ROOT
from promptlint.audit import logs
from promptlint.audit.run import Tally, audit, summary
from promptlint.cli.commands import main
from promptlint.engine.config import build
from promptlint.model.findings import Finding
from promptlint.model.prompt import Span
from promptlint.output import auditreport

# The log's lines in partitions of every format: the first 780 lines in three JSONL ones, then the
# rest of the records in a Parquet one, a row each with the record's fields as columns (a missing
# field is null there); its lines that are not JSON objects of one shape (broken, blank) are left out.
CUTS = (0, 260, 520, 780)
FORMATS = ("day=1/part-0.jsonl.gz", "day=1/part-1.jsonl.zst", "day=2/part-0.jsonl", "day=2/part-1.parquet")


def parquet_lines() -> list[bytes]:
    kept = []
    for line in log_lines()[0][CUTS[-1] :]:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if not isinstance(value.get("messages", []), str):
            kept.append(line)
    return kept


def write_parquet(path: Path, rows: list[dict], row_group_size: int = 100) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # The columns of every row (Table.from_pylist would take only the first row's).
    pyarrow.parquet.write_table(pyarrow.Table.from_struct_array(pyarrow.array(rows)), path, row_group_size=row_group_size)


def write_partition(path: Path, lines: list[bytes]) -> None:
    """The lines as a partition of the format the name says."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(lines)
    if path.suffix == ".parquet":
        write_parquet(path, [json.loads(line) for line in lines])
    elif path.suffix == ".gz":
        path.write_bytes(gzip.compress(data))
    elif path.suffix == ".zst":
        path.write_bytes(zstandard.ZstdCompressor().compress(data))
    else:
        path.write_bytes(data)


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Path:
    """A folder of partitions (and a marker file that is not a log), the same records as one plain log, and the config."""
    folder = tmp_path_factory.mktemp("lake")
    (folder / CONFIG).write_text("today: 2026-12-02\n", encoding="utf-8")
    lines = log_lines()[0]
    for name, start, end in zip(FORMATS, CUTS, CUTS[1:]):
        write_partition(folder / "logs" / name, lines[start:end])
    write_partition(folder / "logs" / FORMATS[-1], parquet_lines())
    (folder / "logs" / "_SUCCESS").write_bytes(b"")
    (folder / "whole.jsonl").write_bytes(b"".join(lines[: CUTS[-1]] + parquet_lines()))
    return folder


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR) as cluster:
        yield cluster


@pytest.fixture
def here(lake, monkeypatch) -> Path:
    monkeypatch.chdir(lake)
    return lake


def run(*args: str):
    result = CliRunner().invoke(main, ["audit", "--config", CONFIG, "--format", "json", *args], prog_name="promptlint")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def figures(data: dict) -> dict:
    """The report without where its examples are: what must not depend on how the records are stored."""
    return {**{k: v for k, v in data.items() if k not in ("logs", "rules")}, "rules": [{k: v for k, v in rule.items() if k != "worst"} for rule in data["rules"]]}


@pytest.fixture(scope="module")
def whole(lake) -> dict:
    """The report of the records as one plain JSONL log."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(lake)
        return json.loads(run("--jobs", "1", "--examples", "50", "whole.jsonl").stdout)


def test_a_folder_is_its_partitions_sorted_without_markers(here):
    assert [str(p) for p in logs.partitions([Path("logs")])] == [f"logs/{name}" for name in FORMATS]
    assert [str(p) for p in logs.partitions([Path("whole.jsonl"), Path("logs/day=*/*.jsonl*")])] == ["whole.jsonl", *(f"logs/{name}" for name in FORMATS[:3])]


@pytest.mark.parametrize(
    ("argument", "message"),
    [("logs/*.csv", "logs/*.csv: cannot read: no log matches this pattern"), ("empty", "empty: cannot read: no JSONL or Parquet log in this folder")],
)
def test_a_folder_or_glob_without_logs_is_a_one_line_error(here, argument, message):
    Path("empty").mkdir(exist_ok=True)
    result = run(argument)
    assert (result.exit_code, result.stderr) == (2, f"Error: {message}\n")


def test_every_format_of_partition_counts_as_the_plain_log(here, whole):
    data = json.loads(run("--jobs", "1", "--examples", "50", "logs").stdout)
    assert data["logs"] == [f"logs/{name}" for name in FORMATS]
    assert figures(data) == figures(whole)
    # Examples are named by partition, and by line (or row) in it: the same records as in the plain log.
    def place(line: int) -> tuple[str, int]:
        part = sum(line > cut for cut in CUTS) - 1
        return f"logs/{FORMATS[part]}", line - CUTS[part]

    for ours, theirs in zip(data["rules"], whole["rules"]):
        assert [(e["path"], e["line"]) for e in ours["worst"]] == [place(e["line"]) for e in theirs["worst"]]
        assert [(e["tokens"], e["message"]) for e in ours["worst"]] == [(e["tokens"], e["message"]) for e in theirs["worst"]]


def request_rows() -> list[dict]:
    """The log's valid requests, a row each, with the request as a struct (nulls where a shape lacks a field)."""
    rows = []
    for line in log_lines()[0]:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and (isinstance(value.get("messages"), list) or "prompt" in value):
            rows.append({"id": len(rows), "request": {"body": value}})
    return rows


@pytest.mark.parametrize("encoding", ["struct", "json string"])
def test_a_parquet_column_is_read_as_the_same_records_in_jsonl(here, encoding):
    rows = request_rows()
    if encoding == "json string":
        rows = [{**row, "request": json.dumps(row["request"])} for row in rows]
    write_parquet(Path("requests.parquet"), rows, row_group_size=97)
    Path("requests.jsonl").write_text("".join(json.dumps(row) + "\n" for row in request_rows()), encoding="utf-8")
    parquet = json.loads(run("--jobs", "1", "--examples", "50", "--field", "request.body", "requests.parquet").stdout)
    jsonl = json.loads(run("--jobs", "1", "--examples", "50", "--field", "request.body", "requests.jsonl").stdout)
    # A row is numbered as the line it came from.
    assert parquet["prompts"] == len(rows) == PROMPTS - 50  # the requests, without the 50 broken lines
    assert parquet == {**jsonl, "logs": ["requests.parquet"], "rules": [{**r, "worst": [{**e, "path": "requests.parquet"} for e in r["worst"]]} for r in jsonl["rules"]]}


def corrupt(folder: Path, lines: list[bytes]) -> None:
    """Partitions broken after a good part, or from the start."""
    good = b"".join(lines)
    (folder / "cut.jsonl.gz").write_bytes(gzip.compress(good) + b"garbage after the stream")
    (folder / "cut.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(good) + b"\x28\xb5\x2f\xfd garbage")
    (folder / "noise.parquet").write_bytes(b"PAR1 not a Parquet file")


def test_a_damaged_partition_is_named_and_the_others_count(here, whole, tmp_path):
    lines = log_lines()[0][:100]
    corrupt(tmp_path, lines)
    Path("first.jsonl").write_bytes(b"".join(lines))
    first = json.loads(run("--jobs", "1", "first.jsonl").stdout)
    result = run("--jobs", "1", "--examples", "100", str(tmp_path), "whole.jsonl")
    data = json.loads(result.stdout)
    assert result.exit_code == 2
    named = {line.split(": ", 2)[1]: line.split(": ", 2)[2] for line in result.stderr.splitlines() if "not JSON text" not in line}
    assert named == {
        f"{tmp_path}/cut.jsonl.gz": "corrupt compressed data (Error -3 while decompressing data: incorrect header check): not read past line 100, the rest is lost",
        f"{tmp_path}/cut.jsonl.zst": "corrupt compressed data (zstd decompressor error: Data corruption detected): not read past line 100, the rest is lost",
        f"{tmp_path}/noise.parquet": "not a readable Parquet file (Parquet magic bytes not found in footer. Either the file is corrupted or this is not a parquet file.): nothing read",
    }
    # The good part of each cut partition counts, and nothing of the damage.
    assert data["records"] == whole["records"] + 2 * first["records"]
    assert data["prompts"] == whole["prompts"] + 2 * first["prompts"]
    assert by_code(data)["PL102"]["tokens"] == by_code(whole)["PL102"]["tokens"] + 2 * by_code(first)["PL102"]["tokens"]


def test_the_dask_engine_gives_the_local_engines_report_byte_for_byte(here, cluster, tmp_path):
    corrupt(tmp_path, log_lines()[0][:60])
    arguments = ("--examples", "50", "logs", str(tmp_path))
    local = run("--jobs", "1", *arguments)
    dask = run("--engine", "dask", "--scheduler", cluster.scheduler_address, *arguments)
    assert dask.exit_code == local.exit_code == 2  # the damaged partitions
    assert dask.stdout == local.stdout
    assert dask.stderr == local.stderr and local.stderr.count("\n") == 3 + 3 + 2  # each damage; the corrupt lines of each JSONL partition, and of each cut one


def test_the_dask_engine_shares_a_big_log_among_workers_and_reports_it_as_the_whole(cluster, tmp_path):
    """Tiny splits of a JSONL log (lines of every length, CRLF, blank, broken) and of a Parquet one (many row groups)."""
    from test_auditsplit import awkward_lines, request_rows

    lines = awkward_lines()
    (tmp_path / "awkward.jsonl").write_bytes(b"".join(lines))
    write_parquet(tmp_path / "grouped.parquet", request_rows(lines), row_group_size=11)
    paths = [tmp_path / "awkward.jsonl", tmp_path / "grouped.parquet"]
    config = build({"today": "2026-12-02"}, "test")

    def report(split_bytes: int, **engine) -> str:
        tally = audit(paths, config, field_path="request", examples=200, split_bytes=split_bytes, **engine)
        return auditreport.as_json(auditreport.as_data(tally, [str(p) for p in paths]))

    assert len(logs.splits(0, paths[0], paths[0].stat().st_size, 4096)) > 10
    assert report(4096, engine="dask", scheduler=cluster.scheduler_address) == report(1 << 40, jobs=1)


def test_the_dask_engine_starts_a_local_cluster_of_jobs_workers(here, whole):
    result = run("--engine", "dask", "--jobs", "2", "--examples", "50", "whole.jsonl")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output  # its corrupt lines
    assert json.loads(result.stdout) == whole


def test_a_worker_killed_mid_run_costs_a_retry_and_no_double_count(here, cluster):
    config = build({"today": "2026-12-02"}, "test")
    paths = logs.partitions([Path("logs")])

    def report(**engine) -> str:
        return auditreport.as_json(auditreport.as_data(audit(paths, config, examples=50, **engine), [str(p) for p in paths]))

    expected = report(jobs=1)
    with Client(cluster.scheduler_address) as client, ThreadPoolExecutor(1) as pool:
        pids = client.run(os.getpid)
        running = pool.submit(report, engine="dask", scheduler=cluster.scheduler_address)
        deadline = time.monotonic() + 60
        busy: list[str] = []
        while not busy and time.monotonic() < deadline:
            busy = [worker for worker, keys in client.processing().items() if any("audit_split" in str(key) for key in keys)]
            time.sleep(0.02)
        assert busy and not running.done()
        os.kill(pids[busy[0]], signal.SIGKILL)
        assert running.result(timeout=300) == expected
        # The nanny started a new worker in place of the one killed.
        client.wait_for_workers(2, timeout=60)
        assert pids[busy[0]] not in client.run(os.getpid).values()


def test_the_progress_is_each_log_the_cluster_finishes(here, cluster):
    done: list[int] = []
    paths = logs.partitions([Path("logs")])
    tally = audit(paths, build({"today": "2026-12-02"}, "test"), engine="dask", scheduler=cluster.scheduler_address, progress=done.append)
    assert sorted(done) == sorted(Path(path).stat().st_size for path in paths)
    assert tally.bytes == sum(done)


@pytest.mark.parametrize(
    ("module", "argument", "message"),
    [
        ("zstandard", "logs/day=1/part-1.jsonl.zst", "reading .zst logs needs the zstandard package: pip install 'promptlint-rag[zstd]'"),
        ("pyarrow", "logs/day=2/part-1.parquet", "reading Parquet logs needs the pyarrow package: pip install 'promptlint-rag[parquet]'"),
        ("distributed", "--engine=dask", "--engine dask needs the distributed package: pip install 'promptlint-rag[dask]'"),
    ],
)
def test_a_missing_extra_is_one_line_saying_what_to_install(here, monkeypatch, module, argument, message):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if it were not installed
    result = run("--jobs", "1", argument, "whole.jsonl")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: {message}\n")


def test_an_unreachable_scheduler_is_one_line(here):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = run("--engine", "dask", "--scheduler", "tcp://127.0.0.1:9", "whole.jsonl")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: cannot join the Dask scheduler at tcp://127.0.0.1:9: ") and result.stderr.count("\n") == 1


def test_scheduler_needs_the_dask_engine(here):
    result = run("--scheduler", "tcp://127.0.0.1:9", "whole.jsonl")
    assert result.exit_code == 2 and "--scheduler needs --engine dask" in result.stderr


def test_the_base_install_loads_no_extra():
    code = "import sys, promptlint.cli.commands, promptlint.audit.run, promptlint.audit.cluster, promptlint.audit.logs; print(sorted({'dask', 'distributed', 'pyarrow', 'zstandard', 'fsspec', 's3fs'} & set(sys.modules)))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not any(name.startswith(("dask", "distributed", "pyarrow", "zstandard", "fsspec", "s3fs")) for name in project["dependencies"])
    assert {"dask", "parquet", "zstd", "s3", "gcs", "azure", "hdfs", "http"} <= set(project["optional-dependencies"])


# Prompts with findings: (log, split, line in the split, [(code, tokens), ...]); the same record never twice.
EVENTS = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(1, 40), st.lists(st.tuples(st.sampled_from(["PL101", "PL102", "PL900"]), st.integers(0, 9)), max_size=3)),
    unique_by=lambda event: event[:3],
    max_size=30,
)


def tally_of(events, examples: int) -> Tally:
    tally = Tally(examples)
    for log, split, line, found in events:
        tally.add(log, split, line, summary([Finding(code=code, name=code, message=f"{log}:{split}:{line}", span=Span(0, 0), tokens=tokens) for code, tokens in found]))
    return tally


@settings(max_examples=60, deadline=None)
@given(EVENTS, st.randoms(use_true_random=False), st.integers(0, 4))
def test_tallies_merge_the_same_whatever_the_split_and_order(events, random, examples):
    whole = tally_of(events, examples)
    # Split the prompts into parts, then merge the parts' tallies in a random tree.
    cuts = sorted(random.sample(range(len(events) + 1), min(3, len(events) + 1)))
    parts = [tally_of(events[a:b], examples) for a, b in zip([0, *cuts], [*cuts, len(events)])]
    random.shuffle(parts)
    while len(parts) > 1:
        i = random.randrange(len(parts) - 1)
        parts[i].merge(parts.pop(i + 1))
    # The same counts and the same examples kept (a heap's list order is its own business).
    for tally in (parts[0], whole):
        for rule in tally.rules.values():
            rule.heap.sort()
    assert parts[0] == whole


def test_a_parquet_log_of_one_row_group_is_shared_by_two_workers_with_the_same_report(cluster, tmp_path):
    """pyarrow writes one row group below about a million rows: its rows are shared among the splits, so among the workers."""
    from test_auditsplit import awkward_lines, request_rows

    path = tmp_path / "one-group.parquet"
    rows = request_rows(awkward_lines()) * 4
    write_parquet(path, rows, row_group_size=10**6)
    assert pyarrow.parquet.ParquetFile(path).metadata.num_row_groups == 1
    config = build({"today": "2026-12-02"}, "test")
    split_bytes = path.stat().st_size // 4 + 1  # four splits

    def report(**engine) -> str:
        return auditreport.as_json(auditreport.as_data(audit([path], config, field_path="request", examples=200, **engine), [str(path)]))

    whole = report(split_bytes=1 << 40, jobs=1)
    with Client(cluster.scheduler_address) as client, get_task_stream(client) as stream:
        shared = report(split_bytes=split_bytes, engine="dask", scheduler=cluster.scheduler_address)
    workers = {task["worker"] for task in stream.data if "audit_split" in str(task["key"])}
    assert shared == whole
    assert len(workers) == 2
    split = audit([path], config, field_path="request", examples=200, split_bytes=split_bytes, jobs=1)
    # Each split reads the rows that lie in its bytes (the last one holds the footer too).
    assert len(split.lines) == 4 and min(split.lines.values()) > len(rows) // 6 and sum(split.lines.values()) == len(rows)
