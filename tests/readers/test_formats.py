"""The format table: every suffix reaches its reader, and what derives from the table agrees with it."""

from __future__ import annotations

import json

import pytest
import yaml

from promptlint.engine import files, lint
from promptlint.engine.config import FILE_TYPES, build
from promptlint.readers import document
from promptlint.readers.sourcemap import Verbatim
from promptlint.readers.formats import ANYWHERE, DEFAULT_INCLUDE, FORMATS, IN_PROMPT_FOLDERS, for_suffix

CASES = [(f, suffix) for f in FORMATS for suffix in f.suffixes]


@pytest.mark.parametrize(("fmt", "suffix"), CASES, ids=[s for _, s in CASES])
def test_each_suffix_reads_as_its_format(fmt, suffix):
    assert for_suffix(suffix) is fmt
    assert f"*{suffix}" in ANYWHERE + IN_PROMPT_FOLDERS
    assert files.DEFAULT_INCLUDE == DEFAULT_INCLUDE


@pytest.mark.parametrize("suffix", [".hbs", ".tmpl", "", ".TXT"])
def test_other_suffixes_read_as_text(suffix):
    assert for_suffix(suffix).name == "text"


def test_file_types_are_the_formats():
    assert FILE_TYPES == {"text": ".txt", "jinja": ".j2", "json": ".json", "jsonl": ".jsonl", "prompty": ".prompty", "python": ".py", "javascript": ".ts", "yaml": ".yaml", "notebook": ".ipynb"}


# One prompt file per format, with what its reader makes of it: (kind, syntax of each prompt).
READ = {
    "text": ("Answer from the sources.\n", "text", ["text"]),
    "jinja": ("{{ question }}\n", "text", ["jinja"]),
    "json": ('{"messages": [{"role": "user", "content": "Hi"}]}', "json", ["text"]),
    "jsonl": ('{"prompt": "Hi"}\n{"prompt": "Bye"}\n', "jsonl", ["text", "text"]),
    "prompty": ("---\nname: qa\n---\n{{ question }}\n", "text", ["jinja"]),
    "python": ('PROMPT = "Context: {context}\\nQuestion: {question}"\n', "python", ["text"]),
    "javascript": ("const QA_PROMPT = `Context: ${context}\\nQuestion: ${question}`;\n", "javascript", ["text"]),
    "yaml": ("template: 'Answer: {question}'\n", "yaml", ["text"]),
    "notebook": ('{"cells": [{"cell_type": "code", "source": ["PROMPT = \\"Context: {context}\\\\nQuestion: {question}\\"\\n"]}]}', "json", ["text"]),
}


@pytest.mark.parametrize("name", [f.name for f in FORMATS])
def test_file_types_pick_the_reader(tmp_path, name):
    raw, kind, syntaxes = READ[name]
    config = build({"file-types": {"*.data": name}}, "test", tmp_path)
    doc = document.parse_text(raw, "p.data", config.suffix_for(tmp_path / "p.data"))
    assert (doc.kind, [p.syntax for p in doc.prompts], doc.errors) == (kind, syntaxes, ())


CHAT_TEMPLATE = "{{ '<|system|>Answer from the documents.' }}{% for doc in documents %}{{ doc['text'] }}{% endfor %}{% for m in messages %}{{ m['role'] + m['content'] }}{% endfor %}"


@pytest.mark.parametrize("name", ["tokenizer_config.json", "chat_template.json"])
def test_a_hugging_face_config_is_taken_anywhere_by_its_name(tmp_path, name):
    (tmp_path / "models" / "granite").mkdir(parents=True)
    (tmp_path / "models" / "granite" / name).write_text('{"chat_template": "x"}', encoding="utf-8")
    (tmp_path / "models" / "granite" / "config.json").write_text("{}", encoding="utf-8")
    assert [p.name for p in files.expand([tmp_path])] == [name]


