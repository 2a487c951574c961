"""Handlebars and Mustache templates are read as the Jinja templates they mean."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.document import parse_text
from promptlint.readers.handlebars import is_template, translate

CONFIG = build({"today": "2026-12-02"}, "test")


@pytest.mark.parametrize(
    ("template", "jinja"),
    [
        ("{{#each docs}}{{title}}{{/each}}", "{% for this in docs %}{{ this.title }}{% endfor %}"),
        ("{{#each docs as |doc|}}{{doc.title}}{{/each}}", "{% for doc in docs %}{{ doc.title }}{% endfor %}"),
        ("{{#docs}}{{title}}{{/docs}}", "{% for this in docs %}{{ this.title }}{% endfor %}"),
        ("{{#each docs}}{{#if score}}{{score}}{{/if}}{{/each}}", "{% for this in docs %}{% if this.score %}{{ this.score }}{% endif %}{% endfor %}"),
        ("{{#each docs}}{{#score}}{{score}}{{/score}}{{/each}}", "{% for this in docs %}{% if this.score %}{{ this.score }}{% endif %}{% endfor %}"),
        ("{{#if docs}}a{{else}}b{{/if}}", "{% if docs %}a{% else %}b{% endif %}"),
        ("{{#unless docs}}none{{/unless}}", "{% if not docs %}none{% endif %}"),
        ("{{^docs}}none{{/docs}}", "{% if not docs %}none{% endif %}"),
        ("{{#each docs}}{{formatDate this.updated}}{{/each}}", "{% for this in docs %}{{ this.updated | formatDate }}{% endfor %}"),
        ("{{#each docs}}{{{content}}}{{@index}}{{../query}}{{/each}}", "{% for this in docs %}{{ this.content }}{{ loop.index0 }}{{ query }}{% endfor %}"),
        ("{{! a note }}{{!-- {{#each}} --}}{{> header}}{{#each docs}}{{this}}{{/each}}", "{% for this in docs %}{{ this }}{% endfor %}"),
        ("{{~#each docs~}}{{ title }}{{~/each~}}", "{% for this in docs %}{{ this.title }}{% endfor %}"),
        # Inside a Mustache section of the item, `{{.}}` prints that section's value, not the item.
        ("{{#docs}}{{#tags}}{{.}}, {{/tags}}{{/docs}}", "{% for this in docs %}{% if this.tags %}{{ this.tags }}, {% endif %}{% endfor %}"),
    ],
)
def test_a_template_is_translated_to_the_jinja_it_means(template, jinja):
    assert is_template(template)
    assert translate(template).text == jinja


def test_each_character_of_the_translation_points_into_the_template():
    template = "Q: {{query}}\n{{#each docs}}[{{@index}}] {{title}}\n{{/each}}"
    translation = translate(template)
    assert len(translation.positions) == len(translation.text) + 1
    assert translation.positions[translation.text.index("Q: ")] == 0
    # A tag's translation starts where the tag does; literal text keeps its place.
    assert translation.positions[translation.text.index("{{ this.title }}")] == template.index("{{title}}")
    assert translation.positions[translation.text.index("] ")] == template.index("] ")
    assert translation.positions[-1] == len(template)


@pytest.mark.parametrize(
    "template",
    [
        "{{#each docs}}{{title}}",  # never closed
        "{{title}}{{/each}}",  # closed, never opened
        "{{#each docs}}{% raw %}{{/each}}",  # literal text Jinja would read as a tag
    ],
)
def test_a_template_that_does_not_translate_is_read_as_text(template):
    assert translate(template) is None
    (prompt,) = parse_text(template, "t.hbs", ".hbs").prompts
    assert prompt.syntax == "text" and not prompt.translated


def test_text_with_slots_but_no_block_is_no_handlebars_template():
    assert not is_template("Answer {{question}} from {{context}}.")


# The same per-source template in several spellings and places: each must be read as a sources loop.
BODY = (
    "Answer from the results below.\n"
    "{{#each results}}\n"
    "## {{title}}\n"
    "{{#if score}}\n- **Score**: {{score}}{{/if}}\n"
    "{{#if updated}}\n- **Updated**: {{formatDate updated}}\n{{/if}}\n"
    "{{{content}}}\n"
    "{{/each}}\n"
    "Question: {{query}}\n"
)
MUSTACHE = BODY.replace("{{#each results}}", "{{#results}}").replace("{{/each}}", "{{/results}}").replace("{{formatDate updated}}", "{{updated}}")


def _ts(body: str) -> str:
    return "export const template = `" + body.replace("`", "\\`") + "`;\n"


def _py(body: str) -> str:
    return 'TEMPLATE = """' + body + '"""\n'


PLACES = {
    "hbs": ("qa.hbs", BODY, 0),
    "mustache": ("qa.mustache", MUSTACHE, 0),
    "ts": ("qa.ts", _ts(BODY), 0),
    "py": ("qa.py", _py(BODY), 0),
}


@pytest.mark.parametrize("place", PLACES)
def test_fields_under_conditions_inside_the_loop_are_the_sources_fields(place):
    path, text, _ = PLACES[place]
    found = [(f.code, f.line) for f in lint_text(text, path=path, config=CONFIG) if f.code in ("PL102", "PL201")]
    score_line = text[: text.index("**Score**")].count("\n") + 1
    date_line = text[: text.index("**Updated**")].count("\n") + 1
    assert found == [("PL102", score_line), ("PL201", date_line)]


@pytest.mark.parametrize("place", PLACES)
def test_the_clean_twin_stays_clean(place):
    path, text, _ = PLACES[place]
    clean = text.replace("{{#if score}}\n- **Score**: {{score}}{{/if}}\n", "")
    clean = clean.replace("{{#if updated}}\n- **Updated**: {{formatDate updated}}\n{{/if}}\n", "")
    clean = clean.replace("{{#if updated}}\n- **Updated**: {{updated}}\n{{/if}}\n", "")
    assert [f.code for f in lint_text(clean, path=path, config=CONFIG) if f.code not in ("PL205",)] == []


@pytest.mark.parametrize("place", ["hbs", "mustache", "ts"])
def test_a_fix_is_written_into_the_template_as_written(place):
    path, text, _ = PLACES[place]
    config = build({"today": "2026-12-02", "select": ["PL102"]}, "test")
    assert fix_text(text, path=path, config=config) == text.replace("- **Score**: {{score}}", "")


def test_a_question_in_a_branch_that_renders_no_sources_is_no_repeat():
    template = (
        '# Results for "{{query}}"\n{{#if results}}\n{{#each results}}\n## {{title}}\n{{{content}}}\n{{/each}}\n'
        '{{else}}\nNo results found for "{{query}}".\n{{/if}}\n'
    )
    assert [f.code for f in lint_text(template, path="results.hbs", config=CONFIG) if f.code != "PL205"] == []


# A .prompty body may be Mustache (Azure's samples: "{{#documents}} ## Document {{id}}: {{title}} ... {{/documents}}"):
# read as such, it is no broken Jinja (blind54a azure-samples grounded_chat.prompty, a false PL900).
PROMPTY_HEAD = "---\nname: Chat with documents\nmodel:\n    api: chat\n---\nsystem:\nAnswer from the documents.\n\n# Documents\n\n"


def test_a_prompty_with_a_mustache_body_is_read_as_mustache():
    from promptlint.engine.config import build
    from promptlint.engine.lint import lint_text

    body = "{{#documents}}\n\n## Document {{id}}: {{title}}\n{{content}}\n{{/documents}}\n\nuser:\n{{question}}\n"
    assert lint_text(PROMPTY_HEAD + body, path="chat.prompty", config=build({}, "test")) == []
    # The twin: a body that is neither Jinja nor Mustache is still reported.
    broken = "{% for d in documents %}\n{{ d.content }}\n\nuser:\n{{question}}\n"
    assert [f.code for f in lint_text(PROMPTY_HEAD + broken, path="chat.prompty", config=build({}, "test"))] == ["PL900"]
