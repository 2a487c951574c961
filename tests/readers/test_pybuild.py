"""Per-source wrappers built by Python code: read as one repeated source, at the .py file's positions."""

from __future__ import annotations

import ast
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.pybuild import segment_wrapper, split_fields
from promptlint.readers.pysource import templates_in

CONFIG = build({"today": "2026-12-02"}, "test")

# How code builds one text per item; BODY is a triple-quoted f-string's body, ITEM the loop variable.
LOOP_FORMS = {
    "named then appended": 'def build(docs):\n    parts = []\n    for ITEM in docs:\n        block = f"""BODY"""\n        parts.append(block)\n    return "\\n\\n".join(parts)\n',
    "appended": 'def build(docs):\n    parts = []\n    for ITEM in docs:\n        if ITEM:\n            parts.append(f"""BODY""")\n    return "".join(parts)\n',
    "added with +=": 'def build(docs):\n    context = ""\n    for ITEM in docs:\n        context += f"""BODY"""\n    return context\n',
    "extended": 'def build(docs):\n    parts = []\n    for ITEM in docs:\n        parts.extend([f"""BODY"""])\n    return "".join(parts)\n',
    "enumerated": 'def build(docs):\n    parts = []\n    for i, ITEM in enumerate(docs, start=1):\n        parts.append(f"""BODY""")\n    return "".join(parts)\n',
    "list joined": 'def build(docs):\n    return "\\n\\n".join([f"""BODY""" for ITEM in docs])\n',
    "generator joined": 'def build(docs):\n    return "\\n\\n".join(f"""BODY""" for ITEM in docs)\n',
    "list kept": 'def build(docs):\n    blocks = [f"""BODY""" for j, ITEM in enumerate(docs)]\n    return blocks\n',
}
# How the field is read from the loop variable (X), and the rule its meaning fires.
FIELD_FORMS = [
    ("{X.score}", "PL102"),
    ('{X["score"]:.2f}', "PL102"),
    ("{X.get('relevance_score')}", "PL102"),
    ("{X.metadata['similarity']}", "PL102"),
    ("{round(X.score, 3)}", "PL102"),
    ('{X.metadata["date"]}', "PL201"),
    ("{X.published_date}", "PL201"),
    ("{X.get('updated_at', '')}", "PL201"),
    ("{X.metadata['last_modified'][:10]}", "PL201"),
    ("{X.metadata.get('chunk_id')}", "PL203"),
]
LABELS = ["Score: ", "Relevance = ", "Date: ", ""]


def _found(source: str) -> list[tuple[int, int, str]]:
    return [(f.line, f.column, f.code) for f in lint_text(source, path="build.py", config=CONFIG)]


def _builder(form: str, item: str, line: str, content: str = "{X.page_content}") -> str:
    body = "Title: {X.title}\n" + line + "\n" + content + "\n"
    return LOOP_FORMS[form].replace("BODY", body.replace("X", item)).replace("ITEM", item)


@pytest.mark.parametrize("form", LOOP_FORMS)
@pytest.mark.parametrize("field, code", FIELD_FORMS)
@pytest.mark.parametrize("label", LABELS)
def test_a_field_of_the_loop_variable_is_found_where_it_is_written(form, field, code, label):
    source = _builder(form, "doc", label + field)
    line = label + field.replace("X", "doc")
    number = source.split("\n").index(line) + 1
    assert _found(source) == [(number, len(label) + 1, code)]


@pytest.mark.parametrize("form", LOOP_FORMS)
@pytest.mark.parametrize("label", LABELS[:2] + LABELS[3:])
def test_the_score_line_is_fixed_in_the_literal(form, label):
    source = _builder(form, "chunk", label + "{chunk['score']:.4f}")
    fixed = fix_text(source, path="build.py", config=CONFIG)
    assert fixed == source.replace(label + "{chunk['score']:.4f}\n", "")
    compile(fixed, "build.py", "exec")


@pytest.mark.parametrize("form", LOOP_FORMS)
@pytest.mark.parametrize(
    "line",
    [
        "Source: {X.title}",  # a field, but nothing wrong with it
        "Score: {total}",  # not the loop variable's
        "Score: {{X.score}}",  # literal braces, not a field
        "Page: {X.metadata['page']}",
    ],
)
def test_clean_twins_stay_clean(form, line):
    assert _found(_builder(form, "doc", line.replace("X", "doc"))) == []


@pytest.mark.parametrize(
    "statement",
    [
        'print(f"""Score: {doc.score}\n{doc.page_content}""")',
        'logger.info(f"""Score: {doc.score}\n{doc.page_content}""")',
        'raise ValueError(f"""Score: {doc.score}\n{doc.page_content}""")',
        'errors.append(f"""Score: {cutoff}\n{body}""")',  # no field of the loop variable
        'seen.add(f"""Score: {doc.score}\n{doc.page_content}""")',  # a set, not a text
        'return f"""Score: {doc.score}\n{doc.page_content}"""',
    ],
)
def test_strings_outside_a_prompt_building_context_are_not_read(statement):
    source = f"def build(docs):\n    for doc in docs:\n        {statement}\n"
    assert templates_in(source) == []
    assert _found(source) == []


@pytest.mark.parametrize(
    "statement",
    [
        'queries.append(f"""SELECT text FROM chunks\nWHERE score > {doc.score} AND id = {doc.id}""")',
        'lines.append(f"""Processed {doc.id}: score {doc.score}, updated {doc.updated_at}""")',
    ],
)
def test_a_string_that_renders_no_content_is_not_a_source(statement):
    source = f"def build(docs):\n    for doc in docs:\n        {statement}\n"
    assert [segment_wrapper(t.text, t.loop).sources for t in templates_in(source)] == [[]]
    assert _found(source) == []


def test_an_f_string_outside_a_loop_is_not_a_source():
    assert _found('def show(doc):\n    text = f"""Score: {doc.score}\n{doc.page_content}"""\n    return text\n') == []


@pytest.mark.parametrize(
    "binding",
    [
        "score = doc.metadata.get('score')",
        "score = doc['score']",
        "score = round(doc.score, 2)",
        "score = relevance = doc.metadata['score']",
        "relevance = score = doc['score']",
    ],
)
def test_a_local_name_bound_from_the_loop_variable_reads_its_field(binding):
    source = f'def build(docs):\n    parts = []\n    for doc in docs:\n        {binding}\n        parts.append(f"""Title: {{doc.title}}\nScore: {{score}}\n{{doc.page_content}}\n""")\n    return parts\n'
    assert _found(source) == [(6, 8, "PL102")]


@pytest.mark.parametrize("chained", ["source = filename = doc.metadata.get('file_name')", "filename = source = doc['file_name']"])
def test_a_name_a_chained_assignment_binds_from_the_item_titles_its_source(chained):
    """`Content from {source}`, where `source` is the file's name: the source is identified."""
    source = f'def build_context(docs):\n    context = ""\n    for doc in docs:\n        {chained}\n        context += f"Content from {{source}}: " + doc.text\n    return context\n'
    assert _found(source) == []
    # Its twin: a name bound from nothing of the item leaves the source untitled.
    assert _found(source.replace(chained, "source = filename = SITE")) == [(5, 20, "PL205")]


