"""The pre-commit hooks, run by pre-commit itself on a temporary git repository.

The hook repository is a copy of this checkout committed to a fresh git repo,
so the hooks are tested as the files are now, uncommitted work included,
whatever state the checkout's own git repository is in. The test repository's
.pre-commit-config.yaml names that copy by path and commit, as a user's names a
release. (``pre-commit try-repo`` does the same, but with a throwaway store on
every call, so it would rebuild the hook's environment for each case.)
pre-commit builds that environment by pip-installing the package and its
dependencies, from the index pip is configured with; PRE_COMMIT_HOME is shared by
the module so that happens once. Where pip cannot reach that index (offline, a
proxy, a clock that makes its certificate look expired), the hook tests skip and
say why, rather than fail on the install; where it can, they run.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from promptlint.engine import files

needs_pre_commit = pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None, reason="pre-commit is not installed (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parent.parent
# What pip needs to install the package, and the hook definitions.
HOOK_REPO_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "promptlint", "rules", "docs")

BAD = """Answer from the sources and cite them as [n].

[1] Returns Policy — Returns (score: 0.91)
Damaged goods may be returned within 30 days.

Question: How long do I have to return damaged goods?
"""
FIXED = """Answer from the sources and cite them as [n].

[1] Returns Policy — Returns
Damaged goods may be returned within 30 days.

