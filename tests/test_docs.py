"""The rule reference: generated from the rule modules, committed, and kept current.

docs/rules.md and the README's rule table must be what ``promptlint docs``
writes now; every rule must document itself in the fixed sections and have its
fixtures.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli import docs
from promptlint.cli.commands import main
from promptlint.engine import registry

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety")
RULES = list(registry.all_rules())
STALE = "is stale: run 'promptlint docs' in the checkout's root and commit the result"


def test_rules_page_is_current():
    assert (ROOT / docs.RULES_PAGE).read_text(encoding="utf-8") == docs.render_rules(), f"{docs.RULES_PAGE} {STALE}"


def test_readme_rule_table_is_current():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme == docs.with_rules_table(readme), f"the rule table in README.md {STALE}"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_documents_every_section(rule):
    title, _, body = rule.doc.partition("\n\n")
    assert title and not title.startswith("#"), f"{rule.code}: the docstring starts with a one-line title"
    headings = [line for line in body.splitlines() if line.startswith("## ")]
    assert headings[: len(SECTIONS)] == list(SECTIONS), f"{rule.code}: sections must open with {SECTIONS}"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_has_fixtures(rule):
    folder = FIXTURES / f"{rule.code}-{rule.name}"
    names = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
    for stem in ("bad", "good"):
        assert any(n.startswith(f"{stem}.") and n != "bad.expected" and not n.startswith("bad.fixed.") for n in names), f"{folder} has no {stem} prompt"
    assert "bad.expected" in names, f"{folder} has no bad.expected"


def test_rules_page_has_every_rule():
    page = docs.render_rules()
    for rule in RULES:
        assert f"| [{rule.code}](#{docs.anchor(rule)}) | `{rule.name}` |" in page
        assert f"\n## {rule.code} `{rule.name}`\n" in page


def test_code_fences_keep_their_headings():
    doc = "Title.\n\n## Example\n```\n## Source 2: Returns\n```"
    assert docs._demote(doc) == "Title.\n\n### Example\n```\n## Source 2: Returns\n```"


def test_readme_without_markers_is_an_error():
    with pytest.raises(ValueError, match="rules-table"):
        docs.with_rules_table("# A README\n")


def _docs(*args: str):
    return CliRunner().invoke(main, ["docs", *args], prog_name="promptlint")


def test_docs_command_writes_then_checks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("README.md").write_text("# Title\n\n<!-- rules-table -->\nold table\n<!-- /rules-table -->\n\nMore.\n", encoding="utf-8")

    stale = _docs("--check")
    assert (stale.exit_code, stale.stdout) == (1, "Stale: docs/rules.md (run 'promptlint docs')\nStale: README.md (run 'promptlint docs')\n")
    assert not Path("docs").exists()

    written = _docs()
    assert (written.exit_code, written.stderr) == (0, "Wrote: docs/rules.md\nWrote: README.md\n")
    assert Path(docs.RULES_PAGE).read_text(encoding="utf-8") == docs.render_rules()
    assert Path("README.md").read_text(encoding="utf-8") == f"# Title\n\n<!-- rules-table -->\n{docs.rules_table('docs/rules.md')}<!-- /rules-table -->\n\nMore.\n"

    current = _docs("--check")
    assert (current.exit_code, current.stdout) == (0, "")


def test_docs_command_without_readme_markers_fails(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("README.md").write_text("# Title\n", encoding="utf-8")
    result = _docs()
    assert result.exit_code == 2
    assert "README.md: the README has no '<!-- rules-table -->' ... '<!-- /rules-table -->' markers" in result.stderr