def test_a_tuple_of_loop_variables_is_one_item_named_by_its_parts():
    source = 'def build(results):\n    return "\\n".join(f"""[{doc.title}] relevance: {score:.2f}\n{doc.page_content}""" for doc, score in results)\n'
    assert _found(source) == [(2, 51, "PL102")]


def test_a_field_that_is_the_loop_variable_itself_is_not_a_source():
    assert _found('def build(docs):\n    return "\\n".join(f"""Score: 0.5\n{doc}""" for doc in docs)\n') == []


@pytest.mark.parametrize(
    "statement",
    [
        'parts.append(f"[{i}] {doc.title} Score: {doc.score}\\n{doc.page_content}")',  # an escape
        'parts.append(f"[{i}] {doc.title} Score: {doc.score}" f"{doc.page_content}")',  # implicit concatenation
        'parts.extend([f"[{i}] {doc.title} Score: {doc.score}", "\\n", f"{doc.page_content}"])',  # several literals
    ],
)
def test_text_not_written_as_it_reads_is_reported_at_its_piece_and_not_fixed(statement):
    source = f"def build(docs):\n    parts = []\n    for i, doc in enumerate(docs):\n        {statement}\n    return parts\n"
    assert _found(source) == [(4, 9 + statement.index("{doc.score}"), "PL102")]
    assert fix_text(source, path="build.py", config=CONFIG) == source


def test_the_model_is_the_jinja_loop_body_model():
    """The same wrapper written as a Jinja loop gives the same findings, at the same text."""
    body = "[{i}] {doc.metadata['title']} (score: {doc.score:.2f})\nPublished: {doc.metadata['date']}\n{doc.page_content}\n"
    python = f'def build(docs):\n    return "".join([f"""{body}""" for i, doc in enumerate(docs)])\n'
    jinja = "{% for doc in docs %}" + re.sub(r"\{([^{}]*?)(?::\.2f)?\}", lambda m: "{{ " + m[1].replace("{i}", "loop.index") + " }}", body).replace("{{ i }}", "{{ loop.index }}") + "{% endfor %}\n"
    from_python = lint_text(python, path="build.py", config=CONFIG)
    from_jinja = lint_text(jinja, path="build.j2", config=CONFIG)
    assert [f.code for f in from_python] == [f.code for f in from_jinja] == ["PL102", "PL201"]
    python_lines, jinja_lines = python.split("\n"), jinja.split("\n")
    assert [python_lines[f.line - 1][f.column - 1 :].split(":")[0] for f in from_python] == ["{doc.score", "{doc.metadata['date']}"]
    assert [jinja_lines[f.line - 1][f.column - 1 :].split(":")[0] for f in from_jinja] == ["{{ doc.score }})", "{{ doc.metadata['date'] }}"]


@pytest.mark.parametrize(
    "body, expected",
    [
        ("plain text", []),
        ("{a} and {{b}} and {c.d['e']!r:>{width}}", [(0, 3, "a"), (18, 39, "c.d['e']")]),
        ("{x != y}", [(0, 8, "x != y")]),
        ("{d['a}']}", [(0, 9, "d['a}']")]),
        ("{x[1:2]}", [(0, 8, "x[1:2]")]),
        ("}", None),
        ("{unclosed", None),
        ("{not python(}", None),
    ],
)
def test_split_fields(body, expected):
    assert split_fields(body) == expected


@pytest.mark.parametrize(
    "value",
    [
        '"""TEXT"""',
        '"""TEXT""".strip()',
        '"""TEXT""".replace("{x}", x)',
        'dedent("""TEXT""")',
        'textwrap.dedent("""TEXT""").format(a=1)',
    ],
)
@pytest.mark.parametrize("name", ["DEFAULT_GRAPH_KNOWLEDGE", "qa_prompt"])
def test_a_jinja_template_by_its_content_or_wrapped_in_a_call(value, name):
    text = "Answer from these.\n{% for doc in docs %}\n[{{ loop.index }}] {{ doc.title }} (score: {{ doc.score }})\n{{ doc.content }}\n{% endfor %}\n"
    source = f"{name} = {value.replace('TEXT', text)}\n"
    column = source.index('"""') + 1
    assert [(t.line, t.column, t.syntax) for t in templates_in(source)] == [(1, column, "jinja")]
    assert _found(source) == [(3, 44, "PL102")]


@pytest.mark.parametrize(
    "text",
    [
        "Hello {name}, your order {order.id} has shipped.",  # a format string, not Jinja
        "Use {{ and }} to write braces in a format string, like {{this}}.",
        "{% for x in items %}unclosed loop without its end tag",  # does not parse
    ],
)
def test_a_string_that_is_not_jinja_by_content_is_not_read(text):
    assert templates_in(f"MESSAGE = {text!r}\n") == []


def test_constants_that_are_not_text_are_skipped():
    assert templates_in("LIMIT = 10\nDEBUG = True\nNOTHING = None\nDATA = b'{% for x in y %}{{ x.z }}{% endfor %}'\nRATE = 0.5\n") == []


def test_positions_follow_characters_not_bytes():
    source = 'def build(docs):\n    return "".join([f"""Ü {doc.title}\nScore: {doc.score}\n{doc.text}""" for doc in docs])\n'
    assert _found(source) == [(3, 8, "PL102")]
    assert ast.parse(fix_text(source, path="build.py", config=CONFIG))


FORMAT_FORMS = {
    "appended": 'def build(docs):\n    parts = []\n    for i, doc in enumerate(docs):\n        parts.append("""CALL))\n    return "".join(parts)\n',
    "joined": 'def build(docs):\n    return "\\n".join(["""CALL) for i, doc in enumerate(docs)])\n',
}


@pytest.mark.parametrize("form", FORMAT_FORMS)
@pytest.mark.parametrize(
    "keyword, code",
    [
        ('score=doc.metadata["score"]', "PL102"),
        ("score=round(doc.score, 2)", "PL102"),
        ("score=doc.get('updated_at')", "PL201"),
        ("score=doc.metadata.get('chunk_id')", "PL203"),
    ],
)
def test_a_format_string_filled_from_the_loop_variable(form, keyword, code):
    call = '[{n}] {title}\nLabel: {score}\n{text}\n""".format(n=i + 1, title=doc.title, ' + keyword + ", text=doc.page_content"
    source = FORMAT_FORMS[form].replace("CALL", call)
    number = source.split("\n").index("Label: {score}") + 1
    assert _found(source) == [(number, 8, code)]
    if code != "PL201":  # a date has no safe fix
        fixed = fix_text(source, path="build.py", config=CONFIG)
        assert fixed == source.replace("Label: {score}\n", "")
        compile(fixed, "build.py", "exec")


