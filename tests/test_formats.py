"""The format table: every suffix reaches its reader, and what derives from the table agrees with it."""

from __future__ import annotations

import json

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
    assert FILE_TYPES == {"text": ".txt", "jinja": ".j2", "json": ".json", "jsonl": ".jsonl", "prompty": ".prompty", "python": ".py", "javascript": ".ts", "yaml": ".yaml"}


# One prompt file per format, with what its reader makes of it: (kind, syntax of each prompt).
READ = {
    "text": ("Answer from the sources.\n", "text", ["text"]),
    "jinja": ("{{ question }}\n", "text", ["jinja"]),
    "json": ('{"messages": [{"role": "user", "content": "Hi"}]}', "json", ["text"]),
    "jsonl": ('{"prompt": "Hi"}\n{"prompt": "Bye"}\n', "jsonl", ["text", "text"]),
    "prompty": ("---\nname: qa\n---\n{{ question }}\n", "text", ["jinja"]),
    "python": ('PROMPT = "Context: {context}\\nQuestion: {question}"\n', "python", ["text"]),
    "javascript": ("const QA_PROMPT = `Context: ${context}\\nQuestion: ${question}`;\n", "javascript", ["text"]),
    "yaml": ("template: 'Answer: {question}'\n", "yaml", ["text"]),
}


@pytest.mark.parametrize("name", [f.name for f in FORMATS])
def test_file_types_pick_the_reader(tmp_path, name):
    raw, kind, syntaxes = READ[name]
    config = build({"file-types": {"*.data": name}}, "test", tmp_path)
    doc = document.parse_text(raw, "p.data", config.suffix_for(tmp_path / "p.data"))
    assert (doc.kind, [p.syntax for p in doc.prompts], doc.errors) == (kind, syntaxes, ())


CHAT_TEMPLATE = "{{ '<|system|>Answer from the documents.' }}{% for doc in documents %}{{ doc['text'] }}{% endfor %}{% for m in messages %}{{ m['role'] + m['content'] }}{% endfor %}"


@pytest.mark.parametrize("name", ["tokenizer_config.json", "chat_template.json"])
def test_a_hugging_face_config_is_taken_anywhere_by_its_name(tmp_path, name):
    (tmp_path / "models" / "granite").mkdir(parents=True)
    (tmp_path / "models" / "granite" / name).write_text('{"chat_template": "x"}', encoding="utf-8")
    (tmp_path / "models" / "granite" / "config.json").write_text("{}", encoding="utf-8")
    assert [p.name for p in files.expand([tmp_path])] == [name]


@pytest.mark.parametrize(
    "body",
    [
        {"bos_token": "<s>", "chat_template": CHAT_TEMPLATE},
        {"chat_template": [{"name": "default", "template": CHAT_TEMPLATE}, {"name": "rag", "template": CHAT_TEMPLATE}]},
    ],
)
def test_a_configs_chat_templates_are_jinja_prompts_placed_at_their_string(body):
    raw = json.dumps(body, indent=2)
    literal = json.dumps(CHAT_TEMPLATE)
    starts = [i for i in range(len(raw)) if raw.startswith(literal, i)]
    anchors = [(raw.count("\n", 0, i) + 1, i - raw.rfind("\n", 0, i)) for i in starts]
    doc = document.parse_text(raw, "tokenizer_config.json", ".json")
    assert [(p.syntax, p.text, p.anchor, p.writable) for p in doc.prompts] == [("jinja", CHAT_TEMPLATE, a, False) for a in anchors]


@pytest.mark.parametrize("raw", ['{"bos_token": "<s>", "model_max_length": 4096}', '{"chat_template": null}', '{"chat_template": 7}'])
def test_a_config_without_a_chat_template_holds_no_prompt(raw):
    assert not document.parse_text(raw, "tokenizer_config.json", ".json").holds_prompt


def test_a_chat_template_that_does_not_parse_is_pl900_at_its_string():
    raw = '{\n  "chat_template": "{% for m in messages %}{{ m.content }}"\n}'
    [error] = document.parse_text(raw, "tokenizer_config.json", ".json").errors
    assert (error.code, error.line, error.column) == ("PL900", 2, 20)
    assert error.message.startswith("invalid Jinja in chat_template: ")
