"""A chunk of code under a source's header keeps its comments: an indented "# ..." line is a comment in the
code, not a Markdown heading (a heading stands within three spaces of the margin), so it ends no source
(blind52a alexander5f: the last file's code was cut at "    # Append user input" and read as instructions).
Generated over indents and comment texts, with the twin of a heading at the margin that does end the source."""

from __future__ import annotations

import pytest

from promptlint.model.prompt import PartKind
from promptlint.readers.segment import segment_text

CODE = ["def get_bytes(stream, size):", "    data = stream.read(size)", "", "{indent}# {comment}", "    return data.strip()"]


def _prompt(indent: str, comment: str) -> str:
    files = []
    for name in ("reader.py", "writer.py"):
        body = "\n".join(CODE).format(indent=indent, comment=comment)
        files.append(f"Source code for {name}:\n\n{body}")
    return "What does get_bytes return?\n\n" + "\n\n".join(files) + "\n"


@pytest.mark.parametrize("comment", ["Append user input", "Get the assistant's response", "TODO: handle errors"])
@pytest.mark.parametrize("indent", ["    ", "        ", "\t"])
def test_an_indented_comment_stays_in_the_chunk(indent, comment):
    text = _prompt(indent, comment)
    prompt = segment_text(text)
    assert [text[s.content.start : s.content.end] for s in prompt.sources][-1].endswith("    return data.strip()")
    assert [p.kind for p in prompt.parts][-1] is PartKind.SOURCES


def test_a_heading_at_the_margin_ends_the_last_source():
    text = _prompt("    ", "Append user input") + "\n# Task\nExplain what the function returns in one sentence, citing the file.\n"
    assert segment_text(text).parts[-1].kind is PartKind.INSTRUCTIONS