@pytest.mark.parametrize(
    "call",
    [
        '"SELECT text FROM {table} WHERE score > {cutoff}".format(table=name, cutoff=doc.score)',  # no content
        '"Score: {s}\\n{c}".format(s=total, c=body)',  # nothing from the loop variable
    ],
)
def test_format_strings_that_are_not_sources(call):
    assert _found(f"def build(docs):\n    parts = []\n    for doc in docs:\n        parts.append({call})\n    return parts\n") == []


@pytest.mark.parametrize(
    "call",
    [
        '"Score: {}\\n{}".format(doc.score, doc.text)',
        '"Score: {0}\\n{1}".format(doc.score, doc.text)',
        '"Score: {1:.2f}\\n{0}".format(doc.text, doc.score)',
        '"Score: {s}\\n{0}".format(doc.text, s=doc.score)',
    ],
)
def test_a_format_string_filled_by_position_reads_each_field_as_its_argument(call):
    # The text is rebuilt from the call, not the file's own: the score is reported without a fix.
    source = f"def build(docs):\n    parts = []\n    for doc in docs:\n        parts.append({call})\n    return parts\n"
    assert _found(source) == [(4, 22, "PL102"), (4, 22, "PL205")]
    assert fix_text(source, path="build.py", config=CONFIG) == source


@pytest.mark.parametrize("call", ['"[{0}] {2}".format(doc.title, doc.text)', '"[{0}] {1".format(doc.title, doc.text)'])
def test_a_format_string_no_formatter_fills_is_read_as_written(call):
    # An index past the arguments, or an unclosed field: Python would raise, so nothing is read into it.
    assert _found(f"def build(docs):\n    parts = []\n    for doc in docs:\n        parts.append({call})\n    return parts\n") == []


KEYS = ["title", "score", "relevance", "updated_at", "published_date", "source", "page", "summary", "chunk_id", "section"]
LITERAL_LINES = st.text(alphabet=st.characters(whitelist_categories=("Lu", "Ll", "Nd"), whitelist_characters=" .,:-[]()"), max_size=30)
FIELD_LINES = st.tuples(st.sampled_from(["", "Label: ", "- ", "("]), st.sampled_from(KEYS)).map(lambda p: p[0] + "{doc." + p[1] + "}" + (")" if p[0] == "(" else ""))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(LITERAL_LINES, FIELD_LINES), max_size=6), st.sampled_from(["list joined", "appended", "enumerated"]))
def test_any_wrapper_reads_as_its_jinja_loop(lines, form):
    """Whatever the wrapper holds, its findings are the Jinja loop body's, at the same fields, and fixing keeps valid Python.
    (The item's text alone, with nothing around it, is values joined bare in code: judged by the function's
    name, see test_items_joined_bare_are_sources_only_where_the_function_says_context.)"""
    assume(any(line.strip() for line in lines))
    body = "\n".join(lines + ["{doc.page_content}"]) + "\n"
    python = LOOP_FORMS[form].replace("BODY", body).replace("ITEM", "doc")
    jinja = "{% for doc in docs %}" + re.sub(r"\{(doc\.\w+)\}", r"{{ \1 }}", body) + "{% endfor %}\n"
    from_python = lint_text(python, path="build.py", config=CONFIG)
    from_jinja = lint_text(jinja, path="build.j2", config=CONFIG)
    assert [(f.code, f.message) for f in from_python] == [(f.code, f.message.replace("{{ ", "{").replace(" }}", "}")) for f in from_jinja]
    python_lines, jinja_lines = python.split("\n"), jinja.split("\n")
    for p, j in zip(from_python, from_jinja):
        at_python = python_lines[p.line - 1][p.column - 1 :]
        at_jinja = jinja_lines[j.line - 1][j.column - 1 :]
        assert at_python.startswith("{doc.") == at_jinja.startswith("{{ doc.")
    fixed = fix_text(python, path="build.py", config=CONFIG)
    compile(fixed, "build.py", "exec")
    assert fix_text(fixed, path="build.py", config=CONFIG) == fixed


@pytest.mark.parametrize(
    "statement, expected",
    [
        ('context += "[" + str(i) + "] " + doc.title + "\\nScore: " + str(doc.score) + "\\n" + doc.page_content', [(4, 68, "PL102")]),
        ('parts.append(doc.title + "\\nUpdated: " + doc.metadata["updated_at"] + "\\n" + doc.text)', [(4, 50, "PL201")]),
        ('parts.append(doc.title + "\\n" + doc.text)', []),  # nothing wrong in it
        ('total += doc.score + 1', []),  # a number, not text
        ('parts.append("Processed " + doc.id + " with score " + str(doc.score))', []),  # a log line: no content
    ],
)
def test_a_sum_of_strings_and_values_reads_as_an_f_string(statement, expected):
    source = f'def build(docs):\n    context, parts, total = "", [], 0\n    for i, doc in enumerate(docs):\n        {statement}\n    return context, parts, total\n'
    assert _found(source) == expected
    assert fix_text(source, path="build.py", config=CONFIG) == source  # not written as it reads: no fix


@pytest.mark.parametrize("form", LOOP_FORMS)
@pytest.mark.parametrize("content", ["{X.highlight_text}", "{X['key_points']}", "{X.summary}", "{X.get('abstract_md', '')}"])
def test_the_one_value_no_word_list_knows_is_the_chunk_of_a_context_loop(form, content):
    """A loop over the retrieved results that prints a title, a date and one unknown value: that value is the chunk."""
    source = _builder(form, "doc", "Published: {X.published_date}", content)
    assert [code for _, _, code in _found(source)] == ["PL201"]


@pytest.mark.parametrize("collection", ["users", "rows"])
def test_an_unknown_value_is_no_chunk_outside_a_context_loop(collection):
    source = LOOP_FORMS["appended"].replace("docs", collection).replace("BODY", "Title: {doc.title}\nPublished: {doc.published_date}\n{doc.highlight_text}\n").replace("ITEM", "doc")
    assert _found(source) == []


@pytest.mark.parametrize("collection", ["users", "rows"])  # not named as the context: only a content key makes a source
@pytest.mark.parametrize("content, chunk", [("{X.page_text}", True), ("{X['selected_page_text']}", True), ("{X.raw_chunk_content}", True), ("{X.highlight_text}", False), ("{X.alt_text}", False)])
def test_the_text_of_a_page_or_chunk_is_the_chunk_in_any_loop(collection, content, chunk):
    source = LOOP_FORMS["appended"].replace("docs", collection).replace("BODY", "Title: {X.title}\nPublished: {X.published_date}\n" + content + "\n").replace("X", "doc").replace("ITEM", "doc")
    assert [code for _, _, code in _found(source)] == (["PL201"] if chunk else [])


def test_two_unknown_values_leave_the_chunk_undecided():
    source = _builder("appended", "doc", "Published: {doc.published_date}\n{doc.key_points}", "{doc.highlight_text}")
    assert _found(source) == []


