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

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
MANIFEST = CORPUS / "manifest.yaml"


def _items():
    if not MANIFEST.exists():
        return []
    return yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))["items"]


# Files the linter does not judge as labelled yet, and why. ACCURACY marks the files
# added to the corpus after the rules were written (issue 12): each comes off this list
# as soon as it passes, which the strict xfail enforces.
ACCURACY = "accuracy issue: not yet judged as labelled"
KNOWN = {
    "graphiti-context-string-fact-dates.txt": ACCURACY,
    "local-deep-researcher-summarize-sources.txt": ACCURACY,
    "verba-window-retriever-relevancy.txt": ACCURACY,
    "dbgpt-chat-knowledge-template-en.py": ACCURACY,
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


# The corpus-wide figures, known misses included. The floors are issue 12's goal,
# precision >= 0.97 and recall >= 0.95, which the corpus meets (1.00 and 0.96 today).
# Advisory rules are never counted, as in ../shared/tools/corpus_score.py.
PRECISION_FLOOR = 0.97
RECALL_FLOOR = 0.95
ADVISORY = {"missing-heading-path", "missing-title", "whole-document-escalation", "context-budget",
            "unconditional-field"}


@pytest.mark.skipif(not MANIFEST.exists(), reason="the shared corpus is not beside this checkout")
def test_corpus_figures(capsys):
    found = false = missed = 0
    config = build({"today": "2026-12-02"}, "corpus")
    for item in _items():
        text = (CORPUS / item["file"]).read_text(encoding="utf-8")
        names = {f.name for f in lint_text(text, path=item["file"], config=config)} - ADVISORY
        expected = set(item.get("expect") or []) - ADVISORY
        allowed = expected | set(item.get("allow") or []) | set(item.get("advisory") or [])
        found += len(expected & names)
        missed += len(expected - names)
        false += len(names - allowed)
    precision = found / (found + false) if found + false else 1.0
    recall = found / (found + missed) if found + missed else 1.0
    with capsys.disabled():
        print(f"\ncorpus: precision={precision:.2f} recall={recall:.2f} "
              f"(found {found}, false {false}, missed {missed}) over {len(_items())} files")
    assert precision >= PRECISION_FLOOR
    assert recall >= RECALL_FLOOR


@pytest.mark.parametrize("item", [pytest.param(item, id=item["file"]) for item in _items()])
def test_every_corpus_file_parses(item):
    text = (CORPUS / item["file"]).read_text(encoding="utf-8")
    findings = lint_text(text, path=item["file"], config=build({"select": ["ALL"], "today": "2026-12-02"}, "corpus"))
    assert all(f.code != "PL900" for f in findings)
