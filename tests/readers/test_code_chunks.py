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


# Pages of docs retrieved with their shell commands in fences, then a rule and the request.
FENCED = """You are the support assistant of Example Corp. Answer from the context below and give the reference of each source you used.
---------------------
Document 1:
To stop a container, open the Containers view and select Stop.
Reference: docs/stop.md

Document 2:
Get the container's id first:
```console
$ docker ps
```
Then stop it by its id:
```console
$ docker stop <the-container-id>
```
Reference: docs/cli.md

Document 3:
Remove a stopped container with the rm command:
```console
$ docker rm <the-container-id>
```
Add the force flag to stop and remove it in one step.
Reference: docs/rm.md
---------------------
REQUEST
Query: How do I stop a container?
Answer:
"""


def test_a_fenced_block_in_a_chunks_text_ends_no_chunk():
    """A chunk's own code, in an assembled prompt, is blank as other code is, but the chunk goes on after it
    (blind66s SimaoGoncalves99: the last page was cut at its first fence, its steps read as instructions)."""
    text = FENCED.replace("REQUEST", "Given only the context above, answer the query.")
    prompt = segment_text(text)
    assert [text[s.content.start : s.content.end].splitlines()[-1] for s in prompt.sources] == ["Reference: docs/stop.md", "Reference: docs/cli.md", "Reference: docs/rm.md"]
    assert [p.kind for p in prompt.parts] == [PartKind.INSTRUCTIONS, PartKind.SOURCES, PartKind.INSTRUCTIONS, PartKind.QUESTION, PartKind.INSTRUCTIONS]


def test_a_fenced_block_after_the_chunks_is_the_instructions():
    """The twin: an output format's fenced sample after the context is the prompt's, and so is what follows it."""
    text = FENCED.replace("REQUEST", 'Answer in JSON of this shape:\n```json\n{"answer": "...", "references": ["..."]}\n```\nKeep the answer short and cite every reference you use.')
    prompt = segment_text(text)
    assert text[prompt.sources[-1].content.start : prompt.sources[-1].content.end].splitlines()[-1] == "Reference: docs/rm.md"
    after = next(p for p in prompt.parts if p.kind is PartKind.INSTRUCTIONS and p.span.start > prompt.sources[-1].span.end)
    assert "Answer in JSON of this shape:\n" in text[after.span.start : after.span.end]


# A repository's files packed into a prompt: each file's path alone on its line, its code in a fence, then the request.
FILE = "src/Game/{name}.cs\n```cs\nnamespace Game\n{{\n    public class {name}\n    {{\n        public string Label => $\"{{Name}} ({{Count}})\";\n    }}\n}}\n```\n"
PACKED = "\n".join(FILE.format(name=name) for name in ("Inventory", "BlockPlacer", "SaveLoader")) + (
    "\n# Instructions\nExplain how a block is placed, naming the classes above, for a reader who has never seen the code.\n"
)


def test_files_under_their_paths_are_sources_whose_code_is_their_text():
    """The braces of a chunk's own code (`$"{Name} ({Count})"`) are the code's: the prompt is assembled, its sources
    are no template's (blind67m moorestech: 21 C# files, then the request, read as no source at all)."""
    prompt = segment_text(PACKED)
    assert [PACKED[s.header.start : s.header.end] for s in prompt.sources] == [f"src/Game/{n}.cs" for n in ("Inventory", "BlockPlacer", "SaveLoader")]
    assert all("public class" in PACKED[s.content.start : s.content.end] and not s.repeated for s in prompt.sources)
    assert [p.kind for p in prompt.parts][-1] is PartKind.INSTRUCTIONS


def test_paths_listed_with_no_text_under_them_head_no_source():
    """The twin: paths in a list of what to change, one under the other, are the instructions' words."""
    text = "Change these files:\nsrc/Game/Inventory.cs\nsrc/Game/BlockPlacer.cs\nsrc/Game/SaveLoader.cs\n\nKeep the public names as they are.\n"
    assert segment_text(text).sources == []


def test_a_fenced_block_that_holds_sources_is_shown_code_not_a_chunks_own():
    """Sources read inside a fence are the block's (a run's trace printed as shell output), not a chunk that holds the
    block: the block stays shown code (blind66c DarrelASandbox, where a first version read them as sources)."""
    results = '{"results": [{"text": "Dreamt ends in mt.", "type": "fact"}, {"text": "Queue keeps its sound.", "type": "fact"}]}'
    text = f"How to trace a run:\n```sh\n$ python qa.py\n{results}\n```\nThen read the output above.\n"
    assert segment_text(text).sources == []
