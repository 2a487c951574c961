"""The structure matrix of sources in plain text and Markdown: found by their skeleton, read by role.

Each unit kind (a Markdown section numbered or titled, a block of labelled lines over the text, a
one-line record with its field in a group, a header line whose cells a separator parts, and a
Handlebars loop) is crossed with field names no example of the lexicon holds (tests/readers/
structure_matrix.py) and with value shapes. Each case asserts the sources and their content, the
field read under its own name at its exact place (its line, or its cell with the separator before
it), the findings at the values, and, where the evidence is certain, the text a safe fix leaves.
Each case has a clean twin: the same unit and value under a name no rule reports, which must find
the same sources and no metadata finding. Lines that repeat a skeleton but hold no retrieved text
(rules, settings, an example) are no sources.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from promptlint.engine.lint import fix_text, lint_text, segment_document
from promptlint.model.findings import Applicability
from promptlint.model.prompt import Prompt
from promptlint.readers import document
from structure_matrix import CHUNKS, CONFIG, METADATA, NAMES, QUESTION, RULES, SAFE, SHAPES, TWIN

TITLES = ("Refunds policy", "Pricing page")


@dataclass
class Case:
    text: str
    fields: list[tuple[str, str]]  # each source's field: its text and its value's
    removed: str  # the text a safe fix of every field leaves


def _wrap(units: list[str]) -> str:
    return "Answer from the sources below.\n\n" + "\n".join(units) + "\n" + QUESTION


def _label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def over_the_text(heads: tuple[str, str]):
    def kind(name: str, values: tuple[str, ...]) -> Case:
        """A head line, then the field on a line of its own over the text."""
        lines = [f"{_label(name)}: {v}\n" for v in values[:2]]
        units = [f"{heads[n]}\n{{}}{CHUNKS[n]}\n" for n in range(2)]
        return Case(_wrap([u.format(line) for u, line in zip(units, lines)]), [(line, v) for line, v in zip(lines, values)],
                    _wrap([u.format("") for u in units]))

    return kind


def one_line(name: str, values: tuple[str, ...]) -> Case:
    """"- [1] Title (name: value): text", a whole source on one line."""
    groups = [f" ({name}: {v})" for v in values[:2]]
    units = [f"- [{n + 1}] {TITLES[n]}{{}}: {CHUNKS[n]}" for n in range(2)]
    return Case(_wrap([u.format(g) for u, g in zip(units, groups)]), [(g, v) for g, v in zip(groups, values)],
                _wrap([u.format("") for u in units]))


def separated(separator: str):
    def kind(name: str, values: tuple[str, ...]) -> Case:
        """A header line of cells parted by a separator over the text."""
        cells = [f"{separator}{name}: {v}" for v in values[:2]]
        units = [f"{TITLES[n]}{separator}{{}}{separator}kb\n{CHUNKS[n]}\n" for n in range(2)]
        # The cell and the separator before it go; the constant "kb" cell is the wrapper's.
        text = _wrap([u.format(c[len(separator) :]) for u, c in zip(units, cells)])
        return Case(text, [(c, v) for c, v in zip(cells, values)], _wrap([u.replace(f"{separator}{{}}", "") for u in units]))

    kind.__doc__ = f"Header cells parted by {separator.strip()!r}."
    return kind


KINDS = {
    # "## Hit 1" sections; "### <title>" sections of the same inner skeleton; blocks of labelled lines, repeated.
    "markdown, numbered": over_the_text(("## Hit 1", "## Hit 2")),
    "markdown, titled": over_the_text(tuple(f"### {t}" for t in TITLES)),
    "labelled lines": over_the_text(tuple(f"Page: {t}" for t in TITLES)),
    "one-line record": one_line,
    **{f"header, {sep.strip()}": separated(sep) for sep in (" ---- ", " / ", " | ", " \u00b7 ")},
}


def _models(text: str, path: str = "p.txt") -> list[Prompt]:
    doc = document.parse_text(text, path, CONFIG.suffix_for(path), CONFIG.lexicon)
    return segment_document(doc, CONFIG)


def _found(case: Case, label: str) -> list[tuple[str, str]]:
    """Each source's field of ``label`` as written, asserting the sources and their content."""
    [prompt] = [p for p in _models(case.text) if p.sources]
    assert [prompt.text[s.content.start : s.content.end] for s in prompt.sources] == list(CHUNKS[:2])
    found = []
    for source in prompt.sources:
        field = source.field_named(label)
        assert field is not None, [f.label for f in source.fields]
        found.append((prompt.text[field.span.start : field.span.end], prompt.text[field.value_span.start : field.value_span.end]))
    return found


