"""A source's field is named by the item's key, the better witness ("distance_m" is meters), unless the key is a
kind of what the printed label names that the lexicon does not know: `Relevance Score: {llm_score}` shows a
score the model reads as a relevance score, whatever the code calls it. A key that is no kind of it keeps its
own name (`Distance: {{ d.distance_m }}`), and so does a label that names another kind (`Credit score:`)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-06", "select": ["PL102"]}, "test")
JINJA = "Answer from the sources.\n{% for c in chunks %}\n[{{ loop.index }}] {{ c.title }}\nLABEL: {{ c.KEY }}\n{{ c.text }}\n{% endfor %}\nQuestion: {{ question }}\n"
PYTHON = '''def format_context(chunks):
    parts = []
    for i, c in enumerate(chunks, 1):
        parts.append(f"[{i}] {c['title']}")
        parts.append(f"LABEL: {c['KEY']}")
        parts.append(f"Content: {c['text']}")
    return "\\n".join(parts)
'''
CASES = [
    ("Relevance Score", "llm_score", True),
    ("Similarity", "judge_score", True),
    ("Relevance", "custom_score", True),
    ("Distance", "distance_m", False),
    ("Credit score", "credit_score", False),
    ("Score", "score", True),
]


@pytest.mark.parametrize(("path", "template"), [("t.j2", JINJA), ("context.py", PYTHON)])
@pytest.mark.parametrize(("label", "key", "reported"), CASES)
def test_a_label_names_a_key_of_a_kind_it_does_not_know(path, template, label, key, reported):
    text = template.replace("LABEL", label).replace("KEY", key)
    assert [f.code for f in lint_text(text, path=path, config=CONFIG)] == (["PL102"] if reported else [])


# A loop's one-letter variable says nothing of what it holds; the label printed before it does. Seen in blind87
# jlonge4: `f"Context: {c} (Page: {s}, File: {f})" for c, s, f in zip(context, sources, files)`.
ZIPPED = {
    "context.py": 'def context(docs, values, files):\n    return "\\n".join([f"Context: {c} (LABEL{s}, File: {f})" for c, s, f in zip(docs, values, files)])\n\n\n'
    'def prompt(question, docs, values, files):\n    return f"Answer from the context.\\n{context(docs, values, files)}\\nQuestion: {question}"\n',
    "context.ts": "export function prompt(question: string, docs: Row[]): string {\n  const context = docs.map(([c, s, f]) => `Context: ${c} (LABEL${s}, File: ${f})`).join('\\n');\n"
    "  return `Answer from the context.\\n${context}\\nQuestion: ${question}`;\n}\n",
}


@pytest.mark.parametrize("path", sorted(ZIPPED))
@pytest.mark.parametrize(("label", "reported"), [("Page: ", False), ("Section: ", False), ("Score: ", True), ("", True)])
def test_a_label_names_what_a_one_letter_variable_holds(path, label, reported):
    text = ZIPPED[path].replace("LABEL", label)
    assert [f.code for f in lint_text(text, path=path, config=CONFIG)] == (["PL102"] if reported else [])


# A value formatted in a string of its own inside a field (`quoteattr(f'{similarity:.6f}')`) is that value: the
# attribute names it, and its slot is a slot. Seen in blind88 SentimentalK.
FORMATTED = '''from xml.sax.saxutils import quoteattr


def build_context(chunks):
    parts = []
    for c in chunks:
        value = c.get("KEY", 0.0)
        parts.append(f"<chunk title={quoteattr(c['title'])} ATTRIBUTE={quoteattr(f'{value:.6f}')}>\\n{c['text']}\\n</chunk>")
    return "\\n".join(parts)
'''


@pytest.mark.parametrize(("attribute", "key", "reported"), [
    ("cosine_similarity", "cosine_similarity", True), ("relevance", "value", True), ("weight_kg", "weight_kg", False),
])
def test_a_value_formatted_in_a_string_of_its_own_is_read(attribute, key, reported):
    findings = lint_text(FORMATTED.replace("ATTRIBUTE", attribute).replace("KEY", key), path="context.py", config=CONFIG)
    assert [(f.code, f.line) for f in findings] == ([("PL102", 8)] if reported else [])
