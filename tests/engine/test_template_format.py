"""The canonical renderer for templates: the Jinja macros, and `promptlint format` on a Jinja template.

Both are held to promptlint.canonical.render byte for byte: the macros for the same data, the
formatted template when rendered with jinja2 and the same chunks.
"""

from __future__ import annotations

import datetime
from importlib import resources

import jinja2
import pytest
from click.testing import CliRunner
from test_render import RETURNS, SKU, TODAY
from test_suppress import CLEAN

from promptlint.engine import formatting
from promptlint.engine.formatting import format_document, format_template
from promptlint.canonical.render import Chunk, freshness_note, render_header, render_source, render_sources
from promptlint.cli.commands import main
from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.model.findings import Applicability
from promptlint.readers import document
from promptlint.readers.jinja import parses, segment_jinja

CONFIG = build({"today": TODAY.isoformat()}, "test")

# ---------------------------------------------------------------- canonical.jinja

# The cases of tests/canonical/test_render.py, and a few the macros must also get right:
# (chunk, citation key, stale-after days).
CASES = [
    (RETURNS, 1, 365),
    (SKU, 2, 365),
    (Chunk("x", title="T"), "a", 365),
    (Chunk("x", title="T", updated=datetime.date(2026, 11, 1)), 1, 365),
    (Chunk("x", updated=TODAY - datetime.timedelta(days=365)), 1, 365),
    (Chunk("x", updated=TODAY - datetime.timedelta(days=366)), 1, 365),
    (Chunk("x", title="T", updated=datetime.date(2026, 11, 2)), 1, 30),
    (Chunk("x", title="T", updated=datetime.date(2026, 11, 2)), 1, 29),
    (Chunk("x", heading_path=("A", "B")), 3, 365),
    (Chunk("x"), 3, 365),
    (Chunk("x", title="Guide"), 1, 365),
    (Chunk("x", updated=datetime.date(2020, 1, 1), parse_warnings=("table lost", "second warning")), 4, 365),
    (Chunk("x", title="T", parse_warnings=("first", "second")), 1, 365),
    (Chunk("body", title="  Returns\nand\t\tCredits  ", heading_path=("Returns \n", " Damaged\r\n goods")), 1, 365),
    (Chunk("  leading\n\ttabbed  \ntrailing spaces   \n\n", title="T"), 1, 365),
    (Chunk("x", title="", heading_path=(" ", "A", "", "B \t")), 5, 365),
    (Chunk("x", title="Über  uns", parse_warnings=(" \n", "  OCR\nconfidence 0.86 ")), 6, 365),
    (Chunk("", title="Empty"), 7, 365),
]


def mapping(chunk: Chunk, stale_after_days: int = 365) -> dict:
    """The chunk as an application passes it to the macros: staleness already decided."""
    return {
        "content": chunk.content,
        "title": chunk.title,
        "heading_path": list(chunk.heading_path),
        "stale_note": freshness_note(chunk, today=TODAY, stale_after_days=stale_after_days),
        "parse_warnings": list(chunk.parse_warnings),
    }


@pytest.fixture(scope="module")
def canonical():
    text = resources.files("promptlint.canonical").joinpath("canonical.jinja").read_text(encoding="utf-8")
    env = jinja2.Environment(loader=jinja2.DictLoader({"canonical.jinja": text}))
    return env.get_template("canonical.jinja").module


@pytest.mark.parametrize("chunk, n, days", CASES)
def test_render_header_macro_matches_python(canonical, chunk, n, days):
    data = mapping(chunk, days)
    expected = render_header(chunk, n, today=TODAY, stale_after_days=days)
    assert str(canonical.render_header(n, data["title"], data["heading_path"], data["stale_note"], data["parse_warnings"])) == expected


@pytest.mark.parametrize("chunk, n, days", CASES)
def test_render_source_macro_matches_python(canonical, chunk, n, days):
    expected = render_source(chunk, n, today=TODAY, stale_after_days=days)
    assert str(canonical.render_source(n, **mapping(chunk, days))) == expected


def test_render_sources_macro_matches_python(canonical):
    chunks = [chunk for chunk, _, days in CASES if days == 365]
    rendered = str(canonical.render_sources([mapping(c) for c in chunks]))
    assert rendered == render_sources(chunks, today=TODAY)
    assert rendered.encode("utf-8") == render_sources(chunks, today=TODAY).encode("utf-8")


