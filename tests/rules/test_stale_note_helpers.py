"""A function named for staleness (`stale_note(d.updated_at)`, `memoryStalenessNote(...)`) makes its own note of
the date, shown only when the source is stale: the chapter's recommended form, no PL201. A function that writes
the date in another form (`format_date`, `toLocaleDateString`) shows the date, and PL201 fires. Seen in blind87
dragocz95: `const note = memoryStalenessNote(memoryAgeDays(memory.updated_at, now))`, then `${note ? ... : ''}`."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-07", "select": ["PL201"]}, "test")

FORMS = {
    "memory.py": ('def build(question, docs):\n    parts = []\n    for d in docs:\n        note = CALL(d.updated_at)\n'
                  '        parts.append(f"## {d.title} ({note})\\n{d.text}")\n    context = "\\n\\n".join(parts)\n'
                  '    return f"Answer from the sources.\\n{context}\\nQuestion: {question}"\n'),
    "memory.ts": ("export function build(question: string, docs: Doc[]): string {\n  const context = docs.map((d) => {\n"
                  "    const note = CALL(d.updated_at);\n    return `## ${d.title}${note ? ` (${note})` : ''}\\n${d.text}`;\n"
                  "  }).join('\\n\\n');\n  return `Answer from the sources.\\n${context}\\nQuestion: ${question}`;\n}\n"),
}


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize(("call", "reported"), [
    ("stale_note", False), ("memoryStalenessNote", False), ("outdatedWarning", False),
    ("format_date", True), ("formatDate", True),
])
def test_a_function_named_for_staleness_shows_its_own_note(path, call, reported):
    text = FORMS[path].replace("CALL", call)
    assert [f.code for f in lint_text(text, path=path, config=CONFIG)] == (["PL201"] if reported else [])
