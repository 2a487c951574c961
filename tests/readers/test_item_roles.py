"""A source's parts read by their role in the unit the code or the template repeats, not by the names around it:

- a line that an item shows only when it has a value (`x ? \\`authors: ${x}\\` : ""`, `f"..." if x else ""`) is a
  line of the wrapper like the others, so the lines after it are still read as fields;
- a label that may name the chunk or number it ("chunk") before one slot printing the item's text
  (`chunk: ${trim(item.chunk)}`) is the content's label, not a chunk ordinal;
- an item that carries a retrieval score is a retrieved one, whatever the loop and its collection are called.

Generated over Python, TypeScript and Jinja, each case with its clean twin."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-06"}, "test")

TS_ITEM = """function formatItem(item: Hit, index: number): string {
  return [
    `[${index + 1}]`,
    `title: ${item.title}`,
    item.authors ? `authors: ${item.authors}` : "",
    item.url ? `url: ${item.url}` : "",
    METADATA
    `chunk: ${trimChunk(item.chunk, 800)}`
  ]
    .filter(Boolean)
    .join("\\n");
}

export function buildPrompt(question: string, hits: Hit[]): string {
  const context = hits.map((item, index) => formatItem(item, index)).join("\\n\\n");
  return `Answer from the context.\\n\\nContext:\\n${context}\\n\\nQuestion: ${question}`;
}
"""

PY_ITEM = '''def format_item(item, index):
    return "\\n".join([
        f"[{index + 1}]",
        f"title: {item.title}",
        f"authors: {item.authors}" if item.authors else "",
        f"url: {item.url}" if item.url else "",
        METADATA
        f"chunk: {trim_chunk(item.chunk, 800)}",
    ])


def build_prompt(question, hits):
    context = "\\n\\n".join(format_item(item, i) for i, item in enumerate(hits))
    return f"Answer from the context.\\n\\nContext:\\n{context}\\n\\nQuestion: {question}"
'''

# The metadata line each language writes, and the code it is reported under.
METADATA = {
    ("ts", "score"): ("`score: ${item.score}`,", "PL102"),
    ("ts", "date"): ("`published: ${item.published_at}`,", "PL201"),
    ("py", "score"): ('f"score: {item.score}",', "PL102"),
    ("py", "date"): ('f"published: {item.published_at}",', "PL201"),
}


def _codes(text: str, path: str, select: list[str] | None = None) -> list[str]:
    config = build({"today": "2026-12-06", "select": select}, "test") if select else CONFIG
    return sorted(f.code for f in lint_text(text, path=path, config=config))


@pytest.mark.parametrize(("language", "field"), sorted(METADATA))
def test_fields_after_lines_shown_only_with_a_value_are_read(language, field):
    line, code = METADATA[(language, field)]
    template = TS_ITEM if language == "ts" else PY_ITEM
    codes = _codes(template.replace("METADATA", line), f"prompt.{language}")
    assert code in codes
    # "chunk:" labels the item's text here: no chunk ordinal is reported.
    assert "PL203" not in codes
    # The twin: the same wrapper without the metadata line reports nothing of the kind.
    assert code not in _codes(template.replace("METADATA", ""), f"prompt.{language}")


@pytest.mark.parametrize("language", ["ts", "py"])
def test_a_chunk_label_before_an_ordinal_slot_is_still_an_ordinal(language):
    template = TS_ITEM if language == "ts" else PY_ITEM
    line = "`chunk: ${item.chunk_index}`," if language == "ts" else 'f"chunk: {item.chunk_index}",'
    text = template.replace("METADATA", line).replace("chunk: ${trimChunk(item.chunk, 800)}", "${item.text}")
    text = text.replace('f"chunk: {trim_chunk(item.chunk, 800)}"', 'f"{item.text}"')
    assert "PL203" in _codes(text, f"prompt.{language}", select=["PL203"])


COLLECTIONS = ["urls", "picks", "items", "entries"]
JINJA_LOOP = '<list>\n{% for x in COLLECTION %}  - [idx={{ loop.index }}] [weight={{ x.KEY }}] "{{ x.url }}": "{{ x.merged }}"\n{% endfor %}</list>\n'
TS_LOOP = """export function getPrompt(COLLECTION: Hit[]): string {
  const listed = COLLECTION.map((x, idx) => `  - [idx=${idx + 1}] [weight=${x.KEY.toFixed(2)}] "${x.url}": "${x.merged.slice(0, 50)}"`).join("\\n");
  return `Visit the most useful URLs below.\\n<list>\\n${listed}\\n</list>`;
}
"""


@pytest.mark.parametrize("collection", COLLECTIONS)
@pytest.mark.parametrize(("path", "template"), [("t.j2", JINJA_LOOP), ("prompt.ts", TS_LOOP)])
def test_an_item_that_carries_a_retrieval_score_is_a_retrieved_one(collection, path, template):
    text = template.replace("COLLECTION", collection)
    assert _codes(text.replace("KEY", "score"), path) == ["PL102"]
    # The twin: a weight that no word calls a score leaves the list unread.
    assert _codes(text.replace("KEY", "weight"), path) == []


def test_the_score_of_an_item_read_as_retrieved_by_its_score_alone_is_removed_only_as_an_unsafe_fix():
    # A product's rating is a score too: the reading is a guess, and the removal may delete the item's own fact.
    text = JINJA_LOOP.replace("COLLECTION", "urls").replace("KEY", "score")
    assert fix_text(text, path="t.j2", config=CONFIG) == text
    assert fix_text(text, path="t.j2", config=CONFIG, unsafe=True) == text.replace(" [weight={{ x.score }}]", "")
    # Over a collection named as retrieved, the same score is the renderer's, and its removal safe.
    named = text.replace("x in urls", "x in search_results")
    assert fix_text(named, path="t.j2", config=CONFIG) == named.replace(" [weight={{ x.score }}]", "")


# A text written out from locals reads what a local makes per item as one slot; the per-item wrapper inside
# stays one source's template (anything-llm's `[CONTEXT ${i}]:` blocks, which have no title).
WRITTEN = {
    "ts": """function buildSystemPrompt(chat, prompt = null) {
  const docs = chat.sources;
  const context =
    docs.length > 0
      ? "\\nContext:\\n" + docs.map((doc, i) => `[CONTEXT ${i}]:\\n${doc.text}\\n[END CONTEXT ${i}]\\n\\n`).join("")
      : "";
  return `${prompt ?? DEFAULT_PROMPT}${context}`;
}
""",
    "py": '''def build_system_prompt(chat, prompt=None):
    docs = chat.sources
    context = "\\nContext:\\n" + "".join(f"[CONTEXT {i}]:\\n{doc.text}\\n[END CONTEXT {i}]\\n\\n" for i, doc in enumerate(docs)) if docs else ""
    return f"{prompt or DEFAULT_PROMPT}{context}"
''',
}


@pytest.mark.parametrize("language", sorted(WRITTEN))
def test_a_per_item_wrapper_inside_a_written_text_stays_a_source(language):
    text = WRITTEN[language]
    wrapper_line = next(n for n, row in enumerate(text.split("\n"), 1) if "[CONTEXT" in row)
    assert [(f.code, f.line) for f in lint_text(text, path=f"prompt.{language}", config=CONFIG)] == [("PL205", wrapper_line)]
    # The twin: a title on each source.
    titled = text.replace("[CONTEXT ${i}]:", "[CONTEXT ${i}] ${doc.title}:").replace("[CONTEXT {i}]:", "[CONTEXT {i}] {doc.title}:")
    assert "PL205" not in [f.code for f in lint_text(titled, path=f"prompt.{language}", config=CONFIG)]


# A task's records that show a similarity beside short values (ragflow's wiki planner: an entity, the page it may
# update, the page's slug), judged wrong in the census as a retrieval score: no value of the item is a text that
# ends its line, as a chunk does.
RECORDS = '''def reconcile(batch, chat):
    lines = []
    for k, (name, rec) in enumerate(batch):
        lines.append(f'{k + 1}. Entity: "{name}" — existing page: "{rec.get("page_title")}" (slug: {rec.get("slug")}, similarity: {rec.get("similarity"):.2f})')
    user_prompt = "For each pair below, decide whether the entity is the page's concept.\\n\\n" + "\\n".join(lines)
    return chat(user_prompt)
'''


def test_short_values_around_a_score_make_a_record_not_a_retrieved_source():
    assert _codes(RECORDS, "wiki.py", select=["PL102"]) == []
    # The twin: the item's text ends its line, as a chunk's does.
    ending = RECORDS.replace('(slug: {rec.get("slug")}, similarity: {rec.get("similarity"):.2f})', '(similarity: {rec.get("similarity"):.2f}): {rec.get("excerpt")}')
    assert _codes(ending, "wiki.py", select=["PL102"]) == ["PL102"]
