"""PL104 on a knowledge graph's summaries sent beside the chunks they were written from.

GraphRAG, nano-graphrag and LightRAG send entity descriptions, relations and community reports, each
written by a model at ingest from the chunks, beside a section of those chunks. Generated over the
heading styles, the summaries' section names and the chunks', as a template and as the prompt sent;
twins: summaries alone, chunks alone, and one heading that only names both.
"""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02"}, "test")
HEADINGS = {"dashes": "-----{name}-----", "dashes with a tag": "-----{name}(KG)-----", "markdown": "## {name}", "equals": "=== {name} ==="}
SUMMARIES = [("Entities", "Relationships"), ("Reports",), ("Community Reports", "Entities")]
CHUNKS = ["Sources", "Document Chunks", "Text Units"]
BODIES = {
    "template": "{{{slot}}}",
    "sent": '[{{"id": 1, "text": "Acme moved its headquarters to Lyon in 2021 after the merger with Borel SA."}}]',
}


def _prompt(heading: str, summaries: tuple[str, ...], chunks: str | None, body: str) -> str:
    sections = [*summaries, *([chunks] if chunks else [])]
    written = "\n\n".join(HEADINGS[heading].format(name=name) + "\n```json\n" + BODIES[body].format(slot=name.lower().replace(" ", "_")) + "\n```" for name in sections)
    return "---Role---\nYou answer from the knowledge base below.\n\n" + written + "\n\n---Response Rules---\nCite the chunks you use.\n"


@pytest.mark.parametrize("body", sorted(BODIES))
@pytest.mark.parametrize("chunks", CHUNKS)
@pytest.mark.parametrize("summaries", SUMMARIES)
@pytest.mark.parametrize("heading", sorted(HEADINGS))
def test_graph_summaries_beside_their_chunks_are_derived_text(heading, summaries, chunks, body):
    text = _prompt(heading, summaries, chunks, body)
    found = [f for f in lint_text(text, path="prompt.txt", config=CONFIG) if f.code == "PL104"]
    assert [(f.line, f.message.split("(")[1].split(")")[0]) for f in found] == [(4, ", ".join(f"'{s}'" for s in summaries))]
    assert fix_text(text, path="prompt.txt", config=CONFIG) == text


@pytest.mark.parametrize("twin", ["summaries alone", "chunks alone", "one heading naming both"])
def test_no_finding_without_both_sections(twin):
    if twin == "summaries alone":
        text = _prompt("dashes", ("Entities", "Relationships"), None, "template")
    elif twin == "chunks alone":
        text = _prompt("dashes", (), "Document Chunks", "template")
    else:
        text = _prompt("dashes", (), "Knowledge Graph and Document Chunks", "template")
    assert [f for f in lint_text(text, path="prompt.txt", config=CONFIG) if f.code == "PL104"] == []
