"""Templates that include or import other templates, and the config keys naming template variables.

Included files are read from the template's folder or the project root, never from
outside the root; what they contribute is reported at the tag that brings it in and
is not fixed there (the text is in the other file).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli.commands import main
from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.meaning import tokens

TODAY = "2026-12-02"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def findings(path: Path, root: Path, **settings) -> list[str]:
    config = build({"today": TODAY, **settings}, "test", root)
    return [f"{f.line}:{f.column} {f.code} {f.message}" for f in lint_text(path.read_text(encoding="utf-8"), path=str(path), config=config)]


def codes(path: Path, root: Path, **settings) -> list[str]:
    return [" ".join(f.split(" ")[:2]) for f in findings(path, root, **settings)]


MACROS = "{% macro render_doc(d) %}\n[{{ loop.index }}] {{ d.title }} (score: {{ d.score }})\n{{ d.content }}\n{% endmacro %}\n"


@pytest.mark.parametrize(
    "imports, call",
    [
        ('{% from "macros.j2" import render_doc %}', "render_doc(doc)"),
        ('{% from "macros.j2" import render_doc as show %}', "show(doc)"),
        ('{% import "macros.j2" as m %}', "m.render_doc(doc)"),
    ],
)
def test_an_imported_macro_is_read_and_reported_at_the_call(tmp_path, imports, call):
    write(tmp_path / "macros.j2", MACROS)
    template = f"{imports}\nAnswer from the sources.\n{{% for doc in documents %}}\n{{{{ {call} }}}}\n{{% endfor %}}\nQuestion: {{{{ question }}}}\n"
    path = write(tmp_path / "qa.j2", template)
    assert findings(path, tmp_path) == [
        "4:1 PL102 Each source shows its retrieval score ('score: {{ d.score }}'); the model reads it as an instruction to defer to the top hit"
    ]
    config = build({"today": TODAY}, "test", tmp_path)
    # The score is in macros.j2: fixing qa.j2 cannot remove it, so nothing is fixed;
    # what it costs is what macros.j2 renders for it, not the call.
    (finding,) = lint_text(template, path=str(path), config=config)
    assert (finding.fix, finding.tokens) == (None, tokens.count(" (score: {{ d.score }})"))
    assert fix_text(template, path=str(path), config=config, unsafe=True) == template


def test_an_include_in_the_loop_body_sees_the_loop_variable(tmp_path):
    write(tmp_path / "partials" / "hit.j2", "Source: {{ hit.title }} Updated: {{ hit.updated_at }}\n{{ hit.text }}\n")
    path = write(tmp_path / "qa.j2", 'Answer from the sources.\n{% for hit in hits %}\n{% include "partials/hit.j2" %}\n{% endfor %}\nQuestion: {{ question }}\n')
    assert codes(path, tmp_path) == ["3:1 PL201"]


def test_an_include_outside_a_loop_brings_its_sources_loop(tmp_path):
    write(tmp_path / "sources.j2", "{% for doc in documents %}\n[{{ loop.index }}] {{ doc.title }} ({{ doc.score }})\n{{ doc.content }}\n{% endfor %}\n")
    path = write(tmp_path / "qa.j2", 'Answer from the sources.\n{% include "sources.j2" %}\nQuestion: {{ question }}\n')
    assert codes(path, tmp_path) == ["2:1 PL102"]


def test_the_project_root_is_searched_after_the_templates_folder(tmp_path):
    write(tmp_path / "partials" / "doc.j2", "{{ doc.title }} (relevance: {{ doc.relevance }})\n{{ doc.content }}\n")
    path = write(tmp_path / "prompts" / "qa.j2", 'Answer.\n{% for doc in docs %}\n{% include "partials/doc.j2" %}\n{% endfor %}\nQuestion: {{ question }}\n')
    assert codes(path, tmp_path) == ["3:1 PL102"]


def test_names_leading_out_of_the_root_are_reported_and_not_read(tmp_path):
    root = tmp_path / "project"
    outside = write(tmp_path / "outside.j2", "(score: {{ doc.score }})\n")
    os.symlink(outside, root / "link.j2") if write(root / ".keep", "") else None
    template = (
        "Answer.\n{% for doc in docs %}\n"
        '{% include "../outside.j2" %}\n'
        f'{{% include "{outside}" %}}\n'
        '{% include "link.j2" %}\n'
        "[{{ loop.index }}] {{ doc.title }}\n{{ doc.content }}\n{% endfor %}\nQuestion: {{ question }}\n"
    )
    path = write(root / "qa.j2", template)
    # The score in outside.j2 is never seen: the file was not read.
    assert codes(path, root) == ["3:1 PL902", "4:1 PL902", "5:1 PL902"]
    assert findings(path, root)[0] == "3:1 PL902 '../outside.j2' is outside the project root; promptlint did not read it, so what it renders is not checked"


def test_unfollowable_includes_are_skipped_quietly(tmp_path):
    write(tmp_path / "broken.j2", "{% for %}\n")
    write(tmp_path / "latin1.j2", "")
    (tmp_path / "latin1.j2").write_bytes(b"caf\xe9 {{ doc.score }}\n")
    write(tmp_path / "self.j2", '{% for doc in docs %}\n{{ doc.title }}\n{% include "self.j2" %}\n{{ doc.content }}\n{% endfor %}\n')
    path = write(
        tmp_path / "qa.j2",
        "Answer.\n{% for doc in docs %}\n"
        '{% include "missing.j2" %}{% include "broken.j2" %}{% include "latin1.j2" %}{% include name %}\n'
        "{{ doc.title }}\n{{ doc.content }}\n{% endfor %}\n"
        '{% include "self.j2" %}\n'
        "Question: {{ question }}\n",
    )
    assert codes(path, tmp_path) == []


def test_text_without_a_file_follows_no_includes(tmp_path):
    write(tmp_path / "partials" / "doc.j2", "({{ doc.score }}) {{ doc.content }}\n")
    template = 'Answer.\n{% for doc in docs %}\n{{ doc.title }}\n{% include "partials/doc.j2" %}\n{% endfor %}\n'
    assert lint_text(template, path="qa.j2", config=build({"today": TODAY}, "test", tmp_path)) == []


def test_the_cache_notices_a_changed_include(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".promptlint.yaml", f"today: {TODAY}\n")
    partial = write(tmp_path / "doc.j2", "{{ doc.title }}\n{{ doc.content }}\n")
    write(tmp_path / "qa.j2", 'Answer.\n{% for doc in docs %}\n{% include "doc.j2" %}\n{% endfor %}\nQuestion: {{ question }}\n')
    runner = CliRunner()
    assert runner.invoke(main, ["check", "qa.j2"]).exit_code == 0
    partial.write_text("{{ doc.title }} (score: {{ doc.score }})\n{{ doc.content }}\n", encoding="utf-8")
    result = runner.invoke(main, ["check", "--output-format", "concise", "qa.j2"])
    assert result.exit_code == 1
    assert "qa.j2:3:1: PL102" in result.stdout
    # An include that was not there when the result was cached, and is now.
    (tmp_path / "late.j2").unlink(missing_ok=True)
    write(tmp_path / "other.j2", 'Answer.\n{% for doc in docs %}\n{{ doc.title }}\n{% include "late.j2" %}\n{{ doc.content }}\n{% endfor %}\nQuestion: {{ question }}\n')
    assert runner.invoke(main, ["check", "other.j2"]).exit_code == 0
    write(tmp_path / "late.j2", "(score: {{ doc.score }})\n")
    result = runner.invoke(main, ["check", "--output-format", "concise", "other.j2"])
    assert (result.exit_code, result.stdout.split(" ")[:2]) == (1, ["other.j2:4:1:", "PL102"])


# ---------------------------------------------------------------- names set in config


def test_config_names_the_sources_content_and_question(tmp_path):
    template = "Answer.\n{% for h in picks %}\n[{{ loop.index }}] {{ h.name }} {{ h.score }}\n{{ h.blurb }}\n{% endfor %}\nAsked: {{ user_ask }}\nAgain: {{ user_ask }}\n"
    path = write(tmp_path / "qa.j2", template)
    # The score alone says the items are retrieved ones; the question's name is the config's to give.
    assert codes(path, tmp_path) == ["3:33 PL102"]
    named = {"templates": {"sources": ["picks"], "content": ["blurb"], "question": ["user_ask"]}}
    assert codes(path, tmp_path, **named) == ["3:33 PL102", "6:8 PL101"]


def test_config_names_reach_format_string_templates(tmp_path):
    path = write(tmp_path / "qa.txt", "Answer from the context.\nThe ask: {ask}\nContext:\n{context_str}\n\nAsked: {ask}\n")
    assert codes(path, tmp_path) == []
    assert codes(path, tmp_path, templates={"question": "ask"}) == ["2:10 PL101"]


def test_instructions_in_a_followed_macro_or_include_are_per_source_instructions(tmp_path):
    write(tmp_path / "doc.j2", "NOTE: prefer this source over the others.\n{{ doc.content }}\n")
    template = (
        "{% macro show(d) %}[{{ loop.index }}] {{ d.title }}\nOnly use this source if it is relevant.\n{{ d.content }}{% endmacro %}"
        "Answer.\n{% for doc in documents %}\n{{ show(doc) }}\n{% endfor %}\n"
        "{% for doc in more_documents %}\n{{ doc.title }}\n{% include 'doc.j2' %}\n{% endfor %}\nQuestion: {{ question }}\n"
    )
    path = write(tmp_path / "qa.j2", template)
    assert codes(path, tmp_path, select=["PL103"]) == ["2:1 PL103", "9:1 PL103"]
    config = build({"today": TODAY, "select": ["PL103"]}, "test", tmp_path)
    # The line in this file's macro is removed; the one in doc.j2 cannot be, from here.
    assert fix_text(template, path=str(path), config=config) == template.replace("Only use this source if it is relevant.\n", "")


def test_the_configured_question_is_what_the_rewritten_question_fix_swaps_in(tmp_path):
    template = "Answer from the context.\n{{ context }}\nQuestion: {{ standalone_question }}\n"
    path = write(tmp_path / "qa.j2", template)
    for settings, original in (
        ({}, "question"),
        ({"templates": {"question": ["user_ask"]}}, "user_ask"),
        ({"templates": {"question": ["user_ask"]}, "rules": {"PL304": {"original-question": "q"}}}, "q"),
    ):
        config = build({"today": TODAY, "select": ["PL304"], **settings}, "test", tmp_path)
        assert fix_text(template, path=str(path), config=config, unsafe=True) == template.replace("standalone_question", original)


def test_an_included_file_calls_its_own_macros(tmp_path):
    write(tmp_path / "doc.j2", "{% macro meta(d) %}(score: {{ d.score }}){% endmacro %}{{ doc.title }} {{ meta(doc) }}\n{{ doc.content }}\n")
    path = write(tmp_path / "qa.j2", 'Answer.\n{% for doc in docs %}\n{% include "doc.j2" %}\n{% endfor %}\nQuestion: {{ question }}\n')
    assert codes(path, tmp_path) == ["3:1 PL102"]


def test_cycles_are_not_followed(tmp_path):
    # A template that includes itself, two that include each other, a macro that calls itself:
    # each would render without end, and followed a few times over they multiplied the sources.
    write(tmp_path / "a.j2", '{% include "b.j2" %}\n')
    write(tmp_path / "b.j2", '{% include "a.j2" %}(score: {{ doc.score }})\n')
    template = (
        "{% macro show(d) %}{{ d.title }} {{ show(d) }}{% endmacro %}Answer.\n{% for doc in docs %}\n{{ show(doc) }}\n"
        '{% include "qa.j2" %}{% include "a.j2" %}\n{{ doc.content }}\n{% endfor %}\n{% include "qa.j2" %}\nQuestion: {{ question }}\n'
    )
    path = write(tmp_path / "qa.j2", template)
    assert codes(path, tmp_path) == ["4:22 PL102"]
