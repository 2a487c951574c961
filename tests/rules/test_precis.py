"""PL104 on a page's précis: a description or abstract sent beside the page's own text.

It is derived text only where the page's text stands under a content label of its own; without
one, the précis may be all the content the source has. Each case is generated over the précis
labels, the content labels and the input forms, with its clean twin.
"""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

PAGES = [
    ("https://example.com/refunds", "Refund rules", "How to claim a refund.",
     "Refunds are accepted within 30 days of delivery. Damaged goods are refunded in full after inspection by the warehouse team."),
    ("https://example.com/shipping", "Shipping times", "How long shipping takes.",
     "Standard shipping takes 3-5 business days. Express shipping arrives the next day when ordered before noon."),
]
PRECIS = ["Description", "Abstract", "Meta description", "Synopsis", "Snippet"]
CONTENT = ["Content", "Text", "Page content", "Body"]


def _records(precis, content):
    lines = []
    for url, title, summary, text in PAGES:
        body = f"{content}: {text}" if content else text
        lines.append(f"URL: {url}\nTitle: {title}\n{precis}: {summary}\n{body}")
    return "\n\n".join(lines)


def _forms(precis, content):
    records = _records(precis, content)
    text = f"Answer using the search results.\n\n<search_results>\n{records}\n</search_results>\n\nQuestion: How long do refunds take?\n"
    request = {"model": "m", "messages": [{"role": "system", "content": f"Answer using the search results.\n\n<search_results>\n{records}\n</search_results>"},
                                          {"role": "user", "content": "How long do refunds take?"}]}
    headed = "\n\n".join(f"**Document {n}:**\n" + "\n".join(f"**{line.replace(': ', ':** ', 1)}" if ": " in line.split("\n")[0][:20] else line
                                                            for line in record.split("\n")) for n, record in enumerate(records.split("\n\n"), 1))
    return {"prompt.txt": text, "request.json": json.dumps(request),
            "headed.txt": f"Answer using the search results.\n\n{headed}\n\nQuestion: How long do refunds take?\n"}


def _pl104(text, path):
    return [f for f in lint_text(text, path=path, config=CONFIG) if f.code == "PL104"]


@pytest.mark.parametrize("content", CONTENT)
@pytest.mark.parametrize("precis", PRECIS)
def test_a_precis_beside_the_labelled_page_text_is_derived_text(precis, content):
    for path, text in _forms(precis, content).items():
        found = _pl104(text, path)
        assert [f.message.split("'")[1].strip("*:") for f in found] == [precis, precis], (path, found)


@pytest.mark.parametrize("precis", PRECIS)
def test_a_precis_is_the_content_when_no_label_says_where_the_page_text_is(precis):
    for path, text in _forms(precis, "").items():
        assert _pl104(text, path) == [], path


@pytest.mark.parametrize("label", ["Product", "Category"])
def test_another_field_beside_labelled_content_is_no_precis(label):
    for path, text in _forms(label, "Content").items():
        assert _pl104(text, path) == [], path


def test_the_fix_removes_the_precis_and_leaves_the_page_text_whole():
    text = _forms("Description", "Content")["prompt.txt"]
    fixed = fix_text(text, path="prompt.txt", config=CONFIG)
    assert fixed == text.replace("Description: How to claim a refund.\n", "").replace("Description: How long shipping takes.\n", "")


@pytest.mark.parametrize("precis", ["Snippet", "Description"])
@pytest.mark.parametrize("key", ["r['snippet']", "clean_snippet"])
def test_a_precis_a_loop_prints_above_the_page_text_is_derived_text(precis, key):
    """`**Snippet:** {clean_snippet}` then `**Content:** {context}`, both computed from the item: the snippet is the
    search engine's précis of the page whose text follows."""
    code = ("def build_context(results):\n    out = ''\n    for i, r in enumerate(results):\n"
            "        clean_snippet = re.sub('<[^<]+?>', '', r['snippet'])\n        ok, extracted = extract_around(r['url'], r['snippet'])\n"
            "        out += f'**Document {i + 1}:**\\n'\n        out += f\"**Title:** {r['title']}\\n\"\n"
            f"        out += f'**{precis}:** {{{key}}}\\n'\n        out += f'**Content:** {{extracted}}\\n\\n'\n    return out\n")
    assert [(f.line, f.code) for f in lint_text(code, path="build.py", config=CONFIG)] == [(8, "PL104")]
    # The twin: with no content label, the snippet is all the text the source has.
    twin = code.replace("        out += f'**Content:** {extracted}\\n\\n'\n", "")
    assert [f.code for f in lint_text(twin, path="build.py", config=CONFIG) if f.code == "PL104"] == []


def test_a_snippet_is_the_pages_own_words_and_its_removal_is_unsafe():
    """A snippet is cut from the page, and the page text beside it may be cut to a limit: no safe fix removes it."""
    text = _forms("Snippet", "Content")["prompt.txt"]
    assert fix_text(text, path="prompt.txt", config=CONFIG) == text
    unsafe = fix_text(text, path="prompt.txt", config=CONFIG, unsafe=True)
    assert unsafe == text.replace("Snippet: How to claim a refund.\n", "").replace("Snippet: How long shipping takes.\n", "")


# Derived text drawn from beyond the chunk: the blurb contextual retrieval writes at ingest to situate a chunk in its
# document, a summary of the whole document or of the section before it.
@pytest.mark.parametrize("line", ["{{ c.contextualized_content }}", "Context: {{ c.contextualized_content }}", "{{ c.situated_context }}",
                                  "Document summary: {{ c.doc_summary }}", "{{ c.prev_section_summary }}"])
def test_derived_text_from_beyond_the_chunk_has_only_an_unsafe_fix(line):
    text = f"Answer from the sources.\n\n{{% for c in chunks %}}\n[{{{{ loop.index }}}}] {{{{ c.title }}}}\n{line}\n{{{{ c.text }}}}\n{{% endfor %}}\n\nQuestion: {{{{ question }}}}\n"
    found = lint_text(text, path="answer.j2")
    assert [(f.code, f.line) for f in found] == [("PL104", 5)]
    # Drawn from the rest of the document, the blurb may hold a fact the chunk does not: only the unsafe fix removes it,
    # its line and no more.
    assert fix_text(text, path="answer.j2") == text
    assert fix_text(text, path="answer.j2", unsafe=True) == text.replace(f"{line}\n", "")
