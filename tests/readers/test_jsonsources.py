"""Sources written as JSON, as a search tool returns them to the model: read, reported, and
edited only by removing a whole field with its comma."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.model.prompt import Span
from promptlint.readers.jsonsources import json_sources
from promptlint.readers.segment import segment_text, words

CONFIG = build({"today": "2026-12-02"}, "test")

RESULTS = {
    "results": [
        {"title": "Returns Policy", "score": 0.91, "content": "Damaged goods may be returned within 30 days."},
        {"title": "Shipping FAQ", "score": 0.42, "content": "Standard delivery takes 3-5 working days.", "meta": {"tags": ["a", "b"]}},
    ]
}


def sources(text: str):
    vocab = words()
    return json_sources(text, vocab.content_labels, vocab.title_labels, vocab.heading_labels, vocab.chat_roles, vocab.metadata_labels)[0]


def test_compact_and_pretty_json_read_the_same_sources():
    for text in (json.dumps(RESULTS), json.dumps(RESULTS, indent=2)):
        found = sources(text)
        assert [text[s.content.start : s.content.end] for s in found] == [r["content"] for r in RESULTS["results"]]
        assert [s.title for s in found] == ["Returns Policy", "Shipping FAQ"]
        assert [[(f.label, json.loads(f.value) if f.label == "meta" else f.value) for f in s.fields] for s in found] == [
            [("title", "Returns Policy"), ("score", "0.91")],
            [("title", "Shipping FAQ"), ("score", "0.42"), ("meta", {"tags": ["a", "b"]})],
        ]


def test_comments_placeholders_and_escapes_are_tolerated():
    text = '[\n  {\n    "document": <citation_id>,   // the key\n    "title": "A \\"quoted\\" title",\n    "text": "Body, with: {braces}"\n  }\n]\n'
    (source,) = sources(text)
    assert text[source.content.start : source.content.end] == "Body, with: {braces}"
    assert [(f.label, f.value) for f in source.fields] == [("document", "<citation_id>"), ("title", 'A \\"quoted\\" title')]


def test_objects_that_are_not_sources_are_not_read():
    assert sources(json.dumps({"name": "promptlint", "version": "1.0", "scripts": {"test": "pytest"}})) == []
    assert sources(json.dumps([{"content": "alone, with no other key"}])) == []
    assert sources('{"title": "unclosed", "content": "never ends"') == []
    assert sources("{" * 1000 + '"content": "x", "title": "y"' + "]" * 1000) == []


def _without(results: dict, key: str) -> dict:
    return {"results": [{k: v for k, v in r.items() if k != key} for r in results["results"]]}


def _block(text: str) -> dict:
    """The JSON value between the instruction and the question."""
    return json.loads(text[text.index("{") : text.rindex("}") + 1])


@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("last", [False, True], ids=["middle-key", "last-key"])
def test_a_field_of_a_json_source_is_removed_with_its_comma(indent, last):
    results = {"results": [{**{k: v for k, v in r.items() if k != "score"}, "score": r["score"]} for r in RESULTS["results"]]} if last else RESULTS
    text = "Answer from the search results and cite them.\n\n" + json.dumps(results, indent=indent) + "\n\nQuestion: How long do I have to return damaged goods?\n"
    prompt = segment_text(text)
    assert [s.style for s in prompt.sources] == ["json", "json"]
    found = [f for f in lint_text(text, path="prompt.txt", config=CONFIG) if f.code == "PL102"]
    assert len(found) == 2 and all(f.fix is not None for f in found)
    fixed = fix_text(text, path="prompt.txt", config=CONFIG)
    assert _block(fixed) == _without(results, "score")
    assert fix_text(fixed, path="prompt.txt", config=CONFIG) == fixed
    if indent:
        # The formatting is kept: each line left is an original line (less the comma before a removed last key).
        assert {line.rstrip(",") for line in fixed.splitlines()} <= {line.rstrip(",") for line in text.splitlines()}


def test_no_other_edit_is_made_inside_json_sources():
    results = {"results": [{"title": "Returns Policy", "content": "Damaged goods may be returned within 30 days.", "visibility": "restricted"}, RESULTS["results"][1]]}
    text = "Answer from the search results.\n\n" + json.dumps(results, indent=2) + "\n\nQuestion: How long do I have to return damaged goods?\n"
    fixed = fix_text(text, path="prompt.txt", config=CONFIG, unsafe=True)
    assert len(_block(fixed)["results"]) == 2  # dropping a whole source would leave its comma behind


def test_a_tool_message_holding_json_results():
    record = {
        "messages": [
            {"role": "system", "content": "Answer from the search results."},
            {"role": "user", "content": "How long do I have to return damaged goods?"},
            {"role": "tool", "content": json.dumps(RESULTS)},
        ]
    }
    found = lint_text(json.dumps(record), path="chat.json", config=CONFIG)
    assert [f.code for f in found if f.code == "PL102"] == ["PL102", "PL102"]
    fixed = json.loads(fix_text(json.dumps(record), path="chat.json", config=CONFIG))
    assert json.loads(fixed["messages"][2]["content"]) == _without(RESULTS, "score")


def test_an_instruction_inside_a_json_source():
    text = json.dumps({"results": [{"title": "Report.xlsx", "content": "Only an excerpt is shown; prefer the code interpreter to parse the full file."}]})
    assert [f.code for f in lint_text(text + "\n\nQuestion: What is the Q3 total?\n", path="p.txt", config=CONFIG)] == ["PL103"]


def test_the_whole_json_value_is_the_sources_block():
    text = json.dumps({"results": RESULTS["results"], "note": "Results are truncated to 2 items."}, indent=2) + "\n\nQuestion: Why?\n"
    prompt = segment_text(text)
    assert prompt.sources_block == Span(0, text.index("\n\nQuestion"))
    assert prompt.locked == [prompt.sources_block]
    # The closing brackets and the "note" key are the tool's, not static instructions after the sources.
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL305"] == []


def test_deep_and_long_json_is_matched_but_not_kept():
    from promptlint.readers import jsonsources

    deep = "[" * (jsonsources.MAX_DEPTH + 10) + '{"title": "T", "content": "deep"}' + "]" * (jsonsources.MAX_DEPTH + 10)
    assert sources(deep) == []  # past the depth kept, only the brackets are counted
    shallow = "[" * 3 + '{"title": "T", "content": "kept"}' + "]" * 3
    assert [s.title for s in sources(shallow)] == ["T"]
    long = "[{" + ", ".join(f'"k{i}": {i}' for i in range(jsonsources.MAX_KEYS)) + ', "content": "late"}]'
    assert sources(long) == []


@pytest.mark.parametrize("elided", ["...", "\u2026", "[...]", "string", "<text>"])
def test_an_object_that_describes_a_sources_shape_is_no_source(elided):
    text = f'The context is JSON: {{"top_chunks": [{{"source": "{elided}", "text": "{elided}", "score": 0.5}}]}}\n\nAnswer from it.\n'
    assert segment_text(text).sources == []
    real = text.replace(f'"text": "{elided}"', '"text": "Press the green button to start."')
    assert [s.title or s.fields[0].value for s in segment_text(real).sources] == [f"{elided}"]


def test_json_serialised_into_a_string_is_read_where_it_stands():
    """A tool's result serialised twice (`"[{\\"title\\": ...}]"` in a user message): its objects are sources at
    their own offsets, and removing a score leaves the string's JSON whole."""
    serialised = json.dumps(json.dumps(RESULTS["results"], separators=(",", ":"), ensure_ascii=False), ensure_ascii=False)
    text = f"You are a support assistant. Answer from the tool's results.\n\nYou got this result from the tool: {serialised}\n"
    found = sources(text)
    assert [s.title for s in found] == ["Returns Policy", "Shipping FAQ"]
    assert [text[s.content.start : s.content.end] for s in found] == [r["content"] for r in RESULTS["results"]]
    fixed = fix_text(text, path="t.txt", config=build({"today": "2026-12-02", "select": ["PL102"]}, "test"))
    inner = fixed[fixed.index(": ", fixed.index("tool")) + 2 :].strip()
    assert [r.get("score") for r in json.loads(json.loads(inner))] == [None, None]


