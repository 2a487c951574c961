"""A `document_title` competes with the source as a generated title only beside another name of the
document (its file name); beside a section's title it is the document's own title, and no fix may
remove it."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")
CHUNKS = [("Returns Policy", "returns.md", "Damaged goods", "Damaged goods may be returned within 30 days."),
          ("Shipping FAQ", "shipping.md", "Express", "Express orders ship the next day before noon.")]
# How each form writes the title of the section beside the document's title.
SECTION_LABELS = ["Section title", "section_title", "Section name", "Chapter title", "Subsection"]


def _prompt(label: str) -> str:
    blocks = [f"[{n}]\nDocument title: {title}\n{label}: {section}\n{text}" for n, (title, _, section, text) in enumerate(CHUNKS, start=1)]
    return "Answer from the sources and cite them as [n].\n\n" + "\n\n".join(blocks) + "\n\nQuestion: Can I return a damaged parcel?\n"


def _derived(text: str, path: str = "p.txt") -> list[str]:
    return [f.code for f in lint_text(text, path=path, config=CONFIG) if f.code == "PL104"]


@pytest.mark.parametrize("label", SECTION_LABELS)
def test_a_document_title_beside_a_section_title_is_the_documents_title(label):
    assert _derived(_prompt(label)) == []


def test_a_document_title_beside_the_file_name_is_a_generated_title():
    text = _prompt("File name")
    for _, file, section, _ in CHUNKS:
        text = text.replace(f"File name: {section}", f"File name: {file}")
    assert _derived(text) == ["PL104", "PL104"]


def test_a_code_built_title_beside_a_section_title_is_the_documents_title():
    code = ("export function renderSources(sources: Source[]): string {\n"
            "  return sources\n"
            "    .map((s, i) => `[${i + 1}] ${s.documentTitle} — ${s.sectionTitle}\\n${s.content}`)\n"
            "    .join('\\n\\n');\n}\n")
    assert _derived(code, "sources.ts") == []
    assert _derived(code.replace("s.sectionTitle", "s.fileName"), "sources.ts") == ["PL104"]


@pytest.mark.parametrize("label", ["file_path", "File path", "filepath"])
def test_a_document_title_beside_the_file_path_is_a_generated_title(label):
    # LlamaIndex's title extractor: the node names its file by path, and a generated title sits beside it.
    blocks = [f"[Excerpt from document]\n{label}: /data/{file}\ndocument_title: A comprehensive overview of {title}\nExcerpt:\n-----\n{text}\n-----"
              for title, file, _, text in CHUNKS]
    text = "Context information is below.\n" + "\n\n".join(blocks) + "\n\nQuery: Can I return a damaged parcel?\nAnswer:\n"
    assert _derived(text) == ["PL104", "PL104"]
    assert _derived(text.replace("document_title: A comprehensive overview of Returns Policy\n", "").replace("document_title: A comprehensive overview of Shipping FAQ\n", "")) == []


def test_removing_a_generated_title_is_never_a_safe_fix():
    # The title may be the document's real one: a fact no --fix takes unasked.
    text = _prompt("File name")
    for _, file, section, _ in CHUNKS:
        text = text.replace(f"File name: {section}", f"File name: {file}")
    fixes = [f.fix for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL104"]
    assert [fix.applicability.name for fix in fixes] == ["UNSAFE", "UNSAFE"]


@pytest.mark.parametrize("label, derived", [("Title", False), ("Document title", True), ("document_title", True)])
def test_a_document_title_the_renderer_labels_as_the_title_is_the_title(label, derived):
    """`Title: {source.document_title}` beside a file name: the renderer calls it the title, whatever its key."""
    code = (
        "def format_source(source):\n"
        '    return "\\n".join([\n'
        '        f"[{source.source_id}]",\n'
        f'        f"{label}: {{source.document_title}}",\n'
        '        f"File name: {source.file_name}",\n'
        '        "Content:",\n'
        "        source.content,\n"
        "    ])\n\n\n"
        "def format_context(sources):\n"
        '    return "\\n\\n".join(format_source(s) for s in sources)\n'
    )
    assert _derived(code, path="prompt.py") == (["PL104"] if derived else [])
