"""The Python API, ``import promptlint``: exact results on one small prompt."""

from __future__ import annotations

import dataclasses
import datetime
import subprocess
import sys
from pathlib import Path

import pytest

import promptlint
from promptlint.canonical import render
from promptlint.engine.config import build
from promptlint.model.prompt import Span

PROMPT = """Answer from the sources and cite them as [n].

[1] Returns Policy — Returns (score: 0.91)
Damaged goods may be returned within 30 days.

[2] Q3 Workforce Plan
classification: confidential
The returns team shrinks by four people in Q3.

Question: How long do I have to return damaged goods?
"""
# A score on one source only may be the document's own: its fix is unsafe, and no safe fix applies.
SAFE_FIXED = PROMPT
UNSAFE_FIXED = """Answer from the sources and cite them as [n].

[1] Returns Policy — Returns
Damaged goods may be returned within 30 days.

Question: How long do I have to return damaged goods?
"""

SCORE = promptlint.Finding(
    code="PL102",
    name="retrieval-score",
    message="Source 1 shows its retrieval score ('score: 0.91'); the model reads it as an instruction to defer to the top hit",
    span=Span(84, 88),
    severity=promptlint.Severity.WARNING,
    tokens=8,
    fix=promptlint.Fix(promptlint.Applicability.UNSAFE, (promptlint.Edit(Span(75, 89), ""),), "Remove the score"),
    path="prompt.txt",
    line=3,
    column=38,
    end_line=3,
    end_column=42,
    fix_regions=((3, 29, 3, 43),),
)
RESTRICTED = promptlint.Finding(
    code="PL105",
    name="restricted-content",
    message="Source 2 is marked 'classification: confidential' and is still sent; an instruction not to use it is no access control",
    span=Span(159, 187),
    severity=promptlint.Severity.ERROR,
    tokens=25,
    fix=promptlint.Fix(promptlint.Applicability.UNSAFE, (promptlint.Edit(Span(137, 236), ""),), "Drop the restricted source"),
    path="prompt.txt",
    line=7,
    column=1,
    end_line=7,
    end_column=29,
    fix_regions=((6, 1, 10, 1),),
)


def test_import_loads_nothing_else():
    code = "import sys, promptlint; print(sorted(m for m in sys.modules if m.split('.')[0] in ('promptlint', 'tiktoken', 'yaml', 'click')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout == "['promptlint']\n"


def test_exports():
    assert sorted(promptlint.__all__) == sorted(
        ["lint_text", "lint_paths", "fix_text", "Finding", "Fix", "Edit", "Applicability", "Severity", "UnreadableFile", "Chunk", "render_source", "order_sources", "build_prompt",
         "ConfigError", "build_config", "capture", "sample_requests"]
    )
    for name in promptlint.__all__:
        assert getattr(promptlint, name) is not None
    with pytest.raises(AttributeError, match="module 'promptlint' has no attribute 'no_such_name'"):
        promptlint.no_such_name  # noqa: B018


def test_a_config_of_your_own_and_its_error_are_top_level():
    assert promptlint.lint_text(PROMPT, path="prompt.txt", config=promptlint.build_config({"select": ["PL105"]}, "mine")) == [RESTRICTED]
    with pytest.raises(promptlint.ConfigError, match="mine: 'select'"):
        promptlint.build_config({"select": ["PL999"]}, "mine")


def test_lint_text():
    assert promptlint.lint_text(PROMPT, path="prompt.txt") == [SCORE, RESTRICTED]


def test_lint_text_of_a_chat():
    chat = '{"messages": [{"role": "user", "content": "[1] Returns Policy (score: 0.91)\\nDamaged goods may be returned.\\n\\nQuestion: How long?"}]}'
    [finding] = promptlint.lint_text(chat, path="chat.json")
    assert (finding.code, finding.line, finding.column, finding.context) == ("PL102", 1, 71, "messages[0] (user)")


def test_lint_text_with_a_config():
    assert promptlint.lint_text(PROMPT, path="prompt.txt", config=build({"select": ["PL105"]}, "test")) == [RESTRICTED]


def test_fix_text():
    assert promptlint.fix_text(PROMPT) == SAFE_FIXED
    assert promptlint.fix_text(PROMPT, unsafe=True) == UNSAFE_FIXED
    assert promptlint.fix_text(UNSAFE_FIXED) == UNSAFE_FIXED


def test_lint_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path(".promptlint.yaml").write_text("ignore: [PL105]\n", encoding="utf-8")
    Path("prompts/clean").mkdir(parents=True)
    Path("prompts/prompt.txt").write_text(PROMPT, encoding="utf-8")
    Path("prompts/clean/answer.md").write_text(UNSAFE_FIXED, encoding="utf-8")
    Path("prompts/notes.csv").write_text(PROMPT, encoding="utf-8")  # not a prompt file
    Path("loose.txt").write_text(PROMPT, encoding="utf-8")

    # The folder's config applies (PL105 ignored), as on the command line.
    found = promptlint.lint_paths(["loose.txt", Path("prompts")])
    assert found == [dataclasses.replace(SCORE, path="loose.txt"), dataclasses.replace(SCORE, path="prompts/prompt.txt")]

    # A config given replaces it for every file.
    found = promptlint.lint_paths(["prompts"], config=build({"select": ["PL105"]}, "test"))
    assert found == [dataclasses.replace(RESTRICTED, path="prompts/prompt.txt")]


def test_lint_paths_raises_on_an_unreadable_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("latin1.txt").write_bytes("Caf\xe9 sources".encode("latin-1"))
    with pytest.raises(promptlint.UnreadableFile, match=r"^latin1\.txt: not valid UTF-8 \(byte offset 3\)$"):
        promptlint.lint_paths(["latin1.txt"])
    with pytest.raises(promptlint.UnreadableFile, match=r"^missing\.txt: cannot read: No such file or directory$"):
        promptlint.lint_paths(["missing.txt"])


def test_finding_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        SCORE.line = 4  # type: ignore[misc]


def test_renderer():
    assert (promptlint.Chunk, promptlint.render_source, promptlint.order_sources, promptlint.build_prompt) == (
        render.Chunk,
        render.render_source,
        render.order_sources,
        render.build_prompt,
    )
    today = datetime.date(2026, 12, 2)
    policy = promptlint.Chunk("Damaged goods may be returned within 30 days.", title="Returns Policy", heading_path=("Returns",), ordinal=2, score=0.7)
    old = promptlint.Chunk("Standard delivery takes 3-5 working days.", title="Shipping FAQ", updated=datetime.date(2024, 1, 5), score=0.9)
    intro = promptlint.Chunk("Returns are accepted in any store.", title="Returns Policy", ordinal=1, score=0.2)
    assert promptlint.render_source(old, 1, today=today) == "[1] Shipping FAQ (last updated 2024-01-05)\nStandard delivery takes 3-5 working days."
    assert promptlint.order_sources([policy, old, intro]) == [old, intro, policy]
    prompt = promptlint.build_prompt(system="Answer from the sources and cite them as [n].", chunks=[policy, old, intro], question="Can I return a damaged item?", today=today)
    assert prompt == (
        "Answer from the sources and cite them as [n].\n\n"
        "Sources:\n"
        "[1] Shipping FAQ (last updated 2024-01-05)\nStandard delivery takes 3-5 working days.\n\n"
        "[2] Returns Policy\nReturns are accepted in any store.\n\n"
        "[3] Returns Policy — Returns\nDamaged goods may be returned within 30 days.\n\n"
        "Question: Can I return a damaged item?"
    )
    assert promptlint.lint_text(prompt, config=build({"today": today}, "test")) == []
