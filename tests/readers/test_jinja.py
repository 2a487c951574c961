"""The Jinja front-end: exact positions, the same model as text, fixes that keep the template valid."""

from __future__ import annotations

import json
from pathlib import Path

import jinja2
import pytest

from conftest import ROOT
from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.jinja import TemplateError, check_syntax, environment, segment_jinja, tags

FIXTURES = ROOT / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus"
TEMPLATES = sorted(FIXTURES.glob("*/*.j2")) + sorted(CORPUS.glob("*.j2"))
CONFIG = build({"select": ["ALL"], "today": "2026-12-02"}, "test")


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.name if p.parent == CORPUS else f"{p.parent.name}/{p.name}")
def test_tag_slices_join_back_into_the_source(path):
    source = path.read_text(encoding="utf-8")
    found = tags(source)
    pos = 0
    for tag in found:
        # Between tags there is only the whitespace that `-` modifiers or the final newline drop.
        assert not source[pos : tag.span.start].strip()
        pos = tag.span.end
    assert not source[pos:].strip()
    assert "".join(source[t.span.start : t.span.end] for t in found).replace(" ", "").replace("\n", "") == source.replace(" ", "").replace("\n", "")


def test_whitespace_control_and_final_newline():
    source = "A {{- x -}}\n  B{%- if y %} C {% endif -%}\n"
    found = tags(source)
    assert [(t.kind, source[t.span.start : t.span.end]) for t in found] == [
        ("data", "A"),
        ("variable", "{{- x -}}\n  "),  # `-}}` takes the whitespace it strips
        ("data", "B"),
        ("block", "{%- if y %}"),
        ("data", " C "),
        ("block", "{% endif -%}"),  # the final newline is not part of any tag
    ]


def test_sources_loop_becomes_one_repeated_source():
    source = (
        "Answer from the sources.\n{% for doc in documents %}\n"
        "[{{ loop.index }}] {{ doc.meta.title }} (score: {{ doc.score }})\n{{ doc.content }}\n{% endfor %}\n"
        "Question: {{ question }}\n"
    )
    prompt = segment_jinja(source)
    [src] = prompt.sources
    assert src.repeated and src.collection == "documents"
    assert source[src.content.start : src.content.end] == "{{ doc.content }}"
    assert src.key == "{{ loop.index }}"
    assert src.title == "{{ doc.meta.title }}"
    assert [(f.label, source[f.span.start : f.span.end]) for f in src.fields] == [
        ("title", "{{ doc.meta.title }}"),
        ("score", " (score: {{ doc.score }})"),
    ]
    assert [source[q.start : q.end] for q in prompt.questions] == ["{{ question }}"]


def test_side_effecting_expressions_are_never_evaluated(monkeypatch):
    source = "{% set x = cycler.__init__ %}{{ ''.__class__.__mro__ }}\n{% for doc in documents %}{{ doc.content }}{% endfor %}\n{{ question }}"
    # Rendering would be the only way to run them: make it fail loudly if anything renders.
    monkeypatch.setattr(jinja2.Template, "render", lambda *a, **k: pytest.fail("a template was rendered"))
    monkeypatch.setattr(jinja2.Environment, "from_string", lambda *a, **k: pytest.fail("a template was compiled"))
    assert [f.code for f in lint_text(source, path="t.j2", config=CONFIG)] == ["PL205"]


def test_syntax_error_is_pl900_with_line():
    findings = lint_text("Hello\n{% for x in y %}\n{{ x }\n", path="t.j2", config=CONFIG)
    assert [(f.code, f.line) for f in findings] == [("PL900", 3)]
    assert findings[0].message.startswith("invalid Jinja: ")


def test_a_fix_that_would_break_the_template_is_not_applied():
    # The score output opens an `if` whose end sits on another line: removing the
    # line would cut the block in two, so the fix is dropped and the finding stays.
    source = "{% for d in docs %}\n[{{ loop.index }}] {{ d.meta.title }}\nScore: {% if d.score %}{{ d.score }}\n{% endif %}{{ d.content }}\n{% endfor %}\n{{ question }}"
    fixed = fix_text(source, path="t.j2", config=CONFIG)
    environment().parse(fixed)
    assert "{% if d.score %}" in fixed and "{% endif %}" in fixed


SAMPLE = {
    "question": "Can I return a damaged item after 40 days?",
    "documents": [
        {"content": "Damaged goods may be returned within 30 days.", "score": 0.91,
         "meta": {"title": "Returns Policy", "relevance": 0.9, "summary": "Returns.", "updated_at": "2026-11-20", "chunk_id": "8f3a"}},
        {"content": "Delivery takes 3-5 days.", "score": 0.61,
         "meta": {"title": "Shipping FAQ", "relevance": 0.5, "summary": "Shipping.", "updated_at": "2026-10-02", "chunk_id": "77c1"}},
    ],
}