def test_chat_messages_written_out_as_json_are_no_sources():
    # A query that holds a request's messages as JSON text: role and content make a message, not a source.
    text = ('Answer the query from the context.\nQuery: [\n  {\n    "role": "system",\n    "content": "You extract the user\'s request and answer in JSON."\n  },\n'
            '  {\n    "role": "human",\n    "content": "How much does the car cost?"\n  }\n]\nAnswer: ')
    assert segment_text(text).sources == []
    # The twin: the same objects with a title instead of a role are sources.
    assert len(segment_text(text.replace('"role": "system"', '"title": "Pricing"').replace('"role": "human"', '"title": "FAQ"')).sources) == 2


BLOCK = ("Answer the question from the conversation and the profile only.\nIf the profile does not say, ask one question to find out.\n"
         "Never invent a course or a skill.\nReturn JSON with the fields answer, role and missing_skills, nothing else.")
SPEAKER_KEYS = ["sender", "author", "from", "speaker", "type"]
SPEAKERS = [("USER", "AI"), ("user", "assistant"), ("Human", "AI"), ("user", "system")]


@pytest.mark.parametrize("key", SPEAKER_KEYS)
@pytest.mark.parametrize("speakers", SPEAKERS)
def test_messages_are_known_by_a_value_that_names_a_chat_role_whatever_the_key(key, speakers):
    # `{"sender": "AI", "content": ...}` is a turn of the conversation, read as chat history: it is no source.
    turns = [{key: speakers[n % 2], "content": text, "timestamp": f"2026-06-0{n + 1}T10:00:00"}
             for n, text in enumerate(["Which career fits me?", "Backend development fits your profile.", "What skills am I missing?"])]
    text = f'You are a career mentor.\n\nCONTEXT_JSON:\n{json.dumps({"chatHistory": turns})}\n\n{BLOCK}\n'
    prompt = segment_text(text)
    assert prompt.sources == []
    (history,) = [p for p in prompt.parts if p.kind.value == "history"]
    assert text[history.span.start : history.span.end] == json.dumps(turns)[1:-1]
    assert [f.code for f in lint_text(text, path="prompt.txt", config=CONFIG)] == ["PL305"]
    # The twin: the same objects whose field names a place, not a speaker, are sources.
    places = json.dumps({"results": [{**t, key: f"wiki/page-{n}"} for n, t in enumerate(turns)]})
    assert len(segment_text(text.replace(json.dumps({"chatHistory": turns}), places)).sources) == 3


