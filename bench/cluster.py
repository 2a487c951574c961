"""Benchmark of `promptlint audit --engine dask`: throughput against the local engine, and memory per worker.

    python bench/cluster.py            # 100 MB and 1 GB of logs, and one log of 200 MB (a few minutes on 2 cores)
    python bench/cluster.py --quick    # 10 MB and 100 MB, and one of 20 MB, to try the script
    python bench/cluster.py --big      # the one large log (4) alone

The logs are those of bench/run.py (one RAG request in 20 records, the others
retrieval events, read and skipped), written once as a partition of PART_MB into a
temporary folder and linked under as many names as the size needs, then deleted.
Measured side by side, each the best of a few runs:

1. MB/s of the local engine (`--jobs 1`, `--jobs 2`) and of the dask engine on a
   running LocalCluster of one and of two workers (`--scheduler`), as ratios; and
   `--engine dask --jobs 2` once with the start of its own local cluster counted;
2. the peak memory (ru_maxrss) of each worker, and of the command, for the small
   and the large size, each on a fresh cluster of two workers (goal: flat), and
   the time against the local engine's `--jobs 2` (one run each);
3. from the per-worker rate (one worker on the small size; two on the large,
   halved), the workers a terabyte of such logs needs for a one-hour audit;
4. one large log, a single file (read in splits of logs.SPLIT_BYTES), on a fresh
   cluster of one worker and of two: the speed-up of the second worker, as a
   ratio of wall times; how evenly the two shared the CPU (their CPU seconds in
   all, over the busiest one's: what a second core can give when the wall time
   is disturbed by other load); and the peak memory of each worker.
"""

from __future__ import annotations

import argparse
import logging
import math
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import PROMPTLINT, Run, best, environment, load, machine, run, write_log  # noqa: E402  (beside this script)

from promptlint.audit.logs import SPLIT_BYTES  # noqa: E402

PART_MB = 10
SIZES = {"full": {"logs": (100, 1000), "big": 200, "repeat": 2}, "quick": {"logs": (10, 100), "big": 20, "repeat": 1}}
AUDIT = [PROMPTLINT, "audit", "--format", "json"]


