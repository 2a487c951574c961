"""A loop over a collection no word names is a sources loop by its shape: one value of the item printed
bare, beside values under labels that name metadata (fullstack-gpt's map-rerank answers: the answer,
then `Source:` and `Date:`). In a Jinja template, in Handlebars, and in code that hands the text it
builds to a prompt's variable."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")
COLLECTIONS = ["answers", "candidates", "findings"]
LABELS = [("Source", "source"), ("Date", "date"), ("Published", "published_at")]


def _jinja(collection, label, key, bare=True):
    value = "{{ a.answer }}" if bare else "Answer: {{ a.answer }}"
    return (f"Pick the best answer.\n\n{{% for a in {collection} %}}{value}\nURL: {{{{ a.url }}}}\n{label}: {{{{ a.{key} }}}}\n\n{{% endfor %}}"
            "\nQuestion: {{ question }}\n")


def _codes(text, path):
    return [f.code for f in lint_text(text, path=path, config=CONFIG)]


@pytest.mark.parametrize("collection", COLLECTIONS)
@pytest.mark.parametrize("label, key", LABELS)
def test_a_bare_value_beside_labelled_metadata_is_the_item_s_text(collection, label, key):
    codes = _codes(_jinja(collection, label, key), "t.j2")
    assert ("PL201" in codes) == (label != "Source")
    assert "PL202" not in codes
    # The twin: the value under a label of its own is one more field; nothing says which is the text.
    assert "PL201" not in _codes(_jinja(collection, label, key, bare=False), "t.j2")


CODE = '''def choose(chain, answers, question):
    condensed = "\\n\\n".join(
        f"{a['answer']}\\nSource:{a['source']}\\nDate:{a['date']}\\n" for a in answers
    )
    return CALL
'''


@pytest.mark.parametrize("call, fills", [
    ('chain.invoke({"question": question, "answers": condensed})', True),
    ("CHOOSE_PROMPT.format(question=question, answers=condensed)", True),
    ('"Answers: {}".format(condensed)', False),  # a literal's format: any text's
    ("save(condensed)", False),
])
def test_code_that_hands_the_text_to_a_prompt_variable_builds_sources(call, fills):
    codes = _codes(CODE.replace("CALL", call), "app.py")
    assert ("PL201" in codes) == fills