@pytest.mark.parametrize(
    "body",
    [
        {"bos_token": "<s>", "chat_template": CHAT_TEMPLATE},
        {"chat_template": [{"name": "default", "template": CHAT_TEMPLATE}, {"name": "rag", "template": CHAT_TEMPLATE}]},
    ],
)
def test_a_configs_chat_templates_are_jinja_prompts_mapped_through_their_escapes(body):
    raw = json.dumps(body, indent=2)
    literal = json.dumps(CHAT_TEMPLATE)
    starts = [i for i in range(len(raw)) if raw.startswith(literal, i)]
    doc = document.parse_text(raw, "tokenizer_config.json", ".json")
    assert [(p.syntax, p.text, p.writable) for p in doc.prompts] == [("jinja", CHAT_TEMPLATE, True)] * len(starts)
    # The template's last character, past every escape before it, is placed where it is written.
    last = len(CHAT_TEMPLATE) - 1
    for prompt, start in zip(doc.prompts, starts):
        written = start + len(literal) - 1 - len(json.dumps(CHAT_TEMPLATE[last])[1:-1])
        assert doc.locate(prompt, last) == (raw.count("\n", 0, written) + 1, written - raw.rfind("\n", 0, written))


@pytest.mark.parametrize("raw", ['{"bos_token": "<s>", "model_max_length": 4096}', '{"chat_template": null}', '{"chat_template": 7}'])
def test_a_config_without_a_chat_template_holds_no_prompt(raw):
    assert not document.parse_text(raw, "tokenizer_config.json", ".json").holds_prompt


def test_a_chat_template_that_does_not_parse_is_pl900_at_its_string():
    raw = '{\n  "chat_template": "{% for m in messages %}{{ m.content }}"\n}'
    [error] = document.parse_text(raw, "tokenizer_config.json", ".json").errors
    assert (error.code, error.line, error.column) == ("PL900", 2, 20)
    assert error.message.startswith("invalid Jinja in chat_template: ")


# ---- Go-templated manifests (Helm charts) are no prompts ----

# The ways a Helm chart's templates open an action, each on a manifest that is YAML only once rendered.
GO_ACTIONS = (
    "{{- if .Values.ingress.enabled -}}",
    "{{ if .Values.enabled }}",
    "{{- $fullName := include \"chart.fullname\" . -}}",
    "{{- with .Values.nodeSelector }}",
    "{{- range $key, $value := .Values.env }}",
    "{{- toYaml .Values.resources | nindent 12 }}",
    "{{- template \"chart.labels\" . }}",
    "{{- if and .Values.a (not .Values.b) }}",
)
MANIFEST = "{action}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{{{ .Release.Name }}}}-config\n  labels:\n    {{{{- include \"chart.labels\" . | nindent 4 }}}}\ndata:\n  key: value\n{{{{- end }}}}\n"


@pytest.mark.parametrize("action", GO_ACTIONS)
@pytest.mark.parametrize("name", ["templates/deployment.yaml", "helm/templates/env.yml", "deploy/chart/templates/tests/test-connection.yaml"])
def test_a_go_templated_manifest_holds_no_prompt_and_no_syntax_error(action, name):
    raw = MANIFEST.format(action=action)
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(raw)  # the case reaches the reader's parse error: YAML only once rendered
    doc = document.parse_text(raw, name, "." + name.rsplit(".", 1)[1])
    assert (doc.errors, doc.holds_prompt) == ((), False)


@pytest.mark.parametrize(
    "raw",
    [
        "template: Answer from {{ context }}\ninput_variables: [context\n",  # a prompt file with Jinja slots, broken
        "messages:\n  - role: system\n    content: 'Use the sources.\n",  # an unclosed quote
        "{{ context }}\n- item\nkey: value\n",  # Jinja's slots are no Go actions
    ],
)
def test_broken_yaml_without_go_actions_is_still_pl900(raw):
    [error] = document.parse_text(raw, "templates/qa.yaml", ".yaml").errors
    assert error.code == "PL900" and error.message.startswith("invalid YAML: ")


# ---- fixes written back into YAML scalars ----

YAML_CONFIG = build({"select": ["PL102"], "today": "2026-12-02"}, "test")

YAML_SOURCES = "Answer from the sources below.\n\n[1] Returns Policy (score: 0.91)\nDamaged goods may be returned within 30 days.\n\n[2] Shipping FAQ (score: 0.42)\nStandard delivery takes 3-5 working days.\n\nQuestion: {question}\n"


