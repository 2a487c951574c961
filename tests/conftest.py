"""Snapshots: what a test observes, written as YAML and kept in tests/snapshots/.

A snapshot test builds plain data (the model a reader yields, the findings a rule
reports), renders it as YAML and compares the text with the stored file, so a change
to a reader or a message shows in review as a diff of that file. The same idea as
syrupy's and insta's snapshots, in one small class:

    python -m pytest --snapshot-update    # write every snapshot again, delete the stale ones
    git diff tests/snapshots              # review what changed, then commit it with the code

A snapshot that is missing fails (it is never written silently, or a test that
forgot its snapshot would pass); so does a stale one, whose input is gone.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
SUFFIX = ".snap.yaml"
UPDATE = "python -m pytest --snapshot-update"

pytest_plugins = ["noskips"]  # --no-skips, for CI's framework run


def pytest_addoption(parser):
    parser.addoption("--snapshot-update", action="store_true", default=False,
                     help="write the snapshots under tests/snapshots/ instead of comparing them, and delete the stale ones")


class _Dumper(yaml.SafeDumper):
    """The safe dumper, with text of several lines written as a literal block (`|`), as it reads."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # PyYAML falls back to a quoted string where a block cannot hold the text exactly
    # (trailing spaces, control characters), so this never changes what is stored.
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _text)


def render(data) -> str:
    """The YAML of a snapshot: keys sorted, Unicode as itself, no line folded."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=True, allow_unicode=True, width=100_000, default_flow_style=False)


def _name(path: Path) -> str:
    """How a message names a snapshot: from the repository root, where the commands run."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


class Snapshots:
    def __init__(self, update: bool):
        self.update = update

    def check(self, path: Path, data) -> None:
        """Compare ``data`` with the snapshot at ``path``; with --snapshot-update, write it there."""
        text = render(data)
        name = _name(path)
        if self.update:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            return
        if not path.exists():
            pytest.fail(f"no snapshot {name}: run `{UPDATE}` to create it, then review it before committing", pytrace=False)
        stored = path.read_text(encoding="utf-8")
        if stored != text:
            diff = "".join(difflib.unified_diff(stored.splitlines(True), text.splitlines(True), f"{name} (stored)", f"{name} (now)"))
            pytest.fail(f"snapshot {name} differs:\n{diff}\nif the change is meant, run `{UPDATE}` and review `git diff tests/snapshots`", pytrace=False)

    def check_none_stale(self, folder: Path, expected: set[Path]) -> None:
        """Every snapshot under ``folder`` is one of ``expected``; with --snapshot-update, delete the rest."""
        stale = sorted(path for path in folder.rglob(f"*{SUFFIX}") if path not in expected)
        if self.update:
            for path in stale:
                path.unlink()
            return
        if stale:
            names = "\n".join(f"  {_name(path)}" for path in stale)
            pytest.fail(f"stale snapshots (their input is gone):\n{names}\nrun `{UPDATE}` to delete them", pytrace=False)


@pytest.fixture
def snapshots(request) -> Snapshots:
    return Snapshots(request.config.getoption("--snapshot-update"))
