"""A message quotes the file's own text: the label and value as written, never a normalised name
(`'updated at'` for `Updated:`) nor a slot the file does not hold (issue 29)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT
from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"select": ["ALL"], "today": "2026-12-02"}, "test")
# A rule fixture written as text or a template: JSON strings write their text with escapes.
FIXTURES = sorted(p for p in (ROOT / "fixtures").glob("PL*/*") if p.suffix in (".txt", ".j2", ".md", ".prompt", ".py", ".ts") and "fixed" not in p.name)


def _plain(text: str) -> str:
    return " ".join(text.split()).lower()


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_quote_in_a_message_is_text_of_the_file(path: Path):
    raw = path.read_text(encoding="utf-8")
    findings = lint_text(raw, path=path.name, config=CONFIG)
    quotes = [q for f in findings for q in re.findall(r"\('([^']+)'\)", f.message)]
    assert [q for q in quotes if _plain(q) not in _plain(raw)] == []


def test_the_fixtures_quote_something():
    # The check above reaches messages that quote: most fixtures' findings name a field.
    quoting = sum(bool(re.search(r"\('[^']+'\)", f.message)) for p in FIXTURES for f in lint_text(p.read_text(encoding="utf-8"), path=p.name, config=CONFIG))
    assert quoting >= 20
