"""A line of `name=value` items that opens every source's text with the same names ("get_bytes  (Ca=2 I=0.82)
relevance=0.721") is the sources' fields, as a renderer's f-string writes them; each item is read by what its name
means (a score here). Generated over header forms, item names and positions, each with twins: the same line on
one source only, and text that merely opens with an assignment once."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02", "select": ["PL102"]}, "test")
HEADERS = {"rule": "--- [{n}] {title}", "bracket": "[{n}] {title}", "source": "Source {n}: {title}"}
ROWS = {"score last": "    {name}  (calls={calls})  {score_name}={score}", "score first": "{score_name}={score} lang=cpp"}
SCORE_NAMES = ["relevance", "similarity", "rerank_score"]
CHUNKS = [("io/reader.hpp", "get_bytes", "0.721", "bool get_bytes(std::size_t len) reads len bytes into the buffer and returns false at the end."),
          ("bench/main.cpp", "ParseString", "0.712", "static void ParseString(State& state) parses one document per iteration of the benchmark loop."),
          ("io/lexer.hpp", "next_byte", "0.697", "bool next_byte_in_range(std::initializer_list<int> ranges) checks the next byte against each range.")]


def _prompt(header: str, row: str, score_name: str, rows: int = 3) -> str:
    blocks = []
    for n, (title, name, score, text) in enumerate(CHUNKS, 1):
        line = ROWS[row].format(name=name, calls=n * 3, score_name=score_name, score=score) + "\n" if n <= rows else ""
        blocks.append(HEADERS[header].format(n=n, title=title) + "\n" + line + text)
    return "Suggest how to reduce the file's dependencies.\n\n# Retrieved code\n\n" + "\n\n".join(blocks) + "\n\n# Request\nWhat should change first?\n"


@pytest.mark.parametrize("score_name", SCORE_NAMES)
@pytest.mark.parametrize("row", sorted(ROWS))
@pytest.mark.parametrize("header", sorted(HEADERS))
def test_a_line_of_assigned_items_on_every_source_is_its_fields(header, row, score_name):
    text = _prompt(header, row, score_name)
    sources = segment_text(text).sources
    assert [text[s.content.start : s.content.end] for s in sources] == [c[3] for c in CHUNKS]
    assert [[f.value for f in s.fields if f.label == score_name.replace("_", " ")] for s in sources] == [[c[2]] for c in CHUNKS]
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG)] == ["PL102"] * 3
    # The fix removes each score and nothing else.
    fixed = fix_text(text, path="p.txt", config=CONFIG)
    assert fixed == text.replace(f"  {score_name}=0.721", "").replace(f"  {score_name}=0.712", "").replace(f"  {score_name}=0.697", "") \
        if row == "score last" else fixed == text.replace(f"{score_name}=0.721 ", "").replace(f"{score_name}=0.712 ", "").replace(f"{score_name}=0.697 ", "")


@pytest.mark.parametrize("header", sorted(HEADERS))
def test_the_line_on_one_source_only_is_its_text(header):
    # The twin: one source's text opens so, the others do not; no renderer wrote it on each. (A line of
    # such items and nothing else is fields wherever it stands, as a row of labelled values is.)
    text = _prompt(header, "score last", "relevance", rows=1)
    assert lint_text(text, path="p.txt", config=CONFIG) == []
