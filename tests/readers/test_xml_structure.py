"""The structure matrix of sources in markup: found by repetition, read by role.

Each unit kind (attributes of a repeated element, child elements, passages nested in
documents with the field on either level, a Jinja loop that renders the element, and a
chat message whose content holds the elements) is crossed with field names no example of
the lexicon holds and with value shapes. Each case asserts the sources and their content,
the field read under its own name at its exact place (an attribute with its leading space,
a child element with its line), the findings at the values, and, where the evidence is
certain, the text a safe fix leaves. Each case has a clean twin: the same unit and value
under a name no rule reports, which must find the same sources and no metadata finding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from promptlint.engine.lint import fix_text, lint_text, segment_document
from promptlint.readers.segment import segment_text
from promptlint.model.findings import Applicability
from promptlint.model.prompt import Prompt
from promptlint.readers import document
from structure_matrix import CHUNKS, CONFIG, METADATA, NAMES, QUESTION, RULES, SAFE, SHAPES, TWIN

# A date written once on each document, not on every passage: PL201 sees two of three sources
# dated, not every one (the document's fields stand on its first passage only), and keeps quiet.
# So is a system's slot there: a slot is reported on the sources a renderer writes it on, and here
# that is the first passage of each document only.
QUIET = {("nested, on document", "date", shape) for shape in SHAPES} | {("nested, on document", "system", "slot")}


@dataclass
class Case:
    text: str
    path: str
    sources: int  # how many sources the model holds
    carriers: list[int]  # the sources (by position) that carry the field
    fields: list[tuple[str, str]]  # each field's text and its value's, in the carriers' order
    removed: str | None  # the text a safe fix of every field leaves, when it is that simple


def _attribute(name: str, value: str) -> str:
    return f' {name}="{value}"'


def _wrap(body: str) -> str:
    return "Answer from the sources below.\n\n" + body + "\n" + QUESTION


def attributes(name: str, values: tuple[str, ...]) -> Case:
    """A repeated element that is no source's name, in a container, its metadata in attributes."""
    hits = [f'<hit id="{n + 1}"{{}}>{CHUNKS[n]}</hit>' for n in range(2)]
    text = _wrap("<results>\n" + "\n".join(h.format(_attribute(name, v)) for h, v in zip(hits, values)) + "\n</results>\n")
    bare = _wrap("<results>\n" + "\n".join(h.format("") for h in hits) + "\n</results>\n")
    return Case(text, "p.txt", 2, [0, 1], [(_attribute(name, v), v) for v in values[:2]], bare)


def children(name: str, values: tuple[str, ...]) -> Case:
    """A repeated element, its metadata in child elements and its text in a <chunk>: content by its role."""
    def hit(field: str, n: int) -> str:
        return f"<result>\n{field}<chunk>{CHUNKS[n]}</chunk>\n</result>"
    lines = [f"<{name}>{v}</{name}>\n" for v in values[:2]]
    text = _wrap("\n".join(hit(line, n) for n, line in enumerate(lines)) + "\n")
    bare = _wrap("\n".join(hit("", n) for n in range(2)) + "\n")
    return Case(text, "p.txt", 2, [0, 1], [(line, v) for line, v in zip(lines, values)], bare)


def _nested(doc_attrs: tuple[str, str], passage_attrs: tuple[str, str, str]) -> str:
    a, b = doc_attrs
    p1, p2, p3 = passage_attrs
    return _wrap(
        "<documents>\n"
        f'<doc name="Pricing.md"{a}>\n<passage{p1}>{CHUNKS[1]}</passage>\n<passage{p2}>{CHUNKS[2]}</passage>\n</doc>\n'
        f'<doc name="Refunds.md"{b}>\n<passage{p3}>{CHUNKS[0]}</passage>\n</doc>\n'
        "</documents>\n"
    )


def nested_on_passage(name: str, values: tuple[str, ...]) -> Case:
    """Passages nested in documents, the field on each passage: the passages are the sources."""
    attrs = tuple(_attribute(name, v) for v in values)
    return Case(_nested(("", ""), attrs), "p.txt", 3, [0, 1, 2], [(a, v) for a, v in zip(attrs, values)], _nested(("", ""), ("", "", "")))