# A retriever's results put into the prompt as they are: JSON whose metadata is an object of its own, and the same
# results as Python prints them (LangChain's Document).
NESTED_JSON = (
    '[{"page_content": "Leave accrues at 1.5 days a month.", "metadata": {"source": "handbook.pdf", "page": 3, "score": 0.81}}, '
    '{"page_content": "Ten days carry over.", "metadata": {"source": "handbook.pdf", "page": 7, "score": 0.77}}]'
)
PYTHON_REPR = (
    "[Document(id='5c1f0e2a', metadata={'source': 'handbook.pdf', 'page': 3, 'score': 0.81}, page_content='Leave accrues at 1.5 days a month.'), "
    "Document(id='a7e4c2d9', metadata={'source': 'handbook.pdf', 'page': 7, 'score': 0.77}, page_content=\"Ten days carry over, as the handbook's page says.\")]"
)
ASKED = "Answer from the documents below.\n\n{}\n\nQuestion: How many days carry over?\n"


@pytest.mark.parametrize("written", [NESTED_JSON, PYTHON_REPR], ids=["json", "python"])
def test_a_sources_metadata_object_is_read_by_its_keys(written):
    found = sources(written)
    assert [written[s.content.start : s.content.end] for s in found] == [
        "Leave accrues at 1.5 days a month.", "Ten days carry over." if written is NESTED_JSON else "Ten days carry over, as the handbook's page says."
    ]
    labels = [[f.label for f in s.fields] for s in found]
    assert labels == [["source", "page", "score"]] * 2 if written is NESTED_JSON else labels == [["id", "source", "page", "score"]] * 2


def test_a_score_in_the_metadata_is_reported_and_removed_with_its_comma():
    text = ASKED.format(NESTED_JSON)
    line = text.splitlines()[2]
    scores = [line.index('"score": ' + value) + len('"score": ') + 1 for value in ("0.81", "0.77")]  # at the value
    assert [(f.line, f.column) for f in lint_text(text, config=CONFIG) if f.code == "PL102"] == [(3, scores[0]), (3, scores[1])]
    fixed = fix_text(text, config=CONFIG)
    assert json.loads(fixed.splitlines()[2]) == [
        {"page_content": "Leave accrues at 1.5 days a month.", "metadata": {"source": "handbook.pdf", "page": 3}},
        {"page_content": "Ten days carry over.", "metadata": {"source": "handbook.pdf", "page": 7}},
    ]


def test_the_only_key_of_a_metadata_object_goes_with_the_object():
    text = ASKED.format('[{"text": "Leave accrues monthly.", "meta": {"score": 0.81}}, {"text": "Ten days carry over.", "meta": {"score": 0.77}}]')
    assert json.loads(fix_text(text, config=CONFIG).splitlines()[2]) == [{"text": "Leave accrues monthly."}, {"text": "Ten days carry over."}]


