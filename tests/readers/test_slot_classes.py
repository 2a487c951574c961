"""What a template variable holds is read from its name by class, not by a list of names
one file used (rules/segment.yaml, the "-vars" groups): each class below is generated over
several spellings and the template forms, and each has a clean twin, a name of none of
its words, that must change nothing.

- the retrieved context: a name whose last word names it, however it is qualified
  (`web_documents`, `text_sources`), unless a word says it is the assistant's own setup
  (`personality_context`);
- a rewrite of the question: a noun for the question read again, alone or last
  (`interpretation`, `query_reformulation`), or a question a rewriting word qualifies;
- per-request data: the user's own (`user_...`) and the moment's (`current_...`), and a value of an
  object the request brings (`user.name`, `requestHints.city`).
"""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.model.prompt import PartKind
from promptlint.readers.segment import segment_text, slot_kind, words

CONFIG = build({"today": "2026-12-02"}, "test")
# A slot as each template form writes it, by the file suffix that picks the reader.
FORMS = {"p.txt": "{%s}", "p.j2": "{{ %s }}", "p.mustache": "{{%s}}"}


def _findings(template: str, path: str, name: str) -> list[str]:
    text = template.replace("{slot}", FORMS[path] % name).replace("{question}", FORMS[path] % "question")
    return [f"{f.line}:{f.column} {f.code}" for f in lint_text(text, path=path, config=CONFIG)]


def _cases(names):
    return [pytest.param(path, name, id=f"{path}:{name}") for path in FORMS for name in names]


# Rules after the context slot: PL305 reports the first of them, only if the slot is the context.
AFTER_CONTEXT = "You answer from the handbook.\n\n{slot}\n\nRules:\n- Never guess.\n- Answer in English.\n- Say so when the handbook does not answer the question, and never make up a policy.\n\nQuestion: {question}\n"
CONTEXT = ["web_documents", "text_sources", "image_sources", "TEXT_SOURCES", "retrieved_web_documents_str", "kb_passages",
           "news_search_results", "ticket_chunks"]
NOT_CONTEXT = ["source_count", "document_title", "web_search_enabled",
               # the assistant's own setup, fixed for a deployment, whatever its last word
               "personality_context", "persona_context", "agent_documents", "system_knowledge", "tone_context",
               # how many there are, not the text: a count word anywhere in the name
               "total_chunks", "num_docs", "number_of_results", "len_passages", "doc_count_sources", "size_of_retrieved_docs"]


@pytest.mark.parametrize(("path", "name"), _cases(CONTEXT))
def test_a_name_whose_last_word_names_the_context_holds_the_context(path, name):
    assert slot_kind(name.lower(), words()) == "context"
    assert _findings(AFTER_CONTEXT, path, name) == ["3:1 PL305"]


@pytest.mark.parametrize(("path", "name"), _cases(NOT_CONTEXT))
def test_the_context_twin_holds_no_context(path, name):
    assert slot_kind(name.lower(), words()) is None
    assert _findings(AFTER_CONTEXT, path, name) == []


# The rewrite beside the question repeats it (PL101); alone, it replaces it (PL304).
BESIDE = "Answer from the context.\n\nContext:\n{context}\n\nQuestion: {question}\n{slot}\nAnswer:\n"
ALONE = "Answer from the context.\n\nContext:\n{context}\n\nQuestion: {slot}\nAnswer:\n"
REWRITTEN = ["interpretation", "query_interpretation", "QUESTION_REFORMULATION", "rephrasing", "paraphrase",
             "restatement_text", "interpreted_question", "restated_query"]
NOT_REWRITTEN = ["explanation", "interpretation_guide", "query_count",
                 # what a user typed into a search box as often as what a step generated from the question
                 "search_query", "searchQuery"]


@pytest.mark.parametrize(("path", "name"), _cases(REWRITTEN))
def test_a_name_for_the_question_read_again_holds_a_rewrite(path, name):
    assert slot_kind(name.lower(), words()) == "rewritten"
    assert _findings(BESIDE.replace("{context}", FORMS[path] % "context"), path, name) == ["7:1 PL101"]
    assert _findings(ALONE.replace("{context}", FORMS[path] % "context"), path, name) == ["6:11 PL304"]


