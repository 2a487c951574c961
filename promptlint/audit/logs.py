"""The records of request logs, read as streams: JSONL (plain, gzip or zstandard) and Parquet.

A log is one file, a *partition* of what may be a folder of thousands. A folder
stands for the partitions in it (recursively), a glob for the files it matches;
either is sorted by path, so the same logs are always numbered the same way.

A large log is read in *splits*, each a task of its own, by its bytes: a split
[start, end) of a plain JSONL log holds the lines whose first byte lies in it (a
line that crosses ``end`` is read whole by the split it starts in, and skipped by
the next: the rule of dask.bag.read_text and fsspec's read_block, streamed here in
batches rather than read as a block), and one of a Parquet log the rows that lie
in it, each row placed in its row group's bytes in proportion (``_rows``).
So every record is in exactly one split whatever their size, and only the size of
the log is needed to plan them. A compressed log is one split: a gzip or zstandard
stream cannot be entered midway.

Each log is read in batches of records, each record a JSON text as a JSONL line
is: a Parquet row becomes the JSON object of its columns (of only the ``column``
asked for, when there is one; a string in that column that holds a JSON object or
array is decoded, so a column of JSON-encoded requests reads as a struct column
does). A record is numbered by its line, or its row, from 1, in its split: a split
cannot know how many lines come before it without reading them, so each batch
counts the lines it stands for and the audit adds the counts of the earlier
splits. A log that breaks off (a truncated or corrupt compressed stream, a damaged
Parquet footer) ends with a batch that says why and what is lost, after the
records read before the damage; a damaged Parquet row group, likewise, ends only
that row group. No record past the damage is read: a compressed log is first
decompressed once without reading it, to find the members (frames) whose
checksums hold, since a damaged one decodes to garbage until its check fails.

Gzip is in the standard library; zstandard and Parquet need optional packages,
which ``require_readers`` checks before any work starts.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import importlib
import json
import os
import re
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO, NamedTuple
from urllib.parse import urlsplit, urlunsplit

from .. import DISTRIBUTION

# A batch of records goes to a worker at a time: large enough that its round trip is
# cheap, small enough that the few batches in flight keep memory small.
BATCH_BYTES = 1 << 18
BATCH_LINES = 2000
CHUNK_BYTES = 1 << 16  # of a compressed stream, read at a time
DECODED_BYTES = 1 << 22  # at most, decompressed from a chunk at a time
# A log is split into tasks of about this size. A core lints some 10 MB of logs a second,
# so a task takes seconds: its start (opening the log, reading a Parquet footer, the
# scheduler's round trip) is nothing beside that, and a log of a few hundred MB is still
# enough tasks to share evenly among a few workers.
SPLIT_BYTES = 32 << 20

JSONL_SUFFIXES = (".jsonl", ".ndjson")
COMPRESSED = (".gz", ".zst")
PARQUET = ".parquet"
# The logs whose reader is an optional package: suffix -> the module, the extra that installs it, what it is for.
NEEDS = {".zst": ("zstandard", "zstd", "reading .zst logs"), PARQUET: ("pyarrow", "parquet", "reading Parquet logs")}
URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
# The filesystems of logs named by URL, read through fsspec: scheme -> the package that implements it, the extra that installs both.
FILESYSTEMS = {
    "s3": ("s3fs", "s3"),
    "s3a": ("s3fs", "s3"),
    "gs": ("gcsfs", "gcs"),
    "gcs": ("gcsfs", "gcs"),
    "az": ("adlfs", "azure"),
    "abfs": ("adlfs", "azure"),
    "abfss": ("adlfs", "azure"),
    "hdfs": ("pyarrow", "hdfs"),
    "http": ("aiohttp", "http"),
    "https": ("aiohttp", "http"),
}


class MissingExtra(Exception):
    """An optional package is not installed; the message says what to install."""


def require(module: str, extra: str, purpose: str):
    """The module, imported; or MissingExtra naming the extra that brings it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(f"{purpose} needs the {module} package: pip install '{DISTRIBUTION}[{extra}]'") from None


def said(exc: BaseException) -> str:
    """What an error says, on one line: a library's message may hold several, and each problem is one line on standard error."""
    return " ".join(str(exc).split())


