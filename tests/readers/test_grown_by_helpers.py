"""A prompt handed to a function of the same module that adds to it and returns it (`prompt =
self.add_ddl_to_prompt(prompt, ddl_list)`, vanna's text-to-SQL base class) is read with what that function adds:
its own words, and one slot named by what its loop iterates (`{ddl_list}`) for the pieces it adds per item. The
static rules added after the call then come after the request's data. Generated over a method and a module
function, in Python and TypeScript, and over the ways a block under it is titled; each with its twin, the rules
added before the call, where nothing is reported."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-06", "select": ["PL305"]}, "test")
TITLES = ["===Tables", "--- Tables ---", "Tables:", "## Tables"]
RULES = [
    "1. If the provided context is sufficient, generate a valid SQL query without any explanations.",
    "2. If the context is almost sufficient, generate an intermediate SQL query to find the distinct values.",
    "3. If the context is insufficient, explain why the query cannot be generated.",
    "4. Use the most relevant tables, and never invent a column.",
]

PY = '''class Base:
    def add_ddl_to_prompt(self, initial_prompt, ddl_list):
        if len(ddl_list) > 0:
            initial_prompt += "\\nTITLE\\n"
            for ddl in ddl_list:
                if self.fits(initial_prompt, ddl):
                    initial_prompt += f"{ddl}\\n\\n"
        return initial_prompt

    def get_sql_prompt(self, question, ddl_list):
        initial_prompt = "You are a SQL expert. Generate a query that answers the question from the context.\\n"
        FIRST
        SECOND
        return [self.system_message(initial_prompt), self.user_message(question)]
'''
PY_CALL = "initial_prompt = self.add_ddl_to_prompt(initial_prompt, ddl_list)"
PY_RULES = "initial_prompt += (\n" + "\n".join(f'            "{rule}\\n"' for rule in RULES) + "\n        )"

TS = '''export class Base {
  addDdlToPrompt(initialPrompt: string, ddlList: string[]): string {
    if (ddlList.length > 0) {
      initialPrompt += "\\nTITLE\\n";
      for (const ddl of ddlList) {
        initialPrompt += `${ddl}\\n\\n`;
      }
    }
    return initialPrompt;
  }

  getSqlPrompt(question: string, ddlList: string[]) {
    let initialPrompt = "You are a SQL expert. Generate a query that answers the question from the context.\\n";
    FIRST
    SECOND
    return [{ role: "system", content: initialPrompt }, { role: "user", content: question }];
  }
}
'''
TS_CALL = "initialPrompt = this.addDdlToPrompt(initialPrompt, ddlList);"
TS_RULES = "initialPrompt +=\n" + "\n".join(f'      "{rule}\\n" +' for rule in RULES) + '\n      "";'


def _code(language: str, title: str, rules_last: bool) -> str:
    template, call, rules = (PY, PY_CALL, PY_RULES) if language == "py" else (TS, TS_CALL, TS_RULES)
    first, second = (call, rules) if rules_last else (rules, call)
    return template.replace("TITLE", title).replace("FIRST", first).replace("SECOND", second)


@pytest.mark.parametrize("title", TITLES)
@pytest.mark.parametrize("language", ["py", "ts"])
def test_what_a_helper_adds_to_the_prompt_is_read_in_place(language, title):
    codes = [f.code for f in lint_text(_code(language, title, rules_last=True), path=f"base.{language}", config=CONFIG)]
    assert codes == ["PL305"]
    assert lint_text(_code(language, title, rules_last=False), path=f"base.{language}", config=CONFIG) == []
