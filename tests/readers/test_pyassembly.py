"""A prompt function that assembles its text from pieces and returns them joined is read as
the text it returns, pieces written out in order."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.model.prompt import PartKind
from promptlint.readers.pysource import templates_in

STATIC = "Answer from the excerpts only. Cite the excerpt you use."
CLOSING = "Transform the user's question into a search query. Reply with the query alone."

# Ways of filling the list, each rendering: date line, intro, the excerpts, the closing instruction.
FILLS = {
    "append": """    parts = []
    parts.append(f"Current Date: {now}")
    parts.append("%(static)s")
    if docs:
        intro = "Here are the excerpts:"
        intro += "\\n\\n".join(f"[{i}] {d.text}" for i, d in enumerate(docs))
        parts.append(intro)
    parts.append("%(closing)s")
    return "\\n".join(parts)""",
    "literal then extend": """    parts = [f"Current Date: {now}", "%(static)s"]
    excerpts = "Here are the excerpts:" + "\\n\\n".join([d.text for d in docs])
    parts.extend([excerpts, "%(closing)s"])
    return "\\n".join(parts)""",
    "+= a list": """    parts = [f"Current Date: {now}"]
    parts += ["%(static)s", "Here are the excerpts:" + format_docs(docs)]
    parts += ["%(closing)s"]
    return "\\n".join(parts)""",
    "names joined": """    prelude = f"Current Date: {now}\\n%(static)s"
    body = "Here are the excerpts:\\n" + "\\n".join(d.text for d in docs)
    closing = "%(closing)s"
    return "\\n".join([prelude, body, closing])""",
    "a block under a condition": """    prelude = f"Current Date: {now}\\n%(static)s"
    body = "Here are the excerpts:\\n" + "\\n".join(d.text for d in docs) if docs else "Here are the excerpts:\\n"
    closing = "%(closing)s"
    return "\\n".join([prelude, body, closing])""",
}


def _module(fill: str, closing: str = CLOSING) -> str:
    return "def build_search_prompt(docs, now):\n" + fill % {"static": STATIC, "closing": closing} + "\n"


@pytest.mark.parametrize("fill", FILLS)
def test_pieces_are_read_in_order_as_one_prompt(fill):
    [template] = [t for t in templates_in(_module(FILLS[fill])) if t.text.startswith("Current Date")]
    text = template.text
    assert text.index(STATIC) < text.index("Here are the excerpts:") < text.index(CLOSING)
    assert [f.code for f in lint_text(_module(FILLS[fill]), path="prompts.py") if f.code == "PL305"] == ["PL305"]


def test_a_block_under_a_condition_is_read_as_the_text_it_writes_when_the_condition_holds():
    [template] = [t for t in templates_in(_module(FILLS["a block under a condition"])) if t.text.startswith("Current Date")]
    assert "\nHere are the excerpts:\n{docs}\n" in template.text


LABELLED_BLOCKS = """def build_fact_prompt(question, facts):
    facts_block = "Facts:\\n" + "\\n".join(facts) if facts else "Facts:\\n"
    question_block = f"Question:\\n{question}"
    closing = (
        "Reply with a JSON list of the answers only. Reply with an empty list if the facts hold none. "
        "Write every answer exactly as the facts spell it."
    )
    return "\\n\\n".join([%s])
