"""Prompts in JavaScript and TypeScript code: which strings are prompts, per-item wrappers read as
one repeated source, at the .ts file's positions, and a scanner that comments, regular
expressions, nested templates and type annotations do not confuse."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers import document
from promptlint.readers.jsscan import JsSyntaxError, fields, tokens
from promptlint.readers.jssource import python_of, segment_wrapper, templates_in

CONFIG = build({"today": "2026-12-02"}, "test")

# How code builds one text per item; BODY is a template literal's body, ITEM the item's name.
LOOP_FORMS = {
    "map, arrow with an expression": "function build(docs) {\n  return docs.map((ITEM, i) => `BODY`).join('\\n\\n');\n}\n",
    "map, arrow with a block": "function build(docs) {\n  return docs.map((ITEM, i) => {\n    return `BODY`;\n  }).join('\\n\\n');\n}\n",
    "map, function callback": "function build(docs) {\n  return docs.map(function (ITEM, i) {\n    return `BODY`;\n  }).join('\\n\\n');\n}\n",
    "map, typed": "const build = (docs: Doc[]): string =>\n  docs.map((ITEM: Doc, i: number): string => `BODY`).join('\\n\\n');\n",
    "for...of, push": "function build(docs: Doc[]): string {\n  const parts: string[] = [];\n  for (const ITEM of docs) {\n    parts.push(`BODY`);\n  }\n  return parts.join('\\n\\n');\n}\n",
    "for...of, +=": "function build(docs) {\n  let context = '';\n  for (const ITEM of docs) {\n    if (ITEM) {\n      context += `BODY`;\n    }\n  }\n  return context;\n}\n",
    "for...of, named then pushed": "function build(docs) {\n  const parts = [];\n  for (const ITEM of docs) {\n    const block = `BODY`;\n    parts.push(block);\n  }\n  return parts.join('');\n}\n",
    "for...of entries": "function build(docs) {\n  const parts = [];\n  for (const [i, ITEM] of docs.entries()) {\n    parts.push(`BODY`);\n  }\n  return parts.join('');\n}\n",
    "forEach": "function build(docs) {\n  const parts = [];\n  docs.forEach((ITEM, i) => {\n    parts.push(`BODY`);\n  });\n  return parts.join('');\n}\n",
}
# How a field is read from the item (X), and the rule its meaning fires.
FIELD_FORMS = [
    ("${X.score}", "PL102"),
    ('${X["relevance"]}', "PL102"),
    ("${X.similarity.toFixed(2)}", "PL102"),
    ("${Number(X.score)}", "PL102"),
    ("${X.metadata?.similarity}", "PL102"),
    ("${Math.round(X.rerankScore * 100)}", "PL102"),
    ("${X.metadata?.date}", "PL201"),
    ("${X.metadata!.updatedAt}", "PL201"),
    ('${X.publishedDate ?? ""}', "PL201"),
    ('${X.metadata?.["last_modified"]}', "PL201"),
    ('${X.date ? X.date : "unknown"}', "PL201"),
    ("${X.metadata.chunkId}", "PL203"),
]
LABELS = ["Score: ", "Relevance = ", "Date: ", ""]


def _found(source: str, path: str = "build.ts") -> list[tuple[int, int, str]]:
    return [(f.line, f.column, f.code) for f in lint_text(source, path=path, config=CONFIG)]


def _builder(form: str, item: str, line: str, content: str = "${X.pageContent}") -> str:
    body = "Title: ${X.title}\n" + line + "\n" + content + "\n"
    return LOOP_FORMS[form].replace("BODY", body.replace("X", item)).replace("ITEM", item)


@pytest.mark.parametrize("form", LOOP_FORMS)
@pytest.mark.parametrize("field, code", FIELD_FORMS)
@pytest.mark.parametrize("label", LABELS)
def test_a_field_of_the_item_is_found_where_it_is_written(form, field, code, label):
    source = _builder(form, "doc", label + field)
    line = label + field.replace("X", "doc")
    number = source.split("\n").index(line) + 1
    assert _found(source) == [(number, len(label) + 1, code)]


@pytest.mark.parametrize("form", LOOP_FORMS)
@pytest.mark.parametrize("label", ["Score: ", "Relevance = ", ""])
def test_the_score_line_is_fixed_in_the_literal(form, label):
    source = _builder(form, "chunk", label + "${chunk.score.toFixed(4)}")
    fixed = fix_text(source, path="build.ts", config=CONFIG)
    assert fixed == source.replace(label + "${chunk.score.toFixed(4)}\n", "")
    assert fix_text(fixed, path="build.ts", config=CONFIG) == fixed


@pytest.mark.parametrize("form", LOOP_FORMS)
@pytest.mark.parametrize(
    "line",
    [
        "Source: ${X.title}",  # a field, but nothing wrong with it
        "Score: ${total}",  # not the item's
        "Score: \\${X.score}",  # an escaped `${`: text, not a field
        "Page: ${X.metadata.page}",
        "Score: {X.score}",  # braces without `$`: text in a template literal
    ],
)
def test_clean_twins_stay_clean(form, line):
    assert _found(_builder(form, "doc", line.replace("X", "doc"))) == []


def test_the_bug_report_wrapper_fires_pl102_at_its_value():
    source = 'const context = chunks.map((chunk, idx) => `[${idx + 1}] (score: ${chunk.similarity.toFixed(3)})\\n${chunk.content}`).join("\\n\\n");\n'
    column = source.index("${chunk.similarity") + 1
    assert (1, column, "PL102") in _found(source)
    fixed = fix_text(source, path="rag.ts", config=CONFIG)
    assert fixed == source.replace(" (score: ${chunk.similarity.toFixed(3)})", "")


def test_the_callback_index_is_the_ordinal_and_destructured_names_are_fields():
    source = "const text = docs.map(({ pageContent, metadata: meta }, n) => `[${n + 1}] ${meta.title}\\n${pageContent}`).join('\\n');\n"
    [template] = templates_in(source)
    prompt = segment_wrapper(template.text, template.loop)
    [source_model] = prompt.sources
    assert source_model.key == "${n + 1}"
    assert template.loop.index == "n" and ("meta", "item_", ("metadata",)) in template.loop.aliases


@pytest.mark.parametrize(
    "statement",
    [
        "console.log(`Score: ${doc.score}\\n${doc.pageContent}`);",
        "logger.info(`Score: ${doc.score}\\n${doc.pageContent}`);",
        "throw new Error(`Score: ${doc.score}\\n${doc.pageContent}`);",
        "errors.push(`Score: ${cutoff}\\n${body}`);",  # no field of the item
        "seen.add(`Score: ${doc.score}\\n${doc.pageContent}`);",  # a set, not a text
        "queries.push(sql`SELECT text FROM chunks WHERE score > ${doc.score} AND id = ${doc.id}`);",  # tagged
    ],
)
def test_strings_outside_a_prompt_building_context_are_not_read(statement):
    source = f"function build(docs) {{\n  for (const doc of docs) {{\n    {statement}\n  }}\n}}\n"
    assert templates_in(source) == []
    assert _found(source) == []


# ---------------------------------------------------------------- which strings are prompts

PROMPT_TEXT = "You are a support assistant. Answer only from the sources and cite them."


@pytest.mark.parametrize(
    "source",
    [
        "const SYSTEM_PROMPT = `TEXT`;",
        "export const qaTemplate: string = 'TEXT';",
        'let instructions = "TEXT";',
        "this.systemPrompt = `TEXT`.trim();",
        "const system = dedent`TEXT`;",
        "await generateText({ model, system: `TEXT`, prompt: question });",
        "streamText({ model, messages: [{ role: 'system', content: `TEXT` }] });",
        "const messages = [{ role, content: 'TEXT' }];",
        "const prompt = PromptTemplate.fromTemplate(`TEXT`);",
        "const chat = ChatPromptTemplate.fromMessages([['system', `TEXT`], ['human', '{question}']]);",
        "const message = new SystemMessage(`TEXT`);",
        "function buildPrompt(question: string): string {\n  if (!question) {\n    return `TEXT`;\n  }\n  return question;\n}",
        "const buildSystemPrompt = async (q: string): Promise<string> => `TEXT`;",
        "class Bot {\n  getSystemPrompt(): string {\n    return `TEXT`;\n  }\n}",
        "const answer = await llm.invoke(`TEXT Use the context: ${context}`);",
        "const body = { input: 'TEXT\\nContext: {context}' };",
    ],
)
def test_a_prompt_is_found_by_what_the_code_says(source):
    assert [t.text.replace(" Use the context: ${context}", "").replace("\nContext: {context}", "") for t in templates_in(source.replace("TEXT", PROMPT_TEXT))] == [PROMPT_TEXT]


@pytest.mark.parametrize(
    "source",
    [
        "const greeting = `TEXT`;",  # no name, no slot
        "const label = `Using ${context}`;",  # too short to be a prompt
        "console.log(`TEXT ${context}`);",
        "logger.warn('TEXT {context}');",
        "throw new Error(`TEXT ${context}`);",
        "throw `TEXT ${context}`;",
        "const q = sql`TEXT ${context}`;",
        "function render() {\n  return `TEXT`;\n}",  # not a prompt function
        "const row = { role: 'admin', title: `TEXT` };",
        "const mode = flag ? `TEXT` : `TEXT`;",
    ],
)
def test_other_strings_are_not_prompts(source):
    assert templates_in(source.replace("TEXT", PROMPT_TEXT)) == []


def test_application_code_without_a_prompt_is_silent_and_skipped(tmp_path):
    source = (
        'import express from "express";\n'
        "// a `backtick` and 'quote in a comment\n"
        "/* and ` in a block */\n"
        "const re = /`[^`]*`/g, half = total / 2 / count;\n"
        "const app = express();\n"
        'app.get("/health", (req, res) => res.send(`ok ${Date.now()}`));\n'
        "const url = `https://api.example.com/v1/${path}?q=${encodeURIComponent(q)}`;\n"
        "export default app;\n"
    )
    doc = document.parse_text(source, "server.ts", ".ts")
    assert (doc.prompts, doc.errors, doc.holds_prompt) == ((), (), False)


def test_the_statement_after_a_template_literal_is_never_prompt_text():
    source = "const SYSTEM_PROMPT = `Answer from the context below.\nContext: ${context}`;\nconst x = computeSomething();\nexport function run() { return x; }\n"
    doc = document.parse_text(source, "qa.ts", ".ts")
    assert [p.text for p in doc.prompts] == ["Answer from the context below.\nContext: ${context}"]


def test_a_finding_in_a_string_with_escapes_lands_on_its_character():
    source = 'const QA_PROMPT = "Today is {current_date}.\\nAnswer only from the sources below and cite them as [n].\\nQuestion: {question}\\n";\n'
    [finding] = lint_text(source, path="qa.mjs", config=CONFIG)
    assert (finding.code, finding.line) == ("PL305", 1)
    assert source[finding.column - 1 :].startswith("{current_date}")


# ---------------------------------------------------------------- the scanner


@pytest.mark.parametrize(
    "code",
    [
        "// a comment with ` and ${ and '\n",
        "/* a block ` with \" quotes */\n",
        "const re = /[`'\"]+/g;\n",
        "const s = 'it\\'s a ` backtick';\n",
        'const t = "a \\" ` quote";\n',
        "const n = a / b / c;\n",
        "const m = new Map<string, Array<Doc>>();\n",
        "function f<T extends { a: string }>(x: T): Promise<Array<T>> { return g(x); }\n",
        "const nested = `a ${b.map((c) => `c ${c.d ? `x ${c.e}` : '}'}`).join('}')} z`;\n",
        "type K = `prefix-${string}`;\n",
        "if (ok) { x = 1 } /re`/.test(s);\n",
    ],
)
def test_the_scanner_is_not_confused(code):
    source = code + "const SYSTEM_PROMPT = `" + PROMPT_TEXT + "`;\n"
    assert [(t.line, t.text) for t in templates_in(source) if t.loop is None] == [(2, PROMPT_TEXT)]


def test_a_template_keeps_its_fields_as_written_and_maps_each_character():
    raw = "x = `a\\n${b.map((c) => `[${c.i}]`).join('}')} \\${not} \\\\${yes}`;"
    [template] = [t for t in tokens(raw) if t.kind == "template"][:1]
    assert template.value == "a\n${b.map((c) => `[${c.i}]`).join('}')} \\${not} \\\\${yes}"
    assert [expression for _, _, expression in fields(template.value)] == ["b.map((c) => `[${c.i}]`).join('}')", "yes"]
    assert len(template.offsets) == len(template.value) + 1
    assert all(raw[o] == c or raw[o] == "\\" for o, c in zip(template.offsets, template.value))


@pytest.mark.parametrize(
    "source, message, line",
    [
        ("const a = 1;\nconst PROMPT = `never\nends\n", "unterminated template literal", 2),
        ("const a = 'open\nconst b = 2;\n", "unterminated string literal", 1),
        ("const a = 1;\n\n/* never closed\n", "unterminated comment", 3),
        ("const P = `a ${b.map(c => `x ${c}`)\n", "unterminated template literal", 1),
    ],
)
def test_bad_input_is_one_pl900_naming_the_line(source, message, line):
    with pytest.raises(JsSyntaxError):
        templates_in(source)
    [finding] = lint_text(source, path="bad.ts", config=CONFIG)
    assert (finding.code, finding.line, finding.message) == ("PL900", line, f"invalid TypeScript: {message}")


def test_jsx_text_with_an_apostrophe_is_not_a_broken_string():
    source = "export function Page() {\n  return <p>Don't guess.</p>;\n}\nconst systemPrompt = `" + PROMPT_TEXT + "`;\n"
    assert [t.text for t in document.parse_text(source, "page.tsx", ".tsx").prompts] == [PROMPT_TEXT]
    assert document.parse_text(source, "page.ts", ".ts").errors  # outside JSX the quote is a broken string


@pytest.mark.parametrize(
    "expression, python",
    [
        ("c.metadata?.date", "c.metadata.date"),
        ('c.metadata?.["date"]', "c.metadata['date']"),
        ("c.meta!.date", "c.meta.date"),
        ("Number(c.score)", "float(c.score)"),
        ("Math.round(c.score * 100)", "round(c.score * 100)"),
        ('c.date ?? ""', "c.date"),
        ('c.date || "n/a"', "c.date"),
        ('c.date ? c.date : "n/a"', "c.date if c.date else 'n/a'"),
        ("c.tags.map(t => t.name)", None),
        ("/x/.test(c.text)", None),
    ],
)
def test_a_field_expression_reads_as_python(expression, python):
    import ast

    node = python_of(expression)
    assert (ast.unparse(node) if node is not None else None) == python


@pytest.mark.parametrize(
    "shown",
    ["new Date(d.publishedAt).toLocaleDateString()", "formatDate(d.updated_at)", "dayjs(d.createdAt).format('YYYY-MM-DD')", "d.date ?? 'unknown'"],
)
@pytest.mark.parametrize("build", ["map", "forEach"])
def test_a_date_shown_through_a_function_of_it_is_the_date(shown, build):
    line = f"`[${{i + 1}}] ${{d.title}} (${{{shown}}})\\n${{d.content}}`"
    code = (
        f"const context = docs.map((d, i) => {line}).join('\\n');\n" if build == "map"
        else f"let context = '';\ndocs.forEach((d, i) => {{ context += {line}; }});\n"
    ) + "export const prompt = `Answer from the sources.\\n${context}\\nQuestion: ${q}`;\n"
    assert [f.code for f in lint_text(code, path="p.ts", config=CONFIG) if f.code == "PL201"] == ["PL201"]


@pytest.mark.parametrize("operator", ["||", "??"])
@pytest.mark.parametrize("wrapper", ['<document name="${name}">\\n${doc.content}\\n</document>', "Source: ${name}\\n${doc.content}"])
def test_a_local_holding_a_value_with_a_default_is_that_value(operator, wrapper):
    """`doc.name || \\`Document ${i + 1}\\``: the local prints the document's name when it has one, so
    the source is titled; the default's text is not what the wrapper shows."""
    source = (
        "function attachDocuments(docs) {\n  return docs\n    .map((doc, i) => {\n"
        f"      const name = doc.name {operator} `Document ${{i + 1}}`;\n"
        f"      return `{wrapper}`;\n    }})\n    .join(\"\\n\");\n}}\n"
    )
    assert _found(source) == []
    # The clean twin's opposite: the name is always the made-up one, so nothing titles the source.
    assert _found(source.replace(f"doc.name {operator} ", "")) == [(5, 14, "PL205")]


