"""Check many files fast: each through the results cache, the rest across worker processes.

Results come back in the order of the files, whatever the number of processes,
so the command line prints exactly the same output with one or many. Files are
read and linted in the workers; writing fixes back stays with the command line.
``ordered_map``, the process pool that keeps results in order, serves ``audit`` too.
"""

from __future__ import annotations

import dataclasses
import os
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..model.findings import Applicability, Finding
from ..readers import document as documents
from .cache import Cache
from .config import Config

# Starting a worker (a process, its imports, its tokenizer) takes about 0.2 s of CPU, what
# linting this much text takes: a run with less work than this per worker keeps to fewer
# of them. Each file counts its size plus FILE_COST bytes, what a file costs besides its text.
WORK_PER_WORKER = 512 * 1024
FILE_COST = 4096
# Files a worker takes at a time: enough to make the round trip cheap, few enough to share the work evenly.
MAX_BATCH = 16


def default_jobs() -> int:
    """The cores this process may run on (its affinity, which a container or taskset narrows)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def ordered_map(function: Callable, items: Iterable, jobs: int, initializer: Callable, initargs: tuple) -> Iterator:
    """``function(item)`` for each item, in the items' order, in ``jobs`` worker processes (1: in this one).

    ``initializer(*initargs)`` runs once in each process first, to set up what
    every item needs. Only a few items per worker are in flight at once, so a
    stream (a log read line by line) is never held whole.
    """
    if jobs <= 1:
        initializer(*initargs)
        yield from map(function, items)
        return
    from concurrent.futures import ProcessPoolExecutor  # loads multiprocessing: only when it is used

    with ProcessPoolExecutor(jobs, initializer=initializer, initargs=initargs) as pool:
        pending: deque = deque()
        for item in items:
            pending.append(pool.submit(function, item))
            if len(pending) >= 4 * jobs:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


@dataclasses.dataclass(frozen=True)
class Checked:
    """One file checked, as lint.FileResult, with the file's text: what the command line prints and writes.

    It is not a FileResult so that a result served from the cache does not load the linter.
    """

    doc: documents.Document | None  # the file's text (see _text_of); None when the file could not be read
    findings: list[Finding]
    fixed: str | None = None  # the new file text, when fixing changed it
    error: str | None = None  # a one-line reason the file was not fixed
    unreadable: str = ""  # why the file could not be read
    fixed_findings: int = 0  # how many findings the fixes applied resolved
    no_prompt: bool = False  # the file holds nothing a reader knows as a prompt (see Document.holds_prompt)
    depends: dict[str, str] = dataclasses.field(default_factory=dict)  # included templates -> digest of their bytes


def _text_of(doc: documents.Document) -> documents.Document:
    """The document without its prompts: the command line needs only its text, and what crosses between processes stays small."""
    return dataclasses.replace(doc, prompts=(), errors=())


def _checked(doc: documents.Document, config: Config, fix: Applicability | None) -> Checked:
    from .lint import check_document  # the linter is loaded only when something is linted

    try:
        result = check_document(doc, config, fix)
    except Exception as exc:  # a bug met in one file must not stop the others from being linted
        return _failed(doc.path, exc)
    return Checked(_text_of(doc), result.findings, result.fixed, result.error, fixed_findings=result.fixed_findings, no_prompt=not doc.holds_prompt, depends=result.depends)


def _failed(name: str, exc: Exception) -> Checked:
    return Checked(None, [], unreadable=f"{name}: not linted, promptlint failed on it ({_where(exc)}); please report this bug")


def _where(exc: Exception) -> str:
    """The exception and the line of promptlint that raised it, on one line, for a bug report."""
    frames = traceback.extract_tb(exc.__traceback__)
    place = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}{place}"


def check_bytes(data: bytes, name: str, config: Config, fix: Applicability | None) -> Checked:
    """Check a file given as bytes (standard input), named ``name``; never cached."""
    try:
        doc = documents.parse(data, name, config.suffix_for(name), config.lexicon)
    except documents.UnreadableFile as exc:
        return Checked(None, [], unreadable=str(exc))
    except Exception as exc:  # a reader's bug, as in _checked
        return _failed(name, exc)
    return _checked(doc, config, fix)


def _lint(path: Path, config: Config, fix: Applicability | None, cache: Cache | None) -> Checked:
    try:
        doc = documents.read(path, suffix=config.suffix_for(path), lexicon=config.lexicon)
    except documents.UnreadableFile as exc:
        return Checked(None, [], unreadable=str(exc))
    except Exception as exc:  # a reader's bug met in one file must not stop the others from being linted
        return _failed(str(path), exc)
    checked = _checked(doc, config, fix)
    if cache is not None and fix is None and not checked.no_prompt:
        # A file with no prompt is not cached, so that every run says it was skipped.
        # Keyed by the text just linted (the file may have changed since it was looked
        # up), and only without fixes: after a fix the findings are no longer those of
        # the file's bytes.
        cache.put(doc.path, cache.key(doc.original.encode("utf-8"), config.for_file(doc.path)), checked.findings, checked.depends, doc.unread)
    return checked


def _cached(path: Path, config: Config, fix: Applicability | None, cache: Cache) -> tuple[str, list[Finding], tuple[str, ...]] | None:
    """The file's cache key, cached findings and notes, or None to lint it; with ``fix``, only a clean file is served, as it has nothing to fix."""
    name = str(path)
    try:
        data = path.read_bytes()
    except OSError:
        return None  # linting it reports why it cannot be read
    key = cache.key(data, config.for_file(name))
    entry = cache.get(name, key)
    if entry is None or (fix is not None and entry[0]):
        return None
    return key, *entry