"""


def test_rules_after_a_labelled_block_under_a_condition_are_reported():
    module = LABELLED_BLOCKS % "facts_block, question_block, closing"
    assert [f.code for f in lint_text(module, path="prompts.py") if f.code == "PL305"] == ["PL305"]


def test_the_twin_with_the_rules_first_is_clean():
    module = LABELLED_BLOCKS % "closing, facts_block, question_block"
    assert [f.code for f in lint_text(module, path="prompts.py") if f.code == "PL305"] == []


@pytest.mark.parametrize("fill", FILLS)
def test_the_twin_with_nothing_after_the_data_is_clean(fill):
    module = _module(FILLS[fill].replace("f\"Current Date: {now}", "\"You write search queries."), closing="")
    assert [f.code for f in lint_text(module, path="prompts.py") if f.code == "PL305"] == []


@pytest.mark.parametrize(
    "module",
    [
        # A loop fills the list under a condition the loop's collection is not: no slot stands for it.
        'def build_prompt(docs):\n    parts = ["Answer from the sources."]\n    while docs:\n        parts.append(f"- {docs.pop().text}")\n    return "\\n".join(parts)\n',
        # Only names the function never builds: nothing of its own.
        'def build_prompt(header, body):\n    return "\\n".join([header, body])\n',
        # Not a function named for prompts.
        'def render(docs, now):\n    parts = [f"Current Date: {now}", "Answer from the excerpts only."]\n    parts.append("Reply with the query alone.")\n    return "\\n".join(parts)\n',
    ],
)
def test_what_is_not_an_assembled_prompt_is_not_read_as_one(module):
    assert [t for t in templates_in(module) if "\n" in t.text and t.loop is None] == []


# A loop that adds each item's line to the list (its text read on its own, by pybuild), then static rules.
FILLED = '''def build_system_prompt(persona, relevant_memories):
    prompt_parts = [persona]
    if relevant_memories:
        prompt_parts.append("\\nRelevant memories from past conversations:")
        for idx, memory in ITERATED:
            prompt_parts.append(f"- {memory.content}")
    prompt_parts.append("\\nGeneral Instructions:")
    prompt_parts.append("- Keep responses concise and natural, two to four sentences at most.")
    prompt_parts.append("- Reference relevant memories naturally when appropriate, and never invent one.")
    return "\\n".join(prompt_parts)
'''


@pytest.mark.parametrize("iterated", ["enumerate(relevant_memories, 1)", "enumerate(sorted(relevant_memories))"])
def test_a_loop_that_fills_the_list_stands_in_it_as_one_slot(iterated):
    """The loop's place holds its collection (blind69g hristov111): the static rules after it are after the memories."""
    module = FILLED.replace("ITERATED", iterated)
    [template] = [t for t in templates_in(module) if t.loop is None]
    assert template.text == "{persona}\n\nRelevant memories from past conversations:\n{relevant_memories}\n\nGeneral Instructions:\n" + template.text.split("General Instructions:\n")[1]
    assert [f.code for f in lint_text(module, path="prompts.py", config=build({"rules": {"cache-boundary": {"min-static-tokens": 0}}}, "test")) if f.code == "PL305"] == ["PL305"]


# An f-string of sections the function writes first: the sources' section, then the instructions.
SECTIONS = '''def make_prompt(passages, question):
    sources_section = ""
    if passages:
        sources_section = "### Sources:\\n" + "\\n".join([f"{i}. {p}" for i, p in enumerate(passages)]) + "\\n\\n"
    guidance = (
        "You answer questions about the handbook. %(static)s "
        "Say you do not know when the sources do not hold the answer.\\n"
    )
    shots = ""
    for q, a in EXAMPLES:
        shots += f"Q: {q}\\nA: {a}\\n"
    %(target)s = f"{sources_section}{guidance}{shots}Q: {question}\\nA:"
    return %(target)s
'''


@pytest.mark.parametrize("target", ["prompt", "text"])
def test_an_fstring_of_sections_is_read_with_them_written_in(target):
    module = SECTIONS % {"static": STATIC, "target": target}
    [template] = [t for t in templates_in(module) if t.loop is None]
    # The sections written in; the loop's text stays a slot by its name; the literal taken in is no prompt of its own.
    assert template.text.startswith("### Sources:\n{passages}\n\nYou answer questions about the handbook.")
    assert template.text.endswith("{shots}Q: {question}\nA:")
    assert [(f.code, f.line) for f in lint_text(module, path="prompts.py") if f.code == "PL305"] == [("PL305", 12)]


def test_the_twin_with_the_sources_after_the_instructions_is_clean():
    module = (SECTIONS % {"static": STATIC, "target": "prompt"}).replace("{sources_section}{guidance}", "{guidance}{sources_section}")
    assert [f.code for f in lint_text(module, path="prompts.py") if f.code == "PL305"] == []


def test_a_local_holding_only_what_it_was_handed_keeps_its_name():
    module = 'def make_prompt(docs, question):\n    context = "\\n".join(docs)\n    prompt = f"Answer from the context only.\\nContext: {context}\\nQuestion: {question}"\n    return prompt\n'
    [template] = templates_in(module)
    assert template.text == "Answer from the context only.\nContext: {context}\nQuestion: {question}"


# A module's text named in a function's f-string (sa_locals's transcript prompt builder).
MODULE_TEXT = '''ANSWER_FORMAT = """\\
Answer using this exact format:

**Answer:**
- [bullet points, each citing [Source N]]

**Gaps:**
- [what the excerpts leave unclear; say "None." when nothing is]
"""


def build_messages(question, context_text):
    user_content = (
        f"**Question:** {question}\\n\\n"
        f"**Retrieved sources:**\\n\\n"
        f"{context_text}\\n\\n"
        f"{ANSWER_FORMAT}"
    )
    return [{"role": "user", "content": user_content}]
'''


