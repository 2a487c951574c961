"""Benchmark of `promptlint audit --engine dask`: throughput against the local engine, and memory per worker.

    python bench/cluster.py            # 100 MB and 1 GB of logs (a few minutes on 2 cores)
    python bench/cluster.py --quick    # 10 MB and 100 MB, to try the script

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
   halved), the workers a terabyte of such logs needs for a one-hour audit.
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

PART_MB = 10
SIZES = {"full": {"logs": (100, 1000), "repeat": 2}, "quick": {"logs": (10, 100), "repeat": 1}}


def lake(folder: Path, megabytes: int, partition: Path) -> Path:
    """A folder of ``megabytes`` of logs: the partition, hard-linked under a name for each PART_MB."""
    target = folder / f"lake-{megabytes}"
    target.mkdir()
    for n in range(max(1, megabytes // PART_MB)):
        (target / f"part-{n:05d}.jsonl").hardlink_to(partition)
    return target


def worker_peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def on_cluster(workers: int, command: list[str], env: dict[str, str], repeat: int) -> tuple[Run, list[int]]:
    """The command's best run on a fresh LocalCluster of ``workers``, and each worker's peak memory (KiB)."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        measured = best([*command, "--engine", "dask", "--scheduler", cluster.scheduler_address], env, repeat)
        return measured, sorted(client.run(worker_peak).values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller logs")
    sizes = SIZES["quick" if parser.parse_args().quick else "full"]
    repeat = sizes["repeat"]
    print(f"machine: {machine()}; load average at the start: {load()}")
    with tempfile.TemporaryDirectory(prefix="promptlint-bench-dask-") as name:
        folder = Path(name)
        env = environment(folder)
        partition = folder / "partition.jsonl"
        write_log(partition, PART_MB)
        small, large = (lake(folder, megabytes, partition) for megabytes in sizes["logs"])
        audit = [PROMPTLINT, "audit", "--format", "json"]
        mb = sizes["logs"][0]

        local = {jobs: best([*audit, "--jobs", str(jobs), str(small)], env, repeat) for jobs in (1, 2)}
        dask = {workers: on_cluster(workers, [*audit, str(small)], env, repeat)[0] for workers in (1, 2)}
        started = best([*audit, "--engine", "dask", "--jobs", "2", str(small)], env, repeat)
        print(f"(1) {mb} MB in {mb // PART_MB} partitions:")
        for n in (1, 2):
            print(
                f"    {n} {'job ' if n == 1 else 'jobs'}: local {mb / local[n].wall:.1f} MB/s ({local[n].wall:.1f} s), "
                f"dask {mb / dask[n].wall:.1f} MB/s ({dask[n].wall:.1f} s): dask / local = {local[n].wall / dask[n].wall:.2f}x"
            )
        print(f"    --engine dask --jobs 2, starting its cluster: {mb / started.wall:.1f} MB/s ({started.wall:.1f} s): {local[2].wall / started.wall:.2f}x local")

        peaks, rates = {}, {}
        for megabytes, logs in zip(sizes["logs"], (small, large)):
            measured, workers = on_cluster(2, [*audit, str(logs)], env, 1)
            alone = run([*audit, "--jobs", "2", str(logs)], env, exit_codes=(0,))
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
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    main()