@pytest.mark.parametrize(("path", "name"), _cases(NOT_REWRITTEN))
def test_the_rewrite_twin_holds_no_rewrite(path, name):
    assert slot_kind(name.lower(), words()) is None
    assert _findings(BESIDE.replace("{context}", FORMS[path] % "context"), path, name) == []


# Per-request data above the static instructions: PL305 reports it where it starts.
BEFORE_STATIC = "Location: {slot}\n\nYou answer from the handbook. Never guess. Answer in English.\n\nContext:\n{context}\n\nQuestion: {question}\n"
VOLATILE = ["user_location", "user_city", "USER_TIMEZONE", "current_weather", "current_store", "today_str"]
NOT_VOLATILE = ["collection", "radius", "store_location", "search_radius"]


@pytest.mark.parametrize(("path", "name"), _cases(VOLATILE))
def test_the_users_and_the_moments_data_is_per_request(path, name):
    assert slot_kind(name.lower(), words()) == "volatile"
    assert _findings(BEFORE_STATIC.replace("{context}", FORMS[path] % "context"), path, name) == ["1:11 PL305"]


@pytest.mark.parametrize(("path", "name"), _cases(NOT_VOLATILE))
def test_a_request_parameter_named_for_no_user_or_moment_is_no_volatile_data(path, name):
    assert slot_kind(name.lower(), words()) is None
    assert _findings(BEFORE_STATIC.replace("{context}", FORMS[path] % "context"), path, name) == []


# A value read from an object the request brings: the object's name says whose it is.
OWNED = ["user.name", "requestHints.city", "request.country", "session.locale", "req.body.region", "currentUser.plan"]
NOT_OWNED = ["store.location", "config.city", "settings.region", "request_return"]


@pytest.mark.parametrize(("path", "name"), _cases(OWNED))
def test_a_value_of_the_users_or_the_requests_object_is_per_request(path, name):
    assert slot_kind(name, words()) == "volatile"
    assert _findings(BEFORE_STATIC.replace("{context}", FORMS[path] % "context"), path, name) == ["1:11 PL305"]


@pytest.mark.parametrize(("path", "name"), _cases(NOT_OWNED))
def test_a_value_of_another_object_is_no_volatile_data(path, name):
    assert slot_kind(name, words()) is None
    assert _findings(BEFORE_STATIC.replace("{context}", FORMS[path] % "context"), path, name) == []


def test_the_context_slot_is_the_sources_part():
    text = AFTER_CONTEXT.replace("{slot}", "{web_documents}")
    assert [text[p.span.start : p.span.end] for p in segment_text(text).parts if p.kind is PartKind.SOURCES] == ["{web_documents}"]


@pytest.mark.parametrize(("path", "name"), _cases(["sourceContext", "webDocuments", "retrievedPassages", "KbContext"]))
def test_a_name_in_camel_case_is_read_by_its_words(path, name):
    """`{sourceContext}` in a TypeScript prompt filled by `.replace`: its case splits its words, read before the text
    is lowered; its twin, one word no class holds, is nothing."""
    assert slot_kind(name, words()) == "context"
    assert _findings(AFTER_CONTEXT, path, name) == ["3:1 PL305"]
    assert _findings(AFTER_CONTEXT, path, name.lower() + "x") == []


# A one-line check after the data, cheap to leave where it is (PL305's threshold) unless the data is the user's own.
YES_NO = "Is this passage - {passage} - relevant to this question - {slot}? Answer with either 'yes' or 'no'.\n"


@pytest.mark.parametrize(("path", "name"), _cases(["utterance", "user_utterance", "userUtterance"]))
def test_the_users_utterance_is_the_question(path, name):
    """A dialogue system's name for what the user said this turn is the question, not data about the user."""
    assert slot_kind(name, words()) == "question"
    assert _findings(YES_NO.replace("{passage}", FORMS[path] % "passage"), path, name) == []
    # The twin: data about the user, per request, splits the instructions however little follows it.
    template = YES_NO.replace("{passage}", FORMS[path] % "passage")
    column = template.replace("{slot}", FORMS[path] % "user_location").index(FORMS[path] % "user_location") + 1
    assert _findings(template, path, "user_location") == [f"1:{column} PL305"]
