"""Prompt templates inside Python code: found with ast, linted at the .py file's own positions."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.pysource import rewrite, templates_in

CONFIG = build({"today": "2026-12-02"}, "test")

SOURCE = '''from langchain.prompts import PromptTemplate

QA_PROMPT = """You are an assistant. Answer from the context.
PASSAGE {i} (RELEVANCE: {score:.2f})
{doc}

Question: {question}
Question: {question}
"""

builder = PromptBuilder(template="""
{% for doc in documents %}
[{{ loop.index }}] {{ doc.meta.title }} (score: {{ doc.score }})
{{ doc.content }}
{% endfor %}
Question: {{ query }}
""")

ESCAPED_TEMPLATE = "Answer from {context}.\\nQuestion: {question}\\nQuestion: {question}"
label = "not a template, just a string that is long enough"
'''


def test_templates_are_found_by_name_and_by_call():
    found = templates_in(SOURCE)
    assert [(t.line, t.column, t.syntax, t.origin is not None) for t in found] == [
        (3, 13, "text", True),
        (11, 34, "jinja", True),
        (19, 20, "text", False),
    ]


def test_findings_point_into_the_python_file():
    assert [(f.line, f.column, f.code) for f in lint_text(SOURCE, path="app.py", config=CONFIG)] == [
        (4, 1, "PL205"),
        (4, 25, "PL102"),
        (7, 11, "PL101"),
        (13, 49, "PL102"),
        (19, 55, "PL101"),  # through the escapes: on the first {question}, as on line 7 (and no fix)
    ]


def test_fixes_edit_the_literals_in_place():
    fixed = fix_text(SOURCE, path="app.py", config=CONFIG)
    assert "PASSAGE {i}\n{doc}" in fixed
    assert fixed.count("Question: {question}\n") == 1
    assert "[{{ loop.index }}] {{ doc.meta.title }}\n" in fixed
    # Through the escapes: the repeated question is gone, the escape before it stays.
    assert fixed.endswith('ESCAPED_TEMPLATE = "Answer from {context}.\\nQuestion: {question}"\nlabel = "not a template, just a string that is long enough"\n')
    compile(fixed, "app.py", "exec")


def test_python_syntax_error_is_pl900():
    assert [(f.code, f.line) for f in lint_text("PROMPT = '''\n", path="app.py", config=CONFIG)] == [("PL900", 1)]


def test_json_that_is_not_a_chat_record_is_not_a_prompt():
    assert lint_text('{"name": "my-app", "version": "1.0.0"}', path="package.json", config=CONFIG) == []


LANGCHAIN_YAML = """_type: prompt
input_variables: ["context", "question"]
template_format: f-string
template: |
  Use the context.
  PASSAGE {i} (score: {score})
  {context}

  Question: {question}
  Question: {question}
