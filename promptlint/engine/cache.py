"""The results cache: the findings of a file that has not changed since it was last checked.

A result holds for the same bytes, checked with the same settings by the same
promptlint, so its key hashes the three: the file's content, a stable
serialisation of the config used for that file, and promptlint's version. An
entry is found by the file's path and stores its key: a changed file, config or
version hashes to another key, which is a miss, and the new result replaces the
entry, so the folder holds one entry per file however often files change.

Entries are JSON, not pickle: the folder sits in the working tree, where anyone
(a cloned repository) can put files, and unpickling one would run its code. An
entry is written whole or not at all (a temporary file, then a rename); one that
cannot be read or does not hold what an entry holds is a miss, never an error.
The cache is an optimisation: a folder that cannot be written is simply not
used, and deleting it is always safe.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path

from .. import DISTRIBUTION
from ..model.findings import Applicability, Edit, Finding, Fix, Severity
from ..model.prompt import Span
from .config import Config
from ..model.rule import Rule

FOLDER = ".promptlint_cache"
# Bumped when an entry's layout changes, so that old entries are misses.
# 3: a fix shared by several findings is stored once, in the entry's "fixes".
# 4: the notes of what the file holds and no reader reads, in "unread".
# 5: each finding's cause (Finding.cause).
FORMAT = 5

_INTS = ("start", "end", "severity", "tokens", "line", "column", "end_line", "end_column")
_STRINGS = ("code", "name", "message", "context", "cause")


class CorruptEntry(ValueError):
    """An entry that does not hold a result; the cache treats it as a miss."""


def _stable(value):
    """A JSON value that is the same for equal settings, whatever their types and order."""
    if isinstance(value, Rule):
        return value.code  # its options are in Config.options
    if isinstance(value, dict):
        return {str(k): _stable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_stable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_stable(v) for v in value)
    if value is None or isinstance(value, (str, int, float)):
        return value
    return str(value)  # a date, a path


def config_text(config: Config) -> str:
    """Every field of the config, so that a setting added to it later also tells configs apart."""
    fields = {field.name: _stable(getattr(config, field.name)) for field in dataclasses.fields(config)}
    return json.dumps(fields, sort_keys=True, ensure_ascii=False)


@functools.cache
def _version() -> str:
    from importlib.metadata import version  # a slow import (it loads the email package): only when a key is made

    return version(DISTRIBUTION)


def _encode_fix(fix: Fix, regions: tuple[tuple[int, int, int, int], ...]) -> dict:
    return {
        "applicability": int(fix.applicability),
        "description": fix.description,
        "edits": [[e.span.start, e.span.end, e.replacement] for e in fix.edits],
        "regions": [list(region) for region in regions],
    }


def _encode(findings: list[Finding]) -> tuple[list[dict], list[dict]]:
    """The findings and their fixes: a fix shared by several findings is stored once, and each names it by index."""
    fixes: list[dict] = []
    index: dict[tuple[int, int], int] = {}
    records = []
    for finding in findings:
        fix = None
        if finding.fix is not None:
            shared = (id(finding.fix), id(finding.fix_regions))
            if shared not in index:
                index[shared] = len(fixes)
                fixes.append(_encode_fix(finding.fix, finding.fix_regions))
            fix = index[shared]
        records.append(
            {
                "code": finding.code,
                "name": finding.name,
                "message": finding.message,
                "start": finding.span.start,
                "end": finding.span.end,
                "severity": int(finding.severity),
                "tokens": finding.tokens,
                "context": finding.context,
                "cause": finding.cause,
                "line": finding.line,
                "column": finding.column,
                "end_line": finding.end_line,
                "end_column": finding.end_column,
                "fix": fix,
            }
        )
    return records, fixes


def _decode_fix(record: dict) -> tuple[Fix, tuple[tuple[int, int, int, int], ...]]:
    edits = []
    for start, end, replacement in record["edits"]:
        if type(start) is not int or type(end) is not int or type(replacement) is not str:
            raise CorruptEntry("an edit field has the wrong type")
        edits.append(Edit(Span(start, end), replacement))
    if type(record["description"]) is not str:
        raise CorruptEntry("a fix description is not a string")
    regions = tuple(tuple(region) for region in record["regions"])
    if not all(len(region) == 4 and all(type(n) is int for n in region) for region in regions):
        raise CorruptEntry("a fix region has the wrong shape")
    return Fix(Applicability(record["applicability"]), tuple(edits), record["description"]), regions


def _decode(record: dict, path: str, fixes: list[tuple[Fix, tuple]]) -> Finding:
    if any(type(record[k]) is not int for k in _INTS) or any(type(record[k]) is not str for k in _STRINGS):
        raise CorruptEntry("a finding field has the wrong type")
    fix, regions = None, ()
    if record["fix"] is not None:
        if type(record["fix"]) is not int or not 0 <= record["fix"] < len(fixes):
            raise CorruptEntry("a finding's fix is not the index of one of the entry's fixes")
        # Findings that shared a fix share it again: one object, as the linter made it.
        fix, regions = fixes[record["fix"]]
    return Finding(
        code=record["code"],
        name=record["name"],
        message=record["message"],
        span=Span(record["start"], record["end"]),
        severity=Severity(record["severity"]),
        tokens=record["tokens"],
        fix=fix,
        path=path,
        context=record["context"],
        line=record["line"],
        column=record["column"],
        end_line=record["end_line"],
        end_column=record["end_column"],
        fix_regions=regions,
        cause=record["cause"],
    )


def _digest_now(path: str) -> str | None:
    """A digest of the file's bytes now; "" when it is absent, None when it cannot be read."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except FileNotFoundError:
        return ""
    except OSError:
        return None


