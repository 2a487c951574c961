"""PL203: a header that numbers each source by its chunk's place in the index ("[Chunk 30]") is an
ordinal; so is the renderer's own count (1, 2, 3) under a word that names the source as a chunk, when
the model is not asked to cite it. Under another word the count is the source's key, and any number
the model is asked to cite is a citation key."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL203"]}, "test")


def _prompt(keys, word="Chunk", instructions="Answer the question using only the context."):
    sources = "\n\n".join(f"[{word} {key}]\nRefunds for item {key} are issued within {key} days of delivery." for key in keys)
    return f"{instructions}\n\nContext:\n{sources}\n\nQuestion: How long do refunds take?\nAnswer:"


def _found(text):
    return [(f.code, f.line, f.column, f.fix) for f in lint_text(text, path="p.txt", config=CONFIG)]


@pytest.mark.parametrize("keys", [(30, 20, 32), (4, 5, 6), (2, 1)])
def test_chunk_numbers_no_renderer_counts_are_chunk_ids(keys):
    lines = [4 + 3 * n for n in range(len(keys))]
    assert _found(_prompt(keys)) == [("PL203", line, 8, None) for line in lines]


@pytest.mark.parametrize("keys", [(1, 2, 3), (0, 1, 2), (30,)])
@pytest.mark.parametrize("word", ["Chunk", "Excerpt", "Auszug"])
def test_a_count_under_a_chunk_word_is_an_ordinal_unless_the_model_cites_it(keys, word):
    lines = [4 + 3 * n for n in range(len(keys))]
    assert _found(_prompt(keys, word=word)) == [("PL203", line, 3 + len(word), None) for line in lines]
    assert _found(_prompt(keys, word=word, instructions=f"Answer from the context and cite each claim as [{word} n].")) == []


@pytest.mark.parametrize("word", ["Context Chunk", "Retrieved text chunk", "Relevant Excerpt"])
def test_a_count_under_a_qualified_chunk_word_is_an_ordinal(word):
    """`=== CONTEXT CHUNK {idx + 1} ===`: the unit qualified by a word or two is still the unit (blind68s ShhlokRastogi)."""
    assert _found(_prompt((1, 2, 3), word=word)) == [("PL203", line, 3 + len(word), None) for line in (4, 7, 10)]
    assert _found(_prompt((1, 2, 3), word=word, instructions=f"Answer from the context and cite each claim as [{word} n].")) == []


@pytest.mark.parametrize("word", ["Chunk of the", "Context", "The most relevant text chunk"])
def test_a_count_under_a_phrase_that_does_not_end_in_the_unit_is_the_sources_key(word):
    assert _found(_prompt((1, 2, 3), word=word)) == []


@pytest.mark.parametrize("keys", [(1, 2, 3), (0, 1, 2), (30,)])
@pytest.mark.parametrize("word", ["Source", "Document", "Result"])
def test_the_renderers_own_count_under_another_word_is_the_sources_key(keys, word):
    assert _found(_prompt(keys, word=word)) == []


def test_a_number_under_another_word_is_a_citation_key():
    assert _found(_prompt((30, 20, 32), word="Source")) == []


def test_numbers_the_model_is_asked_to_cite_are_citation_keys():
    assert _found(_prompt((30, 20, 32), instructions="Answer from the context and cite each chunk as [Chunk n].")) == []


@pytest.mark.parametrize("key", ["[S{{ c.rank }}]", "[#{{ c.position }}]", "[doc-{{ c.rank }}]"])
def test_a_rank_heading_a_source_is_the_key_the_model_cites(key):
    """`[S${chunk.rank}]` first on a source's line, where the prompt asks for citations like "[S1]": the citation key."""
    text = f"Answer from the sources. Cite every claim as [S1].\n\n{{% for c in chunks %}}\n{key}\nTitle: {{{{ c.title }}}}\n{{{{ c.text }}}}\n{{% endfor %}}\n\nQuestion: {{{{ question }}}}\n"
    assert lint_text(text, path="answer.j2", config=CONFIG) == []
    # The twin: a prompt that never asks for citations shows the rank for nothing.
    twin = text.replace(" Cite every claim as [S1].", " Be brief.")
    assert [f.code for f in lint_text(twin, path="answer.j2", config=CONFIG)] == ["PL203"]