def _block(header: str, text: str, indent: int) -> str:
    return header + "".join(f"{' ' * indent}{line}\n" if line else "\n" for line in text.splitlines())


@pytest.mark.parametrize("indent", [2, 4])
@pytest.mark.parametrize("chomping", ["|", "|-", "|+"])
def test_a_fix_in_a_literal_block_is_written_with_the_blocks_indentation(indent, chomping):
    raw = _block(f"_type: prompt\ninput_variables: [question]\ntemplate: {chomping}\n", YAML_SOURCES, indent) + "template_format: f-string\n"
    fixed = lint.fix_text(raw, path="qa.yaml", config=YAML_CONFIG)
    before, after = yaml.safe_load(raw), yaml.safe_load(fixed)
    assert after == {**before, "template": before["template"].replace(" (score: 0.91)", "").replace(" (score: 0.42)", "")}
    assert fixed == raw.replace(" (score: 0.91)", "").replace(" (score: 0.42)", "")
    assert lint.fix_text(fixed, path="qa.yaml", config=YAML_CONFIG) == fixed


@pytest.mark.parametrize(
    "raw",
    [
        # Folded: the text's line breaks are not the file's.
        _block("template: >\n", YAML_SOURCES.replace("\n", "\n\n"), 2),
        # Double-quoted with escapes: the text is not written as it reads.
        "template: " + json.dumps(YAML_SOURCES) + "\n",
    ],
    ids=["folded", "escaped"],
)
def test_a_yaml_value_not_written_as_it_reads_is_reported_not_fixed(raw):
    found = lint.lint_text(raw, path="qa.yaml", config=YAML_CONFIG)
    assert [f.code for f in found] == ["PL102", "PL102"] and all(f.fix is None for f in found)
    assert lint.fix_text(raw, path="qa.yaml", config=YAML_CONFIG) == raw


def test_a_quoted_one_line_value_is_fixed_in_its_quotes():
    raw = "messages:\n  - role: user\n    content: '[1] {{title}} (score: {{score}}) and [2] {{other}} (score: {{other_score}})'\n"
    fixed = lint.fix_text(raw, path="support.prompt.yml", config=YAML_CONFIG)
    assert yaml.safe_load(fixed) == {"messages": [{"role": "user", "content": "[1] {{title}} and [2] {{other}}"}]}


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        # A first line indented further would change the block's indentation.
        ("template: |\n  Answer.\n  Question: {q}\nname: qa\n", "  Answer.\nQuestion: {q}\n"),
        # A plain value cannot take ": " (it would read as a mapping).
        ("template: Answer from {context}\nname: qa\n", "Answer: from {context}"),
        # The block's last line break cannot be dropped under clip chomping.
        ("template: |\n  Answer.\n  Question: {q}\nname: qa\n", "Answer.\nQuestion: {q}"),
    ],
)
def test_a_text_that_would_not_read_back_exactly_is_not_written(raw, text):
    doc = document.parse_text(raw, "qa.yaml", ".yaml")
    assert not doc.writes_back(0, text)


def test_a_prompty_files_front_matter_is_kept_by_a_fix():
    head = '---\nname: Support\ndescription: "Answers: from docs"\nmodel:\n  api: chat\n---\n'
    body = "system:\nAnswer from the sources.\n{% for doc in documents %}\n[{{ loop.index }}] {{ doc.title }} (score: {{ doc.score }})\n{{ doc.content }}\n{% endfor %}\n\nuser:\n{{ question }}\n"
    fixed = lint.fix_text(head + body, path="support.prompty", config=YAML_CONFIG)
    assert fixed == head + body.replace(" (score: {{ doc.score }})", "")


PAGE = """# Support answer prompt

Tuned in March; the last version added a rule about citations, because answers
without them were hard to audit. Keep it short: long prompts cost on every request.

```{info}
Answer using only the documents below.

[1] Returns Policy (relevance: 0.91)
Damaged goods may be returned within 30 days.

[2] Shipping FAQ (relevance: 0.72)
Standard delivery takes 3 to 5 days.

Question: {{question}}
```

## Rationale

We tried putting the instructions after the documents, but caching got worse.
Every change is reviewed by the legal team before it ships to production.
"""


