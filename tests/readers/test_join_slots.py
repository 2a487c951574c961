"""A field that joins items with a written separator (`${xs.map(x => `- ${x.title}`).join('\\n')}` in JavaScript,
`{", ".join(titles)}` in Python) is one slot of the prompt, named by its method: what the code writes inside it is
no text of the prompt's. Each with its twin, where text the prompt writes after it is read as before."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers.segment.vocab import SLOT

CONFIG = build({"today": "2026-12-02", "select": ["PL305"]}, "test")

JS = """export function build(insights: any, question: string) {
  const contextBlock = `Live Summary: ${insights.summary}

Decisions so far:
${insights.decisions.map((d) => `- ${d.title} (${d.timestamp || 'time unknown'})`).join('\\n') || '- None yet'}
AFTER`;
  const systemPrompt = `You are the assistant. Answer the user's question using ONLY the context below. Be concise and specific.

${contextBlock}`;
  return `${systemPrompt}\\n\\nQuestion: ${question}`;
}
"""
AFTER = ("Answer in the user's own language and cite the decision you rely on.\n"
         "Keep every answer under five sentences, and say so when the meeting has not covered the question.\n"
         "Never guess an owner or a deadline that the context does not state.")


@pytest.mark.parametrize("field", ["{', '.join(titles)}", '{"\\\\n".join(x.text for x in hits)}', "{'; '.join(names) or 'none'}"])
def test_a_join_with_a_written_separator_is_one_slot(field):
    assert SLOT.fullmatch(field) is not None


def test_a_joined_list_in_a_javascript_template_writes_no_text_of_the_prompt():
    assert lint_text(JS.replace("AFTER", ""), path="build.ts", config=CONFIG) == []


def test_the_twin_with_instructions_after_the_data_breaks_the_cache_boundary():
    assert [f.code for f in lint_text(JS.replace("AFTER", AFTER), path="build.ts", config=CONFIG)] == ["PL305"]