def test_a_sources_template_read_alone_leaves_its_key_to_the_prompt_that_holds_it():
    source = 'export const render = (chunks) => chunks.map((chunk) => `[S${chunk.rank}]\\nTitle: ${chunk.title}\\n${chunk.content}`).join("\\n\\n");\n'
    assert lint_text(source, path="render.ts", config=CONFIG) == []


@pytest.mark.parametrize("language", ["py", "ts"])
def test_a_number_all_a_source_shows_read_alone_is_left_to_the_prompt_that_holds_it(language):
    """`<source>{rank}</source>` beside the text alone is what the prompt holding it may ask the model to cite;
    read alone, with no instructions beside it, it is not reported. Written as the chunk's number, it is."""
    sources = {
        "py": 'def render(results):\n    out = ""\n    for r in results:\n        out += f"<result>\\n<content>{{r[\'content\']}}</content>\\n{field}\\n</result>"\n    return out\n',
        "ts": "export const render = (results) => results.map((r) => `<result>\\n<content>${{r.content}}</content>\\n{field}\\n</result>`).join(\"\\n\");\n",
    }[language]
    slot = "{r['rank']}" if language == "py" else "${r.rank}"
    path = f"render.{language}"
    assert lint_text(sources.format(field=f"<source>{slot}</source>"), path=path, config=CONFIG) == []
    assert [f.code for f in lint_text(sources.format(field=f"<chunk_id>{slot}</chunk_id>"), path=path, config=CONFIG)] == ["PL203"]


@pytest.mark.parametrize("word", ["Excerpt", "Chunk"])
def test_a_count_under_a_chunk_word_in_brackets_read_alone_is_left_to_the_prompt_that_holds_it(word):
    """`[Excerpt ${i + 1}] (Page ${c.pageNum})` in a function that renders the sources for a prompt elsewhere, which
    may ask the model to cite "[Excerpt 1 (Page 3)]": read alone, the count is not reported."""
    source = f"export const render = (chunks) => chunks.map((c, i) => `[{word} ${{i + 1}}] (Page ${{c.pageNum}})\\n${{c.text}}`).join('\\n\\n---\\n\\n');\n"
    assert lint_text(source, path="render.ts", config=CONFIG) == []
    # The twins: the count written as a banner, not a key in brackets; and the same key in a prompt that never asks to cite.
    banner = source.replace(f"`[{word} ${{i + 1}}]", f"`--- {word} ${{i + 1}} ---")
    assert [f.code for f in lint_text(banner, path="render.ts", config=CONFIG)] == ["PL203"]
    assert [f.code for f in lint_text(_prompt((1, 2, 3), word=word), path="p.txt", config=CONFIG)] == ["PL203"] * 3


SOURCE_TEMPLATE = '''def render(chunks, sources):
    parts = []
    for chunk in chunks:
        source = sources[chunk.ref]
        parts.append(f"[WORD {KEY}: {chunk.ref}]\\n{chunk.text}")
    return "\\n\\n".join(parts)
'''


@pytest.mark.parametrize("key", ["source.index", "chunk.index", "chunk.position"])
@pytest.mark.parametrize("word, found", [("Source", []), ("Document", []), ("Chunk", ["PL203"])])
def test_a_value_keying_a_bracket_under_a_source_word_is_the_sources_key(key, word, found):
    """`[Source ${source.index}: ${chunk.sourceRef}]`: first in a bracket after a word that names a source, the value is
    the key the prompt holding the sources may ask to cite; after a word that names a chunk, a chunk's place (blind68c
    DonsWayo)."""
    text = SOURCE_TEMPLATE.replace("WORD", word).replace("KEY", key)
    assert [f.code for f in lint_text(text, path="render.py", config=CONFIG)] == found