@pytest.mark.parametrize("read", ["scores[i]", "(context.relevanceScores[i] * 100).toFixed(1)"])
def test_a_local_read_from_a_list_at_the_loop_counter_is_a_field_of_the_item(read):
    """`const score = scores[i]` in `docs.map((doc, i) => ...)`: one value per item, named by its variable."""
    source = (
        "const augment = (query, docs) => docs\n    .map((doc, i) => {\n"
        f"      const score = {read};\n"
        "      return `[${doc.title}] (Relevance: ${score}%)\\n${doc.content}`;\n    })\n    .join('\\n');\n"
    )
    assert _found(source) == [(4, 42, "PL102")]
    # The twin: a value read at another index is no field of the item.
    assert _found(source.replace("[i]", "[0]")) == []


# The same judgement as the shared evaluator's decides which per-item texts of a JS file are sources.
PROMPT_BESIDE = 'const SYSTEM_PROMPT = `Answer from the context below.\\n\\n{context}`;\n\n'


@pytest.mark.parametrize("joined", ["${this.prefix}${text}", "${prefix}\\n${text}", "${text}"])
def test_values_put_together_bare_are_no_source_outside_a_context_function(joined):
    source = PROMPT_BESIDE + f"function applyPrefix(texts) {{\n  return texts.map((text) => `{joined}`);\n}}\n"
    assert [t.loop for t in templates_in(source) if t.loop] == []
    # The twin: in a function whose name says it makes the context, the same join is the context's sources.
    context = source.replace("applyPrefix", "formatContext")
    assert len([t for t in templates_in(context) if t.loop]) == 1


