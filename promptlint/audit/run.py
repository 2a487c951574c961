"""`promptlint audit`: what the anti-patterns cost across logs of real requests.

A record (a JSONL line, a Parquet row: see logs.py) is an OpenAI chat request
(``{"messages": [...]}``, with ``model`` and other fields beside it), a completion
request (``{"prompt": ...}``), or any record that holds one of those, or a prompt
string, at a field path (``--field request.body``). Each record is read as
``check`` reads a chat JSON file, its messages joined into one prompt, and linted
with the same rules.

The logs are streamed: each is read in splits (a large log in several, see
logs.py), its records in batches linted in worker processes (or, with the dask
engine, a split at a time on the workers of a cluster: see cluster.py), and only
counts and the few worst examples of each rule are kept, so memory stays the same
however long the logs. A line that is not JSON (or not a
well-formed chat record) is a PL900 finding, as in ``check``; a record with no
prompt in it (a response, a log line of another kind, a missing field) is skipped
and counted.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..engine import parallel
from ..engine.config import Config
from ..meaning.tokens import count as count_tokens
from ..model.findings import Finding
from ..readers import document as documents
from ..readers.formats import FILE_TYPES
from . import logs

@dataclass(frozen=True)
class Example:
    path: str
    line: int  # the record's line in its file, 1-based
    tokens: int  # what the rule's findings cost in this prompt
    message: str  # the costliest finding's message


@dataclass
class RuleTally:
    affected: int = 0  # prompts with at least one finding of the rule
    findings: int = 0
    tokens: int = 0
    # The worst prompts, as a min-heap of (tokens, -file, -split, -line in the split, message)
    # holding the largest keys: the most tokens, then the earliest record. A total order, so
    # the examples kept do not depend on how the logs were split between workers.
    heap: list[tuple[int, int, int, int, str]] = field(default_factory=list)


@dataclass
class LogTally:
    """What went wrong in one log, for standard error: a report of its records alone would hide it."""

    records: int = 0
    prompts: int = 0
    corrupt: int = 0  # lines that are not JSON text
    first_corrupt: tuple[int, int] | None = None  # (split, line in the split)
    # Each damage -> where it was first met (split, line in the split), and the rows it lost (a row group's, shared by splits).
    damage: dict[str, tuple[tuple[int, int], int]] = field(default_factory=dict)
    fields: set[str] = field(default_factory=set)  # in a log whose records hold no prompt, the fields that do

    def merge(self, other: LogTally) -> None:
        self.records += other.records
        self.prompts += other.prompts
        self.corrupt += other.corrupt
        self.first_corrupt = min(filter(None, (self.first_corrupt, other.first_corrupt)), default=None)
        for damage, (place, lost) in other.damage.items():
            mine = self.damage.get(damage)
            self.damage[damage] = (min(place, mine[0]), lost + mine[1]) if mine else (place, lost)
        self.fields |= other.fields


# What a tally reads of a prompt's findings, rule by rule: (code, findings, their tokens, the costliest one's message).
Summary = tuple[tuple[str, int, int, str], ...]


def summary(findings: list[Finding]) -> Summary:
    by_code: dict[str, list[Finding]] = {}
    for finding in findings:
        by_code.setdefault(finding.code, []).append(finding)
    # The costliest is the first of equals.
    return tuple((code, len(found), sum(f.tokens for f in found), max(found, key=lambda f: f.tokens).message) for code, found in by_code.items())


@dataclass
class Tally:
    """Counts over the records read so far; tallies of parts of a log merge into the whole's."""

    examples: int  # worst examples kept per rule
    bytes: int = 0  # of the log read
    records: int = 0  # non-blank lines
    skipped: int = 0  # records without a prompt
    prompts: int = 0  # records with a prompt, or broken ones (PL900)
    affected: int = 0  # prompts with at least one finding
    tokens: int = 0  # of the prompts, every message counted: what the flagged tokens are a share of
    rules: dict[str, RuleTally] = field(default_factory=dict)
    lines: dict[tuple[int, int], int] = field(default_factory=dict)  # (file, split) -> the lines of the split read
    logs: dict[int, LogTally] = field(default_factory=dict)  # by file

    def add(self, file: int, split: int, line: int, found: Summary, size: int = 0) -> None:
        """One prompt's findings (their summary) and its size in tokens; ``line`` is its line in the split of the file."""
        self.prompts += 1
        self.tokens += size
        self.affected += bool(found)
        for code, findings, tokens, message in found:
            rule = self.rules.setdefault(code, RuleTally())
            rule.affected += 1
            rule.findings += findings
            rule.tokens += tokens
            self._keep(rule, (tokens, -file, -split, -line, message))

    def _keep(self, rule: RuleTally, example: tuple[int, int, int, int, str]) -> None:
        if len(rule.heap) < self.examples:
            heapq.heappush(rule.heap, example)
        elif self.examples and example > rule.heap[0]:
            heapq.heapreplace(rule.heap, example)

    def merge(self, other: Tally) -> None:
        self.bytes += other.bytes
        self.records += other.records
        self.skipped += other.skipped
        self.prompts += other.prompts
        self.affected += other.affected
        self.tokens += other.tokens
        for place, count in other.lines.items():
            self.lines[place] = self.lines.get(place, 0) + count
        for file, log in other.logs.items():
            self.logs.setdefault(file, LogTally()).merge(log)
        for code, theirs in other.rules.items():
            mine = self.rules.setdefault(code, RuleTally())
            mine.affected += theirs.affected
            mine.findings += theirs.findings
            mine.tokens += theirs.tokens
            for example in theirs.heap:
                self._keep(mine, example)

    def worst(self, code: str, paths: list[str]) -> list[Example]:
        """The rule's worst prompts, the most tokens first (then the earliest)."""
        ranked = sorted(self.rules[code].heap, reverse=True)
        return [Example(paths[-file], self.file_line(-file, -split, -line), tokens, message) for tokens, file, split, line, message in ranked]

    def file_line(self, file: int, split: int, line: int) -> int:
        """A record's line in its file: its line in its split, after the lines of the file's earlier splits."""
        return line + sum(count for (other, earlier), count in self.lines.items() if other == file and earlier < split)


