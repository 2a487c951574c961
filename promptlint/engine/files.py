"""Which files to lint, and writing fixed files back safely.

A folder walk takes the files that are prompts, not every text of a repository
(README, CHANGELOG, docs): prompt and template files by their names anywhere,
Python files (read only for the templates they hold), and text, Markdown, JSON
and YAML only under a prompt folder. A config's `include` replaces these
defaults; a file named on the command line is always taken. The walk skips
what the .gitignore files on its way name, as git would.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..readers.formats import DEFAULT_INCLUDE

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".promptlint_cache"})


def _skip_dir(path: Path) -> bool:
    # os.path.exists, unlike Path.exists, is False (not an error) inside a folder that cannot be searched.
    return path.name in SKIP_DIRS or os.path.exists(path / "pyvenv.cfg")


def matches(glob: str, path: Path, folder: Path) -> bool:
    """Whether a config's glob matches ``path``; ``folder`` is the config's folder.

    A glob without "/" matches a file or folder name at any depth ("*.md",
    "drafts"); one with "/" matches the path from ``folder`` ("legacy/*.txt",
    "docs/**/*.md"), where "**" stands for any number of folders. One that
    starts with "**/" matches the whole path, from the file system's root,
    whatever ``folder`` is ("**/prompts/**/*.txt"). Case is ignored, as the prompt-file
    suffixes always were (NOTES.TXT is a prompt file).
    """
    return globs((glob,), folder)(path)


def globs(patterns: tuple[str, ...], folder: Path) -> Globs:
    """``patterns`` compiled once, for a config's folder: whether any of them ``matches`` a path."""
    return _globs(patterns, os.path.abspath(folder))


@lru_cache(maxsize=1024)
def _globs(patterns: tuple[str, ...], folder: str) -> Globs:
    return Globs(patterns, folder)


@dataclass(frozen=True)
class _PathGlob:
    rooted: bool  # "**/": matched from the file system's root
    segments: tuple[Callable[[str], object] | None, ...]  # a name's matcher, None for "**"
    literals: frozenset[str]  # segments without a wildcard: a path that lacks one cannot match

    def match(self, parts: list[str]) -> bool:
        return self.literals.issubset(parts) and _match_parts(self.segments, parts, 0, 0)


def _match_parts(segments: tuple, parts: list[str], s: int, p: int) -> bool:
    while s < len(segments) and segments[s] is not None:
        if p == len(parts) or segments[s](parts[p]) is None:
            return False
        s, p = s + 1, p + 1
    if s == len(segments):
        return p == len(parts)
    return any(_match_parts(segments, parts, s + 1, i) for i in range(p, len(parts) + 1))


class Globs:
    """Globs compiled to regular expressions once and matched on path strings: a walk asks every
    glob about every file, which through a Path per file and glob cost ten times as much."""

    def __init__(self, patterns: tuple[str, ...], folder: str):
        self._folder = folder.rstrip("/") + "/"
        names, self._paths = [], []
        for glob in patterns:
            pattern = glob.lower().removeprefix("./").rstrip("/")
            if "/" not in pattern:
                names.append(fnmatch.translate(pattern))
                continue
            segments = pattern.lstrip("/").split("/")
            self._paths.append(_PathGlob(
                pattern.startswith("**/"),
                tuple(None if seg == "**" else re.compile(fnmatch.translate(seg)).match for seg in segments),
                frozenset(seg for seg in segments if not any(c in seg for c in "*?[")),
            ))
        # Each translation is anchored at its end: their alternation matches a name any one of them does.
        self._names = re.compile("|".join(names)).match if names else None

    def __call__(self, path: str | os.PathLike) -> bool:
        path = os.path.abspath(path)
        if self._names is not None and self._names(os.path.basename(path).lower()):
            return True
        if not self._paths:
            return False
        lowered = path.lower()
        # A relative glob matches the path from the config's folder: a path outside it, none.
        inside = [part for part in lowered[len(self._folder) :].split("/") if part] if (path + "/").startswith(self._folder) else None
        whole = [part for part in lowered.split("/") if part]
        return any(glob.match(whole) if glob.rooted else inside is not None and glob.match(inside) for glob in self._paths)


