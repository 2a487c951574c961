"""A slot that is the whole value of a context label ("OJK Context: {context_ojk}", "Web sources: {pages}") is the
retrieved context, whatever its name: the label says what it holds (blind51a bryandts7, three such slots). The rules
written after it are the template's own text, not part of the data. Generated over labels and slot names the
lexicon does not know, each with twins: the rules before the context, and a label that names no context."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.model.prompt import PartKind
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02", "select": ["PL305"]}, "test")
LABELS = ["Context", "OJK Context", "Web sources", "Retrieved documents", "SIKEPO context"]
NAMES = ["foo", "context_ojk", "ref_text", "kb"]
RULES = ("Follow these rules when you answer:\n- Cite the regulation number and the file URL of every claim.\n"
         "- Answer in Indonesian, in at most five sentences.\n- Never state a regulation the context does not hold.")


def _template(label: str, name: str, rules: str = RULES) -> str:
    return f"You answer banking compliance questions from retrieved regulations.\n\n{label}: {{{name}}}\n\n{rules}\n\nQuestion: {{question}}\n"


def _kind(text: str, slot: str) -> list[PartKind]:
    prompt = segment_text(text)
    return [p.kind for p in prompt.parts if text[p.span.start : p.span.end].startswith(slot)]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("label", LABELS)
def test_a_slot_a_context_label_gives_is_the_context(label, name):
    text = _template(label, name)
    assert _kind(text, "{" + name + "}") == [PartKind.SOURCES]
    assert [(f.line, f.code) for f in lint_text(text, path="t.txt", config=CONFIG)] == [(3, "PL305")]
    # The twin: the rules before the context.
    assert lint_text(text.replace(RULES + "\n\n", "").replace("regulations.\n\n", f"regulations.\n\n{RULES}\n\n"), path="t.txt", config=CONFIG) == []


@pytest.mark.parametrize("label", ["Customer name", "Output format", "Context window"])
def test_a_label_that_names_no_context_gives_no_context(label):
    assert PartKind.SOURCES not in _kind(_template(label, "foo"), "{foo}")


@pytest.mark.parametrize("label", LABELS)
def test_a_context_label_after_the_last_sentence_of_its_line_gives_the_context(label):
    """The label may close a line of instructions ("You are analyzing a table. Context: {foo}", blind76
    RalphOng22): after the line's last sentence it labels the slot as it would at the start of the line."""
    text = _template(label, "foo").replace("regulations.\n\n", "regulations. ")
    assert _kind(text, "{foo}") == [PartKind.SOURCES]
    assert [(f.line, f.code) for f in lint_text(text, path="t.txt", config=CONFIG)] == [(1, "PL305")]
    # The twins: the label inside the sentence, not after it, says nothing of the slot; nor does a label that
    # names no context after a sentence.
    inside = text.replace(f"regulations. {label}: ", f"regulations in {label.lower()} {{foo}} and ").replace("{foo} and {foo}", "{foo} and")
    assert PartKind.SOURCES not in _kind(inside, "{foo}")
    assert PartKind.SOURCES not in _kind(text.replace(f"{label}:", "Customer name:"), "{foo}")
