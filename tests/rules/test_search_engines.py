"""PL202 names a web search API a result came from as it names a connector (blind79 Gmpho: `'source': 'DuckDuckGo'` on
every result of a run's web search). The twin: a publisher under the same label (a site that wrote the page) is
where the text comes from, not the system that fetched it."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"select": ["PL202"], "today": "2026-12-02"}, "test")


def _results(source: str) -> str:
    results = [{"title": "Runner index", "snippet": "Form guide for every runner of the meeting.", "source": source},
               {"title": "Race cards", "snippet": "The draw, the weights and the jockeys of each race.", "source": source}]
    return "Answer from the web results.\n\n" + json.dumps(results) + "\n\nQuestion: Who runs in race 1?\n"


@pytest.mark.parametrize("engine", ["DuckDuckGo", "Tavily", "SerpAPI", "Serper", "Brave Search", "SearXNG"])
def test_a_web_search_api_is_a_source_system(engine):
    assert [f.code for f in lint_text(_results(engine), path="p.txt", config=CONFIG)] == ["PL202", "PL202"]


@pytest.mark.parametrize("publisher", ["Reuters", "Racing Post"])
def test_a_publisher_is_no_source_system(publisher):
    assert lint_text(_results(publisher), path="p.txt", config=CONFIG) == []