def nested_on_document(name: str, values: tuple[str, ...]) -> Case:
    """Passages nested in documents, the field on each document: written once, a field of its first passage."""
    attrs = tuple(_attribute(name, v) for v in values[:2])
    return Case(_nested(attrs, ("", "", "")), "p.txt", 3, [0, 2], [(a, v) for a, v in zip(attrs, values)], _nested(("", ""), ("", "", "")))


def chat(name: str, values: tuple[str, ...]) -> Case:
    """A chat request whose system message holds the elements: read through the JSON string."""
    inner = attributes(name, values)

    def body(text: str) -> str:
        return json.dumps({"messages": [{"role": "system", "content": text[: -len(QUESTION)]}, {"role": "user", "content": QUESTION}]})

    return Case(body(inner.text), "p.json", 2, [0, 1], inner.fields, body(inner.removed))


KINDS = {"attributes": attributes, "children": children, "nested, on passage": nested_on_passage,
         "nested, on document": nested_on_document, "chat message": chat}


def _models(case: Case) -> list[Prompt]:
    doc = document.parse_text(case.text, case.path, CONFIG.suffix_for(case.path), CONFIG.lexicon)
    return segment_document(doc, CONFIG)


def _sources_and_fields(case: Case, label: str):
    """The model's sources and, for each carrier, its field of ``label`` (asserting they are there)."""
    [prompt] = [p for p in _models(case) if p.sources]
    assert len(prompt.sources) == case.sources
    contents = [prompt.text[s.content.start : s.content.end] for s in prompt.sources]
    assert sorted(c for c in contents if c in CHUNKS) == sorted(contents), contents
    found = []
    for position in case.carriers:
        field = prompt.sources[position].field_named(label)
        assert field is not None, (position, [f.label for f in prompt.sources[position].fields])
        found.append((prompt.text[field.span.start : field.span.end], prompt.text[field.value_span.start : field.value_span.end]))
    return prompt, found


reached = {"findings": 0, "fixed": 0, "twins": 0, "jinja": 0, "jinja fixed": 0}
CASES = [(kind, name, shape) for kind in KINDS for name in NAMES for shape in SHAPES]


@pytest.mark.parametrize("kind, name, shape", CASES)
def test_a_field_in_markup_is_read_by_its_role_and_its_name(kind, name, shape):
    case = KINDS[kind](name, SHAPES[shape])
    label = name.replace("_", " ")
    _, found = _sources_and_fields(case, label)
    assert found == case.fields[: len(found)]
    rule = None if (kind, NAMES[name], shape) in QUIET else RULES.get((NAMES[name], shape))
    findings = [f for f in lint_text(case.text, path=case.path, config=CONFIG) if f.code in METADATA]
    expected = [] if rule is None else [rule] * len(case.carriers)
    assert [f.code for f in findings] == expected, [(f.code, f.message) for f in findings]
    if rule is None:
        return
    reached["findings"] += 1
    if (NAMES[name], shape) in SAFE:
        assert all(f.fix is not None and f.fix.applicability is Applicability.SAFE for f in findings)
        assert fix_text(case.text, path=case.path, config=CONFIG) == case.removed
        reached["fixed"] += 1


@pytest.mark.parametrize("kind, name, shape", CASES)
def test_the_twin_under_a_name_no_rule_reports_finds_the_same_sources_and_nothing(kind, name, shape):
    case = KINDS[kind](TWIN, SHAPES[shape])
    _, found = _sources_and_fields(case, TWIN)
    assert found == case.fields[: len(found)]
    assert [f.code for f in lint_text(case.text, path=case.path, config=CONFIG) if f.code in METADATA] == []
    reached["twins"] += 1


# A Jinja loop that renders the element: each value is a slot, written as templates write them.
JINJA_SHAPES = {
    "slot": "{{ d.value }}",
    "formatted": "{{ '%.2f' % d.value }}",
    "filtered": "{{ d.value | round(2) }}",
    "percent": "{{ (d.value * 100) | round }}%",
}
# In a template the name decides: a slot under "rank" prints no score by its own name, so it is an ordinal's.
JINJA_RULES = {"score": "PL102", "rank": "PL203", "date": "PL201", "system": "PL202"}