@pytest.mark.parametrize(
    "computed",
    [
        'summary = "\\n".join(h["text"] for h in doc["highlights"])',
        "points = doc.get('highlights', []); summary = ' '.join(points[:3])",
        "summary = doc.body.strip() if doc.body else 'No summary'",
    ],
)
def test_a_local_computed_from_the_loop_variable_is_a_field_named_by_its_variable(computed):
    """`summary = ...doc...` then `{summary}`: the value is the item's, and its name says it is derived text."""
    source = f'def build(docs):\n    parts = []\n    for doc in docs:\n        {computed}\n        parts.append(f"""Title: {{doc.title}}\nPublished: {{doc.published_date}}\n{{summary}}\n""")\n    return "".join(parts)\n'
    assert [code for _, _, code in _found(source)] == ["PL201"]


@pytest.mark.parametrize("read", ["scores[i]", "round(scores[i] * 100, 1)", "results.scores[i]"])
def test_a_local_read_from_a_list_at_the_loop_counter_is_a_field_of_the_item(read):
    """`score = scores[i]` in `for i, doc in enumerate(docs)`: one value per item, named by its variable."""
    source = f'def build(docs, scores):\n    parts = []\n    for i, doc in enumerate(docs):\n        score = {read}\n        parts.append(f"[{{i + 1}}] {{doc.title}} (Relevance: {{score}}%)\\n{{doc.page_content}}")\n    return "".join(parts)\n'
    assert [code for _, _, code in _found(source)] == ["PL102"]
    # The twin: a value read at another index is no field of the item.
    assert _found(source.replace("[i]", "[0]")) == []


@pytest.mark.parametrize("item", ["chunk", "node", "passage", "piece"])
@pytest.mark.parametrize("key", ["{X['id']}", "{X.id}", "{X.get('idx')}"])
def test_the_id_of_a_chunk_is_a_chunk_ordinal(item, key):
    """`chunk["id"]` is a chunk id (its place in the index), where `doc["id"]` is a document's citation key."""
    source = f'def build({item}s):\n    return "\\n\\n".join([f"""CHUNK {key}. {{X.text}}""" for {item} in {item}s])\n'.replace("X", item)
    assert "PL203" in [code for _, _, code in _found(source)]


@pytest.mark.parametrize("item", ["doc", "document", "source", "result"])
def test_the_id_of_a_document_is_no_ordinal(item):
    source = f'def build({item}s):\n    return "\\n\\n".join([f"""[{{X.id}}] {{X.title}}\n{{X.text}}""" for {item} in {item}s])\n'.replace("X", item)
    assert "PL203" not in [code for _, _, code in _found(source)]


@pytest.mark.parametrize("asks", ["Cite the chunk id of each claim.", "Add citations as [id].", "Reference the source ids you used."])
def test_a_chunk_id_the_instructions_ask_to_cite_is_reported_without_a_fix(asks):
    """Cited, the chunk's id is the citation key: reported, for a count would key the source as well, but not removed,
    which would leave the citations with no key. Not cited, it is removed."""
    from promptlint.engine.config import build as build_config

    template = f"Answer from the chunks. {asks}\n{{% for chunk in chunks %}}\n[{{{{ chunk.id }}}}] {{{{ chunk.text }}}}\n{{% endfor %}}\nQuestion: {{{{ question }}}}\n"

    def ordinals(text):
        return [(f.code, f.fix is not None) for f in lint_text(text, path="t.j2", config=build_config({}, "t")) if f.code == "PL203"]

    assert ordinals(template) == [("PL203", False)]
    assert ordinals(template.replace(asks, "Be brief.")) == [("PL203", True)]


@pytest.mark.parametrize(
    "shown",
    [
        "format_date(d['updated_at'])",
        "humanize(d.metadata.get('published'))",
        "datetime.fromisoformat(d['date']).strftime('%Y-%m-%d')",
        "arrow.get(d.created_at).humanize()",
        "str(d.last_modified)",
    ],
)
def test_a_date_shown_through_a_function_of_it_is_the_date(shown):
    code = f"def build(docs):\n    out = []\n    for d in docs:\n        out.append(f\"[{{d['title']}}] ({{{shown}}})\\n{{d['text']}}\")\n    return '\\n'.join(out)\n"
    assert [f.code for f in lint_text(code, path="ctx.py", config=CONFIG) if f.code == "PL201"] == ["PL201"]


@pytest.mark.parametrize("shown", ["d.replace('a', 'b')", "len(d['tags'])", "utils.clean(d['text'])"])
def test_a_function_of_no_date_shows_no_date(shown):
    code = f"def build(docs):\n    out = []\n    for d in docs:\n        out.append(f\"[{{d['title']}}] ({{{shown}}})\\n{{d['text']}}\")\n    return '\\n'.join(out)\n"
    assert [f.code for f in lint_text(code, path="ctx.py", config=CONFIG) if f.code in ("PL201", "PL102")] == []


# A loop body whose header and chunk are added apart: HEAD is the header's f-string, CONTENT the chunk's value.
APART_FORMS = {
    "appended apart": "def build(docs):\n    parts = []\n    for i, ITEM in enumerate(docs):\n        parts.append(f\"HEAD\")\n        parts.append(CONTENT)\n    return '\\n'.join(parts)\n",
    "added apart": "def build(docs):\n    text = ''\n    for ITEM in docs:\n        text += f\"HEAD\\n\"\n        text += CONTENT + '\\n\\n'\n    return text\n",
    "named, then apart": "def build(docs):\n    out = []\n    for ITEM in docs:\n        head = f\"HEAD\"\n        body = CONTENT\n        out.append(head)\n        out.append(body)\n    return '\\n'.join(out)\n",
    "nested": "def build(groups):\n    parts = []\n    for ITEM in groups:\n        parts.append(f\"HEAD\")\n        for piece in ITEM['chunks']:\n            parts.append(f\"--- {piece['title']}\")\n            parts.append(PIECE)\n    return '\\n'.join(parts)\n",
}


@pytest.mark.parametrize("form", APART_FORMS)
@pytest.mark.parametrize("item, content", [("doc", "X.page_content"), ("r", "X['text']"), ("hit", "X.get('content', '')")])
@pytest.mark.parametrize("head, code", [("[{X.title}] score {X.score:.2f}", "PL102"), ("{X['title']} ({X['published_at']})", "PL201"), ("{X.title} by {X.author}", None)])
def test_a_header_and_a_chunk_added_apart_are_one_source(form, item, content, head, code):
    piece = "piece" + content.removeprefix("X")
    source = APART_FORMS[form].replace("HEAD", head).replace("CONTENT", content).replace("PIECE", piece).replace("X", item).replace("ITEM", item)
    assert [c for _, _, c in _found(source) if c in ("PL102", "PL201")] == ([code] if code else [])


