"""Records of an FAQ retrieved as context: "Section: ...", "Question: ...", "Answer: ..." then more lines.
The entry's own question is a field of the record, not the user's question, and a field whose value is a
sentence that more lines continue opens the record's text (mlcon_rag's FAQ prompt)."""

from __future__ import annotations

import pytest

from promptlint.engine.lint import lint_text
from promptlint.readers.segment import segment_text

ENTRIES = [
    ("Can I still join the course after the start date?", "Yes, even if you do not register, you can still submit the homeworks.", "Mind the deadlines for the final projects."),
    ("What can I do before the course starts?", "You can start by installing and setting up all the dependencies and requirements.", "Look over the prerequisites and the syllabus."),
    ("Can I follow the course after it finishes?", "Yes, we keep all the materials after the course finishes, so you can follow at your pace.", "You can also prepare for the next cohort."),
]


def _prompt(label="Question"):
    records = "\n\n".join(f"Section: General questions\n{label}: Course - {q}\nAnswer: {a}\n{more}" for q, a, more in ENTRIES)
    return ("You're a course teaching assistant. Answer the QUESTION from the CONTEXT only.\n\n"
            f"QUESTION: I just found the course. Can I still join?\n\nCONTEXT:\n\n{records}\n")


@pytest.mark.parametrize("label", ["Question", "question", "Q"])
def test_an_faq_entry_s_question_is_its_own(label):
    text = _prompt(label)
    prompt = segment_text(text)
    assert len(prompt.sources) == 3
    assert [text[s.content.start : s.content.end] for s in prompt.sources] == [f"{a}\n{more}" for _, a, more in ENTRIES]
    assert [text[q.start : q.end] for q in prompt.questions] == ["I just found the course. Can I still join?"]
    assert [f.code for f in lint_text(text, path="p.txt") if f.code in ("PL101", "PL305")] == []


def test_the_twin_with_the_question_first_in_its_paragraph_is_the_user_s():
    """A paragraph that opens with the question label is the request's question and context, no record."""
    text = "Answer from the context.\n\nQuestion: Can I still join?\nAnswer: Yes, even if you do not register, you can still submit the homeworks.\nMind the deadlines.\n"
    prompt = segment_text(text)
    assert prompt.sources == [] and len(prompt.questions) == 1
