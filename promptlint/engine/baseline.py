"""Baselines: accept the findings a project has today, so that a check reports only new ones.

A finding is known by its file, its code and a fingerprint of the text it flags
and of the line that text is on, not by its line number: lines added above it do
not make it new. Identical findings are counted, so a file with three of them
needs three entries, and a fourth one is reported.

Pure functions: the CLI reads and writes the baseline file.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import PurePath

from ..model.findings import Finding

VERSION = 1

FIELDS = ("path", "code", "fingerprint")
Key = tuple[str, str, str]  # the FIELDS of an entry


class BaselineError(Exception):
    """The baseline file cannot be used; the message names it and says why, on one line."""


def digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:16]


def fingerprint(finding: Finding, source: str) -> str:
    """A hash of the code, the flagged text and its line (stripped), read from the file text ``source``.

    Line and column, not the span, locate the text: they are positions in the
    file for every format, while a span in a chat file is an offset into the
    joined messages.
    """
    lines, starts = _lines(source)

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1 if 0 < line <= len(lines) else len(source)

    flagged = source[offset(finding.line, finding.column) : offset(finding.end_line, finding.end_column)]
    around = lines[finding.line - 1].strip() if 0 < finding.line <= len(lines) else ""
    return digest(finding.code, flagged, around)


@lru_cache(maxsize=4)
def _lines(source: str) -> tuple[list[str], list[int]]:
    """The file's lines and where each starts: once per file, not once per finding."""
    lines = source.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    return lines, starts


def keys(findings: Sequence[Finding], source: str) -> list[Key]:
    """The keys of one file's findings, read from its text ``source``."""
    # Forward slashes, so that a baseline written on one system matches on another.
    return [(PurePath(f.path).as_posix(), f.code, fingerprint(f, source)) for f in findings]


def dumps(entries: Iterable[Key]) -> str:
    """The baseline file's text: one entry per finding's key, sorted so that it diffs well."""
    records = [dict(zip(FIELDS, key)) for key in sorted(entries)]
    return json.dumps({"version": VERSION, "findings": records}, indent=2, ensure_ascii=False) + "\n"


def loads(text: str, name: str) -> Counter[Key]:
    """How many findings of each key the baseline file ``name`` accepts."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{name}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("findings"), list):
        raise BaselineError(f'{name}: not a promptlint baseline (expected {{"version": {VERSION}, "findings": [...]}})')
    if data.get("version") != VERSION:
        raise BaselineError(f"{name}: unsupported baseline version {data.get('version')!r} (expected {VERSION})")
    known: Counter[Key] = Counter()
    for index, entry in enumerate(data["findings"]):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in FIELDS):
            raise BaselineError(f"{name}: findings[{index}] must have the strings path, code and fingerprint")
        known[tuple(entry[k] for k in FIELDS)] += 1
    return known


def new_findings(findings: Sequence[Finding], source: str, left: Counter[Key]) -> list[Finding]:
    """One file's findings that the baseline does not account for; each entry accounts for one finding.

    The entries used are taken out of ``left``, so that files checked one after the
    other share one count (copying the baseline for each file made it quadratic).
    """
    new = []
    for finding, key in zip(findings, keys(findings, source)):
        if left[key] > 0:
            left[key] -= 1
        else:
            new.append(finding)
    return new
