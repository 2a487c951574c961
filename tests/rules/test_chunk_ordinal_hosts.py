"""A source's template in code whose text a prompt of the same file prints (its host) leaves the question of
citation to that prompt's request, not to nobody: `[Chunk {i+1}]` heading each source, joined into `context` and
printed by `f"Context:\n{context}"`, is a chunk's number when none of the file's prompts asks the model to cite,
and a citation key when one does (blind75 Masooma-prog: an expected PL203 missed, the template was read as alone).
With no host in view, the key is left to the prompt elsewhere, as before. Generated over the ways code binds the
sources' text to a name (a join assigned, a loop adding to a string or a list joined after, a function returning the
join, in Python and TypeScript), each with its twins: a system message of the same request that asks to cite, and
a file that prints the text nowhere."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02", "select": ["PL203"]}, "test")
ASK = "Answer only from the context below and be concise."
CITE = "Answer only from the context below and cite the chunk numbers you use."

PYTHON_BINDINGS = {
    "join assigned": ('    context = "\\n\\n".join(f"[Chunk {i + 1}]\\n{c[\'text\']}" for i, c in enumerate(chunks))\n', "{context}"),
    "string added to": ('    context = ""\n    for i, c in enumerate(chunks):\n        context += f"[Chunk {i + 1}]\\n{c[\'text\']}\\n\\n"\n', "{context}"),
    "list joined after": ('    parts = []\n    for i, c in enumerate(chunks):\n        parts.append(f"[Chunk {i + 1}]\\n{c[\'text\']}")\n'
                          '    context = "\\n\\n".join(parts)\n', "{context}"),
    "function returning the join": (None, "{format_context(chunks)}"),
}
HELPER = 'def format_context(chunks):\n    return "\\n\\n".join(f"[Chunk {i + 1}]\\n{c[\'text\']}" for i, c in enumerate(chunks))\n\n\n'


def _python(binding: str, system: str, printed: bool = True) -> str:
    building, slot = PYTHON_BINDINGS[binding]
    slot = slot if printed else "{documents}"
    return (
        (HELPER if building is None else "")
        + "def answer(question, chunks, client):\n"
        + (building or "")
        + f'    system_prompt = "You are a support assistant. {system}"\n'
        + f'    user_prompt = f"""Context:\n{slot}\n\nQuestion: {{question}}"""\n'
        + '    return client.chat.completions.create(model="m", messages=[{"role": "system", "content": system_prompt}, '
        + '{"role": "user", "content": user_prompt}])\n'
    )


TYPESCRIPT_BINDINGS = {
    "map joined": "  const context = chunks.map((c, i) => `[Chunk ${i + 1}]\\n${c.text}`).join(\"\\n\\n\");\n",
    "list joined after": "  const parts: string[] = [];\n  for (const [i, c] of chunks.entries()) {\n    parts.push(`[Chunk ${i + 1}]\\n${c.text}`);\n  }\n"
                         "  const context = parts.join(\"\\n\\n\");\n",
}


def _typescript(binding: str, system: str, printed: bool = True) -> str:
    slot = "${context}" if printed else "${documents}"
    return (
        "export async function answer(question: string, chunks: Chunk[], documents: string) {\n"
        + TYPESCRIPT_BINDINGS[binding]
        + f"  const system = \"You are a support assistant. {system}\";\n"
        + f"  const prompt = `Context:\n{slot}\n\nQuestion: ${{question}}`;\n"
        + "  return await openai.chat.completions.create({ model: \"m\", messages: [{ role: \"system\", content: system }, { role: \"user\", content: prompt }] });\n"
        + "}\n"
    )


def _codes(text: str, path: str) -> list[str]:
    return [f.code for f in lint_text(text, path=path, config=CONFIG)]


@pytest.mark.parametrize("binding", list(PYTHON_BINDINGS))
def test_python_a_chunk_count_its_host_does_not_ask_to_cite(binding):
    assert _codes(_python(binding, ASK), "rag.py") == ["PL203"]
    # The twins: the request's system message asks to cite; the file prints the text nowhere.
    assert _codes(_python(binding, CITE), "rag.py") == []
    assert _codes(_python(binding, ASK, printed=False), "rag.py") == []


@pytest.mark.parametrize("binding", list(TYPESCRIPT_BINDINGS))
def test_typescript_a_chunk_count_its_host_does_not_ask_to_cite(binding):
    assert _codes(_typescript(binding, ASK), "rag.ts") == ["PL203"]
    assert _codes(_typescript(binding, CITE), "rag.ts") == []
    assert _codes(_typescript(binding, ASK, printed=False), "rag.ts") == []


def test_the_model_answer_made_from_the_text_is_no_host():
    """`answer = llm.invoke(context)` is what the model made of the text, not the text: a prompt printing
    `{answer}` does not hold the sources."""
    text = _python("join assigned", ASK, printed=False).replace("    system_prompt", "    answer = llm.invoke(context)\n    system_prompt").replace(
        "{documents}", "{answer}"
    )
    assert _codes(text, "rag.py") == []
