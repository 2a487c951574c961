"""The format table: every suffix reaches its reader, and what derives from the table agrees with it."""

from __future__ import annotations

import pytest

from promptlint import document, files
from promptlint.config import FILE_TYPES, build
from promptlint.formats import ANYWHERE, DEFAULT_INCLUDE, FORMATS, IN_PROMPT_FOLDERS, for_suffix

CASES = [(f, suffix) for f in FORMATS for suffix in f.suffixes]


@pytest.mark.parametrize(("fmt", "suffix"), CASES, ids=[s for _, s in CASES])
def test_each_suffix_reads_as_its_format(fmt, suffix):
    assert for_suffix(suffix) is fmt
    assert f"*{suffix}" in ANYWHERE + IN_PROMPT_FOLDERS
    assert files.DEFAULT_INCLUDE == DEFAULT_INCLUDE


@pytest.mark.parametrize("suffix", [".hbs", ".tmpl", "", ".TXT"])
def test_other_suffixes_read_as_text(suffix):
    assert for_suffix(suffix).name == "text"


def test_file_types_are_the_formats():
    assert FILE_TYPES == {"text": ".txt", "jinja": ".j2", "json": ".json", "jsonl": ".jsonl", "prompty": ".prompty", "python": ".py", "yaml": ".yaml"}


# One prompt file per format, with what its reader makes of it: (kind, syntax of each prompt).
READ = {
    "text": ("Answer from the sources.\n", "text", ["text"]),
    "jinja": ("{{ question }}\n", "text", ["jinja"]),
    "json": ('{"messages": [{"role": "user", "content": "Hi"}]}', "json", ["text"]),
    "jsonl": ('{"prompt": "Hi"}\n{"prompt": "Bye"}\n', "jsonl", ["text", "text"]),
    "prompty": ("---\nname: qa\n---\n{{ question }}\n", "text", ["jinja"]),
    "python": ('PROMPT = "Context: {context}\\nQuestion: {question}"\n', "python", ["text"]),
    "yaml": ("template: 'Answer: {question}'\n", "yaml", ["text"]),
}


@pytest.mark.parametrize("name", [f.name for f in FORMATS])
def test_file_types_pick_the_reader(tmp_path, name):
    raw, kind, syntaxes = READ[name]
    config = build({"file-types": {"*.data": name}}, "test", tmp_path)
    doc = document.parse_text(raw, "p.data", config.suffix_for(tmp_path / "p.data"))
    assert (doc.kind, [p.syntax for p in doc.prompts], doc.errors) == (kind, syntaxes, ())