def _loop(attribute: str) -> str:
    return (
        "Answer from the sources below.\n\n<documents>\n{% for d in docs %}\n"
        f'<doc id="{{{{ loop.index }}}}"{attribute}>{{{{ d.page_content }}}}</doc>\n'
        "{% endfor %}\n</documents>\n\nQuestion: {{ question }}\n"
    )


JINJA_CASES = [(name, shape) for name in [*NAMES, TWIN] for shape in JINJA_SHAPES]


@pytest.mark.parametrize("name, shape", JINJA_CASES)
def test_a_loop_that_renders_the_element_names_its_field_by_the_attribute(name, shape):
    attribute = _attribute(name, JINJA_SHAPES[shape])
    text = _loop(attribute)
    [prompt] = _models(Case(text, "p.j2", 1, [0], [], None))
    [source] = prompt.sources
    assert prompt.text[source.content.start : source.content.end] == "{{ d.page_content }}"
    field = source.field_named(name.replace("_", " "))
    assert field is not None and prompt.text[field.span.start : field.span.end] == attribute
    rule = JINJA_RULES.get(NAMES.get(name, ""))
    findings = [f for f in lint_text(text, path="p.j2", config=CONFIG) if f.code in METADATA]
    assert [f.code for f in findings] == ([rule] if rule else [])
    if rule is None:
        reached["twins"] += name == TWIN
        return
    reached["jinja"] += 1
    if rule != "PL201":  # a date gets a staleness test, not a removal
        assert fix_text(text, path="p.j2", config=CONFIG) == _loop("")
        reached["jinja fixed"] += 1


def test_the_matrix_reaches_what_it_checks():
    """Run last in this module: every case with a rule found it, each simple one was fixed, every twin ran."""
    firing = [(kind, NAMES[n], s) for kind in KINDS for n in NAMES for s in SHAPES if (NAMES[n], s) in RULES and (kind, NAMES[n], s) not in QUIET]
    assert reached["twins"] == len(CASES) + len(JINJA_SHAPES) and len(CASES) == len(KINDS) * len(NAMES) * len(SHAPES)
    concepts = [NAMES[n] for n in NAMES]
    assert reached["jinja"] == sum(c in JINJA_RULES for c in concepts) * len(JINJA_SHAPES)
    assert reached["jinja fixed"] == sum(c in JINJA_RULES and c != "date" for c in concepts) * len(JINJA_SHAPES)
    assert reached["findings"] == len(firing) >= 100
    assert reached["fixed"] == sum(1 for _, concept, shape in firing if (concept, shape) in SAFE) >= 60


@pytest.mark.parametrize("where", ["attribute", "child"])
@pytest.mark.parametrize("value, ordinal", [("3", True), ("14 of 52", True), ("0.93", False), ("confluence", False)])
def test_a_chunk_field_is_an_ordinal_by_its_shape_and_a_chunk_element_is_content(where, value, ordinal):
    """`chunk="3"` or `<chunk>3</chunk>` beside the text numbers the chunk; the text itself, in a
    `<chunk>` element, is the content, never an ordinal."""
    field = f' chunk="{{}}"' if where == "attribute" else "<chunk>{}</chunk>"
    units = [
        f'<result{field.format(v) if where == "attribute" else ""}>{field.format(v) if where == "child" else ""}<text>{c}</text></result>'
        for v, c in zip((value, value.replace("3", "4")), CHUNKS)
    ]
    text = _wrap("\n".join(units) + "\n")
    [prompt] = _models(Case(text, "p.txt", 2, [], [], None))
    assert [prompt.text[s.content.start : s.content.end] for s in prompt.sources] == list(CHUNKS[:2])
    assert [s.field_named("chunk").value for s in prompt.sources] == [value, value.replace("3", "4")]
    codes = [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code in METADATA]
    assert codes == (["PL203", "PL203"] if ordinal else [])
    # The twin: the chunk's text in a <chunk> element is content, whatever its words.
    twin = _wrap("\n".join(f"<result><title>T{n}</title><chunk>{c}</chunk></result>" for n, c in enumerate(CHUNKS[:2])) + "\n")
    [model] = _models(Case(twin, "p.txt", 2, [], [], None))
    assert [model.text[s.content.start : s.content.end] for s in model.sources] == list(CHUNKS[:2])
    assert [f.code for f in lint_text(twin, path="p.txt", config=CONFIG) if f.code in METADATA] == []