"""


def test_langchain_prompt_file_points_into_the_yaml_block():
    found = lint_text(LANGCHAIN_YAML, path="qa.yaml", config=CONFIG)
    assert [(f.line, f.column, f.code) for f in found] == [(6, 3, "PL205"), (6, 23, "PL102"), (9, 13, "PL101")]
    # Fixed inside the block, its lines indented as they were (see test_formats for more).
    assert all(f.fix is not None for f in found if f.code == "PL102")


def test_langchain_jinja_template_and_other_yaml():
    jinja = "_type: prompt\ntemplate_format: jinja2\ntemplate: 'Answer. {% for d in docs %}{{ d.content }} (score: {{ d.score }}){% endfor %} Question: {{ question }}'\n"
    # A quoted value with no escape is placed where it stands: the title slot, then the score.
    assert [(f.column, f.code) for f in lint_text(jinja, path="p.yml", config=CONFIG)] == [(39, "PL205"), (63, "PL102")]
    assert lint_text("steps:\n  - run: pytest\n", path=".github/ci.yml", config=CONFIG) == []


# ---- positions inside literals with escapes ----

PL102_ONLY = build({"select": ["PL102"], "today": "2026-12-02"}, "test")

BEFORE = "Answer from the sources." + "\n\n"
SCORED_SOURCE = "[1] Shipping FAQ \u2014 Delivery (score: 0.91)"
AFTER = "\n" + "Standard delivery takes 3-5 working days.\n\nQuestion: {question}"

# How the template is written in the file: escapes of every kind, pieces, raw strings.
LITERALS = {
    "newline escapes": '"' + (BEFORE + SCORED_SOURCE + AFTER).replace("\n", "\\n") + '"',
    "tab, quote, backslash": '"\\t\\"Q\\" \\\\ ' + (BEFORE + SCORED_SOURCE + AFTER).replace("\n", "\\n") + '"',
    "unicode escapes": '"\\u00c9\\N{EM DASH}\\x41\\101 ' + (BEFORE + SCORED_SOURCE.replace("\u2014", "\\u2014") + AFTER).replace("\n", "\\n") + '"',
    "implicit concatenation": '(\n    "' + BEFORE.replace("\n", "\\n") + '"\n    "' + SCORED_SOURCE + '"\n    "' + AFTER.replace("\n", "\\n") + '"\n)',
    "pieces, one raw": '(\n    r"' + BEFORE.replace("\n", "") + ' \\d"\n    "\\n\\n' + SCORED_SOURCE + AFTER.replace("\n", "\\n") + '"\n)',
    "single quotes": "'" + (BEFORE + SCORED_SOURCE + AFTER).replace("\n", "\\n") + "'",
    "line continuation": '"' + BEFORE.replace("\n", "\\n") + '\\\n' + SCORED_SOURCE + AFTER.replace("\n", "\\n") + '"',
    "f-string, triple-quoted": 'f"""' + BEFORE + SCORED_SOURCE + AFTER + '"""',
    "f-string with escapes": 'f"' + (BEFORE + SCORED_SOURCE + AFTER).replace("\n", "\\n") + '"',
    "f-string pieces, doubled braces, nested fields": '(\n    f"' + BEFORE.replace("sources", "{{sources}}").replace("\n", "\\n") + '"  # a comment\n    rf"' + SCORED_SOURCE + ' \\d"\n    f"'
    + AFTER.replace("\n", "\\n").replace("{question}", "{q['text']!r:>{width}} {'}'}") + '"\n)',
}


@pytest.mark.parametrize("literal", LITERALS.values(), ids=LITERALS.keys())
@pytest.mark.parametrize("layout", ["QA_PROMPT = {}\n", "import x\n\n\ndef build():\n    return PromptTemplate(template={})\n"])
def test_a_finding_in_a_literal_with_escapes_lands_on_its_text(literal, layout):
    source = layout.format(literal)
    (finding,) = lint_text(source, path="rag.py", config=PL102_ONLY)
    at = source.index("0.91")  # the score's value, which the finding marks
    line = source.count("\n", 0, at) + 1
    column = at - (source.rfind("\n", 0, at) + 1) + 1
    assert (finding.code, finding.line, finding.column, finding.end_line, finding.end_column) == ("PL102", line, column, line, column + 4)
    assert finding.fix is not None
    # The fix is written through the escapes: the file still compiles, the template
    # reads back without the score, the rest is written as it was, and a second fix changes nothing.
    fixed = fix_text(source, path="rag.py", config=PL102_ONLY)
    compile(fixed, "rag.py", "exec")
    (before,), (after,) = templates_in(source), templates_in(fixed)
    assert after.text == before.text.replace(" (score: 0.91)", "")
    assert fixed == source.replace(" (score: 0.91)", "")
    assert fix_text(fixed, path="rag.py", config=PL102_ONLY) == fixed


def test_bytes_are_not_templates():
    assert templates_in('QA_PROMPT = b"' + (BEFORE + SCORED_SOURCE.replace("\u2014", "-") + AFTER).replace("\n", "\\n") + '"\n') == []


@pytest.mark.parametrize("literal", LITERALS.values(), ids=LITERALS.keys())
def test_every_character_maps_to_where_it_is_written(literal):
    source = "QA_PROMPT = " + literal + "\n"
    (template,) = templates_in(source)
    assert template.origin is None and len(template.offsets) == len(template.text) + 1
    for offset, char in zip(template.offsets, template.text):
        assert source[offset] == char or source[offset] == "\\"
    assert list(template.offsets) == sorted(template.offsets)


@pytest.mark.parametrize(
    ("source", "inserted", "written"),
    [
        ('X_PROMPT = "Answer from the sources.\\nQ: {q}"\n', 'say "hi"\n\tback\\slash ', 'say \\"hi\\"\\n\\tback\\\\slash '),
        ("X_PROMPT = 'Answer from the sources.\\nQ: {q}'\n", "it's", "it\\'s"),
        ('X_PROMPT = ("Answer from the sources.\\n"\n    "Q: {q}")\n', "\u00e9", "\u00e9"),
    ],
)
def test_an_insertion_is_escaped_for_its_literal(source, inserted, written):
    (template,) = templates_in(source)
    at = template.text.index("Q:")
    result = rewrite(source, template.offsets, template.text, template.text[:at] + inserted + template.text[at:])
    assert result == source.replace("Q:", written + "Q:", 1)
    assert templates_in(result)[0].text == template.text[:at] + inserted + template.text[at:]


def test_a_change_a_raw_piece_cannot_hold_is_not_written():
    source = 'X_PROMPT = (r"Answer from \\d the sources."\n    "\\nQ: {q}")\n'
    (template,) = templates_in(source)
    at = template.text.index("the")
    assert rewrite(source, template.offsets, template.text, template.text[:at] + "a\nb" + template.text[at:]) is None


# ---- prompts that code sends without naming them ----

PROMPT_TEXT = "Answer the question from the sources below and cite them."
CONTEXT_NAMES = ["context", "context_str", "docs", "search_results", "retrieved_documents", "passages"]


def _found(source: str) -> list[str]:
    return [t.text for t in templates_in(source)]


@pytest.mark.parametrize("name", CONTEXT_NAMES)
@pytest.mark.parametrize(
    "layout",
    [
        'def answer(q, {name}):\n    text = f"""{prompt}\n\n{{{name}}}\n\nQuestion: {{q}}"""\n    return llm(text)\n',
        'text = """{prompt}\n\n{{{name}}}\n\nQuestion: {{q}}"""\n',
        'class Chain:\n    body = "{prompt} {{{name}}} Question: {{q}}"\n',
        'def run({name}):\n    chat([{{"role": "user", "content": f"{prompt}\\n{{{name}}}\\nQ: {{q}}"}}])\n',
    ],
    ids=["f-string in a function", "module string", "class attribute", "message content"],
)
def test_a_string_with_a_context_slot_is_a_prompt(layout, name):
    (text,) = _found(layout.format(name=name, prompt=PROMPT_TEXT))
    assert "{" + name + "}" in text and PROMPT_TEXT in text


@pytest.mark.parametrize("label", ["Context:\\n", "Documents: ", "## Sources\\n"])
@pytest.mark.parametrize("name", ["parts", "joined", "text"])
def test_a_slot_under_a_context_label_is_the_context_whatever_its_name(label, name):
    # `return f"...Context:\n{parts}..."` from a function no name marks (blind dev sets, code in both languages).
    source = f'def answer(q, {name}):\n    return f"{PROMPT_TEXT}\\n\\n{label}{{{name}}}\\n\\nQuestion: {{q}}"\n'
    (text,) = _found(source)
    assert "{" + name + "}" in text and PROMPT_TEXT in text
    # The twin: a label that names no context ("Notes:") leaves the string to other evidence.
    assert _found(source.replace(label.split(":")[0].split("\\n")[0], "Notes" if ":" in label else "## Notes")) == []


@pytest.mark.parametrize(
    "source",
    [
        'def answer(context):\n    print(f"{PROMPT} {{context}} was retrieved")\n',
        'import logging\nlog = logging.getLogger()\ndef answer(context):\n    log.info(f"{PROMPT} {{context}}")\n',
        'def answer(context):\n    raise ValueError(f"{PROMPT} {{context}}")\n',
        'def answer(context):\n    """{PROMPT} {{context}} is what was retrieved."""\n',
        'def answer(context):\n    key = f"{{question}}:{{context}}"\n',
        'def answer(context):\n    note = f"{PROMPT} {{len(context)}} characters"\n',
        'def answer(context):\n    note = f"{PROMPT} {{user}}"\n',
        'def answer(chunks, callback):\n    callback(msg=f"[WARN] {PROMPT} {{chunks}}")\n',
        'def answer(chunks, report):\n    report(f"Error: {PROMPT} {{chunks}}")\n',
    ],
    ids=["printed", "logged", "raised", "docstring", "no words of its own", "a call on the context", "no context slot", "a log level", "an error"],
)
def test_strings_sent_to_people_or_without_a_context_slot_are_not(source):
    assert _found(source.format(PROMPT=PROMPT_TEXT)) == []


@pytest.mark.parametrize("local", ["user", "msg", "content"])
def test_a_local_a_chat_message_sends_is_a_prompt_whatever_its_name(local):
    # `user = f"""QUESTION: ..."""`, then `{"role": "user", "content": user}` (blind47c peralese): the message says it.
    source = (f'def build_messages(query, packed):\n    {local} = f"""QUESTION:\n{{query}}\n\nITEMS:\n{{packed}}\n\n'
              f'Return JSON only, with the answer and the ids of the chunks you cited."""\n'
              f'    return [{{"role": "user", "content": {local}}}]\n')
    assert _found(source) == ["QUESTION:\n{query}\n\nITEMS:\n{packed}\n\nReturn JSON only, with the answer and the ids of the chunks you cited."]
    # The twins: a tool's message carries what the tool gave back; a local no message sends is no prompt.
    assert _found(source.replace('"role": "user"', '"role": "tool"')) == []
    assert _found(source.replace(f'"content": {local}', '"content": query')) == []


