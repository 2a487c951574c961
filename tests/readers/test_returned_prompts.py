"""A function named for prompts that builds its prompt as a list of sections pushed or appended one by one,
then returns them joined, is read as the one text it returns: in TypeScript and in Python, returned bare, in
a mapping under a key that says prompt (`{ system: ..., urlList }`), or through a call that only tidies the
joined text (`removeExtraLineBreaks(sections.join("\\n\\n"))`). Each case with its twin, the same sections
with the static rules pushed before the per-request context, where nothing is reported."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-06", "select": ["PL305"]}, "test")
RULES = ("Choose one of the following actions and reply with the schema of that action. "
         "Search the web when the context does not hold the answer, and visit the most relevant URLs first. "
         "Answer only when you are certain, and cite the URLs you used for every claim you make.")

TS = """function getPrompt(context: string[], question: string) {
  const sections: string[] = [];
  sections.push(`You are an advanced research agent. You answer the user question with care.`);
  FIRST
  SECOND
  return RETURNED;
}
"""
TS_CONTEXT = "if (context.length) {\n    sections.push(`<context>\\n${context.join('\\n')}\\n</context>`);\n  }"
TS_RULES = f"sections.push(`{RULES}`);"
TS_RETURNS = {
    "bare": 'sections.join("\\n\\n")',
    "property": '{\n    system: sections.join("\\n\\n"),\n    urlList: [],\n  }',
    "tidied property": '{\n    system: removeExtraLineBreaks(sections.join("\\n\\n")),\n    urlList: [],\n  }',
}

PY = '''def get_prompt(context, question):
    sections = ["You are an advanced research agent. You answer the user question with care."]
    FIRST
    SECOND
    return RETURNED
'''
PY_CONTEXT = 'if context:\n        sections.append(f"<context>\\n{context}\\n</context>")'
PY_RULES = f'sections.append("{RULES}")'
PY_RETURNS = {
    "bare": '"\\n\\n".join(sections)',
    "property": '{"system": "\\n\\n".join(sections), "urls": []}',
    "tidied property": '{"system": tidy("\\n\\n".join(sections)), "urls": []}',
}


def _code(language: str, returned: str, rules_last: bool) -> str:
    template, context, rules, returns = (TS, TS_CONTEXT, TS_RULES, TS_RETURNS) if language == "ts" else (PY, PY_CONTEXT, PY_RULES, PY_RETURNS)
    first, second = (context, rules) if rules_last else (rules, context)
    return template.replace("FIRST", first).replace("SECOND", second).replace("RETURNED", returns[returned])


@pytest.mark.parametrize("returned", sorted(TS_RETURNS))
@pytest.mark.parametrize("language", ["ts", "py"])
def test_sections_pushed_then_returned_joined_are_one_prompt(language, returned):
    text = _code(language, returned, rules_last=True)
    found = [(f.code, f.line) for f in lint_text(text, path=f"prompt.{language}", config=CONFIG)]
    returned_at = next(n for n, row in enumerate(text.split("\n"), 1) if "join" in row and ("return" in row or "system" in row))
    assert found == [("PL305", returned_at)]
    assert lint_text(_code(language, returned, rules_last=False), path=f"prompt.{language}", config=CONFIG) == []


def test_a_function_not_named_for_prompts_is_not_read_so():
    text = _code("ts", "bare", rules_last=True).replace("getPrompt", "collectLines")
    assert lint_text(text, path="lines.ts", config=CONFIG) == []