@pytest.mark.parametrize("collection", ["this.chatHistory", "history.slice(-10)", "conversationHistory"])
def test_a_callback_over_the_chat_history_renders_turns_not_sources(collection):
    source = PROMPT_BESIDE + f"function transcript() {{\n  return {collection}\n    .map((c) => `@${{c.from}} (${{c.createdAt}}): ${{c.content}}`)\n    .join(\"\\n\");\n}}\n"
    assert [t.loop for t in templates_in(source) if t.loop] == []
    # The twin: the same callback over retrieved documents renders sources.
    documents = source.replace(collection, "retrievedDocuments")
    assert len([t for t in templates_in(documents) if t.loop]) == 1


# A prompt's template literal that renders its collection in place: the field is the slot it fills.
RULES_AFTER = (
    "Rules:\n- Answer in two short paragraphs at most, in the customer's language.\n"
    "- Cite the number of each document you use after each claim.\n"
    "- When the documents do not hold the answer, say that you do not know.\n"
    "- Never promise refunds, exchanges or delivery dates the documents do not state.\n"
)
RENDERED_IN_PLACE = {
    "map on one line": "${NAME.map((d, i) => `[${i + 1}] ${d.title}\\n${d.text}`).join(\"\\n\\n\")}",
    "map over lines": "${params\n  .NAME!.map((d) => {\n    return `${JSON.stringify({ title: d.title, text: d.text })}`;\n  })\n  .join(\",\\n\")}",
    "name alone": "${NAME}",
}


