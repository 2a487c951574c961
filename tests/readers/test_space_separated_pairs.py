"""A header's rest written as `key=value` items with spaces between ("[1] doc_id=8dcf... source=[REDACTED]") is read
as fields, each by its key, the value a run of non-spaces or a bracketed group; before, the line was one title and
its fields unread (blind88 UsamaWalayat12). The twins: one pair alone, and words with an `=` in a sentence, stay a title."""

from __future__ import annotations

import pytest

from promptlint.readers.segment import segment_text

IDS = ["8dcfbe88d7e6d0e32e1b3427bba083cdfff4dba0", "17f9b845e9f8bd79628f7c269b379582d7836891", "a65a4737ffd2796435f551e49cf277e0b53e0591"]


def _prompt(header):
    body = "".join(f"[{n}] {header.format(id=i)}\nThe text of section {n} about notices and payments that are due.\n\n" for n, i in enumerate(IDS, 1))
    return "Use ONLY the evidence below. Cite as [doc_index].\n\nQUESTION: How do I draft a notice?\n\n" + body


@pytest.mark.parametrize(("header", "fields"), [
    ("doc_id={id} source=[REDACTED]", [("doc id", "ID"), ("source", "[REDACTED]")]),
    ("doc_id={id} source=contracts.pdf page=4", [("doc id", "ID"), ("source", "contracts.pdf"), ("page", "4")]),
])
def test_space_separated_pairs_are_fields(header, fields):
    prompt = segment_text(_prompt(header))
    assert [[(f.label, f.value) for f in s.fields] for s in prompt.sources] == [[(label, i if value == "ID" else value) for label, value in fields] for i in IDS]


@pytest.mark.parametrize("header", ["doc_id={id}", "Notices where x=1 holds {id}"])
def test_the_twins_stay_as_they_were_read(header):
    prompt = segment_text(_prompt(header))
    assert all(len(s.fields) <= 1 for s in prompt.sources)
