"""The records of request logs, read as streams: JSONL (plain, gzip or zstandard) and Parquet.

A log is one file, a *partition* of what may be a folder of thousands. A folder
stands for the partitions in it (recursively), a glob for the files it matches;
either is sorted by path, so the same logs are always numbered the same way.

Each log is read in batches of records, each record a JSON text as a JSONL line
is: a Parquet row becomes the JSON object of its columns (of only the ``column``
asked for, when there is one; a string in that column that holds a JSON object or
array is decoded, so a column of JSON-encoded requests reads as a struct column
does). A record is numbered by its line, or its row, from 1. A log that breaks off
(a truncated or corrupt compressed stream, a damaged Parquet file) ends with a
batch that says why, after the records read before the damage.

Gzip is in the standard library; zstandard and Parquet need optional packages,
which ``require_readers`` checks before any work starts.
"""

from __future__ import annotations

import errno
import glob
import importlib
import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

# A batch of records goes to a worker at a time: large enough that its round trip is
# cheap, small enough that the few batches in flight keep memory small.
BATCH_BYTES = 1 << 18
BATCH_LINES = 2000
CHUNK_BYTES = 1 << 16  # of a compressed stream, read at a time

JSONL_SUFFIXES = (".jsonl", ".ndjson")
COMPRESSED = (".gz", ".zst")
PARQUET = ".parquet"
# The logs whose reader is an optional package: suffix -> the module, the extra that installs it, what it is for.
NEEDS = {".zst": ("zstandard", "zstd", "reading .zst logs"), PARQUET: ("pyarrow", "parquet", "reading Parquet logs")}


class MissingExtra(Exception):
    """An optional package is not installed; the message says what to install."""