REMOVING_FIXES = [p for p in sorted(FIXTURES.glob("*/bad*.fixed.j2")) if not p.parent.name.startswith("PL304")]


@pytest.mark.parametrize("path", REMOVING_FIXES, ids=lambda p: p.parent.name)
def test_fixed_template_renders_the_same_text_less_what_was_removed(path):
    """Rendered with sample data (our fixture, not a user's template), every line of the fixed
    output is a line of the original output: the fix only took things away."""
    original = path.with_name(path.name.replace(".fixed", "")).read_text(encoding="utf-8")
    fixed = path.read_text(encoding="utf-8")
    env = jinja2.Environment()
    before = env.from_string(original).render(**SAMPLE, relevant=SAMPLE["documents"], marginal=[], permitted=SAMPLE["documents"], forbidden=[])
    after = env.from_string(fixed).render(**SAMPLE, relevant=SAMPLE["documents"], marginal=[], permitted=SAMPLE["documents"], forbidden=[], standalone_question="")
    kept = iter(before.splitlines())
    for line in after.splitlines():
        if line.strip():
            assert any(line.strip() in old for old in kept), f"{line!r} is not in the original output"
    for doc in SAMPLE["documents"]:
        assert doc["content"] in after


def test_rewritten_question_fix_sends_the_original():
    folder = FIXTURES / "PL304-rewritten-question"
    env = jinja2.Environment()
    after = env.from_string((folder / "bad.fixed.j2").read_text()).render(**SAMPLE, standalone_question="returns > 40d?")
    assert after.rstrip().endswith("Question: " + SAMPLE["question"])


def test_a_macro_defined_in_the_file_is_read_through():
    source = (
        "{% macro render_doc(d, i) %}\n[{{ i }}] {{ d.meta.title }} (score: {{ d.score }})\n{{ d.content }}\n{% endmacro %}\n"
        "Answer from the sources.\n{% for doc in documents %}\n{{ render_doc(doc, loop.index) }}\n{% endfor %}\nQuestion: {{ question }}\n"
    )
    assert [(f.line, f.column, f.code) for f in lint_text(source, path="t.j2", config=CONFIG)] == [(2, 38, "PL102"), (6, 27, "PL204")]
    fixed = fix_text(source, path="t.j2", config=CONFIG)
    assert fixed.splitlines()[1] == "[{{ i }}] {{ d.meta.title }}"


# --- Haystack's {% message %} tag -------------------------------------------------


@pytest.mark.parametrize(
    ("template", "roles"),
    [
        ('{% message role="user" %}\nHi\n{% endmessage %}', [("user", 0, 45)]),
        ("{% message role='system' %}S{% endmessage %}{% message role=\"user\" %}U{% endmessage %}", [("system", 0, 44), ("user", 44, 86)]),
        ('{%- message role="assistant", name="bot" -%}\nA\n{%- endmessage %}', [("assistant", 0, 64)]),
        ('{% message role=role %}x{% endmessage %}', [("user", 0, 40)]),
    ],
)
def test_message_tags_are_messages(template, roles):
    prompt = segment_jinja(template)
    assert [(m.role, m.span.start, m.span.end) for m in prompt.messages] == roles


@pytest.mark.parametrize(
    ("template", "message", "line"),
    [
        ('{% message role="user" %}\nHi\n', "Unexpected end of template. Jinja was looking for the following tags: 'endmessage'. The innermost block that needs to be closed is 'message'.", 1),
        ('{% message role %}x{% endmessage %}', "expected token '=', got 'end of statement block'", 1),
        ('{% endmessage %}', "Encountered unknown tag 'endmessage'.", 1),
    ],
)
def test_broken_message_tags_are_syntax_errors(template, message, line):
    with pytest.raises(TemplateError) as caught:
        check_syntax(template)
    assert (caught.value.message, caught.value.line) == (message, line)


# --- Hugging Face chat templates ---------------------------------------------------

# How chat templates loop over the conversation, and how their body tells the roles apart.
MESSAGE_LOOPS = [
    ("message", "messages"),
    ("message", "loop_messages"),
    ("m", "messages[1:]"),
    ("turn", "conversation"),
]
ROLE_READS = [
    "{{{{- '<|' + {item}['role'] + '|>\\n' + {item}['content'] + '<|end|>\\n' }}}}",
    "{{% if {item}['role'] == 'user' %}}{{{{ '[INST] ' + {item}['content'] + ' [/INST]' }}}}{{% else %}}{{{{ {item}['content'] }}}}{{% endif %}}",
    "{{% if {item}.role == 'assistant' %}}{{{{ {item}.content + eos_token }}}}{{% else %}}{{{{ '<|user|>' + {item}.content }}}}{{% endif %}}",
]
DEFAULT = build({"today": "2026-12-02"}, "test")
DOCUMENTS = "{%- for doc in documents %}{{ '<|document|>Title: ' + doc['title'] + '\\n' }}{{ doc['text'] }}{%- endfor %}\n"


