"""Which files to lint, and writing fixed files back safely."""

from __future__ import annotations

import fnmatch
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from .formats import DEFAULT_INCLUDE

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".promptlint_cache"})


def _skip_dir(path: Path) -> bool:
    # os.path.exists, unlike Path.exists, is False (not an error) inside a folder that cannot be searched.
    return path.name in SKIP_DIRS or os.path.exists(path / "pyvenv.cfg")


def matches(glob: str, path: Path, folder: Path) -> bool:
    """Whether a config's glob matches ``path``; ``folder`` is the config's folder.

    A glob without "/" matches a file or folder name at any depth ("*.md",
    "drafts"); one with "/" matches the path from ``folder`` ("legacy/*.txt",
    "docs/**/*.md"), where "**" stands for any number of folders. Case is
    ignored, as the prompt-file suffixes always were (NOTES.TXT is a prompt file).
    """
    pattern = glob.lower().removeprefix("./").rstrip("/")
    path = Path(os.path.abspath(path))
    if "/" not in pattern:
        return fnmatch.fnmatchcase(path.name.lower(), pattern)
    try:
        parts = path.relative_to(os.path.abspath(folder)).parts
    except ValueError:
        return False  # outside the config's folder
    return _match_parts(pattern.lstrip("/").split("/"), [part.lower() for part in parts])


def _match_parts(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_match_parts(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pattern[0]) and _match_parts(pattern[1:], parts[1:])


def _prompt_file_or_folder(path: Path, folder: bool) -> bool:
    return folder or any(matches(glob, path, path.parent) for glob in DEFAULT_INCLUDE)


def _regular_or_unknown(path: Path) -> bool:
    """Whether a walk takes ``path``: a regular file, or one it may not look at (reading it says so)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except PermissionError:
        return True
    except (OSError, ValueError):
        return False  # gone since the folder was listed, a dangling link, a link loop


def expand(
    paths: list[Path],
    wants: Callable[[Path, bool], bool] = _prompt_file_or_folder,
    unreadable: Callable[[OSError], None] | None = None,
) -> Iterator[Path]:
    """Files named on the command line as they are; folders walked, in a stable order, for what ``wants`` takes.

    ``wants`` is asked about every file and subfolder of a walk (a config's
    include and exclude), and told which it is; tool folders (.git, node_modules, virtualenvs) are
    skipped whatever it says. A folder that cannot be listed is passed to
    ``unreadable`` (the walk goes on). A walk takes regular files only, and does
    not follow links to folders: reading a pipe or a device could wait forever,
    and a link to a folder above it would make the walk endless.
    """
    for path in paths:
        if path.is_dir():
            for root, dirs, names in os.walk(path, onerror=unreadable, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not _skip_dir(Path(root) / d) and wants(Path(root) / d, True))
                for name in sorted(names):
                    file = Path(root) / name
                    if wants(file, False) and _regular_or_unknown(file):
                        yield file
        else:
            yield path


def _umask() -> int:
    current = os.umask(0)  # the only way to read it is to set it
    os.umask(current)
    return current


def write_atomic(path: Path, text: str) -> None:
    """Replace (or create) the file in one step, so a crash never leaves it half-written; keep its mode.

    ``text`` is the whole file, BOM and newlines as they are to be written. A
    symlink is followed: the file it points to is replaced, the link stays.
    """
    path = path.resolve()
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()  # a new file gets what open() would have given it
    # In the file's folder, so that the rename stays on one file system and is atomic.
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".promptlint")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            # On disk before the rename: after a power cut the file is the old text or the new, never empty.
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
