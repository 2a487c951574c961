"""A row of labelled values between bars under a source's header ("PMID: 31 | Year: 2019 | Journal: BMJ") is
the source's fields, whatever the labels say; under a label of its own, a value no other output prints as
text ("Abstract: ...") is the chunk. Each form (assembled, Jinja, Python, TypeScript) is checked with its
clean twin."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02"}, "test")
ARTICLES = [("Aspirin and stroke", "31", "2026-05-01", "BMJ", "Aspirin lowers the risk of a second stroke."),
            ("Statins and LDL", "45", "2026-02-11", "NEJM", "Statins lower LDL cholesterol within weeks.")]


def _assembled(date_label: str = "Published") -> str:
    blocks = [f"[{n}] {title}\nPMID: {pmid} | {date_label}: {date} | Journal: {journal}\nAbstract: {text}"
              for n, (title, pmid, date, journal, text) in enumerate(ARTICLES, start=1)]
    return "Answer from the articles and cite their PMID.\n\n" + "\n\n".join(blocks) + "\n\nQuestion: Does aspirin help after a stroke?\n"


def _codes(text: str, path: str) -> list[str]:
    return [f.code for f in lint_text(text, path=path, config=CONFIG) if f.code.startswith("PL2")]


def test_a_row_of_labelled_values_is_the_sources_fields():
    text = _assembled()
    sources = segment_text(text).sources
    assert [[(f.label, f.value) for f in s.fields] for s in sources] == [
        [("pmid", pmid), ("published", date), ("journal", journal)] for _, pmid, date, journal, _ in ARTICLES
    ]
    assert [text[s.content.start : s.content.end] for s in sources] == [f"Abstract: {a[4]}" for a in ARTICLES]
    assert _codes(text, "p.txt") == ["PL201", "PL201"]
    # The twin without the date.
    assert _codes(text.replace(" | Published: 2026-05-01", "").replace(" | Published: 2026-02-11", ""), "p.txt") == []


def test_a_year_on_every_source_is_a_date():
    assert _codes(_assembled("Year").replace("2026-05-01", "2026").replace("2026-02-11", "2025"), "p.txt") == ["PL201", "PL201"]


@pytest.mark.parametrize("label", ["Year", "Published"])
def test_a_python_row_over_an_abstract_is_read_by_role(label):
    code = ("def format_context(articles):\n"
            "    parts = []\n"
            "    for i, article in enumerate(articles, 1):\n"
            "        title = article.get('title', 'No title')\n"
            "        abstract = article.get('abstract', '')\n"
            "        pmid = article.get('pmid', '')\n"
            f"        when = article.get('{label.lower()}', '')\n"
            "        journal = article.get('journal', '')\n"
            "        parts.append(\n"
            "            f\"[{i}] {title}\\n\"\n"
            f"            f\"PMID: {{pmid}} | {label}: {{when}} | Journal: {{journal}}\\n\"\n"
            "            f\"Abstract: {abstract}\\n\"\n"
            "        )\n"
            "    return '\\n---\\n'.join(parts)\n")
    assert _codes(code, "context.py") == ["PL201"]
    assert _codes(code.replace(f" | {label}: {{when}}", ""), "context.py") == []


def test_a_jinja_row_over_an_abstract_is_read_by_role():
    template = ("{% for a in articles %}[{{ loop.index }}] {{ a.title }}\n"
                "PMID: {{ a.pmid }} | Year: {{ a.year }} | Journal: {{ a.journal }}\n"
                "Abstract: {{ a.abstract }}\n{% endfor %}\nQuestion: {{ question }}\n")
    assert _codes(template, "p.j2") == ["PL201"]
    assert _codes(template.replace(" | Year: {{ a.year }}", ""), "p.j2") == []


@pytest.mark.parametrize("path", ["p.j2", "p.py"])
def test_of_two_unknown_values_the_one_under_a_text_label_is_the_chunk(path):
    # "Time : {start} → {end}" and "Excerpt: {snippet}": the end time stands beside another value, the excerpt opens the text.
    if path.endswith(".j2"):
        text = ("{% for hit in hits %}[Source {{ loop.index }}]\nVideo : {{ hit.title }}\nTime  : {{ hit.start_sec }} → {{ hit.end_sec }}\n"
                "Score : {{ hit.score }}\nExcerpt: {{ hit.snippet_html }}\n{% endfor %}")
    else:
        text = ("def context(hits):\n    blocks = []\n    for i, hit in enumerate(hits, start=1):\n"
                "        blocks.append(f\"[Source {i}]\\nVideo : {hit['title']}\\nTime  : {hit['start_sec']} → {hit['end_sec']}\\n\"\n"
                "                      f\"Score : {hit['score']:.3f}\\nExcerpt: {hit['snippet_html']}\")\n    return '\\n\\n'.join(blocks)\n")
    assert [f.code for f in lint_text(text, path=path, config=CONFIG) if f.code == "PL102"] == ["PL102"]
    twin = text.replace("Score : {{ hit.score }}\n", "").replace("f\"Score : {hit['score']:.3f}\\nExcerpt", "f\"Excerpt")
    assert [f.code for f in lint_text(twin, path=path, config=CONFIG) if f.code == "PL102"] == []



@pytest.mark.parametrize(("header", "removed"), [
    ("[1] Returns Policy | Updated: 2024-02-02", " | Updated: 2024-02-02"),
    ("[1] Returns Policy | Updated: 2024-02-02 | Page 4", "| Updated: 2024-02-02 "),
    ("Document 1: Returns Policy | Policies | Updated: 2024-02-02", " | Updated: 2024-02-02"),
])
def test_a_header_item_s_span_takes_its_separator_and_one_side_s_space(header, removed):
    """What a fix removes with an item: "Title | Updated: ..." leaves "Title", not "Title " (PL201 removes the span as is)."""
    from promptlint.engine.config import default_config
    from promptlint.engine.lint import segment_document
    from promptlint.readers.document import parse_text

    other = header.replace("Returns Policy", "Shipping FAQ").replace("1", "2", 1)
    text = f"Answer from the sources.\n\n{header}\nDamaged goods may be returned.\n\n{other}\nDelivery takes 3 days.\n\nQuestion: When?\n"
    [prompt] = segment_document(parse_text(text, "p.txt", ".txt"), default_config())
    [field] = [f for f in prompt.sources[0].fields if f.label == "updated"]
    assert text[field.span.start : field.span.end] == removed