@pytest.mark.parametrize("name", ["build_prompt", "get_system_prompt", "format_messages", "make_template", "_prompt"])
def test_what_a_function_named_for_prompts_returns_is_a_prompt(name):
    # Called, as a private function must be for what it builds to reach a prompt (see _never_called).
    source = f'def {name}(topic):\n    if topic:\n        return f"{PROMPT_TEXT} Stay on {{topic}}."\n    return "{PROMPT_TEXT}"\n\n\nASKED = {name}(None)\n'
    assert _found(source) == [f"{PROMPT_TEXT} Stay on {{topic}}.", PROMPT_TEXT]
    assert _found(source.replace(name, "summarise")) == []


RULES_TEXT = "Answer only from the numbered sources. Never infer a value that is not written in a source."
MODULE_TEXTS = ('CORE_RULES = """You are {name}. Today is {today}.\n\n' + RULES_TEXT + '"""\n'
                'INTERNAL_RULES = "Internal staff may see internal policies and procedures."\n'
                'CUSTOMER_RULES = "Only public, customer-facing material was given to you."\n\n\n')


@pytest.mark.parametrize("body", [
    "    return CORE_RULES.format(name=name, today=today)\n",
    "    blocks = [CORE_RULES.format(name=name, today=today), INTERNAL_RULES if internal else CUSTOMER_RULES]\n    return '\\n\\n'.join(blocks)\n",
    "    blocks = []\n    blocks.append(CORE_RULES.strip())\n    blocks.extend([INTERNAL_RULES if internal else CUSTOMER_RULES])\n    return '\\n\\n'.join(blocks)\n",
])
def test_the_module_texts_a_function_named_for_prompts_returns_are_prompts(body):
    """blind86 hchouriya: `system_prompt()` joins `CORE_RULES.format(...)` and a mode's rules; no name says prompt."""
    source = MODULE_TEXTS + "def system_prompt(name, today, internal):\n" + body
    found = _found(source)
    assert found[0] == "You are {name}. Today is {today}.\n\n" + RULES_TEXT
    assert len(found) == (1 if "INTERNAL" not in body else 3)
    # The twin: the same function under a name that says nothing of prompts.
    assert _found(source.replace("def system_prompt", "def assemble")) == []


