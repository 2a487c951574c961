"""bench/census.py labels: a census judged against files labelled by reading, before anything ran."""

from __future__ import annotations

import importlib.util

from conftest import ROOT

SPEC = importlib.util.spec_from_file_location("bench_census", ROOT / "bench" / "census.py")
census = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(census)


def _finding(path, line, name, code, duplicate_of=None):
    return {"path": path, "line": line, "name": name, "code": code, "message": f"{name} here", "duplicate_of": duplicate_of}


CENSUS = [{"repo": "app", "root": "/r/app", "findings": [
    _finding("prompts.py", 12, "cache-boundary", "PL305"),          # expected in the prompt of lines 10-20: right
    _finding("prompts.py", 42, "retrieval-score", "PL102"),         # allowed in the prompt of lines 40-44: debatable
    _finding("prompts.py", 60, "chunk-ordinal", "PL203"),           # in no labelled prompt: wrong
    _finding("ui.js", 3, "cache-boundary", "PL305"),                # a file that holds no prompt: wrong
    _finding("other.py", 5, "retrieval-score", "PL102"),            # not labelled: apart
    _finding("prompts.py", 13, "missing-title", "PL205"),           # advisory: not judged
    _finding("copy.py", 12, "cache-boundary", "PL305", duplicate_of="prompts.py"),  # a folded copy: not judged
]}]
LABELS = [{"files": [
    {"file": "/r/app/prompts.py", "prompts": [{"lines": [10, 20], "expect": ["cache-boundary"]}, {"lines": [40, 44], "allow": ["retrieval-score"]}]},
    {"file": "/r/app/ui.js", "prompts": []},
], "main_prompts": [
    {"repo": "app", "file": "/r/app/answer.py", "expect": ["cache-boundary", "derived-text"], "related": ["/r/app/prompts.py:10-20 (system prompt)"]},
    # The evidence cites where a rule lives: the score rendered by the retriever's file, lines 40-44.
    {"repo": "app", "file": "/r/app/answer.py", "expect": ["retrieval-score", "chunk-ordinal"],
     "cited": {"retrieval-score": ["/r/app/prompts.py:40-44"], "chunk-ordinal": ["/r/app/prompts.py:70-72"]}},
]}]


def test_each_finding_is_judged_by_the_prompt_that_holds_it():
    verdicts, lines = census.judged_by_labels(CENSUS, LABELS)
    assert dict(verdicts) == {"right": 1, "debatable": 1, "wrong": 2, "unlabelled": 1}
    assert [line.split()[:3] for line in lines] == [["debatable", "app", "prompts.py:42"], ["wrong", "app", "prompts.py:60"],
                                                      ["wrong", "app", "ui.js:3"], ["unlabelled", "app", "other.py:5"]]


def test_a_main_prompts_pattern_is_found_in_its_file_or_a_related_one_or_where_its_evidence_cites():
    found = [(rule, hit, cited) for _, rule, hit, cited in census.main_prompts_found(CENSUS, LABELS)]
    # Strict: in the file or a related one. Second figure: at a cited place too (give or take a few lines), not elsewhere.
    assert found == [("cache-boundary", True, True), ("derived-text", False, False), ("retrieval-score", False, True), ("chunk-ordinal", False, False)]