def suffix(name: str) -> str:
    """A log's suffix, lower case, which says its format: that of a URL's path."""
    return PurePosixPath(urlsplit(name).path if is_url(name) else name).suffix.lower()


def require_readers(names: list[str]) -> None:
    """MissingExtra if reading any of the logs needs a package that is not installed."""
    for needed in sorted({suffix(name) for name in names} & NEEDS.keys()):
        require(*NEEDS[needed])


def is_url(name: str) -> bool:
    """Whether a log is named by a URL (s3://bucket/key), read through fsspec, rather than a path."""
    return URL.match(name) is not None


def shown(name: str) -> str:
    """A log's name as a report or an error shows it: a URL without the password or the query string (a signed URL's token) it may hold."""
    if not is_url(name):
        return name
    parts = urlsplit(name)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _filesystem(url: str):
    """The fsspec filesystem of a URL, and the path in it; MissingExtra when its package is not installed."""
    scheme = url.split("://", 1)[0].lower()
    module, extra = FILESYSTEMS.get(scheme, ("fsspec", "fsspec"))
    fsspec = require("fsspec", extra, f"reading {scheme}:// logs")
    require(module, extra, f"reading {scheme}:// logs")
    with _reading(url):
        return fsspec.core.url_to_fs(url)


@contextlib.contextmanager
def _reading(url: str) -> Iterator[None]:
    """Whatever a filesystem raises (its own errors, a credential refused) as an OSError naming the log."""
    try:
        yield
    except MissingExtra:
        raise
    except FileNotFoundError as exc:
        raise FileNotFoundError(errno.ENOENT, exc.strerror or os.strerror(errno.ENOENT), shown(url)) from None
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or said(exc), shown(url)) from None
    except Exception as exc:  # a filesystem package's own errors: no credential, an unknown protocol
        raise OSError(errno.EIO, f"{type(exc).__name__}: {said(exc)}", shown(url)) from None


def _remote(url: str) -> list[str]:
    """The logs a URL names: a file as it is, a glob by its matches, a folder (a prefix) by its logs, sorted."""
    fs, path = _filesystem(url)
    with _reading(url):
        if glob.has_magic(path) and not fs.exists(path):
            matches = sorted(fs.glob(path))
            if not matches:
                raise FileNotFoundError(errno.ENOENT, "no log matches this pattern", url)
            files = [found for match in matches for found in (_find(fs, match, url) if fs.isdir(match) else [match])]
        elif fs.isdir(path):
            files = _find(fs, path, url)
        else:
            return [url]
    return [fs.unstrip_protocol(file) for file in files]


def _find(fs, folder: str, url: str) -> list[str]:
    found = sorted(path for path in fs.find(folder) if _is_partition(PurePosixPath(path)))
    if not found:
        raise FileNotFoundError(errno.ENOENT, "no JSONL or Parquet log under this prefix", url)
    return found


def open_log(name: str) -> BinaryIO:
    """A log's bytes, from a path or a URL."""
    if not is_url(name):
        return open(name, "rb")
    fs, path = _filesystem(name)
    with _reading(name):
        return fs.open(path, "rb")


def size_of(name: str) -> int:
    """A log's size in bytes; OSError naming it when it cannot be opened."""
    with open_log(name) as handle:
        return _size(handle)


def _size(handle: BinaryIO) -> int:
    remote = getattr(handle, "size", None)  # an fsspec file's
    return remote if isinstance(remote, int) else os.fstat(handle.fileno()).st_size


def _is_partition(path: PurePosixPath | Path) -> bool:
    """Whether a file found in a folder is a log: JSONL (compressed or not) or Parquet, not hidden nor a marker (_SUCCESS)."""
    name = path.name.lower()
    if name.startswith((".", "_")):
        return False
    stem = name.removesuffix(path.suffix.lower()) if path.suffix.lower() in COMPRESSED else name
    return stem.endswith(JSONL_SUFFIXES) or name.endswith(PARQUET)


def _walk(folder: Path) -> list[str]:
    found = sorted(path for path in folder.rglob("*") if path.is_file() and _is_partition(path))
    if not found:
        raise FileNotFoundError(errno.ENOENT, "no JSONL or Parquet log in this folder", str(folder))
    return [str(path) for path in found]


