"""Python of every version: syntax newer than the running Python is read, never a PL900.

Each construct of Python 3.12 is put in each place (module level, in a class, around the
prompt string); the file's findings and fixes must be those of its twin written as Python
3.11 writes it. A file no Python reads is still PL900, at the line of its error.
"""

from __future__ import annotations

import ast
import sys

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers import pyversions
from promptlint.readers.document import parse_text

CONFIG = build({"today": "2026-12-02"}, "test")
OLDER = sys.version_info < (3, 12)

# The prompt every file holds: two sources with retrieval scores (PL102, with a safe fix).
BODY = "Question: {question}\\n\\nAnswer using only the sources below.\\n\\n[1] (score: 0.91) Returns policy\\nItems may be returned within 30 days.\\n\\n[2] (score: 0.72) Shipping\\nOrders ship in 2 days.\\n"
PROMPT = 'PROMPT = "' + BODY + '"'

# Each construct: (as Python 3.12 writes it, its twin as Python 3.11 writes it); a line or two
# of statements, indented by the place that holds it.
CONSTRUCTS = {
    "type alias": ("type Docs = list[dict[str, str]]", "Docs = list[dict[str, str]]"),
    "generic type alias": ("type Pair[T] = tuple[T, T]", "Pair = tuple[T, T]"),
    "generic function": ("def first[T](items: list[T]) -> T:\n    return items[0]", "def first(items: list[T]) -> T:\n    return items[0]"),
    "bounded generics": ("def call[T: int, *Ts, **P](f: T) -> T:\n    return f", "def call(f: T) -> T:\n    return f"),
    "generic class": ("class Box[T]:\n    item: T", "class Box:\n    item: T"),
    "nested quotes": ('label = f"{doc["title"]}: {doc["body"]}"', "label = f\"{doc['title']}: {doc['body']}\""),
    "nested f-string": ('tag = f"{f"{n}"}"', "tag = f\"{f'{n}'}\""),
    "backslash in a field": ("lines = f\"{'\\n'.join(parts)}\"", "lines = f\"{chr(10).join(parts)}\""),
    "comment in a field": ('text = f"""{value  # the value\n}"""', 'text = f"""{value\n}"""'),
}


def _indented(block: str, pad: str) -> str:
    return "\n".join(pad + line for line in block.split("\n"))


# Each place: a file around {construct}, holding the prompt.
PLACES = {
    "module level": lambda c: f"{c}\n\n{PROMPT}\n",
    "in a class": lambda c: f"class Chain:\n{_indented(c, '    ')}\n\n    {PROMPT}\n",
    # The prompt inside the construct's function, or just after it in the same block.
    "around the prompt": lambda c: f"def build(question):\n{_indented(c, '    ')}\n    {PROMPT}\n    return PROMPT\n",
}

CASES = [(construct, place) for construct in CONSTRUCTS for place in PLACES]


def _seen(source: str, name: str) -> list[tuple]:
    """Each finding as the user sees it: rule, line, message, and the text it flags."""
    lines = source.split("\n")
    return [(f.code, f.line, f.message, lines[f.line - 1][f.column - 1 : f.end_column - 1] if f.end_line == f.line else "") for f in lint_text(source, path=name, config=CONFIG)]


reached: list[str] = []


@pytest.mark.parametrize(("construct", "place"), CASES)
def test_newer_syntax_gives_the_findings_and_fixes_of_its_older_twin(construct, place):
    newer, older = (PLACES[place](form) for form in CONSTRUCTS[construct])
    ast.parse(older)
    try:
        ast.parse(newer)
    except SyntaxError:
        reached.append(construct)  # this Python cannot parse it: the rewrite is what reads it
    found = _seen(newer, "chain.py")
    assert found and {code for code, *_ in found} == {"PL102"}
    # The lines of the prompt are the twin's; a field's quote is the user's own.
    assert found == _seen(older, "chain.py")
    fixed = fix_text(newer, path="chain.py", config=CONFIG)
    for new_line, old_line in zip(*(form.split("\n") for form in CONSTRUCTS[construct])):
        fixed = fixed.replace(new_line, old_line)
    assert fixed == fix_text(older, path="chain.py", config=CONFIG) != older


def test_every_newer_construct_reached_the_rewrite():
    # Runs after the cases above (pytest keeps the file's order).
    if OLDER:
        assert len(reached) == len(CASES)


@pytest.mark.skipif(not OLDER, reason="a Python that reads the newer syntax parses it itself")
@pytest.mark.parametrize("construct", list(CONSTRUCTS))
def test_the_rewrite_keeps_every_character_where_it_was(construct):
    newer = PLACES["module level"](CONSTRUCTS[construct][0])
    text, valid, _ = pyversions._older(newer)
    assert valid and len(text) == len(newer)
    assert [i for i, c in enumerate(text) if c == "\n"] == [i for i, c in enumerate(newer) if c == "\n"]
    assert [line for line in text.split("\n") if "PROMPT" in line] == [PROMPT]
    ast.parse(text)


INVALID = {
    "no grammar reads it": ("x = 1\n\ndef broken(:\n    pass\n", 3),
    "after a type alias": ("type X = int\n\n" + PROMPT + "\n\ndef broken(:\n    pass\n", 5),
    "after a generic function": ("def f[T](x: T) -> T:\n    return x\n\nvalue = = 2\n", 4),
    "after nested quotes": ('label = f"{d["a"]}"\n\nfor x in:\n    pass\n', 3),
}


@pytest.mark.parametrize("name", list(INVALID))
def test_a_file_no_python_reads_is_pl900_at_the_line_of_its_error(name):
    source, line = INVALID[name]
    [finding] = lint_text(source, path="broken.py", config=CONFIG)
    assert (finding.code, finding.line) == ("PL900", line)


def test_newer_syntax_that_cannot_be_rewritten_in_place_is_not_read_and_no_error():
    # A field over two lines of a one-line f-string, and a third level of the same quote.
    for source, line in (('def f(x):\n    return f"{x[\n0]}"\n', 2), ('t = f"{f"{f"{1}"}"}"\n', 1)):
        doc = parse_text(source, "chain.py", ".py")
        assert doc.errors == ()
        if OLDER:
            [note] = doc.unread
            assert note.startswith(f"not read: line {line} uses syntax newer than Python 3.")


def test_without_the_grammar_a_file_reads_as_before(monkeypatch):
    monkeypatch.setattr(pyversions, "_parser", lambda: None)
    newer = PLACES["module level"](CONSTRUCTS["type alias"][0])
    found = lint_text(newer, path="chain.py", config=CONFIG)
    if OLDER:
        assert [(f.code, f.line) for f in found] == [("PL900", 1)]
    else:
        assert {f.code for f in found} == {"PL102"}


@pytest.mark.parametrize("construct", list(CONSTRUCTS))
def test_a_directive_in_a_comment_works_beside_newer_syntax(construct):
    newer = PLACES["module level"](CONSTRUCTS[construct][0]).replace(PROMPT, "# promptlint: ignore[PL102]\n" + PROMPT)
    assert lint_text(newer, path="chain.py", config=CONFIG) == []