@pytest.mark.parametrize("attribute, sources", [(' kind="positive"', 0), (' score="0.9"', 2), ("", 0)])
def test_a_repeated_element_is_a_source_only_when_it_shows_it_carries_retrieved_text(attribute, sources):
    """Items of the prompt's own text repeat too: out of a container of sources and with no metadata a
    rule reports, a repeated element is the prompt's own text. (An element named as an example is
    static text whatever it carries: tests/readers/test_examples.py.)"""
    units = [f"<step{attribute if attribute else ''}>{c}</step>" for c in CHUNKS[:2]]
    text = _wrap("\n".join(units) + "\n")
    [prompt] = _models(Case(text, "p.txt", sources, [], [], None))
    assert len(prompt.sources) == sources


def test_a_repeated_element_that_prints_a_chunks_text_is_a_source_whatever_its_name():
    # MaxKB's `<data>{p.title}:{p.content}</data>`: no source word names the element, the slot in it does.
    text = "已知信息：\n<data>{p.title}:{p.content}</data>\n<data>{p.title}:{p.content}</data>\n回答要求：\n- 请使用markdown 语法优化答案的格式。\n问题：\n{question}\n"
    assert [text[s.span.start : s.span.end] for s in segment_text(text).sources] == ["<data>{p.title}:{p.content}</data>"] * 2
    # The twin prints no chunk: a repeated element of settings is no source.
    assert segment_text(text.replace("{p.content}", "{p.tone}")).sources == []


KEYED_NAMES = """Answer from the documents.

<TAG1>
The two challenges are the sequential nature of recurrence and the large memory usage of the state.
</TAG1>

<TAG2>
Linear attention generalises the kernel from the view of importance sampling in this paper.
</TAG2>

<TAG1>
Details of the fused kernel and recomputation are in Appendix D of the paper here.
</TAG1>

Question: what is the fastest attention?
"""


@pytest.mark.parametrize("one, two", [("Doc1a9d18a7-9499-47b6-abcc-4e82370028ee", "Doc36ed2f1a-57a5-489c-a4cb-fbdd25e2b038"), ("source_9f86d081884c", "source_77b01e2a30f1")])
def test_a_store_id_written_into_a_source_elements_name_is_its_key(one, two):
    """`<Doc1a9d18a7-...>chunk</Doc1a9d18a7-...>`: a source's element with its key in its name; the id repeats on two
    chunks of one paper, so it names their document, and they are not together (blind67g HealthInnovators). Over two
    different texts the id is no chunk's own, so it is not reported as one (PL203); its tokens are the wrapper's."""
    text = KEYED_NAMES.replace("TAG1", one).replace("TAG2", two)
    prompt = segment_text(text)
    assert [s.key for s in prompt.sources] == [one.split("Doc")[-1].removeprefix("source_"), two.split("Doc")[-1].removeprefix("source_"), one.split("Doc")[-1].removeprefix("source_")]
    found = sorted((f.line, f.code) for f in lint_text(text, path="p.txt", config=CONFIG) if f.code in ("PL203", "PL301"))
    assert found == [(11, "PL301")]


@pytest.mark.parametrize("one, two", [("h1", "h2"), ("section1", "section2"), ("docx", "docs")])
def test_an_element_name_with_a_number_that_is_no_sources_is_read_by_its_name(one, two):
    """The twin: headings and sections numbered in their names, or names that merely open like a source's, are no
    keyed sources."""
    text = KEYED_NAMES.replace("TAG1", one).replace("TAG2", two)
    assert [s.key for s in segment_text(text).sources if s.key] == []
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code in ("PL203", "PL301")] == []