def lake(folder: Path, megabytes: int, partition: Path) -> Path:
    """A folder of ``megabytes`` of logs: the partition, hard-linked under a name for each PART_MB."""
    target = folder / f"lake-{megabytes}"
    target.mkdir()
    for n in range(max(1, megabytes // PART_MB)):
        (target / f"part-{n:05d}.jsonl").hardlink_to(partition)
    return target


def worker_usage() -> tuple[int, float]:
    """The worker's peak memory (KiB) and its CPU seconds so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def on_cluster(workers: int, command: list[str], env: dict[str, str], repeat: int) -> tuple[Run, list[int], list[float]]:
    """The command's best run on a fresh LocalCluster of ``workers``; each worker's peak memory (KiB), and its CPU seconds in the runs (not in its start)."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        started = client.run(worker_usage)
        measured = best([*command, "--engine", "dask", "--scheduler", cluster.scheduler_address], env, repeat)
        usage = sorted((peak, cpu - started[worker][1]) for worker, (peak, cpu) in client.run(worker_usage).items())
        return measured, [peak for peak, _ in usage], [cpu for _, cpu in usage]


def partitions(folder: Path, env: dict[str, str], sizes: dict) -> None:
    """(1)-(3): folders of partitions of PART_MB."""
    repeat = sizes["repeat"]
    partition = folder / "partition.jsonl"
    write_log(partition, PART_MB)
    small, large = (lake(folder, megabytes, partition) for megabytes in sizes["logs"])
    mb = sizes["logs"][0]

    local = {jobs: best([*AUDIT, "--jobs", str(jobs), str(small)], env, repeat) for jobs in (1, 2)}
    dask = {workers: on_cluster(workers, [*AUDIT, str(small)], env, repeat)[0] for workers in (1, 2)}
    started = best([*AUDIT, "--engine", "dask", "--jobs", "2", str(small)], env, repeat)
    print(f"(1) {mb} MB in {mb // PART_MB} partitions:")
    for n in (1, 2):
        print(
            f"    {n} {'job ' if n == 1 else 'jobs'}: local {mb / local[n].wall:.1f} MB/s ({local[n].wall:.1f} s), "
            f"dask {mb / dask[n].wall:.1f} MB/s ({dask[n].wall:.1f} s): dask / local = {local[n].wall / dask[n].wall:.2f}x"
        )
    print(f"    --engine dask --jobs 2, starting its cluster: {mb / started.wall:.1f} MB/s ({started.wall:.1f} s): {local[2].wall / started.wall:.2f}x local")

    peaks, rates = {}, {}
    for megabytes, logs in zip(sizes["logs"], (small, large)):
        measured, workers, _ = on_cluster(2, [*AUDIT, str(logs)], env, 1)
        alone = run([*AUDIT, "--jobs", "2", str(logs)], env, exit_codes=(0,))
        peaks[megabytes], rates[megabytes] = workers, megabytes / measured.wall
        print(
            f"(2) {megabytes} MB on 2 workers: {megabytes / measured.wall:.1f} MB/s ({measured.wall:.1f} s; local --jobs 2: {alone.wall:.1f} s, "
            f"dask / local = {alone.wall / measured.wall:.2f}x); peak per worker {', '.join(f'{kib / 1024:.0f}' for kib in workers)} MiB; the command {measured.memory / 1024:.0f} MiB"
        )
    low, high = (max(peaks[megabytes]) for megabytes in sizes["logs"])
    print(f"    largest worker, {sizes['logs'][1]} MB / {sizes['logs'][0]} MB = {high / low:.2f}x (goal: flat)")

    # The large run spreads the start of the workers (their imports, the tokenizer) over the most work.
    rate = mb / dask[1].wall
    shared = rates[sizes["logs"][1]] / 2
    print(f"(3) per worker: {rate:.1f} MB/s alone on {mb} MB, {shared:.1f} MB/s each of two on {sizes['logs'][1]} MB (2 cores)")
    for label, per in (("alone", rate), ("each of two", shared)):
        print(f"    1 TB in one hour at {per:.1f} MB/s a worker ({label}): {math.ceil(1e6 / 3600 / per)} workers")


def one_log(folder: Path, env: dict[str, str], megabytes: int, repeat: int) -> None:
    """(4): one large log on one worker and on two."""
    big = folder / "big.jsonl"
    write_log(big, megabytes)
    splits = -(-big.stat().st_size // SPLIT_BYTES)
    measured = {workers: on_cluster(workers, [*AUDIT, str(big)], env, repeat) for workers in (1, 2)}
    print(f"(4) one log of {megabytes} MB, {splits} splits of at most {SPLIT_BYTES >> 20} MiB (best of {repeat}):")
    for workers, (taken, peaks, cpus) in measured.items():
        print(
            f"    {workers} worker{'s' if workers > 1 else ''}: {megabytes / taken.wall:.1f} MB/s ({taken.wall:.1f} s); "
            f"peak per worker {', '.join(f'{kib / 1024:.0f}' for kib in peaks)} MiB; CPU per worker {', '.join(f'{cpu:.1f}' for cpu in cpus)} s (all runs)"
        )
    # Under load the wall time says little; how evenly the CPU was shared says what a second core can give.
    cpus = measured[2][2]
    print(f"    2 workers / 1 worker = {measured[1][0].wall / measured[2][0].wall:.2f}x by wall time; the CPU shared {sum(cpus) / max(cpus):.2f}x (total / busiest worker)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller logs")
    parser.add_argument("--big", action="store_true", help="only the one large log (4)")
    arguments = parser.parse_args()
    sizes = SIZES["quick" if arguments.quick else "full"]
    repeat = sizes["repeat"]
    print(f"machine: {machine()}; load average at the start: {load()}")
    with tempfile.TemporaryDirectory(prefix="promptlint-bench-dask-") as name:
        folder = Path(name)
        env = environment(folder)
        if not arguments.big:
            partitions(folder, env, sizes)
        one_log(folder, env, sizes["big"], repeat)
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    main()
