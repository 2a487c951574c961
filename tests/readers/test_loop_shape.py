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


# A loop over the retrieved documents (also through `zip` or `enumerate`) whose item prints a header line of
# values, one of them metadata the lexicon knows, then a value alone on the last line: that value is the text,
# whatever its name (`doc` is also a document's name elsewhere). Seen in a FastAPI service (blind44d vadtop).
HEADER_CODE = '''def answer(results, query):
    documents = results["documents"][0]
    metadatas = results["metadatas"][0]
    parts = []
    for i, (doc, meta) in ITERATED:
        parts.append(f"[{meta['source']}, HEADER/{meta['total_chunks']}]\\n{doc}")
    context = "\\n\\n---\\n\\n".join(parts)
    return f"Answer the question from this context.\\n\\nContext:\\n{context}\\n\\nQuestion: {query}"
'''
HEADER_TS = """export function answer(documents: Doc[], query: string): string {
  const context = documents.map((d) => `[${d.source}, HEADER/${d.total_chunks}]\\n${d.doc}`).join("\\n\\n");
  return `Answer the question from this context.\\n\\nContext:\\n${context}\\n\\nQuestion: ${query}`;
}
"""


@pytest.mark.parametrize("iterated", ["enumerate(zip(documents, metadatas))", "enumerate(documents_and_meta)"])
@pytest.mark.parametrize("header, code", [("chunk {meta['chunk_id']}", "PL203"), ("score {meta['score']:.2f}", "PL102")])
def test_the_value_below_a_header_of_metadata_is_the_text(iterated, header, code):
    source = HEADER_CODE.replace("ITERATED", iterated).replace("HEADER", header).replace("documents_and_meta", "zip(documents, metadatas)" if "zip" not in iterated else "x")
    assert _codes(source, "api.py") == [code]


@pytest.mark.parametrize("header, code", [("chunk ${d.chunk_id}", "PL203"), ("score ${d.score}", "PL102")])
def test_the_value_below_a_header_of_metadata_is_the_text_in_typescript(header, code):
    assert _codes(HEADER_TS.replace("HEADER", header), "api.ts") == [code]


def test_below_the_header_twins():
    # No metadata in the header (`total_chunks` alone is known to nothing): nothing says what the item is.
    plain = HEADER_CODE.replace("ITERATED", "enumerate(zip(documents, metadatas))").replace("HEADER", "part")
    assert _codes(plain, "api.py") == []
    # A loop over what no word names as the retrieved context (`users`), its text bound to no name that does
    # (`profiles`): its item's shape alone is no source.
    users = HEADER_CODE.replace("ITERATED", "enumerate(zip(users, metadatas))").replace("HEADER", "chunk {meta['chunk_id']}")
    profiles = users.replace("context", "profiles").replace("Context:", "Profiles:")
    assert _codes(profiles, "api.py") == []
    # Bound to the context a prompt prints, it is the context whatever the loop goes through (test_bound_to_the_context).
    assert _codes(users, "api.py") == ["PL203"]


# A branch of a loop body that leaves the iteration (`if over_budget: ...; break`, or returns the text so far: blind89c
# fidpa) adds another item's text in place of the one the body goes on to add: the wrapper is read from the body's own
# path (01ponyo response_generator.py).
LEAVING = '''def format_context(chunks, budget):
    parts = []
    used = 0
    for i, chunk in enumerate(chunks, 1):
        score = chunk.get("llm_score", "N/A")
        content = chunk["combined_content"]
        if used + len(content) > budget:
            parts.append(f"--- Source {i} ---")
            parts.append(f"Content: {content[:400]}... [truncated]")
            LEAVE
        parts.append(f"--- Source {i} ---")
        parts.append(f"Episode: {chunk['episode_title']}")
        SCORE
        parts.append(f"Content: {content}")
        used += len(content)
    return "\\n".join(parts)
'''


@pytest.mark.parametrize("leave", ["break", "continue", 'return "\\n".join(parts)'])
def test_a_branch_that_leaves_the_iteration_is_not_part_of_the_item_s_text(leave):
    text = LEAVING.replace("LEAVE", leave)
    scored = text.replace("SCORE", 'parts.append(f"Relevance Score: {score}")')
    found = [(f.code, f.line) for f in lint_text(scored, path="context.py", config=CONFIG)]
    assert found == [("PL102", 13)]
    assert lint_text(text.replace("SCORE", ""), path="context.py", config=CONFIG) == []
