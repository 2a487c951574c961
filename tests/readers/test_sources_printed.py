"""A text that prints the sources a loop renders, by the name code binds their text to, is a prompt whatever
the names say (blind77 calebandcode: `buildDocumentContextBlock` maps snippets into `body`, then returns
`${header}\\n\\nExcerpts:\\n${body}\\n\\nInstructions:\\n${instructions}`, with `header` and `instructions` locals of
static text; the static instructions after the excerpts were an expected PL305, missed). The text is read with its
function's string locals written in (a list of lines joined among them), the locals so written in are no prompts
of their own, and the name is the context. Its twins: the same text printed, logged or raised, or with nothing of
its own around the name, is no prompt."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")
HEADER = "You are assisting the user with their uploaded document. Use only the following excerpts as ground truth."
RULES = ["Write a cohesive 2-3 sentence synthesis that references multiple excerpts.", "Cite each claim inline as (Source X, Page Y).",
         "If the answer is not present, say so."]

PYTHON = f'''def build_block(snippets):
    header = "{HEADER}"
    instructions = " ".join({RULES!r})
    body = "\\n\\n".join(f"{{s.id}} (Page {{s.page}}): {{s.text}}" for s in snippets)
    OPENf"{{header}}\\n\\nExcerpts:\\n{{body}}\\n\\nInstructions:\\n{{instructions}}"CLOSE
'''
TYPESCRIPT = f'''const buildBlock = (snippets: Snippet[]) => {{
  const header = "{HEADER}";
  const instructions = [{", ".join(repr(r).replace("'", '"') for r in RULES)}].join(" ");
  const body = snippets.map((s) => `${{s.id}} (Page ${{s.page}}): ${{s.text}}`).join("\\n\\n");
  OPEN`${{header}}\\n\\nExcerpts:\\n${{body}}\\n\\nInstructions:\\n${{instructions}}`CLOSE;
}};
'''
FILES = {"python": ("block.py", PYTHON), "typescript": ("block.ts", TYPESCRIPT)}
QUIET = {"python": {"printed": ("print(", ")"), "logged": ("logger.info(", ")"), "raised": ("raise ValueError(", ")")},
         "typescript": {"printed": ("console.log(", ")"), "logged": ("logger.info(", ")"), "raised": ("throw new Error(", ")")}}


def _findings(language: str, opening: str, closing: str = "") -> list[tuple[int, str]]:
    path, code = FILES[language]
    return [(f.line, f.code) for f in lint_text(code.replace("OPEN", opening).replace("CLOSE", closing), path=path, config=CONFIG)]


@pytest.mark.parametrize("language", FILES)
def test_a_text_that_prints_the_sources_by_the_name_they_are_bound_to_is_a_prompt(language):
    # One prompt, the locals written in: the instructions after the excerpts, and nothing reported of the locals alone.
    assert _findings(language, "return ") == [(5, "PL305")]


@pytest.mark.parametrize("language", FILES)
@pytest.mark.parametrize("how", ["printed", "logged", "raised"])
def test_the_same_text_printed_logged_or_raised_is_no_prompt(language, how):
    assert _findings(language, *QUIET[language][how]) == []


def test_a_name_printed_with_nothing_of_its_own_around_it_is_no_prompt():
    code = PYTHON.replace('f"{header}\\n\\nExcerpts:\\n{body}\\n\\nInstructions:\\n{instructions}"', 'f"{body}\\n"')
    assert "{body}" in code and "{header}" not in code
    assert [f.code for f in lint_text(code.replace("OPEN", "return ").replace("CLOSE", ""), path="block.py", config=CONFIG)] == []
