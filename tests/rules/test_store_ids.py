"""PL203: an id a store gave each chunk (a UUID, a hash, a name with a zero-padded or "::"-joined index) shown on
every source costs its tokens and says nothing about the answer: as the key that heads each source, or as a field
named an id alone. A count ([1], [2]), a title or a writer's code ("SKU-4411") is none."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.meaning.values import machine_id

CONFIG = build({"today": "2026-12-02", "select": ["PL203"]}, "test")
TEXTS = [
    "the budget statement of the government for the 2025 financial year was presented to parliament in march",
    "electronic copies of the budget statement can be downloaded from the ministry website at no cost",
    "jan-dec y/y (%) budget rev. budget proj. prov.",
    "summary of central government operations for 2025 to 2028 with indicative figures for each year",
]


def _keyed(keys, rules="Rules:\n- Use only the retrieved context.\n- Do not invent facts."):
    blocks = "\n\n".join(f"[{key}] source=pdf doc=pdf_page_{n:03d}\n{text}" for n, (key, text) in enumerate(zip(keys, TEXTS)))
    return f"SYSTEM:\nYou are a grounded assistant.\n\nUSER:\nUser query:\nWho presented the budget?\n\nRetrieved context:\n{blocks}\n\n{rules}\n"


@pytest.mark.parametrize("value", ["large_pdf_page_003_001", "res-0000", "doc::c00007", "notes.txt::138", "4731e598-9cb5-490d-ba06-1898dcad1a28", "1f835d16", "S1-C000",
                                   "746894995501337991", "11059408771257319474"])
def test_a_stores_id_is_told_by_its_shape(value):
    assert machine_id(value)


@pytest.mark.parametrize("value", ["001", "2025-08-02", "SKU-4411", "ISO-9001", "v1.0.0", "returns-policy", "12345678", "deadbeef", "report_2021_final", "0.001",
                                   "978014300723", "+4915112345678", "123456789012345"])
def test_a_writers_name_or_a_number_is_no_stores_id(value):
    assert not machine_id(value)


def test_sources_keyed_by_their_chunk_ids_are_reported_without_a_fix():
    keys = ["large_pdf_page_003_001", "large_pdf_page_004_001", "large_pdf_page_038_007", "large_pdf_page_145_002"]
    text = _keyed(keys)
    found = [(f.code, f.line, f.fix) for f in lint_text(text, path="p.txt", config=CONFIG)]
    assert found == [("PL203", 9 + 3 * n, None) for n in range(4)]
    assert fix_text(text, path="p.txt", config=CONFIG) == text


@pytest.mark.parametrize("keys", [["1", "2", "3", "4"], ["budget", "copies", "table", "summary"], ["SKU-4411", "SKU-4412", "SKU-4413", "SKU-4414"]])
def test_sources_keyed_by_counts_or_names_are_not(keys):
    assert lint_text(_keyed(keys), path="p.txt", config=CONFIG) == []


def test_the_rules_after_the_last_source_are_no_part_of_its_text():
    """"Rules:" and instructions about the context after the last source end it: the source's text is its chunk's."""
    from promptlint.readers.segment import segment_text

    prompt = segment_text(_keyed(["a-0001", "a-0002", "a-0003", "a-0004"]))
    assert [prompt.text[s.content.start : s.content.end] for s in prompt.sources] == TEXTS
    # The twin: a chunk's own list of steps ("Steps:", "- Remove the cover.") speaks of no context and stays its text.
    steps = "Steps:\n- Remove the cover.\n- Lift the filter out."
    prompt = segment_text(_keyed(["a-0001", "a-0002", "a-0003", "a-0004"], rules=steps))
    assert prompt.text[prompt.sources[-1].content.start : prompt.sources[-1].content.end] == f"{TEXTS[-1]}\n\n{steps}"


def _results(ids, asks=""):
    results = [{"distance": 0.61, "id": key, "content": text} for key, text in zip(ids, TEXTS)]
    return f"You match resumes to the job.{asks}\n\nResults:\n{json.dumps(results, indent=1)}\n\nQuestion: Which results fit best?\n"


def test_a_field_named_id_that_holds_a_stores_id_is_reported_with_an_unsafe_fix():
    text = _results(["res-0000", "res-0001", "res-0002", "res-0003"])
    found = lint_text(text, path="p.txt", config=CONFIG)
    assert [(f.code, f.fix.applicability.name) for f in found] == [("PL203", "UNSAFE")] * 4
    # Asked to cite, the model cites the ids: reported, never removed.
    cited = _results(["res-0000", "res-0001", "res-0002", "res-0003"], asks=" Cite the results you use.")
    assert [(f.code, f.fix) for f in lint_text(cited, path="p.txt", config=CONFIG)] == [("PL203", None)] * 4


@pytest.mark.parametrize("ids", [["returns", "shipping", "warranty", "billing"], ["1", "2", "3", "4"]])
def test_a_field_named_id_that_holds_names_or_counts_is_not(ids):
    assert lint_text(_results(ids), path="p.txt", config=CONFIG) == []


@pytest.mark.parametrize("key, found", [("c.chunk_id", [("PL203", None)]), ("c.rank", [])])
def test_a_chunk_id_cited_as_the_key_of_a_source_built_in_code(key, found):
    """`[{c.chunk_id}]` heading each source in a prompt that asks for "[chunk_id]" citations: a chunk id the model
    cites, reported without a fix; a rank cited the same way is a count, and the key."""
    source = (
        'PROMPT = """Answer with inline [chunk_id] citations.\n\nCONTEXT:\n{context}\n\nQUESTION: {query}\n"""\n\n\n'
        "def format_context(chunks):\n"
        f'    return "\\n\\n".join(f"[{{{key}}}] (source: {{c.source}})\\n{{c.text}}" for c in chunks)\n\n\n'
        "def build(chunks, query):\n    return PROMPT.format(context=format_context(chunks), query=query)\n"
    )
    assert [(f.code, f.fix) for f in lint_text(source, path="answer.py", config=CONFIG)] == found


# A document's id over each of its chunks: the same id over two different texts names the document, not a chunk.
DOCUMENT = "4731e598-9cb5-490d-ba06-1898dcad1a28"
OTHER = "1a9d18a7-9499-47b6-abcc-4e82370028ee"


def test_an_id_over_two_different_texts_names_their_document_and_is_no_chunks():
    assert lint_text(_keyed([DOCUMENT, OTHER, DOCUMENT, OTHER]), path="p.txt", config=CONFIG) == []
    assert lint_text(_results([DOCUMENT, OTHER, DOCUMENT, OTHER]), path="p.txt", config=CONFIG) == []


def test_the_twin_whose_id_comes_back_over_the_same_text_is_the_chunk_retrieved_twice():
    """A chunk retrieved for two queries is written twice under its own id: still each chunk's id."""
    results = [{"distance": 0.61, "id": key, "content": TEXTS[n % 2]} for n, key in enumerate(["res-0000", "res-0001", "res-0000", "res-0001"])]
    text = f"You match resumes to the job.\n\nResults:\n{json.dumps(results, indent=1)}\n\nQuestion: Which results fit best?\n"
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG)] == ["PL203"] * 4


