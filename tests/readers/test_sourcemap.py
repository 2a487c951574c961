"""Each kind of source map answers the same questions: where an offset of the prompt's text is
in the file, whether a fix may be offered, and how a changed text is written back (None, or a
failed read-back, when it cannot be written exactly)."""

from __future__ import annotations

from promptlint.model.findings import Edit
from promptlint.model.prompt import Span
from promptlint.readers.document import parse_text
from promptlint.readers.sourcemap import Anchored, CharOffsets, ChatStrings, Escaped, ReadOnlyChats, Translated, Verbatim, YamlBlock

QA = "Answer from the context.\nContext: {context}\nQuestion: {question}\n"


def _one(raw: str, name: str):
    doc = parse_text(raw, name, "." + name.rsplit(".", 1)[1])
    (prompt,) = doc.prompts
    return doc, prompt


def test_a_verbatim_text_is_located_edited_and_written_in_place():
    header = "# Prompt for the answer command\n# Placeholders:\n#\n# Keep them.\n\n"
    doc, prompt = _one(header + QA, "qa.txt")
    assert prompt.source == Verbatim(len(header) - 1, len(header + QA))
    assert doc.locate(prompt, 1 + QA.index("Context")) == (7, 1)
    assert prompt.source.editable and prompt.source.rewritable and not prompt.source.reread
    new = prompt.text.replace("Answer", "Reply")
    assert prompt.source.write(doc.raw, prompt.text, new) == header[:-1] + new


def test_a_yaml_scalar_is_written_only_when_the_file_reads_back_with_it():
    doc, prompt = _one("template: Answer from {context}\nname: qa\n", "qa.yaml")
    assert prompt.source == Verbatim(10, 31, reread=True)
    assert doc.locate(prompt, 7) == (1, 18)
    assert doc.writes_back(0, "Reply from {context}")
    assert not doc.writes_back(0, "Answer: from {context}")  # a plain value cannot take ": "


def test_an_anchored_text_points_at_its_literal_and_is_never_written():
    source = Anchored(3, 9)
    assert source.locate(None, 12, "", [0]) == (3, 9)
    assert not source.editable and not source.rewritable
    assert source.write("raw", "old", "new") is None


def test_a_yaml_string_with_escapes_is_anchored_and_its_fixes_are_not_offered():
    doc, prompt = _one('template: "Answer from {context}.\\tBe brief."\nname: qa\n', "qa.yaml")
    assert prompt.source == Anchored(1, 11) and not prompt.writable
    assert doc.locate(prompt, 20) == (1, 11)
    assert not doc.writes_back(0, prompt.text.replace("Answer", "Reply"))


PYTHON = 'from langchain.prompts import PromptTemplate\n\nPROMPT = PromptTemplate.from_template("Answer from the context.\\nContext: {context}\\nQuestion: {question}")\n'


def test_a_code_string_is_located_through_its_escapes_and_written_back_escaped():
    doc, prompt = _one(PYTHON, "qa.py")
    assert isinstance(prompt.source, Escaped) and prompt.source.editable and not prompt.source.rewritable
    literal = PYTHON.index('"Answer') + 1
    # After the two characters of "\n" the text's next line starts.
    assert doc.locate(prompt, prompt.text.index("Context")) == (3, literal - PYTHON.index("PROMPT") + 1 + len("Answer from the context.\\n"))
    written = prompt.source.write(doc.raw, prompt.text, prompt.text.replace("context.\n", "context.\n\n"))
    assert written == PYTHON.replace("context.\\n", "context.\\n\\n")


def test_a_code_string_that_cannot_take_the_change_is_not_written():
    raw = 'from langchain.prompts import PromptTemplate\n\nPROMPT = PromptTemplate.from_template("Answer from the context.\\n" r"Context: {context} Question: {question}")\n'
    doc, prompt = _one(raw, "qa.py")
    # A raw piece cannot take an escape: the file would not read back with the new text.
    assert prompt.source.write(doc.raw, prompt.text, prompt.text.replace("} Question", "}\nQuestion")) is None
    assert doc.with_prompts([prompt.with_text(prompt.text.replace("} Question", "}\nQuestion"))]) == raw


def test_a_yaml_block_is_located_and_written_line_by_line():
    raw = "template: |\n  Answer from the context.\n  Context: {context}\nname: qa\n"
    doc, prompt = _one(raw, "qa.yaml")
    assert prompt.source == YamlBlock(((2, 2), (3, 2), (4, 2)))
    assert doc.locate(prompt, prompt.text.index("{context}")) == (3, 12)
    assert prompt.source.editable and prompt.source.reread and not prompt.source.rewritable
    new = prompt.text.replace("Context:", "Sources:")
    assert prompt.source.write(doc.raw, prompt.text, new) == raw.replace("Context:", "Sources:")
    assert doc.writes_back(0, new)
    assert not doc.writes_back(0, "  " + prompt.text)  # a first line indented further changes the block


def test_a_translated_text_is_located_in_the_template_and_written_only_if_it_reads_back():
    raw = "Answer from the sources.\n{{#each docs}}\n{{this.text}}\n{{/each}}\nQuestion: {{question}}\n"
    doc, prompt = _one(raw, "qa.txt")
    assert isinstance(prompt.source, Translated) and prompt.translated and prompt.source.reread
    assert type(prompt.source.through) is CharOffsets  # through each character, no escapes
    assert "{% for this in docs %}" in prompt.text
    assert doc.locate(prompt, prompt.text.index("{% for")) == (2, 1)
    new = prompt.text.replace("Answer from", "Reply from")
    assert prompt.source.write(doc.raw, prompt.text, new) == raw.replace("Answer from", "Reply from")
    assert doc.writes_back(0, new)
    # A Jinja tag has no Handlebars text it stands for: written as it is, it does not read back.
    assert not doc.writes_back(0, prompt.text.replace("{% for this in docs %}", "{% for doc in docs %}"))


def test_a_translated_text_of_an_anchored_literal_is_never_written():
    source = Translated(Anchored(4, 2))
    assert source.locate(None, 7, "", [0]) == (4, 2) and not source.editable
    assert source.write("raw", "old", "new") is None


CHAT = '{"messages": [{"role": "system", "content": "Answer from the context.\\nBe brief."}, {"role": "user", "content": "Context: {context}"}]}'


def test_chat_strings_are_located_through_their_escapes_and_edited_inside_one_message():
    doc, prompt = _one(CHAT, "chat.json")
    assert isinstance(prompt.source, ChatStrings) and prompt.source.editable and prompt.source.rewritable
    # "Be" follows the two characters of "\n".
    assert doc.locate(prompt, prompt.text.index("Be brief")) == (1, CHAT.index("Be brief") + 1)
    inside = Edit(Span(0, 6), "Reply")
    across = Edit(Span(prompt.text.index("brief"), prompt.text.index("{context}")), "")
    assert prompt.source.fits(prompt, (inside,)) and not prompt.source.fits(prompt, (across,))
    new = prompt.with_text(prompt.text.replace("Answer", "Reply"))
    assert doc.with_prompts([new]) == CHAT.replace("Answer", "Reply")


def test_chat_strings_no_separator_can_join_are_read_only():
    texts = "".join(f"\\n{c}\\n" for c in ("\\u001e", "\\u001d", "\\u001c", "\\u001f"))
    raw = '{"messages": [{"role": "system", "content": "Answer from the context.' + texts + '"}]}'
    doc, prompt = _one(raw, "chat.json")
    assert isinstance(prompt.source, ReadOnlyChats) and not prompt.writable
    assert doc.locate(prompt, 10) == (1, raw.index('"Answer') + 1)
