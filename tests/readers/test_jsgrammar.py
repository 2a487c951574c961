"""The grammar, not a scanner, says where a JavaScript file's literals are: JSX text, type-level
templates and JSX attributes that span lines are read as what they are."""

from __future__ import annotations

from promptlint.readers.jsscan import fields, tokens


def test_jsx_text_and_template_literal_types_are_no_literals():
    source = (
        "type Path = `loop.${number}.value`;\n"
        "export const Page = () => <p>Don't guess {name}'s answer</p>;\n"
        "const q = `Question: ${x}`;\n"
    )
    found = [(t.kind, t.text) for t in tokens(source, jsx=True) if t.kind in ("string", "template", "text")]
    assert found == [("text", "`loop.${number}.value`"), ("text", "Don't guess "), ("text", "'s answer"), ("template", "`Question: ${x}`")]


def test_a_jsx_attribute_string_may_span_lines():
    source = 'const C = () => <div className="\n  flex gap-2\n  items-center">x</div>;\n'
    [string] = [t for t in tokens(source, jsx=True) if t.kind == "string"]
    assert string.value == "\n  flex gap-2\n  items-center"


def test_a_backquote_of_the_text_itself_does_not_end_its_fields():
    """A template's text holds a backquote its file wrote escaped; its fields are still found where they are."""
    [template] = [t for t in tokens("const p = `a \\` b ${x.y} \\` ${`n ${z}`}`;") if t.kind == "template"][:1]
    assert template.value == "a ` b ${x.y} ` ${`n ${z}`}"
    assert fields(template.value) == [(6, 12, "x.y"), (15, 26, "`n ${z}`")]
    assert fields("a ${b") is None


def test_a_file_cut_off_inside_a_loop_is_read_without_error():
    """The grammar reads on where a scanner stopped: a `for...of` whose body the file never reaches."""
    from promptlint.readers.jssource import templates_in

    assert templates_in("function formatContext(docs) {\n  for (const d of docs) {\n   for (const d of docs) {\n") == []
