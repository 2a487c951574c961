"""PL205 speaks only when nothing on a source can say which document it is.

A slot under a name that holds a file name as often as a source system (`source`, `origin`) may
name the document, so it is no missing title; a source whose head holds only what the metadata
rules report (an ordinal, a score, a date) has none. Each form is crossed with both.
"""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

# A source's head, written in each form a renderer takes; {head} is the words and slot before the text.
FORMS = {
    "t.j2": "Answer from the sources.\n{{% for d in docs %}}\n{head_j2}\n{{{{ d.text }}}}\n{{% endfor %}}\nQuestion: {{{{ q }}}}\n",
    "t.py": ('def build(docs, q):\n    out = ""\n    for d in docs:\n        out += f"{head_py}\\n" + d.text + "\\n\\n"\n'
             '    return f"Answer from the sources.\\n{{out}}\\nQuestion: {{q}}"\n'),
}

NAMING = [("Content from {}:", "source"), ("Source: {}", "source"), ("From {}", "origin"), ("<b>Table from {}</b>", "d_source")]
UNNAMED = [("Chunk {}:", "chunk_id"), ("Score: {}", "score"), ("Updated {}", "updated_at")]


def _render(path, words, key):
    if path.endswith(".j2"):
        return FORMS[path].format(head_j2=words.format("{{ d." + key + " }}"))
    return FORMS[path].format(head_py=words.format("{d." + key + "}"))


def _codes(text, path):
    return [f.code for f in lint_text(text, path=path, config=CONFIG)]


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("words, key", NAMING)
def test_a_slot_that_may_print_the_file_name_identifies_the_source(path, words, key):
    text = _render(path, words, key)
    assert "PL205" not in _codes(text, path)


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("words, key", UNNAMED)
def test_a_head_of_metadata_alone_leaves_the_source_untitled(path, words, key):
    text = _render(path, words, key)
    assert _codes(text, path).count("PL205") == 1


NESTED = {
    "t.py": ('def combine(documents, q):\n    context = ""\n    for {doc} in documents:\n        context += f"Document: {{{doc}.name}}\\n"\n'
             '        for chunk in {of}:\n            context += f"{{chunk.text}}\\n"\n'
             '    return f"Answer from the documents.\\n{{context}}\\nQuestion: {{q}}"\n'),
    "t.j2": ("Answer from the documents.\n{{% for {doc} in documents %}}\nDocument: {{{{ {doc}.name }}}}\n"
             "{{% for chunk in {of} %}}\n{{{{ chunk.text }}}}\n{{% endfor %}}\n{{% endfor %}}\nQuestion: {{{{ q }}}}\n"),
}


@pytest.mark.parametrize("path", sorted(NESTED))
@pytest.mark.parametrize("doc, of", [("document", "document.chunks"), ("doc", "doc['chunks']"), ("file", "file.parts")])
def test_the_chunks_of_one_document_take_its_title_from_the_loop_around_them(path, doc, of):
    assert "PL205" not in _codes(NESTED[path].format(doc=doc, of=of), path)


@pytest.mark.parametrize("path", sorted(NESTED))
@pytest.mark.parametrize("of", ["hits", "results['chunks']"])
def test_chunks_of_no_one_document_have_no_title(path, of):
    text = NESTED[path].format(doc="group", of=of).replace("Document: ", "Group: ").replace(".name", ".size")
    assert "PL205" in _codes(text, path)


# A loop body that adds one source's text in several statements, some under a test: the title is
# added by one of them, a field by another.
PIECES = ('def combine(docs, q):\n    context = ""\n    for d in docs:\n{title}'
          '        if d.{key}:\n            context += f"{label}: {{d.{key}}}\\n"\n        context += f"{{d.text}}\\n\\n"\n'
          '    return f"Answer from the sources.\\n{{context}}\\nQuestion: {{q}}"\n')