def _prompt_file_or_folder(path: Path, folder: bool) -> bool:
    return folder or globs(DEFAULT_INCLUDE, path.parent)(path)


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
    gitignore: bool = True,
) -> Iterator[Path]:
    """Files named on the command line as they are; folders walked, in a stable order, for what ``wants`` takes.

    ``wants`` is asked about every file and subfolder of a walk (a config's
    include and exclude), and told which it is; tool folders (.git, node_modules, virtualenvs)
    are skipped whatever it says, and so (with ``gitignore``) is what a .gitignore
    file names. A folder that cannot be listed is passed to
    ``unreadable`` (the walk goes on). A walk takes regular files only, and does
    not follow links to folders: reading a pipe or a device could wait forever,
    and a link to a folder above it would make the walk endless.
    """
    for path in paths:
        if not path.is_dir():
            yield path
            continue
        ignores = {path: GitIgnore.above(path) if gitignore else GitIgnore()}
        for root, dirs, names in os.walk(path, onerror=unreadable, followlinks=False):
            here = ignores.pop(Path(root))
            dirs[:] = sorted(d for d in dirs if not _skip_dir(Path(root) / d) and not here.ignores(Path(root) / d, True) and wants(Path(root) / d, True))
            for d in dirs:
                ignores[Path(root) / d] = here.below(Path(root) / d) if gitignore else here
            for name in sorted(names):
                file = Path(root) / name
                if not here.ignores(file, False) and wants(file, False) and _regular_or_unknown(file):
                    yield file


@dataclass(frozen=True)
class _Pattern:
    """One line of a .gitignore file."""

    regex: re.Pattern[str]  # matched against the path from the file's folder, "/"-separated
    negated: bool  # "!": the path is taken again
    folders_only: bool  # a trailing "/": only folders match


@dataclass(frozen=True)
class GitIgnore:
    """The .gitignore patterns that govern a folder: its own file's and those above it, outermost first."""

    layers: tuple[tuple[Path, tuple[_Pattern, ...]], ...] = ()

    @classmethod
    def above(cls, folder: Path) -> GitIgnore:
        """The patterns for ``folder``: from the files in it and above it, up to the root of its git work tree.

        Outside a work tree (no .git above) only the folder's own file counts.
        """
        folder = Path(os.path.abspath(folder))
        chain = [folder]
        for parent in folder.parents:
            if os.path.exists(chain[-1] / ".git"):
                break
            chain.append(parent)
        else:
            chain = [folder]  # no work tree: the folders above are not the project's
        found = cls()
        if len(chain) > 1 or os.path.exists(folder / ".git"):
            # The repository's own excludes rank below every .gitignore, as in git.
            found = found._with(chain[-1], _git_dir(chain[-1]) / "info" / "exclude")
        for each in reversed(chain):
            found = found.below(each)
        return found

    def below(self, folder: Path) -> GitIgnore:
        """The patterns for a subfolder: these, then its own .gitignore's."""
        return self._with(folder, folder / ".gitignore")

    def _with(self, folder: Path, file: Path) -> GitIgnore:
        """These patterns, then those of ``file``, read from ``folder``."""
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return self  # none, or one that cannot be read (git skips it as well)
        patterns = tuple(p for p in map(_gitignore_pattern, text.splitlines()) if p is not None)
        return GitIgnore((*self.layers, (Path(os.path.abspath(folder)), patterns))) if patterns else self

    def ignores(self, path: Path, folder: bool) -> bool:
        """Whether git would ignore ``path`` (a file, or a folder if ``folder``): the last pattern that matches decides."""
        ignored = False
        path = Path(os.path.abspath(path))
        for base, patterns in self.layers:
            relative = path.relative_to(base).as_posix()
            for pattern in patterns:
                if (folder or not pattern.folders_only) and pattern.regex.fullmatch(relative):
                    ignored = not pattern.negated
        return ignored


def _git_dir(work_tree: Path) -> Path:
    """Where a work tree's repository keeps info/exclude: .git, or for a linked work tree
    (.git is a file naming its git dir) the repository's common dir."""
    dot_git = work_tree / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        git_dir = Path(dot_git.read_text(encoding="utf-8").partition("gitdir:")[2].strip())
    except OSError:
        return dot_git
    git_dir = git_dir if git_dir.is_absolute() else work_tree / git_dir
    try:
        return git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir  # a submodule's git dir is its own


def _gitignore_pattern(line: str) -> _Pattern | None:
    """A .gitignore line as a pattern (see gitignore(5)); None for a blank line or a comment."""
    line = re.sub(r"(?<!\\) +$", "", line)
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated or line.startswith(("\\!", "\\#")):
        line = line[1:]
    folders_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    # A "/" at the start or in the middle ties the pattern to the file's folder; else it matches at any depth.
    anchored = "/" in line
    parts = line.lstrip("/").split("/")
    regex = "" if anchored else "(?:.*/)?"
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            regex += ".*" if last else "(?:.*/)?"
        else:
            regex += _glob_regex(part) + ("" if last else "/")
    return _Pattern(re.compile(regex, re.DOTALL), negated, folders_only)


def _glob_regex(part: str) -> str:
    """One path part of a gitignore glob as a regex: * and ? stop at "/", [...] is a class, \\ escapes."""
    out, i = [], 0
    while i < len(part):
        char = part[i]
        if char == "\\" and i + 1 < len(part):
            out.append(re.escape(part[i + 1]))
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := part.find("]", i + 2)) != -1:
            body = part[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
            continue
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


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
