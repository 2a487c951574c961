"""The snapshot mechanism of conftest.py: compare, fail with how to fix it, update, delete the stale."""

from __future__ import annotations

import pytest

from conftest import Snapshots, render


def test_text_of_several_lines_is_a_literal_block_and_keys_are_sorted():
    assert render({"text": "line one\nline two\n", "at": "1:1", "é": "ü"}) == "at: '1:1'\ntext: |\n  line one\n  line two\né: ü\n"


def test_text_a_block_cannot_hold_exactly_is_quoted():
    assert render({"text": "trailing space \nnext"}) == 'text: "trailing space \\nnext"\n'


def test_a_missing_snapshot_fails_and_says_how_to_create_it(tmp_path):
    with pytest.raises(pytest.fail.Exception, match="no snapshot .*--snapshot-update"):
        Snapshots(update=False).check(tmp_path / "a.snap.yaml", {"a": 1})
    assert not (tmp_path / "a.snap.yaml").exists()


def test_a_different_snapshot_fails_with_the_diff(tmp_path):
    (tmp_path / "a.snap.yaml").write_text("a: 1\n")
    with pytest.raises(pytest.fail.Exception, match=r"(?s)differs.*-a: 1\n\+a: 2\n.*--snapshot-update"):
        Snapshots(update=False).check(tmp_path / "a.snap.yaml", {"a": 2})


def test_update_writes_the_snapshot_and_then_it_matches(tmp_path):
    path = tmp_path / "sub" / "a.snap.yaml"
    Snapshots(update=True).check(path, {"a": 2})
    assert path.read_text() == "a: 2\n"
    Snapshots(update=False).check(path, {"a": 2})


def test_a_stale_snapshot_fails_and_update_deletes_it(tmp_path):
    kept, stale = tmp_path / "kept.snap.yaml", tmp_path / "gone.txt.snap.yaml"
    kept.write_text("a: 1\n")
    stale.write_text("a: 1\n")
    (tmp_path / "input.txt").write_text("not a snapshot")
    with pytest.raises(pytest.fail.Exception, match="gone.txt.snap.yaml"):
        Snapshots(update=False).check_none_stale(tmp_path, {kept})
    Snapshots(update=True).check_none_stale(tmp_path, {kept})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.txt", "kept.snap.yaml"]