CORRUPT = object()  # the value of a line that is not JSON text


def _json(line: bytes):
    """A record's JSON value; CORRUPT when the line is not JSON text."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return CORRUPT


def _at(value, path: list[str]):
    """The value at the field path of a record (None when there is no such field), as a request: a JSON text in a string is read as what it holds."""
    for key in path:
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return None
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        # As a Parquet column of JSON-encoded requests is read (logs._record).
        decoded = _json(value.encode("utf-8"))
        value = value if decoded is CORRUPT else decoded
    return value


@dataclass(frozen=True)
class Work:
    """What every batch of an audit needs: sent once to each local worker process, and inside each task of a cluster."""

    config: Config
    names: list[str]  # the logs, by index
    keys: list[str]  # the field path to the prompt in each record ([]: the record)
    examples: int

    @property
    def column(self) -> str | None:
        """The Parquet column that holds the prompt: the field path's first key."""
        return self.keys[0] if self.keys else None


def _findings(line: bytes, value, name: str, work: Work) -> tuple[Summary, int] | None:
    """The findings of a record (their summary) and the tokens of its prompts; None when it holds no prompt.

    A prompt string stands for a user message, as ``{"prompt": ...}`` does; a line
    that is not JSON goes on as it is, for the parser to report.
    """
    from ..engine.lint import check_document

    if value is not CORRUPT and work.keys:
        value = _at(value, work.keys)
        if value is None:
            return None
        line = json.dumps({"prompt": value} if isinstance(value, str) else value, ensure_ascii=False).encode("utf-8")
    try:
        doc = documents.parse(line, name, FILE_TYPES["json"], work.config.lexicon)
    except documents.UnreadableFile as exc:
        # Not text: broken like a line that is not JSON.
        return summary([documents.syntax_error(name, str(exc).removeprefix(f"{name}: "), 1, 1)]), 0
    if not (doc.prompts or doc.errors):
        return None
    # Kept in parts: the rules count the request's sources next, and later records repeat its system prompt.
    size = sum(count_tokens(text, shared=True) for prompt in doc.prompts for text in prompt.texts)
    return summary(check_document(doc, work.config).findings), size


class _Repeats:
    """The results of the records of one audit linted lately, by their line and log: a log that
    repeats a request (a retry, a fixed prompt sent on every call, a request logged at each hop)
    lints it once. A record's result depends on its line, its log's name and the audit's Work alone
    (nothing of the records around it), so a repeat gets exactly what linting it again would
    (tests/test_perf_equivalence.py). A line is known by its SHA-256, as the check cache knows a
    file (a 16 KB request takes 10 us to hash, against milliseconds to lint), and what is kept of
    its findings is their summary (a finding holds its line, the whole record), so that a record
    takes a few hundred bytes; and only so many, so that memory stays flat."""

    KEPT = 4096  # records

    def __init__(self, work: Work) -> None:
        self.work = work  # held, so that a later audit's Work is never mistaken for it
        self.results: dict[tuple[str, bytes], tuple[Summary, int] | None] = {}

    def findings(self, line: bytes, value, name: str) -> tuple[Summary, int] | None:
        key = (name, hashlib.sha256(line).digest())
        if key in self.results:
            return self.results[key]
        if len(self.results) >= self.KEPT:
            self.results.clear()
        found = self.results[key] = _findings(line, value, name, self.work)
        return found