def _row_keyed(ids):
    blocks = "\n\n".join(f"[{n}] (collection=budget_docs, id={key})\n{text}" for n, (key, text) in enumerate(zip(ids, TEXTS), 1))
    return f"You answer from the sources.\n\nQUESTION: Who presented the budget?\n\nSOURCES:\n{blocks}\n\nANSWER:\n"


@pytest.mark.parametrize("ids", [["3159", "3165", "3157", "3158"], ["12", "40", "77", "103"], ["3157", "3158", "3159", "3160"]])
def test_a_field_named_id_holding_a_stores_row_numbers_is_reported(ids):
    """`(collection=la_plata_county_code, id=3159)` on each source (blind77 mzienert): numbers no renderer counts, each
    source its own, are the rows the store gave the chunks."""
    found = [(f.code, f.line) for f in lint_text(_row_keyed(ids), path="p.txt", config=CONFIG)]
    assert found == [("PL203", 6 + 3 * n) for n in range(4)]


@pytest.mark.parametrize("ids", [["1", "2", "3", "4"], ["0", "1", "2", "3"], ["3159", "3159", "3165", "3165"]])
def test_a_count_or_a_number_two_texts_share_is_no_row_number(ids):
    assert lint_text(_row_keyed(ids), path="p.txt", config=CONFIG) == []
    # Nor are two sources enough to tell row numbers from anything else.
    assert lint_text(_row_keyed(["3159", "3165"]), path="p.txt", config=CONFIG) == []


