"""`promptlint audit` reads a large log in splits: every record once, numbered as in the whole log.

A plain JSONL log is split by its bytes (a split takes the lines that start in
it), a Parquet one by its row groups (those whose first page lies in it). The
report must not depend on the size of the splits: the same counts, and the same
worst records at the same lines, byte for byte. The dask engine's run of these
splits is in test_auditscale (it shares that module's cluster).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
from pathlib import Path

import pyarrow
import pyarrow.parquet
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_audit import log_lines
from test_auditscale import write_parquet

from promptlint.audit import logs
from promptlint.audit.run import audit
from promptlint.engine.config import build
from promptlint.output import auditreport

CONFIG = build({"today": "2026-12-02"}, "test")
# Split sizes (bytes): smaller than any line, about a line, a few lines; and the whole log.
SPLIT_SIZES = (7, 509, 4096)
WHOLE = 1 << 40


def awkward_lines() -> list[bytes]:
    """Lines of every length the generated log has (broken ones too), some ending in CRLF, blank lines, and a last line without its newline."""
    lines = []
    for number, line in enumerate(log_lines()[0][:150]):
        if number % 7 == 3:
            line = line.replace(b"\n", b"\r\n")
        if number % 31 == 5:
            lines.append(b"\n" if number % 2 else b"\r\n")
        lines.append(line)
    lines[-1] = lines[-1].rstrip(b"\n")
    return lines


def read(path: Path, split_bytes: int, column: str | None = None) -> list[tuple[int, bytes]]:
    """Each record the splits of the log give, numbered in the whole log by the line counts of the splits before it."""
    records = []
    before = 0  # the lines of the splits read so far
    for split in logs.splits(0, path, path.stat().st_size, split_bytes):
        counted = 0
        for batch in logs.batches(split, path, column):
            assert batch.part == split.part and not batch.error
            records += [(before + batch.first + k, record) for k, record in enumerate(batch.records)]
            counted += batch.lines
        before += counted
    return records


LINES = st.lists(
    st.tuples(st.text(alphabet="ab {}\"\r", max_size=12), st.sampled_from([b"\n", b"\r\n", b""])).map(lambda parts: parts[0].encode() + parts[1]),
    max_size=25,
)


@settings(max_examples=200, deadline=None)
@given(LINES, st.integers(1, 80))
def test_every_line_is_in_exactly_one_split_at_its_line_number(tmp_path_factory, pieces, split_bytes):
    data = b"".join(pieces)
    path = tmp_path_factory.mktemp("split") / "log.jsonl"
    path.write_bytes(data)
    expected = list(enumerate(io.BytesIO(data).readlines(), 1))  # lines end at \n only
    assert read(path, split_bytes) == expected
    splits = logs.splits(0, path, len(data), split_bytes)
    assert [(s.start, s.end) for s in splits] == list(zip([0, *(s.end for s in splits[:-1])], [s.end for s in splits]))
    assert splits[-1].end == len(data) and all(s.end - s.start <= split_bytes for s in splits)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 40), st.integers(1, 9), st.integers(1, 3000))
def test_every_parquet_row_is_in_exactly_one_split_at_its_row_number(tmp_path_factory, rows, group_rows, split_bytes):
    path = tmp_path_factory.mktemp("split") / "log.parquet"
    table = pyarrow.table({"prompt": ["x" * (n % 13) for n in range(rows)], "n": list(range(rows))})
    pyarrow.parquet.write_table(table, path, row_group_size=group_rows)
    assert [(number, json.loads(record)["n"]) for number, record in read(path, split_bytes)] == [(n + 1, n) for n in range(rows)]


def test_a_compressed_log_is_one_split(tmp_path):
    for name in ("log.jsonl.gz", "log.jsonl.zst"):
        assert logs.splits(3, tmp_path / name, 10**9, 1000) == [logs.Split(3, 0, 0, 10**9)]


def report(paths: list[Path], split_bytes: int, **engine) -> str:
    tally = audit(paths, CONFIG, examples=200, split_bytes=split_bytes, **engine)
    return auditreport.as_json(auditreport.as_data(tally, [str(p) for p in paths]))


@pytest.fixture(scope="module")
def awkward(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("awkward") / "awkward.jsonl"
    path.write_bytes(b"".join(awkward_lines()))
    return path


@pytest.fixture(scope="module")
def unsplit(awkward) -> str:
    return report([awkward], WHOLE, jobs=1)


def test_the_unsplit_report_names_each_record_by_its_line(awkward, unsplit):
    data = json.loads(unsplit)
    lines = io.BytesIO(awkward.read_bytes()).readlines()
    assert data["records"] == sum(bool(line.strip()) for line in lines)
    for rule in data["rules"]:
        for example in rule["worst"]:
            assert lines[example["line"] - 1].strip(), example  # a record, not a blank line
    broken = {(e["line"], e["message"]) for e in next(r for r in data["rules"] if r["code"] == "PL900")["worst"]}
    assert {line for line, _ in broken} == {n for n, line in enumerate(lines, 1) if line.startswith((b"not json", b'{"messages": "not', b"\xff", b'{"messages": [{"role": "user", "content": "cut'))}


@pytest.mark.parametrize("split_bytes", SPLIT_SIZES)
def test_a_split_jsonl_log_reports_byte_for_byte_as_the_whole(awkward, unsplit, split_bytes):
    assert len(logs.splits(0, awkward, awkward.stat().st_size, split_bytes)) > 10
    assert report([awkward], split_bytes, jobs=1) == unsplit


def test_the_local_engines_workers_take_the_splits_alike(awkward, unsplit):
    assert report([awkward], SPLIT_SIZES[1], jobs=2) == unsplit


def request_rows(lines: list[bytes]) -> list[dict]:
    """The lines as Parquet rows: each line, whatever it holds, as a string column the request is read from."""
    return [{"id": n, "request": line.decode("utf-8", "replace").strip()} for n, line in enumerate(lines)]


@pytest.fixture(scope="module")
def grouped(tmp_path_factory) -> Path:
    """The awkward log's lines as a Parquet log of many small row groups."""
    path = tmp_path_factory.mktemp("grouped") / "grouped.parquet"
    write_parquet(path, request_rows(awkward_lines()), row_group_size=11)
    return path