def test_a_module_text_named_in_an_fstring_is_read_written_in():
    [template] = templates_in(MODULE_TEXT)
    assert template.text.endswith("{context_text}\n\nAnswer using this exact format:\n\n**Answer:**\n- [bullet points, each citing [Source N]]\n\n**Gaps:**\n- [what the excerpts leave unclear; say \"None.\" when nothing is]\n")
    assert [(f.code, f.line) for f in lint_text(MODULE_TEXT, path="prompts.py")] == [("PL305", 14)]


@pytest.mark.parametrize(
    "hidden",
    [
        ("def build_messages(question, context_text):", "def build_messages(question, context_text, ANSWER_FORMAT):"),
        ("    user_content = (", "    ANSWER_FORMAT = load_format()\n    user_content = ("),
        ("\n\n\ndef build_messages", "\nANSWER_FORMAT = ANSWER_FORMAT.strip()\n\n\ndef build_messages"),
    ],
    ids=["a parameter", "a local", "bound again"],
)
def test_a_name_bound_elsewhere_is_no_module_text(hidden):
    module = MODULE_TEXT.replace(*hidden)
    assert [t.text for t in templates_in(module) if "{question}" in t.text][0].endswith("{context_text}\n\n{ANSWER_FORMAT}")


# A prompt a function grows in place, with a piece added under a condition (synthos's RAG prompt, in TS).
GROWN = {
    "prompts.py": '''def get_rag_prompt(question, topics, current_date=None):
    prompt = "You are an assistant. Answer from the retrieved topics."
    if current_date:
        prompt += f"\\n\\nCurrent date:\\n{current_date}"
    prompt += f"\\n\\nContext:\\n{topics}"
    prompt += f"""\\nQuestion:\\n{question}\\n\\nRequirements:
%(rules)s
Answer:"""
    return prompt
''',
    "prompts.ts": '''export function getRagPrompt(question: string, topics: string, currentDate?: string): string {
    let prompt = `You are an assistant. Answer from the retrieved topics.`;
    if (currentDate) {
        prompt += `\\n\\nCurrent date:\\n${currentDate}`;
    }
    prompt += `\\n\\nContext:\\n${topics}`;
    prompt += `\\nQuestion:\\n${question}\\n\\nRequirements:
%(rules)s
Answer:`;
    return prompt;
}
''',
}
# A function bound to what a CommonJS module exports, by its own name or by the export's.
GROWN["exported.js"] = GROWN["prompts.ts"].replace("export function getRagPrompt(question: string, topics: string, currentDate?: string): string {",
                                                   "module.exports = function (question, topics, currentDate) {")
GROWN["named-export.js"] = GROWN["prompts.ts"].replace("export function getRagPrompt(question: string, topics: string, currentDate?: string): string {",
                                                       "exports.getRagPrompt = (question, topics, currentDate) => {")
RULES = "1. Follow the topics above and consider when each happened.\n2. Cite a topic you use at the end of the sentence, like [topic 7].\n3. If the topics cannot answer, say so.\n4. Be complete and clearly structured."


@pytest.mark.parametrize("path", sorted(GROWN))
def test_a_prompt_grown_in_place_is_read_as_all_it_adds_up_to(path):
    module = GROWN[path] % {"rules": RULES}
    found = [(f.code, f.line) for f in lint_text(module, path=path) if f.code == "PL305"]
    assert found == [("PL305", 2)]
    # The twin: the rules first, the data last; nothing static after it.
    twin = module.replace("Answer from the retrieved topics.", "Answer from the retrieved topics.\\n" + RULES.replace("\n", "\\n")).replace(RULES, "")
    assert [f.code for f in lint_text(twin, path=path) if f.code == "PL305"] == []


LINES = ['`Question: ${question}`', '""', '"Retrieved context:"', "context", '""',
         '"Return a short, useful and well structured answer."', '"Remember: your value is in the practical steps, not in explaining each benefit."',
         '"For first applications, prioritise documents, the official channel and the next safe step."']