@pytest.mark.parametrize("form", RENDERED_IN_PLACE)
@pytest.mark.parametrize("name", ["retrievedDocs", "contextChunks", "searchResults", "referenceItems", "docs"])
def test_a_collection_rendered_in_place_is_the_context_slot(form, name):
    field = RENDERED_IN_PLACE[form].replace("NAME", name)
    source = f"export function buildPrompt(params, question) {{\n  return `Answer from the documents below.\n\n{field}\n\n{RULES_AFTER}\nQuestion: ${{question}}`;\n}}\n"
    line = 4
    assert [(f.line, f.code) for f in lint_text(source, path="build.ts", config=CONFIG) if f.code == "PL305"] == [(line, "PL305")]
    # The twin: the rules before the documents leave nothing static after them.
    twin = source.replace(RULES_AFTER, "").replace("Answer from the documents below.\n", "Answer from the documents below.\n" + RULES_AFTER)
    assert [f.code for f in lint_text(twin, path="build.ts", config=CONFIG) if f.code == "PL305"] == []


@pytest.mark.parametrize("field", ["${parts}", '${parts.join("\\n\\n")}'])
def test_a_value_under_a_context_label_is_the_context_whatever_its_name(field):
    # A function no name marks maps the documents into `parts`, then returns a prompt that prints them under
    # "Context:": the string is a prompt by that label, and its static rules after the parts cost the cache.
    source = ("export function answer(documents: Doc[], query: string): string {\n"
              "  const parts = documents.map((d) => `[${d.source}, chunk ${d.chunkId}]\\n${d.text}`);\n"
              f"  return `Answer the question from this context.\n\nContext:\n{field}\n\n{RULES_AFTER}\nQuestion: ${{query}}`;\n}}\n")
    found = [(f.line, f.code) for f in lint_text(source, path="answer.ts", config=CONFIG) if f.code in ("PL203", "PL305")]
    assert found == [(2, "PL203"), (6, "PL305")]
    # Under a label that names no context ("Notes:") the code still says it: the string prints the name the documents'
    # text is bound to (see test_sources_printed, where the same text logged is no prompt). The evaluator reads it,
    # so it is reported at the literal's opening, never fixed.
    notes = source.replace("Context:", "Notes:")
    assert [(f.line, f.code, f.fix) for f in lint_text(notes, path="answer.ts", config=CONFIG) if f.code in ("PL203", "PL305")] == [(2, "PL203", None), (3, "PL305", None)]