def test_a_returned_f_string_with_a_repeated_question_is_linted():
    source = f'def build_prompt(question, context):\n    return f"""{PROMPT_TEXT}\n\n{{context}}\n\nQuestion: {{question}}\nQuestion: {{question}}\n"""\n'
    assert [(f.line, f.column, f.code) for f in lint_text(source, path="rag.py", config=CONFIG)] == [(6, 11, "PL101")]


@pytest.mark.parametrize(
    ("fill", "conversions"),
    [("(context, question)", ("%s", "%s")), ("(docs, query)", ("%s", "%r")), ('{"context": c, "question": q}', ("%(context)s", "%(question)s"))],
)
def test_a_percent_formatted_string_reads_its_conversions_as_slots_named_by_what_fills_them(fill, conversions):
    source = (
        "def build_prompt(c, q, context, question, docs, query):\n"
        f'    prompt = """Context:\n{conversions[0]}\n\nQuestion: {conversions[1]}\n\nAnswer in English, in two sentences at most.\nCite the sources you used by their numbers.\nIf they do not answer the question, say that you do not know.\n""" % {fill}\n'
        "    return prompt\n"
    )
    (template,) = templates_in(source)
    names = [n.strip("()") for n in fill.strip("(){}").split(",")]
    expected = [f"{{{c[2:-2]}}}" if c.startswith("%(") else f"{{{n.split(':')[0].strip()}}}" for c, n in zip(conversions, names)]
    assert [line for line in template.text.split("\n") if line.startswith("{") or line.startswith("Question")] == [expected[0], f"Question: {expected[1]}"]
    found = [(f.line, f.column, f.code) for f in lint_text(source, path="p.py", config=CONFIG)]
    assert found == [(3, 1, "PL305")]