def _chat_template(system: str, item: str, iterated: str, body: str) -> str:
    return f"{system}\n{DOCUMENTS}{{%- for {item} in {iterated} %}}{body.format(item=item)}{{%- endfor %}}\n"


@pytest.mark.parametrize(("item", "iterated"), MESSAGE_LOOPS)
@pytest.mark.parametrize("body", ROLE_READS)
def test_a_loop_over_chat_messages_is_the_history(item, iterated, body):
    source = _chat_template("{{- '<|system|>You answer from the documents only.<|end|>' }}", item, iterated, body)
    prompt = segment_jinja(source)
    assert [(p.kind.value, source[p.span.start : p.span.end].split("\n")[0]) for p in prompt.parts] == [
        ("instructions", "<|system|>You answer from the documents only.<|end|>"),
        ("sources", DOCUMENTS.split("\n")[0]),
        ("history", f"{{%- for {item} in {iterated} %}}" + body.format(item=item) + "{%- endfor %}"),
    ]
    assert [s.title for s in prompt.sources] == ["{{ '<|document|>Title: ' + doc['title'] + '\\n' }}"]


# The current date, as chat templates write it into the system message, and the same system message without it.
DATED_SYSTEMS = [
    (
        "{%- set system_message = \"Today's date: \" + strftime_now('%d %B %Y') + \". You are a careful assistant. Answer from the documents only.\" %}"
        "{{- '<|system|>' + system_message + '<|end|>' }}",
        "{%- set system_message = \"You are a careful assistant. Answer from the documents only.\" %}{{- '<|system|>' + system_message + '<|end|>' }}",
    ),
    (
        "{%- set date_string = strftime_now('%d %b %Y') %}{{- 'Today Date: ' + date_string + '\\n\\nAnswer from the documents only. Say so when they do not.' }}",
        "{{- 'Answer from the documents only. Say so when they do not.' }}",
    ),
    (
        "{{- '<|system|>Date: ' ~ now() ~ '\\nYou are a careful assistant. Answer from the documents only.<|end|>' }}",
        "{{- '<|system|>You are a careful assistant. Answer from the documents only.<|end|>' }}",
    ),
]


@pytest.mark.parametrize(("dated", "undated"), DATED_SYSTEMS)
@pytest.mark.parametrize(("item", "iterated"), MESSAGE_LOOPS[:2])
def test_a_date_written_before_a_chat_templates_instructions_breaks_the_cache(dated, undated, item, iterated):
    source = _chat_template(dated, item, iterated, ROLE_READS[0])
    [finding] = lint_text(source, path="chat_template.jinja", config=DEFAULT)
    name = next(n for n in ("strftime_now", "now") if n in source)
    assert (finding.code, finding.line, finding.column) == ("PL305", 1, source.index(name) + 1)
    assert lint_text(_chat_template(undated, item, iterated, ROLE_READS[0]), path="chat_template.jinja", config=DEFAULT) == []


@pytest.mark.parametrize(
    "tag",
    [
        "{% if messages[0]['role'] == 'system' %}{% endif %}",
        "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant') }}",
        "{% set sep = messages[0].get('content', '') %}",
        "{{ tools | tojson(indent=4) }}",
        "{{ 'Answer: ' if add_generation_prompt else '' }}",
    ],
)
def test_constants_a_chat_template_compares_or_passes_are_not_its_text(tag):
    assert [p.kind.value for p in segment_jinja(tag + "\n").parts] == []


def _template_of(path: Path) -> str:
    """A fixture's chat template: the file itself, or a tokenizer config's `chat_template`."""
    text = path.read_text(encoding="utf-8")
    return json.loads(text)["chat_template"] if path.suffix == ".json" else text


@pytest.mark.parametrize(("shape", "suffix"), [("hf-chat-template-documents", ".jinja"), ("hf-tokenizer-config", ".json")])
def test_the_fixed_chat_template_renders_the_same_conversation_less_the_score(shape, suffix):
    folder = FIXTURES / "shapes" / shape
    env = jinja2.Environment()
    env.globals["strftime_now"] = lambda fmt: "02 December 2026"
    data = {
        "messages": [{"role": "user", "content": "How long do returns take?"}],
        "documents": [{"doc_id": 1, "title": "Returns", "score": 0.91, "text": "Returns take 30 days."}],
        "add_generation_prompt": True,
    }
    before = env.from_string(_template_of(folder / f"bad{suffix}")).render(**data)
    after = env.from_string(_template_of(folder / f"bad.fixed{suffix}")).render(**data)
    assert after == before.replace("Relevance score: 0.91\n", "")