@pytest.mark.parametrize("path", ["prompt.ts", "prompt.py"])
def test_a_returned_list_of_lines_joined_is_one_text(path):
    # `[...].join("\n")` in TS, `"\n".join([...])` in Python: the lines make one prompt, read in order.
    def code(lines):
        if path.endswith(".ts"):
            return "export function buildUserPrompt(question: string, context: string): string {\n  return [\n    " + ",\n    ".join(lines) + ',\n  ].join("\\n");\n}\n'
        items = [line.replace("`", 'f"').replace("${", "{").replace('}"', '}"') if line.startswith("`") else line for line in lines]
        items = [i[:-1] + '"' if i.startswith('f"') else i for i in items]
        return "def build_user_prompt(question, context):\n    return \"\\n\".join([\n        " + ",\n        ".join(items) + ",\n    ])\n"
    assert [f.code for f in lint_text(code(LINES), path=path)] == ["PL305"]
    # The twin with the rules first is clean.
    assert [f.code for f in lint_text(code(LINES[5:] + LINES[:5]), path=path)] == []


# A local bound to the text a function of the module makes, written into the prompt the function returns.
HELPER_TEXT = '''TOOLS_GUIDE = """Use the create_document tool for substantial content of more than ten lines, and for code.
Never update a document right after creating it; wait for the user's feedback before you change it.
Keep answers in chat for explanations, conversation, and when the user asks to keep it in chat."""


def hints_prompt(hints):
    return f"About the origin of the user's request:\\n- city: {hints.city}\\n- country: {hints.country}\\n"


def system_prompt(request):
    request_prompt = hints_prompt(request)
    return f"You are a friendly assistant.\\n\\n{request_prompt}\\n\\n{TOOLS_GUIDE}"
'''


def test_a_local_bound_to_a_helpers_text_is_read_as_that_text():
    [template] = [t for t in templates_in(HELPER_TEXT) if t.text.startswith("You are")]
    assert "- city: {request.city}\n- country: {request.country}\n\n\nUse the create_document tool" in template.text
    assert [(f.code, f.line) for f in lint_text(HELPER_TEXT, path="prompts.py")] == [("PL305", 12)]


# A prompt a function grows in a loop over the retrieved items, then closes with its rules: the loop's
# additions are one slot named by what it iterates, as a comprehension joined over it reads.
GROWN_RULES = ("Remember: do not repeat the context word for word. Answer in plain language.\\n"
               "Keep every answer under 300 words and never invent facts the contexts do not hold.\\n")
GROWTHS = {"+=": "prompt += {piece}", "= prompt +": "prompt = prompt + {piece}"}
PIECES = ['"\\n\\n" + doc["content"]', 'f"\\n[{{doc.id}}] {{doc.text}}"', '"\\n---\\n" + str(doc)']


def _grown(growth: str, piece: str, iterated: str = "docs", after: str = GROWN_RULES) -> str:
    add = GROWTHS[growth].format(piece=piece)
    return (f"def build_prompt(question, {iterated}):\n"
            f'    prompt = "You answer from the search results below. Use only them.\\nHere are the results:"\n'
            f"    for doc in {iterated}:\n        {add}\n"
            f'    prompt = prompt + "\\n{after}Question: " + question\n'
            f"    return prompt\n")


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("growth", sorted(GROWTHS))
def test_a_prompt_grown_over_the_retrieved_items_is_read_whole(growth, piece):
    # (A loop body's own per-item string may be read beside it, as the sources' template.)
    [template] = [t for t in templates_in(_grown(growth, piece)) if t.text.startswith("You answer from the search results below.")]
    assert "{docs}" in template.text and template.text.endswith("Question: {question}")
    assert [f.code for f in lint_text(_grown(growth, piece), path="p.py") if f.code == "PL305"] == ["PL305"]


@pytest.mark.parametrize("growth", sorted(GROWTHS))
def test_the_twin_with_no_rules_after_the_items_is_clean(growth):
    assert [f.code for f in lint_text(_grown(growth, PIECES[0], after=""), path="p.py") if f.code == "PL305"] == []


def test_a_loop_that_does_more_than_add_leaves_the_text_unread_as_before():
    code = _grown("+=", PIECES[0]).replace("    for doc in docs:\n", "    for doc in docs:\n        log(doc)\n")
    assert all("{docs}" not in t.text for t in templates_in(code))


# The ways code grows a prompt around such a loop (blind51c nashsu): a counter stepped beside the addition,
# the text cut to a limit or stripped after it, the loop under an `if` whose `else` sends the question alone,
# and a first value that is itself a sum of literals. Each is read as the same one text.
SHAPES = {
    "counter": lambda code: code.replace("    for doc in", "    n = 1\n    for doc in").replace("        prompt", "        n += 1\n        prompt", 1),
    "cut to a limit": lambda code: code.replace("\n    prompt = prompt + ", "\n    if len(prompt) > 9000:\n        prompt = prompt[:9000]\n    prompt = prompt + ", 1),
    "stripped": lambda code: code.replace("\n    prompt = prompt + ", "\n    prompt = prompt.strip()\n    prompt = prompt + ", 1),
    "if and else": lambda code: code.replace("\n    ", "\n        ").replace("        return prompt", "    else:\n        prompt = question\n    return prompt")
                                      .replace("        prompt = \"You answer", "    if docs:\n        prompt = \"You answer", 1),
    "opening sum": lambda code: code.replace('Here are the results:"\n', 'Here are the results:" + "\\n" + "```"\n', 1),
}


