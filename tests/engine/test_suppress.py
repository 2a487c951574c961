"""Suppression directives in Jinja comments: exactly which findings they silence, PL901 for
the ones that do nothing, and a template that renders the same text with them."""

from __future__ import annotations

import jinja2
import pytest
from click.testing import CliRunner

from promptlint.cli.commands import main
from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02"}, "test")  # the default rules, PL901 among them

# Line 3 has a PL102 (column 49) and a PL203 (column 77); line 4 another PL102 (column 12).
TEMPLATE = """\
Answer from the sources and cite them as [n].
{% for doc in documents %}
[{{ loop.index }}] {{ doc.meta.title }} (score: {{ doc.score }}) (chunk id: {{ doc.meta.chunk_id }})
Relevance: {{ doc.meta['relevance'] }}
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""
LINE_3 = "[{{ loop.index }}] {{ doc.meta.title }} (score: {{ doc.score }}) (chunk id: {{ doc.meta.chunk_id }})"
CLEAN = """\
Answer from the sources and cite them as [n].
{% for doc in documents %}
[{{ loop.index }}] {{ doc.meta.title }}
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""
SAMPLE = {
    "question": "Can I return a damaged item after 40 days?",
    "documents": [
        {"content": "Damaged goods may be returned within 30 days.", "score": 0.91, "meta": {"title": "Returns Policy", "relevance": 0.9, "chunk_id": "8f3a"}},
        {"content": "Delivery takes 3-5 days.", "score": 0.61, "meta": {"title": "Shipping FAQ", "relevance": 0.5, "chunk_id": "77c1"}},
    ],
}


def found(source: str, path: str = "t.j2", config=CONFIG) -> list[tuple[int, int, str]]:
    return [(f.line, f.column, f.code) for f in lint_text(source, path=path, config=config)]


def pl901(source: str) -> list[tuple[int, int, str]]:
    return [(f.line, f.column, f.message) for f in lint_text(source, path="t.j2", config=CONFIG) if f.code == "PL901"]


def test_without_directives():
    assert found(TEMPLATE) == [(3, 49, "PL102"), (3, 77, "PL203"), (4, 12, "PL102")]


def test_ignore_silences_exactly_its_rule_on_exactly_its_line():
    source = TEMPLATE.replace(LINE_3, LINE_3 + " {# promptlint: ignore[PL102] scores are calibrated #}")
    # The other rule on that line and the same rule on the next line still fire.
    assert found(source) == [(3, 77, "PL203"), (4, 12, "PL102")]


def test_a_directive_alone_on_its_line_covers_the_next_line():
    source = TEMPLATE.replace(LINE_3, "  {# promptlint: ignore[PL102] #}\n" + LINE_3)
    assert found(source) == [(4, 77, "PL203"), (5, 12, "PL102")]


@pytest.mark.parametrize("rules", ["PL102,PL203", "retrieval-score, chunk-ordinal", "pl102,Chunk-Ordinal"])
def test_rules_are_named_by_code_or_name(rules):
    source = TEMPLATE.replace(LINE_3, LINE_3 + " {# promptlint: ignore[" + rules + "] #}")
    assert found(source) == [(4, 12, "PL102")]


