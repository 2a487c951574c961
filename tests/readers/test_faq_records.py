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


FAQ = [
    ("General questions", "Can I still join after the start date?", "Yes, you can still submit the homeworks, but the final project has a deadline."),
    ("Module 1", "How do I install Docker?", "Run the installer from the website, then check it works with docker run hello-world."),
    ("Module 1", "Is it a group project?", "No, it is a solo project."),
]


@pytest.mark.parametrize("labels", [("section", "question", "answer"), ("Section", "Q", "A")])
@pytest.mark.parametrize("opening", ["CONTEXT:\n", "CONTEXT: "])
def test_faq_entries_under_the_context_are_sources_and_the_question_is_the_prompts(labels, opening):
    # An entry's answer is its text, one sentence or several, and may open with a verb ("Run ..."); the first
    # entry may stand on the context label's line; the entry's own question is no question to the model.
    entries = "\n\n".join(f"{labels[0]}: {s}\n{labels[1]}: {q}\n{labels[2]}: {a}" for s, q, a in FAQ)
    text = f"Answer the QUESTION from the CONTEXT only.\n\nQUESTION: how do I run docker?\n\n{opening}{entries}\n"
    prompt = segment_text(text)
    assert [(text[s.content.start : s.content.end], [f.label for f in s.fields]) for s in prompt.sources] == [
        (a, [labels[0].lower(), labels[1].lower()]) for _, _, a in FAQ
    ]
    assert [text[q.start : q.end] for q in prompt.questions] == ["how do I run docker?"]


def test_faq_entries_under_a_section_line_are_sources_with_that_heading():
    entries = "\n\n".join(f"{s}\nQ: {q}\nA: {a}" for s, q, a in FAQ)
    text = f"Question:\nhow do I run docker?\n\nContext:\n{entries}\n"
    prompt = segment_text(text)
    assert [(s.heading_path, s.title, text[s.content.start : s.content.end]) for s in prompt.sources] == [((s,), None, a) for s, _, a in FAQ]
    assert [text[q.start : q.end] for q in prompt.questions] == ["how do I run docker?"]
    assert lint_text(text, path="faq.txt") == []  # one section twice is one heading, not one document split


@pytest.mark.parametrize("first", ["search_docs(", "print(result)", "Step 1. Read the question.", "Always answer in English"])
def test_a_line_of_code_or_a_sentence_above_fields_is_no_section(first):
    text = f"You call tools.\n\n{first}\n    query: streaming docs for the agent\n    limit: 10 results at most please\n\n{first}\n    query: checking all the links in the page\n    limit: 20 results at most please\n"
    assert all(not s.heading_path for s in segment_text(text).sources)


# An answer whose first line ends before its text does: a command or a list follows on the lines below, and the
# first line may read as fields of its own ("In the project directory, run:"). Seen in blind45a eldangs.
RUN_ON = [
    ("Module 6", "How do I run the producer?", "In the project directory, run:", "java -cp build/libs/app.jar JsonProducer.java"),
    ("Module 6", "Permission denied on build.sh", "Run this in the same directory (/docker/spark):", "chmod +x build.sh"),
    ("Project", "kafka.vendor.six.moves not found", "According to the kafka-python issue tracker:", "Use pip install kafka-python-ng instead"),
]


def test_an_answer_s_first_line_opens_its_text():
    entries = "\n\n".join(f"section: {s}\nquestion: {q}\nanswer: {a}\n{more}" for s, q, a, more in RUN_ON)
    text = f"Answer the QUESTION from the CONTEXT only.\n\nQUESTION: how do I run kafka\n\nCONTEXT: {entries}\n"
    prompt = segment_text(text)
    assert [(text[s.content.start : s.content.end], [f.label for f in s.fields]) for s in prompt.sources] == [
        (f"{a}\n{more}", ["section", "question"]) for _, _, a, more in RUN_ON
    ]
    assert [f.code for f in lint_text(text, path="p.txt") if f.code != "PL205"] == []


def test_the_twin_one_question_and_its_answer_cue_are_the_prompt_s():
    """One paragraph of a question and an answer cue (`Answer:<end_of_turn>`) ending a prompt is no FAQ entry."""
    text = ("Use the passages to answer.\n\n- Digestion starts in the mouth.\n\nRelevant passages: <extract them here>\n"
            "User query: How are nutrients absorbed?\nAnswer:<end_of_turn>\n<start_of_turn>model\n")
    assert segment_text(text).sources == []


# Entries that open with their question, no section line above it ("Q: ...", then "A: ..." and the answer's lines),
# as the LLM Zoomcamp course prints its FAQ (blind46b jaguar838).
ASKED_FIRST = [
    ("How do I debug a docker container?", "Launch the image in interactive mode, overriding the entrypoint:", "docker run -it --entrypoint bash <image>"),
    ("PGCLI - running in a Docker container", "If pgcli causes issues locally, run it in a container instead:", "docker run -it --rm --network pg-network pgcli"),
    ("How do I copy files into a container?", "Use the docker cp command from your machine:", "docker cp ./file.txt container_id:/app/"),
]


def _asked_first(label):
    entries = "\n\n".join(f"Q: {q}\nA: {a}\n{more}" for q, a, more in ASKED_FIRST)
    return (f"You're a course teaching assistant. Answer the QUESTION based on the CONTEXT.\n\n"
            f"QUESTION: How do I execute a command in a running container?\n\n{label}\n{entries}\n")


def test_entries_that_ask_first_under_the_context_are_sources():
    text = _asked_first("CONTEXT:")
    prompt = segment_text(text)
    assert [(text[s.content.start : s.content.end], [f.value for f in s.fields]) for s in prompt.sources] == [
        (f"{a}\n{more}", [q]) for q, a, more in ASKED_FIRST
    ]
    assert [text[q.start : q.end] for q in prompt.questions] == ["How do I execute a command in a running container?"]
    assert [f.code for f in lint_text(text, path="p.txt") if f.code != "PL205"] == []


@pytest.mark.parametrize("label", ["Examples:", "Here is how to answer:"])
def test_the_twins_entries_that_ask_first_elsewhere_are_worked_examples(label):
    assert segment_text(_asked_first(label)).sources == []


def test_the_twin_one_entry_that_asks_first_is_no_faq():
    text = "Answer from the context.\n\nCONTEXT:\nQ: How do I debug a container?\nA: Launch it interactively.\ndocker run -it app\n"
    assert [s for s in segment_text(text).sources if s.fields and s.fields[0].label == "q"] == []
