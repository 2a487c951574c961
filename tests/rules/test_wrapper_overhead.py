"""PL402 counts only what no other rule reports: a field the lexicon says is a score or a
date is PL102's or PL201's, however its key is spelt."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

# The fetch dates below are judged against a fixed day, whatever the clock says.
CONFIG = build({"today": "2026-12-02"}, "test")
TEXTS = ["Damaged goods may be returned within 30 days of delivery with proof of purchase.", "We ship within 2 days."]


def _tool_result(extra: dict) -> str:
    results = [{"title": title, **extra, "text": text} for title, text in zip(["Returns Policy", "Shipping FAQ"], TEXTS)]
    messages = [
        {"role": "system", "content": "Answer from the search results."},
        {"role": "user", "content": "Can I return damaged goods?"},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(results)},
    ]
    return json.dumps({"messages": messages})


# Keys whose words the lexicon reads as a date or a score, none of them in a rule's word list.
REPORTED = [
    {"retrieval_timestamp": "2026-11-30T10:22:03Z", "crawl_time": "2026-11-29T08:00:00Z"},
    {"fetchedOn": "2026-11-30T10:22:03Z", "rerankerConfidence": 0.8123},
    {"indexed_at": "2026-11-30T10:22:03Z", "hybrid_similarity": 0.4412},
]


@pytest.mark.parametrize("extra", REPORTED, ids=lambda e: "+".join(e))
def test_fields_another_rule_reports_are_not_counted_again(extra):
    codes = {f.code for f in lint_text(_tool_result(extra), path="tool.json", config=CONFIG)}
    assert "PL402" not in codes and codes & {"PL102", "PL201"}


def test_a_wrapper_heavy_with_fields_no_rule_reports_is_flagged():
    extra = {"internal_routing_label": "knowledge-base-eu-west-primary-replica", "pipeline_stage_name": "hybrid-retrieval-after-dedup-v2"}
    assert [f.code for f in lint_text(_tool_result(extra), path="tool.json", config=CONFIG)] == ["PL402", "PL402"]
