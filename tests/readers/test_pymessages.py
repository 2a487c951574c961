"""A request whose messages send the user's text twice, once in a template's field and once as a
message of its own, is read as one text, in Python and in JavaScript alike (see pymessages)."""

from __future__ import annotations

import pytest

from promptlint.engine.lint import lint_text

INSTRUCTIONS = "Answer only from the snippets below and cite each one you use. Say so when they do not hold the answer."

PYTHON = '''def answer(client, question, history, docs):
    context = "\\n\\n".join(d.text for d in docs)
    system = f"""{instructions}

QUESTION:
{{question}}

SNIPPETS:
{{context}}
"""
    messages = [{{"role": "system", "content": system}}, *history, {{"role": "user", "content": {user}}}]
    return client.chat.completions.create(model="m", messages=messages)
'''

TYPESCRIPT = '''export async function answer(client: any, question: string, history: any[], docs: any[]) {{
  const q = question.trim();
  const context = docs.map((d, i) => `[${{i + 1}}] ${{d.text}}`).join("\\n");
  const systemPrompt = `{instructions}\\n\\nQUESTION:\\n${{q}}\\n\\nSNIPPETS:\\n${{context}}`;
  const past = history.map((h) => ({{ role: h.role, content: h.text }}));
  return client.chat.completions.create({{ model: "m", messages: [{{ role: "system", content: systemPrompt }}, ...past, {{ role: "user", content: {user} }}] }});
}}
'''

CASES = {"python": (PYTHON, "question", "rag.py", 3), "typescript": (TYPESCRIPT, "q", "rag.ts", 4)}


def _repeats(case: str, user: str) -> list[tuple[int, str]]:
    code, _, path, _ = CASES[case]
    return [(f.line, f.code) for f in lint_text(code.format(instructions=INSTRUCTIONS, user=user), path=path) if f.code == "PL101"]


@pytest.mark.parametrize("case", CASES)
def test_a_field_of_the_system_prompt_sent_again_as_the_users_message_is_a_repeated_question(case):
    _, asked, _, line = CASES[case]
    assert _repeats(case, asked) == [(line, "PL101")]


@pytest.mark.parametrize("case", CASES)
def test_the_twin_whose_user_message_sends_something_else_is_clean(case):
    assert _repeats(case, "'Go on.'") == []


def test_the_twin_whose_system_prompt_holds_no_question_is_clean():
    code = PYTHON.replace("QUESTION:\n{{question}}\n\n", "")
    findings = lint_text(code.format(instructions=INSTRUCTIONS, user="question"), path="rag.py")
    assert [f.code for f in findings if f.code == "PL101"] == []


# LangChain's messages as pairs of a role and a template, the history as a placeholder.
PAIRS = {
    "python": (
        'from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder\n\n'
        'SYSTEM = """{instructions}\n\n<context>\n{{context}}\n</context>\n<question>\n{{question}}\n</question>\n"""\n\n\n'
        "def make_prompt():\n"
        '    return ChatPromptTemplate.from_messages([("system", SYSTEM), MessagesPlaceholder("history"), ("human", "{human}")])\n',
        "rag.py",
    ),
    "javascript": (
        "const SYSTEM = `{instructions}\n\n<context>\n{{context}}\n</context>\n<question>\n{{question}}\n</question>\n`;\n\n"
        "export function makePrompt() {{\n"
        "  return ChatPromptTemplate.fromMessages([['system', SYSTEM], new MessagesPlaceholder('history'), ['human', '{human}']]);\n}}\n",
        "rag.js",
    ),
}


@pytest.mark.parametrize("case", PAIRS)
def test_a_slot_of_the_system_template_sent_again_as_the_human_template_is_a_repeated_question(case):
    code, path = PAIRS[case]
    findings = lint_text(code.format(instructions=INSTRUCTIONS, human="{question}"), path=path)
    assert [(f.line, f.code) for f in findings if f.code == "PL101"] == [(3 if case == "python" else 1, "PL101")]
    twin = lint_text(code.format(instructions=INSTRUCTIONS, human="Go on."), path=path)
    assert [f.code for f in twin if f.code == "PL101"] == []


