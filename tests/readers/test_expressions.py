"""What a slot prints, read through formatting: Jinja by its parser, Python by ast."""

from __future__ import annotations

import pytest

from promptlint.readers.expressions import slot_reference

# (slot as written, the variable and keys it prints); None: it prints nothing of an item.
SLOTS = [
    ("{{ c.modified_at.strftime('%d %b %Y') }}", "c.modified_at"),
    ("{{ '%.3f' % hit.rerank_score }}", "hit.rerank_score"),
    ('{{ doc.meta.get("similarity") | round(2) }}', "doc.meta.similarity"),
    ("{{ doc.date | default('n/a') }}", "doc.date"),
    ("{{ d.score if d.score else '' }}", "d.score"),
    ("{{ 'Score: ' ~ d.score }}", "d.score"),
    ("{{ (d.score * 100) | round }}", "d.score"),
    ("{{ d.updated or '' }}", "d.updated"),
    ("{{ '{:.2f}'.format(d.score) }}", "d.score"),
    ("{{ doc['@search.rerankerScore'] }}", "doc.@search.rerankerScore"),
    ("{{-doc.metadata['chunk_no']-}}", "doc.metadata.chunk_no"),
    ("{{score}}", "score"),
    ("{{ hits[0].score }}", "hits.score"),
    ("{{ history[-1].role }}", "history.role"),
    ("{score_2:.2f}", "score_2"),
    ("{row['published']}", "row.published"),
    ('{d.metadata["date"]}', "d.metadata.date"),
    ("{d.created_at:%Y-%m-%d}", "d.created_at"),
    ("{round(d.score, 2)}", "d.score"),
    ('{"{:.2f}".format(d["score"])}', "d.score"),
    ("{d.get('chunk_index', 0)}", "d.chunk_index"),
    ("{x!r}", "x"),
    ("{hits[0].score:.1%}", "hits.score"),
    ("{'%.2f' % hit.score}", "hit.score"),
    ("{hit.score if hit.score else ''}", "hit.score"),
    ("{{ render(doc) }}", None),
    ("{{#each docs}}", None),
    ("{}", None),
    ("{{ }}", None),
]


@pytest.mark.parametrize(("slot", "chain"), SLOTS)
def test_a_slot_is_read_through_its_formatting(slot, chain):
    found = slot_reference(slot)
    assert (found.chain if found else None) == chain