REGION = """\
Answer from the sources and cite them as [n].
{% for doc in documents %}
{# promptlint: disable[PL102,PL203] #}
[{{ loop.index }}] {{ doc.meta.title }} (score: {{ doc.score }}) (chunk id: {{ doc.meta.chunk_id }})
{# promptlint: enable[PL102] #}
Relevance: {{ doc.meta['relevance'] }}
Chunk: {{ doc.chunk_index }}
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""


def test_a_region_runs_from_disable_to_the_enable_that_names_the_rule():
    without = REGION.replace("{# promptlint: disable[PL102,PL203] #}", "").replace("{# promptlint: enable[PL102] #}", "")
    assert found(without) == [(4, 49, "PL102"), (4, 77, "PL203"), (6, 12, "PL102"), (7, 8, "PL203")]
    # PL102 is checked again from the enable on; PL203, never enabled, stays off to the end of the file.
    assert found(REGION) == [(6, 12, "PL102")]


@pytest.mark.parametrize("directive", ["{# promptlint: disable #}", "{# promptlint: disable[ALL] #}"])
def test_disable_without_a_list_disables_every_rule(directive):
    assert found(directive + "\n" + TEMPLATE) == []
    assert found(TEMPLATE.replace(LINE_3, LINE_3 + "\n" + directive)) == [(3, 49, "PL102"), (3, 77, "PL203")]


def test_file_ignore_covers_the_whole_file_wherever_it_stands():
    assert found(TEMPLATE + "{# promptlint: file-ignore[retrieval-score] #}\n") == [(3, 77, "PL203")]


def test_fix_never_applies_a_suppressed_rules_fix():
    source = TEMPLATE.replace(LINE_3, LINE_3 + " {# promptlint: ignore[PL102] #}")
    fixed = fix_text(source, path="t.j2", config=CONFIG)
    # The score stays; the chunk id beside it and the score on the next line are removed.
    kept = "[{{ loop.index }}] {{ doc.meta.title }} (score: {{ doc.score }}) {# promptlint: ignore[PL102] #}"
    assert fixed.splitlines()[2:4] == [kept, "{{ doc.content }}"]


@pytest.mark.parametrize(
    "directive, message",
    [
        ("{# promptlint: ignore[PL999] #}", "ignore[PL999]: no rule has the code or name 'PL999'"),
        ("{# promptlint: ignore[retrieval-scores] #}", "ignore[retrieval-scores]: no rule has the code or name 'retrieval-scores'"),
        ("{# promptlint: ignor[PL102] #}", "malformed promptlint directive: unknown directive 'ignor' (expected one of: ignore, disable, enable, file-ignore, ignore-file)"),
        ("{# promptlint: [PL102] #}", "malformed promptlint directive: no directive after 'promptlint:' (expected one of: ignore, disable, enable, file-ignore, ignore-file)"),
        ("{# promptlint: ignore PL102 #}", "malformed promptlint directive: ignore needs the rules in brackets, as in ignore[PL102]"),
        ("{# promptlint: disable PL102 #}", "malformed promptlint directive: the rules go in brackets, as in disable[PL102]"),
        ("{# promptlint: ignore[PL102,] #}", "malformed promptlint directive: an empty rule name in the list"),
    ],
)
def test_unknown_rule_and_malformed_directive_are_pl901_at_the_directive(directive, message):
    source = TEMPLATE.replace("Relevance: {{ doc.meta['relevance'] }}", "Relevance: {{ doc.meta['relevance'] }} " + directive)
    # None of these suppresses anything: the PL102 on its line still fires.
    assert found(source) == [(3, 49, "PL102"), (3, 77, "PL203"), (4, 12, "PL102"), (4, 40, "PL901")]
    assert pl901(source) == [(4, 40, message)]


def test_a_malformed_directive_has_no_fix_and_an_unknown_rule_does():
    [malformed] = lint_text(CLEAN + "{# promptlint: ignor[PL102] #}\n", path="t.j2", config=CONFIG)
    [unknown] = lint_text(CLEAN + "{# promptlint: ignore[PL999] #}\n", path="t.j2", config=CONFIG)
    assert (malformed.fix, unknown.fix.description, unknown.tokens) == (None, "Remove the directive", 0)


@pytest.mark.parametrize(
    "directive, message",
    [
        ("{# promptlint: ignore[PL203] #}", "ignore[PL203] suppresses nothing on the line it covers"),
        ("{# promptlint: file-ignore[PL203] #}", "file-ignore[PL203] suppresses nothing in this file"),
        ("{# promptlint: disable #}", "disable[ALL] suppresses nothing in its region"),
        ("{# promptlint: enable[PL102] #}", "enable[PL102] ends no region that suppressed anything"),
    ],
)
def test_a_directive_that_suppresses_nothing_is_pl901(directive, message):
    assert pl901(CLEAN.replace("{{ doc.content }}", "{{ doc.content }} " + directive)) == [(4, 19, message)]


def test_a_directive_naming_a_rule_that_did_not_run_is_not_judged():
    # PL204 is off by default: whether this directive is needed cannot be told.
    assert found(CLEAN.replace("{{ doc.content }}", "{{ doc.content }} {# promptlint: ignore[PL204] #}")) == []


def test_file_ignore_of_pl901_silences_pl901():
    source = "{# promptlint: file-ignore[PL901] #}\n" + CLEAN + "{# promptlint: ignor[PL102] #}\n{# promptlint: ignore[PL102] #}\n"
    assert found(source) == []


def test_a_directive_in_a_string_or_a_plain_text_prompt_is_not_a_directive():
    in_strings = TEMPLATE.replace(LINE_3, LINE_3 + ' {{ "{# promptlint: ignore[PL102] #}" }}').replace(
        "{{ doc.content }}", "{% raw %}{# promptlint: ignore[PL999] #}{% endraw %}\n{{ doc.content }}"
    )
    assert found(in_strings) == [(3, 49, "PL102"), (3, 77, "PL203"), (4, 12, "PL102")]
    # In an assembled prompt the comment is sent to the model as written: no directive.
    text = "[1] Returns Policy (score: 0.91) {# promptlint: ignore[PL102] #}\nDamaged goods may be returned within 30 days.\n\nQuestion: How long?\n"
    assert found(text, path="prompt.txt") == [(1, 28, "PL102")]


UNUSED = """\
{# promptlint: ignore[PL203] nothing to hide here #}
Answer from the sources and cite them as [n].
{% for doc in documents %}
[{{ loop.index }}] {{ doc.meta.title }} {# promptlint: ignore[PL999] #}
Relevance: {{ doc.meta['relevance'] }} {# promptlint: ignore[PL102,PL203] #}
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""
UNUSED_FIXED = """\
Answer from the sources and cite them as [n].
{% for doc in documents %}
[{{ loop.index }}] {{ doc.meta.title }}
Relevance: {{ doc.meta['relevance'] }} {# promptlint: ignore[PL102] #}
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""


def test_fix_removes_what_suppresses_nothing():
    assert pl901(UNUSED) == [
        (1, 1, "ignore[PL203] suppresses nothing on the line it covers"),
        (4, 41, "ignore[PL999]: no rule has the code or name 'PL999'"),
        (5, 40, "ignore[PL203] suppresses nothing on the line it covers"),
    ]
    # Alone on its line, the directive goes with its line; after text, with the space before it;
    # in a list that is partly used, only the unused rule goes.
    assert fix_text(UNUSED, path="t.j2", config=CONFIG) == UNUSED_FIXED


def test_check_fix_writes_the_file_without_the_unused_directive(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text("today: 2026-12-02\n", encoding="utf-8")
    (tmp_path / "prompt.j2").write_text(UNUSED, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--config", "config.yaml", "--fix", "prompt.j2"], prog_name="promptlint")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "prompt.j2").read_text(encoding="utf-8") == UNUSED_FIXED


def test_directives_do_not_change_the_rendered_text():
    # `{#-` strips the whitespace before the comment: the line renders exactly as without it.
    source = TEMPLATE.replace(LINE_3, LINE_3 + " {#- promptlint: ignore[PL203] #}").replace(
        "Relevance:", "{#- promptlint: ignore[retrieval-score] calibrated scores #}\nRelevance:"
    )
    assert found(source) == [(3, 49, "PL102")]
    env = jinja2.Environment()
    rendered = env.from_string(source).render(**SAMPLE)
    assert rendered == env.from_string(TEMPLATE).render(**SAMPLE)
    assert "promptlint" not in rendered and "#}" not in rendered


# ---- directives in the comments of code ----

# Each source holds one prompt string with a PL102 (a score) and a PL203 (a chunk ordinal);
# {start}, {end} and {before} are where a directive may stand: on the line where the string
# starts, on the line where it ends, and alone on the line before its statement.
PYTHON = '''\
import os
{before}messages = [
    {{"role": "system", "content": "Answer from the sources and cite them as [n]."}},
    {{"role": "user", "content": (
        "[1] Shipping FAQ \u2014 Delivery (score: 0.91) (chunk id: 8f3a)\\n"{start}
        "Standard delivery takes 3-5 working days.\\n\\n"
        "Question: {{question}}"{end}
    )}},
]
'''
JAVASCRIPT = '''\
import {{ client }} from "./client";
{before}const messages = [
  {{ role: "system", content: "Answer from the sources and cite them as [n]." }},
  {{
    role: "user",
    content: {start}`[1] Shipping FAQ \u2014 Delivery (score: 0.91) (chunk id: 8f3a)
Standard delivery takes 3-5 working days.

Question: ${{question}}`,{end}
  }},
];
'''
LANGUAGES = {
    "python": (PYTHON, "p.py", {"start": "  # {}", "end": "  # {}", "before": "# {}\n"}),
    "typescript": (JAVASCRIPT, "p.ts", {"start": "/* {} */ ", "end": " // {}", "before": "// {}\n"}),
}
UNMARKED = {"python": [(5, 46, "PL102"), (5, 63, "PL203")], "typescript": [(6, 51, "PL102"), (6, 68, "PL203")]}


def code(language: str, **directives: str) -> tuple[str, str]:
    template, path, forms = LANGUAGES[language]
    places = {place: forms[place].format(directives[place]) if place in directives else "" for place in ("start", "end", "before")}
    return template.format(**places), path


@pytest.mark.parametrize("language", LANGUAGES)
def test_code_without_directives(language):
    assert found(*code(language)) == UNMARKED[language]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("place", ["start", "end", "before"])
@pytest.mark.parametrize("named", ["PL102", "retrieval-score"])
def test_a_code_directive_covers_its_string_from_each_place(language, place, named):
    source, path = code(language, **{place: f"promptlint: ignore[{named}] scores are calibrated"})
    # The same comment, no directive: the findings where they stand with the comment in place.
    inert, _ = code(language, **{place: f"promptlent: ignore[{named}] scores are calibrated"})
    unmarked = found(inert, path)
    assert [rule for _, _, rule in unmarked] == ["PL102", "PL203"]
    # The rule named is silenced in the string, the other one not; nothing is left unused.
    assert found(source, path) == [f for f in unmarked if f[2] == "PL203"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_code_directive_covers_only_its_string(language):
    template, path, forms = LANGUAGES[language]
    source, _ = code(language)
    # Above the import: the line before another statement.
    directive = forms["before"].format("promptlint: ignore[PL102]")
    findings = lint_text(directive + source, path=path, config=CONFIG)
    assert [(f.line, f.code, f.message) for f in findings if f.code == "PL901"] == [(1, "PL901", "ignore[PL102] suppresses nothing in the strings it covers")]
    assert [(f.line, f.code) for f in findings if f.code != "PL901"] == [(line + 1, rule) for line, _, rule in UNMARKED[language]]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("spelling", ["ignore-file", "file-ignore"])
def test_a_file_directive_in_code(language, spelling):
    template, path, forms = LANGUAGES[language]
    source, _ = code(language)
    lines = source.splitlines(True)
    # Anywhere in the file: here at its end.
    source = "".join(lines) + forms["before"].format(f"promptlint: {spelling}[PL203,PL102]")
    assert found(source, path) == []
    source = "".join(lines) + forms["before"].format(f"promptlint: {spelling}[PL205]")
    findings = lint_text(source, path=path, config=CONFIG)
    assert [(f.line, f.column, f.message) for f in findings if f.code == "PL901"] == [(len(lines) + 1, 1, f"{spelling}[PL205] suppresses nothing in this file")]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    ("directive", "message"),
    [
        ("promptlint: ignor[PL102]", "malformed promptlint directive: unknown directive 'ignor' (expected one of: ignore, disable, enable, file-ignore, ignore-file)"),
        ("promptlint: ignore PL102", "malformed promptlint directive: ignore needs the rules in brackets, as in ignore[PL102]"),
        ("promptlint: disable[PL102]", "malformed promptlint directive: disable works in Jinja templates; in code use ignore[...] on the string, or ignore-file[...]"),
        ("promptlint: ignore[PL1O2]", "ignore[PL1O2]: no rule has the code or name 'PL1O2'"),
    ],
)
def test_a_malformed_or_unknown_code_directive_is_reported_and_silences_nothing(language, directive, message):
    source, path = code(language, end=directive)
    findings = lint_text(source, path=path, config=CONFIG)
    end_line = {"python": 7, "typescript": 9}[language]
    assert [(f.line, f.message) for f in findings if f.code == "PL901"] == [(end_line, message)]
    assert [(f.line, f.column, f.code) for f in findings if f.code != "PL901"] == UNMARKED[language]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_directive_is_judged_only_by_the_rules_that_ran_in_code(language):
    source, path = code(language, end="promptlint: ignore[PL205]")
    only = build({"today": "2026-12-02", "select": ["PL102", "PL901"]}, "test")
    assert found(source, path, only) == [f for f in UNMARKED[language] if f[2] == "PL102"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_directive_text_inside_a_string_is_no_directive(language):
    source, path = code(language)
    marker = {"python": "# promptlint: ignore[PL102]", "typescript": "// promptlint: ignore[PL102]"}[language]
    source = source.replace("Standard delivery", f"{marker} Standard delivery")
    assert [f.code for f in lint_text(source, path=path, config=CONFIG)] == ["PL102", "PL203"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_fix_leaves_a_finding_a_code_directive_suppresses(language):
    source, path = code(language, end="promptlint: ignore[PL102]")
    fixed = fix_text(source, path=path, config=CONFIG)
    # Only the chunk id (PL203) is removed; the score stays, as the directive says.
    assert fixed == source.replace(" (chunk id: 8f3a)", "")