def test_render_sources_macro_empty(canonical):
    assert str(canonical.render_sources([])) == render_sources([], today=TODAY) == ""


def test_macros_imported_from_the_installed_package_whatever_the_environment():
    """As a user imports it; block trimming and strict undefineds do not change the output."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("promptlint.canonical", ""),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    template = env.from_string('{% import "canonical.jinja" as canonical %}Sources:\n{{ canonical.render_sources(chunks) }}\n')
    # Only `content` is required: the other keys may be left out.
    chunks = [{"content": "Bare chunk."}, mapping(RETURNS), mapping(SKU)]
    expected = render_sources([Chunk("Bare chunk."), RETURNS, SKU], today=TODAY)
    assert template.render(chunks=chunks) == "Sources:\n" + expected


# ---------------------------------------------------------------- format on a template

NOISY = """\
Answer from the sources and cite them as [n].
{% for doc in documents %}
[{{ loop.index }}] {{ doc.meta.title }} (score: {{ doc.score }})
Chunk id: {{ doc.meta.chunk_id }}
Updated: {{ doc.meta.updated_at }}
Summary: {{ doc.meta.summary }}
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""

NOISY_FORMATTED = """\
Answer from the sources and cite them as [n].
{% for doc in documents %}
[{{ loop.index }}]{% if doc.meta.title %} {{ doc.meta.title }}{% endif %}\
{% if doc.stale %} (last updated {{ doc.meta.updated_at }}){% endif %}
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""

# What check --fix removes (a score, a chunk id, a summary) and no date: format needs no unsafe fix.
SCORED = NOISY.replace("Updated: {{ doc.meta.updated_at }}\n", "")

# What check --fix leaves is already equivalent to the canonical body (an unconditional title
# renders as a conditional one whenever there is a title): format lays out nothing more.
SCORED_FORMATTED = CLEAN

STALE_NOTE = "the template now needs a `stale` value on each source (doc.stale): set it when the source is stale, or its date never shows"

# Every piece of the canonical header, under labels other than the canonical ones.
FULL = """\
Use only the sources below.
{% for doc in documents %}
Document {{ loop.index }}: {{ doc.meta.title }} (relevance: {{ doc.score }})
Section: {{ doc.meta.section }}
Last modified: {{ doc.meta.updated_at }}
Parse warning: {{ doc.parse_warning }}
Only use this source if it is relevant.
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""

FULL_FORMATTED = """\
Use only the sources below.
{% for doc in documents %}
[{{ loop.index }}]{% if doc.meta.title %} {{ doc.meta.title }}{% endif %}\
{% if doc.meta.section %}{% if doc.meta.title %} \u2014 {% else %} {% endif %}{{ doc.meta.section }}{% endif %}\
{% if doc.stale %} (last updated {{ doc.meta.updated_at }}){% endif %}\
{% if doc.parse_warning %} \u26a0\ufe0f {{ doc.parse_warning }}{% endif %}
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""

UNTITLED = """\
Answer from the sources.
{% for doc in documents %}
---- Document {{ loop.index }} ---- score {{ doc.score }}
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""

FRESH = Chunk("Delivery takes 3-5 days.", title="Shipping FAQ", heading_path=("Delivery",), updated=datetime.date(2026, 11, 20))

# Two sources loops, the second with a condition: its `loop.index` would start again at 1.
TWO_LOOPS = """\
Answer from the sources.
{% for d in policies %}
[{{ loop.index }}] {{ d.title }} (score {{ d.score }})
{{ d.content }}
{% endfor %}{% for d in tickets if d.score > 0.5 %}
Result {{ loop.index }}: {{ d.title }}
{{ d.content }}
{% endfor %}
Question: {{ question }}
"""

TWO_LOOPS_FORMATTED = """\
Answer from the sources.
{% set citation = namespace(n=0) %}{% for d in policies %}
{% set citation.n = citation.n + 1 %}[{{ citation.n }}]{% if d.title %} {{ d.title }}{% endif %}
{{ d.content }}
{% endfor %}{% for d in tickets if d.score > 0.5 %}
{% set citation.n = citation.n + 1 %}[{{ citation.n }}]{% if d.title %} {{ d.title }}{% endif %}
{{ d.content }}
{% endfor %}
Question: {{ question }}
"""

