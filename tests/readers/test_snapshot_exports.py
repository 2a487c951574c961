"""A Jest or Vitest snapshot file holds what a test rendered, one export each: each export's value is one prompt,
its template literal's escapes decoded and each character placed at its line; the file's other text is not read.
Each with its twin."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.document import parse_text

CONFIG = build({"today": "2026-12-02", "select": ["PL102"]}, "test")


def _export(name: str, score: str) -> str:
    return (f"exports[`promptContext > {name} 1`] = `\n\"<context>\n"
            f"<doc id=\"1\" title=\"Refund policy\" score=\"{score}\">Refunds are paid within 14 days, to the card used.</doc>\n"
            f"<doc id=\"2\" title=\"Shipping \\`guide\\`\" score=\"0.61\">Parcels ship within two working days.</doc>\n"
            "</context>\"\n`;\n")


SNAPSHOT = "// Vitest Snapshot v1, https://vitest.dev/guide/snapshot.html\n\n" + _export("scored", "0.91") + "\n" + _export("other", "0.88")


@pytest.mark.parametrize("header", ["// Vitest Snapshot v1, https://vitest.dev/guide/snapshot.html", "// Jest Snapshot v1, https://goo.gl/fbAQLP"])
def test_each_export_of_a_snapshot_is_one_prompt(header):
    text = SNAPSHOT.replace("// Vitest Snapshot v1, https://vitest.dev/guide/snapshot.html", header)
    prompts = parse_text(text, "index.test.ts.snap", ".snap").prompts
    assert [p.texts[0].splitlines()[0] for p in prompts] == ["<context>", "<context>"]
    assert 'title="Shipping `guide`"' in prompts[0].texts[0]  # the literal's escapes decoded
    lines = [number for number, line in enumerate(text.split("\n"), 1) if 'score="' in line]
    assert [(f.code, f.line) for f in lint_text(text, path="index.test.ts.snap", config=CONFIG)] == [("PL102", n) for n in lines]
    assert fix_text(text, path="index.test.ts.snap", config=CONFIG) == text  # a snapshot is a test's record: never edited


def test_the_twin_with_no_snapshot_header_is_one_text():
    text = SNAPSHOT.split("\n", 1)[1]
    assert len(parse_text(text, "notes.txt", ".txt").prompts) == 1
