"""The dask engine on a real cluster that loses its only worker: the run recovers with the same report, or ends with one ClusterError line.

The cluster is a `dask scheduler` and one `dask worker` (with its nanny), each a
process of its own started here, as on a machine of a real deployment: the
audit's client shares nothing with them but the scheduler's address.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner
from distributed import Client
from test_audit import CONFIG, log_lines

from promptlint.cli.commands import main

# The cluster gives up on a task after its second worker dies: the memory test needs two tries, not four.
ENVIRONMENT = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1", "DASK_DISTRIBUTED__WORKER__MEMORY__PAUSE": "False"}


def start_cluster(folder: Path, *worker_options: str):
    """A scheduler and one worker, as processes; their address, and the processes to stop."""
    scheduler_file = folder / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": ENVIRONMENT}
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)], **quiet)
    processes = [scheduler]
    deadline = time.monotonic() + 60
    while not scheduler_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    address = json.loads(scheduler_file.read_text(encoding="utf-8"))["address"]
    processes.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard", *worker_options], **quiet))
    return address, processes


def stop(processes: list[subprocess.Popen]) -> None:
    for process in reversed(processes):
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a nanny busy restarting its worker
            process.kill()
            process.wait()


@pytest.fixture
def cluster(tmp_path):
    address, processes = start_cluster(tmp_path)
    try:
        yield address
    finally:
        stop(processes)


def run(*args: str):
    result = CliRunner().invoke(main, ["audit", "--config", CONFIG, "--format", "json", "--examples", "50", *args], prog_name="promptlint")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def logs(tmp_path, monkeypatch) -> list[str]:
    """Two copies of the generated log, a task each: enough work to kill the worker in the middle of."""
    monkeypatch.chdir(tmp_path)
    Path(CONFIG).write_text("today: 2026-12-02\n", encoding="utf-8")
    names = [f"part-{n}.jsonl" for n in range(2)]
    for name in names:
        Path(name).write_bytes(b"".join(log_lines()[0]))
    return names


def test_killing_the_only_worker_mid_run_gives_the_same_report(cluster, logs):
    expected = run("--jobs", "1", *logs)
    with Client(cluster) as client, ThreadPoolExecutor(1) as pool:
        client.wait_for_workers(1, timeout=60)
        [pid] = client.run(os.getpid).values()
        running = pool.submit(run, "--engine", "dask", "--scheduler", cluster, *logs)
        deadline = time.monotonic() + 60
        while not any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not running.done()
        os.kill(pid, signal.SIGKILL)
        result = running.result(timeout=120)
        # The nanny started a new worker, which ran the splits again: each counted once.
        assert pid not in client.run(os.getpid).values()
    assert (result.exit_code, result.stdout, result.stderr) == (expected.exit_code, expected.stdout, expected.stderr)


def test_a_worker_over_its_memory_limit_ends_in_one_cluster_error_line(tmp_path, logs):
    """A record of 120 MB takes the worker over its limit of 150 MB: its nanny kills it, the task runs again on the new worker, which dies too.

    The log is compressed, so it is one task: the one the cluster gives up on.
    """
    Path("huge.jsonl.gz").write_bytes(gzip.compress(b'{"prompt": "' + b"x" * (120 << 20) + b'"}\n', compresslevel=1))
    address, processes = start_cluster(tmp_path, "--memory-limit", "150MB")
    try:
        result = run("--engine", "dask", "--scheduler", address, "huge.jsonl.gz")
    finally:
        stop(processes)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"Error: the cluster gave up on huge.jsonl.gz (bytes 0-{Path('huge.jsonl.gz').stat().st_size}): each worker that ran it died (distributed.scheduler.allowed-failures)\n"