@pytest.mark.parametrize("name, kind", [("chatHistory", "history"), ("retrievedContext", "context"), ("userQuestion", "question")])
def test_a_camel_case_field_is_read_by_its_words(name, kind):
    from promptlint.readers.segment import SLOT, slot_kind, words

    [template] = templates_in(f"const prompt = `Use what follows.\\n${{{name}}}\\nBe brief and cite your sources.`;\n")
    [slot] = SLOT.finditer(template.text.lower())
    assert slot_kind(slot["name"], words()) == kind


@pytest.mark.parametrize("call", ["showToast", "toast.success", "notify", "enqueueSnackbar", "window.alert", "sendNotification"])
def test_a_notice_shown_to_people_is_no_prompt(call):
    """A UI's message about the files it collected names a context word (`files`) beside words of its own;
    shown by a toast or a notice it is for a person."""
    text = "`${data.files} files collected from ${data.repo}. The documents are in ${data.destination}.`"
    source = f"async function onSubmit(data) {{\n  {call}({text}, \"success\");\n}}\n"
    assert templates_in(source) == []
    # The twin: the same text given to the model as its prompt is read.
    twin = f"async function onSubmit(data) {{\n  const prompt = {text};\n  return model.generate(prompt);\n}}\n"
    assert len(templates_in(twin)) == 1