# A sources loop inside another loop: its `loop.index` would start again in every group.
NESTED = """\
{% for group in groups %}
## {{ group.name }}
{% for doc in group.documents %}
[{{ loop.index }}] {{ doc.title }}
{{ doc.content }}
{% endfor %}
{% endfor %}"""

NESTED_FORMATTED = """\
{% set citation = namespace(n=0) %}{% for group in groups %}
## {{ group.name }}
{% for doc in group.documents %}
{% set citation.n = citation.n + 1 %}[{{ citation.n }}]{% if doc.title %} {{ doc.title }}{% endif %}
{{ doc.content }}
{% endfor %}
{% endfor %}"""

COMMENTED = """\
Answer from the sources.
{% for doc in documents %}
{# Scores help us debug retrieval. #}
{#- Titles come from the CMS. -#}
Score: {{ doc.score }}
{{ doc.meta.title }}
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""

# The comments at the start of the body: the end of the loop tag's line. Without their
# dashes, which would strip the line break of the canonical layout.
COMMENTED_FORMATTED = """\
Answer from the sources.
{% for doc in documents %}{# Scores help us debug retrieval. #}{# Titles come from the CMS. #}
[{{ loop.index }}]{% if doc.meta.title %} {{ doc.meta.title }}{% endif %}
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""


def sample(chunk: Chunk) -> dict:
    """What an application hands the template for one chunk, the stale flag set by render.freshness_note."""
    return {
        "content": chunk.content,
        "score": 0.87,
        "meta": {
            "title": chunk.title,
            "section": " > ".join(chunk.heading_path),
            "updated_at": chunk.updated.isoformat() if chunk.updated else None,
            "summary": "A summary.",
            "chunk_id": "8f3a",
            "source_system": "confluence",
        },
        "parse_warning": chunk.parse_warnings[0] if chunk.parse_warnings else None,
        "stale": freshness_note(chunk, today=TODAY) is not None,
    }


def render(template: str, chunks: list[Chunk]) -> str:
    return jinja2.Environment().from_string(template).render(documents=[sample(c) for c in chunks], question="Why?")


def formatted(template: str, config=CONFIG, unsafe: bool = False, name: str = "t.j2"):
    """What `format` (with ``unsafe``, `format --unsafe-fixes`) makes of a template file."""
    return format_document(document.parse(template.encode("utf-8"), name, name[name.rindex("."):]), config, unsafe)


def layout(template: str, config=CONFIG, unsafe: bool = False) -> str:
    """The template as `format` leaves it."""
    return formatted(template, config, unsafe).text or template


def test_format_drops_what_check_fix_drops_and_keeps_the_rest():
    assert [(f.code, f.fix.applicability) for f in lint_text(SCORED, path="t.j2", config=CONFIG)] == [
        ("PL102", Applicability.SAFE), ("PL203", Applicability.SAFE), ("PL104", Applicability.SAFE)]
    assert formatted(SCORED) == formatting.Formatted(SCORED_FORMATTED)
    assert lint_text(SCORED_FORMATTED, path="t.j2", config=CONFIG) == []
    # A slot that prints the source system is PL202's, removed whole: format drops it as check --fix does.
    system = SCORED.replace("Chunk id:", "Source system: {{ doc.meta.source_system }}\nChunk id:")
    assert formatted(system) == formatting.Formatted(SCORED_FORMATTED)
    # A field no rule flags stays, so format keeps the block.
    kept = SCORED.replace("Chunk id:", "Department: {{ doc.meta.department }}\nChunk id:")
    assert formatted(kept) == formatting.Formatted(None, ("sources block kept: a field the canonical header has no place for (department)",))


def test_the_stale_only_wrapper_is_an_unsafe_fix_and_says_what_the_data_must_hold():
    """check classes `{% if doc.stale %}` around a date as unsafe: the data may have no such value."""
    assert [(f.code, f.fix.applicability) for f in lint_text(NOISY, path="t.j2", config=CONFIG) if f.code == "PL201"] == [("PL201", Applicability.UNSAFE)]
    assert formatted(NOISY) == formatting.Formatted(
        None, ("sources block kept: a date on every source (to show it only when stale is an unsafe fix: --unsafe-fixes)",))
    assert formatted(NOISY, unsafe=True) == formatting.Formatted(NOISY_FORMATTED, (), (STALE_NOTE,))
    assert lint_text(NOISY_FORMATTED, path="t.j2", config=CONFIG) == []
    # A test the template already has is kept as written, and needs no note.
    own = NOISY_FORMATTED.replace("doc.stale", "doc.meta.is_stale")
    assert formatted(own) == formatting.Formatted(None)


def test_format_builds_the_whole_header():
    assert layout(FULL, unsafe=True) == FULL_FORMATTED
    assert lint_text(FULL_FORMATTED, path="t.j2", config=CONFIG) == []


@pytest.mark.parametrize("template", [NOISY, FULL])
def test_formatted_template_renders_what_render_sources_renders(template):
    chunks = [RETURNS, SKU, FRESH]
    if template is NOISY:
        # Its header has no heading path and no parse warning to show.
        chunks = [Chunk(c.content, title=c.title, updated=c.updated) for c in chunks]
    first_line = template.split("\n", 1)[0]
    # The loop's tags stand on lines of their own, so the sources come between two newlines.
    expected = first_line + "\n\n" + render_sources(chunks, today=TODAY) + "\n\nQuestion: Why?"
    assert render(layout(template, unsafe=True), chunks) == expected


def test_without_a_title_the_header_is_the_key_and_the_heading_path():
    template = "{% for doc in documents %}\n({{ doc.meta.section }}) {{ doc.content }} [{{ doc.score }}]\n{% endfor %}"
    formatted = layout(template)
    assert formatted == (
        "{% for doc in documents %}\n"
        "[{{ loop.index }}]{% if doc.meta.section %} {{ doc.meta.section }}{% endif %}\n{{ doc.content }}\n"
        "{% endfor %}"
    )
    chunks = [Chunk("x", heading_path=("A", "B")), Chunk("y"), Chunk("z", heading_path=("C",))]
    assert render(formatted, chunks) == "\n" + render_sources(chunks, today=TODAY) + "\n"


def test_without_title_or_heading_only_the_key_and_missing_title_stays():
    formatted = layout(UNTITLED)
    assert formatted == UNTITLED.replace("---- Document {{ loop.index }} ---- score {{ doc.score }}", "[{{ loop.index }}]")
    assert [f.code for f in lint_text(formatted, path="t.j2", config=CONFIG)] == ["PL205"]


@pytest.mark.parametrize("template", [SCORED, NOISY, FULL, UNTITLED, TWO_LOOPS, NESTED, COMMENTED])
@pytest.mark.parametrize("unsafe", [False, True])
def test_formatting_twice_changes_nothing(template, unsafe):
    once = layout(template, unsafe=unsafe)
    assert formatted(once, unsafe=unsafe).text is None


def test_stale_flag_comes_from_the_config():
    config = build({"today": TODAY.isoformat(), "rules": {"unconditional-date": {"stale-flag": "is_stale"}}}, "test")
    assert "{% if doc.is_stale %} (last updated {{ doc.meta.updated_at }}){% endif %}" in layout(NOISY, config, unsafe=True)


def test_whitespace_control_dashes_are_dropped_from_the_expressions():
    template = "{% for d in docs %}\n{{- d.title -}} | {{ d.page_content }}\n{% endfor %}"
    formatted = "{% for d in docs %}\n[{{ loop.index }}]{% if d.title %} {{ d.title }}{% endif %}\n{{ d.page_content }}\n{% endfor %}"
    assert layout(template) == formatted


def test_loop_tags_and_else_branch_are_kept():
    template = (
        "{%- for doc in documents if doc.allowed -%}\n"
        "{{ doc.meta.title }} (score: {{ doc.score }}): {{ doc.content }}\n"
        "{%- else %}\nNo sources were found.\n{% endfor %}"
    )
    formatted = layout(template)
    assert formatted == (
        "{%- for doc in documents if doc.allowed -%}\n"
        "[{{ loop.index }}]{% if doc.meta.title %} {{ doc.meta.title }}{% endif %}\n{{ doc.content }}\n"
        "{%- else %}\nNo sources were found.\n{% endfor %}"
    )
    assert layout(formatted) == formatted
    # Alone, a loop with a condition keeps `loop.index`: it counts only the items kept.
    chunks = [Chunk("x", title="T"), Chunk("hidden"), Chunk("y", title="U")]
    documents = [{**sample(c), "allowed": c.content != "hidden"} for c in chunks]
    rendered = jinja2.Environment().from_string(formatted).render(documents=documents)
    assert rendered == render_source(chunks[0], 1, today=TODAY) + render_source(chunks[2], 2, today=TODAY)


def test_title_and_heading_path_show_only_when_set_at_render_time():
    """As render_header shows them: no "None", no dangling dash, whatever a chunk lacks."""
    chunks = [
        Chunk("a", heading_path=("Returns",)),
        Chunk("b", title="", heading_path=("Returns", "Damaged goods")),
        Chunk("c", title="Shipping FAQ"),
        Chunk("d", title="", parse_warnings=("OCR confidence 0.86",)),
        RETURNS,
    ]
    # And a chunk whose mapping has no title or section at all.
    documents = [sample(c) for c in chunks] + [{"content": "e", "meta": {}}]
    rendered = jinja2.Environment().from_string(FULL_FORMATTED).render(documents=documents, question="Why?")
    expected = render_sources([*chunks, Chunk("e")], today=TODAY)
    assert rendered == "Use only the sources below.\n\n" + expected + "\n\nQuestion: Why?"


def test_citation_numbers_run_on_across_sources_loops():
    assert layout(TWO_LOOPS) == TWO_LOOPS_FORMATTED
    assert lint_text(TWO_LOOPS_FORMATTED, path="t.j2", config=CONFIG) == []
    policies = [Chunk("Refunds take 5 days.", title="Returns Policy"), Chunk("Keep the receipt.")]
    tickets = [Chunk("Box arrived crushed.", title="Ticket 4411"), Chunk("Wrong colour.", title="Ticket 4412"), Chunk("Late.")]
    rendered = jinja2.Environment().from_string(TWO_LOOPS_FORMATTED).render(
        policies=[{"title": c.title, "content": c.content, "score": 0.9} for c in policies],
        # The condition drops the second ticket: the third is numbered 4, not 5.
        tickets=[{"title": c.title, "content": c.content, "score": s} for c, s in zip(tickets, (0.8, 0.3, 0.7))],
        question="Why?",
    )
    expected = render_sources([*policies, tickets[0], tickets[2]], today=TODAY)
    assert rendered == "Answer from the sources.\n\n" + expected + "\n\nQuestion: Why?"


def test_a_sources_loop_inside_another_loop_numbers_on_through_it():
    assert layout(NESTED) == NESTED_FORMATTED
    policies = [Chunk("Refunds take 5 days.", title="Returns Policy"), Chunk("Keep the receipt.")]
    tickets = [Chunk("Box arrived crushed.", title="Ticket 4411")]
    groups = [
        {"name": name, "documents": [{"title": c.title, "content": c.content} for c in chunks]}
        for name, chunks in (("Policies", policies), ("Tickets", tickets))
    ]
    rendered = jinja2.Environment().from_string(NESTED_FORMATTED).render(groups=groups)
    assert rendered == (
        "\n## Policies\n\n" + render_sources(policies, today=TODAY) + "\n\n"
        "\n## Tickets\n\n" + render_sources(tickets, today=TODAY, start=3) + "\n\n"
    )


def test_a_sources_loop_in_a_call_block_numbers_on_through_every_call_of_its_body():
    template = (
        "{% macro twice() %}{{ caller() }}{{ caller() }}{% endmacro %}"
        "{% call twice() %}{% for doc in documents %}\n{{ doc.content }}\n{% endfor %}{% endcall %}"
    )
    formatted = layout(template)
    assert formatted == (
        "{% macro twice() %}{{ caller() }}{{ caller() }}{% endmacro %}"
        "{% set citation = namespace(n=0) %}{% call twice() %}{% for doc in documents %}\n"
        "{% set citation.n = citation.n + 1 %}[{{ citation.n }}]\n{{ doc.content }}\n{% endfor %}{% endcall %}"
    )
    assert render(formatted, [Chunk("x")]) == "\n" + render_sources([Chunk("x"), Chunk("x")], today=TODAY) + "\n"


def test_the_counter_strips_the_whitespace_the_tag_after_it_stripped():
    template = "Sources:\n\n{%- for d in a %}\n{{ d.content }}\n{% endfor %}{% for d in b %}\n{{ d.content }}\n{% endfor %}"
    formatted = layout(template)
    key = "{% set citation.n = citation.n + 1 %}[{{ citation.n }}]"
    assert formatted == (
        "Sources:\n\n{%- set citation = namespace(n=0) %}{%- for d in a %}\n"
        f"{key}\n{{{{ d.content }}}}\n{{% endfor %}}{{% for d in b %}}\n{key}\n{{{{ d.content }}}}\n{{% endfor %}}"
    )
    assert layout(formatted) == formatted
    rendered = jinja2.Environment().from_string(formatted).render(a=[{"content": "x"}], b=[{"content": "y"}])
    assert rendered == "Sources:\n" + render_sources([Chunk("x"), Chunk("y")], today=TODAY) + "\n"


def test_comments_of_the_body_are_kept_and_render_nothing():
    assert layout(COMMENTED) == COMMENTED_FORMATTED
    chunks = [Chunk(c.content, title=c.title) for c in (RETURNS, SKU)] + [Chunk("x")]
    expected = "Answer from the sources.\n\n" + render_sources(chunks, today=TODAY) + "\n\nQuestion: Why?"
    assert render(COMMENTED_FORMATTED, chunks) == expected


def test_a_line_a_directive_keeps_is_kept_by_format_too():
    """check --fix leaves a suppressed score, so format, which drops only what check --fix drops, keeps it too."""
    kept = COMMENTED.replace("Titles come from the CMS.", "promptlint: ignore[PL102] shown on purpose")
    assert lint_text(kept, path="t.j2", config=CONFIG) == []
    assert formatted(kept) == formatting.Formatted(None, ("sources block kept: a field the canonical header has no place for (score)",))


@pytest.mark.parametrize(
    "loop_tag, header_line",
    [("{% for doc in documents %}", "\n"), ("{% for doc in documents -%}\n", "")],
    ids=["comment-ends-the-loop-line", "comment-starts-the-header-line"],
)
def test_a_kept_directive_still_covers_the_findings_on_the_header(loop_tag, header_line):
    """A missing title is reported where the body starts, and that is where the directive is kept."""
    directive = "{# promptlint: ignore[PL205] this index has no titles #}"
    template = f"{loop_tag}{directive}{header_line}---- Document {{{{ loop.index }}}} ---- score {{{{ doc.score }}}}\n{{{{ doc.content }}}}\n{{% endfor %}}\n"
    assert [f.code for f in lint_text(template, path="t.j2", config=CONFIG)] == ["PL102"]
    formatted = layout(template)
    assert formatted == f"{loop_tag}{directive}{header_line}[{{{{ loop.index }}}}]\n{{{{ doc.content }}}}\n{{% endfor %}}\n"
    assert lint_text(formatted, path="t.j2", config=CONFIG) == []
    assert layout(formatted) == formatted
    chunks = [Chunk("x"), Chunk("y")]
    assert render(formatted, chunks) == render(formatted.replace(directive, ""), chunks)


@pytest.mark.parametrize(
    "template",
    [
        "Answer.\n{% for item in context %}\n{{ item }}\n{% endfor %}\nQuestion: {{ question }}",
        "Answer.\n{% for doc in documents %}\n[{{ loop.index }}] {{ doc.title }}\n{{ doc.render() }}\n{% endfor %}\n{{ question }}",
        "Answer in one sentence.\nQuestion: {{ question }}\n",
        "{% macro show(d) %}[{{ loop.index }}] {{ d.title }} ({{ d.score }})\n{{ d.content }}{% endmacro %}"
        "Answer.\n{% for doc in documents %}\n{{ show(doc) }}\n{% endfor %}\n{{ question }}",
    ],
    ids=["items-rendered-already", "content-not-an-output", "no-sources-loop", "printed-by-a-macro"],
)
def test_template_without_a_content_output_is_unchanged(template):
    assert layout(template) == template
    assert format_document(document.parse(template.encode("utf-8"), "t.j2", ".j2"), CONFIG).text is None


def test_a_rewrite_that_would_not_parse_leaves_the_template(monkeypatch):
    template = "{% for doc in documents %}\nDocument {{ loop.index }}:\n{{ doc.content }}\n{% endfor %}"
    assert parses(format_template(template, CONFIG)) and format_template(template, CONFIG) != template
    monkeypatch.setattr(formatting, "parses", lambda source: source == template)
    assert format_template(template, CONFIG) == template


def test_prompty_body_is_formatted_and_front_matter_kept():
    head = "---\nname: qa\nmodel:\n  api: chat\n---\n"
    doc = document.parse((head + SCORED).encode("utf-8"), "qa.prompty", ".prompty")
    assert format_document(doc, CONFIG).text == head + SCORED_FORMATTED


def test_template_in_a_yaml_block_is_not_rewritten():
    # Its text is not in the file verbatim (the block is indented), so it cannot be written back.
    source = "_type: prompt\ntemplate_format: jinja2\ntemplate: |\n" + "".join(f"  {line}\n" for line in NOISY.splitlines())
    assert format_document(document.parse(source.encode("utf-8"), "p.yaml", ".yaml"), CONFIG).text is None


def test_template_in_python_code_is_formatted_in_place():
    source = f'from haystack.components.builders import PromptBuilder\n\nbuilder = PromptBuilder(template="""{SCORED}""")\n'
    doc = document.parse(source.encode("utf-8"), "rag.py", ".py")
    assert format_document(doc, CONFIG).text == source.replace(SCORED, SCORED_FORMATTED)


def test_a_one_line_string_that_cannot_take_the_line_breaks_is_left():
    template = "{% for d in documents %}[{{ loop.index }}] {{ d.meta.title }} (score {{ d.score }}): {{ d.content }} {% endfor %}"
    source = f'from haystack.components.builders import PromptBuilder\n\nbuilder = PromptBuilder(template="{template}")\n'
    assert layout(template) != template
    assert format_document(document.parse(source.encode("utf-8"), "rag.py", ".py"), CONFIG).text is None


def test_format_check_on_a_template(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text(f"today: {TODAY.isoformat()}\n", encoding="utf-8")
    (tmp_path / "qa.j2").write_text(SCORED, encoding="utf-8")

    def run(*args):
        return CliRunner().invoke(main, ["format", "--config", "config.yaml", *args, "qa.j2"])

    result = run("--check")
    assert (result.exit_code, result.stdout) == (1, "Would reformat: qa.j2\n1 file would be reformatted.\n")
    assert (tmp_path / "qa.j2").read_text(encoding="utf-8") == SCORED
    assert run().exit_code == 0
    assert (tmp_path / "qa.j2").read_text(encoding="utf-8") == SCORED_FORMATTED
    assert run("--check").exit_code == 0


# ---------------------------------------------------------------- a template equivalent to the canonical one (issue 29)

# Each renders what the canonical body renders for any data with a title: the title, the heading
# path only when set (the dash only then), the date only under a staleness test, the content.
EQUIVALENT = {
    "canonical": (
        "{% for doc in documents %}\n"
        "[{{ loop.index }}]{% if doc.meta.title %} {{ doc.meta.title }}{% endif %}{% if doc.meta.section %}{% if doc.meta.title %} — {% else %} {% endif %}"
        "{{ doc.meta.section }}{% endif %}{% if doc.stale %} (last updated {{ doc.meta.updated_at }}){% endif %}\n"
        "{{ doc.content }}\n{% endfor %}"
    ),
    "whitespace-control": (
        "{%- for chunk in retrieved %}\n"
        "[{{- loop.index -}}]\n"
        "{%- if chunk.title %} {{ chunk.title }}{% endif -%}\n"
        "{%- if chunk.section -%}\n"
        "  {%- if chunk.title %} — {% else %} {% endif -%}\n"
        "  {{ chunk.section }}\n"
        "{%- endif -%}\n"
        "{%- if chunk.stale %} (last updated {{ chunk.updated }}){% endif %}\n"
        "{{ chunk.text }}\n{% endfor %}"
    ),
    "unconditional-title-own-stale-test": (
        "{% for d in docs %}\n"
        "[{{ loop.index }}] {{ d.title }}{% if d.path %} — {{ d.path }}{% endif %}{% if d.is_stale %} (last updated {{ d.date }}){% endif %}\n"
        "{{ d.page_content }}\n{% endfor %}"
    ),
    "other-if-forms": (
        "{% for d in docs %}\n"
        "[{{ loop.index }}] {{ d.title }}{% if d.path is defined and d.path %} — {{ d.path }}{% endif %}"
        "{% if d.stale == true %} (last updated {{ d.date }}){% endif %}\n"
        "{{ d['content'] }}\n{% endfor %}"
    ),
}

# The twin of the last one but with the heading path shown unconditionally: a chunk without
# one renders "[1] Title — ", so format rewrites it.
TWIN = (
    "{% for d in docs %}\n"
    "[{{ loop.index }}] {{ d.title }} — {{ d.path }}{% if d.is_stale %} (last updated {{ d.date }}){% endif %}\n"
    "{{ d.page_content }}\n{% endfor %}"
)

TWIN_FORMATTED = (
    "{% for d in docs %}\n"
    "[{{ loop.index }}]{% if d.title %} {{ d.title }}{% endif %}{% if d.path %}{% if d.title %} — {% else %} {% endif %}{{ d.path }}{% endif %}"
    "{% if d.is_stale %} (last updated {{ d.date }}){% endif %}\n"
    "{{ d.page_content }}\n{% endfor %}"
)


@pytest.mark.parametrize("template", EQUIVALENT.values(), ids=EQUIVALENT.keys())
def test_a_template_equivalent_to_the_canonical_one_is_left_alone(template):
    source = segment_jinja(template).sources[0]
    # Each reads as a source with a title, a heading path, a date under a staleness test and content.
    assert (bool(source.title), len(source.heading_path), [f.conditional for f in source.fields if f.label not in ("title", "section", "path")]) == (True, 1, [True])
    assert lint_text(template, path="t.j2", config=CONFIG) == []
    assert formatted(template) == formatting.Formatted(None)
    assert formatted(template, unsafe=True) == formatting.Formatted(None)


def test_its_twin_with_an_unconditional_heading_path_is_rewritten():
    assert formatted(TWIN) == formatting.Formatted(TWIN_FORMATTED)
    # The same model, but the stale note worded otherwise: its rendering tells them apart.
    worded = TWIN_FORMATTED.replace(" (last updated", " (updated")
    assert formatted(worded) == formatting.Formatted(TWIN_FORMATTED)
    chunks = [{"title": "Returns", "path": "", "is_stale": False, "page_content": "x"}]
    assert jinja2.Environment().from_string(TWIN).render(docs=chunks) == "\n[1] Returns — \nx\n"
    assert jinja2.Environment().from_string(TWIN_FORMATTED).render(docs=chunks) == "\n[1] Returns\nx\n"


def test_format_check_passes_on_an_equivalent_template_and_fails_on_its_twin(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, template in EQUIVALENT.items():
        (tmp_path / f"{name}.j2").write_text(template, encoding="utf-8")
    result = CliRunner().invoke(main, ["format", "--check", "."])
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"{len(EQUIVALENT)} files already formatted.\n", "")
    (tmp_path / "twin.j2").write_text(TWIN, encoding="utf-8")
    result = CliRunner().invoke(main, ["format", "--check", "."])
    assert (result.exit_code, result.stdout) == (1, f"Would reformat: twin.j2\n1 file would be reformatted, {len(EQUIVALENT)} files already formatted.\n")


def test_format_says_on_stderr_what_the_unsafe_wrapper_needs_from_the_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text(f"today: {TODAY.isoformat()}\n", encoding="utf-8")
    (tmp_path / "qa.j2").write_text(NOISY, encoding="utf-8")
    kept = CliRunner().invoke(main, ["format", "--config", "config.yaml", "qa.j2"])
    assert (kept.exit_code, kept.stderr) == (
        0, "qa.j2: sources block kept: a date on every source (to show it only when stale is an unsafe fix: --unsafe-fixes)\n1 file left unchanged.\n")
    result = CliRunner().invoke(main, ["format", "--config", "config.yaml", "--unsafe-fixes", "qa.j2"])
    assert (result.exit_code, result.stderr) == (0, f"qa.j2: {STALE_NOTE}\nReformatted: qa.j2\n1 file reformatted.\n")
    assert (tmp_path / "qa.j2").read_text(encoding="utf-8") == NOISY_FORMATTED