@pytest.mark.parametrize("info", ["", "text", "jinja"])
def test_a_markdown_page_that_documents_a_prompt_is_read_as_its_fenced_prompt(info):
    from promptlint.engine.config import build
    from promptlint.engine.lint import fix_text, lint_text

    config = build({"today": "2026-12-02"}, "test")
    page = PAGE.format(info=info)
    found = [(f.line, f.column, f.code) for f in lint_text(page, path="prompt.md", config=config)]
    assert found == [(9, 32, "PL102"), (12, 30, "PL102")]
    fixed = fix_text(page, path="prompt.md", config=config)
    assert fixed == page.replace(" (relevance: 0.91)", "").replace(" (relevance: 0.72)", "")


def test_a_page_whose_prose_is_the_prompt_is_read_whole():
    from promptlint.readers.document import parse_text

    page = "Answer from the context below.\n\n{context}\n\nQuestion: {question}\n\nExample output:\n```json\n{\"answer\": \"...\"}\n```\n"
    (prompt,) = parse_text(page, "prompt.md", ".md").prompts
    assert prompt.source == Verbatim(0, len(page)) and prompt.texts == (page,)  # the whole page


@pytest.mark.parametrize("marks", ["#", "# "])
def test_a_templates_comment_header_is_no_part_of_its_prompt(marks):
    from promptlint.readers.document import parse_text

    header = f"# Prompt for the answer command\n# Placeholders:\n#   {{{{QUERY}}}} - the user's query\n{marks.rstrip()}\n# Do not remove the placeholders.\n\n"
    body = "You answer from the context.\n\n<context>\n{{CHUNKS}}\n</context>\n\nQuestion: {{QUERY}}\n"
    (prompt,) = parse_text(header + body, "answer_prompt.txt", ".txt").prompts
    # The prompt starts at the blank line that ends the header.
    assert prompt.texts == ("\n" + body,) and prompt.source == Verbatim(len(header) - 1, len(header + body))


@pytest.mark.parametrize("banner", ["", "PROMPT LOG\n==========\n\nENTRY 1:\n"])
def test_a_log_records_header_is_no_part_of_the_prompt_it_logged(banner):
    """A debug log writes the record's fields, then "Prompt:" and the prompt: the fields were logged, not sent."""
    from promptlint.readers.document import parse_text

    header = f"{banner}Timestamp: 2025-11-25T02:00:56\nQuery: What are the requirements?\nStrategy: cot\nPrompt:\n"
    body = "Answer from the context.\n\nContext:\nThe handbook lists the requirements.\n\nQuestion: What are the requirements?\n"
    (prompt,) = parse_text(header + body, "log.txt", ".txt").prompts
    assert prompt.texts == (body,) and prompt.source == Verbatim(len(header), len(header + body))
    # Its twin, a prompt whose first lines are prose, is read whole.
    prose = "You answer questions about the handbook.\nTimestamp: {now}\nQuery: {query}\nPrompt:\n" + body
    assert parse_text(prose, "p.txt", ".txt").prompts[0].texts == (prose,)


BANNERS = ["=" * 40 + "\n[2026-03-11T14:29:42.238891] GENERATE\n" + "=" * 40 + "\n", "-" * 20 + "\nCALL 3\n" + "-" * 20 + "\n"]


@pytest.mark.parametrize("label", ["PROMPT:", "Prompt:", "Full prompt:"])
@pytest.mark.parametrize("banner", BANNERS)
@pytest.mark.parametrize("response", ["RESPONSE:", "Model output:", "COMPLETION:"])
def test_a_logged_record_under_a_banner_is_its_prompt_up_to_the_response(banner, label, response):
    """A log of a model call writes a banner over the record, the prompt under a label, and the model's
    response under another (blind53a anthcon): the prompt is what stands between, not the banner, nor the
    response, which was not sent."""
    from promptlint.readers.document import parse_text

    header = f"{banner}{label}\n"
    body = "Answer from the excerpts.\n\n--- CONTEXT ---\nNet sales rose in the quarter.\n--- END CONTEXT ---\n\nQUESTION: how are sales?\n\n"
    raw = header + body + f"{response}\n# Sales\n- Net sales rose.\n"
    (prompt,) = parse_text(raw, "llm_log.txt", ".txt").prompts
    assert prompt.texts == (body,) and prompt.source == Verbatim(len(header), len(header + body))
    # The twin with no response logged: the prompt runs to the end; and a prompt's own answer cue is its own.
    assert parse_text(header + body, "llm_log.txt", ".txt").prompts[0].texts == (body,)
    cued = header + body + "Answer:\nSales rose.\n"
    assert parse_text(cued, "llm_log.txt", ".txt").prompts[0].texts == (cued[len(header):],)