reached = {"findings": 0, "fixed": 0, "twins": 0}
CASES = [(kind, name, shape) for kind in KINDS for name in NAMES for shape in SHAPES]


@pytest.mark.parametrize("kind, name, shape", CASES)
def test_a_field_in_text_is_read_by_its_role_and_its_name(kind, name, shape):
    case = KINDS[kind](name, SHAPES[shape])
    assert _found(case, name.replace("_", " ")) == case.fields
    rule = RULES.get((NAMES[name], shape))
    findings = [f for f in lint_text(case.text, path="p.txt", config=CONFIG) if f.code in METADATA]
    assert [f.code for f in findings] == ([rule] * 2 if rule else []), [(f.code, f.message) for f in findings]
    if rule is None:
        return
    reached["findings"] += 1
    if (NAMES[name], shape) in SAFE:
        assert all(f.fix is not None and f.fix.applicability is Applicability.SAFE for f in findings)
        assert fix_text(case.text, path="p.txt", config=CONFIG) == case.removed
        reached["fixed"] += 1


@pytest.mark.parametrize("kind, name, shape", CASES)
def test_the_twin_under_a_name_no_rule_reports_finds_the_same_sources_and_nothing(kind, name, shape):
    case = KINDS[kind](TWIN, SHAPES[shape])
    assert _found(case, TWIN) == case.fields
    assert [f.code for f in lint_text(case.text, path="p.txt", config=CONFIG) if f.code in METADATA] == []
    reached["twins"] += 1


# A Handlebars loop that renders the unit: each value a slot as templates write it, read as the Jinja it means.
HANDLEBARS_SHAPES = {"slot": ("{{value}}", "{{ this.value }}"), "helper": ("{{formatNumber value}}", "{{ this.value | formatNumber }}"),
                     "path": ("{{this.value}}", "{{ this.value }}")}
HANDLEBARS_UNITS = {
    "labelled line": ("## {{{{title}}}}\n{label}: {value}\n{{{{{{content}}}}}}\n", "{label}: {value}\n"),
    "one-line record": ("- [{{{{@index}}}}] {{{{title}}}} ({name}: {value}): {{{{{{content}}}}}}\n", " ({name}: {value})"),
}
# In a template the name decides: a slot under "rank" prints no score by its own name, so it is an ordinal's.
HANDLEBARS_RULES = {"score": "PL102", "rank": "PL203", "date": "PL201", "system": "PL202"}
HANDLEBARS_CASES = [(unit, name, shape) for unit in HANDLEBARS_UNITS for name in [*NAMES, TWIN] for shape in HANDLEBARS_SHAPES]


def _loop(unit: str) -> str:
    return "Answer from the sources below.\n\n{{#each docs}}\n" + unit + "{{/each}}\n\nQuestion: {{question}}\n"


@pytest.mark.parametrize("unit, name, shape", HANDLEBARS_CASES)
def test_a_handlebars_loop_reads_like_a_jinja_loop(unit, name, shape):
    written, translated = HANDLEBARS_SHAPES[shape]
    template, field_text = HANDLEBARS_UNITS[unit]
    text = _loop(template.format(label=_label(name), name=name, value=written))
    [prompt] = _models(text, "p.hbs")
    [source] = prompt.sources
    assert prompt.text[source.content.start : source.content.end] == "{{ this.content }}"
    assert source.title == "{{ this.title }}"
    field = source.field_named(name.replace("_", " "))
    assert field is not None and prompt.text[field.span.start : field.span.end] == field_text.format(label=_label(name), name=name, value=translated)
    rule = HANDLEBARS_RULES.get(NAMES.get(name, ""))
    findings = [f for f in lint_text(text, path="p.hbs", config=CONFIG) if f.code in METADATA]
    # Findings land where the template writes the field.
    value_line = text[: text.index(written)].count("\n") + 1
    assert [(f.code, f.line) for f in findings] == ([(rule, value_line)] if rule else [])
    reached["handlebars" if rule else "handlebars twins"] = reached.get("handlebars" if rule else "handlebars twins", 0) + 1