def _segmented(code: str):
    from promptlint.engine.config import default_config
    from promptlint.engine.lint import segment_document
    from promptlint.readers import document as documents

    config = default_config()
    doc = documents.parse_text(code, "p.py", config.suffix_for("p.py"), config.lexicon)
    return segment_document(doc, config)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_prompt_grown_in_each_shape_is_read_whole(shape):
    code = SHAPES[shape](_grown("= prompt +", PIECES[0]))
    [template] = [t for t in templates_in(code) if t.text.startswith("You answer from the search results below.")]
    assert "{docs}" in template.text and template.text.endswith("Question: {question}")
    assert [f.code for f in lint_text(code, path="p.py") if f.code == "PL305"] == ["PL305"]
    assert [f.code for f in lint_text(SHAPES[shape](_grown("= prompt +", PIECES[0], after="")), path="p.py") if f.code == "PL305"] == []


# What the loop adds per item is the retrieved context when its name says nothing else (`ref_content`,
# `pages`): the structure says so. A name that says what it holds keeps its kind (`history`).
@pytest.mark.parametrize(("iterated", "kind"), [("ref_content", PartKind.SOURCES), ("pages", PartKind.SOURCES), ("rows", PartKind.SOURCES),
                                                 ("docs", PartKind.SOURCES), ("history", PartKind.HISTORY)])
def test_what_a_loop_adds_per_item_is_read_by_its_name_else_as_the_context(iterated, kind):
    code = _grown("+=", PIECES[0], iterated=iterated)
    [prompt] = [p for p in _segmented(code) if p.text.startswith("You answer from the search results below.")]
    assert [part.kind for part in prompt.parts if prompt.text[part.span.start : part.span.end] == "{" + iterated + "}"] == [kind]


# The lines a chat message sends joined, in a function named for nothing (blind60a DruidX: `context_parts.append(...)`,
# then `HumanMessage(content="\n".join(context_parts))`): the message's text, read as the prompt it is.
SENT = {
    "message class": '    return llm.invoke([HumanMessage(content="\\n".join(parts))])\n',
    "message class, by position": '    return llm.invoke([HumanMessage("\\n".join(parts))])\n',
    "message dict": '    return client.chat.completions.create(model=m, messages=[{"role": "user", "content": "\\n\\n".join(parts)}])\n',
}
PARTS = ('def answer(state, docs):\n    parts = []\n    parts.append(f"USER QUERY:\\n{state.question}")\n'
         '    if docs:\n        parts.append(f"KNOWLEDGE BASE CONTEXT:\\n{chr(10).join(d.page_content for d in docs)}")\n'
         '    parts.append("Answer the user query from the knowledge base context only. Cite each claim with the document it came '
         'from. If the context does not hold the answer, say so plainly and do not guess. Keep the answer under two hundred words.")\n')


@pytest.mark.parametrize("sent", SENT)
def test_the_lines_a_message_sends_joined_are_its_prompt(sent):
    templates = templates_in(PARTS + SENT[sent])
    assert [t.text.split("\n")[:2] for t in templates if "USER QUERY" in t.text] == [["USER QUERY:", "{state.question}"]]
    assert [(f.code, f.line) for f in lint_text(PARTS + SENT[sent], path="answer.py")] == [("PL305", 7)]
    # The twin: the lines joined and printed go to a person, and no prompt is read.
    assert [t for t in templates_in(PARTS + '    print("\\n".join(parts))\n') if "USER QUERY" in t.text] == []


def test_the_twin_with_the_rules_before_the_loop_is_clean():
    lines = FILLED.replace("ITERATED", "enumerate(relevant_memories)").splitlines()
    rules, memories = lines[6:9], lines[2:6]
    module = "\n".join(lines[:2] + rules + memories + lines[9:]) + "\n"
    assert [f.code for f in lint_text(module, path="prompts.py", config=build({"rules": {"cache-boundary": {"min-static-tokens": 0}}}, "test")) if f.code == "PL305"] == []