def test_a_percent_sign_written_twice_is_one_percent_and_no_slot():
    (template,) = templates_in('PROMPT = """Documents:\n{context}\n\nBe 100%% sure. %s""" % extra\n')
    assert template.text.endswith("Be 100% sure. {extra}")


# A prompt written as lines joined in code: `SEP.join([...])` over string literals (and f-strings).
JOINED_LINES = [
    "You are a research assistant. Answer from the references below.",
    "## References",
    "{context}",
    "",
    "## Question",
    "{question}",
    "",
    "## Requirements",
    "1. Read all references carefully and combine the information.",
    "2. If the references are incomplete, say so.",
    "3. Cite each reference you use by its number.",
    "",
    "## Answer",
]


@pytest.mark.parametrize("separator", ['"\\n"', "chr(10)", "os.linesep", "'\\n'"])
@pytest.mark.parametrize("brackets", ["[]", "()"])
def test_lines_joined_in_code_are_one_template(separator, brackets):
    items = ",\n    ".join(repr(line) for line in JOINED_LINES)
    source = f"import os\n\nRAG_PROMPT = {separator}.join({brackets[0]}\n    {items},\n{brackets[1]})\n"
    [template] = templates_in(source)
    assert template.text == "\n".join(JOINED_LINES) and (template.line, template.column) == (3, 14)
    assert [(f.line, f.column, f.code) for f in lint_text(source, path="rag.py")] == [(3, 14, "PL305")]