@pytest.mark.parametrize(
    "statement",
    [
        "scores.append(doc.score)",  # a list of numbers beside the text, not part of it
        "total += doc.score",
        "seen.add(doc.metadata['date'])",
    ],
)
def test_a_value_added_to_something_else_is_not_read_into_the_source(statement):
    source = f"def build(docs):\n    parts, scores, total, seen = [], [], 0, set()\n    for doc in docs:\n        parts.append(f\"[{{doc.title}}]\\n{{doc.page_content}}\")\n        {statement}\n    return parts\n"
    assert _found(source) == []


# ---- a loop's per-item text is a source only with evidence that it makes the context ----

# Names that say the text is the retrieved context, at each place a module says it: the function
# that builds it, what a loop iterates, what the text is added to.
CONTEXT_NAMES = {
    "function": ("def build(", "def format_context("),
    "collection": ("rows_", "retrieved_chunks"),
    "accumulator": ("parts", "context_parts"),
}


def _item_loop(function: str, collection: str, accumulator: str, body: str) -> str:
    return (
        f"{function}rows, {collection}):\n    {accumulator} = []\n    for row in {collection}:\n"
        f'        {accumulator}.append(f"""{body}""")\n    return "\\n".join({accumulator})\n'
    )


@pytest.mark.parametrize("place", CONTEXT_NAMES)
@pytest.mark.parametrize("body", ["{row.name} ({row.updated_at})", "Date: {row['date']}\nAuthor: {row['author']}", "- {row.author} at {row.created_at}: {row.score}"])
def test_a_name_that_says_context_makes_the_loop_a_source(place, body):
    names = {key: neutral for key, (neutral, _) in CONTEXT_NAMES.items()}
    names[place] = CONTEXT_NAMES[place][1]
    module = _item_loop(names["function"], names["collection"], names["accumulator"], body)
    assert [t.loop.keys for t in templates_in(module)] == [tuple(re.findall(r"row(?:\.|\[')(\w+)", body))]
    # The clean twin: the same loop with no name that says context is a line of a log or a page, no prompt.
    twin = _item_loop("def build(", "rows_", "parts", body)
    assert templates_in(twin) == [] and lint_text(twin, path="build.py", config=CONFIG) == []


@pytest.mark.parametrize("content", ["{row.page_content}", "{row['text']}", "{row.get('content')}"])
@pytest.mark.parametrize("beside", ["Title: {row.title}\n", "({row.published_at})\n"])
def test_an_item_shown_with_its_text_and_more_is_a_source_whatever_its_names(content, beside):
    module = _item_loop("def build(", "rows_", "parts", beside + content)
    assert len(templates_in(module)) == 1
    # Its text alone, with nothing beside it, is text joined for any purpose.
    assert templates_in(_item_loop("def build(", "rows_", "parts", content)) == []


HANDED_OVER = {
    "keyword": "\ndef answer(rows, q):\n    return PROMPT.format(context=build(rows, rows), question=q)\n",
    "assigned": "\ndef answer(rows):\n    retrieved_context = build(rows, rows)\n    return PROMPT + retrieved_context\n",
    "key": "\ndef answer(rows):\n    return {\"context\": build(rows, rows)}\n",
}


@pytest.mark.parametrize("hand_over", HANDED_OVER)
@pytest.mark.parametrize("body", ["{row.name} ({row.updated_at})", "- {row.author} at {row.created_at}: {row.score}"])
def test_a_function_whose_result_is_handed_over_as_the_context_builds_sources(hand_over, body):
    """Whatever the function is called, its result given as the context makes its loop a source's wrapper."""
    prompt = 'PROMPT = "Answer from the context: {context}"\n\n'
    module = prompt + _item_loop("def build(", "rows_", "parts", body) + HANDED_OVER[hand_over]
    assert [t.loop is None for t in templates_in(module)] == [True, False]
    # The clean twin: a module holding a prompt does not make every loop of text a source; nothing
    # hands this one to the model (operator actions, log lines and pages are built this way too).
    twin = prompt + _item_loop("def build(", "rows_", "parts", body) + HANDED_OVER[hand_over].replace("build(rows, rows)", "str(rows)")
    assert [t.loop is None for t in templates_in(twin)] == [True]


NESTED_FIELDS = [("Relevance: {chunk['score']:.2f}", "PL102"), ("Chunk: {int(chunk['chunk_id']) + 1}", "PL203"), ("Updated: {chunk['updated_at']}", "PL201")]


@pytest.mark.parametrize("line, code", NESTED_FIELDS)
@pytest.mark.parametrize("head", ['Document Title: {document["title"]}', '# {document["name"]}'])
def test_an_inner_loop_that_wraps_its_parts_is_read_once(line, code, head):
    """A document's loop around its chunks' loop, each writing its own text: the chunk's field is one
    cause, reported once, where the inner loop writes it (not again in the outer loop read whole)."""
    source = (
        "def combine_context(documents):\n    context = \"\"\n    for document in documents:\n"
        f"        context += f'{head}\\n'\n"
        "        for chunk in document['chunks']:\n"
        f"            context += f\"{line}\\n\"\n"
        "            context += f\"{chunk['content']}\\n\"\n"
        "    return context\n"
    )
    assert [(f[0], f[2]) for f in _found(source)] == [(6, code)]
    # The twin: an inner loop that adds its parts bare has no wrapper of its own; the document's loop reads it
    # as the text of the document (its first part), and is clean.
    bare = source.replace(f'            context += f"{line}\\n"\n', "")
    assert _found(bare) == []


@pytest.mark.parametrize("grown", [False, True])
@pytest.mark.parametrize("field, code", FIELD_FORMS)
def test_a_local_text_shown_as_a_field_of_the_string_added_is_read_as_that_text(field, code, grown):
    """`header = f"[{i}] ... Relevance: {score}"` (grown with `+=` under an `if`), then
    `parts.append(f"{header}\\n{text}")`: the header's fields are the source's, found once, reported
    where the text is added and not fixed (it is not written there)."""
    growth = '        if doc.url:\n            header += f" ({doc.url})"\n' if grown else ""
    source = (
        "def build(docs):\n    parts = []\n    for i, doc in enumerate(docs, 1):\n"
        f'        header = f"[{{i}}] {{doc.title}} | {field.replace("X", "doc")}"\n{growth}'
        '        parts.append(f"{header}\\n{doc.page_content}")\n    return "\\n\\n".join(parts)\n'
    )
    line = 7 if grown else 5
    assert [(f.line, f.column, f.code, f.fix) for f in lint_text(source, path="build.py", config=CONFIG)] == [(line, 22, code, None)]
    # The clean twin: the same header without the field.
    assert _found(source.replace(f' | {field.replace("X", "doc")}', "")) == []