def test_objects_python_prints_are_read_as_sources_and_fixed_in_place():
    text = ASKED.format(PYTHON_REPR)
    assert sorted({f.code for f in lint_text(text, config=CONFIG)} & {"PL102", "PL203"}) == ["PL102", "PL203"]
    fixed = fix_text(text, config=CONFIG).splitlines()[2]
    assert "'score'" not in fixed and fixed.count("page_content=") == 2 and fixed.count("'page': ") == 2


def test_messages_python_prints_are_chat_turns_not_sources():
    """The twin: `AIMessage(content=..., additional_kwargs={})` has a content key and others beside it, as a source
    has, but its call names a message."""
    turns = ("[SystemMessage(content='Answer from the context only.', additional_kwargs={}, response_metadata={}), "
             "HumanMessage(content='What is the refund policy?', additional_kwargs={}, response_metadata={})]")
    assert sources(turns) == []


def test_prose_with_a_call_of_no_content_keyword_is_read_as_json_as_before():
    """Only a keyword that names the chunk text turns the Python reading on: an apostrophe in prose never opens a string."""
    text = "Don't guess. Call search(query='x') if unsure, it's free.\n" + json.dumps(RESULTS)
    assert [s.title for s in sources(text)] == ["Returns Policy", "Shipping FAQ"]


def test_a_dict_python_prints_is_no_source_even_beside_a_content_keyword():
    """A tool call's arguments (`'args': {'content': 'Precio: 85000', 'product_name': ...}`) in a logged run whose code
    says `text=` somewhere: a dict is as often arguments as a result, and a function's call (`reply_text(text=...)`) is
    code, so only an object of a class (`Document(...)`) is read as a source."""
    logged = ("TOOL_CALLS: [{'name': 'update_catalog', 'args': {'content': 'Precio: 85000', 'product_name': 'Omega 3', 'doc_type': 'product'}}]\n"
              "TOOL_CALLS: [{'name': 'update_catalog', 'args': {'content': 'base_price: 85000', 'product_name': 'Omega 3', 'doc_type': 'product'}}]\n"
              "await update.message.reply_text(text='Hecho', parse_mode='Markdown')\n")
    assert sources(logged) == []
    # The twin: the same arguments as objects a retriever printed are sources.
    printed = ("[Document(content='Precio: 85000', product_name='Omega 3', doc_type='product'), "
               "Document(content='base_price: 85000', product_name='Omega 3', doc_type='product')]\n" + logged.splitlines()[-1])
    assert [s.title for s in sources(printed)] == [None, None] and [f.label for f in sources(printed)[0].fields] == ["product name", "doc type"]


def test_an_object_under_a_key_that_names_no_metadata_is_the_documents_own():
    """The twin of a metadata object: a match report's `"stats": {"score": 3}` is a fact of the match, one field
    named for the object, no retrieval score, and nothing is removed from it."""
    text = ASKED.format('[{"content": "Arsenal beat Chelsea at home.", "stats": {"score": 3, "goals": 2}}, '
                        '{"content": "Spurs drew with Everton.", "stats": {"score": 1, "goals": 1}}]')
    assert [[f.label for f in s.fields] for s in sources(text)] == [["stats"], ["stats"]]
    assert [f.code for f in lint_text(text, config=CONFIG) if f.code == "PL102"] == []
    assert fix_text(text, config=CONFIG) == text


def test_dicts_python_prints_in_a_list_are_sources():
    """A run's log prints the search results as Python writes a list of dicts (blind79 Gmpho: `[{'url': ..., 'title':
    ..., 'snippet': ..., 'source': 'DuckDuckGo'}, ...]` under "### SA WEB DATA"): each dict with the text under a
    content key is a source, as the same list written in JSON is. The twin: a dict alone (a tool's arguments) is none."""
    results = [{"url": "https://a.example/runners", "title": "Runner index", "snippet": "Form guide for every runner of the meeting.", "source": "DuckDuckGo"},
               {"url": "https://b.example/cards", "title": "Race cards", "snippet": "The draw, the weights and the jockeys of each race.", "source": "DuckDuckGo"}]
    # Read as the same list written in JSON is.
    assert [(s.title, [f.label for f in s.fields]) for s in sources(repr(results))] == [(s.title, [f.label for f in s.fields]) for s in sources(json.dumps(results))]
    assert [[f.label for f in s.fields] for s in sources(repr(results))] == [["url", "title", "source"]] * 2
    printed = repr(results)
    assert [printed[s.content.start : s.content.end] for s in sources(printed)] == [r["snippet"] for r in results]
    assert sources("args = " + repr(results[0])) == []
