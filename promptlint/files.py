"""Which files to lint, and writing fixed files back safely."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

SUFFIXES = (".txt", ".md", ".prompt", ".json", ".jsonl", ".ndjson")
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".promptlint_cache"})


def _skip_dir(path: Path) -> bool:
    return path.name in SKIP_DIRS or (path / "pyvenv.cfg").exists()


def expand(paths: list[Path]) -> Iterator[Path]:
    """Files named on the command line as they are; folders walked for prompt files, in a stable order."""
    for path in paths:
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not _skip_dir(Path(root) / d))
                for name in sorted(names):
                    if name.lower().endswith(SUFFIXES):
                        yield Path(root) / name
        else:
            yield path


def write_atomic(path: Path, text: str) -> None:
    """Replace the file in one step, so a crash never leaves it half-written; keep its mode.

    A symlink is followed: the file it points to is replaced, the link stays.
    """
    path = path.resolve()
    mode = path.stat().st_mode & 0o7777
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".promptlint")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