@pytest.mark.parametrize("grown", [False, True])
@pytest.mark.parametrize("field, code", FIELD_FORMS)
def test_a_local_text_shown_as_a_field_of_the_text_pushed_is_read_as_that_text(field, code, grown):
    """The evaluator Python's code goes through: `let header = \\`...\\``, grown under an `if`, then
    `parts.push(\\`${header}\\n${r.content}\\`)`: the header's field is the source's, found once."""
    growth = "    if (r.url) {\n      header += ` (${r.url})`;\n    }\n" if grown else ""
    source = (
        "function build(results) {\n  const parts = [];\n  for (const r of results) {\n"
        f"    let header = `${{r.title}} | {field.replace('X', 'r')}`;\n{growth}"
        "    parts.push(`${header}\\n${r.content}`);\n  }\n  return parts.join('\\n\\n');\n}\n"
    )
    found = [(f.line, f.code, f.fix) for f in lint_text(source, path="build.ts", config=CONFIG)]
    assert found == [(8 if grown else 5, code, None)]
    assert lint_text(source.replace(f" | {field.replace('X', 'r')}", ""), path="build.ts", config=CONFIG) == []


DESTRUCTURED = '''module.exports = function formatPrompt({ contextChunks = [], question }) {
  const context = contextChunks
    .map((PARAM) => {
      const parts = [
        `- File: ${FILE}`,
        `- Chunk: ${CHUNK}`,
        `- Content: ${TEXT}`,
      ].filter(Boolean);
      return parts.join("\\n");
    })
    .join("\\n\\n---\\n\\n");
  return [{ role: "user", content: `Context:\\n\\n${context}\\n\\nQuestion: ${question}` }];
};
'''


