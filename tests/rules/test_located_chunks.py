"""PL301 with chunks titled by their file and the lines they cover (`src/io.hpp:3093-3130`): the file is the
document, so two chunks of one file with other lines between them are ungrouped. Generated over header forms
and line locators, each with twins: the same chunks grouped, and titles whose numbers are no lines of a file."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL301"]}, "test")
HEADERS = {"rule": "--- [{key}] {title}", "bracket": "[{key}] {title}", "source": "Source {key}: {title}"}
LOCATORS = {"colon range": "{file}:{start}-{end}", "colon line": "{file}:{start}", "anchor": "{file}#L{start}-L{end}", "lines": "{file} (lines {start}-{end})"}
FILES = ["src/input/reader.hpp", "tests/bench.cpp", "src/input/reader.hpp"]
TEXTS = ["bool get_bytes(std::size_t len) { return fill(len); }", "static void ParseString(State& s) { run(s); }",
         "std::size_t get_elements(char* dest) { return copy(dest); }"]


def _prompt(header: str, locator: str, files: list[str]) -> str:
    blocks = "\n\n".join(
        HEADERS[header].format(key=n, title=LOCATORS[locator].format(file=file, start=10 * n, end=10 * n + 7)) + "\n" + text
        for n, (file, text) in enumerate(zip(files, TEXTS), 1)
    )
    return f"Suggest how to reduce the file's dependencies.\n\n# Retrieved code\n\n{blocks}\n\n# Request\nWhat should change first?\n"


@pytest.mark.parametrize("locator", sorted(LOCATORS))
@pytest.mark.parametrize("header", sorted(HEADERS))
def test_chunks_of_one_file_apart_are_ungrouped(header, locator):
    text = _prompt(header, locator, FILES)
    assert [(f.line, f.code) for f in lint_text(text, path="p.txt", config=CONFIG)] == [(11, "PL301")]
    # The twin: the same chunks with the file's two together.
    assert lint_text(_prompt(header, locator, [FILES[0], FILES[2], FILES[1]]), path="p.txt", config=CONFIG) == []


def test_regrouping_moves_the_file_s_chunks_together_and_keeps_their_lines():
    fixed = fix_text(_prompt("bracket", "colon range", FILES), path="p.txt", config=CONFIG, unsafe=True)
    assert fixed == (
        "Suggest how to reduce the file's dependencies.\n\n# Retrieved code\n\n"
        f"[1] src/input/reader.hpp:10-17\n{TEXTS[0]}\n\n[2] src/input/reader.hpp:30-37\n{TEXTS[2]}\n\n[3] tests/bench.cpp:20-27\n{TEXTS[1]}"
        "\n\n# Request\nWhat should change first?\n"
    )


@pytest.mark.parametrize("titles", [["Chapter 3: 10-20", "Shipping", "Chapter 3: 30-40"], ["Release v1.2:10", "Shipping", "Release v1.2:30"]])
def test_titles_whose_numbers_are_no_lines_of_a_file_stay_apart(titles):
    text = "Answer from the sources.\n\n" + "\n\n".join(f"[{n}] {t}\n{x}" for n, (t, x) in enumerate(zip(titles, TEXTS), 1)) + "\n\nQuestion: what changed?\n"
    assert lint_text(text, path="p.txt", config=CONFIG) == []


# A field that numbers what a chunk was cut from, when that is a document of its own kind (`lecture_no`,
# `video_id`, `paper_id`), names the document (blind53c sanjanadevre56: lecture 1's subtitle chunks among others).
@pytest.mark.parametrize("field", ["lecture_no", "video_id", "paper_id", "episode_number"])
def test_chunks_numbered_by_their_document_apart_are_ungrouped(field):
    import json

    def prompt(documents):
        chunks = [{field: d, "start_time": 10.5 * n, "text": f"Part {n} of the talk says deep learning is one kind of machine learning."}
                  for n, d in enumerate(documents)]
        return f"Below are subtitle chunks from a course.\n\nChunks:\n{json.dumps(chunks)}\n\nUser Question:\nwhere is deep learning taught?\n"

    assert [f.code for f in lint_text(prompt(["1", "2", "1"]), path="p.txt", config=CONFIG)] == ["PL301"]
    assert lint_text(prompt(["1", "1", "2"]), path="p.txt", config=CONFIG) == []
    # The twin: a number of a place inside a document, or of a speaker, names none.
    other = prompt(["1", "2", "1"]).replace(field, "page_no" if field != "paper_id" else "speaker_no")
    assert lint_text(other, path="p.txt", config=CONFIG) == []


PAGES = ["https://ai-sdk.dev/docs/streaming-data", "https://ai-sdk.dev/docs/chatbot"]
PAGE_TEXTS = ["It is often useful to send more data with the response.\n\nThe SDK provides several helpers for it.",
              "The chatbot hook keeps the messages of a chat.", "The data is streamed as part of the response stream."]


@pytest.mark.parametrize("third, found", [("https://ai-sdk.dev/docs/streaming-data", ["PL301"]), ("https://ai-sdk.dev/docs/stream-protocol", [])])
def test_with_no_title_the_address_a_chunk_came_from_names_its_document(third, found):
    """`## Context 5 (from "https://.../streaming-data", similarity: 66.9%)`: chunks of one page, named by their
    address, with another page between them (blind70g jmotadiaz). Twin: three pages, nothing to group."""
    urls = [*PAGES, third]
    blocks = "\n\n".join(f'## Context {n} (from "{url}", similarity: 6{9 - n}.6%)\n{text}' for n, (url, text) in enumerate(zip(urls, PAGE_TEXTS), 1))
    text = f"# CONTEXT FOR THE USER QUERY\n\nThe following information from your knowledge base is relevant to the question. Use it as your primary source.\n\n{blocks}\n"
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG)] == found


# Chunks written as JSON records, each with its own id and the path of the file it was cut from (LightRAG's
# "Document Chunks" list): the path names the document, the id the chunk.
JSON_CHUNKS = [("docs/members/overview.txt", "Be Informed started its international expansion in the UK market in 2011."),
               ("docs/zuhlke/decarbonisation.txt", "Decarbonisation of the energy system by 2050 needs new market designs."),
               ("docs/members/overview.txt", "In the world of Be Informed, rules and regulations are called business rules.")]


def _json_records(label: str, chunks) -> str:
    import json

    items = ", ".join(json.dumps({"id": n, "content": text, label: path}) for n, (path, text) in enumerate(chunks, 1))
    return f"Answer from the knowledge base only.\n\n-----Document Chunks-----\n```json\n[{items}]\n```\n\nQuestion: What does Be Informed do?\n"


@pytest.mark.parametrize("label", ["file_path", "source_file", "filepath"])
def test_chunks_of_one_file_path_apart_are_ungrouped_whatever_their_ids(label):
    assert [f.code for f in lint_text(_json_records(label, JSON_CHUNKS), path="p.txt", config=CONFIG)] == ["PL301"]
    # The twin: the file's two chunks together.
    assert lint_text(_json_records(label, [JSON_CHUNKS[0], JSON_CHUNKS[2], JSON_CHUNKS[1]]), path="p.txt", config=CONFIG) == []
