"""The labelled public prompts in ../shared/corpus: what must fire fires, nothing else does.

The manifest says per file which rules must fire (`expect`), which may (`allow`,
and the advisory ones the labeller saw); any other finding is a false positive.
Every file is judged: assembled prompts, Jinja and Prompty templates, and format
strings read as text. The known misses are listed with their reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from promptlint.config import build
from promptlint.lint import lint_text

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
MANIFEST = CORPUS / "manifest.yaml"


def _items():
    if not MANIFEST.exists():
        return []
    return yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))["items"]


# Files the linter does not judge as labelled yet, and why.
KNOWN = {
    "langchain-stuff-qa-prompt.txt": "holds two alternative prompts (completion and chat) in one file",
}


def _case(item):
    marks = [pytest.mark.xfail(reason=KNOWN[item["file"]], strict=True)] if item["file"] in KNOWN else []
    return pytest.param(item, id=item["file"], marks=marks)


@pytest.mark.skipif(not MANIFEST.exists(), reason="the shared corpus is not beside this checkout")
def test_corpus_is_there():
    assert len(_items()) >= 50


@pytest.mark.parametrize("item", [_case(item) for item in _items()])
def test_prompt_matches_manifest(item):
    text = (CORPUS / item["file"]).read_text(encoding="utf-8")
    names = {f.name for f in lint_text(text, path=item["file"], config=build({"today": "2026-12-02"}, "corpus"))}
    expected = set(item.get("expect") or [])
    allowed = expected | set(item.get("allow") or []) | set(item.get("advisory") or [])
    assert expected <= names, f"missed: {sorted(expected - names)}"
    assert names <= allowed, f"false positives: {sorted(names - allowed)}"


@pytest.mark.parametrize("item", _items(), ids=lambda item: item["file"])
def test_every_corpus_file_parses(item):
    text = (CORPUS / item["file"]).read_text(encoding="utf-8")
    findings = lint_text(text, path=item["file"], config=build({"select": ["ALL"], "today": "2026-12-02"}, "corpus"))
    assert all(f.code != "PL900" for f in findings)