@pytest.mark.parametrize("key, label", [("score", "Relevance"), ("updated_at", "Updated"), ("chunk_id", "Chunk"), ("published", "Date")])
@pytest.mark.parametrize("title", ['        context += f"Document Title: {d.title}\\n"\n', '        context += f"# {d.name}\\n"\n'])
def test_a_piece_of_a_source_added_apart_is_titled_by_the_whole(key, label, title):
    """The field added under its own `if` is one piece of the source; the whole, title and all, is read too."""
    assert "PL205" not in _codes(PIECES.format(title=title, key=key, label=label), "t.py")
    # The twin without the title statement: the whole source has no title, reported once.
    assert _codes(PIECES.format(title="", key=key, label=label), "t.py").count("PL205") == 1


@pytest.mark.parametrize("path", sorted(FORMS))
@pytest.mark.parametrize("collection", ["memories", "global_memories", "user.facts", "graph_edges", "retrieved_triples[:10]", "entities"])
def test_a_loop_over_what_is_no_document_needs_no_title(path, collection):
    """A memory, a fact or a triple has no title to show: a loop over them is no untitled source."""
    def over(name: str) -> str:
        return _render(path, "Score: {}", "score").replace(" in docs", f" in {name}")

    assert _codes(over(collection), path) == ["PL102"]
    # The twin: the same loop over documents (a fact sheet is one) is untitled.
    assert sorted(_codes(over("fact_sheets"), path)) == ["PL102", "PL205"]


# A file's name under a label or heading, beside text the item does not print by a known key: the
# name is the title, not the chunk (khoj's `<OPEN_FILE>\n# file: ${file.basename}.md\n\n${fileContent}`).
NAMED_HEADS = ["# file: {}.md", "File: {}", "# {}.md"]
READ_APART = {
    "t.ts": ("export async function buildContext(files) {\n  let ctx = '';\n  for (const file of files) {\n    let text: string;\n"
             "    try {\n      text = await read(file);\n    } catch (error) {\n      continue;\n    }\n"
             "    ctx += `<OPEN_FILE>\\nHEAD\\n\\n${text}\\n</OPEN_FILE>\\n\\n`;\n  }\n  return ctx;\n}\n"
             "const prompt = `Answer from the files.\\n${context}\\nQuestion: ${q}`;\n", "${file.basename}"),
    "t.j2": ("Answer from the files.\n{% for file in context_files %}<OPEN_FILE>\nHEAD\n\n{{ texts[loop.index0] }}\n</OPEN_FILE>\n{% endfor %}\n"
             "Question: {{ q }}\n", "{{ file.basename }}"),
}


@pytest.mark.parametrize("path", sorted(READ_APART))
@pytest.mark.parametrize("head", NAMED_HEADS)
def test_a_file_name_under_a_label_or_heading_titles_the_text_beside_it(path, head):
    template, slot = READ_APART[path]
    assert [f.code for f in lint_text(template.replace("HEAD", head.format(slot)), path=path, config=CONFIG)] == []
    # The twin: a size in that place names nothing, and the source has no title.
    untitled = template.replace("HEAD", "Size: " + slot.replace("basename", "size_kb"))
    assert [f.code for f in lint_text(untitled, path=path, config=CONFIG)] == ["PL205"]


@pytest.mark.parametrize("mark", ["# ", "## ", "### "])
@pytest.mark.parametrize("path", ["t.j2", "t.py"])
def test_a_heading_mark_before_the_text_says_its_first_line_is_a_heading(mark, path):
    """khoj's `f"# {item['compiled']}"`: the text opens with its own heading (a file's name and path), which
    the template cannot show; PL205 stays quiet. Its twin, a list mark, shows nothing of the kind."""
    def rendered(prefix):
        if path == "t.j2":
            return f"Answer from the notes.\n{{% for item in note_references %}}\n{prefix}{{{{ item.compiled }}}}\n{{% endfor %}}\nQuestion: {{{{ q }}}}\n"
        return f'def build_context(note_references):\n    return "\\n\\n".join([f"{prefix}{{item[\'compiled\']}}" for item in note_references])\n'

    assert lint_text(rendered(mark), path=path, config=CONFIG) == []
    assert [f.code for f in lint_text(rendered("- "), path=path, config=CONFIG)] == ["PL205"]