def test_a_join_of_anything_but_literals_is_not_read():
    assert templates_in('RAG_PROMPT = "\\n".join([header, "{context}", footer])\n') == []
    assert templates_in('RAG_PROMPT = sep.join(["Answer from the context below please.", "{context}"])\n') == []


def test_an_fstring_written_as_python_3_12_allows_is_no_syntax_error():
    from promptlint.readers.document import parse_text

    source = "def format_context(docs):\n    return \"\\n\\n\".join(f\"[{i}] {d.replace('\\n', ' ')}\"\n                       for i, d in enumerate(docs))\n"
    doc = parse_text(source, "formatting.py", ".py")
    # Read whatever Python runs (see tests/readers/test_pyversions.py), the field as written.
    assert (doc.errors, doc.unread) == ((), ())
    assert [p.text for p in doc.prompts] == ["[{i}] {d.replace('\\n', ' ')}"]


def test_a_syntax_error_with_no_fstring_near_it_is_still_pl900():
    assert [f.code for f in lint_text("x = (1,\n", path="broken.py")] == ["PL900"]


# A method that writes a run out for a person: the answer, then each chunk used with its score.
REPORT = ('class Result:\n    def NAME(self):\n        lines = [f"Answer: {self.answer}", "Context:"]\n'
          '        for i, c in enumerate(self.context, 1):\n            lines.append(f"  [{i}] score={c[\'score\']:.4f} {c[\'text\']}")\n'
          '        return "\\n".join(lines)\n')


@pytest.mark.parametrize("name", ["pretty", "__str__", "__repr__", "display_results", "pprint", "show"])
def test_what_a_method_writes_out_for_a_person_is_no_prompt(name):
    assert [f.code for f in lint_text(REPORT.replace("NAME", name), path="result.py", config=CONFIG)] == []


@pytest.mark.parametrize("name", ["build_context", "format_context", "show_prompt"])
def test_the_same_body_named_for_the_context_or_a_prompt_is_read(name):
    # The twin: a name that says context (or prompt, even beside "show") makes the loop the sources.
    assert "PL102" in [f.code for f in lint_text(REPORT.replace("NAME", name), path="result.py", config=CONFIG)]


# A run that prints each hit's score for whoever watches it, then sends the hits' text, without scores, to a model.
PRINTED_HITS = ('def answer(question):\n    hits = index.query(question, top_k=5)\n    SHOW\n'
                '    context = "\\n\\n".join(HIT for h in hits)\n'
                '    prompt = f"Answer from the context below.\\n\\nContext:\\n{context}\\n\\nQuestion: {question}"\n'
                '    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}])\n')


# A script that writes what each chunk holds to a report file; its twin joins the same lines into a prompt.
REPORT_FILE = ('def answer(chunks, out, question):\n    lines = ["# Chunks"]\n    for c in chunks:\n'
               '        lines.append(f"**chunk {c.chunk_index}** (score {c.score:.2f})\\n{c.text}")\n    SINK\n')


@pytest.mark.parametrize("sink", ['with open(out, "w") as fh:\n        fh.write("\\n".join(lines) + "\\n")',
                                  'print("\\n".join(lines))', 'Path(out).write_text("\\n".join(lines))'])
def test_lines_per_item_only_written_to_a_file_or_printed_are_a_report(sink):
    """blind85 mirrors: `lines.append(f"- #{c['chunk_index']} ...")`, then `fh.write("\\n".join(lines))`."""
    assert lint_text(REPORT_FILE.replace("SINK", sink), path="dump.py", config=CONFIG) == []
    twin = REPORT_FILE.replace("SINK", 'context = "\\n".join(lines)\n    return llm.invoke(f"Answer from the context.\\n{context}\\nQuestion: {question}")')
    assert {"PL102", "PL203"} <= {f.code for f in lint_text(twin, path="dump.py", config=CONFIG)}


