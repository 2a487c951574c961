"""A part of a per-source string made by a function of the same file is read as if written inline."""

from __future__ import annotations

import ast
import itertools

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers.pycalls import helpers_of, returned_text
from promptlint.readers.pysource import templates_in

CONFIG = build({"today": "2026-12-02"}, "test")

# How the helper makes the header from its parameter P; SHOWN is the field it shows, read from P.
HELPERS = {
    "f-string": "def NAME(P):\n    return f\"[{P['title']} | SHOWN]\"\n",
    "local then f-string": "def NAME(P):\n    value = P.get('KEY', '')\n    title = P.get('title')\n    return f'[{title} | {value}]'\n",
    "sum of strings": "def NAME(P):\n    return '[' + str(P['title']) + ' | ' + str(P['KEY']) + ']'\n",
    "two returns, richest last": "def NAME(P):\n    if not P.get('KEY'):\n        return f\"[{P['title']}]\"\n    return f\"[{P['title']} | SHOWN]\"\n",
    "two returns, richest first": "def NAME(P):\n    value = P.get('KEY')\n    if value:\n        return f\"[{P['title']} | {value}]\"\n    return f\"[{P['title']}]\"\n",
    "keyword default": "def NAME(P, sep=' | '):\n    return f\"[{P['title']}{sep}SHOWN]\"\n",
    "local text": "def NAME(P):\n    tail = f\" | SHOWN\" if P.get('KEY') else ''\n    return f\"[{P['title']}{tail}]\"\n",
    "one level down": "def NAME_inner(m):\n    return f\"{m['KEY']}\"\n\n\ndef NAME(P):\n    return f\"[{P['title']} | {NAME_inner(P)}]\"\n",
}
# How the loop calls it on the item's metadata and builds one text per source.
LOOPS = {
    "local label": "def build(docs):\n    parts = []\n    for ITEM in docs:\n        label = NAME(ITEM.metadata)\n        parts.append(f\"{label}\\n{ITEM.page_content}\")\n    return '\\n\\n'.join(parts)\n",
    "call in the field": "def build(docs):\n    out = ''\n    for i, ITEM in enumerate(docs):\n        out += f'<{i}> {NAME(ITEM.metadata)}\\n{ITEM.page_content}\\n\\n'\n    return out\n",
    "comprehension": "def build(docs):\n    return '\\n---\\n'.join(f\"{NAME(ITEM.metadata)}\\n{ITEM.page_content}\" for ITEM in docs)\n",
    "keyword argument": "def build(docs):\n    parts = []\n    for ITEM in docs:\n        head = NAME(P=ITEM.metadata)\n        parts.append(f\"{head}\\n{ITEM.page_content}\")\n    return ''.join(parts)\n",
}
# The key the helper shows, and the rule its meaning fires; a title is nothing to report.
KEYS = [("date", "PL201"), ("published_at", "PL201"), ("score", "PL102"), ("similarity", "PL102"), ("title_en", None)]
NAMES = [("_format_source_label", "meta", "doc"), ("header_for", "m", "chunk"), ("label", "info", "r")]


def _module(helper: str, loop: str, name: str, param: str, item: str, key: str) -> str:
    shown = "{" + param + "['" + key + "']}"
    made = HELPERS[helper].replace("SHOWN", shown).replace("KEY", key).replace("NAME", name).replace("(P", "(" + param).replace("P[", param + "[").replace("P.get", param + ".get")
    return made + "\n\n" + LOOPS[loop].replace("NAME", name).replace("ITEM", item).replace("P=", param + "=")


def _codes(source: str) -> set[str]:
    return {f.code for f in lint_text(source, path="build.py", config=CONFIG)} & {"PL102", "PL201"}


@pytest.mark.parametrize("helper", HELPERS)
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("key, code", KEYS)
@pytest.mark.parametrize("name, param, item", NAMES[:2])
def test_what_a_helper_shows_counts_as_shown_by_the_source(helper, loop, key, code, name, param, item):
    source = _module(helper, loop, name, param, item, key)
    assert _codes(source) == ({code} if code else set())


@pytest.mark.parametrize("helper, loop", list(itertools.product(HELPERS, LOOPS))[::3])
def test_a_method_of_the_class_called_through_self(helper, loop):
    module = _module(helper, loop, "_head", "meta", "doc", "updated_at")
    indented = "\n".join(("    " + line if line else line) for line in module.split("\n"))
    source = "class Builder:\n" + indented.replace("def _head(", "def _head(self, ").replace("def _head_inner(", "def _head_inner(self, ").replace("def build(", "def build(self, ")
    source = source.replace("_head(doc", "self._head(doc").replace("_head(P=", "self._head(P=").replace("_head(meta=", "self._head(meta=").replace("{_head_inner(", "{self._head_inner(")
    assert _codes(source) == {"PL201"}


