"""The order code gives the sources before it renders them: a sort by a date is PL302, in code as in a template.

Each case sorts the retrieved items one way and renders them in a loop; its twin sorts them by a key
that is no date (a score), or binds the name anew before the loop, and is clean.
"""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

RENDER = '        parts.append(f"## {doc.title}\\n{doc.page_content}")\n'
# How the code orders `docs` before the loop (KEY is the key function, NAME the key's name).
ORDERS = {
    "bound again": "    docs = sorted(docs, key=KEY, reverse=True)\n    parts = []\n    for doc in docs:\n" + RENDER,
    "sorted in place": "    docs.sort(key=KEY)\n    parts = []\n    for doc in docs:\n" + RENDER,
    "sorted in the loop": "    parts = []\n    for doc in sorted(docs, key=KEY):\n" + RENDER,
    "in an if": "    if newest_first:\n        docs = sorted(docs, key=KEY)\n    parts = []\n    for i, doc in enumerate(docs, 1):\n" + RENDER,
    "a data frame": "    frame = frame.sort_values(by=NAME).head(5)\n    parts = []\n    for _, doc in frame.iterrows():\n" + RENDER,
}
# The key, by the name it reads.
KEYS = {
    "attribute": "lambda d: d.NAME",
    "subscript": 'lambda d: d["NAME"]',
    "get": 'lambda d: d.get("NAME", "")',
    "metadata": 'lambda d: d.metadata["NAME"]',
    "itemgetter": 'itemgetter("NAME")',
}


def _source(order: str, key: str, name: str) -> str:
    body = ORDERS[order].replace("KEY", KEYS[key]).replace("NAME", repr(name) if order == "a data frame" else name)
    return "def build_context(docs, frame, newest_first):\n" + body + '    return "\\n\\n".join(parts)\n'


@pytest.mark.parametrize("order", sorted(ORDERS))
@pytest.mark.parametrize("key", sorted(KEYS))
@pytest.mark.parametrize("name", ["published_at", "updated", "date"])
def test_a_collection_sorted_by_a_date_before_its_loop_is_reported(order, key, name):
    source = _source(order, key, name)
    found = [(f.code, f.line) for f in lint_text(source, path="build.py", config=CONFIG)]
    assert found == [("PL302", source.count("\n", 0, source.index("parts.append")) + 1)]
    # The twin: sorted by a score, which is rank order.
    assert lint_text(_source(order, key, "score"), path="build.py", config=CONFIG) == []


def test_a_name_bound_anew_before_the_loop_has_lost_its_order():
    source = _source("bound again", "attribute", "date").replace("    parts = []\n", "    docs = fetch_again()\n    parts = []\n")
    assert lint_text(source, path="build.py", config=CONFIG) == []


def test_a_sort_after_the_loop_is_not_its_order():
    source = "def build_context(docs):\n    parts = []\n    for doc in docs:\n" + RENDER + "    docs.sort(key=lambda d: d.date)\n    return parts\n"
    assert lint_text(source, path="build.py", config=CONFIG) == []
