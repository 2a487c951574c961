"""Each field rule x each input form x several spellings of its label and shapes of its expression.

A case is generated, not written: the rule's field is rendered with one spelling in
one form (plain text, Markdown, XML, chat JSON, Jinja, a format string, a template
in a .py file, Mustache, Prompty). It must fire exactly where the field's value
stands; its clean twin, the same prompt without the field, must stay clean.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

TODAY = "2026-12-02"
QUESTION = "Can I return a damaged item?"
TITLES = ("Returns Policy", "Shipping FAQ")
CONTENTS = ("Damaged goods may be returned within 30 days of delivery.", "Orders ship within two business days.")
MARK = "\x00"  # "\x00<n>" stands for source n's value ("\x000" before a slot): a finding must be where it stands
HEAD = "\x01"  # "\x01<n>" marks source n's header, where a rule about the whole source reports
# The marks as they stand in the text: in JSON they are escaped.
_MARKS = re.compile(r"(?:\x00|\\u0000)(\d)|(?:\x01|\\u0001)(\d)")


@dataclass(frozen=True)
class Rule:
    code: str
    labels: tuple[str, ...]  # as a project writes them in rendered text
    values: tuple[str, str]  # rendered on the two sources
    expressions: tuple[str, ...]  # Jinja expressions of the loop item `d`
    slots: tuple[str, ...]  # format-string slots; "{n}" is the source's number
    options: dict | None = None
    at_header: bool = False  # the finding is at the header of the source under the floor (the second)
    at_line: bool = False  # the finding is the whole field: at its line's start, or its header group


RULES = [
    Rule(
        "PL102",
        ("Score", "Relevance score", "rerank_score", "Similarity", "vector_distance", "@search.rerankerScore", "Match score", "_score"),
        ("0.82", "0.41"),
        ("d.score", "'%.3f' % d.rerank_score", 'd.meta.get("similarity") | round(2)', "d['@search.rerankerScore']", "(d.relevance * 100) | round", "d.vector_distance"),
        ("{score_{n}:.2f}", "{d{n}['score']:.2f}", "{hits[{n}].similarity:.3f}", "{round(row{n}['rerank_score'], 2)}"),
    ),
    Rule(
        "PL201",
        ("Updated", "Published at", "dateModified", "crawled_on", "As of", "Last modified", "published_at", "Time"),
        ("2026-10-01", "2026-11-20"),
        ("d.modified_at.strftime('%d %b %Y')", "d.published_at", 'd.metadata["dateModified"] | default("")', "d.crawled_on"),
        ("{updated_{n}}", "{row{n}['published']}", '{d{n}.metadata["date"]}', "{doc{n}.created_at:%Y-%m-%d}"),
    ),
    Rule(
        "PL202",
        ("Source", "Connector", "source_system", "origin_app", "Platform", "Data source", "Retriever"),
        ("Confluence", "Zendesk"),
        (),
        (),
    ),
    Rule(
        "PL203",
        ("Chunk", "chunk_no", "chunkIndex", "Chunk ID", "node_id", "Part"),
        ("14 of 52", "3 of 9"),
        ("d.chunk_index", "d.metadata.get('chunk_no')", "d['chunkIndex']", "d.node_id"),
        ("{chunk_no_{n}}", "{d{n}['chunkIndex']}", "{row{n}.chunk_id}"),
    ),
    Rule(
        "PL104",
        ("Summary", "Key facts", "TL;DR", "Highlights", "chunk_summary", "Keywords", "Questions this answers", "Key takeaways"),
        ("Returns of damaged goods are accepted.", "Orders ship fast."),
        ("d.summary", "d.metadata.get('chunk_summary')", "d['highlights'] | join(', ')", "d.key_facts"),
        (),
        at_line=True,
    ),
    Rule(
        "PL106",
        ("Score", "similarity", "rerankerScore", "Relevance"),
        ("0.82", "0.21"),
        (),
        (),
        options={"rules": {"below-relevance-floor": {"relevance-floor": 0.5}}},
        at_header=True,
    ),
]


def _config(rule: Rule):
    return build({"select": [rule.code], "today": TODAY, **(rule.options or {})}, "matrix")


def _snake(label: str) -> str:
    return re.sub(r"\W+", "_", re.sub(r"(?<=[a-z])(?=[A-Z])", "_", label)).strip("_").lower()


# ---------------------------------------------------------------- rendered forms: the text a model gets


def _sources_text(header: str, line: str) -> str:
    """Two sources: `header` formats with n and title, `line` is the field line ("" for none)."""
    parts = []
    for n, (title, content) in enumerate(zip(TITLES, CONTENTS), 1):
        parts.append(f"{HEAD}{n}" + header.format(n=n, title=title) + "\n" + (line.replace("{n}", str(n)) + "\n" if line else "") + content)
    return "\n\n".join(parts)


def plain(label: str) -> tuple[str, str]:
    body = _sources_text("[{n}] {title}", f"{label}: {MARK}{{n}}" if label else "")
    return "answer.txt", f"Answer from the sources and cite them as [n].\n\n{body}\n\nQuestion: {QUESTION}\n"


def markdown(label: str) -> tuple[str, str]:
    body = _sources_text("## Source {n}: {title}", f"- {label}: {MARK}{{n}}" if label else "")
    return "answer.md", f"# Instructions\nAnswer from the sources and cite them as [n].\n\n{body}\n\n## Question\n{QUESTION}\n"


def xml(label: str) -> tuple[str, str]:
    tag = _snake(label)
    docs = []
    for n, (title, content) in enumerate(zip(TITLES, CONTENTS), 1):
        field = f"<{tag}>{MARK}{n}</{tag}>\n" if label else ""
        docs.append(f'{HEAD}{n}<document index="{n}">\n<source>{title}</source>\n{field}<document_content>{content}</document_content>\n</document>')
    return "answer.txt", "Answer from the documents and cite them by index.\n<documents>\n" + "\n".join(docs) + f"\n</documents>\n\nQuestion: {QUESTION}\n"


def chat_json(label: str) -> tuple[str, str]:
    _, text = plain(label)
    instructions, _, rest = text.partition("\n\n")
    messages = [{"role": "system", "content": instructions}, {"role": "user", "content": rest}]
    return "request.json", json.dumps({"model": "m", "messages": messages}, indent=2) + "\n"


# ---------------------------------------------------------------- template forms: what builds that text


def _jinja(label: str, expression: str) -> str:
    field = f"{label}: {MARK}0{{{{ {expression} }}}}\n" if expression else ""
    return (
        "Answer from the sources and cite them as [n].\n"
        "{% for d in docs %}\n"
        f"[{{{{ loop.index }}}}] {{{{ d.title }}}}\n{field}{{{{ d.content }}}}\n"
        "{% endfor %}\n"
        f"Question: {{{{ question }}}}\n"
    )


def jinja(label: str, expression: str) -> tuple[str, str]:
    return "answer.j2", _jinja(label, expression)


def jinja_inline(label: str, expression: str) -> tuple[str, str]:
    """The field unlabelled in the header: only the expression says what it is."""
    field = f" ({MARK}0{{{{ {expression} }}}})" if expression else ""
    return "answer.jinja", (
        "Answer from the sources and cite them as [n].\n{% for d in docs %}\n"
        f"[{{{{ loop.index }}}}] {{{{ d.title }}}}{field}\n{{{{ d.content }}}}\n{{% endfor %}}\nQuestion: {{{{ question }}}}\n"
    )


def prompty(label: str, expression: str) -> tuple[str, str]:
    return "answer.prompty", "---\nname: answer\nmodel:\n  api: chat\n---\nsystem:\n" + _jinja(label, expression)


def mustache(label: str, expression: str) -> tuple[str, str]:
    # Mustache prints names, not expressions: the expression's last key is the name (a method
    # call, `.strftime('%d %b %Y')`, formats the value; `.get("x")` reads key x).
    read = re.sub(r"\.(?!get\b)\w+\([^)]*\)", "", expression.split("|")[0])
    name = re.findall(r"[A-Za-z_@][\w@]*", read)[-1] if expression else ""
    field = f"{label}: {MARK}0{{{{{name}}}}}\n" if expression else ""
    return "answer.hbs", (
        "Answer from the sources and cite them as [n].\n{{#each docs}}\n"
        f"[{{{{@index}}}}] {{{{title}}}}\n{field}{{{{content}}}}\n{{{{/each}}}}\nQuestion: {{{{question}}}}\n"
    )


def _format_string(slot: str) -> str:
    parts = []
    for n in (1, 2):
        field = f" ({MARK}0{slot.replace('{n}', str(n))})" if slot else ""
        parts.append(f"[{n}] {{title_{n}}}{field}\n{{text_{n}}}")
    return "Answer from the sources and cite them as [n].\n\n" + "\n\n".join(parts) + "\n\nQuestion: {question}\n"


def format_string(slot: str) -> tuple[str, str]:
    return "answer.txt", _format_string(slot)


def python_template(slot: str) -> tuple[str, str]:
    return "prompts.py", f'"""Prompts."""\n\nQA_PROMPT = """{_format_string(slot)}"""\n'


def python_fstring(slot: str) -> tuple[str, str]:
    return "build.py", f'def build(row1, row2, d1, d2, hits, doc1, doc2, question):\n    QA_PROMPT = f"""{_format_string(slot)}"""\n    return QA_PROMPT\n'


TEXT_FORMS = {"plain": plain, "markdown": markdown, "xml": xml, "chat-json": chat_json}
JINJA_FORMS = {"jinja": jinja, "jinja-inline": jinja_inline, "prompty": prompty, "mustache": mustache}
SLOT_FORMS = {"format-string": format_string, "python-template": python_template, "python-fstring": python_fstring}


def _cases():
    cases = []
    for rule in RULES:
        for form, make in TEXT_FORMS.items():
            for label in rule.labels:
                # An element is named by an XML name; and <chunk> holds a chunk's text, not its number.
                if form == "xml" and (not re.fullmatch(r"[A-Za-z_]\w*", _snake(label)) or _snake(label) == "chunk"):
                    continue
                cases.append(pytest.param(rule, make, label, id=f"{rule.code}-{form}-{label}"))
        for form, make in JINJA_FORMS.items():
            for expression in rule.expressions:
                label = rule.labels[0] if form != "jinja-inline" else ""
                cases.append(pytest.param(rule, make, (label, expression), id=f"{rule.code}-{form}-{expression}"))
        for form, make in SLOT_FORMS.items():
            for slot in rule.slots:
                cases.append(pytest.param(rule, make, slot, id=f"{rule.code}-{form}-{slot}"))
    return cases


CASES = _cases()


def _build(rule: Rule, make, spelling, clean: bool) -> tuple[str, str]:
    if isinstance(spelling, tuple):
        label, expression = spelling
        return make(label, "" if clean else expression)
    return make("" if clean else spelling)


def _fill(rule: Rule, text: str) -> str:
    # Mark 0 stands before a slot: it only says where the finding goes.
    return _MARKS.sub(lambda m: rule.values[int(m[1]) - 1] if m[1] not in (None, "0") else "", text)


def _expected(rule: Rule, path: str, text: str) -> list[str]:
    """Where the findings must be: at each value, or at the header of the source under the floor."""
    found = []
    for mark in _MARKS.finditer(text):
        if (mark[2] == "2") if rule.at_header else mark[1] is not None:
            before = _fill(rule, text[: mark.start()])
            if rule.at_line:
                # The whole field: its line, or in a header its group with the space before it.
                before = before[:-2] if before.endswith(" (") else before[: max(before.rfind("\n"), before.rfind("\\n") + 1) + 1]
            found.append(f"{before.count(chr(10)) + 1}:{len(before) - before.rfind(chr(10))} {rule.code}")
    return found


@pytest.mark.parametrize(("rule", "make", "spelling"), CASES)
def test_the_rule_fires_at_the_field(rule, make, spelling):
    path, text = _build(rule, make, spelling, clean=False)
    findings = lint_text(_fill(rule, text), path=path, config=_config(rule))
    assert [f"{f.line}:{f.column} {f.code}" for f in findings] == _expected(rule, path, text)


@pytest.mark.parametrize(("rule", "make", "spelling"), CASES)
def test_the_clean_twin_stays_clean(rule, make, spelling):
    path, text = _build(rule, make, spelling, clean=True)
    assert lint_text(_fill(rule, text), path=path, config=_config(rule)) == []


def test_the_matrix_covers_every_form():
    forms = {make.__name__ for _, make, _ in (c.values for c in CASES)}
    assert len(forms) == len(TEXT_FORMS) + len(JINJA_FORMS) + len(SLOT_FORMS)


# PL107 reads the collection a template's sources loop iterates: template forms only.
MARGINAL = ["marginal", "low_score_hits", "fallbackDocs", "extra_results", "nearMisses", "backup_chunks", "others"]
LOOP_FORMS = {"jinja": jinja, "prompty": prompty}


def _marginal_loop(make, collection: str) -> tuple[str, str]:
    path, text = make("", "")
    iterated = f"relevant + {collection}[:3]" if collection else "relevant"
    return path, text.replace("{% for d in docs %}", f"{{% for d in {iterated} %}}")


@pytest.mark.parametrize("form", LOOP_FORMS)
@pytest.mark.parametrize("collection", MARGINAL)
def test_marginal_sources_fire_at_the_collection(form, collection):
    path, text = _marginal_loop(LOOP_FORMS[form], collection)
    line = text.split("\n").index(f"{{% for d in relevant + {collection}[:3] %}}") + 1
    found = lint_text(text, path=path, config=build({"select": ["PL107"]}, "matrix"))
    assert [f"{f.line}:{f.column} {f.code}" for f in found] == [f"{line}:{len('{% for d in relevant + ') + 1} PL107"]
    assert lint_text(_marginal_loop(LOOP_FORMS[form], "")[1], path=path, config=build({"select": ["PL107"]}, "matrix")) == []


# A field with no name is judged by its value's shape when every source has one.
SHAPES = [
    ("PL102", ("0.82", "0.41")),
    ("PL102", (".82", ".41")),
    ("PL102", ("82%", "41.5 %")),
    ("PL201", ("2026-10-01", "2026-11-20")),
    ("PL201", ("1 Oct 2026", "20 November 2026")),
]
HEADER_FORMS = {"plain": "[{n}] {title}", "markdown": "## Source {n}: {title}"}


# "valid" names a date: a date under it is still one, a score-shaped value under it is none.
NAMED = "valid: "


def _shape_text(form: str, label: str) -> str:
    body = _sources_text(HEADER_FORMS[form] + f" ({label}{MARK}{{n}})", "")
    body = "\n\n".join(part.replace("{n}", str(n)) for n, part in enumerate(body.split("\n\n"), 1))
    return f"Answer from the sources and cite them as [n].\n\n{body}\n\nQuestion: {QUESTION}\n"


@pytest.mark.parametrize("form", HEADER_FORMS)
@pytest.mark.parametrize(("code", "values", "label"), [(c, v, label) for c, v in SHAPES for label in ("", NAMED) if not (c == "PL102" and label)])
def test_an_unnamed_field_is_judged_by_its_shape(form, label, code, values):
    rule = Rule(code, (), values, (), ())
    text = _shape_text(form, label)
    findings = lint_text(_fill(rule, text), path="shape.txt", config=_config(rule))
    assert [f"{f.line}:{f.column} {f.code}" for f in findings] == _expected(rule, "shape.txt", text)
    # On one source only, the same value is a signal (or a version, a ratio), not a pattern.
    one = _fill(rule, text.replace(f" ({label}{MARK}1)", "", 1))
    assert lint_text(one, path="shape.txt", config=_config(rule)) == []


@pytest.mark.parametrize("form", HEADER_FORMS)
@pytest.mark.parametrize("values", [v for c, v in SHAPES if c == "PL102"])
def test_a_named_field_is_judged_by_its_name_not_its_shape(form, values):
    rule = Rule("PL102", (), values, (), ())
    assert lint_text(_fill(rule, _shape_text(form, NAMED)), path="shape.txt", config=_config(rule)) == []


# With the sources pre-joined in one slot, the instructions may say each carries a score.
ANNOUNCED = [
    "Passages (with similarity scores):",
    "Consider the paragraphs and their corresponding scores.",
    "Each document is listed with its relevance score.",
    "Results, including their rerank scores:",
    "The relevance score of each passage is shown.",
]
SLOT_FORMS_OF_CONTEXT = {"answer.txt": "{context}", "answer.j2": "{{ context }}", "answer.prompty": "{{context}}"}


@pytest.mark.parametrize("path", SLOT_FORMS_OF_CONTEXT)
@pytest.mark.parametrize("announcement", ANNOUNCED)
def test_a_score_announced_for_pre_joined_sources(path, announcement):
    head = "---\nname: qa\n---\nsystem:\n" if path.endswith(".prompty") else ""
    text = f"{head}Answer from the sources.\n{announcement}\n{SLOT_FORMS_OF_CONTEXT[path]}\n\nQuestion: {{{{ question }}}}\n"
    if path.endswith(".txt"):
        text = text.replace("{{ question }}", "{question}")
    line = head.count("\n") + 2
    column = re.search(r"(?:with|and|including|relevance score of)", announcement.lower()).start() + 1
    found = lint_text(text, path=path, config=build({"select": ["PL102"]}, "matrix"))
    assert [f"{f.line}:{f.column} {f.code}" for f in found] == [f"{line}:{column} PL102"]
    assert lint_text(text.replace(announcement + "\n", ""), path=path, config=build({"select": ["PL102"]}, "matrix")) == []


# PL302 reads the key a sources loop is sorted by: a date by its name, however spelled.
SORT_KEYS = ["updated_at", "meta.published_at", "crawledOn", "dateModified", "metadata.last_modified", "as_of"]


@pytest.mark.parametrize("form", LOOP_FORMS)
@pytest.mark.parametrize("key", SORT_KEYS)
def test_sources_sorted_by_a_date_however_named(form, key):
    path, text = LOOP_FORMS[form]("", "")
    loop = f"{{% for d in docs|sort(attribute='{key}', reverse=true) %}}"
    sorted_text = text.replace("{% for d in docs %}", loop)
    found = lint_text(sorted_text, path=path, config=build({"select": ["PL302"]}, "matrix"))
    line = sorted_text.split("\n").index(loop) + 1
    assert [f"{f.line}:{f.column} {f.code}" for f in found] == [f"{line}:13 PL302"]
    by_title = text.replace("{% for d in docs %}", "{% for d in docs|sort(attribute='title') %}")
    assert lint_text(by_title, path=path, config=build({"select": ["PL302"]}, "matrix")) == []


@pytest.mark.parametrize(("path", "template"), [
    ("p.j2", "{% for c in chunks %}[{{ loop.index }}] ({{ c.title }}, part {{ c.index + 1 }})\n{{ c.content }}\n{% endfor %}"),
    ("p.ts", "export const ctx = (chunks) => chunks\n  .map((c, i) => `[${i + 1}] (${c.title}, part ${c.index + 1})\\n${c.content}`)\n  .join('\\n\\n');\n"),
])
def test_a_key_the_template_calls_a_part_is_a_chunk_ordinal(path, template):
    # `c.index` alone says no more than a key; "part" before it says which: the chunk's place in its document.
    assert [f.code for f in lint_text(template, path=path) if f.code == "PL203"] == ["PL203"]
    assert [f.code for f in lint_text(template.replace("part ", "cited as "), path=path) if f.code == "PL203"] == []