def test_the_finding_lands_on_the_loops_string_and_the_text_is_the_helpers():
    source = _module("f-string", "local label", "fmt", "meta", "doc", "date")
    [template] = [t for t in templates_in(source) if t.loop]
    assert template.text == "[{doc.metadata['title']} | {doc.metadata['date']}]\n{doc.page_content}"
    assert template.origin is None  # rebuilt: not the literal as written, so never fixed in place
    [finding] = [f for f in lint_text(source, path="build.py", config=CONFIG) if f.code == "PL201"]
    assert source.split("\n")[finding.line - 1].strip().startswith("parts.append(f")


@pytest.mark.parametrize(
    "helper",
    [
        # The date is shown only under a staleness test: the recommended form.
        "def fmt(meta):\n    if meta.get('is_stale'):\n        return f\"[{meta['title']} | updated {meta['date']}]\"\n    return f\"[{meta['title']}]\"\n",
        "def fmt(meta):\n    if meta['age_days'] > 365:\n        return f\"[{meta['title']}] (outdated: {meta['date']})\"\n    return f\"[{meta['title']}]\"\n",
        # No date at all.
        "def fmt(meta):\n    return f\"[{meta['title']} | {meta['author']}]\"\n",
        # Calls itself: read no deeper than the module's own text allows.
        "def fmt(meta):\n    return f\"[{fmt(meta)}]\"\n",
        # Defined twice: which one runs is not known, so neither is read.
        "def fmt(meta):\n    return f\"[{meta['date']}]\"\n\n\ndef fmt(meta):\n    return f\"[{meta['title']}]\"\n",
        # Unpacked arguments cannot be bound to parameters.
        "def fmt(*metas):\n    return f\"[{metas[0]['date']}]\"\n",
    ],
)
def test_clean_twins_stay_clean(helper):
    loop = LOOPS["local label"].replace("NAME", "fmt").replace("ITEM", "doc")
    if "*metas" in helper:
        loop = loop.replace("fmt(doc.metadata)", "fmt(*[doc.metadata])")
    assert _codes(helper + "\n\n" + loop) == set()


def test_a_function_of_another_module_is_not_followed():
    source = "from fmt import fmt\n\n\n" + LOOPS["local label"].replace("NAME", "fmt").replace("ITEM", "doc")
    assert _codes(source) == set()


@pytest.mark.parametrize("depth, followed", [(1, True), (2, True), (3, False)])
def test_helpers_are_followed_two_calls_deep(depth, followed):
    chain = "def h0(m):\n    return f\"{m['date']}\"\n\n\n"
    for n in range(1, depth):
        chain += f"def h{n}(m):\n    return f\"<{{h{n - 1}(m)}}>\"\n\n\n"
    module = ast.parse(chain + f"x = h{depth - 1}(doc.metadata)\n")
    call = module.body[-1].value
    text = returned_text(call, helpers_of(module))
    assert (text is not None and "doc.metadata['date']" in ast.unparse(text)) is followed


# A helper that makes a whole source from values the caller reads out of the item.
WHOLE = 'def fmt_source(title: str, body: str, value) -> str:\n    return f"""[Source: {title}, LABEL: {value}]\n{body}\n"""\n'
CALLERS = {
    "joined comprehension": 'def build(docs):\n    return "\\n".join([fmt_source(s["title"], s["content"], s["KEY"]) for s in docs])\n',
    "generator": 'def build(docs):\n    return "\\n".join(fmt_source(s.title, s.page_content, s.KEY) for s in docs)\n',
    "appended": 'def build(docs):\n    parts = []\n    for s in docs:\n        parts.append(fmt_source(s["title"], body=s["content"], value=s["KEY"]))\n    return "".join(parts)\n',
    "added": 'def build(docs):\n    out = ""\n    for s in docs:\n        out += fmt_source(s.title, s.text, s.metadata.get("KEY"))\n    return out\n',
}


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("label, key, code", [("Similarity", "similarity", "PL102"), ("Updated", "updated_at", "PL201"), ("Author", "author", None)])
def test_a_helper_that_makes_the_whole_source_reads_the_callers_values(caller, label, key, code):
    source = WHOLE.replace("LABEL", label) + "\n\n" + CALLERS[caller].replace("KEY", key)
    found = [(f.line, f.code) for f in lint_text(source, path="build.py", config=CONFIG) if f.code in ("PL102", "PL201")]
    assert found == ([(2, code)] if code else [])  # at the helper's literal, where the text is written
