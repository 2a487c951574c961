"""`promptlint audit` never hides damage: each damaged log is named on standard error with what was lost, the run exits 2, and the report holds what was read.

A compressed log is cut, or has bytes changed inside a member; a Parquet log has
no footer; a log has lines that are not JSON; a log's records hold their prompt at
a field not asked for. Each case has its clean twin, which exits 0 with nothing on
standard error. No line past the damage is counted: the expected figures are
those of the lines known sound, counted here without promptlint.
"""

from __future__ import annotations

import gzip
import json
import random
import zlib
from pathlib import Path

import pytest
import zstandard
from click.testing import CliRunner
from test_audit import record
from test_auditscale import write_parquet

from promptlint.cli.commands import main

LINES = [json.dumps(record(n), ensure_ascii=False).encode("utf-8") + b"\n" for n in range(240)]


def run(*args: str):
    result = CliRunner().invoke(main, ["audit", "--format", "json", "--jobs", "1", *args], prog_name="promptlint")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def counted(result) -> int:
    """The records the report counts (every line here is a prompt)."""
    data = json.loads(result.stdout)
    assert data["records"] == data["prompts"]
    return data["records"]


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_clean_twins_exit_0_with_nothing_on_standard_error(here):
    Path("log.jsonl").write_bytes(b"".join(LINES))
    Path("log.jsonl.gz").write_bytes(gzip.compress(b"".join(LINES)))
    Path("log.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(b"".join(LINES)))
    write_parquet(Path("log.parquet"), [json.loads(line) for line in LINES])
    for name in ("log.jsonl", "log.jsonl.gz", "log.jsonl.zst", "log.parquet"):
        result = run(name)
        assert (result.exit_code, result.stderr, counted(result)) == (0, "", len(LINES)), name


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_a_cut_compressed_log_counts_its_whole_lines_before_the_cut(here, suffix):
    if suffix == ".gz":
        packed = gzip.compress(b"".join(LINES))
    else:
        # A block every few lines, as a long log has (a zstandard block holds up to 128 KiB): a cut frame gives its whole blocks.
        writer = zstandard.ZstdCompressor().compressobj()
        packed = b"".join(writer.compress(b"".join(LINES[n : n + 8])) + writer.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK) for n in range(0, len(LINES), 8)) + writer.flush()
    reached = 0
    for percent in range(5, 100, 9):
        cut = packed[: len(packed) * percent // 100]
        Path(f"cut.jsonl{suffix}").write_bytes(cut)
        # What the cut stream decodes to, by the library itself: its whole lines are the log's.
        decoded = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(cut) if suffix == ".gz" else zstandard.ZstdDecompressor().decompressobj().decompress(cut)
        whole = decoded.count(b"\n")
        assert decoded.startswith(b"".join(LINES[:whole]))
        result = run(f"cut.jsonl{suffix}")
        kind = "gzip stream ends inside a member" if suffix == ".gz" else "zstandard stream ends inside a frame"
        assert result.exit_code == 2
        assert result.stderr == f"error: cut.jsonl{suffix}: the {kind} (a truncated file?): not read past line {whole:,}, the rest is lost\n"
        assert counted(result) == whole
        reached += 0 < whole < len(LINES)
    assert reached >= 9


def test_bytes_changed_inside_a_gzip_member_lose_that_member_and_no_line_of_it_counts(here):
    """Two members: the first sound, the second with one byte changed somewhere in its compressed data."""
    first, second = gzip.compress(b"".join(LINES[:100]), mtime=0), gzip.compress(b"".join(LINES[100:]), mtime=0)
    reached = 0
    # Inside the deflate data: past the 10-byte header, short of the last bytes of the block and the 8-byte trailer.
    for place in range(10, len(second) - 12, 29):
        damaged = bytearray(second)
        damaged[place] ^= 0x5A
        Path("log.jsonl.gz").write_bytes(first + bytes(damaged))
        result = run("log.jsonl.gz")
        assert result.exit_code == 2
        assert result.stderr.startswith("error: log.jsonl.gz: corrupt compressed data (Error -3 while decompressing data: ")
        assert result.stderr.endswith("): not read past line 100, the rest is lost\n") and result.stderr.count("\n") == 1
        assert counted(result) == 100
        reached += 1
    assert reached >= 40


def test_a_parquet_log_without_its_footer_is_named_and_nothing_of_it_counts(here):
    write_parquet(Path("good.parquet"), [json.loads(line) for line in LINES])
    data = Path("good.parquet").read_bytes()
    footer = int.from_bytes(data[-8:-4], "little") + 8  # the metadata, its length and the magic bytes
    for cut in (4, footer, footer + 100):
        Path("cut.parquet").write_bytes(data[:-cut])
        result = run("cut.parquet", "good.parquet")
        assert result.exit_code == 2
        assert result.stderr.startswith("error: cut.parquet: not a readable Parquet file (") and result.stderr.endswith("): nothing read\n")
        assert counted(result) == len(LINES)  # the good log's records alone


def test_lines_that_are_not_json_are_named_with_the_first_one(here):
    lines = list(LINES)
    lines[17] = b"\xff\xfe not text\n"
    lines[60] = LINES[60][:40] + b"\n"  # cut off
    lines[61] = b"2026-12-02 INFO request sent\n"
    Path("log.jsonl").write_bytes(b"".join(lines))
    result = run("log.jsonl")
    assert result.exit_code == 2
    assert result.stderr == "error: log.jsonl: 3 lines not JSON text, the first at line 18: each is reported as a broken record (PL900)\n"
    data = json.loads(result.stdout)
    assert next(rule for rule in data["rules"] if rule["code"] == "PL900")["affected"] == 3


def test_a_request_that_is_json_but_not_a_chat_record_is_no_corrupt_line(here):
    Path("log.jsonl").write_bytes(b"".join(LINES) + b'{"messages": "not a list"}\n')
    result = run("log.jsonl")
    assert (result.exit_code, result.stderr) == (0, "")


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_records_without_a_prompt_at_the_top_say_which_field_holds_it(here, suffix):
    """The request is a JSON text in a string field (a column of JSON-encoded requests): read only at that field."""
    rows = [{"id": n, "request": line.decode("utf-8").strip(), "status": 200} for n, line in enumerate(LINES)]
    name = f"log{suffix}"
    if suffix == ".parquet":
        write_parquet(Path(name), rows)
    else:
        Path(name).write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    result = run(name)
    assert result.exit_code == 2
    assert result.stderr == f"error: {name}: 0 prompts in 240 records: no chat request or prompt in them; --field request holds one\n"
    # The twin: with the field the hint names, every record is a prompt.
    result = run("--field", "request", name)
    assert (result.exit_code, result.stderr, counted(result)) == (0, "", len(LINES))


def test_records_without_a_prompt_anywhere_ask_for_the_field(here):
    Path("log.jsonl").write_text("".join(json.dumps({"id": n, "status": 200, "latency": [1, 2]}) + "\n" for n in range(30)), encoding="utf-8")
    result = run("log.jsonl")
    assert (result.exit_code, result.stderr) == (2, "error: log.jsonl: 0 prompts in 30 records: no chat request or prompt in them; pass --field with the path to the prompt in each record\n")
    result = run("--field", "body", "log.jsonl")
    assert (result.exit_code, result.stderr) == (2, "error: log.jsonl: 0 prompts in 30 records: no chat request or prompt at --field body; pass --field with the path to the prompt in each record\n")


def test_the_report_is_still_written_to_its_file(here):
    cut = gzip.compress(b"".join(LINES))[:-30]
    Path("log.jsonl.gz").write_bytes(cut)
    whole = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(cut).count(b"\n")
    result = run("--output", "audit.json", "log.jsonl.gz")
    assert result.exit_code == 2
    assert result.stderr == f"Wrote audit.json\nerror: log.jsonl.gz: the gzip stream ends inside a member (a truncated file?): not read past line {whole}, the rest is lost\n"
    assert json.loads(Path("audit.json").read_text(encoding="utf-8"))["records"] == whole > 200


def test_random_damage_to_any_format_never_gives_a_traceback(here):
    """Bytes changed, cut or repeated anywhere in a small log of each format: exit 0 and a silent stderr, or exit 2 with one line per problem."""
    rng = random.Random(24)
    lines = b"".join(LINES[:40])
    write_parquet(Path("clean.parquet"), [json.loads(line) for line in LINES[:40]], row_group_size=10)
    packed = {".jsonl.gz": gzip.compress(lines), ".jsonl.zst": zstandard.ZstdCompressor(write_checksum=True).compress(lines), ".parquet": Path("clean.parquet").read_bytes()}
    failed = 0
    for n in range(36):
        name = list(packed)[n % 3]
        data = bytearray(packed[name])
        place = rng.randrange(len(data))
        if n % 2:
            data[place] ^= 1 << rng.randrange(8)
        else:
            data = data[:place]
        Path(f"log{name}").write_bytes(bytes(data))
        result = run(f"log{name}")
        assert result.exit_code in (0, 2), result.output
        assert result.stdout.startswith("{")  # the report, always
        assert (result.exit_code == 0) == (result.stderr == "") and all(line.startswith("error: ") for line in result.stderr.splitlines())
        failed += result.exit_code == 2
    assert failed >= 24  # most damage is found (a flipped bit in a Parquet statistic or a gzip header's date is harmless)
