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
    ("relevant + extra_docs", "relevant"),
    # A corrective-RAG grader's "ambiguous" hits, and weak ones, added after the correct ones.
    ("correct_chunks + ambiguous_chunks", "correct_chunks"),
    ("relevant + weak_matches[:2]", "relevant"),
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


@pytest.mark.parametrize("collection", ["other_chunks", "extra_docs", "more_results", "backup_hits", "others + relevant"])
def test_a_list_named_only_as_added_is_weaker_only_when_added_after_another(collection):
    """"other", "extra", "more" and "backup" say a list adds to another, not that its hits are weaker: a loop over
    `other_chunks` alone held the chunks of neither company a filing assistant grouped (blind82 indhra, a false PL107)."""
    assert lint_text(TEMPLATE.format(collection=collection), path="t.j2", config=CONFIG) == []


def test_a_list_built_apart_from_the_grouped_ones_is_not_weaker_hits():
    source = """\
def build(query, chunks, apple, tesla):
    parts = []
    other_chunks = [c for c in chunks if c not in apple and c not in tesla]
    for chunk in other_chunks:
        parts.append(f'<context source="{chunk['document']}">\\n{chunk['text']}\\n</context>')
    context = "\\n".join(parts)
    return f"<retrieved_context>\\n{context}\\n</retrieved_context>\\n\\nQuestion: {query}"
"""
    assert lint_text(source, path="llm.py", config=CONFIG) == []
    assert [f.code for f in lint_text(source.replace("other_chunks", "marginal_chunks"), path="llm.py", config=CONFIG)] == ["PL107"]


@pytest.mark.parametrize("collection", ["extracted_snippet_queue", "otherwise", "moreover", "extraction_results"])
def test_a_name_that_only_opens_like_a_word_for_weaker_hits_is_none(collection):
    """"extra" names weaker hits as a word, not as the start of "extracted" (storm's extracted_snippet_queue was
    PL107 in the census, judged wrong)."""
    assert lint_text(TEMPLATE.format(collection=collection), path="t.j2", config=CONFIG) == []


# The graded hits joined into the context: the lists spread into one, in Python and JavaScript (blind85 Abhinavsuri90).
SPREAD = {
    "answer.py": ('def answer(query, graded):\n    correct = [g for g in graded if g.grade == "CORRECT"]\n    NAME = [g for g in graded if g.grade == "AMBIGUOUS"]\n'
                  '    context = "\\n\\n".join(f"[Source {i + 1} | Page {c.page}]\\n{c.text}" for i, c in enumerate([*correct, *NAME]))\n'
                  '    return llm.invoke(f"Answer only from the context.\\n\\nContext:\\n{context}\\n\\nQuestion: {query}")\n'),
    "answer.js": ('async function answer(query, graded) {\n  const correct = graded.filter((g) => g.grade === "CORRECT");\n  const NAME = graded.filter((g) => g.grade === "AMBIGUOUS");\n'
                  '  const context = [...correct, ...NAME].map((c, i) => `[Source ${i + 1} | Page ${c.page}]\\n${c.pageContent}`).join("\\n\\n");\n'
                  '  return await llm.invoke(`Answer only from the context.\\n\\nContext:\\n${context}\\n\\nQuestion: ${query}`);\n}\n'),
}


@pytest.mark.parametrize("path", sorted(SPREAD))
def test_weaker_hits_spread_after_the_relevant_ones_are_added_to_them(path):
    source = SPREAD[path]
    found = [(f.code, f.message.split("'")[1], f.fix) for f in lint_text(source.replace("NAME", "ambiguous"), path=path, config=CONFIG)]
    assert found == [("PL107", "correct + ambiguous", None)]
    # The twin: a second list that says nothing of weaker hits.
    assert lint_text(source.replace("NAME", "reviewed"), path=path, config=CONFIG) == []