def partitions(arguments: list[str]) -> list[str]:
    """The logs the arguments name, in their order: a file as it is, a folder or a glob by its logs, sorted; a URL alike.

    A folder or glob with no log in it raises FileNotFoundError naming it.
    """
    found: list[str] = []
    for argument in map(str, arguments):
        path = Path(argument)
        if is_url(argument):
            found += _remote(argument)
        elif path.is_dir():
            found += _walk(path)
        elif not path.exists() and glob.has_magic(argument):
            matches = sorted(Path(match) for match in glob.glob(argument, recursive=True))
            if not matches:
                raise FileNotFoundError(errno.ENOENT, "no log matches this pattern", argument)
            for match in matches:
                found += _walk(match) if match.is_dir() else [str(match)]
        else:
            found.append(argument)
    return found


class Split(NamedTuple):
    """A part of a log that one task reads: the records that start in its bytes [start, end)."""

    log: int  # the log's index in the list of logs
    part: int  # its place among the splits of the log, from 0
    start: int
    end: int


def splits(log: int, name: str, size: int, split_bytes: int = SPLIT_BYTES) -> list[Split]:
    """The splits of a log of ``size`` bytes, of about ``split_bytes`` each; a compressed log is one."""
    count = 1 if suffix(str(name)) in COMPRESSED else max(1, -(-size // split_bytes))
    cuts = [size * k // count for k in range(count + 1)]
    return [Split(log, part, start, end) for part, (start, end) in enumerate(zip(cuts, cuts[1:]))]


class Batch(NamedTuple):
    log: int  # the log's index in the list of logs
    part: int  # the split's place in the log
    first: int  # the line (or row) of its first record in the split, from 1
    records: list[bytes]  # each a JSON text, as a JSONL line
    size: int  # the bytes of the log file it stands for: a split's batches add up to its size
    lines: int  # the lines (or rows) of the split it stands for: a split's batches add up to its count
    error: str = ""  # the damage after these records: why the log (or row group) is not read on, and what is lost
    lost: int = 0  # the rows of a damaged row group lost in this split (a JSONL log's error says what it lost)


def _gunzip(raw: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """The decompressed bytes of a gzip stream, each with True once its member's end and checksum are read.

    zlib rather than the gzip module: it tells where each member ends, so that the
    members before a damaged one are known sound. A stream cut inside a member
    raises EOFError, after what the member gave; a damaged one zlib.error.
    """
    rest, member = b"", None
    while chunk := rest or raw.read(CHUNK_BYTES):
        rest = b""
        if member is None:
            if not chunk.strip(b"\0"):
                continue  # the zeros gzip allows after the last member
            member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        while chunk:
            # A bounded output a step: a chunk of a very compressible log may stand for much more.
            yield member.decompress(chunk, DECODED_BYTES), False
            chunk = member.unconsumed_tail
        if member.eof:
            yield b"", True
            rest, member = member.unused_data, None
    if member is not None:
        raise EOFError("the gzip stream ends inside a member (a truncated file?)")


def _unzstd(raw: BinaryIO, zstandard) -> Iterator[tuple[bytes, bool]]:
    """The decompressed bytes of a zstandard stream, each with True once its frame's end is read.

    A stream cut inside a frame raises EOFError, after what the frame gave.
    """
    rest, frame = b"", None
    while chunk := rest or raw.read(CHUNK_BYTES):
        frame = frame or zstandard.ZstdDecompressor().decompressobj()
        data = frame.decompress(chunk)
        rest, frame = (frame.unused_data, None) if frame.eof else (b"", frame)
        yield data, frame is None
    if frame is not None:
        raise EOFError("the zstandard stream ends inside a frame (a truncated file?)")


def _decoder(suffix: str) -> tuple[Callable[[BinaryIO], Iterator[tuple[bytes, bool]]], tuple[type[BaseException], ...]]:
    """The decompressor of a compressed log, and the errors that say its data is damaged."""
    if suffix == ".gz":
        return _gunzip, (zlib.error,)
    zstandard = require(*NEEDS[".zst"])
    return (lambda raw: _unzstd(raw, zstandard)), (zstandard.ZstdError,)


def _sound(raw: BinaryIO, suffix: str) -> tuple[int, str]:
    """How many decompressed bytes of a compressed log can be trusted, and why no more ('' when all can).

    A damaged member (frame) decodes to garbage up to the point where its checksum
    (or its coding) fails, so nothing of it is trusted: only the members before it.
    A cut one is only short: what it decoded before the cut is the log's.
    """
    decode, damaged = _decoder(suffix)
    whole = total = 0
    try:
        for data, ends in decode(raw):
            total += len(data)
            whole = total if ends else whole
    except EOFError as exc:
        return total, said(exc)
    except damaged as exc:
        return whole, f"corrupt compressed data ({said(exc)})"
    return total, ""


def _upto(chunks: Iterator[tuple[bytes, bool]], size: int) -> Iterator[bytes]:
    """The first ``size`` bytes of a decompressed stream."""
    # Stops before asking for more: the stream may fail just past them.
    if size <= 0:
        return
    for data, _ in chunks:
        yield data[:size]
        size -= len(data)
        if size <= 0:
            return


def _lines(chunks: Iterator[bytes], whole: bool = True) -> Iterator[bytes]:
    """The lines of a stream given in chunks, each with its end of line; the last one, which may have none, only if ``whole``."""
    pending = b""
    for chunk in chunks:
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        yield from (line + b"\n" for line in lines)
    if pending and whole:
        yield pending


def _starting(raw: BinaryIO, start: int, end: int | None) -> Iterator[bytes]:
    """The lines of a plain file that start in its bytes [start, end) (None: to its end), each whole."""
    position = start
    if start:
        # The line that holds byte start - 1 started before: skip it, up to its end of line,
        # a chunk at a time (a line of a broken log may be larger than the memory of a worker).
        raw.seek(start - 1)
        skipped = 0
        while chunk := raw.readline(CHUNK_BYTES):
            skipped += len(chunk)
            if chunk.endswith(b"\n"):
                break
        position += skipped - 1
    while (end is None or position < end) and (line := raw.readline()):
        yield line
        position += len(line)


def _jsonl(split: Split, name: str) -> Iterator[Batch]:
    log, part, size = split.log, split.part, split.end - split.start
    kind = suffix(name)
    damage = ""
    with open_log(name) as raw:
        if kind in COMPRESSED:
            # A first pass finds where the log can be trusted up to: decompressing is
            # cheap beside linting, and no line past the damage is read as a record.
            sound, damage = _sound(raw, kind)
            raw.seek(0)
            stream = _lines(_upto(_decoder(kind)[0](raw), sound), whole=not damage)
        else:
            # The last split reads to the end, as far as it goes: a pipe's size is 0 until it is read.
            last = split.end >= _size(raw)
            stream = _starting(raw, split.start, None if last else split.end)
        records: list[bytes] = []
        first, length, read, done = 1, 0, 0, 0  # read: the bytes of the lines; done: of the split, the batches so far stand for
        try:
            for number, line in enumerate(stream, 1):
                records.append(line)
                length += len(line)
                read += len(line)
                if length >= BATCH_BYTES or len(records) >= BATCH_LINES:
                    # A compressed stream's place in its file; a plain file's by its lines (a pipe cannot tell), which may run past the split.
                    position = min(raw.tell() if kind in COMPRESSED else read, size)
                    yield Batch(log, part, first, records, position - done, len(records))
                    records, first, length, done = [], number + 1, 0, position
        except OSError as exc:
            damage = f"cannot read ({exc.strerror or said(exc)})"
        read = first - 1 + len(records)
        yield Batch(log, part, first, records, size - done, len(records), damage and f"{damage}: not read past line {read:,}, the rest is lost")


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


def _chunk_start(chunk) -> int:
    """Where a column chunk begins in its file: its first page, a dictionary's or data."""
    return chunk.dictionary_page_offset if chunk.has_dictionary_page and chunk.dictionary_page_offset else chunk.data_page_offset


def _group_start(group) -> int:
    """Where a row group begins in its file: its first page."""
    return min(map(_chunk_start, map(group.column, range(group.num_columns))))


def _parquet(split: Split, name: str, column: str | None) -> Iterator[Batch]:
    with open_log(name) as raw:
        yield from _row_groups(split, raw, column)


def _extent(group) -> tuple[int, int]:
    """The bytes of a row group in its file: from its first page to the end of its last column chunk."""
    chunks = [group.column(i) for i in range(group.num_columns)]
    start = _group_start(group)
    return start, max((_chunk_start(chunk) + chunk.total_compressed_size for chunk in chunks), default=start)


def _rows(group, split: Split) -> range:
    """The rows of a row group that a split reads.

    Row r of a group of n rows over bytes [start, end) lies at byte
    start + (end - start) * r // n, and a split reads the rows that lie in its bytes:
    a large row group (pyarrow writes one up to a million rows) is shared among
    workers too, each decoding the group but linting only its rows, which is the work.
    """
    start, end = _extent(group)
    count, length = group.num_rows, end - start

    def first_at(byte: int) -> int:  # the first row that lies at or past the byte
        if byte <= start:
            return 0
        return count if length == 0 else min(count, -(-(byte - start) * count // length))

    return range(first_at(split.start), first_at(split.end))


def _sliced(table, group: int, rows: range, batch_rows: int, columns) -> Iterator:
    """The record batches of the rows of a row group, read from its start (a group cannot be entered midway)."""
    seen = 0
    for batch in table.iter_batches(batch_size=batch_rows, row_groups=[group], columns=columns):
        begin, seen = max(rows.start - seen, 0), seen + batch.num_rows
        if seen > rows.start:
            yield batch.slice(begin, min(seen, rows.stop) - (seen - batch.num_rows) - begin)
        if seen >= rows.stop:
            return


def _row_groups(split: Split, raw: BinaryIO, column: str | None) -> Iterator[Batch]:
    pyarrow = require(*NEEDS[PARQUET])
    import pyarrow.parquet

    log, part, size = split.log, split.part, split.end - split.start
    try:
        table = pyarrow.parquet.ParquetFile(raw)
        metadata = table.metadata
        groups = [metadata.row_group(i) for i in range(metadata.num_row_groups)]
        mine = [(i, rows) for i, group in enumerate(groups) if (rows := _rows(group, split))]
    except (pyarrow.ArrowException, OSError) as exc:
        # Every split of the log fails alike: the first one says so.
        yield Batch(log, part, 1, [], size, 0, f"not a readable Parquet file ({said(exc)}): nothing read" if part == 0 else "")
        return
    total = sum(len(rows) for _, rows in mine)
    # Rows as large as the JSONL lines of a batch, about, from the uncompressed size of the row groups.
    per_row = sum(groups[i].total_byte_size * len(rows) // groups[i].num_rows for i, rows in mine) // max(total, 1)
    batch_rows = max(1, min(BATCH_LINES, BATCH_BYTES // max(per_row, 1)))
    # A log without the column has records without the field, which are skipped.
    columns = None if column is None else [column] if column in table.schema_arrow.names else []
    done = 0  # the rows of the split read (or given up), and the bytes they stand for
    for i, rows in mine:
        read = 0
        try:
            for batch in _sliced(table, i, rows, batch_rows, columns):
                records = [_record(row, column) for row in batch.to_pylist()]
                first, read = done + 1, read + len(records)
                yield Batch(log, part, first, records, size * (done + len(records)) // total - size * done // total, len(records))
                done += len(records)
        except (pyarrow.ArrowException, OSError) as exc:
            # The rest of the row group's rows are lost; the next row groups are read as usual.
            lost = len(rows) - read
            yield Batch(log, part, done + 1, [], size * (done + lost) // total - size * done // total, lost, f"row group {i + 1} of {len(groups)} is damaged ({said(exc)})", lost)
            done += lost
    if not total:
        yield Batch(log, part, 1, [], size, 0)


def batches(split: Split, name: str, column: str | None) -> Iterator[Batch]:
    """The records of one split of the log at ``name`` (a path or a URL), in batches; ``column`` is the Parquet column that holds the request, if one does."""
    name = str(name)
    if suffix(name) == PARQUET:
        return _parquet(split, name, column)
    return _jsonl(split, name)