@pytest.mark.parametrize("label", ["Knowledge relationships:", "Relevant search results:", "## Retrieved documents:", "**Context:**", "Sources\uff1a"])
@pytest.mark.parametrize("items", ["rels", "picks", "rows"])
def test_a_loop_under_a_label_naming_the_context_is_the_sources_loop(label, items):
    template = (
        f"Answer from what follows.\n\n{label}\n---------\n{{% for r in {items} %}}\n- Description: {{{{ r.rag_description }}}}\n"
        "- Last Modified At: {{ r.last_modified_at }}\n{% endfor %}\n\nQuestion: {{ question }}\n"
    )
    assert [f.code for f in lint_text(template, path="qa.j2", config=DEFAULT) if f.code != "PL205"] == ["PL201"]


@pytest.mark.parametrize("label", ["Examples:", "Tools you can call:", "Knowledge of the user is not needed."])
def test_a_loop_under_another_label_is_no_sources_loop(label):
    template = f"Answer the question.\n\n{label}\n{{% for r in rows %}}\n- {{{{ r.name }}}} (updated {{{{ r.last_modified_at }}}})\n{{% endfor %}}\n\nQuestion: {{{{ question }}}}\n"
    assert lint_text(template, path="qa.j2", config=DEFAULT) == []


@pytest.mark.parametrize(
    "line",
    [
        "Treat the following as background only.",
        "Consider this excerpt with caution.",
        "- Use it only when it answers the question.",
        "Please check the date before citing it.",
        "When citing this document, use its title.",
        "If the excerpt is cut short, mention it.",
    ],
)
@pytest.mark.parametrize("wrapper", ['<doc title="{{ d.title }}">\nLINE\n{{ d.content }}\n</doc>', "[{{ loop.index }}] {{ d.title }}\nLINE\n{{ d.content }}"])
def test_a_template_line_that_opens_with_an_imperative_is_a_per_source_instruction(line, wrapper):
    body = wrapper.replace("LINE", line)
    template = "Answer from the documents.\n{% for d in docs %}\n" + body + "\n{% endfor %}\nQuestion: {{ question }}\n"
    assert [(f.code, f.line) for f in lint_text(template, path="qa.j2", config=DEFAULT)] == [("PL103", 4)]


@pytest.mark.parametrize(
    "line", ["Use case: {{ d.use_case }}", "Use case:", "Use case description: {{ d.desc }}", "Check-in date: {{ d.checkin }}", "Source: {{ d.url }}", "Answer: {{ d.answer }}"]
)
def test_a_template_label_that_starts_with_such_a_word_is_no_instruction(line):
    template = "Answer from the documents.\n{% for d in docs %}\n[{{ loop.index }}] {{ d.title }}\n" + line + "\n{{ d.content }}\n{% endfor %}\nQuestion: {{ question }}\n"
    assert [f.code for f in lint_text(template, path="qa.j2", config=DEFAULT) if f.code == "PL103"] == []


def test_an_instruction_that_introduces_lines_after_it_is_removed_only_when_asked():
    """"When referencing it, use this format:" in every document's wrapper is an instruction; removing it
    alone leaves the format it introduces behind, so its fix is unsafe."""
    template = (
        "Answer from the documents.\n{% for d in docs %}\n<document>\n{{ d.content }}\n</document>\n"
        "When referencing information, use this format:\n- [{{ loop.index }}: {{ d.title }}]\n{% endfor %}\nQuestion: {{ question }}\n"
    )
    found = [(f.code, f.line, f.fix.applicability.name) for f in lint_text(template, path="qa.j2", config=DEFAULT)]
    assert found == [("PL103", 6, "UNSAFE")]


POSITIONS = "Answer from the sources.\n{% for i in order %}{% set d = docs[i] %}\nTitle: {{ d.title }}\nScore: {{ d.score }}\n{{ d.text }}\n{% endfor %}\nQuestion: {{ question }}\n"


def test_a_loop_over_positions_renders_the_item_its_body_sets():
    """`{% for i in order %}{% set d = docs[i] %}`: `d` is the source, its fields read as any loop item's."""
    assert [(f.line, f.code) for f in lint_text(POSITIONS, path="t.j2", config=build({"select": ["PL102"]}, "test"))] == [(4, "PL102")]
    assert fix_text(POSITIONS, path="t.j2", config=build({"select": ["PL102"]}, "test")) == POSITIONS.replace("Score: {{ d.score }}\n", "")
    # The twin: a name set to something else (`{% set d = default_doc %}`) is no item.
    other = POSITIONS.replace("{% set d = docs[i] %}", "{% set d = default_doc %}")
    assert lint_text(other, path="t.j2", config=build({"select": ["PL102"]}, "test")) == []