@pytest.mark.parametrize("head", ["# Instructions\n# Answer\n# Notes\n\n", "# Role\n#\n\n", "# Role\n#\n# Task\nAnswer.\n\n"])
def test_markdown_headings_are_part_of_the_prompt(head):
    from promptlint.readers.document import parse_text

    raw = head + "Answer from {context}.\nQuestion: {question}\n"
    (prompt,) = parse_text(raw, "p.txt", ".txt").prompts
    assert prompt.source == Verbatim(0, len(raw)) and prompt.texts == (raw,)  # the whole file


QA = "Use the context to answer.\n\n{context}\n\nQuestion: {question}\n"


@pytest.mark.parametrize("cue", ["Helpful Answer:", "Answer:", "Final answer:", "Standalone question:", "SQL Query:", "RESPONSE:"])
@pytest.mark.parametrize("second", ["### CHAT PROMPT\n[system]\nAnswer from:\n{context}\n[human]\n{question}\n", QA])
def test_templates_written_one_after_another_are_separate_prompts(cue, second):
    """A completion prompt ends on the line the model answers after: what follows it past a
    blank line is another prompt, so its question is no repeat and its text no late instruction."""
    from promptlint.engine.lint import lint_text
    from promptlint.readers.document import parse_text

    raw = f"{QA}{cue}\n\n{second}"
    prompts = parse_text(raw, "prompts.txt", ".txt").prompts
    assert [p.source for p in prompts] == [Verbatim(0, len(QA) + len(cue) + 2), Verbatim(len(QA) + len(cue) + 2, len(raw))]
    assert [f.code for f in lint_text(raw, path="prompts.txt", config=build({}, "test"))] == []


@pytest.mark.parametrize(
    "after",
    [
        "Refunds take a week from the day the goods arrive.\n",  # the answer, written out after its prompt
        "Remember: {question}\n".replace("{question}", "cite the sources"),
    ],
)
def test_text_after_the_answer_cue_without_a_slot_stays_in_the_prompt(after):
    from promptlint.readers.document import parse_text

    raw = f"{QA}Answer:\n\n{after}"
    (prompt,) = parse_text(raw, "prompt.txt", ".txt").prompts
    assert prompt.source == Verbatim(0, len(raw))  # the whole file


def test_an_answer_cue_with_no_blank_line_after_it_ends_no_prompt():
    from promptlint.readers.document import parse_text

    raw = f"{QA}Answer:\n- cite the sources\n- be brief\n\n{QA}"
    assert len(parse_text(raw, "prompt.txt", ".txt").prompts) == 1


QUOTED_PAGE = """# Guardrail experiment

Embed model: MiniLM

Prompt: {open}
Answer using only the documents below. Be concise.

### Context:
{{context}}

### Question:
{{question}}
{close}

Result: see images/run_1.png

Conclusion: the output was not good enough, the context window overflowed and we will retry with a smaller model.
"""


@pytest.mark.parametrize(("open_", "close"), [('"""', '"""'), ("'''", "'''"), ('"""  ', '  """')])
def test_a_prompt_quoted_in_triple_quotes_on_a_markdown_page_is_that_block(open_, close):
    from promptlint.readers.document import parse_text

    page = QUOTED_PAGE.format(open=open_, close=close)
    [prompt] = parse_text(page, "README.md", ".md").prompts
    assert prompt.text.startswith("Answer using only") and prompt.text.endswith("{question}")