@pytest.mark.parametrize("nested", [False, True])
def test_a_body_that_dispatches_on_the_items_kind_is_not_one_text(nested):
    """khoj's operator renders each block by its type (`if b.type == "text": ... elif ...: ... elif ...:`): the
    branches are other kinds of item, never one text, so the summary one branch adds is not beside another's
    content (PL104). Its twin, the same adds in sequence, is one text."""
    branches = [
        'if b.type == "text":\n            out.append(b.text)',
        'elif b.type == "call":\n            out.append(f"Open URL: {b.url}")',
        'elif b.type == "reasoning":\n            out.append(f"**Summary**: {b.summary}")',
    ]
    body = "\n        ".join(branches)
    source = f"def render_context(blocks):\n    out = []\n    for b in blocks:\n        {body}\n    return \"\\n\".join(out)\n"
    if nested:  # under a test of the item's shape (DocsGPT's `if isinstance(item, dict):`)
        source = source.replace("\n        ", "\n            ").replace("    for b in blocks:\n            ", "    for b in blocks:\n        if isinstance(b, dict):\n            ")
    assert _found(source) == []
    sequence = "\n        ".join(b.split(":\n            ", 1)[1] for b in branches)
    twin = f"def render_context(blocks):\n    out = []\n    for b in blocks:\n        {sequence}\n    return \"\\n\".join(out)\n"
    assert [code for *_, code in _found(twin)] == ["PL104"]


REWRITTEN = '''def _format_chunk(result, index):
    return (
        f"--- [{index}] {result.path}\\n"
        f"relevance={result.score:.3f}\\n"
        f"{result.text}\\n"
    )


def assemble_context(results, budget):
    chunk_texts = []
    for index, result in enumerate(results, start=1):
        formatted = _format_chunk(result, index)
        if len(formatted) > budget:
            formatted = REWRITE
        chunk_texts.append(formatted)
    context = "\\n".join(chunk_texts)
    return context
'''


@pytest.mark.parametrize("rewrite", ['formatted[:budget] + "\\n... [chunk truncated]\\n"', "formatted.strip()", 'formatted.replace("\\t", " ")'])
def test_a_text_cut_or_cleaned_in_place_is_read_as_it_was_made(rewrite):
    """`formatted = formatted[:keep] + "..."` under an `if`: the chunk's text as the helper makes it (RAAG's context)."""
    module = REWRITTEN.replace("REWRITE", rewrite)
    [template] = [t for t in templates_in(module) if t.loop is not None]
    assert template.text == "--- [{index}] {result.path}\nrelevance={result.score:.3f}\n{result.text}\n"
    # The twin: a text made afresh from something else is that text.
    fresh = REWRITTEN.replace("REWRITE", 'f"[{index}] {result.path} (cut)"')
    assert "(cut)" in "".join(t.text for t in templates_in(fresh) if t.loop is not None)


SPREAD = '''def format_source(source):
    caption_line = [f"Caption: {source.caption}"] if source.caption else []
    return "\\n".join(
        [
            f"[{source.source_id}]",
            f"File name: {source.file_name}",
            SPREAD
            f"Score: {source.score:.4f}",
            "Content:",
            source.content,
        ]
    )


def format_context(sources):
    return "\\n\\n".join(format_source(source) for source in sources)
'''


@pytest.mark.parametrize("spread", ["*caption_line,", ""])
def test_lines_spread_into_a_joined_list_are_read_among_the_others(spread):
    """`*caption_line` among the lines a helper joins (rfc-rag-agent's source formatter): the other lines are still read."""
    module = SPREAD.replace("SPREAD", spread)
    assert [f.code for f in lint_text(module, path="context.py") if f.code == "PL102"] == ["PL102"]


GROWN_HEADER = '''def build(results):
    contexts = []
    for r in results:
        text = r.get("text", "").strip()
        header = f"[Source: {r['doc_id']}"
        if r.get("section"):
            header += f", section: {r['section']}"
        if r.get("chunk_id") is not None:
            header += f", chunk: {r['chunk_id']}"
        header += "]"
        full_chunk = f"{header}\\n{text}"
        if len(contexts) > 8:
            truncated_text = tokenizer.decode(tokenizer.encode(full_chunk)[:500])
            contexts.append(truncated_text)
            break
        contexts.append(full_chunk)
    return "\\n\\n---\\n\\n".join(contexts)
'''


def test_a_header_grown_in_place_is_read_whole_where_a_text_shows_it():
    """`header += f", chunk: {...}"` under a condition, then `full_chunk = f"{header}\\n{text}"` added: the
    header is all it grew to (reported where the text shows it), and its chunk id, read by two prompts over the same
    code, is reported once."""
    assert [(line, code) for line, _, code in _found(GROWN_HEADER)] == [(11, "PL203")]
    # The twin: with no chunk id added, nothing to report.
    assert _found(GROWN_HEADER.replace("""        if r.get("chunk_id") is not None:\n            header += f", chunk: {r['chunk_id']}"\n""", "")) == []


@pytest.mark.parametrize("shown", ['f" (Score: {ctx[\'score\']:.4f})" if ctx.get("score") is not None else ""', '"" if ctx.get("score") is None else f" (Score: {ctx[\'score\']:.4f})"'])
def test_a_text_shown_under_a_condition_is_that_text(shown):
    """`score_str = f" (Score: ...)" if ... else ""`, then `{score_str}` in the source's header: the score is shown when there is one."""
    source = (
        "def build(context_list, question):\n    context_section = ''\n    for i, ctx in enumerate(context_list):\n"
        f"        score_str = {shown}\n"
        "        context_section += f\"Context {i+1}{score_str}:\\n{ctx['content'].strip()}\\n\\n\"\n"
        "    return f\"Here are some relevant context pieces:\\n{context_section}\\nQuestion: {question}\"\n"
    )
    assert sorted(code for _, _, code in _found(source)) == ["PL102", "PL205"]  # and no title: only the content under the header


FORMATTER = 'def format_chunk(doc):\n    return (\n        f"Paper: {doc.title}"\n        f"\\n\\nScore: {doc.score:.2f}"\n        f"\\n\\nBody: {doc.page_content}"\n    )\n'


def test_a_function_of_one_item_named_for_a_source_is_its_template():
    # No call in the file: the function is all the file shows of its sources.
    assert [(line, code) for line, _, code in _found(FORMATTER)] == [(4, "PL102")]


def test_a_function_of_one_item_called_in_the_file_is_read_where_it_is_called():
    caller = 'def build_context(docs):\n    return "\\n\\n".join(format_chunk(d) for d in docs)\n'
    assert [code for _, _, code in _found(FORMATTER + "\n\n" + caller)] == ["PL102"]


@pytest.mark.parametrize(
    "function",
    [
        FORMATTER.replace("format_chunk", "show"),  # a name that names no source: a page, a log line
        'def format_chunk(context):\n    return f"Answer from the context.\\n\\nScore: high\\n\\n{context}"\n',  # the parameter printed whole
    ],
)
def test_a_function_of_one_item_that_is_no_sources_template(function):
    assert [code for _, _, code in _found(function) if code == "PL102"] == []