@pytest.mark.parametrize("param, file, chunk, text", [
    ("{ text, file_name, metadata = {} }", "file_name", "metadata.chunk_index", "text"),
    ("{ text: body, file_name: name, metadata }", "name", "metadata.chunk_index", "body"),
    ("c", "c.file_name", "c.metadata.chunk_index", "c.text"),
])
def test_a_callback_s_destructured_item_reads_as_the_item(param, file, chunk, text):
    """`.map(({ text, file_name }) => ...)` renders each item as `.map(c => ... c.text ...)` does (Cognidesk)."""
    module = DESTRUCTURED.replace("PARAM", param).replace("FILE", file).replace("CHUNK", chunk).replace("TEXT", text)
    assert [f.code for f in lint_text(module, path="prompt.js") if f.code == "PL203"] == ["PL203"]


MODULE_TEXT = """const ANSWER_FORMAT = `Answer using this exact format, and keep to it on every answer you give:
Start with a summary of two sentences that answers the question directly.
Then give the evidence as a list, each point citing its source as [Source N].
End with what the sources leave unclear, or say that nothing is unclear.`;

export function buildMessages(question: string, contextText: string) {
  const userContent = `**Question:** ${question}\\n\\n**Retrieved sources:**\\n\\n${contextText}\\n\\n${ANSWER_FORMAT}`;
  return [{ role: "user", content: userContent }];
}
"""


def test_a_module_text_named_in_a_template_literal_is_read_written_in():
    assert _found(MODULE_TEXT) == [(7, 23, "PL305")]
    # The twin: a parameter of the same name is the caller's value, no text of the module's.
    assert _found(MODULE_TEXT.replace("contextText: string)", "contextText: string, ANSWER_FORMAT: string)")) == []


# A local bound to the text a function of the module makes (the Vercel chatbot's request hints), written into
# the system prompt before a module text of static instructions.
HELPER_TEXT = """const TOOLS_GUIDE = `Use the createDocument tool for substantial content of more than ten lines, and for code.
Never update a document right after creating it; wait for the user's feedback before you change it.
Keep answers in chat for explanations, conversation, and when the user asks to keep it in chat.`;

export const getHintsPrompt = (hints: Hints) => `About the origin of the user's request:
- city: ${hints.city}
- country: ${hints.country}
`;

export const systemPrompt = ({ requestHints }: { requestHints: Hints }) => {
  const requestPrompt = getHintsPrompt(requestHints);
  return `You are a friendly assistant.\n\n${requestPrompt}\n\n${TOOLS_GUIDE}`;
};
"""


def test_a_local_bound_to_a_helpers_text_is_read_as_that_text():
    assert _found(HELPER_TEXT) == [(12, 10, "PL305")]
    # The twin: what the helper makes is the deployment's own (no value of the user's or the request's object).
    assert _found(HELPER_TEXT.replace("${hints.city}", "Paris").replace("${hints.country}", "France")) == []