def _served(path: Path, config: Config, fix: Applicability | None, cache: Cache, hit: tuple[str, list[Finding], tuple[str, ...]]) -> Checked:
    """A cached result with the file's text, read when its turn comes: the texts of the cached files are not all held at once.

    A file that changed since it was looked up is linted here.
    """
    key, findings, unread = hit
    name = str(path)
    try:
        data = path.read_bytes()
        # Only the text is needed, and every format reads its text the same way
        # (BOM and newlines), so it is read as plain text, without parsing its format.
        doc = documents.parse(data, name, ".txt", config.lexicon)
    except (OSError, documents.UnreadableFile):
        return _lint(path, config, fix, cache)
    if cache.key(data, config.for_file(name)) != key:
        return _lint(path, config, fix, cache)
    return Checked(dataclasses.replace(_text_of(doc), unread=unread), findings)


_work: tuple[list[Config], Applicability | None, Cache | None] = ([], None, None)


def _start(configs: list[Config], fix: Applicability | None, cache: Cache | None) -> None:
    """Set up a worker: the configs come once, each task names its file's config by index."""
    global _work
    _work = (configs, fix, cache)


def _lint_batch(batch: list[tuple[Path, int]]) -> list[Checked]:
    configs, fix, cache = _work
    return [_lint(path, configs[index], fix, cache) for path, index in batch]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # linting it reports why it cannot be read


def check_files(targets: list[tuple[Path, Config]], fix: Applicability | None, cache: Cache | None, jobs: int) -> Iterator[Checked]:
    """Each file's result, in the order of ``targets``: from the cache, or linted in up to ``jobs`` processes."""
    found = [_cached(path, config, fix, cache) if cache is not None else None for path, config in targets]
    todo = [target for target, hit in zip(targets, found) if hit is None]
    jobs = max(1, min(jobs, sum(_size(path) + FILE_COST for path, _ in todo) // WORK_PER_WORKER))
    # The files of a folder share one config: send each config to a worker once, and each file with its index.
    index: dict[int, int] = {}
    distinct: list[Config] = []
    for _, config in todo:
        if id(config) not in index:
            index[id(config)] = len(distinct)
            distinct.append(config)
    tasks = [(path, index[id(config)]) for path, config in todo]
    size = max(1, min(MAX_BATCH, len(tasks) // (4 * jobs)))
    batches = (tasks[start : start + size] for start in range(0, len(tasks), size))
    linted = (checked for batch in ordered_map(_lint_batch, batches, jobs, _start, (distinct, fix, cache)) for checked in batch)
    for (path, config), hit in zip(targets, found):
        yield _served(path, config, fix, cache, hit) if hit is not None else next(linted)
