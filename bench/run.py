"""Benchmarks: promptlint's speed per core and its memory, each figure a ratio against a reference measured in the same run.

    python bench/run.py            # the full run (several minutes on 2 cores)
    python bench/run.py --quick    # smaller sizes, to try the script
    python bench/run.py --profile check|audit  # where one of them spends its time, by function

Each figure is the best of a few runs (the machine may be shared), measured side by
side with its reference, with the peak resident memory of each command's largest
process. Per core (``--jobs 1``):

1. `check --no-cache` on the generated corpus against a floor that reads the same
   files, parses the templates (jinja2; ast for Python) and encodes every file with
   cl100k_base (goal: within 2x);
2. checking one clean file against `python -c "import jinja2, click"` (goal: within 3x);
3. `audit` of a realistic log (every record a RAG chat request of 3-7 sources retrieved
   for it, an anti-pattern on a few percent) against a floor that json-decodes each
   line and encodes every message (goal: within 2x);

then the same at 2 jobs, and 10x the input (goal: at most 11x the time, flat memory).
Each run is counted: a check's JUnit report has one test suite per file linted, an
audit's JSON report the prompts it linted, and each floor prints what it read; a
count short of what was generated stops the bench, so it cannot time a walk that
took nothing.

Everything is generated in a temporary folder and deleted afterwards. The
commands run as an installed promptlint does, from bytecode: the bytecode goes
to the temporary folder, so the checkout is left as it was.
"""

from __future__ import annotations

import argparse
import datetime
import json
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
    # corpus files and log megabytes (the small input of each is a tenth of it)
    "full": {"files": 2000, "log": 27, "repeat": 3},
    "quick": {"files": 300, "log": 4, "repeat": 2},
}
# The share of a realistic log's requests that carry an anti-pattern.
FLAWED = 0.04


