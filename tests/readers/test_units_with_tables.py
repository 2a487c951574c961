"""Sources written as lines of one skeleton ("[Apple | 10Q | 2025Q4 | Filed: 2026-01-30]" over each excerpt) are
read as units even when their own text holds lines that look like heads of another skeleton: a table's rows
("iPhone | $ | 85,269 |  |  |", whose empty cells no header writes) or a sentence with a bar or a slash. The
instructions' own example of a header ("e.g., [Apple | 10-K | Q4 2024 | Filed: ...]") is no unit (blind53a
anthcon). Generated over header forms and body lines, each with the twin of a run that shows no retrieved text."""

from __future__ import annotations

import pytest

from promptlint.readers.segment import segment_text

HEADERS = {"bracketed": "[{company} | {form} | {period} | Filed: {date}]", "bare": "{company} | {form} | {period} | Filed: {date}"}
BODIES = {
    "table": "| Three Months Ended |  |\n{item} | $ | {amount} |  |  | $ | 69,138 |  |\nNet sales of {item} reached {amount} million dollars in the quarter, on demand in every region.",
    "slashed sentence": "Revenue / cost ratios improved for {item}, as the filing notes | see Note 10.\nNet sales of {item} reached {amount} million dollars in the quarter, on demand in every region.",
}
FILINGS = [("10Q", "2025Q4", "2026-01-30", "iPhone", "85,269"), ("10Q", "2024Q4", "2025-01-31", "Mac", "8,386"),
           ("10K", "2023Q3", "2023-11-03", "Services", "30,013"), ("10Q", "2023Q2", "2023-05-05", "iPad", "8,595")]


def _prompt(header: str, body: str) -> str:
    example = HEADERS[header].format(company="Apple", form="10-K", period="Q4 2024", date="2024-11-01")
    units = "\n\n---\n\n".join(HEADERS[header].format(company="Apple", form=f, period=p, date=d) + "\n" + BODIES[body].format(item=i, amount=a)
                               for f, p, d, i, a in FILINGS)
    return (f"Answer using ONLY the filing excerpts below.\nCite the source header of each claim (e.g., {example}).\n\n"
            f"--- CONTEXT ---\n{units}\n--- END CONTEXT ---\n\nQUESTION: how much money is Apple making?\n")


@pytest.mark.parametrize("body", sorted(BODIES))
@pytest.mark.parametrize("header", sorted(HEADERS))
def test_units_whose_text_holds_other_skeletons_are_read(header, body):
    text = _prompt(header, body)
    sources = segment_text(text).sources
    assert [text[s.header.start : s.header.end] for s in sources] == [
        HEADERS[header].format(company="Apple", form=f, period=p, date=d) for f, p, d, _, _ in FILINGS]
    assert [[f.value for f in s.fields if f.label == "filed"] for s in sources] == [[d] for _, _, d, _, _ in FILINGS]


@pytest.mark.parametrize("header", sorted(HEADERS))
def test_the_twin_with_no_retrieved_text_holds_no_units(header):
    # Lines of the same skeleton whose text is the prompt's own rules, not excerpts: no sources.
    rules = "\n".join(HEADERS[header].format(company="Apple", form=f, period=p, date=d) + "\n| a |  |\nCite it." for f, p, d, _, _ in FILINGS)
    assert segment_text(f"Follow these rules:\n{rules}\n\nQUESTION: how much money is Apple making?\n").sources == []
