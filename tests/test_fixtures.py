"""Every rule against its fixtures: exact findings on the bad prompt, none on the good
one, the exact fixed text, and fixes that settle (fixing again changes nothing).

A fixture folder is fixtures/<CODE>-<name>/ with:
  bad.<ext>          a prompt the rule must flag
  bad.expected       the findings, one per line: "line:column CODE"
  bad.fixed.<ext>    the text after --fix (or --unsafe-fixes for unsafe rules); absent when the rule has no fix
  good.<ext>         a prompt the rule must not flag
  config.yaml        optional rule options
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
import yaml

from promptlint import registry
from promptlint.config import build
from promptlint.lint import fix_text, lint_text

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TODAY = "2026-12-02"


def _folder(rule) -> Path:
    return FIXTURES / f"{rule.code}-{rule.name}"


def _config(rule, folder: Path):
    extra = yaml.safe_load((folder / "config.yaml").read_text()) if (folder / "config.yaml").exists() else {}
    return build({"select": [rule.code], "today": TODAY, **extra}, str(folder))


def _one(folder: Path, stem: str) -> Path:
    found = [p for p in folder.glob(f"{stem}.*") if p.suffix not in (".expected",) and not p.name.startswith(f"{stem}.fixed")]
    assert len(found) == 1, f"{folder}: expected one {stem}.* file, found {found}"
    return found[0]


RULES = list(registry.all_rules())


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_bad_fixture_findings(rule):
    folder = _folder(rule)
    bad = _one(folder, "bad")
    findings = lint_text(bad.read_text(encoding="utf-8"), path=bad.name, config=_config(rule, folder))
    got = [f"{f.line}:{f.column} {f.code}" for f in findings]
    assert got == (folder / "bad.expected").read_text().split("\n")[:-1]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_good_fixture_is_clean(rule):
    folder = _folder(rule)
    good = _one(folder, "good")
    assert lint_text(good.read_text(encoding="utf-8"), path=good.name, config=_config(rule, folder)) == []


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_fixed_output(rule):
    folder = _folder(rule)
    bad = _one(folder, "bad")
    config = _config(rule, folder)
    unsafe = rule.fix == "unsafe" or (folder / "unsafe").exists()
    fixed = fix_text(bad.read_text(encoding="utf-8"), path=bad.name, config=config, unsafe=unsafe)
    expected = folder / f"bad.fixed{bad.suffix}"
    if rule.fix == "none":
        assert not expected.exists()
        assert fixed == bad.read_text(encoding="utf-8")
        return
    assert fixed == expected.read_text(encoding="utf-8")
    # Fixed text has nothing fixable left, and fixing it again changes nothing.
    remaining = lint_text(fixed, path=bad.name, config=config)
    assert all(f.fix is None for f in remaining)
    assert fix_text(fixed, path=bad.name, config=config, unsafe=unsafe) == fixed


def test_every_rule_has_fixtures_and_docs():
    for rule in registry.all_rules():
        for section in ("## What it does", "## Why is this bad?", "## Example", "## Fix safety"):
            assert section in rule.doc, f"{rule.code} docs lack '{section}'"
        assert _folder(rule).is_dir(), f"{rule.code} has no fixture folder"