@pytest.mark.parametrize("info", ["", "text", "python", "Python", "py title=prompts.py"])
def test_quotes_inside_a_fenced_block_belong_to_that_block_and_a_program_writes_its_string(info):
    from promptlint.readers.document import parse_text

    code = 'PROMPT = """\nAnswer from {context}.\nQuestion: {question}\n"""\n\ncontext = ""\nfor doc in docs:\n    context += f"{doc}\\n"\n'
    page = f"Notes on the prompt.\n\n```{info}\n{code}```\n\nMore notes follow here.\n"
    [prompt] = parse_text(page, "README.md", ".md").prompts
    # In a block of program code, the prompt is the string the code writes, not the code around it.
    written = info.lower().startswith(("python", "py "))
    assert prompt.text == ("Answer from {context}.\nQuestion: {question}" if written else code)


# A notebook converted to Markdown prints a cell's output as an indented block: a logged prompt among the prose.
NOTEBOOK_PAGE = """# Evaluation

We run the chain on the first example and print what the model was sent.

```python
qa.run(examples[0]["query"])
```

{indent}System: Use the following pieces of context to answer the question.
{indent}----------------
{indent}[1] Returns policy (relevance: 0.91)
{indent}Damaged goods may be returned within 30 days.
{indent}
{indent}[2] Shipping FAQ (relevance: 0.72)
{indent}Standard delivery takes 3 to 5 days.
{indent}Human: How long does delivery take?

The answer was right. Now we check every example: make a list of the questions, run the chain on each,
then grade each answer against its reference. Always use a separate model for grading, never the same one.
Write the grades to a file and compare the runs. Keep the examples short, and review the failures by hand.
"""


@pytest.mark.parametrize("indent", ["    ", "\t"])
def test_an_indented_block_on_a_markdown_page_is_a_block_of_its_own(indent):
    from promptlint.engine.config import build
    from promptlint.engine.lint import lint_text
    from promptlint.readers.document import parse_text

    page = NOTEBOOK_PAGE.format(indent=indent)
    [prompt] = parse_text(page, "notes.md", ".md").prompts
    assert prompt.text.startswith(indent + "System: Use") and prompt.text.endswith("delivery take?\n")
    # The prose after the logged prompt is no instruction of it: only the scores are reported.
    config = build({"today": "2026-12-06"}, "test")
    assert [(f.line, f.code) for f in lint_text(page, path="notes.md", config=config)] == [(11, "PL102"), (14, "PL102")]


def test_indented_lines_of_a_paragraph_or_a_fence_are_no_block():
    from promptlint.readers.document import parse_text

    page = "Notes.\n\n```python\ndef f():\n\n    return PROMPT\n```\n\nAnswer from {context}.\n    Question: {question}\n"
    [prompt] = parse_text(page, "notes.md", ".md").prompts
    assert prompt.text == page  # the whole page: the fence holds no prompt, and the indented line continues a paragraph


FRONT_MATTER = "---\nname: synthesis\nversion: v3\ndate: 2026-05-03\nnotes: |\n  Replaces v2.\n---\n"
BODY = "You summarise notes.\n\nRULES:\n- Cite every note you use.\n- Say when two notes disagree.\n- Never invent a name or a date.\n- Answer in the user's language.\n\nCONTEXT:\n{context}\n\nQUESTION: {question}\n"


@pytest.mark.parametrize("suffix", [".txt", ".md"])
def test_a_prompt_file_s_front_matter_is_no_part_of_the_prompt(suffix):
    """`date: 2026-05-03` in the front matter dates the file, not the request (rag-obsidian's prompt files)."""
    assert [f.code for f in lint.lint_text(FRONT_MATTER + BODY, path="synthesis" + suffix) if f.code == "PL305"] == []
    # The twin: the same date line in the prompt's own text is a timestamp before the rules.
    assert [f.code for f in lint.lint_text("Today is 2026-05-03.\n" + BODY, path="synthesis" + suffix) if f.code == "PL305"] == ["PL305"]


