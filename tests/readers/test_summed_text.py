"""A prompt written as a sum of literals (`"You are a tutor. " + f"Context: {context}" + "Answer briefly."`) is
read as the one text it adds up to, its other terms slots, in Python and in TypeScript, wherever a prompt is
taken from: a name that says prompt, what a function named for prompts returns, a property, a prompt class's
argument. Generated over those places and the kinds of terms, each with its twin: the instructions before the
context, where nothing is reported; and a sum of names alone, which is no prompt of the module's own."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers import jssource, pysource

CONFIG = build({"today": "2026-12-02", "select": ["PL305"]}, "test")
RULE_LINES = ["If the question asks for a summary, write two to four sentences using only the context.",
              "If the user asks for a simplified answer, give a short version first.", "Format every equation in LaTeX."]
RULES = "\\n".join(RULE_LINES)  # as the code writes it
# (language, place) -> the code with VALUE standing for the sum's terms.
PLACES = {
    ("py", "named"): "QA_PROMPT = (\n    VALUE\n)\n",
    ("py", "returned"): "def build_rag_prompt(query, context):\n    return (\n        VALUE\n    )\n",
    ("py", "class argument"): "prompt = PromptTemplate.from_template(\n    VALUE\n)\n",
    ("ts", "named"): "const QA_PROMPT =\n  VALUE;\n",
    ("ts", "returned"): "export function buildRagPrompt(query: string, context: string) {\n  return (\n    VALUE\n  );\n}\n",
    ("ts", "property"): "const request = {\n  model: 'gpt-4o',\n  system:\n    VALUE,\n  temperature: 0,\n};\n",
}
# The context as a slot of a literal, or as a name added between literals.
TERMS = {
    ("py", "slots"): ['"You are a study assistant. "', 'f"CONTEXT:\\n{context}\\n\\n"', 'f"QUESTION: {query}\\n\\n"', f'"{RULES}"'],
    ("py", "names"): ['"You are a study assistant.\\n\\nCONTEXT:\\n"', "context", '"\\n\\nQUESTION: "', "query", f'"\\n\\n{RULES}"'],
    ("ts", "slots"): ['"You are a study assistant. "', "`CONTEXT:\\n${context}\\n\\n`", "`QUESTION: ${query}\\n\\n`", f"'{RULES}'"],
    ("ts", "names"): ['"You are a study assistant.\\n\\nCONTEXT:\\n"', "context", "'\\n\\nQUESTION: '", "query", f"'\\n\\n{RULES}'"],
}


def _code(language: str, place: str, terms: list[str]) -> str:
    indent = "\n" + " " * (8 if place == "returned" and language == "py" else 4) + "+ "
    return PLACES[(language, place)].replace("VALUE", indent.join(terms))


def _found(language: str, text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_text(text, path=f"prompt.{language}", config=CONFIG)]


@pytest.mark.parametrize("terms", ["slots", "names"])
@pytest.mark.parametrize(("language", "place"), sorted(PLACES))
def test_a_sum_of_literals_is_one_text(language, place, terms):
    text = _code(language, place, TERMS[(language, terms)])
    read = (pysource if language == "py" else jssource).templates_in(text)
    assert len(read) == 1
    opening = "You are a study assistant.\n\nCONTEXT:\n" if terms == "names" else "You are a study assistant. CONTEXT:\n"
    assert read[0].text.replace("${", "{") == opening + "{context}\n\nQUESTION: {query}\n\n" + "\n".join(RULE_LINES)
    first = next(n for n, row in enumerate(text.split("\n"), 1) if "You are a study assistant" in row)
    assert _found(language, text) == [(first, "PL305")]
    # The twin: the same rules said before the context.
    reordered = [TERMS[(language, terms)][0], TERMS[(language, terms)][-1].replace("\\n\\n", ""), *TERMS[(language, terms)][1:-1]]
    assert _found(language, _code(language, place, reordered)) == []


@pytest.mark.parametrize("language", ["py", "ts"])
def test_a_sum_of_names_alone_is_no_prompt(language):
    text = _code(language, "named", ["header", "context", "footer"])
    assert (pysource if language == "py" else jssource).templates_in(text) == []


# A prompt function that returns an array of lines joined (blind53b jdoy5519): the lines are one text, its names slots.
def _joined_lines(rules_first: bool) -> str:
    rules = [f'    "{line}",' for line in RULE_LINES]
    middle = ['    "Context snippets:",', "    context,", '    "",', '    "Question:",', "    question,", '    "",']
    lines = [*rules, *middle] if rules_first else [*middle, '    "Instructions:",', *rules]
    return "export function buildUserPrompt(question: string, context: string) {\n  return [\n" + "\n".join(lines) + '\n  ].join("\\n");\n}\n'


def test_an_array_of_lines_a_prompt_function_returns_joined_is_one_text():
    text = _joined_lines(rules_first=False)
    [template] = jssource.templates_in(text)
    assert template.text == "Context snippets:\n{context}\n\nQuestion:\n{question}\n\nInstructions:\n" + "\n".join(RULE_LINES)
    assert _found("ts", text) == [(2, "PL305")]  # at the array
    assert _found("ts", _joined_lines(rules_first=True)) == []