def _bracketed(keys):
    blocks = "\n\n".join(f"[SOURCE: {key}]\n{text}" for key, text in zip(keys, TEXTS))
    return f"Question:\nWho presented the budget?\n\nContext (each block has provenance):\n\n{blocks}\n\nTask:\nAnswer from the context above.\n"


def test_a_source_named_by_its_stores_id_is_reported():
    # blind89s SapientSapiens: "[SOURCE: 746894995501337991]" over each chunk, a 64-bit id its store gave it.
    keys = ["746894995501337991", "3867695687837246310", "11059408771257319474", "6473252847633315921"]
    found = lint_text(_bracketed(keys), path="prompt.txt", config=CONFIG)
    assert [(f.line, f.code) for f in found] == [(6, "PL203"), (9, "PL203"), (12, "PL203"), (15, "PL203")]
    # The twin: sources named by their files, or by numbers a writer or a renderer chose, show no id.
    assert lint_text(_bracketed(["budget.pdf", "statement.pdf", "tables.pdf", "summary.pdf"]), path="prompt.txt", config=CONFIG) == []
    assert lint_text(_bracketed(["4", "2", "9", "7"]), path="prompt.txt", config=CONFIG) == []


def _doc_ids(ids):
    blocks = "\n\n".join(f"[{n}] doc_id={key} source=budget\n{text}" for n, (key, text) in enumerate(zip(ids, TEXTS), 1))
    return f"Use only the evidence below.\n\nQUESTION: Who presented the budget?\n\n{blocks}\n\nAnswer in one paragraph.\n"


def test_an_id_of_a_document_on_every_source_is_reported():
    # blind88s UsamaWalayat: "[1] doc_id=8dcfbe88... source=..." on each source, a 40-hex id its store gave it.
    ids = ["8dcfbe88d7e6d0e32e1b3427bba083cdfff4dba0", "17f9b845e9f8bd79628f7c269b379582d7836891", "a65a4737ffd2796435f551e49cf277e0b53e0591", "ec2b5ab9fac878221d75afc541808a494d8fd57d"]
    assert [(f.line, f.code) for f in lint_text(_doc_ids(ids), path="prompt.txt", config=CONFIG)] == [(5, "PL203"), (8, "PL203"), (11, "PL203"), (14, "PL203")]
    # The twins: one id over two texts names the document they share; a name is no store's id.
    shared = [ids[0], ids[0], ids[1], ids[2]]
    assert lint_text(_doc_ids(shared), path="prompt.txt", config=CONFIG) == []
    assert lint_text(_doc_ids(["budget-2025", "statement", "tables", "summary"]), path="prompt.txt", config=CONFIG) == []
    # Nor is a code a writer gave each record, an index in it: "Policy ID: NIC-POLICY-AL-003".
    assert lint_text(_doc_ids(["NIC-POLICY-RM-001", "NIC-POLICY-DG-002", "NIC-POLICY-AL-003", "NIC-POLICY-IR-005"]), path="prompt.txt", config=CONFIG) == []
