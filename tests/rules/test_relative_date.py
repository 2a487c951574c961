"""PL201 on a slot printed as a time before now ("{age} ago"): a date on every source whatever
the slot is named. Generated over template forms, names the lexicon does not hold and the
suffix words, each with a twin where the slot is no time before now."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

FORMS = {
    "t.j2": "Use the notes to answer.\n{{% for d in notes %}}\n({{{{ d.{name} }}}} {suffix})\n{{{{ d.text }}}}\n{{% endfor %}}\nQuestion: {{{{ q }}}}\n",
    "t.py": ('def build(q, texts, stamps):\n    blocks = []\n    for text, {name} in zip(texts, stamps):\n'
             '        blocks.append(f"({{{name}}} {suffix})\\n{{text}}")\n    context = "\\n---\\n".join(blocks)\n'
             '    return f"Use the notes to answer.\\n{{context}}\\nQuestion: {{q}}"\n'),
}
NAMES = ["age", "delta", "elapsed", "since"]


def _pl201(path, name, suffix):
    text = FORMS[path].format(name=name, suffix=suffix)
    return [(f.line, f.code) for f in lint_text(text, path=path, config=CONFIG) if f.code == "PL201"]


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("suffix", ["ago", "前", "назад"])
def test_a_slot_printed_as_a_time_before_now_dates_every_source(path, name, suffix):
    line = 3 if path.endswith(".j2") else 4
    assert _pl201(path, name, suffix) == [(line, "PL201")]


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("suffix", ["agents", "votes", "pages"])
def test_a_slot_printed_as_a_count_is_no_date(path, name, suffix):
    assert _pl201(path, name, suffix) == []
