"""The rule reference: generated from the rule modules, committed, and kept current.

The rule pages (docs/rules/) and the README's rule table must be what
``promptlint docs`` writes now; every rule must document itself in the fixed sections and have its
fixtures.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli import docs
from promptlint.cli.commands import main
from promptlint.engine import registry
from promptlint.model.rule import DOCS_URL

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety")
RULES = list(registry.all_rules())
STALE = "is stale: run 'promptlint docs' in the checkout's root and commit the result"


def test_rule_pages_are_current():
    wanted = docs.pages()
    for path, text in wanted.items():
        assert (ROOT / path).read_text(encoding="utf-8") == text, f"{path} {STALE}"
    on_disk = {str(p.relative_to(ROOT)) for p in (ROOT / docs.RULES_DIR).glob("*.md")}
    assert on_disk == set(wanted), f"{docs.RULES_DIR} {STALE}"
    assert len(wanted) == len(RULES) + 1


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


def test_rules_index_links_every_rule_to_its_page():
    page = docs.render_index()
    for rule in RULES:
        assert f"| [{rule.code}]({rule.code}.md) | `{rule.name}` | {rule.summary} |" in page
        assert docs.render_rule(rule).startswith(f"# {rule.code} `{rule.name}`\n")


def test_rule_row_shows_the_measured_effect():
    row = next(line for line in docs.rules_table().splitlines() if line.startswith("| [PL102]"))
    assert row == "| [PL102](PL102.md) | `retrieval-score` | A retrieval, rerank or similarity score is shown to the model | −0.02 correctness, 4 tokens a source | safe | on |"
    tool = next(line for line in docs.rules_table().splitlines() if line.startswith("| [PL900]"))
    assert tool == "| [PL900](PL900.md) | `syntax-error` | The input cannot be parsed | — | none | on |"


def test_every_rule_about_prompts_states_its_effect():
    assert [r.code for r in RULES if not r.effect] == ["PL900", "PL901", "PL902"]


def test_editor_links_point_to_the_installed_page():
    rule = registry.get("PL102")
    uri = docs.reference_uri(rule)
    assert uri.startswith("file://") and uri.endswith("/rules/PL102.md")
    assert Path(uri.removeprefix("file://")).read_text(encoding="utf-8") == docs.render_rule(rule)


def test_readme_without_markers_is_an_error():
    with pytest.raises(ValueError, match="rules-table"):
        docs.with_rules_table("# A README\n")


def _docs(*args: str):
    return CliRunner().invoke(main, ["docs", *args], prog_name="promptlint")


def test_docs_command_writes_then_checks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("README.md").write_text("# Title\n\n<!-- rules-table -->\nold table\n<!-- /rules-table -->\n\nMore.\n", encoding="utf-8")

    stale = _docs("--check")
    Path(docs.RULES_DIR).mkdir(parents=True)
    Path(docs.RULES_DIR, "PL999.md").write_text("# A rule that is gone\n", encoding="utf-8")
    pages = [*docs.pages(), "README.md"]

    stale = _docs("--check")
    assert (stale.exit_code, stale.stdout) == (1, "".join(f"Stale: {p} (run 'promptlint docs')\n" for p in [*pages, "docs/rules/PL999.md"]))
    assert sorted(Path(docs.RULES_DIR).iterdir()) == [Path(docs.RULES_DIR, "PL999.md")]

    written = _docs()
    assert (written.exit_code, written.stderr) == (0, "".join(f"Wrote: {p}\n" for p in pages) + "Removed: docs/rules/PL999.md\n")
    assert all(Path(path).read_text(encoding="utf-8") == text for path, text in docs.pages().items())
    assert not Path(docs.RULES_DIR, "PL999.md").exists()
    assert Path("README.md").read_text(encoding="utf-8") == f"# Title\n\n<!-- rules-table -->\n{docs.rules_table('docs/rules/')}<!-- /rules-table -->\n\nMore.\n"

    current = _docs("--check")
    assert (current.exit_code, current.stdout) == (0, "")


def test_docs_command_without_readme_markers_fails(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("README.md").write_text("# Title\n", encoding="utf-8")
    result = _docs()
    assert result.exit_code == 2
    assert "README.md: the README has no '<!-- rules-table -->' ... '<!-- /rules-table -->' markers" in result.stderr


README_LIMIT = 300  # lines: the rest of the documentation is the site's (docs/)


def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_is_short_and_starts_with_the_two_commands():
    readme = _readme()
    assert readme.count("\n") <= README_LIMIT
    commands = readme.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split("  ", 1)[0] for line in commands] == [
        "pip install . && promptlint check fixtures/atlas/before.txt",
        "pip install -e '.[test]' && python -m pytest -q",
    ]
    # .ci/run runs the README's test command.
    assert "python -m pytest -q" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _fence_after(text: str, marker: str) -> str:
    """The body of the first code fence after the marker comment."""
    after = text.split(marker, 1)[1]
    return after.split("```", 1)[1].split("\n", 1)[1].split("```", 1)[0]


def test_readme_example_shows_what_check_prints(tmp_path, monkeypatch):
    readme = _readme()
    Path(tmp_path, "prompt.txt").write_text(_fence_after(readme, "<!-- example: prompt.txt -->"), encoding="utf-8")
    shown = _fence_after(readme, "<!-- example-output: promptlint check prompt.txt -->")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "prompt.txt"], prog_name="promptlint")
    assert result.exit_code == 1
    assert shown == f"$ promptlint check prompt.txt\n{result.stdout}{result.stderr}"


def test_readme_links_to_pages_that_exist():
    links = re.findall(r"\]\(((?:docs/)[^)#]+)", _readme())
    assert len(links) > 10
    assert [link for link in links if not (ROOT / link).is_file()] == []


def test_site_url_is_the_one_help_links_use():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert f"\nsite_url: {DOCS_URL}\n" in config
    assert registry.get("PL102").help_uri == f"{DOCS_URL}rules/PL102/"
    assert (ROOT / "docs" / "rules" / "PL102.md").is_file()


def test_docs_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
    pytest.importorskip("material", reason="the docs extra is not installed: pip install -e '.[docs]'")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "site" / "rules" / "PL102" / "index.html").read_text(encoding="utf-8")
    assert "retrieval-score" in page
    # The architecture page is ARCHITECTURE.md itself, included when the site is built.
    assert "tests/test_layers.py" in (tmp_path / "site" / "architecture" / "index.html").read_text(encoding="utf-8")