# A callback's block that grows a list of header parts under conditions, then returns the header joined and the text.
PUSHED_HEADER = """export function buildContext(docs: Doc[]): string {
  return docs
    .map((doc: Doc, idx: number) => {
      const headerParts = [`DOCUMENT ${idx + 1}`, `Source: ${doc.metadata.filename}`];
      if (doc.metadata.section) headerParts.push(`Section: ${doc.metadata.section}`);
      if (doc.extra !== undefined) {
        headerParts.push(`FIELD: ${doc.KEY}`);
      }
      const header = `[${headerParts.join(' | ')}]`;
      return `${header}\\n${doc.pageContent}`;
    })
    .join('\\n\\n---\\n\\n');
}
"""


@pytest.mark.parametrize("field, key, code", [("Relevancia", "rerankScore", "PL102"), ("Updated", "updatedAt", "PL201")])
def test_a_header_a_callback_pushes_under_conditions_shows_each_part(field, key, code):
    assert [c for _, _, c in _found(PUSHED_HEADER.replace("FIELD", field).replace("KEY", key))] == [code]
    assert _found(PUSHED_HEADER.replace("FIELD", "Framework").replace("KEY", "framework")) == []


LOCAL_TEXT = """export function systemPrompt(mode: string, context: string): string {
  const baseContext = "You are a helpful language assistant. You have some dictionary entries that may be relevant to the user's question.";
  BODY
}
"""
RULES = "Your task is to translate accurately. Use the dictionary context when available, but supplement it with your broader knowledge of the language when it is insufficient. Give cultural nuances and alternatives."


@pytest.mark.parametrize(
    "body",
    [
        "return `${baseContext} " + RULES + "`;",
        "if (mode === 'translation') {\n    return `${baseContext} " + RULES + "`;\n  }\n  return baseContext;",
        "switch (mode) {\n    case 'translation':\n      return `${baseContext} " + RULES + "`;\n    default:\n      return baseContext;\n  }",
    ],
)
def test_a_local_bound_to_a_literal_is_static_text_where_a_template_prints_it(body):
    # The function's own text is read written in, in whatever branch prints it; a parameter stays the request's.
    source = LOCAL_TEXT.replace("BODY", body)
    assert lint_text(source, path="prompt.ts") == []
    live = source.replace("${baseContext}", "${context}")
    assert [f.code for f in lint_text(live, path="prompt.ts")] == ["PL305"]


def test_json_stringify_of_the_list_a_helper_maps_is_the_json_the_model_reads():
    source = (
        "function formatContext(chunks: Chunk[]): string {\n"
        "  return `Here are the relevant documents:\\n<context>\\n${JSON.stringify(toItems(chunks))}\\n</context>`;\n"
        "}\n\n"
        "export function toItems(chunks: Chunk[]) {\n"
        "  return chunks.map((c) => ({ title: c.title, similarity: c.similarity, content: c.content }));\n"
        "}\n"
    )
    assert [code for _, _, code in _found(source)] == ["PL102"]


BUILT_RECORD = """export function resultsForModel(chunks: Chunk[]): string {
  const results = [];
  for (const chunk of chunks) {
    const result: Record<string, unknown> = { title: chunk.title, content: chunk.content };
    if (chunk.updatedAt) {
      result.updated_at = chunk.updatedAt.toISOString();
    }
    results.push(result);
  }
  const payload = { results };
  return JSON.stringify(payload, null, 2);
}
"""


def test_a_record_given_keys_one_by_one_and_stringified_in_a_payload_is_the_json_the_model_reads():
    assert [(line, code) for line, _, code in _found(BUILT_RECORD)] == [(4, "PL201")]
    # The twin: the date given to another object than the record has no place in the JSON.
    assert _found(BUILT_RECORD.replace("result.updated_at =", "log.updated_at =")) == []


def test_a_stray_replacement_character_in_a_name_is_read_not_a_crash():
    # A byte garbled in transit before `messages.push(` (found by fuzzing): the name is odd, the file is still read.
    source = ("export function build(history: Msg[], question: string, context: string) {\n  const messages = [];\n"
              "  messages.push({ role: 'system', content: `Answer from the context.\\n${context}` });\n"
              "  \ufffdmessages.push(...history);\n  messages.push({ role: 'user', content: question });\n  return messages;\n}\n")
    assert _found(source) == _found(source.replace("\ufffd", ""))
