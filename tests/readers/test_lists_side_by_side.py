"""A loop that fills two lists from the same item fills two texts, never one: `context_parts` joined into the prompt,
and `sources_used` handed to the response the endpoint returns; what the second shows is not in the prompt. A list
joined into another (`lines = [" | ".join(header_bits)]`, then `parts.append("\\n".join(lines))`) is a piece of that
one text."""

from __future__ import annotations

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-07", "select": ["PL102", "PL203"]}, "test")

ENDPOINT = '''
async def answer(request):
    context_parts = []
    sources_used = []
    for i, result in enumerate(request.results[:5]):
        context_parts.append(f"[Source {i+1}] {result.title}\\n{result.content[:500]}")
        sources_used.append(f"{result.title} (source: {result.origin}, score: {result.score:.2f})")
    context = "\\n\\n".join(context_parts)
    prompt = f"""Answer the question from the search results.

Question: {request.query}

Search results:
{context}
"""
    reply = await client.complete(prompt)
    return AnswerResponse(answer=reply, sources_used=sources_used[:10])
'''


def _findings(code: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in lint_text(code, path="endpoint.py", config=CONFIG)]


def test_a_list_handed_to_the_response_is_not_the_prompts():
    assert _findings(ENDPOINT) == []


def test_the_same_lines_added_to_one_list_are_one_text():
    one_list = ENDPOINT.replace("        sources_used.append(", "        context_parts.append(")
    assert _findings(one_list) == [("PL102", 7)]


def test_a_list_joined_into_another_is_a_piece_of_one_text():
    code = '''
def build_context(docs):
    parts = []
    for i, doc in enumerate(docs, start=1):
        meta = doc.metadata or {}
        section = meta.get("section")
        chunk_index = meta.get("chunk_index")
        header_bits = [f"Source {i}"]
        if chunk_index is not None:
            header_bits.append(f"chunk_index={chunk_index}")
        lines = [" | ".join(header_bits)]
        if section:
            lines.append(f"Section: {section}")
        lines.append(doc.page_content.strip())
        parts.append("\\n".join(lines))
    return "\\n\\n".join(parts)
'''
    assert _findings(code) == [("PL203", 10)]
