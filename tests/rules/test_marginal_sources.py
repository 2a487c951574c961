"""PL107: weaker hits added to the relevant ones are taken out by an unsafe fix; a loop over
weaker hits alone has no fix (what to send is then decided at retrieval)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL107"]}, "test")
TEMPLATE = """\
Answer from the sources and cite them as [n].
{{% for doc in {collection} %}}
[{{{{ loop.index }}}}] {{{{ doc.meta.title }}}}
{{{{ doc.content }}}}
{{% endfor %}}
Question: {{{{ question }}}}
"""

CASES = [
    ("relevant + marginal[:3]", "relevant"),
    ("relevant+marginal", "relevant"),
    ("relevant + (extra or [])", "relevant"),
    ("relevant | list + fallback[:2]", "relevant | list"),
    ("docs + marginal[:3] + others", "docs"),
    ("docs + near_misses + top[:1]", "docs + top[:1]"),
    ("marginal", None),
    ("fallback + relevant", None),
    ("low_score_docs", None),
    # RAFT's distractor documents, irrelevant on purpose, sent beside the oracle.
    ("oracle + distractors", "oracle"),
    ("distractor_docs", None),
]


@pytest.mark.parametrize(("collection", "fixed"), CASES)
def test_the_fix_is_unsafe_and_only_when_weaker_hits_are_added(collection, fixed):
    source = TEMPLATE.format(collection=collection)
    [finding] = lint_text(source, path="t.j2", config=CONFIG)
    assert finding.code == "PL107"
    if fixed is None:
        assert finding.fix is None
        assert fix_text(source, path="t.j2", config=CONFIG, unsafe=True) == source
        return
    assert finding.fix.applicability.name == "UNSAFE"
    # Never with the safe fixes; with the unsafe ones, in one pass, to a clean template.
    assert fix_text(source, path="t.j2", config=CONFIG) == source
    result = fix_text(source, path="t.j2", config=CONFIG, unsafe=True)
    assert result == TEMPLATE.format(collection=fixed)
    assert lint_text(result, path="t.j2", config=CONFIG) == []