@pytest.mark.parametrize("split_bytes", (97, 2000))  # 97: many splits without a row group
def test_a_split_parquet_log_reports_byte_for_byte_as_the_whole(grouped, split_bytes):
    whole = audit([grouped], CONFIG, field_path="request", examples=200, split_bytes=WHOLE, jobs=1)
    split = audit([grouped], CONFIG, field_path="request", examples=200, split_bytes=split_bytes, jobs=1)
    assert sum(count > 0 for count in split.lines.values()) > 5  # the row groups went to several splits
    assert auditreport.as_json(auditreport.as_data(split, [str(grouped)])) == auditreport.as_json(auditreport.as_data(whole, [str(grouped)]))
    assert whole.records == len(awkward_lines())  # a blank line too is a row


def test_a_damaged_row_group_is_named_and_the_others_count(tmp_path):
    path = tmp_path / "damaged.parquet"
    rows = [{"prompt": f"Question {n}: how long does delivery take? " * 3} for n in range(60)]
    write_parquet(path, rows, row_group_size=20)
    data = bytearray(path.read_bytes())
    metadata = pyarrow.parquet.ParquetFile(path).metadata
    start = logs._group_start(metadata.row_group(1))
    data[start + 30 : start + 200] = b"\x55" * 170  # the second row group's pages
    path.write_bytes(bytes(data))
    tallies = {split_bytes: audit([path], CONFIG, examples=200, split_bytes=split_bytes, jobs=1) for split_bytes in (1, 300, WHOLE)}
    assert len({auditreport.as_json(auditreport.as_data(tally, [str(path)])) for tally in tallies.values()}) == 1
    found = auditreport.as_data(tallies[WHOLE], [str(path)])
    # Rows 1-20 and 41-60 are read; the second row group is named as lost, and counts as nothing.
    assert (found["records"], found["prompts"]) == (40, 40)
    assert "PL900" not in {rule["code"] for rule in found["rules"]}
    for tally in tallies.values():
        [problem] = auditreport.problems(tally, ["damaged.parquet"], None)
        assert problem.startswith("damaged.parquet: row group 2 of 3 is damaged (") and problem.endswith("): 20 rows lost"), problem


def test_a_log_from_a_pipe_is_read_to_its_end(tmp_path, awkward):
    """A pipe has no size to split by (`promptlint audit <(zcat log.gz)`): it is one split, read to its end."""
    data = (awkward.read_bytes() + b"\n") * 5  # more than a batch
    assert len(data) > logs.BATCH_BYTES
    (tmp_path / "copy.jsonl").write_bytes(data)
    reader, writer = os.pipe()

    def write() -> None:
        with open(writer, "wb") as pipe, contextlib.suppress(BrokenPipeError):  # a reader that stops early closes the pipe
            pipe.write(data)

    thread = threading.Thread(target=write)
    thread.start()
    try:
        piped = audit([Path(f"/dev/fd/{reader}")], CONFIG, examples=50, jobs=1, split_bytes=SPLIT_SIZES[0])
    finally:
        os.close(reader)
        thread.join()
    whole = audit([tmp_path / "copy.jsonl"], CONFIG, examples=50, jobs=1)
    assert auditreport.as_data(piped, ["log"]) == auditreport.as_data(whole, ["log"])
