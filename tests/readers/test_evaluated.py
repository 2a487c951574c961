"""One evaluator reads the string-building code of both languages (Python through `ast`,
JavaScript/TypeScript lowered to the same form by jslower): what it reads for one, it reads for the
other. The matrix crosses both languages with the ways code builds one source's text (an f-string or
template literal in a loop, pieces appended in order, a `.map` callback or a comprehension, a helper
function, a class's method), with field names the lexicon's lists do not hold (composed from its
heads and qualifiers), and with the shapes a field's value is read in; each case has a clean twin
whose field's name the lexicon reads as the document's content ("risk score", "due date")."""

from __future__ import annotations

import ast
import re

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers import jslower
from promptlint.readers.jsscan import fields
from promptlint.readers.pybuild import split_fields
from promptlint.readers.jssource import templates_in as js_templates
from promptlint.readers.pysource import templates_in as py_templates

CONFIG = build({"today": "2026-12-02"}, "test")

# How code builds one source's text; HEAD is the piece that shows the field, of item `d`.
BUILDS = {
    "python": {
        "loop": 'def format_context(docs):\n    parts = []\n    for d in docs:\n        parts.append(f"HEAD\\n{d.text}")\n    return "\\n\\n".join(parts)\n',
        "pieces": 'def format_context(docs):\n    parts = []\n    for d in docs:\n        parts.append(f"HEAD\\n")\n        parts.append(d.text)\n    return "\\n\\n".join(parts)\n',
        "map": 'def format_context(docs):\n    return "\\n\\n".join([f"HEAD\\n{d.text}" for d in docs])\n',
        "helper": 'def block(d):\n    return f"HEAD\\n{d.text}"\n\n\ndef format_context(docs):\n    return "\\n\\n".join(block(d) for d in docs)\n',
        "method": 'class Context:\n    def block(self, d):\n        return f"HEAD\\n{d.text}"\n\n    def format_context(self, docs):\n        return "\\n\\n".join(self.block(d) for d in docs)\n',
    },
    "typescript": {
        "loop": 'function formatContext(docs: Doc[]): string {\n  const parts: string[] = [];\n  for (const d of docs) {\n    parts.push(`HEAD\\n${d.text}`);\n  }\n  return parts.join("\\n\\n");\n}\n',
        "pieces": 'function formatContext(docs) {\n  const parts = [];\n  for (const d of docs) {\n    parts.push(`HEAD\\n`);\n    parts.push(d.text);\n  }\n  return parts.join("\\n\\n");\n}\n',
        "map": 'export const formatContext = (docs: Doc[]) =>\n  docs.map((d) => `HEAD\\n${d.text}`).join("\\n\\n");\n',
        "helper": 'function block(d: Doc): string {\n  return `HEAD\\n${d.text}`;\n}\n\nexport function formatContext(docs) {\n  return docs.map((d) => block(d)).join("\\n\\n");\n}\n',
        "method": 'class Context {\n  block(d) {\n    return `HEAD\\n${d.text}`;\n  }\n\n  formatContext(docs) {\n    return docs.map((d) => this.block(d)).join("\\n\\n");\n  }\n}\n',
    },
}
# How the field F is read from the item, in each language.
SHAPES = {
    "attribute": ("[{d.title}] {d.F}", "[${d.title}] ${d.F}"),
    "nested key": ("[{d.title}] {d.metadata['F']}", "[${d.title}] ${d.metadata['F']}"),
    "default": ("[{d.title}] {d.get('F', '')}", "[${d.title}] ${d.F ?? ''}"),
    "function of it": ("[{d.title}] {round(d.F, 2)}", "[${d.title}] ${Math.round(d.F)}"),
}
# Names the lexicon composes (a head with a modifier, a qualified word), each with its twin: the
# same head qualified into the document's own quantity.
FIELDS = {
    "hybrid_match": ("PL102", "risk_score"),
    "knn_distance": ("PL102", "credit_score"),
    "passage_relevancy": ("PL102", "risk_score"),
    "crawled_on": ("PL201", "due_date"),
    "ingested_at": ("PL201", "birth_date"),
    "doc_date": ("PL201", "due_date"),
}
SUFFIX = {"python": "py", "typescript": "ts"}


def _camel(name: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)


def _source(language: str, build: str, shape: str, field: str) -> tuple[str, str]:
    """The code, and the field's name as the code writes it."""
    written = field if language == "python" else _camel(field)
    head = SHAPES[shape][language != "python"].replace("F", written)
    return BUILDS[language][build].replace("HEAD", head), written


def _read(language: str, source: str):
    return (py_templates if language == "python" else js_templates)(source)


