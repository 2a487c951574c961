"""PL203 on a count written in a tag's name (`<chunk_0>`, `<chunk-1>`): each source is numbered as a chunk, as
"--- Chunk 1 ---" numbers it, when the model is not asked to cite. Under a word that names the source otherwise
(`<source_0>`, `<document-1>`) the number keys it, and where the model is asked to cite it is what it cites.
Seen in blind87 zilliztech: `mini_chunk_str += f"<chunk_{i}>\\n{chunk}\\n</chunk_{i}>\\n"`."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-07", "select": ["PL203"]}, "test")
TEXTS = ["Milvus is a vector database built for scale.", "It supports hybrid search over dense and sparse vectors.",
         "Zilliz Cloud runs Milvus as a managed service."]


def _assembled(tag: str, joiner: str, instructions: str = "Summarize the chunks for the query.") -> str:
    blocks = "".join(f"<{tag}{joiner}{n}>\n{text}\n</{tag}{joiner}{n}>\n" for n, text in enumerate(TEXTS))
    return f"{instructions}\n\nQuery: what is milvus\n\n{blocks}"


CODE = '''PROMPT = """Summarize the chunks for the query.

Query: {query}

{chunks}"""


def build(query, texts):
    chunks = ""
    for i, text in enumerate(texts):
        chunks += f"<TAG_{i}>\\n{text}\\n</TAG_{i}>\\n"
    return PROMPT.format(query=query, chunks=chunks)
'''


@pytest.mark.parametrize("joiner", ["_", "-"])
def test_a_count_in_a_chunk_tag_s_name_is_reported(joiner):
    findings = lint_text(_assembled("chunk", joiner), path="p.txt", config=CONFIG)
    assert [(f.code, f.line, f.column) for f in findings] == [("PL203", 5, 8), ("PL203", 8, 8), ("PL203", 11, 8)]
    assert f"('chunk{joiner}0')" in findings[0].message


@pytest.mark.parametrize("tag", ["source", "document"])
def test_the_twin_a_count_under_another_name_keys_the_source(tag):
    assert lint_text(_assembled(tag, "_"), path="p.txt", config=CONFIG) == []


def test_the_twin_asked_to_cite_the_model_cites_the_tag():
    asked = "Summarize the chunks for the query. Cite the chunk you use, as [chunk_0]."
    assert lint_text(_assembled("chunk", "_", asked), path="p.txt", config=CONFIG) == []


@pytest.mark.parametrize(("tag", "reported"), [("chunk", True), ("source", False)])
def test_a_count_in_a_tag_s_name_built_by_code(tag, reported):
    findings = lint_text(CODE.replace("TAG", tag), path="rag.py", config=CONFIG)
    assert [(f.code, f.line) for f in findings] == ([("PL203", 11)] if reported else [])
