"""A template a framework renders once per retrieved document (LangChain's document prompt, filled by
`format_document` with `page_content` and the document's metadata) is one source's wrapper: its
labelled slots are the source's fields, read by the same rules as a loop's. Generated over the field,
the way the metadata is wrapped and the file it is written in, each with its clean twin."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

FIELDS = {"source_type": "PL202", "connector": "PL202", "relevance_score": "PL102", "last_updated": "PL201", "chunk_index": "PL203"}
WRAPS = {
    "lines": "source: {{source}}\n{field}: {{{field}}}\n{{page_content}}",
    "tags": "<chunk_metadata>\nsource: {{source}}\n{field}: {{{field}}}\n</chunk_metadata>\n\n<chunk_content>\n{{page_content}}\n</chunk_content>",
    "markdown": "### {{source}}\n{field}: {{{field}}}\n\n{{page_content}}",
}
FILES = {
    "prompt.txt": lambda body: body + "\n",
    "prompts.py": lambda body: f'from langchain_core.prompts import PromptTemplate\n\nDOCUMENT_PROMPT = PromptTemplate.from_template(\n    template="""{body}"""\n)\n',
}


@pytest.mark.parametrize("path", FILES)
@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("field", FIELDS)
def test_a_document_template_is_one_source_and_its_slots_are_fields(path, wrap, field):
    body = WRAPS[wrap].format(field=field)
    text = FILES[path](body)
    found = [f for f in lint_text(text, path=path, config=CONFIG) if f.code != "PL205"]
    assert [f.code for f in found] == [FIELDS[field]]
    line = text.split("\n")[found[0].line - 1]
    assert line.startswith(f"{field}: ")
    # The fix removes the field's line from the template, and nothing else; a date is kept for when it is
    # stale, so PL201 leaves the text as it is.
    removed = text if FIELDS[field] == "PL201" else text.replace(f"{field}: {{{field}}}\n", "")
    assert fix_text(text, path=path, config=CONFIG) == removed


@pytest.mark.parametrize("path", FILES)
@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("field", FIELDS)
def test_the_same_lines_around_the_joined_context_are_no_document_template(path, wrap, field):
    """The twin: a slot that holds every document joined (`{context}`) is no one document's text, so the
    lines around it are the prompt's own, not a source's fields."""
    text = FILES[path](WRAPS[wrap].format(field=field).replace("{page_content}", "{context}"))
    assert [f.code for f in lint_text(text, path=path, config=CONFIG) if f.code in set(FIELDS.values())] == []
