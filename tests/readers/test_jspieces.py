"""A JS/TS source built from pieces (an array of lines joined, a local holding text, a sum) is read as one wrapper."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers.jssource import templates_in

CONFIG = build({"today": "2026-12-02"}, "test")

# How the callback builds one source from its pieces; TITLE, SHOWN and CONTENT are array elements
# (or expressions), SEP a separator literal, FILTER what drops the empty pieces, X the item.
SHAPES = {
    "array in an arrow": "const context = docs.map((X, i) => [TITLE, SHOWN, CONTENT]FILTER.join(SEP)).join('\\n\\n');\n",
    "array in a block": "function build(docs: Doc[]): string {\n  return docs\n    .map((X, i) => {\n      return [\n        TITLE,\n        SHOWN,\n        CONTENT,\n      ]FILTER.join(SEP);\n    })\n    .join(\"\\n\\n\");\n}\n",
    "named array joined": "function build(docs) {\n  return docs.map(function (X, i) {\n    const lines = [TITLE, SHOWN];\n    return lines.join(SEP) + \"\\n\" + CONTENT;\n  }).join('\\n---\\n');\n}\n",
    "local in a template": "export const format = (docs) =>\n  docs.map((X, i) => {\n    const meta = [SHOWN]FILTER.join(SEP);\n    const header = meta ? `TITLE_T (${meta})` : TITLE;\n    return `${header}\\n${CONTENT}`;\n  }).join('\\n\\n');\n",
}
TITLES = ["`${i + 1}. ${X.title}`", "'## ' + X.title"]
CONTENTS = ["X.content", "X.pageContent.trim()"]
SEPARATORS = ['"\\n"', "'\\n\\n'", '" · "', "' | '"]
FILTERS = ["", ".filter(Boolean)", ".filter((p) => p)", ".filter(x => !!x)"]
# The piece that shows a field (F stands for the field), and how each way of writing it reads.
SHOWN_FORMS = [
    "`Date: ${F}`",
    "F ? `Date: ${F}` : \"\"",
    "F && `Date: ${F}`",
    "\"Date: \" + F",
    "F ? \"Date: \" + F : null",
    "...(F ? [`Date: ${F}`] : [])",
]
FIELDS = [("X.date", "PL201"), ("X.metadata?.publishedAt", "PL201"), ("X.score.toFixed(2)", "PL102"), ("X.author", None)]


def _source(shape: str, item: str, shown: str, field: str, title: str, content: str, separator: str, kept: str) -> str:
    text = SHAPES[shape].replace("TITLE_T", "${" + title.strip("`'# +") + "}" if title.startswith("'") else title.strip("`"))
    text = text.replace("TITLE", title).replace("SHOWN", shown.replace("F", field)).replace("CONTENT", content)
    return text.replace("SEP", separator).replace("FILTER", kept).replace("X", item)


def _codes(source: str) -> list[str]:
    return [f.code for f in lint_text(source, path="build.ts", config=CONFIG) if f.code in ("PL102", "PL201")]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("shown", SHOWN_FORMS)
@pytest.mark.parametrize("field, code", FIELDS)
@pytest.mark.parametrize("item, title, content, separator, kept", [("doc", TITLES[0], CONTENTS[0], SEPARATORS[0], FILTERS[1]), ("s", TITLES[1], CONTENTS[1], SEPARATORS[2], FILTERS[2]), ("chunk", TITLES[0], CONTENTS[1], SEPARATORS[1], FILTERS[0]), ("r", TITLES[1], CONTENTS[0], SEPARATORS[3], FILTERS[3])])
def test_a_field_shown_by_one_piece_is_shown_by_the_source(shape, shown, field, code, item, title, content, separator, kept):
    field = field.replace("X", item)
    if field.endswith("toFixed(2)") and "?" in shown:
        shown = shown.replace("F ?", "F != null ?")  # a score's presence test, as code writes it
    source = _source(shape, item, shown, field, title, content, separator, kept)
    assert _codes(source) == ([code] if code else [])


def test_the_pieces_read_in_order_joined_by_the_separator():
    source = "const text = docs.map((d, i) => [\n  `[${i + 1}] ${d.title}`,\n  d.date ? `Date: ${d.date}` : '',\n  d.url && 'URL: ' + d.url,\n  ...(d.stale ? [`(stale)`] : []),\n  d.content,\n].filter(Boolean).join('\\n')).join('\\n\\n');\n"
    [template] = [t for t in templates_in(source) if t.loop]
    assert template.text == "[${i + 1}] ${d.title}\nDate: ${d.date}\nURL: ${d.url}\n(stale)\n${d.content}"
    assert (template.line, template.column) == (2, 3)  # at the first literal, where the text starts
    assert template.offsets is None  # built from pieces: reported, never fixed in place


def test_a_local_holding_a_plain_string_stays_its_field():
    source = "const text = docs.map((d) => {\n  const id = d.masked ? 'withheld' : d.id;\n  return [`SOURCE ${d.title}`, `ID=${id}`, d.content].join('\\n');\n}).join('\\n\\n');\n"
    [template] = [t for t in templates_in(source) if t.loop]
    assert template.text == "SOURCE ${d.title}\nID=${id}\n${d.content}"


@pytest.mark.parametrize(
    "body",
    [
        "[`${d.title}`, d.content].concat(extra).join('\\n')",  # more than an array: not read as one
        "[`${d.title}`, d.content].join(separator)",  # a separator that is not a literal
        "[`${d.title}`, d.content].map(String).join('\\n')",  # mapped: its pieces are not what is shown
    ],
)
def test_what_is_not_an_array_of_pieces_is_not_read_as_one(body):
    source = f"const text = docs.map((d) => {body}).join('\\n\\n');\n"
    assert all(t.loop is None or "${d.content}" not in t.text for t in templates_in(source))
