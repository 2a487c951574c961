"""Benchmarks: promptlint's speed and memory, each figure a ratio against a reference measured in the same run.

    python bench/run.py            # the full run (a few minutes on 2 cores)
    python bench/run.py --quick    # smaller sizes, to try the script
    python bench/run.py --profile  # where `check` spends its time, by function

Measured side by side, each time the best of a few runs (the machine may be shared):

1. corpus throughput of `promptlint check --no-cache` against a floor that reads
   the same files, parses the templates (jinja2; ast for Python) and encodes every
   file with cl100k_base through promptlint.meaning.tokens (goal: within 2x);
2. the latency of checking one prompt, against `python -c pass` and
   `python -c "import jinja2, click"`;
3. the time for 10x more input (goal: near 10);
4. the speed-up of `--jobs 2` over `--jobs 1`;
5. the peak memory (ru_maxrss of the largest process, the main one or a worker)
   of `promptlint audit` on a 1 GB JSONL log against a 100 MB one (goal: flat).

Everything is generated in a temporary folder and deleted afterwards. The
commands run as an installed promptlint does, from bytecode: the bytecode goes
to the temporary folder, so the checkout is left as it was.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402  (beside this script, not a package)

PYTHON = sys.executable
PROMPTLINT = str(Path(PYTHON).with_name("promptlint"))
SIZES = {
    # corpus files (the small corpus is a tenth of it), log sizes in MB
    "full": {"files": 2000, "logs": (100, 1000), "repeat": 3},
    "quick": {"files": 300, "logs": (10, 100), "repeat": 2},
}
# One record in REQUEST_EVERY of the audit logs is a RAG request to lint; the others are
# the retrieval events a gateway logs beside them (as large: the chunks retrieved), read
# and skipped. Linting every record of a 1 GB log would take most of an hour on two cores.
REQUEST_EVERY = 20


def environment(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    return env


@dataclass(frozen=True)
class Run:
    wall: float  # seconds
    cpu: float  # seconds of user and system time, the workers' included
    memory: int  # KiB: the peak resident memory of the largest process (wait4 reports the process tree's largest)


def run(command: list[str], env: dict[str, str], cwd: Path | None = None, exit_codes: tuple[int, ...] = (0, 1)) -> Run:
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in exit_codes:
        raise SystemExit(f"{' '.join(command)} exited with {process.returncode}")
    return Run(time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


def best(command: list[str], env: dict[str, str], repeat: int, cwd: Path | None = None) -> Run:
    """The fastest of ``repeat`` runs (by wall time and by CPU time, each on its own): the least disturbed by other load."""
    runs = [run(command, env, cwd) for _ in range(repeat)]
    return Run(min(r.wall for r in runs), min(r.cpu for r in runs), max(r.memory for r in runs))


def floor(folder: str) -> None:
    """The least any linter of these files must do: read them, parse the templates, count their tokens."""
    import ast

    import jinja2

    from promptlint.meaning import tokens

    environment = jinja2.Environment()
    total = 0
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            text = (Path(root) / name).read_text(encoding="utf-8")
            if name.endswith((".j2", ".prompty")):
                environment.parse(text)
            elif name.endswith(".py"):
                ast.parse(text)
            total += tokens.count(text)
    print(total)


def write_log(path: Path, megabytes: int) -> None:
    """A JSONL log of about ``megabytes``, requests among retrieval events, written as it is generated."""
    r = random.Random(7)
    requests = [corpus.log_record(r, n) for n in range(100)]
    events = [corpus.retrieval_event(r) for _ in range(100)]
    limit, written, n = megabytes * 1_000_000, 0, 0
    with open(path, "w", encoding="utf-8") as handle:
        while written < limit:
            line = requests[n // REQUEST_EVERY % len(requests)] if n % REQUEST_EVERY == 0 else events[n % len(events)]
            handle.write(line)
            written += len(line.encode("utf-8"))
            n += 1


def machine() -> str:
    memory = next(line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal"))
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.processor())
    return f"{os.cpu_count()} cores ({cpu}), {int(memory) / 2**20:.1f} GiB, Python {platform.python_version()}, {datetime.date.today()}"


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def benchmark(sizes: dict, work: Path) -> None:
    env = environment(work)
    repeat = sizes["repeat"]
    print(f"machine: {machine()}; load average {load()}")
    large, small = work / "corpus", work / "small"
    paths = corpus.make(large, sizes["files"])
    corpus.make(small, sizes["files"] // 10)  # the same seed: the first tenth of the large corpus
    mb = size_of(large) / 1e6
    kinds: dict[str, int] = {}
    for path in paths:
        kinds[path.suffix] = kinds.get(path.suffix, 0) + 1
    print(f"corpus: {len(paths)} files, {mb:.1f} MB ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})")
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(Path(corpus.__file__).parent.parent / "promptlint")], env=env, stdout=subprocess.DEVNULL, check=False)
    run([PROMPTLINT, "check", "--no-cache", str(small)], env)  # warms the disk cache and the bytecode

    check = best([PROMPTLINT, "check", "--no-cache", str(large)], env, repeat)
    serial = best([PROMPTLINT, "check", "--no-cache", "--jobs", "1", str(large)], env, repeat)
    least = best([PYTHON, __file__, "--floor", str(large)], env, repeat)
    print(f"(1) throughput: check --no-cache {check.wall:.2f} s ({mb / check.wall:.1f} MB/s, {len(paths) / check.wall:.0f} files/s); floor {least.wall:.2f} s")
    print(f"    check / floor = {check.wall / least.wall:.2f}x wall (goal: within 2x); with --jobs 1 {serial.wall / least.wall:.2f}x")
    print(f"    in CPU time: check --jobs 1 / floor = {serial.cpu / least.cpu:.2f}x ({serial.cpu:.2f} s / {least.cpu:.2f} s)")

    one = work / "one.txt"
    one.write_text(corpus.text_prompt(random.Random(1), False), encoding="utf-8")
    cold = best([PROMPTLINT, "check", "--no-cache", str(one)], env, 3 * repeat, cwd=work)
    run([PROMPTLINT, "check", str(one)], env, cwd=work)  # fills the cache
    cached = best([PROMPTLINT, "check", str(one)], env, 3 * repeat, cwd=work)
    bare = best([PYTHON, "-c", "pass"], env, 3 * repeat)
    imports = best([PYTHON, "-c", "import jinja2, click"], env, 3 * repeat)
    print(f"(2) one file: check {cold.wall * 1000:.0f} ms, from the cache {cached.wall * 1000:.0f} ms; python -c pass {bare.wall * 1000:.0f} ms; import jinja2, click {imports.wall * 1000:.0f} ms")
    print(f"    check / pass = {cold.wall / bare.wall:.1f}x; check / import jinja2, click = {cold.wall / imports.wall:.2f}x; from the cache / import jinja2, click = {cached.wall / imports.wall:.2f}x")

    tenth = best([PROMPTLINT, "check", "--no-cache", str(small)], env, repeat)
    tenth_serial = best([PROMPTLINT, "check", "--no-cache", "--jobs", "1", str(small)], env, repeat)
    print(f"(3) 10x the input: {tenth.wall:.2f} s -> {check.wall:.2f} s = {check.wall / tenth.wall:.1f}x wall (goal: near 10); --jobs 1: {serial.wall / tenth_serial.wall:.1f}x")
    print(f"(4) --jobs 2 over --jobs 1: {serial.wall:.2f} s -> {check.wall:.2f} s = {serial.wall / check.wall:.2f}x speed-up; CPU {serial.cpu:.1f} s -> {check.cpu:.1f} s")

    memory = {}
    for megabytes in sizes["logs"]:
        log = work / f"log-{megabytes}.jsonl"
        write_log(log, megabytes)
        memory[megabytes] = run([PROMPTLINT, "audit", "--format", "json", str(log)], env, exit_codes=(0,))
        log.unlink()
    smaller, larger = sizes["logs"]
    low, high = memory[smaller], memory[larger]
    print(f"(5) audit: {smaller} MB log {low.memory / 1024:.0f} MiB peak in {low.wall:.1f} s; {larger} MB log {high.memory / 1024:.0f} MiB peak in {high.wall:.1f} s")
    print(f"    {larger} MB / {smaller} MB = {high.memory / low.memory:.2f}x memory (goal: flat), {high.wall / low.wall:.1f}x time")
    print(f"load average at the end: {load()}")


# The stages of `check`, each by the function that runs it.
PHASES = {
    "read and parse the files": ("promptlint/readers/document.py", "read"),
    "segment the prompts": ("promptlint/engine/lint.py", "_segment"),
    "run the rules": ("promptlint/engine/lint.py", "lint_prompt"),
    "  of which counting tokens": ("promptlint/meaning/tokens.py", "count"),
    "place findings in the files": ("promptlint/engine/lint.py", "_place"),
    "print the findings (full)": ("promptlint/output/report.py", "full"),
}


def profile(sizes: dict, work: Path) -> None:
    """Where `check --no-cache --jobs 1` spends its time on the corpus, by function, as shares of the whole."""
    import contextlib
    import cProfile
    import io
    import pstats

    from promptlint.cli.commands import main

    corpus.make(work / "corpus", sizes["files"])
    profiler = cProfile.Profile()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        profiler.enable()
        try:
            main(["check", "--no-cache", "--jobs", "1", str(work / "corpus")], standalone_mode=False)
        except SystemExit:  # check exits 1: the corpus has findings
            pass
        profiler.disable()
    stats = pstats.Stats(profiler).stats
    total = sum(own for _, _, own, _, _ in stats.values())

    def name(file: str, line: int, function: str) -> str:
        return f"{Path(file).parent.name}/{Path(file).name}:{function}" if line else function

    print(f"{total:.1f} s in all, under the profiler. The functions that take the most time of their own:")
    for key, (_, _, own, cumulative, _) in sorted(stats.items(), key=lambda item: -item[1][2])[:20]:
        print(f"  {own / total:6.1%} own  {cumulative / total:6.1%} with callees  {name(*key)}")
    print("By stage, callees included:")
    for label, (file, function) in PHASES.items():
        cumulative = sum(c for (f, _, fn), (_, _, _, c, _) in stats.items() if f.endswith(file) and fn == function)
        print(f"  {cumulative / total:6.1%}  {label} ({file}:{function})")
    print("By rule, callees included:")
    rules = [(key, c) for key, (_, _, _, c, _) in stats.items() if "/promptlint/rules/" in key[0] and key[2] == "check"]
    for key, cumulative in sorted(rules, key=lambda item: -item[1]):
        print(f"  {cumulative / total:6.1%}  {name(*key)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller corpus and logs")
    parser.add_argument("--profile", action="store_true", help="profile check on the corpus instead")
    parser.add_argument("--floor", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        floor(args.floor)
        return
    if not Path(PROMPTLINT).exists():
        raise SystemExit(f"{PROMPTLINT} not found: install promptlint in this Python's environment (pip install -e .)")
    sizes = SIZES["quick" if args.quick else "full"]
    with tempfile.TemporaryDirectory(prefix="promptlint-bench-") as folder:
        (profile if args.profile else benchmark)(sizes, Path(folder))


if __name__ == "__main__":
    main()