# A page's list of results, written per item in a browser's markup: for a person, whatever the names say.
PAGE = {
    "results.js": ('function formatSources(sources) {\n  let html = "<ul>";\n  for (const src of sources) {\n'
                   '    html += `ITEM`;\n  }\n  return html + "</ul>";\n}\n'),
    "results.py": ('def format_sources(sources):\n    html = ""\n    for src in sources:\n        html += f\'ITEM\'\n    return html\n'),
}
PAGE_ITEMS = {
    "an attribute only a page gives": ('<div class="result"><b>{src.title}</b> (score: {src.score:.2f})<br>{src.text}</div>', '<div class="result">'),
    "two elements of a page": ("<li><strong>{src.title}</strong> - {src.score:.2f} match {src.text}</li>", "<li><strong>"),
    "a data attribute": ('<p data-chunk-index="{src.index}">{src.title}: {src.text} (score: {src.score:.2f})</p>', '<p data-chunk-index="{src.index}">'),
}


@pytest.mark.parametrize("path", sorted(PAGE))
@pytest.mark.parametrize("item", sorted(PAGE_ITEMS))
def test_a_text_per_item_in_a_pages_markup_is_no_source(path, item):
    """blind85 mirrors: `html += \\`<li><strong>${src.source}</strong> - ${conf}% match\\``, `<div class="result-score">`."""
    written, markup = PAGE_ITEMS[item]
    if path.endswith(".js"):
        written, markup = written.replace("{", "${"), markup.replace("{", "${")
    source = PAGE[path].replace("ITEM", written)
    assert lint_text(source, path=path, config=CONFIG) == []
    # The twin: the same item with its markup taken away is a source's wrapper, its score on every source.
    twin = PAGE[path].replace("ITEM", written.replace(markup, "[").replace("</div>", "").replace("</li>", "").replace("</p>", "").replace("<b>", "").replace("</b>", "").replace("<br>", "\\n").replace("</strong>", ""))
    assert "PL102" in [f.code for f in lint_text(twin, path=path, config=CONFIG)]


@pytest.mark.parametrize("show", ['print("\\n".join([f"{h.score:.3f}  {h.title}" for h in hits]))',
                                  'logger.info("hits: %s", ", ".join(f"{h.title} ({h.score:.2f})" for h in hits))'])
def test_what_a_run_prints_of_its_hits_is_no_source(show):
    source = PRINTED_HITS.replace("SHOW", show).replace("HIT", 'h.text')
    assert [f.code for f in lint_text(source, path="answer.py", config=CONFIG)] == []
    # The twin: the score the prompt's own loop writes is on every source the model reads.
    twin = PRINTED_HITS.replace("SHOW", "pass").replace("HIT", 'f"(score {h.score:.2f}) {h.text}"')
    assert "PL102" in [f.code for f in lint_text(twin, path="answer.py", config=CONFIG)]


# A table of prompts under a name that says so, nested in lists and dicts, in Python and in TypeScript.
QUOTE_TEMPLATE = "Answer from the cited knowledge.\n\n<Cites>\n{{quote}}\n</Cites>\n\nQuestion: {{question}}\nOnce more, the question: {{question}}\n"
PROMPT_TABLES = {
    "python dict": ('PROMPTS = {"qa": """TEXT""", "model": "gpt-4o"}\n', "tables.py"),
    "python list of dicts": ('PROMPT_LIST = [{"title": "QA", "desc": "", "value": {"4.9.7": """TEXT"""}}]\n', "tables.py"),
    "typescript object": ("export const PROMPTS = { qa: `TEXT`, model: 'gpt-4o' };\n", "tables.ts"),
    "typescript list of objects": ("export const Prompt_QuoteList: Item[] = [\n  { title: t('qa'), desc: '', value: { ['4.9.7']: `TEXT` } },\n];\n", "tables.ts"),
}