def test_a_function_of_one_item_that_only_joins_its_values_is_no_sources_template():
    # `f"{chunk.title_prefix}{chunk.doc_summary}{chunk.content}"` (census onyx): the text an index embeds, no layout.
    joined = 'def enriched_chunk(chunk):\n    return f"{chunk.title_prefix}{chunk.doc_summary}{chunk.content}{chunk.metadata_suffix}"\n'
    assert _found(joined) == []
    # The twin: the same values with a label and line breaks of its own are laid out for a reader.
    laid_out = joined.replace("{chunk.doc_summary}{chunk.content}", "\\nSummary: {chunk.doc_summary}\\n\\n{chunk.content}")
    assert [code for _, _, code in _found(laid_out)] == ["PL104"]


SERIALIZED_HELPER = (
    "import json\n\n\ndef transform_chunks(chunks):\n"
    '    return [{"title": c.title, "similarity": c.similarity, "content": c.content} for c in chunks]\n\n\n'
    "def format_context(chunks):\n"
    '    return f"Here are the relevant documents:\\n<context>\\n{json.dumps(transform_chunks(chunks))}\\n</context>"\n'
)


def test_a_list_of_dicts_a_helper_returns_to_a_serializer_is_the_json_the_model_reads():
    assert [(line, code) for line, _, code in _found(SERIALIZED_HELPER)] == [(5, "PL102")]
    # The same list handed to a page, not written into the prompt's text, is not read.
    page = SERIALIZED_HELPER.replace('return f"Here are the relevant documents:\\n<context>\\n{json.dumps(transform_chunks(chunks))}\\n</context>"', "return render_page(transform_chunks(chunks))")
    assert _found(page) == []


# A tool's results written as JSON records (census onyx): each record a dict built by name, given keys only when
# the item has them, and the list handed to the serializer inside a payload, returned beside a citation map.
BUILT_RECORDS = (
    "import json\n\n\ndef sections_as_json(sections):\n    results = []\n    for section in sections:\n"
    "        chunk = section.center_chunk\n        updated = None\n        if chunk.updated_at:\n"
    "            updated = chunk.updated_at.isoformat()\n"
    '        result = {"document": section.citation, "title": chunk.title}\n'
    '        if updated is not None:\n            result["updated_at"] = updated\n'
    '        result["content"] = section.combined_content\n        results.append(result)\n'
    '    payload = {}\n    payload["results"] = results\n    return json.dumps(payload, indent=2), {}\n'
)


def test_a_record_built_key_by_key_and_serialized_in_a_payload_is_the_json_the_model_reads():
    assert [(line, code) for line, _, code in _found(BUILT_RECORDS)] == [(11, "PL201")]
    # The twins: the payload sent to a client's stream, and the record never added to what is serialized.
    streamed = BUILT_RECORDS.replace("    return json.dumps(payload, indent=2), {}\n", '    yield f"data: {json.dumps(payload)}\\n\\n"\n')
    assert _found(streamed) == []
    assert _found(BUILT_RECORDS.replace("results.append(result)", "results.append(section.id)")) == []


def test_a_local_shows_the_locals_set_before_it():
    # `chunk_ref` is read into `cite`, and `cite` into the text added (blind48b garretbeebe): "chunk 3/12".
    source = ('def build(question, chunks):\n    blocks = []\n    for i, chunk in enumerate(chunks, start=1):\n        p = chunk.payload\n'
              '        chunk_ref = f"{p.get(\'chunk_index\')}/{p.get(\'chunk_total\')}"\n        cite = f"[S{i}] {p.get(\'source\')} (chunk {chunk_ref})"\n'
              '        blocks.append(f"{cite}\\n{p.get(\'text\', \'\')}")\n    context = "\\n\\n".join(blocks)\n    return context\n')
    assert [code for _, _, code in _found(source)] == ["PL203"]
    # The twin: a reference with no chunk position in it.
    assert _found(source.replace(" (chunk {chunk_ref})", "")) == []


def test_a_local_named_in_a_branch_s_test_is_the_item_s_field():
    # `if summary := doc.summary:` (census R2R) names the document's summary as `summary = doc.summary` does.
    source = ('def build_context(docs):\n    lines = []\n    for doc in docs:\n        lines.append(f"Title: {doc.title}")\n'
              '        if summary := doc.summary:\n            lines.append(f"Summary: {summary}")\n        lines.append(doc.text)\n'
              '    return "\\n".join(lines)\n')
    assert [(line, code) for line, _, code in _found(source)] == [(6, "PL104")]
    # The twin: the name made from something other than the item is not its field.
    assert _found(source.replace("summary := doc.summary", "summary := overview")) == []


def test_lists_the_loop_variable_indexes_are_the_item_s_values():
    # `for rank, idx in enumerate(top_k)` then `chunks[idx]["chunk_id"]` (blind48a csl): the idx-th chunk's id.
    source = ('def build_context(chunks, scores, top_k):\n    context = ""\n    for rank, idx in enumerate(top_k):\n'
              '        context += f"Evidence {rank + 1}\\n"\n        context += f"Source: {chunks[idx][\'source\']}\\n"\n'
              '        context += f"Chunk ID: {chunks[idx][\'chunk_id\']}\\n"\n        context += chunks[idx]["text"] + "\\n\\n"\n    return context\n')
    assert [(line, code) for line, _, code in _found(source)] == [(6, "PL203")]
    # The twin: indexed by the counter, the list is not the item's (the counter numbers the results).
    assert _found(source.replace("[idx]", "[rank]")) == []


# The chunk's text looked up in a mapping by the chunk's id: the value is the mapping's, whatever the key says.
# (One argument, `.get(x)` may be a module's function of the value, `arrow.get(d.created_at)`: not read so.)
LOOKUPS = {"get with a default": 'texts.get(hit["chunk_id"], "").strip()', "index": 'texts[hit["chunk_id"]]'}


@pytest.mark.parametrize("lookup", sorted(LOOKUPS))
@pytest.mark.parametrize("local", ["body", "passage"])
def test_a_value_looked_up_by_the_items_id_is_the_mappings_not_the_id(lookup, local):
    source = ("def build(hits, texts):\n    parts = []\n    for i, hit in enumerate(hits, 1):\n"
              f"        {local} = {LOOKUPS[lookup]}\n"
              f"        parts.append(f\"[{{i}}] {{hit['title']}} (chunk {{hit['chunk_id']}})\\n{{{local}}}\")\n"
              '    return "\\n\\n".join(parts)\n')
    # One ordinal, where the id is shown; the text looked up by it is the chunk's text.
    assert [(f.line, f.code) for f in lint_text(source, path="build.py", config=CONFIG)] == [(5, "PL203")]
    # The twin: the text taken from the item itself reads the same.
    twin = source.replace(LOOKUPS[lookup], 'hit["text"]')
    assert [(f.line, f.code) for f in lint_text(twin, path="build.py", config=CONFIG)] == [(5, "PL203")]