# A YAML mapping whose values are prompts as they were rendered (a test snapshot: `openbook: |-` over a chat-templated
# prompt with its search results written out), under keys that name no prompt (blind53b galsarid21).
RENDERED_SOURCES = "".join(f"Document [{n}](Title: {title}) {text}\n" for n, (title, text) in enumerate([
    ("Nobel Prize in Physics", "The prize is awarded yearly by the Royal Swedish Academy of Sciences. It is one of the five prizes "
                               "established by the will of Alfred Nobel in 1895, and it has been awarded since 1901 to physicists."),
    ("Wilhelm Röntgen", "Röntgen received the first prize in 1901 for the discovery of X-rays. He gave the prize money to his "
                        "university, and he refused to patent the discovery so that everyone could use it freely."),
    ("Nobel Prize in Physics", "Each laureate receives a diploma, a medal and a document on the prize amount. The amount has "
                               "changed over the years, and it is announced each autumn before the ceremony in Stockholm.")], start=1))
RENDERED = f"Write an answer using only the provided search results.\nSearch Results:\n{RENDERED_SOURCES}Question: who won the first physics prize?\nAnswer:"


@pytest.mark.parametrize("key", ["openbook", "case_3", "expected"])
def test_a_yaml_value_that_is_a_rendered_prompt_with_its_sources_is_read(key):
    from promptlint.readers.document import parse_text

    raw = f"{key}: |-\n" + "".join(f"  {line}\n" for line in RENDERED.split("\n")) + "closedbook: none\n"
    (prompt,) = parse_text(raw, "snapshot.yaml", ".yaml").prompts
    assert prompt.texts == (RENDERED,)
    assert [f.code for f in lint.lint_text(raw, path="snapshot.yaml", config=build({"select": ["PL301"]}, "test"))] == ["PL301"]
    # The twins: a long description with no sources, and a rendered prompt with one source, are no prompts here.
    description = "A long note on the dataset.\n" * 12
    assert parse_text(f"{key}: |-\n" + "".join(f"  {line}\n" for line in description.split("\n")), "s.yaml", ".yaml").prompts == ()
    one = RENDERED.replace(RENDERED_SOURCES, RENDERED_SOURCES.split("\n")[0] + "\n")
    assert parse_text(f"{key}: |-\n" + "".join(f"  {line}\n" for line in one.split("\n")), "s.yaml", ".yaml").prompts == ()


def test_lines_of_spaces_alone_are_no_indented_block():
    """A run of lines that hold only spaces is blank, not code: no block, and read in one pass (a pattern that could
    read such a line as either took twice as long for each one more)."""
    from promptlint.readers.textfile import _INDENTED

    page = "Notes.\n\n" + "      \n" * 40 + "Answer from {context}.\nQuestion: {question}\n"
    assert list(_INDENTED.finditer(page)) == []
    assert [m["body"] for m in _INDENTED.finditer("Notes.\n\n    code\n      \n\n    more\n      \nprose\n")] == ["    code\n      \n\n    more\n"]


def test_the_code_around_a_prompt_in_a_block_of_code_is_no_instruction_after_it():
    from promptlint.engine.config import build
    from promptlint.engine.lint import lint_text

    config = build({"today": "2026-12-02"}, "test")
    template = 'prompt_template = """\nAnswer the QUESTION from the CONTEXT only.\n\nQUESTION: {question}\n\nCONTEXT:\n{context}\nTAIL""".strip()\n'
    code = '\ncontext = ""\nfor doc in search_results:\n    context = context + f"Q:{doc[\'question\']}\\nA:{doc[\'text\']}\\n\\n"\nprompt = prompt_template.format(question=query, context=context)\n'
    page = "# Homework\n\n```python\n" + template.replace("TAIL", "") + code + "```\n\nThe answer was good.\n"
    assert [f.code for f in lint_text(page, path="homework.md", config=config) if f.code == "PL305"] == []
    # The twin: instructions written inside the string after the context are static text after it.
    rules = "Use only facts from the CONTEXT.\nCite the FAQ entry you used for each claim.\nIf the CONTEXT has no answer, say NONE.\n"
    twin = "# Homework\n\n```python\n" + template.replace("TAIL", "\n" + rules) + code + "```\n\nThe answer was good.\n"
    assert [f.code for f in lint_text(twin, path="homework.md", config=config) if f.code == "PL305"] == ["PL305"]
