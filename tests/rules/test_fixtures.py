"""Every rule against its fixtures: exact findings on each bad prompt, none on each good
one, the exact fixed text, and fixes that settle (fixing again changes nothing).

A fixture folder is fixtures/<CODE>-<name>/ with one or more cases:
  bad<case>.<ext>              a prompt (or template) the rule must flag
  bad<case>.expected           the findings, one per line: "line:column CODE"
  bad<case>.fixed.<ext>        the text after --fix (--unsafe-fixes for unsafe rules); absent when no fix applies
  good<case>.<ext>             a prompt the rule must not flag
  config.yaml                  optional rule options
where <case> is empty or "-something" (bad.txt, bad-template.j2, ...).

Each bad prompt also has a snapshot, tests/snapshots/rules/<folder>/<bad file>.snap.yaml
(as ruff keeps one per rule fixture): every finding with its message, flagged text,
tokens, fix title and applicability, and the fixed text's path, so a change to a message
or a fix shows in review. Update with `python -m pytest --snapshot-update`.
"""

from __future__ import annotations

import datetime
import types
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from promptlint.engine import config as config_module
from promptlint.engine import registry
from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

FIXTURES = ROOT / "fixtures"
SNAPSHOTS = ROOT / "tests" / "snapshots" / "rules"
TODAY = "2026-12-02"


def _folder(rule) -> Path:
    return FIXTURES / f"{rule.code}-{rule.name}"


def _config(rule, folder: Path, today: str | None = TODAY):
    """The fixture's config; ``today=None`` leaves the day to the clock."""
    extra = yaml.safe_load((folder / "config.yaml").read_text()) if (folder / "config.yaml").exists() else {}
    return build({"select": [rule.code], **({"today": today} if today else {}), **extra}, str(folder))


def _cases(kind: str) -> list[tuple]:
    cases = []
    for rule in registry.all_rules():
        for path in sorted(_folder(rule).glob(f"{kind}*")):
            if path.suffix != ".expected" and ".fixed" not in path.suffixes and path.suffix != ".yaml":
                cases.append(pytest.param(rule, path, id=f"{rule.code}/{path.name}"))
    return cases


def _stem(path: Path) -> str:
    return path.name[: -len(path.suffix)]


@pytest.mark.parametrize("rule, bad", _cases("bad"))
def test_bad_fixture_findings(rule, bad):
    findings = lint_text(bad.read_text(encoding="utf-8"), path=str(bad), config=_config(rule, bad.parent))
    got = [f"{f.line}:{f.column} {f.code}" for f in findings]
    assert got == (bad.parent / f"{_stem(bad)}.expected").read_text().split("\n")[:-1]


@pytest.mark.parametrize("rule, good", _cases("good"))
def test_good_fixture_is_clean(rule, good):
    assert lint_text(good.read_text(encoding="utf-8"), path=str(good), config=_config(rule, good.parent)) == []


@pytest.mark.parametrize("rule, bad", _cases("bad"))
def test_fixed_output(rule, bad):
    config = _config(rule, bad.parent)
    original = bad.read_text(encoding="utf-8")
    fixed = fix_text(original, path=str(bad), config=config, unsafe=rule.fix != "safe")
    expected = bad.parent / f"{_stem(bad)}.fixed{bad.suffix}"
    if not expected.exists():
        assert fixed == original, "a fix was applied but no fixed output is recorded"
        return
    assert fixed == expected.read_text(encoding="utf-8")
    # Fixed text has nothing fixable left, and fixing it again changes nothing.
    remaining = lint_text(fixed, path=str(bad), config=config)
    assert all(f.fix is None for f in remaining)
    assert fix_text(fixed, path=str(bad), config=config, unsafe=rule.fix != "safe") == fixed


def _snapshot_path(bad: Path) -> Path:
    return SNAPSHOTS / bad.parent.name / f"{bad.name}.snap.yaml"