_repeats: _Repeats | None = None


def _seen(work: Work) -> _Repeats:
    """The repeats of ``work``'s audit: each Work (an audit, a worker's, a cluster task's) starts afresh."""
    global _repeats
    if _repeats is None or _repeats.work is not work:
        _repeats = _Repeats(work)
    return _repeats


def _holding(value, name: str, work: Work) -> set[str]:
    """The top-level fields of a record that hold a prompt, for a log read without --field whose records hold none."""
    if work.keys or not isinstance(value, dict):
        return set()
    found = set()
    for key, item in value.items():
        item = _at(item, [])
        if isinstance(item, (dict, list)):
            doc = documents.parse(json.dumps(item, ensure_ascii=False).encode("utf-8"), name, FILE_TYPES["json"], work.config.lexicon)
            if doc.prompts:
                found.add(key)
    return found


def _tally(batch: logs.Batch, work: Work) -> Tally:
    """Lint the records of a batch."""
    tally = Tally(work.examples, bytes=batch.size, lines={(batch.log, batch.part): batch.lines})
    log = tally.logs[batch.log] = LogTally()
    name = work.names[batch.log]
    repeats = _seen(work)
    for number, line in enumerate(batch.records, batch.first):
        if not line.strip():
            continue
        tally.records += 1
        value = _json(line)
        if value is CORRUPT:
            log.corrupt += 1
            log.first_corrupt = log.first_corrupt or (batch.part, number)
        findings = repeats.findings(line, value, name)
        if findings is None:
            tally.skipped += 1
            if not tally.prompts:
                log.fields |= _holding(value, name, work)
            continue
        tally.add(batch.log, batch.part, number, *findings)
    if batch.error:
        log.damage[batch.error] = ((batch.part, batch.first + len(batch.records)), batch.lost)
    log.records, log.prompts = tally.records, tally.prompts
    return tally


def audit_split(split: logs.Split, name: str, work: Work) -> Tally:
    """The tally of one split of a log, read at ``name`` (a path or a URL) and linted in this process."""
    total = Tally(work.examples)
    for batch in logs.batches(split, name, work.column):
        total.merge(_tally(batch, work))
    return total


_work: Work | None = None


def _start(work: Work) -> None:
    global _work
    _work = work


def _audit_batch(batch: logs.Batch) -> Tally:
    return _tally(batch, _work)


def audit(
    paths: list[str | Path],
    config: Config,
    *,
    field_path: str | None = None,
    jobs: int = 1,
    examples: int = 5,
    engine: str = "local",
    scheduler: str | None = None,
    progress: Callable[[int], None] | None = None,
    split_bytes: int = logs.SPLIT_BYTES,
) -> Tally:
    """Tally the findings of every record of the logs; ``progress`` is told the bytes of each part done.

    Each log is read in splits of about ``split_bytes`` (logs.splits). The local
    engine reads them here and sends batches of records to ``jobs`` processes; the
    dask engine sends each split to a worker of the cluster at ``scheduler`` (or of a
    local cluster of ``jobs`` workers). Both give the same tally, whatever the size
    of the splits. A log is a path or a URL (logs.partitions); a log that cannot be
    opened raises OSError, and a reader that is not installed logs.MissingExtra,
    before any record is read.
    """
    names = [str(path) for path in paths]
    sizes = [logs.size_of(name) for name in names]
    size = sum(sizes)
    logs.require_readers(names)
    splits = [split for log, name in enumerate(names) for split in logs.splits(log, name, sizes[log], split_bytes)]
    work = Work(config, [logs.shown(name) for name in names], field_path.split(".") if field_path else [], examples)
    if engine == "dask":
        from . import cluster

        parts = cluster.tallies(work, names, splits, jobs, scheduler)
    else:
        jobs = max(1, min(jobs, size // parallel.WORK_PER_WORKER))
        batches = (batch for split in splits for batch in logs.batches(split, names[split.log], work.column))
        parts = parallel.ordered_map(_audit_batch, batches, jobs, _start, (work,))
    total = Tally(examples)
    for part in parts:
        total.merge(part)
        if progress is not None:
            progress(part.bytes)
    return total