def environment(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    return env


@dataclass(frozen=True)
class Run:
    wall: float  # seconds
    cpu: float  # seconds of user and system time, the workers' included
    memory: int  # KiB: the peak resident memory of the largest process (wait4 reports the process tree's largest)
    output: bytes = b""


def run(command: list[str], env: dict[str, str], cwd: Path | None = None, exit_codes: tuple[int, ...] = (0, 1), capture: bool = False) -> Run:
    """Run ``command``; with ``capture``, keep what it printed (to count what it did), else discard it
    (a check of the corpus prints over 100 MB, which the bench must not hold: a child forked from a
    large bench would count the bench's memory as its own)."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, env=env, cwd=cwd, stdout=out if capture else subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode not in exit_codes:
            raise SystemExit(f"{' '.join(command)} exited with {process.returncode}")
        out.seek(0)
        return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, out.read() if capture else b"")


def best(command: list[str], env: dict[str, str], repeat: int, cwd: Path | None = None, exit_codes: tuple[int, ...] = (0, 1), capture: bool = False) -> Run:
    """The fastest of ``repeat`` runs (by wall time and by CPU time, each on its own): the least disturbed by other load."""
    runs = [run(command, env, cwd, exit_codes, capture) for _ in range(repeat)]
    return Run(min(r.wall for r in runs), min(r.cpu for r in runs), max(r.memory for r in runs), runs[0].output)


def floor(folder: str) -> None:
    """The least any linter of these files must do: read them, parse the templates, count their tokens."""
    import ast

    import jinja2

    from promptlint.meaning import tokens

    environment = jinja2.Environment()
    encoding = tokens._encoding()  # each file encoded whole, as any linter must: promptlint's count reuses parts
    files = total = 0
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            text = (Path(root) / name).read_text(encoding="utf-8")
            if name.endswith((".j2", ".prompty")):
                environment.parse(text)
            elif name.endswith(".py"):
                ast.parse(text)
            total += len(encoding.encode(text, disallowed_special=()))
            files += 1
    print(files, total)


def audit_floor(log: str) -> None:
    """The least any linter of this log must do: decode each record, count the tokens of every message."""
    from promptlint.meaning import tokens

    encoding = tokens._encoding()  # each message encoded whole (see floor)
    records = total = 0
    with open(log, "rb") as handle:
        for line in handle:
            records += 1
            total += sum(len(encoding.encode(m["content"], disallowed_special=())) for m in json.loads(line)["messages"])
    print(records, total)


def write_log(path: Path, megabytes: float, seed: int = 7) -> int:
    """A realistic request log of about ``megabytes``, written as it is generated; returns its records."""
    r = random.Random(seed)
    limit, written, records = megabytes * 1_000_000, 0, 0
    with open(path, "w", encoding="utf-8") as handle:
        while written < limit:
            line = corpus.rag_request(r, r.random() < FLAWED)
            handle.write(line)
            written += len(line.encode("utf-8"))
            records += 1
    return records


def machine() -> str:
    memory = next(line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal"))
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.processor())
    return f"{os.cpu_count()} cores ({cpu}), {int(memory) / 2**20:.1f} GiB, Python {platform.python_version()}, {datetime.date.today()}"


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def expect(what: str, counted: int, made: int) -> None:
    """Stop the bench when a run did not take everything it was given: its time would measure less."""
    if counted != made:
        raise SystemExit(f"{what}: {counted} counted, {made} expected; the figures would not measure the input")


def check_files(folder: Path, env: dict[str, str], jobs: int) -> int:
    """How many files a check of ``folder`` lints: its JUnit report has a test suite per file."""
    report = run([PROMPTLINT, "check", "--no-cache", "--jobs", str(jobs), "--output-format", "junit", str(folder)], env, capture=True).output
    return report.count(b"<testsuite ")


def audited(output: bytes) -> int:
    report = json.loads(output)
    return report["prompts"] if report["skipped"] == 0 else -report["skipped"]


class Table:
    """The figures side by side: each command, its reference, their ratio and the goal, as measured."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, ...]] = []

    def add(self, what: str, ours: Run, reference: Run, label: str, limit: float | None = None, *, ratio: float | None = None, note: str = "") -> None:
        cpu = ours.cpu / reference.cpu if ratio is None else reference.cpu / ours.cpu
        ratio = ours.wall / reference.wall if ratio is None else ratio
        goal = f"<= {limit:g}x: {'met' if ratio <= limit else 'NOT met'}" if limit else ""
        ref = f"{reference.wall:.2f} s, {reference.memory / 1024:.0f} MiB ({label})"
        self.rows.append((what, f"{ours.wall:.2f} s, {ours.memory / 1024:.0f} MiB", ref, f"{ratio:.2f}x", f"{cpu:.2f}x", "; ".join(x for x in (goal, note) if x)))

    def print(self) -> None:
        head = ("what", "promptlint (wall, peak)", "reference (wall, peak)", "ratio", "in CPU", "goal (by wall time), as measured")
        widths = [max(len(row[i]) for row in (head, *self.rows)) for i in range(len(head))]
        for row in (head, tuple("-" * w for w in widths), *self.rows):
            print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


def benchmark(sizes: dict, work: Path) -> None:
    env = environment(work)
    repeat = sizes["repeat"]
    print(f"machine: {machine()}; load average {load()}")
    large, small = work / "corpus", work / "small"
    paths = corpus.make(large, sizes["files"])
    few = len(corpus.make(small, sizes["files"] // 10))  # the same seed: the first tenth of the large corpus
    mb = size_of(large) / 1e6
    kinds: dict[str, int] = {}
    for path in paths:
        kinds[path.suffix] = kinds.get(path.suffix, 0) + 1
    print(f"corpus: {len(paths)} files, {mb:.1f} MB ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})")
    log, tenth_log = work / "log.jsonl", work / "tenth.jsonl"
    records = write_log(log, sizes["log"])
    tenth_records = write_log(tenth_log, sizes["log"] / 10)
    print(f"log: {records} chat requests of 3-7 sources, {log.stat().st_size / 1e6:.1f} MB ({tenth_records} in the tenth); {FLAWED:.0%} with an anti-pattern")
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(Path(corpus.__file__).parent.parent / "promptlint")], env=env, stdout=subprocess.DEVNULL, check=False)
    for folder, made in ((large, len(paths)), (small, few)):
        for jobs in (1, 2):
            expect(f"check --jobs {jobs} {folder.name}", check_files(folder, env, jobs), made)  # also warms the disk cache and the bytecode

    table = Table()
    check = {jobs: best([PROMPTLINT, "check", "--no-cache", "--jobs", str(jobs), str(large)], env, repeat) for jobs in (1, 2)}
    least = best([PYTHON, __file__, "--floor", str(large)], env, repeat, capture=True)
    expect("the check floor", int(least.output.split()[0]), len(paths))
    table.add("check --jobs 1 --no-cache, corpus", check[1], least, "floor", 2.0)

    one = work / "one.txt"
    one.write_text(corpus.clean_prompt(random.Random(1)), encoding="utf-8")
    cold = best([PROMPTLINT, "check", "--no-cache", str(one)], env, 3 * repeat, cwd=work, exit_codes=(0,))  # clean: exit 0
    imports = best([PYTHON, "-c", "import jinja2, click"], env, 3 * repeat)
    table.add("check one clean file", cold, imports, "import jinja2, click", 3.0)

    audit = {}
    for jobs in (1, 2):
        audit[jobs] = best([PROMPTLINT, "audit", "--format", "json", "--jobs", str(jobs), str(log)], env, repeat, exit_codes=(0,), capture=True)
        expect(f"audit --jobs {jobs}", audited(audit[jobs].output), records)
    audit_least = best([PYTHON, __file__, "--audit-floor", str(log)], env, repeat, capture=True)
    expect("the audit floor", int(audit_least.output.split()[0]), records)
    table.add("audit --jobs 1, realistic log", audit[1], audit_least, "floor", 2.0)

    table.add("check --jobs 2 --no-cache, corpus", check[2], least, "floor")
    table.add("  its speed-up over --jobs 1", check[2], check[1], "--jobs 1", ratio=check[1].wall / check[2].wall)
    table.add("audit --jobs 2, realistic log", audit[2], audit_least, "floor")
    table.add("  its speed-up over --jobs 1", audit[2], audit[1], "--jobs 1", ratio=audit[1].wall / audit[2].wall)

    for jobs in (1, 2):
        tenth = best([PROMPTLINT, "check", "--no-cache", "--jobs", str(jobs), str(small)], env, repeat)
        _tenfold(table, f"check --jobs {jobs}: 10x the files", check[jobs], tenth)
        tenth = best([PROMPTLINT, "audit", "--format", "json", "--jobs", str(jobs), str(tenth_log)], env, repeat, exit_codes=(0,), capture=True)
        expect(f"audit --jobs {jobs} of the tenth", audited(tenth.output), tenth_records)
        _tenfold(table, f"audit --jobs {jobs}: 10x the records", audit[jobs], tenth)
    table.print()
    print("in CPU: the ratio of user and system seconds (the workers' included), less disturbed by other load than wall time")
    log_mb = log.stat().st_size / 1e6
    print(f"throughput per core: check {mb / check[1].wall:.1f} MB/s ({len(paths) / check[1].wall:.0f} files/s); "
          f"audit {log_mb / audit[1].wall:.1f} MB/s ({records / audit[1].wall:.0f} requests/s); "
          f"per CPU second: check {mb / check[1].cpu:.1f} MB, audit {log_mb / audit[1].cpu:.1f} MB ({records / audit[1].cpu:.0f} requests)")
    print(f"load average at the end: {load()}")


def _tenfold(table: Table, what: str, whole: Run, tenth: Run) -> None:
    """A row for 10x the input: the time ratio (goal: at most 11x) and the memory ratio (goal: flat)."""
    table.add(what, whole, tenth, "a tenth", 11.0, note=f"memory {whole.memory / tenth.memory:.2f}x (goal: flat)")


# The stages of `check`, each by the function that runs it.
PHASES = {
    "read and parse the files": ("promptlint/readers/document.py", "read"),
    "segment the prompts": ("promptlint/engine/lint.py", "_segment"),
    "run the rules": ("promptlint/engine/lint.py", "lint_prompt"),
    "  of which counting tokens": ("promptlint/meaning/tokens.py", "count"),
    "place findings in the files": ("promptlint/engine/lint.py", "_place"),
    "print the findings (full)": ("promptlint/output/report.py", "full"),
}


def profile(sizes: dict, work: Path, what: str) -> None:
    """Where `check --no-cache --jobs 1` (on the corpus) or `audit --jobs 1` (on the realistic log)
    spends its time, by function, as shares of the whole."""
    import contextlib
    import cProfile
    import io
    import pstats

    from promptlint.cli.commands import main

    if what == "check":
        corpus.make(work / "corpus", sizes["files"])
        command = ["check", "--no-cache", "--jobs", "1", str(work / "corpus")]
    else:
        write_log(work / "log.jsonl", sizes["log"])
        command = ["audit", "--jobs", "1", str(work / "log.jsonl")]
    profiler = cProfile.Profile()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        profiler.enable()
        try:
            main(command, standalone_mode=False)
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
    if what == "audit":
        return
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
    parser.add_argument("--python", metavar="PATH", help="measure the promptlint installed beside this Python (default: this one), e.g. an older version's")
    parser.add_argument("--profile", choices=("check", "audit"), help="profile check on the corpus, or audit on the log, instead")
    parser.add_argument("--floor", metavar="FOLDER", help=argparse.SUPPRESS)
    parser.add_argument("--audit-floor", metavar="LOG", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        floor(args.floor)
        return
    if args.audit_floor:
        audit_floor(args.audit_floor)
        return
    if args.python:
        global PYTHON, PROMPTLINT
        PYTHON, PROMPTLINT = args.python, str(Path(args.python).with_name("promptlint"))
    if not Path(PROMPTLINT).exists():
        raise SystemExit(f"{PROMPTLINT} not found: install promptlint in this Python's environment (pip install -e .)")
    sizes = SIZES["quick" if args.quick else "full"]
    with tempfile.TemporaryDirectory(prefix="promptlint-bench-") as folder:
        if args.profile:
            profile(sizes, Path(folder), args.profile)
        else:
            benchmark(sizes, Path(folder))


if __name__ == "__main__":
    main()
