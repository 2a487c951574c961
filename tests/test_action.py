"""The GitHub Action (action.yml): its shape, and its shell steps run here as a runner would run them.

A runner substitutes ``${{ ... }}`` in ``env`` and runs each ``run`` with ``bash -e``;
the test does the same with the values a workflow would pass, so what is checked is
the script a workflow runs, not a copy of it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}
FIXTURE = ROOT / "fixtures" / "PL102-retrieval-score" / "bad.txt"
PROMPTLINT = Path(sys.executable).with_name("promptlint")


def test_action_is_composite_with_its_inputs_and_output():
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"paths", "args", "version", "sarif", "python-version"}
    assert ACTION["outputs"] == {"findings": {"description": ACTION["outputs"]["findings"]["description"], "value": "${{ steps.check.outputs.findings }}"}}
    assert list(STEPS) == ["Set up Python", "Install promptlint", "Check"]
    assert STEPS["Set up Python"]["uses"].startswith("actions/setup-python@")
    assert STEPS["Check"]["id"] == "check"
    assert all(step.get("shell") == "bash" for step in ACTION["runs"]["steps"] if "run" in step)


def _run(step: str, env: dict[str, str], cwd: Path, bin_dir: Path, runner: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The step's script under ``bash -e``, as a runner runs it: the step's env filled in from ``env``,
    the runner's own variables (``GITHUB_OUTPUT``) from ``runner``, and ``bin_dir`` first on the PATH."""
    assert set(STEPS[step]["env"]) == set(env), f"{step} takes {sorted(STEPS[step]['env'])}"
    full = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", **(runner or {}), **env}
    return subprocess.run(["bash", "-e", "-c", STEPS[step]["run"]], cwd=cwd, env=full, capture_output=True, text=True)


@pytest.mark.parametrize(("version", "spec"), [("", str(ROOT)), ("0.1.0", "promptlint-rag==0.1.0")])
def test_install_step_installs_the_actions_ref_or_the_given_release(tmp_path, version, spec):
    # A stand-in python records what pip would install: the test's own environment stays as it is.
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "python").write_text(f'#!/bin/sh\necho "$@" > "{tmp_path / "args"}"\n', encoding="utf-8")
    (shim / "python").chmod(0o755)
    result = _run("Install promptlint", {"VERSION": version, "ACTION_PATH": str(ROOT)}, tmp_path, shim)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "args").read_text(encoding="utf-8") == f"-m pip install --quiet --disable-pip-version-check {spec}\n"


def _check(tmp_path: Path, args: str = "", sarif: str = "") -> tuple[subprocess.CompletedProcess, str]:
    """The Check step over a repository with the PL102 fixture and a clean prompt; its result and what it wrote to GITHUB_OUTPUT."""
    work = tmp_path / "repo"
    (work / "prompts").mkdir(parents=True)
    shutil.copy(FIXTURE, work / "prompts" / "answer.txt")
    shutil.copy(FIXTURE.with_name("good.txt"), work / "prompts" / "clean.txt")
    output = tmp_path / "github_output"
    output.touch()
    env = {"PATHS": "prompts", "ARGS": f"--no-cache {args}", "SARIF": sarif}
    result = _run("Check", env, work, PROMPTLINT.parent, {"GITHUB_OUTPUT": str(output)})
    return result, output.read_text(encoding="utf-8")


def test_check_step_annotates_counts_and_fails_on_findings(tmp_path):
    result, output = _check(tmp_path)
    annotations = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert result.returncode == 1, result.stderr
    assert output == "findings=4\n"
    assert len(annotations) == 4
    assert annotations[0].startswith("::warning file=prompts/answer.txt,line=3,col=66,endLine=3,endColumn=70,title=PL102 (retrieval-score)::")
    assert not (tmp_path / "repo" / "sarif.json").exists()


def test_check_step_passes_args_and_writes_sarif(tmp_path):
    result, output = _check(tmp_path, args="--ignore PL102 --select PL1", sarif="sarif.json")
    assert (result.returncode, output, result.stdout) == (0, "findings=0\n", "")

    result, output = _check(tmp_path / "again", sarif="sarif.json")
    assert (result.returncode, output) == (1, "findings=4\n")
    sarif = json.loads((tmp_path / "again" / "repo" / "sarif.json").read_text(encoding="utf-8"))
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results] == [("PL102", 3), ("PL102", 6), ("PL102", 9), ("PL102", 14)]
    assert not list((tmp_path / "again" / "repo").glob("*.partial"))


def test_check_step_stops_on_a_usage_error(tmp_path):
    result, output = _check(tmp_path, args="--select PL999", sarif="sarif.json")
    assert result.returncode == 2
    assert output == "findings=0\n"
    assert not (tmp_path / "repo" / "sarif.json").exists()