# One record's fields printed from a list of its keys: where the list is, how a key is labelled and read.
KEY_LOOPS = {
    "a helper over a module constant": ('SHOWN = KEYS\n\ndef render(doc):\n    lines = []\n    for key in SHOWN:\n        if doc.get(key):\n'
                                        '            lines.append(f"LABEL: FIELD")\n    return "\\n".join(lines)\n\n'
                                        'def build_context(docs):\n    return "\\n\\n".join(render(d) for d in docs)\n', 7),
    "nested in the loop over items": ('def build_context(docs):\n    parts = []\n    for doc in docs:\n        for key in KEYS:\n'
                                      '            parts.append(f"LABEL: FIELD")\n        parts.append("")\n    return "\\n".join(parts)\n', 5),
}
KEY_LABELS = ["{key}", "{key.title()}", "{key.replace('_', ' ').title()}", "{key.upper()}"]
KEY_FIELDS = ["{doc[key]}", "{doc.get(key, '')}", "{getattr(doc, key)}"]


@pytest.mark.parametrize("loop", sorted(KEY_LOOPS))
@pytest.mark.parametrize("label", KEY_LABELS)
@pytest.mark.parametrize("field", KEY_FIELDS)
@pytest.mark.parametrize("keys", ['["title", "published_date", "text"]', '("title", "updated_at", "content")'])
def test_a_loop_over_a_records_keys_shows_each_key_it_lists(loop, label, field, keys):
    """`for key in DISPLAY_FIELDS: lines.append(f"{key.title()}: {doc[key]}")` prints a date on every source."""
    code, line = KEY_LOOPS[loop]
    source = code.replace("LABEL", label).replace("FIELD", field)
    assert [(f.line, f.code) for f in lint_text(source.replace("KEYS", keys), path="build.py", config=CONFIG)] == [(line, "PL201")]
    # The twin: keys that name no date print none, and the loop over keys is no loop over sources.
    assert _found(source.replace("KEYS", '["title", "author", "text"]')) == []


@pytest.mark.parametrize("unpacking", ["date, text = item", "(date, text) = item", "if item:\n            date, text = item"])
@pytest.mark.parametrize("added", ['"Session {}:\\nSession Date: {}\\n{}\\n".format(i + 1, date, text)', 'f"Session {i + 1}:\\nSession Date: {date}\\n{text}\\n"'])
def test_an_item_unpacked_in_the_loop_body_is_read_by_its_parts(unpacking, added):
    """`(chunk_date, entry) = item` names the item's parts, as `for chunk_date, entry in items` does."""
    source = f"def build_history(sessions):\n    history = ''\n    for i, item in enumerate(sessions):\n        {unpacking}\n        history += {added}\n    return history\n"
    line = source.split("\n").index(f"        history += {added}") + 1
    assert [(f.line, f.code) for f in lint_text(source, path="build.py", config=CONFIG) if f.code == "PL201"] == [(line, "PL201")]
    # The twin: names unpacked from anything but the item are not its fields.
    twin = source.replace("= item", "= DEFAULTS")
    assert [f.code for f in lint_text(twin, path="build.py", config=CONFIG)] == []


def test_the_items_positions_cut_another_value_whose_piece_is_no_field_of_the_item():
    """`start, end = m.span()` then `answer[start:end]`: a piece of the answer, cut where the match stands."""
    source = ("def build_context(matches, answer):\n    parts = []\n    for m in matches:\n        start, end = m.span()\n"
              "        cited = answer[start:end]\n        parts.append(f\"[{fix(cited)}]\")\n    return ''.join(parts)\n")
    assert lint_text(source, path="build.py", config=CONFIG) == []
    # The twin: the match's own text is the item's.
    twin = source.replace("answer[start:end]", "m.group(0)")
    assert [f.code for f in lint_text(twin, path="build.py", config=CONFIG)] == ["PL205"]


@pytest.mark.parametrize("header", ["[{i}] ({doc['channel']}, {date}): {cut}", "[{i}] [{doc['channel']} | {date}]: {cut}"])
def test_a_helpers_text_in_a_function_that_makes_the_context_is_its_sources(header):
    """`chunks.append(_format_chunk(i, d, cut))` in `compose_context`: the text the helper returns is written on the
    helper's line, but made where the loop stands, in a function whose name says it makes the context; the value
    after the header's closing group and colon is the chunk."""
    source = ("def _format_chunk(i, doc, cut):\n    date = str(doc.get('date', '') or '')[:10]\n"
              f"    return f\"{header}\"\n\n\n"
              "def compose_context(docs):\n    chunks = []\n    for i, d, cut in docs:\n        chunks.append(_format_chunk(i, d, cut))\n"
              "    return '\\n\\n'.join(chunks)\n")
    assert [(f.line, f.code) for f in lint_text(source, path="context.py", config=CONFIG)] == [(3, "PL201")]
    # The twin: functions whose names say nothing of the context make a report's rows, not a prompt's sources.
    twin = source.replace("compose_context", "write_report").replace("_format_chunk", "_format_row").replace("docs", "rows").replace("chunks", "lines")
    assert lint_text(twin, path="context.py", config=CONFIG) == []
    # Nor does a name inside such a function (`for i, d, cut in docs`) say what a helper it calls makes.
    twin = source.replace("compose_context", "process_children").replace("_format_chunk", "_format_row")
    assert lint_text(twin, path="context.py", config=CONFIG) == []


# A loop over a list's places, the item read at the counter (blind79 nevan-kurniawan: `for i in range(0, iter_len)`, then
# `query_results.points[i].payload.get('published')` on every RESULT block, an expected PL201 missed).
INDEXED = {
    "an object's list": ("query_results.points[i]", "query_results.points"),
    "a list": ("hits[i]", "hits"),
}


@pytest.mark.parametrize("counted", ["range(len(LIST))", "range(0, n)"])
@pytest.mark.parametrize("form", INDEXED)
def test_a_loop_over_a_lists_places_reads_the_item_at_the_counter(form, counted):
    item, listed = INDEXED[form]
    source = (f"def build(query_results, hits, n):\n    blocks = []\n    for i in {counted.replace('LIST', listed)}:\n"
              f"        title = {item}.payload.get('title')\n"
              f"        blocks.append(f\"RESULT {{i + 1}}:\\n    Title: {{title}}\\n    Published date: {{{item}.payload.get('published')}}\\n\"\n"
              f"                      f\"    Text: {{{item}.payload.get('text')}}\\n\")\n"
              '    return "\\n".join(blocks)\n')
    assert [(line, code) for line, _, code in _found(source)] == [(5, "PL201")]
    [loop] = [t.loop for t in templates_in(source) if t.loop is not None]
    assert (loop.collection, loop.index, loop.site) == (listed, "i", 3)
    # The twin: a loop over places that reads no list at the counter renders no item ("Step 1", "Step 2").
    assert _found(f"def steps(n):\n    lines = []\n    for i in {counted.replace('LIST', 'steps')}:\n        lines.append(f\"Step {{i + 1}}: do the next thing now\")\n    return lines\n") == []
