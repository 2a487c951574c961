"""A source a loop writes as a record of labelled lines ("Guide: ...", "Subject: ...", "Instruction: ...") is read by
the key that holds its text, in whichever order a code name puts the words (`text_clean`); then what the record
shows beside the text (a similarity score in its header) is reported (blind60a asimnayakawadi)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

CONFIG = build({"today": "2026-12-06"}, "test")
MODULE = '''def build_context(results, rows):
    parts = []
    for rank, (score, idx) in enumerate(results, 1):
        row = rows[idx]
        parts.append(
            f"[Source {rank} | similarity {score:.4f}]\\n"
            f"Guide      : {row['title']}\\n"
            f"Subject    : {row['subject']}\\n"
            f"Tools      : {row['tools']}\\n"
            f"Instruction: {row['KEY']}"
        )
    return "\\n\\n---\\n\\n".join(parts)
'''


@pytest.mark.parametrize("key", ["text_clean", "clean_text", "text"])
def test_the_records_text_is_found_by_its_key_and_its_score_reported(key):
    found = [(f.line, f.code) for f in lint_text(MODULE.replace("KEY", key), path="context.py", config=CONFIG)]
    assert found == [(6, "PL102")]


def test_a_record_whose_text_no_key_names_is_left_alone():
    # `text_source` is where the text came from, not the text: nothing says which line is the chunk.
    assert lint_text(MODULE.replace("KEY", "text_source"), path="context.py", config=CONFIG) == []
