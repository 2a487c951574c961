"""A linter runs on every commit: it must never crash, hang, or damage a file.

Bad input gets a one-line answer and the run goes on (exit 2 for a file or folder
that cannot be read, 1 for findings, PL900 among them, 0 for clean); a fix is
written whole or not at all, keeps what the file was (mode, encoding, BOM,
newlines, final newline), and is not written over a change made by someone else.
Where the suite runs as root, chmod 000 stops nothing: there, reading a locked
path is made to fail as it would for anyone else.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_cli import BOM, CONFIG, PL102, PL102_CONCISE, check, copy, run, work  # noqa: F401 (work is a fixture)

from promptlint.engine import files, lint
from promptlint.readers import document as documents

PL102_SUMMARY = "Found 4 findings, 4 fixable with --fix (saves 33 tokens)."
NOT_READ = "Found 4 findings, 4 fixable with --fix (saves 33 tokens); 1 file could not be read."

# ---- bad input: one line, and the run goes on ----


@pytest.mark.parametrize(
    ("data", "offset"),
    [
        (b"Question: caf\xe9?\n", 13),  # Latin-1
        (BOM + b"Answer.\n\xff\n", 11),  # the offset counts the BOM's bytes: it is a place in the file
        (b"Question: \xe6\x9d", 10),  # a character cut short at the end
        (b"Answer \xed\xa0\x80.\n", 7),  # a surrogate written as UTF-8
    ],
)
def test_invalid_utf8_names_the_file_and_the_byte_offset(work, data, offset):
    (work / "bad-bytes.txt").write_bytes(data)
    copy(PL102 / "bad.txt", work)
    result = check("--select", "PL102", "--output-format", "concise", "bad-bytes.txt", "bad.txt")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == PL102_CONCISE
    assert result.stderr.splitlines() == [f"error: bad-bytes.txt: not valid UTF-8 (byte offset {offset})", NOT_READ]


@pytest.mark.parametrize("suffix", [".txt", ".json", ".j2"])
def test_a_str_with_a_lone_surrogate_is_one_clear_error(suffix):
    # Only a str built in Python can hold one (a file's bytes cannot decode to it).
    text = "Question: caf\ud800?\n"
    for call in (lint.lint_text, lint.fix_text):
        with pytest.raises(documents.UnreadableFile, match=r"^prompt" + re.escape(suffix) + r": not valid Unicode text \(a lone surrogate at character offset 13\)$"):
            call(text, path="prompt" + suffix)


def test_a_nul_in_a_str_is_text_not_a_binary_file():
    text = "[1] Guide (score: 0.91)\nA NUL \0 inside a chunk.\n\nQuestion: Why?\n"
    assert [f.code for f in lint.lint_text(text, path="p.txt")] == ["PL102"]
    assert lint.fix_text(text, path="p.txt") == "[1] Guide\nA NUL \0 inside a chunk.\n\nQuestion: Why?\n"


@pytest.mark.parametrize(
    "suffix",
    [
        ".txt", ".md", ".prompt", ".jsonl", ".ndjson", ".j2", ".jinja", ".jinja2", ".prompty", ".py", ".yaml", ".yml",
        ".json",
    ],
)
def test_an_empty_file_is_clean(work, suffix):
    (work / f"empty{suffix}").write_bytes(b"")
    result = check(f"empty{suffix}")
    # A text file is an empty prompt; a JSON, YAML or Python file holds none, says so, and never passes.
    if suffix in (".json", ".jsonl", ".ndjson", ".py", ".yaml", ".yml"):
        expected = ("No prompt found in 1 file; nothing was checked.\n", f"notice: empty{suffix}: no prompt found, skipped\n")
    else:
        expected = ("All checks passed!\n", "")
    assert (result.exit_code, result.stdout, result.stderr) == (0, *expected)


def test_a_binary_file_in_a_folder_is_skipped_with_a_notice(work):
    (work / "prompts").mkdir()
    (work / "prompts" / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    copy(PL102 / "bad.txt", work / "prompts")
    result = check("--select", "PL102", "--output-format", "concise", "prompts")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == [line.replace("bad.txt", str(Path("prompts/bad.txt"))) for line in PL102_CONCISE]
    assert result.stderr.splitlines() == [f"error: {Path('prompts/image.txt')}: binary file, skipped", NOT_READ]


# A prompt whose scored header has, before the score, a tab, wide (CJK) characters,
# a letter with a combining accent and a character outside the BMP. Columns count
# characters: each of these is one column, in every output format.
WIDE = "Answer from the sources.\n\n[1] \u6771\u4eac Policy\tcafe\u0301 \U0001f600 \u2014 Returns (score: 0.91)\nDamaged goods may be returned within 30 days.\n\nQuestion: How long?\n"
WIDE_LINE = WIDE.split("\n")[2]
WIDE_COLUMN = WIDE_LINE.index("0.91") + 1


def _position(fmt: str, out: str) -> tuple[int, int | None, int | None]:
    """The line, column and end column of the one finding in ``out`` (None where the format has no columns)."""
    if fmt in ("json", "json-lines"):
        [record] = json.loads(out) if fmt == "json" else [json.loads(line) for line in out.splitlines()]
        return record["line"], record["column"], record["end_column"]
    if fmt == "github":
        found = re.search(r"line=(\d+),col=(\d+),endLine=\d+,endColumn=(\d+)", out)
        return int(found[1]), int(found[2]), int(found[3])
    if fmt == "gitlab":
        [issue] = json.loads(out)
        return issue["location"]["lines"]["begin"], None, None
    if fmt == "sarif":
        [result] = json.loads(out)["runs"][0]["results"]
        region = result["locations"][0]["physicalLocation"]["region"]
        return region["startLine"], region["startColumn"], region["endColumn"]
    if fmt == "junit":
        failure = ET.fromstring(out).find(".//failure")
        found = re.match(r"wide\.txt:(\d+):(\d+):", failure.text)
        return int(found[1]), int(found[2]), None
    found = re.match(r"wide\.txt:(\d+):(\d+):", out)  # full and concise
    return int(found[1]), int(found[2]), None


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("fmt", ["full", "concise", "json", "json-lines", "github", "gitlab", "sarif", "junit"])
def test_columns_count_characters_in_every_format(work, fmt, newline):
    (work / "wide.txt").write_bytes(WIDE.replace("\n", newline).encode("utf-8"))
    result = check("--select", "PL102", "--output-format", fmt, "wide.txt")
    assert result.exit_code == 1
    line, column, end_column = _position(fmt, result.stdout)
    assert line == 3
    assert column in (WIDE_COLUMN, None) and end_column in (WIDE_COLUMN + len("0.91"), None)
    if fmt == "full":
        # The caret stands under the score, counting characters as the column does.
        shown, caret = result.stdout.splitlines()[2:4]
        assert shown == f" 3 | {WIDE_LINE}"
        assert caret == f"   | {' ' * (WIDE_COLUMN - 1)}^^^^"


def test_a_character_whose_lower_case_is_longer_moves_no_position(work):
    # "\u0130".lower() is two characters; read that way, every later offset would be one off.
    prompt = (PL102 / "bad.txt").read_text(encoding="utf-8")
    (work / "dotted.txt").write_text("\u0130stanbul " + prompt, encoding="utf-8")
    (work / "plain.txt").write_text("Istanbul " + prompt, encoding="utf-8")
    dotted = check("--select", "PL102", "--output-format", "concise", "dotted.txt")
    plain = check("--select", "PL102", "--output-format", "concise", "plain.txt")
    assert dotted.stdout.replace("dotted.txt", "plain.txt") == plain.stdout != ""
    check("--select", "PL102", "--fix", "dotted.txt", "plain.txt")
    assert (work / "dotted.txt").read_text(encoding="utf-8") == "\u0130stanbul " + (PL102 / "bad.fixed.txt").read_text(encoding="utf-8")

def test_a_20_mb_prompt_is_linted(work):
    paragraph = "Damaged goods may be returned within 30 days of delivery, with the receipt and the original packaging.\n"
    body = paragraph * (20_000_000 // len(paragraph))
    (work / "big.txt").write_text(f"Answer from the sources.\n\n[1] Returns Policy (score: 0.91)\n{body}\nQuestion: How long?\n", encoding="utf-8")
    result = check("--select", "PL102", "--output-format", "concise", "big.txt")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "big.txt:3:28: PL102 [retrieval-score] Source 1 shows its retrieval score ('score: 0.91'); the model reads it as an instruction to defer to the top hit"
    ]


@pytest.mark.parametrize(
    ("front_matter", "error"),
    [
        ("name: demo\n\tmodel: gpt-4o\n", "bad.prompty:3:1: PL900 [syntax-error] invalid front matter: found character '\\t' that cannot start any token"),
        ("name: demo\nmodel: [gpt-4o\ndescription: x\n", "bad.prompty:4:12: PL900 [syntax-error] invalid front matter: expected ',' or ']', but got ':'"),
    ],
)
def test_invalid_front_matter_in_a_prompty_file_is_pl900_with_its_line(work, front_matter, error):
    (work / "bad.prompty").write_text(f"---\n{front_matter}---\nAnswer from the sources.\n\nQuestion: {{{{ question }}}}\n", encoding="utf-8")
    result = check("--select", "PL102", "--output-format", "concise", "bad.prompty")
    assert (result.exit_code, result.stdout.splitlines()) == (1, [error])


@pytest.mark.parametrize(
    "template",
    [
        "{% if a %}\n" * 200 + "Answer from the sources.\n" + "{% endif %}\n" * 200,
        "{% for d in docs %}\n" * 200 + "{{ d.content }}\n" + "{% endfor %}\n" * 200,
    ],
    ids=["200-ifs", "200-fors"],
)
def test_deeply_nested_jinja_is_linted(work, template):
    (work / "deep.j2").write_text(template, encoding="utf-8")
    # run() fails on any exception, a RecursionError among them.
    assert check("--output-format", "concise", "deep.j2").exit_code in (0, 1)


@pytest.mark.parametrize("template", ["{% if a %}" * 1000 + "{% endif %}" * 1000, "{{" * 1000], ids=["1000-ifs", "1000-braces"])
def test_jinja_too_deep_to_parse_is_pl900(work, template):
    (work / "deep.j2").write_text(template, encoding="utf-8")
    result = check("--output-format", "concise", "deep.j2")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith("deep.j2:1:1: PL900 [syntax-error] ")


@pytest.fixture
def lock(monkeypatch):
    """chmod 000 a file or folder. Where that does not stop this process (root reads
    anything), opening the file or listing the folder fails as it would for anyone else."""
    locked: list[Path] = []
    simulated: list[Path] = []
    real_open, real_scandir, real_stat = io.open, os.scandir, os.stat

    def where(path) -> Path | None:
        return None if isinstance(path, int) else Path(os.path.abspath(path))

    def refuse(path):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))

    def guarded_open(path, *args, **kwargs):
        return refuse(path) if where(path) in simulated else real_open(path, *args, **kwargs)

    def guarded_scandir(path="."):
        return refuse(path) if where(path) in simulated else real_scandir(path)

    def guarded_stat(path, *args, **kwargs):
        # Nothing in a folder that cannot be searched can be looked at.
        here = where(path)
        return refuse(path) if here and any(folder in here.parents for folder in simulated) else real_stat(path, *args, **kwargs)

    def lock(path: Path) -> None:
        path.chmod(0)
        locked.append(path)
        if os.access(path, os.R_OK):
            simulated.append(where(path))
            monkeypatch.setattr(io, "open", guarded_open)
            monkeypatch.setattr(os, "scandir", guarded_scandir)
            monkeypatch.setattr(os, "stat", guarded_stat)

    yield lock
    for path in locked:
        path.chmod(0o755)


def test_an_unreadable_file_is_one_line_and_the_rest_is_linted(work, lock):
    copy(PL102 / "bad.txt", work)
    copy(PL102 / "bad.txt", work, "locked.txt")
    lock(work / "locked.txt")
    result = check("--select", "PL102", "--output-format", "concise", "locked.txt", "bad.txt")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == PL102_CONCISE
    assert result.stderr.splitlines() == ["error: locked.txt: cannot read: Permission denied", NOT_READ]


def test_an_unreadable_folder_is_one_line_and_the_rest_is_linted(work, lock):
    copy(PL102 / "bad.txt", work / "prompts")
    copy(PL102 / "bad.txt", work / "prompts" / "locked" / "inner")
    lock(work / "prompts" / "locked")
    result = check("--select", "PL102", "--output-format", "concise", "prompts")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == [line.replace("bad.txt", str(Path("prompts/bad.txt"))) for line in PL102_CONCISE]
    assert result.stderr.splitlines() == [f"error: {Path('prompts/locked')}: cannot read: Permission denied", NOT_READ]
    result = run("format", "--config", CONFIG, "prompts")
    assert (result.exit_code, result.stderr.splitlines()[0]) == (2, f"error: {Path('prompts/locked')}: cannot read: Permission denied")


def test_a_folder_that_lists_but_cannot_be_searched_names_its_files(work, monkeypatch):
    # chmod 644 on a folder: its names can be listed, but nothing in it can be looked at.
    copy(PL102 / "bad.txt", work / "prompts")
    copy(PL102 / "bad.txt", work / "prompts" / "closed", "inside.txt")
    closed = Path(os.path.abspath(work / "prompts" / "closed"))
    real_stat = os.stat

    def guarded_stat(path, *args, **kwargs):
        if not isinstance(path, int) and closed in Path(os.path.abspath(path)).parents:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", guarded_stat)
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: guarded_stat(self) and real_read(self))
    result = check("--select", "PL102", "--output-format", "concise", "prompts")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == [line.replace("bad.txt", str(Path("prompts/bad.txt"))) for line in PL102_CONCISE]
    assert result.stderr.splitlines()[0] == f"error: {Path('prompts/closed/inside.txt')}: cannot read: Permission denied"


def test_lint_paths_raises_for_a_folder_it_cannot_list(work, lock):
    import promptlint

    copy(PL102 / "bad.txt", work / "prompts" / "locked")
    lock(work / "prompts" / "locked")
    with pytest.raises(documents.UnreadableFile, match=r"locked: cannot read: Permission denied$"):
        promptlint.lint_paths(["prompts"])


def test_a_folder_walk_ends_despite_link_loops_and_skips_pipes(work):
    tree = work / "prompts"
    copy(PL102 / "bad.txt", tree, "a.txt")
    copy(PL102 / "bad.txt", tree, "sub/b.txt")
    (tree / "sub" / "up").symlink_to("..", target_is_directory=True)  # a loop: tree/sub/up/sub/up/...
    (tree / "self.txt").symlink_to("self.txt")  # a link to itself
    os.mkfifo(tree / "pipe.txt")  # reading it would wait for a writer forever
    # Links to folders are not followed, so each file is found once, by its own path.
    assert list(files.expand([tree])) == [tree / "a.txt", tree / "sub" / "b.txt"]
    # In a process of its own, so that a hang fails the test instead of stopping the suite.
    done = subprocess.run(
        [str(Path(sys.executable).with_name("promptlint")), "check", "--config", CONFIG, "--select", "PL102", "--output-format", "concise", "--no-fold", "prompts"],
        capture_output=True, text=True, cwd=work, timeout=120,
    )
    assert done.returncode == 1
    # Each file's findings (--no-fold: the two files are copies of one prompt).
    assert sorted({line.split(":")[0] for line in done.stdout.splitlines()}) == [str(Path("prompts/a.txt")), str(Path("prompts/sub/b.txt"))]


def test_a_file_deleted_during_the_run_is_one_line_and_the_rest_is_linted(work, monkeypatch):
    copy(PL102 / "bad.txt", work, "prompts/a.txt")
    copy(PL102 / "bad.txt", work, "prompts/b.txt")
    read = documents.read

    def read_and_delete_b(path, *args, **kwargs):
        # Found by the folder walk, gone by the time it is read.
        if path.name == "a.txt":
            (work / "prompts" / "b.txt").unlink()
        return read(path, *args, **kwargs)

    monkeypatch.setattr(documents, "read", read_and_delete_b)
    result = check("--select", "PL102", "--output-format", "concise", "prompts")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == [line.replace("bad.txt", str(Path("prompts/a.txt"))) for line in PL102_CONCISE]
    assert result.stderr.splitlines() == [f"error: {Path('prompts/b.txt')}: cannot read: No such file or directory", NOT_READ]


# ---- fixes never lose data ----


def _with_bom(data: bytes) -> bytes:
    return BOM + data


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


KEPT = {
    "bom": _with_bom,
    "crlf": _crlf,
    "bom-and-crlf": lambda data: _with_bom(_crlf(data)),
    "no-final-newline": lambda data: data.removesuffix(b"\n"),
    "two-final-newlines": lambda data: data + b"\n",
    "non-ascii": lambda data: "\u6771\u4eac caf\u00e9 cafe\u0301 \U0001f600\n".encode("utf-8") + data,
}


@pytest.mark.parametrize("form", KEPT)
def test_a_fix_keeps_the_encoding_bom_newlines_and_final_newline(work, form):
    bad = work / "bad.txt"
    bad.write_bytes(KEPT[form]((PL102 / "bad.txt").read_bytes()))
    result = check("--select", "PL102", "--fix", "bad.txt")
    assert (result.exit_code, result.stdout) == (0, "Found 4 findings (4 fixed, 0 remaining).\n")
    assert bad.read_bytes() == KEPT[form]((PL102 / "bad.fixed.txt").read_bytes())


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755, 0o444])
def test_a_fix_keeps_the_file_mode(work, mode):
    bad = copy(PL102 / "bad.txt", work)
    bad.chmod(mode)
    assert check("--select", "PL102", "--fix", "bad.txt").exit_code == 0
    assert bad.stat().st_mode & 0o7777 == mode
    assert bad.read_bytes() == (PL102 / "bad.fixed.txt").read_bytes()


def test_a_fix_through_a_symlink_replaces_the_target_and_keeps_the_link(work):
    target = copy(PL102 / "bad.txt", work / "real")
    (work / "link.txt").symlink_to(Path("real") / "bad.txt")
    assert check("--select", "PL102", "--fix", "link.txt").exit_code == 0
    assert (work / "link.txt").is_symlink()
    assert target.read_bytes() == (PL102 / "bad.fixed.txt").read_bytes()


def test_a_fix_is_written_to_a_temporary_file_beside_it_then_renamed(work, monkeypatch):
    bad = copy(PL102 / "bad.txt", work)
    renames = []
    replace = os.replace

    def spy(source, target):
        # The whole new text is on disk before the rename; the original is untouched until then.
        renames.append((Path(source), Path(target), Path(source).read_bytes(), Path(target).read_bytes()))
        replace(source, target)

    monkeypatch.setattr(files.os, "replace", spy)
    assert check("--select", "PL102", "--fix", "bad.txt").exit_code == 0
    [(source, target, new, old)] = renames
    assert (source.parent, target) == (bad.resolve().parent, bad.resolve())
    assert (new, old) == ((PL102 / "bad.fixed.txt").read_bytes(), (PL102 / "bad.txt").read_bytes())
    assert not source.exists()


def test_a_write_that_fails_halfway_leaves_the_file_as_it_was(work, monkeypatch):
    bad = copy(PL102 / "bad.txt", work)

    def full_disk(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files.os, "fsync", full_disk)
    result = check("--select", "PL102", "--fix", "--output-format", "concise", "bad.txt")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["error: bad.txt: cannot write: No space left on device", PL102_SUMMARY[:-1] + "; 1 file could not be written."]
    assert result.stdout.splitlines() == PL102_CONCISE
    assert bad.read_bytes() == (PL102 / "bad.txt").read_bytes()
    assert sorted(p.name for p in work.iterdir() if not p.name.startswith(".promptlint")) == ["bad.txt", CONFIG]


@pytest.fixture
def edit_after_reading(monkeypatch):
    """Between reading a file and writing its fix, another program rewrites (or deletes) it."""

    def edit(path: Path, data: bytes | None) -> None:
        check_document = lint.check_document
        edits = [data]

        def check_then_edit(doc, *args, **kwargs):
            result = check_document(doc, *args, **kwargs)
            while edits:
                change = edits.pop()
                path.unlink() if change is None else path.write_bytes(change)
            return result

        monkeypatch.setattr(lint, "check_document", check_then_edit)

    return edit


@pytest.mark.parametrize("data", [b"Edited by someone else.\n", None], ids=["edited", "deleted"])
def test_a_fix_is_not_written_over_a_change_made_since_reading(work, edit_after_reading, data):
    bad = copy(PL102 / "bad.txt", work)
    edit_after_reading(bad, data)
    result = check("--select", "PL102", "--fix", "--output-format", "concise", "bad.txt")
    # The findings are those of the text that was read, and the file is what the other program left.
    assert result.exit_code == 1
    assert result.stdout.splitlines() == PL102_CONCISE
    assert result.stderr.splitlines() == ["warning: bad.txt: changed on disk since it was read; left as it is", PL102_SUMMARY]
    assert (bad.read_bytes() if bad.exists() else None) == data


def test_format_is_not_written_over_a_change_made_since_reading(work, monkeypatch):
    from promptlint.engine import formatting

    # A file format changes: check --fix drops its system names, the layout the rest.
    bad = copy(PL102.parent / "PL202-source-system-name" / "bad.txt", work)
    format_document = formatting.format_document

    def format_then_edit(doc, config, unsafe):
        new = format_document(doc, config, unsafe)
        bad.write_bytes(b"Edited by someone else.\n")
        return new

    monkeypatch.setattr(formatting, "format_document", format_then_edit)
    result = run("format", "--config", CONFIG, "bad.txt")
    assert (result.exit_code, result.stderr) == (0, "warning: bad.txt: changed on disk since it was read; left as it is\n0 files reformatted.\n")
    assert bad.read_bytes() == b"Edited by someone else.\n"


def test_a_chat_message_holding_the_message_separator_is_linted(work):
    content = "Answer from the sources.\n\x1e\n[1] Returns Policy (score: 0.91)\nDamaged goods may be returned.\n\nQuestion: How long?"
    (work / "chat.json").write_text(json.dumps({"messages": [{"role": "user", "content": content}]}), encoding="utf-8")
    assert check("--select", "PL102", "--output-format", "concise", "chat.json").exit_code == 1


def test_a_yaml_file_with_a_list_as_a_key_is_linted(work):
    (work / "prompt.yaml").write_text("? [a, b]\n: c\ntemplate: Answer from the sources.\n", encoding="utf-8")
    assert check("prompt.yaml").exit_code == 0


# Where a bug may be met: checking a file (a rule's), or reading it (a reader's: a garbled name in TypeScript was,
# found by fuzzing). Each is one line naming the file, and the other files are still linted.
@pytest.mark.parametrize("module, name, error", [(lint, "check_document", KeyError), (documents, "read", SyntaxError)])
def test_a_bug_met_in_one_file_is_one_line_and_the_rest_is_linted(work, monkeypatch, module, name, error):
    copy(PL102 / "bad.txt", work)
    copy(PL102 / "bad.txt", work, "trips.txt")
    real = getattr(module, name)

    def trips_on_one_file(first, *args, **kwargs):
        if str(getattr(first, "path", first)).endswith("trips.txt"):
            raise error("a bug")
        return real(first, *args, **kwargs)

    monkeypatch.setattr(module, name, trips_on_one_file)
    result = check("--select", "PL102", "--output-format", "concise", "--no-cache", "--jobs", "1", "trips.txt", "bad.txt")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == PL102_CONCISE
    where = "test_hardening.py:" + str(trips_on_one_file.__code__.co_firstlineno + 2)
    assert result.stderr.splitlines() == [f"error: trips.txt: not linted, promptlint failed on it ({error.__name__} at {where}); please report this bug", NOT_READ]