@pytest.mark.parametrize("form", sorted(PROMPT_TABLES))
def test_the_texts_of_a_table_of_prompts_are_prompts(form):
    """`Prompt_QuoteList = [{ title, desc, value: { [version]: \\`...\\` } }]`: the texts the name holds, however deep."""
    code, path = PROMPT_TABLES[form]
    source = code.replace("TEXT", QUOTE_TEMPLATE)
    line = source[: source.index("Question: {{question}}")].count("\n") + 1
    assert [(f.line, f.code) for f in lint_text(source, path=path, config=CONFIG)] == [(line, "PL101")]
    # The twin: settings of a few words beside no prompt are no prompt.
    assert lint_text(code.replace("TEXT", "{{question}}"), path=path, config=CONFIG) == []


# Texts for another program, whatever their slots are named: a command line's slots are a program's arguments
# (`--corpus "{docs}"` names no retrieved context), and a statement of SQL or Cypher is for a database (census R2R).
_RUN = "import subprocess\n\n\ndef run(python, docs, documents, context, out):\n    cmd = {}\n    subprocess.run(cmd, shell=True)\n"
_QUERY = 'def search(context, context_expr, table, db):\n    query = f"""{}"""\n    return db.execute(query)\n'
FOR_A_PROGRAM = [
    _RUN.format('f\'"{python}" scripts/build_index.py --corpus "{docs}" --output "{out}" --chunk-size 512\''),
    _RUN.format('f"ingest -d {documents} -o {out}"'),
    _RUN.format('f"python index.py \\\\\\n  --context {context} \\\\\\n  --top-k 5"'),
    _QUERY.format("WITH ranked AS (\n    SELECT id, {context_expr} AS body\n    FROM {table}\n)\nSELECT * FROM ranked\nORDER BY score DESC"),
    _QUERY.format("\n    -- documents that match\n    SELECT d.id, d.text\n    FROM documents d\n    WHERE d.text @@ {context}\n"),
    _QUERY.format("MATCH (d:Document)-[:HAS]->(c:Chunk)\nWHERE c.text CONTAINS {context}\nRETURN d.title, c.text"),
]


@pytest.mark.parametrize("source", FOR_A_PROGRAM)
def test_a_text_for_another_program_is_no_prompt_whatever_its_slots_are_named(source):
    assert templates_in(source) == []


@pytest.mark.parametrize("twin", [
    # The same slot in a sentence of its own is a prompt's context, whatever else the text holds.
    'def run(docs):\n    prompt = f"Answer from these notes -- briefly.\\n{docs}\\nCite the --output flag only if asked."\n    return prompt\n',
    # A prompt asking for SQL, written in sentences, with the shape of the query in it, is a prompt.
    _QUERY.format("Write one query over this context, then explain it.\n{context}\nUse this shape:\nSELECT d.id FROM documents d\nWHERE d.text @@ {context}"),
])
def test_a_prompt_that_mentions_a_program_s_words_is_a_prompt(twin):
    assert len(templates_in(twin)) == 1


ROLE_KEYWORDS = (
    "def build(question, context):\n    user = (\n        f\"Question: {question}\\n\\n\"\n        \"Answer requirements:\\n\"\n"
    "        \"1) Report the computed metrics if they are available.\\n\"\n        \"2) Explain the meaning at a high level for a student.\\n\"\n"
    "        \"3) Clearly state the limitations of the data.\\n\"\n        \"4) Do not give medical advice of any kind.\\n\"\n    )\n"
    "    return PromptBundle(system=SYSTEM, user=user, context=context)\n"
)


def test_a_text_a_call_gives_by_a_chat_role_s_name_is_a_message():
    # `PromptBundle(system=..., user=user)` (blind88c capstoneg5): `user` is the user message's text, whatever it is called.
    assert [(f.line, f.code) for f in lint_text(ROLE_KEYWORDS, path="bundle.py", config=CONFIG)] == [(3, "PL305")]
    # The twin: one role's name alone among a call's options (`Account(user=user)`) names no message.
    assert lint_text(ROLE_KEYWORDS.replace("system=SYSTEM, ", ""), path="bundle.py", config=CONFIG) == []