# LangChain takes a bare string in the list as the user's message template: the system text sent that way still
# shows the question that the last message sends again ("system", SYSTEM written as two strings is two messages).
BARE = {
    "python": (PAIRS["python"][0].replace('[("system", SYSTEM), MessagesPlaceholder("history"),', '["system", SYSTEM,'), "rag.py"),
    "javascript": (PAIRS["javascript"][0].replace("[['system', SYSTEM], new MessagesPlaceholder('history'),", "['system', SYSTEM,"), "rag.js"),
}


@pytest.mark.parametrize("case", BARE)
def test_a_bare_string_in_the_list_of_templates_is_a_message_that_shows_the_question(case):
    code, path = BARE[case]
    assert "'system', SYSTEM," in code.replace('"', "'")
    findings = lint_text(code.format(instructions=INSTRUCTIONS, human="{question}"), path=path)
    assert [(f.line, f.code) for f in findings if f.code == "PL101"] == [(3 if case == "python" else 1, "PL101")]
    twin = lint_text(code.format(instructions=INSTRUCTIONS, human="Go on."), path=path)
    assert [f.code for f in twin if f.code == "PL101"] == []


TOOL_TURN = {
    "agent.py": 'def refine(messages, refined_query, reasoning):\n    messages.append({{"role": "{role}", "content": f"Refined query: {{refined_query}}\\nReason: {{reasoning}}"}})\n    return messages\n',
    "agent.js": 'function refine(messages, refinedQuery, reasoning) {{\n  messages.push({{ role: "{role}", content: `Refined query: ${{refinedQuery}}\\nReason: ${{reasoning}}` }});\n  return messages;\n}}\n',
}


@pytest.mark.parametrize("path", sorted(TOOL_TURN))
@pytest.mark.parametrize("role", ["tool", "tool_result", "function"])
def test_a_tools_message_is_its_output_not_a_prompt(path, role):
    # What a tool gave back (the query it refined) is the request's data, not a question slot someone wrote.
    assert [f.code for f in lint_text(TOOL_TURN[path].format(role=role), path=path)] == []


@pytest.mark.parametrize("path", sorted(TOOL_TURN))
def test_the_twin_sent_as_the_users_message_is_a_prompt(path):
    assert [f.code for f in lint_text(TOOL_TURN[path].format(role="user"), path=path)] == ["PL304"]


# The question's slot alone in a message before the template that asks it again (a history-aware rephrase prompt).
BEFORE = {
    "python": (
        "from langchain_core.prompts import ChatPromptTemplate\n\n\n"
        "def make_prompt(history):\n"
        '    return ChatPromptTemplate.from_messages([*history, ("user", "{first}"), ("user", "Given the above conversation, answer the following question: {input} concisely.")])\n',
        "rag.py",
    ),
    "typescript": (
        "export function makePrompt(history: any[]) {\n"
        "  return ChatPromptTemplate.fromMessages([...history, ['user', '{first}'], ['user', 'Given the above conversation, answer the following question: {input} concisely.']]);\n}\n",
        "rag.ts",
    ),
}


@pytest.mark.parametrize("case", BEFORE)
def test_a_slot_sent_alone_before_the_template_that_shows_it_is_a_repeated_question(case):
    code, path = BEFORE[case]
    line = 5 if case == "python" else 2
    assert [(f.line, f.code) for f in lint_text(code.replace("{first}", "{input}"), path=path) if f.code == "PL101"] == [(line, "PL101")]
    # The twin: the message before sends something else.
    assert [f.code for f in lint_text(code.replace("{first}", "{summary}"), path=path) if f.code == "PL101"] == []
