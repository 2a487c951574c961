"""A separator inside a slot is the expression's, not the header's: "score={{ '%.4f'|format(d.score) }}"
is one field, whatever filters and arguments the slot holds, and the fields beside it are read as before."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02"}, "test")
SCORES = ['{{ "%.4f"|format(doc.score) }}', "{{ doc.score|round(2) }}", "{{ '%.2f' % doc.score }}", "{{ doc.score|default(0)|round(3) }}"]
OTHERS = ["docid={{ doc.docid }}", "tags={{ doc.tags|join(', ') }}", "lang={{ doc.lang|upper }}"]
TEMPLATE = "Answer from the documents.\n{{% for doc in docs %}}\nDocument {{{{ loop.index }}}} ({fields}):\n{{{{ doc.passage }}}}\n{{% endfor %}}\nQuestion: {{{{ query }}}}\n"


@pytest.mark.parametrize("score", SCORES)
@pytest.mark.parametrize("other", OTHERS)
@pytest.mark.parametrize("first", [True, False])
def test_a_score_slot_with_filters_is_one_field(score, other, first):
    fields = f"score={score}, {other}" if first else f"{other}, score={score}"
    text = TEMPLATE.format(fields=fields)
    found = [(f.code, f.line) for f in lint_text(text, path="t.j2", config=CONFIG) if f.code == "PL102"]
    assert found == [("PL102", 3)]
    # A fix, when one is offered, takes the score and leaves the other field whole (the slot's "|" and "," too).
    fixed = fix_text(text, path="t.j2", config=CONFIG)
    assert fixed == text or f"Document {{{{ loop.index }}}} ({other}):\n" in fixed


@pytest.mark.parametrize("other", OTHERS)
def test_the_clean_twin_has_no_score(other):
    text = TEMPLATE.format(fields=other)
    assert [f.code for f in lint_text(text, path="t.j2", config=CONFIG) if f.code == "PL102"] == []
