"""Where applications build their context in code: a per-document helper joined by its caller, a tool
that returns its documents as dicts, and slots that print the source system (PL202)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.model.findings import Applicability
from promptlint.readers.pysource import templates_in

CONFIG = build({"today": "2026-12-02"}, "test")

# A per-document helper; X is its item, LABEL/FIELD the metadata line it adds, CONTENT the chunk's key.
HELPERS = {
    "added with +=": 'def render_one(X):\n    s = f"Title: {X.title}\\n"\n    s += f"LABEL: {X.FIELD}\\n"\n    s += X.CONTENT\n    return s\n',
    "appended then joined": 'def render_one(X):\n    parts = [f"Title: {X.title}"]\n    parts.append(f"LABEL: {X.FIELD}")\n    parts.append(X.CONTENT)\n    return "\\n".join(parts)\n',
    "an f-string per field": 'def render_one(X):\n    head = f"Title: {X.title}"\n    line = f"LABEL: {X.FIELD}"\n    return f"{head}\\n{line}\\n{X.CONTENT}"\n',
    "a method of a class": 'class Hit:\n    def render_one(self):\n        s = f"Title: {self.title}\\n"\n        s += f"LABEL: {self.FIELD}\\n"\n        return s + self.CONTENT\n',
}
# How the caller calls it once per item (CALL: the call for item X).
CALLERS = {
    "comprehension joined": 'def build_context(docs):\n    return "\\n\\n".join(CALL for X in docs)\n',
    "appended in a loop": 'def build_context(docs):\n    out = []\n    for X in docs:\n        out.append(CALL)\n    return "\\n\\n".join(out)\n',
    "mapped": 'def build_context(docs):\n    return "\\n\\n".join(map(lambda X: CALL, docs))\n',
}
# Field names no example of the lexicon holds, and the rule each fires.
FIELDS = [("knn_similarity", "PL102"), ("crawled_on", "PL201"), ("ingest_platform", "PL202"), ("origin_system", "PL202")]
CONTENTS = ["page_content", "passage", "body"]


def _findings(source: str, path: str = "build.py") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_text(source, path=path, config=CONFIG)]


def _helper_built(helper: str, caller: str, field: str, content: str, item: str = "hit") -> str:
    method = helper == "a method of a class"
    call = f"{item}.render_one()" if method else f"render_one({item})"
    text = HELPERS[helper].replace("FIELD", field).replace("CONTENT", content).replace("LABEL", "Info")
    return text.replace("X", "self" if method else item) + "\n\n" + CALLERS[caller].replace("CALL", call).replace("X", item)


@pytest.mark.parametrize("helper", HELPERS)
@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("field, code", FIELDS)
@pytest.mark.parametrize("content", CONTENTS)
def test_a_helper_built_source_is_read_as_the_callers_loop_body(helper, caller, field, code, content):
    source = _helper_built(helper, caller, field, content)
    # Reported where the helper's text starts: its first literal, the title line.
    first = next(i for i, line in enumerate(source.split("\n"), 1) if "Title: {" in line)
    assert _findings(source) == [(first, code)]


@pytest.mark.parametrize("helper", HELPERS)
@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("content", CONTENTS)
def test_the_clean_twin_of_a_helper_built_source_is_clean(helper, caller, content):
    """The same source with a field no rule reports: read (it is a prompt) and clean."""
    source = _helper_built(helper, caller, "department", content)
    assert lint_text(source, path="build.py", config=CONFIG) == []
    from promptlint.readers.pysource import templates_in

    texts = [t.text for t in templates_in(source) if t.loop is not None]
    assert len(texts) == 1 and "Info: {" in texts[0] and "Title: {" in texts[0]


def test_a_helper_called_for_something_else_is_not_a_source():
    """A helper that renders no content of its item, joined: a list of labels, not sources."""
    source = 'def label(u):\n    s = f"Name: {u.name}\\n"\n    s += f"Role: {u.role}"\n    return s\n\n\ndef roster(users):\n    return "\\n".join(label(u) for u in users)\n'
    assert _findings(source) == []


def test_a_loop_body_that_grows_one_entry_is_read_in_order():
    """`entry = ...; entry += ...; parts.append(entry)`: one source, its pieces in the order written."""
    from promptlint.readers.pysource import templates_in

    source = (
        "class Results:\n    def render(self):\n        parts = []\n        for hit in self.content:\n"
        '            entry = f"{hit.title}\\n"\n            entry += f"Relevance: {hit.relevance}\\n"\n'
        '            entry += f"Content: {hit.body}\\n"\n            parts.append(entry)\n        return "\\n".join(parts)\n'
    )
    assert [t.text for t in templates_in(source)] == ["{hit.title}\nRelevance: {hit.relevance}\nContent: {hit.body}\n"]
    assert _findings(source) == [(6, "PL102")]  # where its piece is written


# ---------------------------------------------------------------- dicts a tool returns

TOOL_FORMS = {
    "dumped comprehension": "import json\n\n\ndef lookup(query, docs):\n    return json.dumps([DICT for X in docs])\n",
    "appended then dumped": "import json\n\n\ndef lookup(query, docs):\n    results = []\n    for X in docs:\n        results.append(DICT)\n    return json.dumps(results)\n",
    "returned by a tool": "@tool\ndef lookup(query):\n    return [DICT for X in index.search(query)]\n",
    "in a payload a tool returns": '@tool\ndef lookup(query):\n    return {"query": query, "results": [DICT for X in index.search(query)]}\n',
    # A tool made by a call, its function among the options (the Vercel AI SDK's `tool({execute})`, blind71 uanandaraja).
    "made by a call": 'lookup = tool(description="Search the notes.", execute=lambda query: {"results": [DICT for X in index.search(query)]})\n',
    "in a tool message": 'def answer(query, docs):\n    results = [DICT for X in docs]\n    return [{"role": "tool", "content": results}]\n',
    "made by a helper": "import json\n\n\ndef _entry(X):\n    return DICT\n\n\ndef lookup(query, docs):\n    return json.dumps([_entry(X) for X in docs])\n",
    # The payload of a request written as one literal (blind74 OliverTai688, in TypeScript): the list is one value.
    "in a dumped payload": 'import json\n\n\ndef lookup(query, docs):\n    return json.dumps({"question": query, "sources": [DICT for X in docs]})\n',
    # A name assigned the list a function of the file returns, then dumped into the prompt (blind71 cssaritama).
    "assigned from a helper": 'import json\n\n\ndef _items(docs):\n    return [DICT for X in docs]\n\n\ndef prompt(query, docs):\n    found = _items(docs)\n'
                              '    return f"Question: {query}\\nSources: {json.dumps(found)}"\n',
    "deep in a dumped payload": 'import json\n\n\ndef lookup(query, docs):\n    return json.dumps({"request": {"question": query, "rules": ["Be brief."], "sources": [DICT for X in docs]}})\n',
}
KEYS = [("vector_similarity", "PL102"), ("last_synced_at", "PL201"), ("ingest_platform", "PL202"), ("datasource", "PL202")]


def _tool(form: str, key: str, content: str = "text", item: str = "r") -> str:
    entry = '{"title": X.name, "KEY": X.value, "CONTENT": X.chunk}'.replace("KEY", key).replace("CONTENT", content)
    return TOOL_FORMS[form].replace("DICT", entry).replace("X", item)


@pytest.mark.parametrize("form", TOOL_FORMS)
@pytest.mark.parametrize("key, code", KEYS)
@pytest.mark.parametrize("content", ["text", "content", "snippet", "excerpt"])
def test_a_dict_a_tool_returns_is_a_json_source_whose_keys_are_its_fields(form, key, code, content):
    source = _tool(form, key, content)
    line = next(i for i, text in enumerate(source.split("\n"), 1) if '"title"' in text)
    assert _findings(source) == [(line, code)]


@pytest.mark.parametrize("form", TOOL_FORMS)
def test_the_clean_twin_of_a_tool_dict_is_clean(form):
    """Read as a source (its keys are the loop's fields) and clean."""
    from promptlint.readers.pysource import templates_in

    source = _tool(form, "department")
    assert _findings(source) == []
    assert [t.loop.keys for t in templates_in(source) if t.loop is not None] == [("title", "department", "text")]


# TypeScript that hands per-item objects to the model, each with the change that hands them to no model: a payload a
# prompt's function serializes (blind74 OliverTai688), and what a tool made by a call returns (blind71 uanandaraja).
TYPESCRIPT_HANDED = {
    "a serialized payload": (
        "function buildPrompt(question: string, citations: Citation[]): string {\n  return JSON.stringify({\n    question,\n"
        "    CITATIONS: citations.map((c) => ({ title: c.title, KEY: c.value, text: c.chunk })),\n  });\n}\n",
        ("JSON.stringify(", "Object.freeze("),
    ),
    "what a tool made by a call returns": (
        "export const searchTool = tool({\n  description: \"Search the web.\",\n  execute: async ({ query }) => {\n"
        "    const response = await exa.search(query);\n"
        "    const found = response.results.map((r) => ({ title: r.title, KEY: r.value, text: r.chunk }));\n"
        "    return { success: true, results: found };\n  },\n});\n",
        ("tool({", "route({"),
    ),
}


@pytest.mark.parametrize("form", TYPESCRIPT_HANDED)
@pytest.mark.parametrize("key, code", KEYS)
def test_per_item_objects_typescript_hands_the_model_are_json_sources(form, key, code):
    template, (handed, kept) = TYPESCRIPT_HANDED[form]
    source = template.replace("KEY", key)
    assert [f.code for f in lint_text(source, path="rag.ts", config=CONFIG)] == [code]
    # The twins: a key of the item's own, and the same objects handed to no model.
    assert lint_text(source.replace(key, "department"), path="rag.ts", config=CONFIG) == []
    assert lint_text(source.replace(handed, kept), path="rag.ts", config=CONFIG) == []


@pytest.mark.parametrize("call", ["store.get_rag_answer_prompt(question, topics)", "build_prompt(question=question, context=topics)"])
def test_a_text_handed_to_a_function_named_for_prompts_is_read(call):
    """`return RagPromptStore.getRagAnswerPrompt(question, formattedTopics)` (blind68 g122622): the text per item goes
    into a prompt, whatever the function that builds it is called. The twin: handed to a function named otherwise."""
    source = ('def collect(question, rows):\n    topics = "\\n\\n".join(f"Topic: {r.topic} (relevance {r.relevance_score:.2f})\\n{r.detail}" '
              'for i, r in enumerate(rows))\n    return CALL\n')
    assert [code for _, code in _findings(source.replace("CALL", call))] == ["PL102"]
    assert _findings(source.replace("CALL", "store.save_topics(question, topics)")) == []
    assert _findings(source.replace("CALL", "slack.send_message(channel, topics)")) == []


@pytest.mark.parametrize("language", ["python", "typescript"])
@pytest.mark.parametrize("key", ["answer", "response"])
def test_a_text_given_as_the_answer_is_no_prompt(language, key):
    """With no model to call, an app answers with the excerpts themselves: `{"answer": f"...{c.excerpt}..."}` is the reply a
    person reads (a paudit file, a false PL205). The twin: the same text given as the prompt is read."""
    if language == "python":
        source = ('def reply(citations):\n    return {"KEY": "Most relevant evidence:\\n" + "\\n\\n".join(f"{i + 1}. {c.excerpt} ({c.relevance_score:.2f})" '
                  'for i, c in enumerate(citations))}\n')
    else:
        source = ("function reply(citations: Citation[]) {\n  return {\n    KEY: `Most relevant evidence:\\n${citations\n"
                  "      .map((c, i) => `${i + 1}. ${c.excerpt} (${c.relevance_score.toFixed(2)})`)\n      .join(\"\\n\\n\")}`,\n  };\n}\n")
    path = "reply.py" if language == "python" else "reply.ts"
    assert _findings(source.replace("KEY", key), path) == []
    assert [code for _, code in _findings(source.replace("KEY", "prompt"), path)] == ["PL205", "PL102"]


@pytest.mark.parametrize("key", [k for k, _ in KEYS])
def test_a_dict_that_does_not_reach_the_model_is_not_read(key):
    """An endpoint returning dicts to a page, or a dict kept in a list: no serializer, no tool, no message."""
    source = _tool("dumped comprehension", key).replace("json.dumps(", "list(")
    assert _findings(source) == []
    assert _findings("def rows(docs):\n    return [{'text': d.chunk, 'KEY': d.value} for d in docs]\n".replace("KEY", key)) == []


@pytest.mark.parametrize("key, code", KEYS)
def test_a_key_a_helper_sets_under_a_condition_is_a_field_of_the_dict_it_returns(key, code):
    """`payload["score"] = ...` under `if r.score is not None`: the dict shows the key whenever there is a value."""
    source = (
        "import json\n\n\ndef _payload(r):\n    payload = {\"title\": r.name, \"text\": r.chunk}\n"
        "    if r.extra is not None:\n        payload[\"KEY\"] = round(r.extra, 4)\n    return payload\n\n\n"
        "def prompt(query, docs):\n    blocks = json.dumps([_payload(d) for d in docs], indent=2)\n    return f\"Question: {query}\\n\\nSources:\\n{blocks}\"\n"
    )
    assert _findings(source.replace("KEY", key)) == [(5, code)]
    assert _findings(source.replace("KEY", "department")) == []


def test_a_chat_message_dict_is_no_source():
    source = 'import json\n\n\ndef history(turns):\n    return json.dumps([{"role": t.role, "content": t.text, "sent_at": t.when} for t in turns])\n'
    assert _findings(source) == []


# ---------------------------------------------------------------- PL202 on slots

SYSTEM_SLOTS = ["source_type", "connector", "meta.datasource", "ingest_platform", "retriever"]
# How each syntax writes a sources loop whose second line prints SLOT of the item.
SYNTAXES = {
    "jinja": ("t.j2", "Answer from the sources.\n{% for doc in documents %}\nTitle: {{ doc.title }}\nFrom: {{ doc.SLOT }}\n{{ doc.content }}\n{% endfor %}\nQuestion: {{ question }}\n"),
    "f-string": ("build.py", 'def build_context(docs):\n    return "\\n\\n".join(f"Title: {doc.title}\\nFrom: {doc.SLOT}\\n{doc.content}" for doc in docs)\n'),
    "template literal": ("build.ts", "export function buildContext(docs: Doc[]): string {\n  return docs.map((doc) => `Title: ${doc.title}\\nFrom: ${doc.SLOT}\\n${doc.content}`).join('\\n\\n');\n}\n"),
}


def _slotted(syntax: str, slot: str) -> tuple[str, str]:
    path, text = SYNTAXES[syntax]
    if syntax == "f-string" and "." in slot:
        slot = slot.replace(".", "['", 1) + "']"
    return path, text.replace("SLOT", slot)


@pytest.mark.parametrize("syntax", SYNTAXES)
@pytest.mark.parametrize("slot", SYSTEM_SLOTS)
def test_a_slot_that_prints_the_source_system_is_reported(syntax, slot):
    path, text = _slotted(syntax, slot)
    found = [f for f in lint_text(text, path=path, config=CONFIG) if f.code == "PL202"]
    assert len(found) == 1 and "prints its source system" in found[0].message


@pytest.mark.parametrize("syntax", SYNTAXES)
@pytest.mark.parametrize("slot", ["source", "origin", "meta.source", "url", "file_name"])
def test_a_source_slot_that_may_hold_a_url_or_a_file_name_is_not_reported(syntax, slot):
    path, text = _slotted(syntax, slot)
    assert [f.code for f in lint_text(text, path=path, config=CONFIG) if f.code == "PL202"] == []


def test_a_system_slot_on_its_own_line_is_removed_whole():
    path, text = _slotted("jinja", "connector")
    [finding] = [f for f in lint_text(text, path=path, config=CONFIG) if f.code == "PL202"]
    assert finding.fix.applicability == Applicability.SAFE
    assert fix_text(text, path=path, config=CONFIG) == text.replace("From: {{ doc.connector }}\n", "")


def test_a_system_slot_inside_a_sentence_has_no_fix():
    text = "{% for doc in documents %}\nTitle: {{ doc.title }}. It came from {{ doc.connector }} last week.\n{{ doc.content }}\n{% endfor %}\nQuestion: {{ question }}\n"
    [finding] = [f for f in lint_text(text, path="t.j2", config=CONFIG) if f.code == "PL202"]
    assert finding.fix is None


def test_a_slot_outside_a_sources_loop_is_not_reported():
    text = "Search the {connector} index for the answer.\n\nContext:\n{context}\n\nQuestion: {question}\n"
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL202"] == []


def test_a_helper_text_this_python_cannot_write_as_a_field_is_no_traceback():
    """A helper's list bound into a field of the f-string it returns, one item holding a backslash:
    Python 3.11 cannot write that back as one f-string field, and the file is still read."""
    from promptlint.readers.pysource import templates_in

    source = (
        "def column(field):\n    args = [f\"size={field.size}\"]\n    escaped = field.default.replace(\"'\", \"\\\\'\")\n"
        "    args.append(f\"default='{escaped}'\")\n    return f\"Column({', '.join(args)})\"\n\n\n"
        "def build_context(fields):\n    lines = []\n    for f in fields:\n        lines.append(column(f))\n    return \"\\n\".join(lines)\n"
    )
    compile(source, "build.py", "exec")
    # Read, placed where the helper's text starts (its loop stands in a function that builds the context), and clean.
    assert [t.line for t in templates_in(source)] == [5]
    assert _findings(source) == []


@pytest.mark.parametrize(
    "source",
    [
        # A message's content blocks: one value and its kind, no source.
        'import json\n\n\ndef blocks(texts):\n    return json.dumps([{"type": "text", "text": t.body} for t in texts])\n',
        # Serialized for a page: passed on to another call.
        'import json\n\n\ndef memories(rows):\n    items = [{"raw": r.raw, "created_at": r.created_at} for r in rows]\n    return Response(content=json.dumps(items))\n',
    ],
)
def test_dicts_that_are_no_sources_the_model_reads(source):
    from promptlint.readers.pysource import templates_in

    assert templates_in(source) == []


@pytest.mark.parametrize("name, read", [("format_docs", True), ("combine_documents", True), ("load_file_text", False), ("message_text", False)])
@pytest.mark.parametrize("content", ["page_content", "text"])
def test_items_joined_bare_are_sources_only_where_the_function_says_context(name, read, content):
    """`return "\\n\\n".join(d.text for d in docs)`: sources with nothing but their text (no title), in a
    function named for the context; elsewhere a file's or a message's text."""
    source = f'def {name}(docs):\n    return "\\n\\n".join(d.{content} for d in docs)\n'
    assert _findings(source) == ([(2, "PL205")] if read else [])


@pytest.mark.parametrize("name, read", [("format_docs", True), ("build_context", True), ("merge_sections", False), ("write_transcript", False)])
@pytest.mark.parametrize("added", ['text += "\\n" + d.text', 'text += f"{d.text}\\n"', 'text += d.text + "\\n\\n"'])
def test_an_item_added_with_white_space_alone_is_joined_bare(name, read, added):
    """`text += "\\n" + d.text`: a line break is no wrapper; the texts are joined as bare as by a join."""
    source = f'def {name}(docs):\n    text = ""\n    for d in docs:\n        {added}\n    return text\n'
    assert _findings(source) == ([(4, "PL205")] if read else [])


@pytest.mark.parametrize("shown", ['"\\n".join(info.snippets)', "info.snippets[0]"])
@pytest.mark.parametrize("title", [False, True])
def test_a_numbered_list_of_texts_is_a_source_whatever_its_names(shown, title):
    """`[n]` and the item's text, in a module with no other prompt and no name that says context:
    its sources have no title unless one is shown (the clean twin)."""
    head = "{info.title} " if title else ""
    source = f'def forward(collected):\n    out = ""\n    for n, info in enumerate(collected):\n        out += f"[{{n + 1}}] {head}\\n" + {shown}\n    return out\n'
    assert _findings(source) == ([] if title else [(4, "PL205")])


@pytest.mark.parametrize("test, codes", [("d.is_stale", []), ("d.updated_at", ["PL201"]), ("include_dates", ["PL201"])])
@pytest.mark.parametrize("added", ['s += f"Updated: {d.updated_at}\\n"', 'parts.append(f"Updated: {d.updated_at}")'])
def test_a_date_a_helper_adds_only_when_stale_is_the_recommended_note(test, codes, added):
    """What a helper adds under a staleness test is left out, as a return under one is; under any other
    test it is what the source shows when the value is there."""
    start, end = ('s = f"Title: {d.title}\\n"', "return s + d.text") if added.startswith("s") else ('parts = [f"Title: {d.title}"]', 'parts.append(d.text)\n    return "\\n".join(parts)')
    source = f"def render_one(d):\n    {start}\n    if {test}:\n        {added}\n    {end}\n\n\ndef build_context(docs):\n    return \"\\n\\n\".join(render_one(d) for d in docs)\n"
    assert [code for _, code in _findings(source)] == codes


# ---------------------------------------------------------------- a loop over what the history was made into

MADE_FROM = {
    "build.py": ('def build_context(chats, n):\n    recent = SOURCE[-n:]\n    return "\\n".join(f"{c.sender}: {c.content} (score {c.score})" for c in recent)\n'),
    "build.ts": ("export function buildContext(chats, n) {\n  const recent = SOURCE.filter((c) => c.content).slice(-n);\n"
                 "  return recent.map((c) => `${c.sender}: ${c.content} (score ${c.score})`).join('\\n');\n}\n"),
}


@pytest.mark.parametrize("path", sorted(MADE_FROM))
@pytest.mark.parametrize("history", ["chats", "messages", "conversation_history", "turns"])
def test_a_loop_over_a_local_made_from_the_history_renders_turns(path, history):
    """anything-llm's `recent = chats.filter(...).slice(-max)`, then `recent.map(c => ...)`: the local is the
    conversation, so its items are turns, not sources. Its twin, made from the retrieved documents, is sources."""
    code = MADE_FROM[path].replace("chats,", f"{history},").replace("SOURCE", history)
    assert _findings(code, path) == []
    twin = MADE_FROM[path].replace("chats,", "documents,").replace("SOURCE", "documents")
    assert [c for _, c in _findings(twin, path)] == ["PL102"]


@pytest.mark.parametrize(
    "collection, item",
    [("comments", "comment"), ("issue['comments']", "c"), ("thread.replies", "reply"), ("discussions", "d"), ("block['rich_text']", "t"), ("runs", "rich_text")],
)
def test_the_parts_of_a_document_built_at_ingest_are_not_sources_by_their_shape(collection, item):
    """ragflow's Jira connector writes an issue's comments as '- {author} ({created}):\\n{body}': the issue's own text,
    built at ingest, in a module with no prompt and no name that says context. Its twin iterates search hits."""
    code = (f"def format_thread(issue, thread):\n    lines = []\n    for {item} in {collection}:\n"
            f'        lines.append(f"- {{{item}.author}} ({{{item}.created_at}}):\\n{{{item}.body}}")\n    return "\\n\\n".join(lines)\n')
    assert _findings(code) == []
    twin = code.replace(f"in {collection}:", "in hits:")
    assert [c for _, c in _findings(twin)] == ["PL201"]


def test_a_text_made_afresh_for_each_item_and_handed_to_a_call_is_no_source():
    """kotaemon's file panel writes each chunk's header as '[1/7] [Page 3] ...' for a collapsible box of its UI:
    the header is made afresh per item and handed to a call, never added to a text the loop builds. Its twin
    adds the same header to the context, and is read as each source's wrapper."""
    code = (
        "def format_context(docs):\n    chunks = []\n    for idx, doc in enumerate(docs):\n"
        '        header = f"[{idx+1}/{len(docs)}]"\n        header += f" [Page {doc.metadata[\'page_label\']}]"\n'
        "        chunks.append(Render.collapsible(header=header, content=doc.text))\n    return ''.join(chunks)\n"
    )
    assert [t.text for t in templates_in(code)] == []
    twin = code.replace("chunks.append(Render.collapsible(header=header, content=doc.text))", 'chunks.append(f"{header}\\n{doc.text}")')
    assert [t.text for t in templates_in(twin)] == ["[{idx + 1}/{len(docs)}] [Page {doc.metadata['page_label']}]\n{doc.text}"]


# A helper that returns one source's lines for the loop to add (`lines.extend(_block(marker, chunk))`).
LINES_HELPER = """def _block(marker, chunk):
    lines = [marker, f"FIELD: {chunk.KEY}"]
    if chunk.section:
        lines.append(f"section: {chunk.section}")
    lines.extend(["text:", chunk.text])
    return lines


def format_context(chunks):
    lines = ["BEGIN CONTEXT"]
    for index, chunk in enumerate(chunks, start=1):
        marker = f"[{index}]"
        lines.extend(_block(marker, chunk))
    lines.append("END CONTEXT")
    return "\\n".join(lines)
"""


@pytest.mark.parametrize("field, key, code", [("chunk_id", "chunk_id", "PL203"), ("score", "score", "PL102"), ("updated", "updated_at", "PL201")])
def test_the_lines_a_helper_returns_per_item_are_one_sources_text(field, key, code):
    from promptlint.readers.pysource import templates_in

    source = LINES_HELPER.replace("FIELD", field).replace("KEY", key)
    [template] = [t for t in templates_in(source) if t.loop is not None]
    assert template.text == f"[{{index}}]\n{field}: {{chunk.{key}}}\nsection: {{chunk.section}}\ntext:\n{{chunk.text}}\n"
    assert _findings(source) == [(2, code)]


def test_the_clean_twin_of_a_lines_helper_is_clean():
    """The document's id beside the chunk is the document's, no chunk ordinal."""
    assert _findings(LINES_HELPER.replace("FIELD", "doc_id").replace("KEY", "doc_id")) == []


# A loop body that adds two texts it made, summed (`output.append(header + body)`), the body picked by the item's kind.
SUMMED_LOCALS = """def format_results(results):
    output = []
    for result in results:
        doc = result["doc"]
        header = f"--- Source [{doc['id']}] (FIELD: {result['KEY']}) ---\\\\n"
        if doc.get("kind") == "statute":
            body = f"Citation: {doc['citation']}\\\\nText: {doc['text']}\\\\n"
        else:
            body = f"Title: {doc['title']}\\\\nText: {doc['text']}\\\\n"
        output.append(header + body)
    return "\\\\n".join(output)
"""


@pytest.mark.parametrize("field, key, code", [("similarity", "score", "PL102"), ("updated", "updated_at", "PL201")])
def test_two_texts_a_loop_body_made_and_adds_summed_are_one_sources_text(field, key, code):
    assert _findings(SUMMED_LOCALS.replace("FIELD", field).replace("KEY", key)) == [(5, code)]


def test_the_clean_twin_of_summed_texts_is_clean():
    assert _findings(SUMMED_LOCALS.replace(" (FIELD: {result['KEY']})", "")) == []


# A header joined from a list the helper grows under conditions (`parts.append(...)`, then `" | ".join(parts)`).
JOINED_HEADER = """def render(doc, idx):
    parts = [f"DOCUMENT {idx + 1}", f"Source: {doc.metadata.filename}"]
    if doc.metadata.section:
        parts.append(f"Section: {doc.metadata.section}")
    if doc.extra is not None:
        parts.append(f"FIELD: {doc.KEY}")
    header = f"[{' | '.join(parts)}]"
    return f"{header}\\\\n{doc.page_content}"


def build_context(docs):
    return "\\\\n\\\\n---\\\\n\\\\n".join(render(d, i) for i, d in enumerate(docs))
"""


@pytest.mark.parametrize("field, key, code", [("Relevance", "rerank_score", "PL102"), ("Updated", "updated_at", "PL201")])
def test_a_header_joined_from_a_list_the_helper_grows_shows_each_item(field, key, code):
    assert [c for _, c in _findings(JOINED_HEADER.replace("FIELD", field).replace("KEY", key))] == [code]
    assert _findings(JOINED_HEADER.replace("FIELD", "Framework").replace("KEY", "framework")) == []


def test_a_helpers_lines_joined_and_trimmed_are_its_text():
    """`return "\\n".join(lines).strip()`: the lines the method grew, its edges trimmed."""
    source = (
        "class Formatter:\n    def block(self, *, index, result):\n        lines = [f\"[Source {index}]\", f\"Title: {result.title}\"]\n"
        "        lines.append(f\"Score: {result.score:.3f}\")\n        lines.append(\"Content:\")\n        lines.append(result.text.strip())\n"
        "        return \"\\\\n\".join(lines).strip()\n\n    def render(self, results):\n"
        "        return \"\\\\n\\\\n\".join(self.block(index=i, result=r) for i, r in enumerate(results, start=1))\n"
    )
    assert [code for _, code in _findings(source)] == ["PL102"]
    assert _findings(source.replace('        lines.append(f"Score: {result.score:.3f}")\n', "")) == []
