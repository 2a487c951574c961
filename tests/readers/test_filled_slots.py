"""A template's slot the module fills with a text it writes whole (`prompt.partial(format_instructions=RULES)`,
`TEMPLATE.format(rules=RULES)`, `{"rules": rules}` in a chain's run) is read with that text written in, in Python
and in TypeScript: static rules after the context then show. Not a slot every fill does not give the same text,
nor one whose name says it holds the request's data (`{question}`): a literal there is a demo's value."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-07", "select": ["PL305"]}, "test")

RULES = '''"""Rules:
1. Answer only from the document above.
2. Cite the source id of every claim you make.
3. If the document does not say, reply that you do not know.
4. Keep the answer under two hundred words.
5. Return valid JSON with the keys answer and sources."""'''

PYTHON = f'''from langchain_core.prompts import ChatPromptTemplate

RULES = {RULES}


def answer(question, context_text, llm):
    prompt = ChatPromptTemplate.from_template("Here is the document:\\n{{context}}\\n\\n{{format_instructions}}\\n\\nQuestion: {{question}}")
    chain = prompt.partial(format_instructions=RULES) | llm
    return chain.invoke({{"context": context_text, "question": question}})
'''

TYPESCRIPT = '''import { ChatPromptTemplate } from "@langchain/core/prompts";

export async function answer(question: string, documentText: string, llm: any) {
  const rules = `Rules:
1. Answer only from the document above.
2. Cite the source id of every claim you make.
3. If the document does not say, reply that you do not know.
4. Keep the answer under two hundred words.
5. Return valid JSON with the keys answer and sources.`;
  const prompt = ChatPromptTemplate.fromTemplate("Here is the document:\\n{context}\\n\\n{format_instructions}\\n\\nQuestion: {question}");
  const filled = await prompt.partial({ format_instructions: rules });
  return filled.pipe(llm).invoke({ context: documentText, question });
}
'''


def _findings(code: str, path: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in lint_text(code, path=path, config=CONFIG)]


@pytest.mark.parametrize(("code", "path", "line"), [(PYTHON, "chain.py", 12), (TYPESCRIPT, "chain.ts", 10)])
def test_rules_written_in_at_their_slot_come_after_the_context(code, path, line):
    assert _findings(code, path) == [("PL305", line)]


SHARED = f'''from langchain_core.prompts import ChatPromptTemplate

RULES = {RULES}
TEMPLATE = ChatPromptTemplate.from_template("Here is the document:\\n{{context}}\\n\\n{{format_instructions}}\\n\\nQuestion: {{question}}")


def answer(question, context_text, llm):
    return (TEMPLATE.partial(format_instructions=RULES) | llm).invoke({{"context": context_text, "question": question}})
'''


def test_a_slot_every_fill_gives_one_text_reads_it():
    assert _findings(SHARED, "chain.py") == [("PL305", 9)]


def test_a_slot_filled_with_two_texts_holds_what_the_run_gives():
    twice = SHARED + '''

def answer_briefly(question, context_text, llm):
    return (TEMPLATE.partial(format_instructions="Answer in one line.") | llm).invoke({"context": context_text, "question": question})
'''
    assert _findings(twice, "chain.py") == []


def test_a_literal_in_a_slot_of_the_request_is_a_demo_value():
    demo = '''PREFERENCE = "I like quiet places with Italian food and a garden."
TEMPLATE = """These are the restaurants:
{restaurants}

The user's preference is: {user_input}
Provide the user with two recommended restaurants based on the preference, in short sentences without extra information."""


def recommend(client, restaurants):
    return client.complete(TEMPLATE.format(user_input=PREFERENCE, restaurants=restaurants))
'''
    assert _findings(demo, "recommend.py") == []