NOT_SOURCES = {
    "a list of rules": "You are a support bot. Follow these rules.\n\n"
    "- [1] Tone (priority: 0.9): Always answer politely and never use any slang words at all.\n"
    "- [2] Length (priority: 0.4): Keep every answer under one hundred words if you can.\n\n" + QUESTION,
    "a table of settings": "Answer with these settings.\n\n"
    "temperature \u00b7 0.7 \u00b7 how random the sampled words of the model are\n"
    "top_p \u00b7 0.9 \u00b7 how much of the probability mass the sampler keeps\n\n" + QUESTION,
    "instructions under the sources' name": "Read the sources below with care.\n\n"
    "Step 1 | weight: 0.9 | Check that each claim you make is backed by a source.\n"
    "Step 2 | weight: 0.4 | Cite the source of each claim with its number.\n\n" + QUESTION,
    "one unit": "Answer from the sources below.\n\n- [1] Pricing (match: 0.93): " + CHUNKS[1] + "\n\n" + QUESTION,
    "short values only": "Answer from the sources below.\n\n- [1] Pricing (match: 0.93): Pro plan\n- [2] Refunds (match: 0.81): 14 days\n\n" + QUESTION,
    "the same text twice": "Answer from the sources below.\n\n"
    + "".join(f"- [{n}] Pricing (match: 0.9{n}): {CHUNKS[1]}\n" for n in (1, 2)) + "\n" + QUESTION,
    "no context spoken of": "Here is what we know.\n\n" + "".join(f"- [{n + 1}] {TITLES[n]} (match: 0.9{n}): {CHUNKS[n]}\n" for n in (0, 1)),
}


@pytest.mark.parametrize("case", NOT_SOURCES)
def test_lines_that_repeat_a_skeleton_without_retrieved_text_are_no_sources(case):
    """A run of one skeleton is read as sources only on evidence of retrieved text (skeleton.py)."""
    text = NOT_SOURCES[case]
    assert [p.sources for p in _models(text)] == [[]]
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code in METADATA] == []
    reached["not sources"] = reached.get("not sources", 0) + 1


# The twin of each: the same run where retrieved text stands, read as sources.
READ_TWINS = {
    "under a context label": "## Sources\n\n" + "".join(f"- [{n + 1}] {TITLES[n]} (0.9{n}): {CHUNKS[n]}\n" for n in (0, 1)),
    "under a line that speaks of the context": "Search results for the user:\n\n"
    + "".join(f"{TITLES[n]} / 0.9{n} / {CHUNKS[n]}\n" for n in (0, 1)),
    "after an instruction, before the question": "Answer from the sources below.\n\n"
    + "".join(f"{TITLES[n]} | 0.9{n}\n{CHUNKS[n]}\n\n" for n in (0, 1)) + QUESTION,
}


@pytest.mark.parametrize("case", READ_TWINS)
def test_a_field_with_no_label_is_read_by_its_shape_where_retrieved_text_stands(case):
    """An unlabelled cell is a field by its shape only in a field's role: PL102 reads a fraction on every source."""
    text = READ_TWINS[case]
    [prompt] = _models(text)
    assert [prompt.text[s.content.start : s.content.end] for s in prompt.sources] == list(CHUNKS[:2])
    assert [s.title for s in prompt.sources] == list(TITLES)
    assert [[(f.label, f.value) for f in s.fields] for s in prompt.sources] == [[("", "0.90")], [("", "0.91")]]
    findings = [f for f in lint_text(text, path="p.txt", config=CONFIG) if f.code in METADATA]
    assert [(f.code, f.line) for f in findings] == [("PL102", text[: text.index(f"0.9{n}")].count("\n") + 1) for n in (0, 1)]
    reached["read twins"] = reached.get("read twins", 0) + 1


def test_the_items_of_a_group_go_one_by_one_and_the_group_with_its_space_when_none_is_left():
    """"(0.90, 2026-11-20) [wiki]": the score and the date are cells of their own; removing both
    leaves no empty brackets and no double space, and a second fix changes nothing. "[wiki]", the
    same on every unit, is the wrapper's."""
    units = [f"- [{n + 1}] {TITLES[n]} (0.9{n}, 2026-11-2{n}) [wiki]: {CHUNKS[n]}" for n in (0, 1)]
    text = "## Sources\n\n" + "\n".join(units) + "\n"
    [prompt] = _models(text)
    assert [[(f.label, f.value, prompt.text[f.span.start : f.span.end]) for f in s.fields] for s in prompt.sources] == [
        [("", f"0.9{n}", f"0.9{n}, "), ("", f"2026-11-2{n}", f", 2026-11-2{n}")] for n in (0, 1)
    ]
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code in METADATA] == ["PL102", "PL201"] * 2
    fixed = fix_text(text, path="p.txt", config=CONFIG, unsafe=True)
    assert fixed == "## Sources\n\n" + "\n".join(f"- [{n + 1}] {TITLES[n]} [wiki]: {CHUNKS[n]}" for n in (0, 1)) + "\n"
    assert fix_text(fixed, path="p.txt", config=CONFIG, unsafe=True) == fixed


