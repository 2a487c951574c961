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


# PL201 on the same sections: every record of a graph's summaries carrying the day it was ingested (LightRAG's
# `created_at`, blind85 OnepointConsultingLtd, blind90 chenqp), written as LightRAG has written its records.
ENTITIES = [("Acme", "Acme is a maker of garden tools based in Lyon.", "2025-08-14 01:23:53"),
            ("Borel SA", "Borel SA merged with Acme in 2021.", "2025-08-14 01:23:54")]
RECORDS = {
    "JSON array": lambda rows: "```json\n[" + ", ".join(f'{{"id": {n}, "entity": "{e}", "description": "{d}", "created_at": "{c}"}}' for n, (e, d, c) in enumerate(rows, 1)) + "]\n```",
    "JSON lines": lambda rows: "```json\n" + "\n".join(f'{{"entity": "{e}", "description": "{d}", "created_at": "{c}"}}' for e, d, c in rows) + "\n```",
    "CSV": lambda rows: "```csv\nid,entity,description,created_at\n" + "\n".join(f'{n},{e},"{d}",{c}' for n, (e, d, c) in enumerate(rows, 1)) + "\n```",
}


def _graph_prompt(records: str, heading: str = "-----Entities(KG)-----") -> str:
    chunks = '-----Document Chunks(DC)-----\n```json\n[{"id": 1, "content": "Acme moved its headquarters to Lyon in 2021 after the merger with Borel SA."}]\n```'
    return f"---Role---\nYou answer from the knowledge base below.\n\n{heading}\n{records}\n\n{chunks}\n\n---Response Rules---\nCite the chunks you use.\n"


@pytest.mark.parametrize("form", sorted(RECORDS))
def test_a_date_on_every_record_of_a_graphs_summaries_is_reported_once_without_a_fix(form):
    text = _graph_prompt(RECORDS[form](ENTITIES))
    found = [f for f in lint_text(text, path="prompt.txt", config=CONFIG) if f.code == "PL201"]
    assert [(f.line, text.splitlines()[f.line - 1][f.column - 1 : f.column - 1 + len("created_at")], f.fix) for f in found] == [
        (next(n for n, line in enumerate(text.splitlines(), 1) if "created_at" in line), "created_at", None)]
    assert found[0].message.startswith("Every record of the knowledge graph's summaries ('Entities') carries its date ('created_at')")
    assert fix_text(text, path="prompt.txt", config=CONFIG) == text


@pytest.mark.parametrize("twin", ["one record dated", "no date field", "a section of its own notes", "one record"])
def test_no_date_finding_where_the_graphs_records_are_not_all_dated(twin):
    rows = ENTITIES
    heading = "-----Entities(KG)-----"
    if twin == "one record dated":
        rows = [ENTITIES[0], (ENTITIES[1][0], ENTITIES[1][1], "")]
    elif twin == "a section of its own notes":
        heading = "## Release notes"
    elif twin == "one record":
        rows = ENTITIES[:1]
    records = RECORDS["JSON array"](rows)
    if twin == "no date field":
        records = records.replace('"created_at"', '"source_id"')
    text = _graph_prompt(records, heading)
    assert [f for f in lint_text(text, path="prompt.txt", config=CONFIG) if f.code == "PL201"] == []