def _offset(text: str, line: int, column: int) -> int:
    """The offset of a 1-based line and column in ``text``."""
    lines = text.split("\n")
    return sum(len(previous) + 1 for previous in lines[: line - 1]) + column - 1


@pytest.mark.parametrize("rule, bad", _cases("bad"))
def test_bad_fixture_snapshot(rule, bad, snapshots):
    text = bad.read_text(encoding="utf-8")
    findings = lint_text(text, path=str(bad), config=_config(rule, bad.parent))
    fixed = bad.parent / f"{_stem(bad)}.fixed{bad.suffix}"
    snapshots.check(_snapshot_path(bad), {
        "input": str(bad.relative_to(ROOT)),
        "fixed": str(fixed.relative_to(ROOT)) if fixed.exists() else None,  # with --unsafe-fixes for an unsafe rule
        "findings": [
            {
                "at": f"{f.line}:{f.column}",  # as in the .expected file
                "end": f"{f.end_line}:{f.end_column}",
                "code": f.code,
                "name": f.name,
                "severity": f.severity.name.lower(),
                "message": f.message,
                "flagged": text[_offset(text, f.line, f.column) : _offset(text, f.end_line, f.end_column)],
                "tokens": f.tokens,
                "fix": f.fix.description if f.fix else None,
                "applicability": f.fix.applicability.name.lower() if f.fix else "none",
            }
            for f in findings
        ],
    })


def test_no_stale_rule_snapshots(snapshots):
    snapshots.check_none_stale(SNAPSHOTS, {_snapshot_path(case.values[1]) for case in _cases("bad")})


def test_every_rule_has_fixtures_and_docs():
    for rule in registry.all_rules():
        for section in ("## What it does", "## Why is this bad?", "## Example", "## Fix safety"):
            assert section in rule.doc, f"{rule.code} docs lack '{section}'"
        assert list(_folder(rule).glob("bad*")), f"{rule.code} has no bad fixture"
        assert list(_folder(rule).glob("good*")), f"{rule.code} has no good fixture"
        if rule.fix != "none":
            assert list(_folder(rule).glob("*.fixed.*")), f"{rule.code} offers a fix but no fixed output is checked"


TEN_YEARS = datetime.timedelta(days=3653)


class _TenYearsOn(datetime.date):
    """A date whose ``today`` is ten years after the real one."""

    @classmethod
    def today(cls):
        return cls.fromordinal((datetime.date.today() + TEN_YEARS).toordinal())


@pytest.fixture
def clock_ten_years_on(monkeypatch):
    """The config reads a clock ten years ahead: where a run sets no `today`, that is its day."""
    monkeypatch.setattr(config_module, "datetime", types.SimpleNamespace(date=_TenYearsOn, datetime=datetime.datetime))
    return _TenYearsOn.today()


def _findings(path: Path, config) -> list[str]:
    return [f"{f.line}:{f.column} {f.code}" for f in lint_text(path.read_text(encoding="utf-8"), path=str(path), config=config)]


def _fixed(path: Path, config) -> str:
    return fix_text(path.read_text(encoding="utf-8"), path=str(path), config=config, unsafe=True)


def test_the_fixtures_give_the_same_findings_ten_years_on(clock_ten_years_on):
    # The clock reaches the config: a run that names no day is judged ten years on.
    assert build({}, "clock").today == clock_ten_years_on
    dated = []
    for rule, path in (case.values for case in _cases("bad") + _cases("good")):
        expected = (path.parent / f"{_stem(path)}.expected").read_text().split("\n")[:-1] if path.name.startswith("bad") else []
        assert _findings(path, _config(rule, path.parent)) == expected, path
        undated = _config(rule, path.parent, today=None)
        if _findings(path, undated) != expected or _fixed(path, undated) != _fixed(path, _config(rule, path.parent)):
            dated.append(f"{path.parent.name}/{path.name}")
    # Fixtures whose findings or fixed text the clock would change, were `today` not set: what this test guards.
    assert "PL201-unconditional-date/bad.txt" in dated, dated