def require(module: str, extra: str, purpose: str):
    """The module, imported; or MissingExtra naming the extra that brings it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(f"{purpose} needs the {module} package: pip install 'promptlint[{extra}]'") from None


def require_readers(paths: list[Path]) -> None:
    """MissingExtra if reading any of the logs needs a package that is not installed."""
    for suffix in sorted({path.suffix.lower() for path in paths} & NEEDS.keys()):
        require(*NEEDS[suffix])


def _is_partition(path: Path) -> bool:
    """Whether a file found in a folder is a log: JSONL (compressed or not) or Parquet, not hidden nor a marker (_SUCCESS)."""
    name = path.name.lower()
    if name.startswith((".", "_")):
        return False
    stem = name.removesuffix(path.suffix.lower()) if path.suffix.lower() in COMPRESSED else name
    return stem.endswith(JSONL_SUFFIXES) or name.endswith(PARQUET)


def _walk(folder: Path) -> list[Path]:
    found = sorted(path for path in folder.rglob("*") if path.is_file() and _is_partition(path))
    if not found:
        raise FileNotFoundError(errno.ENOENT, "no JSONL or Parquet log in this folder", str(folder))
    return found


def partitions(arguments: list[Path]) -> list[Path]:
    """The log files the arguments name, in their order: a file as it is, a folder or a glob by its logs, sorted.

    A folder or glob with no log in it raises FileNotFoundError naming it.
    """
    found: list[Path] = []
    for argument in arguments:
        if argument.is_dir():
            found += _walk(argument)
        elif not argument.exists() and glob.has_magic(str(argument)):
            matches = sorted(Path(match) for match in glob.glob(str(argument), recursive=True))
            if not matches:
                raise FileNotFoundError(errno.ENOENT, "no log matches this pattern", str(argument))
            for match in matches:
                found += _walk(match) if match.is_dir() else [match]
        else:
            found.append(argument)
    return found


class Batch(NamedTuple):
    log: int  # the log's index in the list of logs
    first: int  # the line (or row) of its first record, from 1
    records: list[bytes]  # each a JSON text, as a JSONL line
    size: int  # the bytes of the log file it stands for: a log's batches add up to its size
    error: str = ""  # why the log could not be read past these records


def _broken(exc: BaseException) -> str:
    return f"corrupt log, not read past here: {exc}"


def _zstd(raw: BinaryIO, zstandard) -> Iterator[bytes]:
    """The decompressed bytes of a zstandard stream, a frame after another, each frame's whole content before any error in the next.

    A stream cut inside a frame raises EOFError, after what the frame gave.
    """
    rest, frame = b"", None
    while chunk := rest or raw.read(CHUNK_BYTES):
        frame = frame or zstandard.ZstdDecompressor().decompressobj()
        yield frame.decompress(chunk)
        rest, frame = (frame.unused_data, None) if frame.eof else (b"", frame)
    if frame is not None:
        raise EOFError("the stream ends inside a zstandard frame")


def _lines(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """The lines of a stream given in chunks, each with its end of line (but perhaps the last)."""
    pending = b""
    for chunk in chunks:
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        yield from (line + b"\n" for line in lines)
    if pending:
        yield pending


def _jsonl(log: int, path: Path) -> Iterator[Batch]:
    size = os.path.getsize(path)
    suffix = path.suffix.lower()
    errors: tuple[type[BaseException], ...] = (OSError, EOFError, ValueError, zlib.error)
    with open(path, "rb") as raw:
        if suffix == ".gz":
            import gzip

            stream = gzip.GzipFile(fileobj=raw)
        elif suffix == ".zst":
            zstandard = require(*NEEDS[".zst"])
            errors += (zstandard.ZstdError,)
            stream = _lines(_zstd(raw, zstandard))
        else:
            stream = raw
        records: list[bytes] = []
        first, length, done = 1, 0, 0  # done: the bytes of the file the batches so far stand for
        try:
            for number, line in enumerate(stream, 1):
                records.append(line)
                length += len(line)
                if length >= BATCH_BYTES or len(records) >= BATCH_LINES:
                    position = raw.tell()
                    yield Batch(log, first, records, position - done)
                    records, first, length, done = [], number + 1, 0, position
        except errors as exc:
            yield Batch(log, first, records, size - done, _broken(exc))
            return
        yield Batch(log, first, records, size - done)


def _present(value):
    """The value without its nulls: in a struct column, a record without a field has it null (a chat request's ``prompt``)."""
    if isinstance(value, dict):
        return {key: _present(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_present(item) for item in value]
    return value


def _record(row: dict, column: str | None) -> bytes:
    row = _present(row)
    value = row.get(column) if column else None
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            row[column] = json.loads(value)
        except ValueError:
            return value.encode("utf-8")  # a broken request, which the parser reports
    # Dates, decimals and binary values are not JSON: they are written as text.
    return json.dumps(row, ensure_ascii=False, default=str).encode("utf-8")


def _parquet(log: int, path: Path, column: str | None) -> Iterator[Batch]:
    pyarrow = require(*NEEDS[PARQUET])
    import pyarrow.parquet

    size = os.path.getsize(path)
    rows, done = 0, 0
    try:
        table = pyarrow.parquet.ParquetFile(path)
        total = table.metadata.num_rows
        # Rows as large as the JSONL lines of a batch, about, from the uncompressed size of the row groups.
        per_row = sum(table.metadata.row_group(i).total_byte_size for i in range(table.num_row_groups)) // max(total, 1)
        batch_rows = max(1, min(BATCH_LINES, BATCH_BYTES // max(per_row, 1)))
        # A log without the column has records without the field, which are skipped.
        columns = None if column is None else [column] if column in table.schema_arrow.names else []
        for batch in table.iter_batches(batch_size=batch_rows, columns=columns):
            records = [_record(row, column) for row in batch.to_pylist()]
            first, rows = rows + 1, rows + len(records)
            position = size * rows // total
            yield Batch(log, first, records, position - done)
            done = position
    except (pyarrow.ArrowException, OSError) as exc:
        yield Batch(log, rows + 1, [], size - done, _broken(exc))
        return
    if done < size:
        yield Batch(log, rows + 1, [], size - done)


def batches(log: int, path: Path, column: str | None) -> Iterator[Batch]:
    """The records of one log, in batches; ``column`` is the Parquet column that holds the request, if one does."""
    if path.suffix.lower() == PARQUET:
        return _parquet(log, path, column)
    return _jsonl(log, path)
