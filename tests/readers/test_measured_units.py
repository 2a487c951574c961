"""Sources whose score is written as a measure's words and its number ("(similarity 91%)", "(score 0.91)"), whose
title is a link or the value of a label that names the source ("Document: Returns"), or whose heading carries
the score on the labelled line under it ("## Returns", then "Relevance: 0.91"). Each is reported and fixed to the
prompt without the score; no twin without a score reports one, and headings over lines no rule reports head nothing."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-07"}, "test")
UNITS = (("Returns", "0.91", "91%", "Returns are accepted within thirty days of delivery when the item is unused and boxed."),
         ("Shipping", "0.84", "84%", "Shipping is paid by the buyer unless the item arrives damaged or faulty on the day."))
WRITTEN = {
    "a link and a measure": ("Source: [{title}](https://help.example/{title}) (score {score})\n{text}\n", "Source: [{title}](https://help.example/{title})\n{text}\n"),
    "a source word's label and a percentage": ("Document: {title} (similarity {percent})\n{text}\n", "Document: {title}\n{text}\n"),
    "a heading over a labelled score": ("## {title}\nRelevance: {score}\n\n{text}\n", "## {title}\n\n{text}\n"),
}


def _prompt(written: str) -> str:
    units = "\n".join(written.format(title=t, score=s, percent=p, text=x) for t, s, p, x in UNITS)
    return f"Answer only from the context.\n\nContext:\n\n{units}\nQuestion: How long do I have?\n"


@pytest.mark.parametrize("form", sorted(WRITTEN))
def test_a_score_written_as_a_measure_or_under_the_heading_is_reported_and_removed(form):
    written, clean = WRITTEN[form]
    findings = lint_text(_prompt(written), path="p.txt", config=CONFIG)
    assert [f.code for f in findings] == ["PL102", "PL102"]
    assert fix_text(_prompt(written), path="p.txt", config=CONFIG) == _prompt(clean)
    assert [s.title for s in segment_text(_prompt(written)).sources] == ["Returns", "Shipping"]
    assert [f.code for f in lint_text(_prompt(clean), path="p.txt", config=CONFIG) if f.code == "PL102"] == []


def test_headings_over_lines_no_rule_reports_head_no_source():
    assert segment_text(_prompt("## {title}\nAudience: staff\n\n{text}\n")).sources == []