@dataclasses.dataclass(frozen=True)
class Cache:
    folder: Path
    # Config id -> (the config, held so that its id is not reused; its text): each config is serialised once.
    _configs: dict[int, tuple[Config, str]] = dataclasses.field(default_factory=dict, compare=False, repr=False)
    # Included file -> its digest now: a partial that many templates include is read once a run.
    _digests: dict[str, str | None] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    def key(self, data: bytes, config: Config) -> str:
        """What a result depends on: the file's bytes, the config used for it, and promptlint's version."""
        if id(config) not in self._configs:
            self._configs[id(config)] = (config, config_text(config))
        settings = self._configs[id(config)][1]
        digest = hashlib.sha256(f"{FORMAT}\0{_version()}\0{settings}\0".encode("utf-8"))
        digest.update(data)
        return digest.hexdigest()

    def _unchanged(self, path: str, digest: str) -> bool:
        """Whether an included file is as it was: the same bytes, or still absent (digest "")."""
        if path not in self._digests:
            self._digests[path] = _digest_now(path)
        return self._digests[path] == digest

    def _entry(self, path: str) -> Path:
        return self.folder / "entries" / f"{hashlib.sha256(path.encode('utf-8')).hexdigest()[:32]}.json"

    def get(self, path: str, key: str) -> tuple[list[Finding], tuple[str, ...]] | None:
        """The findings and notes (Document.unread) stored for ``path`` under ``key``, or None
        (no entry, another key, or a corrupt one)."""
        try:
            entry = json.loads(self._entry(path).read_bytes())
            if entry["path"] != path or entry["key"] != key or not all(self._unchanged(*item) for item in entry.get("depends", {}).items()):
                return None
            fixes = [_decode_fix(record) for record in entry["fixes"]]
            return [_decode(record, path, fixes) for record in entry["findings"]], tuple(str(note) for note in entry["unread"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None

    def put(self, path: str, key: str, findings: list[Finding], depends: dict[str, str] | None = None, unread: tuple[str, ...] = ()) -> None:
        """Store the findings of ``path`` under ``key``; a folder that cannot be written is left alone.

        ``depends`` names the other files the findings come from (included templates), each
        with a digest of its bytes ("" for one looked for and not found): the entry holds
        only while they are unchanged.
        """
        records, fixes = _encode(findings)
        entry = {"path": path, "key": key, "depends": depends or {}, "findings": records, "fixes": fixes, "unread": list(unread)}
        try:
            self._write(self._entry(path), json.dumps(entry, ensure_ascii=False).encode("utf-8"))
        except OSError:
            pass

    def _write(self, target: Path, data: bytes) -> None:
        if not target.parent.is_dir():
            target.parent.mkdir(parents=True, exist_ok=True)
            # The cache is local state: keep it out of version control, and out of backups that honour the tag.
            (self.folder / ".gitignore").write_text("*\n", encoding="utf-8")
            (self.folder / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n# promptlint's results cache; safe to delete.\n", encoding="utf-8")
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temp, target)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