Question: How long do I have to return damaged goods?
"""
FINDING = (
    "qa.prompt:3:38: PL102 [retrieval-score] Source 1 shows its retrieval score ('score: 0.91'); "
    "the model reads it as an instruction to defer to the top hit"
)


def _env(home: Path) -> dict[str, str]:
    # No GIT_* from the caller (a suite run from a git hook has GIT_INDEX_FILE set),
    # no user or system git config (signing, hooks), and a fixed identity to commit with.
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return env | {
        "PRE_COMMIT_HOME": str(home),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "promptlint tests",
        "GIT_AUTHOR_EMAIL": "tests@promptlint.invalid",
        "GIT_COMMITTER_NAME": "promptlint tests",
        "GIT_COMMITTER_EMAIL": "tests@promptlint.invalid",
    }


def _git(repo: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


def _unreachable_index(env: dict[str, str]) -> str | None:
    """Why pip cannot fetch what the hook's environment installs, or None when it can.

    pip resolves the build backend and the direct dependencies, with its own configuration
    (index, extra indexes, find-links), downloading nothing but their metadata: a second
    or two. Only a fetch that failed skips (pip names it at -vv: a refused connection is
    a debug line); an index that answers without a dependency fails the test, as the
    install would."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    needed = [*project["build-system"]["requires"], *project["project"]["dependencies"]]
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-deps",
               "--retries", "0", "--timeout", "10", "-vv", *needed]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    if result.returncode == 0:
        return None
    output = result.stdout + result.stderr
    unfetched = [line for line in output.splitlines() if line.startswith("Could not fetch URL")]
    assert unfetched, f"pip reached its index but cannot install the hook's dependencies:\n{output}"
    return f"pip cannot reach the index it is configured with, so pre-commit cannot build the hook: {unfetched[0][:300]}"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    env = _env(tmp_path_factory.mktemp("pre-commit-home"))
    reason = _unreachable_index(env)
    if reason:
        pytest.skip(reason)
    return env


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory, env) -> tuple[Path, str]:
    """A git repository holding this checkout's package and hooks, and its commit."""
    repo = tmp_path_factory.mktemp("hook-repo")
    for name in HOOK_REPO_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, repo / name)
    _git(repo, env, "init", "-q")
    _git(repo, env, "add", "-A")
    _git(repo, env, "commit", "-q", "-m", "hook repository")
    return repo, _git(repo, env, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path, env, hook_repo):
    """A git repository using both hooks, holding qa.prompt (with a retrieval score) and notes.csv."""
    path, rev = hook_repo
    config = {"repos": [{"repo": str(path), "rev": rev, "hooks": [{"id": "promptlint"}, {"id": "promptlint-fix"}]}]}
    (tmp_path / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (tmp_path / "qa.prompt").write_text(BAD, encoding="utf-8")
    (tmp_path / "notes.csv").write_text(BAD, encoding="utf-8")
    _git(tmp_path, env, "init", "-q")
    _git(tmp_path, env, "add", "-A")
    return tmp_path


def run_hook(env: dict[str, str], repo: Path, hook_id: str, *names: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pre_commit", "run", hook_id, "--color", "never", "--files", *names]
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def _status(output: str, name: str) -> str:
    """The result pre-commit printed for a hook: Passed, Failed or Skipped."""
    found = re.search(rf"^{re.escape(name)}\.*(?:\(no files to check\))?(Passed|Failed|Skipped)$", output, re.MULTILINE)
    assert found, output
    return found.group(1)


@needs_pre_commit
def test_clean_prompt_passes(env, repo):
    (repo / "qa.prompt").write_text(FIXED, encoding="utf-8")
    result = run_hook(env, repo, "promptlint", "qa.prompt")
    assert (_status(result.stdout, "promptlint"), result.returncode) == ("Passed", 0), result.stdout + result.stderr


@needs_pre_commit
def test_finding_fails_the_hook(env, repo):
    result = run_hook(env, repo, "promptlint", "qa.prompt")
    assert (_status(result.stdout, "promptlint"), result.returncode) == ("Failed", 1), result.stdout + result.stderr
    assert FINDING in result.stdout.splitlines()
    assert (repo / "qa.prompt").read_text(encoding="utf-8") == BAD


@needs_pre_commit
def test_fix_hook_rewrites_the_file(env, repo):
    result = run_hook(env, repo, "promptlint-fix", "qa.prompt")
    # A hook that changes a file fails the commit, so the change can be reviewed and staged.
    assert (_status(result.stdout, "promptlint (fix)"), result.returncode) == ("Failed", 1), result.stdout + result.stderr
    assert "- files were modified by this hook" in result.stdout
    assert (repo / "qa.prompt").read_text(encoding="utf-8") == FIXED


@needs_pre_commit
def test_other_files_are_not_linted(env, repo):
    result = run_hook(env, repo, "promptlint", "notes.csv")
    assert (_status(result.stdout, "promptlint"), result.returncode) == ("Skipped", 0), result.stdout + result.stderr


def test_hooks_take_the_files_promptlint_reads():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert {h["id"]: (h["entry"], h["language"]) for h in hooks} == {
        "promptlint": ("promptlint check", "python"),
        "promptlint-fix": ("promptlint check --fix", "python"),
        "promptlint-format": ("promptlint format", "python"),
    }
    for hook in hooks:
        taken = re.compile(hook["files"])
        for glob in files.DEFAULT_INCLUDE:
            name = glob.replace("*", "prompt")
            assert taken.search(name) and taken.search(name.upper()), f"{hook['id']} does not take {name}"
        assert not taken.search("notes.csv")


@pytest.fixture
def format_repo(repo, env, hook_repo):
    """The repository of ``repo``, using the format hook."""
    path, rev = hook_repo
    config = {"repos": [{"repo": str(path), "rev": rev, "hooks": [{"id": "promptlint-format"}]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    _git(repo, env, "add", "-A")
    return repo


@needs_pre_commit
def test_format_hook_rewrites_the_file_and_then_passes(env, format_repo):
    result = run_hook(env, format_repo, "promptlint-format", "qa.prompt")
    # Like the fix hook: a changed file fails the commit, to be reviewed and staged.
    assert (_status(result.stdout, "promptlint (format)"), result.returncode) == ("Failed", 1), result.stdout + result.stderr
    assert "- files were modified by this hook" in result.stdout
    assert (format_repo / "qa.prompt").read_text(encoding="utf-8") == FIXED
    result = run_hook(env, format_repo, "promptlint-format", "qa.prompt")
    assert (_status(result.stdout, "promptlint (format)"), result.returncode) == ("Passed", 0), result.stdout + result.stderr
    result = run_hook(env, format_repo, "promptlint-format", "notes.csv")
    assert (_status(result.stdout, "promptlint (format)"), result.returncode) == ("Skipped", 0), result.stdout + result.stderr