# Lines that open every section's text under one label: a field when each value is short and they vary.
OPENING = {
    "a label no lexicon holds": (("Colour: blue", "Colour: red"), True),
    "a question each": (("Q: How do refunds work?", "Q: What does Pro cost?"), False),  # a sentence: the text's own
    "the same value": (("Colour: blue", "Colour: blue"), False),  # nothing varies: no field a renderer filled
}


@pytest.mark.parametrize("case", OPENING)
@pytest.mark.parametrize("heads", [("## Hit 1", "## Hit 2"), tuple(f"### [{n + 1}] {t}" for n, t in enumerate(TITLES))])
def test_a_line_that_opens_every_sections_text_under_one_label_is_a_field(heads, case):
    openers, field = OPENING[case]
    text = _wrap([f"{heads[n]}\n{openers[n]}\n{CHUNKS[n]}\n" for n in (0, 1)])
    [prompt] = _models(text)
    contents = [prompt.text[s.content.start : s.content.end] for s in prompt.sources]
    if field:
        assert contents == list(CHUNKS[:2])
        assert [[(prompt.text[f.span.start : f.span.end], f.label, f.value) for f in s.fields][-1:] for s in prompt.sources] == [
            [(f"{o}\n", "colour", o.split(": ")[1])] for o in openers
        ]
    else:
        assert contents == [f"{o}\n{c}" for o, c in zip(openers, CHUNKS)]
    reached["opening"] = reached.get("opening", 0) + 1


# A unit's head as headers decorate it: the marks are the wrapper's, the title is the words.
HEADS = ("### {t}{sep}{field}", "**{t}**{sep}{field}", "## {n}. {t}{sep}{field}", "[{n}] {t}{sep}{field}", "{n}. {t}{sep}{field}")


@pytest.mark.parametrize("name", ["match", TWIN])
@pytest.mark.parametrize("separator", [" \u00b7 ", " | ", " / ", " ---- "])
@pytest.mark.parametrize("head", HEADS)
def test_a_decorated_head_gives_its_title_and_its_fields(head, separator, name):
    cells = [f"{separator}{name}: 0.9{n}" for n in (1, 2)]
    units = [head.format(n=n + 1, t=TITLES[n], sep=separator, field=cells[n][len(separator) :]) + f"\n{CHUNKS[n]}\n" for n in (0, 1)]
    text = _wrap(units)
    [prompt] = _models(text)
    assert [s.title for s in prompt.sources] == list(TITLES)
    assert [prompt.text[s.content.start : s.content.end] for s in prompt.sources] == list(CHUNKS[:2])
    assert [[(prompt.text[f.span.start : f.span.end], f.value) for f in s.fields] for s in prompt.sources] == [[(c, f"0.9{n + 1}")] for n, c in enumerate(cells)]
    codes = [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code in METADATA]
    assert codes == (["PL102", "PL102"] if name == "match" else [])
    reached["heads"] = reached.get("heads", 0) + 1


def test_the_text_matrix_reaches_what_it_checks():
    """Run last in this module: every case with a rule found it, each simple one was fixed, every twin ran."""
    firing = [(NAMES[n], s) for _ in KINDS for n in NAMES for s in SHAPES if (NAMES[n], s) in RULES]
    assert reached["twins"] == len(CASES) == len(KINDS) * len(NAMES) * len(SHAPES) == 288
    assert reached["findings"] == len(firing) >= 150
    assert reached["fixed"] == sum(1 for key in firing if key in SAFE) >= 90
    hbs_firing = [c for c in HANDLEBARS_CASES if NAMES.get(c[1]) in HANDLEBARS_RULES]
    assert reached["handlebars"] == len(hbs_firing) and reached["handlebars twins"] == len(HANDLEBARS_CASES) - len(hbs_firing)
    assert reached["not sources"] == len(NOT_SOURCES) and reached["read twins"] == len(READ_TWINS)
    assert reached["heads"] == len(HEADS) * 4 * 2 and reached["opening"] == len(OPENING) * 2