def _case(language: str, build: str, shape: str, field: str, expected: str | None) -> None:
    source, written = _source(language, build, shape, field)
    line = next(n for n, text in enumerate(source.split("\n"), 1) if written in text)
    [wrapper] = [t for t in _read(language, source) if t.loop is not None]
    # The source is the item `d`, its field read by its own name, with the content beside it.
    assert (wrapper.loop.target, wrapper.line) == ("d", line), (language, build, shape, field)
    expressions = [e for _, _, e in (fields if wrapper.loop.language == "javascript" else split_fields)(wrapper.text)]
    assert any(written in e for e in expressions) and any(e.strip() == "d.text" for e in expressions), wrapper.text
    found = [(f.code, f.line) for f in lint_text(source, path="build." + SUFFIX[language], config=CONFIG) if f.code in ("PL102", "PL201")]
    assert found == ([(expected, line)] if expected else []), (language, build, shape, field, found)


def test_both_languages_read_each_build_shape_and_field_with_a_clean_twin():
    reached = 0
    for language, builds in BUILDS.items():
        for build in builds:
            for shape in SHAPES:
                for field, (code, twin) in FIELDS.items():
                    _case(language, build, shape, field, code)
                    _case(language, build, shape, twin, None)
                    reached += 2
    assert reached == 2 * 5 * 4 * 6 * 2 == 480


def test_javascript_lowers_to_the_python_the_evaluator_reads():
    source = (
        "class Context {\n"
        "  render(chunks: Chunk[]): string {\n"
        "    return chunks.map((c, i) => {\n"
        "      const { url } = c;\n"
        "      return `[${i + 1}] ${url}\\n${c.text.trim()}`;\n"
        "    }).filter(Boolean).join('\\n\\n');\n"
        "  }\n"
        "}\n"
        "docs.forEach((d) => { out += `${d.title ?? 'untitled'}`; });\n"
        "for (const [i, d] of docs.entries()) { parts.push(this.block(d)); }\n"
    )
    assert ast.unparse(jslower.lowered(source, jsx=False)).split("\n") == [
        "class Context:",
        "",
        "    def render(self, chunks):",
        "        return '\\n\\n'.join([f'[{i + 1}] {c.url}\\n{c.text.strip()}' for i, c in enumerate(chunks)])",
        "for d in docs:",
        "    out += f\"{d.title or 'untitled'}\"",
        "for i, d in enumerate(docs):",
        "    parts.append(self.block(d))",
    ]


def test_javascript_imports_lower_to_pythons():
    source = ('import { buildPrompt, QA_PROMPT as qa } from "./prompts/helpers";\nimport Default from "lib";\n'
              'import * as prompts from "../prompts";\nimport "./side-effect";\n')
    assert ast.unparse(jslower.lowered(source, jsx=False)).split("\n") == [
        "from helpers import buildPrompt, QA_PROMPT as qa", "from lib import Default", "import prompts",
    ]


def test_what_cannot_be_lowered_is_no_text():
    # The reader refuses a broken file before lowering it; lowered alone, it reads what the grammar read.
    assert isinstance(jslower.lowered("const p = `never ends", jsx=False), ast.Module)
    deep = "const x = " + "(" * 300 + "1" + ")" * 300 + ";\n"
    assert jslower.lowered(deep, jsx=False) is None  # deeper than MAX_DEPTH: not read, no error


def test_a_counter_a_loop_does_not_show_does_not_make_its_text_a_source():
    """In a file with no other prompt, a per-item text is kept by its shape: the content and more of
    the item, or the item's number shown. A callback's index it never shows (stream events numbered
    for something else) is not that number; the twin that shows it is."""
    shown = "function collect(events) {\n  let out = '';\n  events.forEach((e, idx) => {\n    out += `[${idx}] ${e.content}`;\n  });\n  return out;\n}\n"
    hidden = shown.replace("[${idx}] ", "<think>")
    assert [t.line for t in js_templates(shown)] == [4]
    assert js_templates(hidden) == []
    python = "def collect(events):\n    out = ''\n    for idx, e in enumerate(events):\n        out += f'[{idx}] {e.content}'\n    return out\n"
    assert [t.line for t in py_templates(python)] == [4]
    assert py_templates(python.replace("[{idx}] ", "<think>")) == []


def test_in_javascript_only_a_function_s_own_name_keeps_what_it_builds_in_a_file_without_prompts():
    """A UI names its chat messages everywhere; a function whose own name says context keeps its texts."""
    body = "  const parts = [];\n  for (const e of list) {\n    parts.push(`<b>${e.content}</b>`);\n  }\n  return parts.join('');\n}\n"
    assert js_templates("function sendMessage(list) {\n  const jsonMessage = 1;\n" + body) == []
    assert [t.line for t in js_templates("function formatContext(list) {\n" + body)] == [4]
