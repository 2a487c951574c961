import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptlint.readers.chatjson import (
    SHAPE_ERROR,
    ChatText,
    JsonSyntaxError,
    parse_chat_json,
    parse_chat_jsonl,
    raw_offset,
    replace_texts,
)
from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

PRETTY = """{
  "model": "gpt-4o",
  "messages": [
    {
      "role": "system",
      "content": "Answer from the sources."
    },
    {
      "role": "user",
      "content": "What is RAG?"
    }
  ]
}
"""


def literal_of(raw: str, chat: ChatText) -> str:
    return raw[chat.literal[0] : chat.literal[1]]


# --- shapes, spans and positions ---------------------------------------------


def test_pretty_printed_file_gives_exact_spans_and_positions():
    assert parse_chat_json(PRETTY) == [
        ChatText(0, "messages[0]", "system", "Answer from the sources.", (86, 112), 6, 18),
        ChatText(0, "messages[1]", "user", "What is RAG?", (165, 179), 10, 18),
    ]
    first, second = parse_chat_json(PRETTY)
    assert literal_of(PRETTY, first) == '"Answer from the sources."'
    assert literal_of(PRETTY, second) == '"What is RAG?"'


def test_compact_file_gives_exact_spans_and_positions():
    raw = '{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Why?"}]}'
    assert parse_chat_json(raw) == [
        ChatText(0, "messages[0]", "system", "Be brief.", (40, 51), 1, 41),
        ChatText(0, "messages[1]", "user", "Why?", (78, 84), 1, 79),
    ]


def test_column_counts_characters_not_bytes():
    raw = '{"note": "ééé", "prompt": "x"}'
    [chat] = parse_chat_json(raw)
    assert (chat.line, chat.column) == (1, 27)
    assert chat.literal == (26, 29)


def test_parts_list_takes_text_parts_and_skips_others():
    raw = json.dumps(
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
                        {"type": "text", "text": "Describe it."},
                        {"type": "text", "text": "Briefly."},
                    ],
                }
            ]
        },
        indent=2,
    )
    texts = parse_chat_json(raw)
    assert [(t.path, t.role, t.text) for t in texts] == [
        ("messages[0].content[1]", "user", "Describe it."),
        ("messages[0].content[2]", "user", "Briefly."),
    ]
    assert [literal_of(raw, t) for t in texts] == ['"Describe it."', '"Briefly."']
    assert [(t.line, t.column) for t in texts] == [(14, 19), (18, 19)]


def test_null_and_missing_content_are_skipped_but_keep_message_numbers():
    raw = json.dumps(
        [
            {"role": "system", "content": "S"},
            {"role": "assistant", "content": None, "tool_calls": []},
            {"role": "tool", "tool_call_id": "1"},
            {"role": "user", "content": "U"},
        ]
    )
    assert [(t.path, t.role, t.text) for t in parse_chat_json(raw)] == [("messages[0]", "system", "S"), ("messages[3]", "user", "U")]


def test_prompt_object_is_one_user_text():
    raw = '{"id": 7, "prompt": "Summarise:\\nthe text"}'
    assert parse_chat_json(raw) == [ChatText(0, "messages[0]", "user", "Summarise:\nthe text", (20, 42), 1, 21)]


@pytest.mark.parametrize("key", ["system", "system_prompt"])
def test_a_system_prompt_beside_the_prompt_comes_first(key):
    """Ollama's generate request (`"system"`) and a call logged with its keywords (LightRAG's `"system_prompt"`)."""
    raw = '{"model": "llama3", "KEY": "Answer from the sources.", "prompt": "Question: why?"}'.replace("KEY", key)
    assert [(t.path, t.role, t.text) for t in parse_chat_json(raw)] == [(key, "system", "Answer from the sources."), ("messages[0]", "user", "Question: why?")]
    # The twin: any other key beside the prompt is not sent.
    other = raw.replace(key, "template")
    assert [(t.path, t.role) for t in parse_chat_json(other)] == [("messages[0]", "user")]


def test_bare_list_of_messages():
    raw = '[\n  {"role": "user", "content": "Hi"},\n  {"role": "assistant", "content": "Hello"}\n]'
    assert parse_chat_json(raw) == [
        ChatText(0, "messages[0]", "user", "Hi", (32, 36), 2, 31),
        ChatText(0, "messages[1]", "assistant", "Hello", (74, 81), 3, 36),
    ]


def test_messages_win_over_prompt_and_other_keys_are_ignored():
    raw = '{"prompt": "ignored", "meta": {"a": [1, -2.5e3, true, false, null, NaN]}, "messages": [{"role": "user", "content": "kept"}]}'
    assert [t.text for t in parse_chat_json(raw)] == ["kept"]


def test_empty_messages_give_no_texts():
    assert parse_chat_json('{"messages": []}') == []
    assert parse_chat_json("[]") == []


def test_every_literal_decodes_to_its_text():
    raw = json.dumps(
        {"messages": [{"role": "user", "content": 'tab\t "q" \\ é 😀 \u2028 end'}]}, ensure_ascii=True, indent=1
    )
    [chat] = parse_chat_json(raw)
    assert json.loads(literal_of(raw, chat)) == chat.text == 'tab\t "q" \\ é 😀 \u2028 end'


# --- raw_offset ---------------------------------------------------------------


ESCAPED = '{"prompt": "a\\nb\\"c\\u00e9d\\ud83d\\ude00eé"}'


@pytest.mark.parametrize(
    ("offset", "encoding"),
    [
        (0, "a"),
        (1, "\\n"),
        (2, "b"),
        (3, '\\"'),
        (4, "c"),
        (5, "\\u00e9"),
        (6, "d"),
        (7, "\\ud83d\\ude00"),
        (8, "e"),
        (9, "é"),
        (10, '"'),
    ],
)
def test_raw_offset_steps_over_escapes(offset, encoding):
    [chat] = parse_chat_json(ESCAPED)
    assert chat.text == 'a\nb"céd😀eé'
    start = raw_offset(chat, ESCAPED, offset)
    assert ESCAPED[start : start + len(encoding)] == encoding


def test_raw_offset_of_text_end_is_the_closing_quote():
    [chat] = parse_chat_json(ESCAPED)
    assert raw_offset(chat, ESCAPED, len(chat.text)) == chat.literal[1] - 1


def test_raw_offset_keeps_a_lone_surrogate_as_one_character():
    raw = '{"prompt": "\\ud83dx\\ude00y"}'
    [chat] = parse_chat_json(raw)
    assert chat.text == "\ud83dx\ude00y"
    assert [raw_offset(chat, raw, i) for i in range(5)] == [12, 18, 19, 25, 26]


def test_raw_offset_in_a_later_line_gives_file_position():
    [_, user] = parse_chat_json(PRETTY)
    assert PRETTY[raw_offset(user, PRETTY, 8) :].startswith("RAG?")


def test_raw_offset_rejects_offsets_outside_the_text():
    [chat] = parse_chat_json(ESCAPED)
    with pytest.raises(ValueError):
        raw_offset(chat, ESCAPED, len(chat.text) + 1)
    with pytest.raises(ValueError):
        raw_offset(chat, ESCAPED, -1)


# --- replace_texts ------------------------------------------------------------


def test_replace_texts_changes_only_the_literals():
    system, user = parse_chat_json(PRETTY)
    new_system = 'Answer only from the "sources".\nCite them.'
    new_user = "What is RAG? é"
    result = replace_texts(PRETTY, {system.literal: new_system, user.literal: new_user})

    assert result[: system.literal[0]] == PRETTY[: system.literal[0]]
    new_system_literal = '"Answer only from the \\"sources\\".\\nCite them."'
    middle_start = system.literal[0] + len(new_system_literal)
    assert result[system.literal[0] : middle_start] == new_system_literal
    middle = PRETTY[system.literal[1] : user.literal[0]]
    assert result[middle_start : middle_start + len(middle)] == middle
    assert result[middle_start + len(middle) :] == '"What is RAG? é"' + PRETTY[user.literal[1] :]

    expected = json.loads(PRETTY)
    expected["messages"][0]["content"] = new_system
    expected["messages"][1]["content"] = new_user
    assert json.loads(result) == expected
    assert [t.text for t in parse_chat_json(result)] == [new_system, new_user]


def test_replace_texts_handles_several_literals_on_one_line():
    raw = '[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},{"role":"assistant","content":"c"}]'
    texts = parse_chat_json(raw)
    result = replace_texts(raw, {t.literal: t.text.upper() * 3 for t in texts})
    assert result == raw.replace('"a"', '"AAA"').replace('"b"', '"BBB"').replace('"c"', '"CCC"')


def test_replace_texts_with_no_replacements_returns_raw():
    assert replace_texts(PRETTY, {}) == PRETTY


@pytest.mark.parametrize(
    ("original", "new_text", "expected"),
    [
        # A literal that escapes non-ASCII keeps escaping it.
        ('"caf\\u00e9"', "naïve 😀", '"na\\u00efve \\ud83d\\ude00"'),
        # A literal written with raw non-ASCII keeps it raw.
        ('"café"', "naïve 😀", '"naïve 😀"'),
        # A literal with both styles counts as raw.
        ('"caf\\u00e9 é"', "naïve", '"naïve"'),
        # An escaped backslash before "u00e9" is not a \\u escape.
        ('"C:\\\\u00e9"', "naïve", '"naïve"'),
        # An ASCII escape alone says nothing about non-ASCII style.
        ('"line\\u000a"', "naïve", '"naïve"'),
        # A lone surrogate must stay escaped to be writable as UTF-8.
        ('"x"', "a\ud800b", '"a\\ud800b"'),
        # Control characters are always escaped.
        ('"x"', "a\tb\x01", '"a\\tb\\u0001"'),
    ],
)
def test_replace_texts_keeps_the_literal_style(original, new_text, expected):
    raw = '{"prompt": ' + original + "}"
    [chat] = parse_chat_json(raw)
    result = replace_texts(raw, {chat.literal: new_text})
    assert result == '{"prompt": ' + expected + "}"
    assert json.loads(result) == {"prompt": new_text}


def test_replace_texts_rejects_spans_that_are_not_literals():
    with pytest.raises(ValueError):
        replace_texts(PRETTY, {(0, 5): "x"})
    system, _ = parse_chat_json(PRETTY)
    start, end = system.literal
    with pytest.raises(ValueError):
        replace_texts(PRETTY, {(start, end): "x", (start, end - 5): "y"})


# --- JSONL --------------------------------------------------------------------


def test_jsonl_broken_line_among_good_ones():
    raw = (
        '{"messages": [{"role": "user", "content": "one"}]}\n'
        "\n"
        '{"messages": [{"role": "user", "content": "two"}\n'
        "   \t\n"
        '{"prompt": "three"}\n'
        '{"messages": {"role": "user"}}\n'
        '[{"role": "system", "content": "five"}]\n'
    )
    results = parse_chat_jsonl(raw)
    assert len(results) == 5

    assert results[0] == [ChatText(0, "messages[0]", "user", "one", (42, 47), 1, 43)]

    broken = results[1]
    assert isinstance(broken, JsonSyntaxError)
    assert (broken.line, broken.column) == (3, 49)
    assert broken.message == "Expecting ',' or ']'"

    [three] = results[2]
    assert (three.record, three.text, three.line, three.column) == (2, "three", 5, 12)
    assert literal_of(raw, three) == '"three"'

    shape = results[3]
    assert isinstance(shape, JsonSyntaxError)
    assert shape.message == '"messages" must be a list of messages'
    assert (shape.line, shape.column) == (6, 14)

    [five] = results[4]
    assert (five.record, five.role, five.text, five.line, five.column) == (4, "system", "five", 7, 32)


def test_a_jsonl_record_whose_prompt_is_null_has_no_prompt_and_is_no_error():
    """A results log writes `"prompt": null` where a run made none (blind61c, NoMIRACL): that record has no prompt; it
    is not a broken request. A prompt of another type still is."""
    raw = '{"query_id": "1", "prompt": null}\n{"query_id": "2", "prompt": "Answer from the context."}\n{"query_id": "3", "prompt": 42}\n'
    findings = [(f.code, f.line, f.message) for f in lint_text(raw, path="results.jsonl") if f.code == "PL900"]
    assert findings == [("PL900", 3, 'valid JSONL but not a chat record: "prompt" must be a string, or a list of one string')]
    assert [t.text for t in parse_chat_jsonl(raw)[1]] == ["Answer from the context."]


def test_jsonl_string_cannot_run_into_the_next_line():
    raw = '{"prompt": "open\n{"prompt": "fine"}'
    broken, fine = parse_chat_jsonl(raw)
    assert isinstance(broken, JsonSyntaxError)
    assert broken.message == "Invalid control character"
    assert (broken.line, broken.column) == (1, 17)
    assert [t.text for t in fine] == ["fine"]


def test_jsonl_crlf_and_missing_final_newline():
    raw = '{"prompt": "a"}\r\n\r\n{"prompt": "b"}'
    first, second = parse_chat_jsonl(raw)
    assert [(t.record, t.text, t.line, t.column) for t in first + second] == [(0, "a", 1, 12), (1, "b", 3, 12)]
    assert literal_of(raw, second[0]) == '"b"'


def test_jsonl_of_blank_lines_is_empty():
    assert parse_chat_jsonl("") == []
    assert parse_chat_jsonl("\n  \n\r\n") == []


def test_jsonl_replacement_keeps_other_lines():
    raw = '{"prompt": "a"}\n{"prompt": "b"}\n'
    _, [second] = parse_chat_jsonl(raw)
    assert replace_texts(raw, {second.literal: "B\nB"}) == '{"prompt": "a"}\n{"prompt": "B\\nB"}\n'


# --- errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "message", "line", "column"),
    [
        ("", "Expecting value", 1, 1),
        ("   \n  ", "Expecting value", 2, 3),
        ('{"prompt": "x",\n  }', "Expecting property name enclosed in double quotes", 2, 3),
        ('{"prompt" "x"}', "Expecting ':' delimiter", 1, 11),
        ('{"prompt": "x"', "Expecting ',' or '}'", 1, 15),
        ('[\n  {"role": "user", "content": "x"},\n]', "Expecting value", 3, 1),
        ('{"prompt": tru}', "Expecting value", 1, 12),
        ('{"prompt": "x"} {}', "Extra data after the JSON value", 1, 17),
        ('{"prompt": "abc', "Unterminated string", 1, 12),
        ('{"prompt": "a\\qb"}', "Invalid \\escape", 1, 14),
        ('{"prompt": "a\\u12"}', "Invalid \\uXXXX escape", 1, 15),
        ('{\n "prompt": "a\tb"}', "Invalid control character", 2, 14),
        ("{'prompt': 'x'}", "Expecting property name enclosed in double quotes", 1, 2),
        ("[01]", "Expecting ',' or ']'", 1, 3),
    ],
)
def test_invalid_json_reports_line_and_column(raw, message, line, column):
    with pytest.raises(JsonSyntaxError) as caught:
        parse_chat_json(raw)
    assert (caught.value.message, caught.value.line, caught.value.column) == (message, line, column)
    assert str(caught.value) == f"line {line}, column {column}: {message}"


@pytest.mark.parametrize(
    ("raw", "message", "line", "column"),
    [
        ("42", SHAPE_ERROR, 1, 1),
        ('"just text"', SHAPE_ERROR, 1, 1),
        ('\n  {"model": "x"}', SHAPE_ERROR, 2, 3),
        ('{"messages": "hi"}', '"messages" must be a list of messages', 1, 14),
        ('{"model": "m", "prompt": ["a", "b"]}', '"prompt" must be a string, or a list of one string', 1, 26),  # a batch is several requests
        ('[{"role": "user", "content": "a"}, "b"]', 'expected a message object with "role" and "content"', 1, 36),
        ('[\n  {"content": "a"}\n]', 'message has no "role"', 2, 3),
        ('[{"role": 1, "content": "a"}]', '"role" must be a string', 1, 11),
        ('[{"role": "user", "content": 5}]', '"content" must be a string, a list of parts, or null', 1, 30),
        ('[{"role": "user", "content": {"text": "a"}}]', '"content" must be a string, a list of parts, or null', 1, 30),
        (
            '[{"role": "user", "content": ["a"]}]',
            'expected a content part object such as {"type": "text", "text": ...}',
            1,
            31,
        ),
        ('[{"role": "user", "content": [{"type": "text", "text": 3}]}]', 'a text part needs a string "text"', 1, 56),
        ('[{"role": "user", "content": [{"type": "text"}]}]', 'a text part needs a string "text"', 1, 31),
    ],
)
def test_wrong_shapes_give_shape_errors(raw, message, line, column):
    json.loads(raw)  # the JSON itself is valid
    with pytest.raises(JsonSyntaxError) as caught:
        parse_chat_json(raw)
    assert (caught.value.message, caught.value.line, caught.value.column) == (message, line, column)


def test_deep_nesting_is_a_clean_error():
    raw = '{"prompt": "x", "meta": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(JsonSyntaxError) as caught:
        parse_chat_json(raw)
    assert caught.value.message == "Nested too deeply (more than 500 levels)"
    # The record object is the first level, so the 500th bracket opens level 501.
    assert (caught.value.line, caught.value.column) == (1, 25 + 499)


def test_nesting_up_to_the_limit_is_parsed():
    raw = '{"prompt": "x", "meta": ' + "[" * 499 + "]" * 499 + "}"
    assert [t.text for t in parse_chat_json(raw)] == ["x"]


def test_deep_nesting_in_jsonl_spoils_only_its_line():
    raw = "[" * 10_000 + "\n" + '{"prompt": "ok"}\n'
    deep, ok = parse_chat_jsonl(raw)
    assert isinstance(deep, JsonSyntaxError)
    assert (deep.line, deep.column) == (1, 501)
    assert [t.text for t in ok] == ["ok"]


def test_long_input_is_parsed():
    messages = [{"role": "user", "content": f"message {i} \u00e9\n"} for i in range(20_000)]
    raw = json.dumps({"messages": messages}, indent=2)
    texts = parse_chat_json(raw)
    assert len(texts) == 20_000
    assert texts[-1].text == "message 19999 \u00e9\n"
    assert json.loads(literal_of(raw, texts[-1])) == texts[-1].text


# --- request bodies that mark their sources (Anthropic Messages) ------------------


@settings(max_examples=60, deadline=None)
@given(
    others=st.lists(st.sampled_from(["title", "citations", "cache_control", "id"]), unique=True, max_size=4),
    where=st.integers(min_value=0, max_value=4),
    indent=st.sampled_from([None, 0, 2, "\t"]),
)
def test_removing_a_context_takes_its_key_and_one_comma(others, where, indent):
    block = {"type": "document", "source": {"type": "text", "data": "Text."}}
    keys = [*others[:where], "context", *others[where:]]
    block.update({key: {"context": "Note.", "title": "T", "id": "d1"}.get(key, {"enabled": True}) for key in keys})
    body = {"system": "S", "messages": [{"role": "user", "content": [block, {"type": "text", "text": "Q?"}]}]}
    raw = json.dumps(body, indent=indent)
    [context] = [t for t in parse_chat_json(raw) if t.path.endswith(".context")]
    fixed = replace_texts(raw, {}, (context.pair,))
    del block["context"]
    assert json.loads(fixed) == body
    title = ["messages[0].content[0].title"] if "title" in others else []
    assert [t.path for t in parse_chat_json(fixed)] == ["system", *title, "messages[0].content[0].source.data", "messages[0].content[1]"]


ANTHROPIC = """{
  "system": [{"type": "text", "text": "Cite titles."}],
  "messages": [{"role": "user", "content": [
    {"type": "document", "title": "A", "context": "Score: 1", "source": {"type": "content", "content": [{"type": "text", "text": "a1"}, {"type": "image"}, {"type": "text", "text": "a2"}]}},
    {"type": "document", "title": "PDF", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}},
    {"type": "image", "source": {"type": "base64", "data": "iVBO"}},
    {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "search_result", "source": "https://x", "title": "B", "content": [{"type": "text", "text": "b"}]}, {"type": "text", "text": "done"}]},
    {"type": "tool_result", "tool_use_id": "t2", "content": "plain"},
    {"type": "text", "text": "Q?"}
  ]}]
}"""


def test_anthropic_blocks_give_texts_named_by_path_and_sources_by_part():
    got = [(t.path, t.role, t.text, t.source and (t.source.number, t.source.part.value), t.line, t.column) for t in parse_chat_json(ANTHROPIC)]
    assert got == [
        ("system[0]", "system", "Cite titles.", None, 2, 39),
        ("messages[0].content[0].title", "user", "A", (0, "title"), 4, 35),
        ("messages[0].content[0].context", "user", "Score: 1", (0, "context"), 4, 51),
        ("messages[0].content[0].source.content[0]", "user", "a1", (0, "content"), 4, 130),
        ("messages[0].content[0].source.content[2]", "user", "a2", (0, "content"), 4, 181),
        ("messages[0].content[1].title", "user", "PDF", (1, "title"), 5, 35),
        ("messages[0].content[3].content[0].title", "tool", "B", (2, "title"), 7, 120),
        ("messages[0].content[3].content[0].content[0]", "tool", "b", (2, "content"), 7, 162),
        ("messages[0].content[3].content[1]", "tool", "done", None, 7, 195),
        ("messages[0].content[4]", "tool", "plain", None, 8, 61),
        ("messages[0].content[5]", "user", "Q?", None, 9, 30),
    ]


@pytest.mark.parametrize(
    ("block", "message", "column"),
    [
        ('{"type": "document", "title": 7, "source": {"type": "text", "data": "x"}}', '"title" must be a string', 74),
        ('{"type": "document", "context": ["x"], "source": {"type": "text", "data": "x"}}', '"context" must be a string', 76),
        ('{"type": "document", "source": {"type": "text", "data": 1}}', '"data" must be a string', 100),
        ('{"type": "search_result", "title": "T", "content": 3}', '"content" must be a string or a list of text blocks', 95),
        ('{"type": "tool_result", "content": {"type": "text"}}', '"content" must be a string, a list of parts, or null', 79),
    ],
)
def test_misshapen_blocks_are_errors_at_their_value(block, message, column):
    raw = '{"messages": [{"role": "user", "content": [' + block + "]}]}"
    with pytest.raises(JsonSyntaxError) as caught:
        parse_chat_json(raw)
    assert (caught.value.message, caught.value.line, caught.value.column) == (message, 1, column)


def test_system_of_another_kind_is_an_error():
    with pytest.raises(JsonSyntaxError) as caught:
        parse_chat_json('{"system": 3, "messages": []}')
    assert (caught.value.message, caught.value.line, caught.value.column) == ('"system" must be a string or a list of text blocks', 1, 12)


@settings(max_examples=80, deadline=None)
@given(
    data=st.dictionaries(
        st.sampled_from(["title", "snippet", "summary", "score", "url", "published", "rank"]),
        st.one_of(st.text(max_size=5), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.booleans()),
        min_size=1,
    ),
    removed=st.sets(st.sampled_from(["summary", "score", "url", "published", "rank"])),
    indent=st.sampled_from([None, 0, 2]),
)
def test_removing_any_fields_of_a_document_keeps_valid_json(data, removed, indent):
    body = {"messages": [{"role": "user", "content": "Q?"}], "documents": [{"id": "d1", "data": data}]}
    raw = json.dumps(body, indent=indent)
    pairs = tuple(t.pair for t in parse_chat_json(raw) if t.pair and t.path.rsplit(".", 1)[-1] in removed)
    fixed = replace_texts(raw, {}, pairs)
    for key in removed:
        data.pop(key, None)
    assert json.loads(fixed) == body


# --- every request shape: which texts are read, named how, with which role --------


@pytest.mark.parametrize(
    ("body", "texts"),
    [
        pytest.param({"instructions": "Be brief.", "input": "Hi"}, [("instructions", "system", "Be brief."), ("input", "user", "Hi")], id="responses-string"),
        pytest.param(
            {"model": "m", "input": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Q"}, {"type": "input_file", "file_id": "file-1"}]},
                {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c", "output": "R"},
                {"role": "assistant", "content": [{"type": "output_text", "text": "A"}]},
            ]},
            [("input[0].content[0]", "user", "Q"), ("input[2].output", "tool", "R"), ("input[3].content[0]", "assistant", "A")],
            id="responses-items",
        ),
        pytest.param(
            {"messages": [{"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "[1] T\nx"}]}]},
            [("messages[0].content[0]", "tool", "[1] T\nx")],
            id="chat-tool-parts",
        ),
        pytest.param(
            {"systemInstruction": {"parts": [{"text": "S"}]}, "contents": [{"role": "user", "parts": [{"text": "Q"}, {"inlineData": {}}]}, {"role": "model", "parts": [{"text": "A"}]}, {"parts": [{"text": "Q2"}]}]},
            [("systemInstruction.parts[0]", "system", "S"), ("contents[0].parts[0]", "user", "Q"), ("contents[1].parts[0]", "assistant", "A"), ("contents[2].parts[0]", "user", "Q2")],
            id="gemini",
        ),
        pytest.param(
            {"system": [{"text": "S"}, {"cachePoint": {"type": "default"}}], "messages": [{"role": "user", "content": [
                {"document": {"format": "txt", "name": "N", "source": {"text": "D"}}},
                {"document": {"format": "txt", "name": "M", "source": {"content": [{"text": "E"}]}}},
                {"toolResult": {"toolUseId": "t", "content": [{"text": "R"}, {"json": {}}]}},
                {"text": "Q"},
            ]}]},
            [("system[0]", "system", "S"), ("messages[0].content[0].document.name", "user", "N"), ("messages[0].content[0].document.source.text", "user", "D"),
             ("messages[0].content[1].document.name", "user", "M"), ("messages[0].content[1].document.source.content[0]", "user", "E"),
             ("messages[0].content[2].toolResult.content[0]", "tool", "R"), ("messages[0].content[3]", "user", "Q")],
            id="bedrock-converse",
        ),
        pytest.param(
            {"messages": [{"role": "user", "content": "Q"}], "documents": ["plain", {"id": "d", "data": {"rank": 2, "text": "T", "title": "H", "tags": ["x"]}}]},
            [("messages[0]", "user", "Q"), ("documents[0]", "system", "plain"), ("documents[1].data.title", "system", "H"),
             ("documents[1].data.rank", "system", "rank"), ("documents[1].data.text", "system", "T")],
            id="cohere-documents",
        ),
        pytest.param(
            {"_type": "prompt", "input_variables": ["q"], "template": "Q: {q}"}, [("template", "user", "Q: {q}")], id="langchain-file"
        ),
        pytest.param(
            {"lc": 1, "type": "constructor", "id": ["langchain", "prompts", "chat", "ChatPromptTemplate"], "kwargs": {"messages": [
                {"lc": 1, "id": ["x", "SystemMessagePromptTemplate"], "kwargs": {"prompt": {"lc": 1, "id": ["x", "PromptTemplate"], "kwargs": {"template": "S"}}}},
                {"lc": 1, "id": ["x", "MessagesPlaceholder"], "kwargs": {"variable_name": "history"}},
                {"lc": 1, "id": ["x", "AIMessagePromptTemplate"], "kwargs": {"prompt": {"lc": 1, "id": ["x", "PromptTemplate"], "kwargs": {"template": "A"}}}},
                {"lc": 1, "id": ["x", "HumanMessagePromptTemplate"], "kwargs": {"prompt": {"lc": 1, "id": ["x", "PromptTemplate"], "kwargs": {"template": "U"}}}},
            ]}},
            [("kwargs.messages[0].kwargs.prompt.kwargs.template", "system", "S"), ("kwargs.messages[2].kwargs.prompt.kwargs.template", "assistant", "A"),
             ("kwargs.messages[3].kwargs.prompt.kwargs.template", "user", "U")],
            id="langchain-hub",
        ),
        pytest.param(
            {"lc": 1, "type": "constructor", "id": ["langchain", "prompts", "prompt", "PromptTemplate"], "kwargs": {"template": "T {x}"}},
            [("kwargs.template", "user", "T {x}")],
            id="langchain-hub-prompt",
        ),
        pytest.param(
            {"input": {"text": "Q"}, "retrieveAndGenerateConfiguration": {"type": "KNOWLEDGE_BASE", "knowledgeBaseConfiguration": {
                "generationConfiguration": {"promptTemplate": {"textPromptTemplate": "$search_results$"}}}}},
            [("retrieveAndGenerateConfiguration.knowledgeBaseConfiguration.generationConfiguration.promptTemplate.textPromptTemplate", "system", "$search_results$"),
             ("input.text", "user", "Q")],
            id="bedrock-knowledge-base",
        ),
    ],
)
def test_request_shapes_give_their_texts(body, texts):
    assert [(t.path, t.role, t.text) for t in parse_chat_json(json.dumps(body))] == texts


@pytest.mark.parametrize(
    ("raw", "message", "column"),
    [
        ('{"instructions": "S", "input": 3}', '"input" must be a string or a list of items', 32),
        ('{"model": "m", "contents": {}}', '"contents" must be a list of contents', 28),
        ('{"contents": [{"role": "user"}]}', 'a content needs a list of "parts"', 15),
        ('{"contents": [{"parts": [{"text": 1}]}]}', '"text" must be a string', 35),
        ('{"messages": [], "documents": {}}', '"documents" must be a list of documents', 31),
        ('{"messages": [], "documents": [1]}', "a document must be a string or an object", 32),
    ],
)
def test_misshapen_requests_are_errors_at_their_value(raw, message, column):
    with pytest.raises(JsonSyntaxError) as caught:
        parse_chat_json(raw)
    assert (caught.value.message, caught.value.line, caught.value.column) == (message, 1, column)


@pytest.mark.parametrize(
    "raw",
    [
        '{"instructions": {"task": "Answer from the module.", "persona": "A lecturer."}}',
        '{"contents": {"intro": "Welcome"}}',
        '{"prompt": {"en": "Hello", "fr": "Bonjour"}}',
        '["a", "b"]',
        '[{"name": "x"}]',
    ],
)
def test_a_key_of_the_wrong_type_names_no_request_shape(raw):
    """Data that shares a key with a request body, without its type or a model, is not a broken request."""
    with pytest.raises(JsonSyntaxError) as caught:
        parse_chat_json(raw)
    assert caught.value.message == SHAPE_ERROR


@pytest.mark.parametrize("raw", ['{"input": "text", "output": "label"}', '{"model": "e5", "input": "embed me"}', '{"generationConfig": {}}'])
def test_other_json_with_some_of_these_keys_is_not_a_prompt(raw):
    with pytest.raises(JsonSyntaxError) as caught:
        parse_chat_json(raw)
    assert caught.value.message == SHAPE_ERROR


def test_a_request_with_no_contents_yet_has_no_texts():
    assert parse_chat_json('{"contents": [], "systemInstruction": {"parts": []}}') == []


# Any JSON built from the keys and type names of the shapes read: texts, or one clear error.
_SHAPE_KEYS = ["messages", "role", "content", "type", "text", "system", "document", "source", "data", "title", "context",
               "search_result", "tool_result", "toolResult", "documents", "contents", "parts", "systemInstruction",
               "instructions", "input", "output", "name", "lc", "id", "kwargs", "prompt", "template", "_type",
               "retrieveAndGenerateConfiguration", "knowledgeBaseConfiguration", "generationConfiguration",
               "promptTemplate", "textPromptTemplate"]
_SHAPE_VALUES = st.sampled_from(["user", "text", "document", "search_result", "tool_result", "content", "function_call_output",
                                 "input_text", "ChatPromptTemplate", "PromptTemplate", "HumanMessagePromptTemplate", "x",
                                 "Relevance: 0.91\nPrefer this source.", "[1] Returns (score: 0.9)\nDamaged goods.\n\n[2] FAQ (score: 0.5)\nShips fast."])
_ANY_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), _SHAPE_VALUES),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(_SHAPE_KEYS), inner, max_size=5)),
    max_leaves=30,
)


def _assert_texts_read_back(raw: str, texts) -> None:
    """Each text is the JSON value written at its literal, and the fixed file is still JSON."""
    for text in texts:
        assert json.loads(raw[text.literal[0] : text.literal[1]]) == text.text
    fixed = fix_text(raw, path="request.json", config=build({"select": ["ALL"], "today": "2026-12-02"}, "test"), unsafe=True)
    assert isinstance(json.loads(fixed), dict)  # whatever the fixes did, the file is still JSON


# Almost every arbitrary body of these keys is no request (147 of 150 were errors): this test
# is the error path's. The texts' path is generated apart below, from valid requests only.
@settings(max_examples=150, deadline=None)
@given(body=st.dictionaries(st.sampled_from(_SHAPE_KEYS), _ANY_JSON, max_size=5))
def test_any_json_of_shape_keys_gives_texts_or_one_clear_error(body):
    raw = json.dumps(body, indent=1)
    try:
        texts = parse_chat_json(raw)
    except JsonSyntaxError as error:
        assert error.message and 1 <= error.line <= raw.count("\n") + 1
    else:
        _assert_texts_read_back(raw, texts)


_TEXTS = st.one_of(st.sampled_from(["Answer from the documents.", "Relevance: 0.91\nPrefer this source.", "Zoë’s “quote”, a \\ and a\ttab",
                                    "[1] Returns (score: 0.9)\nDamaged goods.\n\n[2] FAQ (score: 0.5)\nShips fast.",
                                    "Updated: 2026-10-02\nDamaged goods may be returned."]), st.text(max_size=30))


@st.composite
def _message(draw, role: str, path_role: str | None = None):
    """A chat message, as a string or a list of text blocks, and the (role, text) pairs it holds."""
    texts = draw(st.lists(_TEXTS, min_size=1, max_size=3))
    if len(texts) == 1 and draw(st.booleans()):
        return {"role": role, "content": texts[0]}, [(path_role or role, texts[0])]
    return {"role": role, "content": [{"type": "text", "text": t} for t in texts]}, [(path_role or role, t) for t in texts]


@st.composite
def _chat_request(draw):
    body, expected = {}, []
    if draw(st.booleans()):
        body["model"] = "any"
    if draw(st.booleans()):  # Anthropic's top-level system prompt
        body["system"] = draw(_TEXTS)
        expected.append(("system", body["system"]))
    messages = draw(st.lists(st.sampled_from(["system", "user", "assistant", "tool"]), min_size=1, max_size=4))
    body["messages"] = []
    for role in messages:
        message, held = draw(_message(role))
        body["messages"].append(message)
        expected += held
    if draw(st.booleans()):  # Cohere's documents
        title, text = draw(_TEXTS), draw(_TEXTS)
        body["documents"] = [draw(_TEXTS), {"id": "d", "data": {"title": title, "text": text}}]
        expected += [("system", body["documents"][0]), ("system", title), ("system", text)]
    return body, expected


@st.composite
def _gemini_request(draw):
    system, turns = draw(_TEXTS), draw(st.lists(st.tuples(st.sampled_from(["user", "model", None]), _TEXTS), min_size=1, max_size=3))
    contents = [{"parts": [{"text": text}], **({"role": role} if role else {})} for role, text in turns]
    expected = [("system", system)] + [("assistant" if role == "model" else "user", text) for role, text in turns]
    return {"systemInstruction": {"parts": [{"text": system}]}, "contents": contents}, expected


@st.composite
def _responses_request(draw):
    instructions, question = draw(_TEXTS), draw(_TEXTS)
    if draw(st.booleans()):
        return {"model": "any", "instructions": instructions, "input": question}, [("system", instructions), ("user", question)]
    message, held = draw(_message("user"))
    return {"model": "any", "instructions": instructions, "input": [message]}, [("system", instructions), *held]


@st.composite
def _one_template(draw):
    template, question = draw(_TEXTS), draw(_TEXTS)
    return draw(st.sampled_from([
        ({"prompt": template}, [("user", template)]),
        ({"_type": "prompt", "input_variables": [], "template": template}, [("user", template)]),
        ({"input": {"text": question}, "retrieveAndGenerateConfiguration": {"type": "KNOWLEDGE_BASE", "knowledgeBaseConfiguration": {
            "generationConfiguration": {"promptTemplate": {"textPromptTemplate": template}}}}}, [("system", template), ("user", question)]),
    ]))


@settings(max_examples=150, deadline=None)
@given(request=st.one_of(_chat_request(), _gemini_request(), _responses_request(), _one_template()), indent=st.sampled_from([None, 1]))
def test_every_request_shape_gives_its_texts_in_order(request, indent):
    # Generated valid, every input reaches the texts' path: a JsonSyntaxError fails the test.
    body, expected = request
    raw = json.dumps(body, indent=indent, ensure_ascii=False)
    texts = parse_chat_json(raw)
    assert [(t.role, t.text) for t in texts] == expected
    _assert_texts_read_back(raw, texts)


_CONTEXTS = st.sampled_from(["Relevance: 0.91", "Prefer this source over the others.", "Relevance: 0.9\nUpdated: 2026-11-20", "Note: trust it\nScore: 0.5", "Updated: 2026-10-02"])
_OTHER_KEYS = st.sampled_from([("citations", {"enabled": True}), ("cache_control", {"type": "ephemeral"}), ("title", "Returns Policy")])


@st.composite
def _anthropic_document(draw):
    keys = draw(st.lists(_OTHER_KEYS, unique_by=lambda kv: kv[0], max_size=3))
    if draw(st.booleans()):
        keys.insert(draw(st.integers(0, len(keys))), ("context", draw(_CONTEXTS)))
    return dict([("type", "document"), ("source", {"type": "text", "data": "Damaged goods may be returned."}), *keys])


@st.composite
def _cohere_document(draw):
    pool = [("title", "Returns"), ("snippet", "Damaged goods may be returned."), ("summary", "Returns."), ("relevance_score", 0.91),
            ("published", "2026-11-20"), ("url", "https://example.com/r"), ("rank", 2)]
    return {"id": "d", "data": dict(draw(st.lists(st.sampled_from(pool), unique_by=lambda kv: kv[0], min_size=1)))}


@settings(max_examples=120, deadline=None)
@given(
    anthropic=st.lists(_anthropic_document(), min_size=1, max_size=4),
    cohere=st.lists(_cohere_document(), max_size=4),
    indent=st.sampled_from([None, 1, 2]),
)
def test_fixing_requests_keeps_them_valid_and_settles(anthropic, cohere, indent):
    body = {"system": "Answer from the documents.", "messages": [{"role": "user", "content": [*anthropic, {"type": "text", "text": "Can I return it?"}]}]}
    if cohere:
        body["documents"] = cohere
    raw = json.dumps(body, indent=indent)
    config = build({"select": ["ALL"], "today": "2026-12-02"}, "test")
    fixed = fix_text(raw, path="request.json", config=config, unsafe=True)
    decoded = json.loads(fixed)
    assert [m["role"] for m in decoded["messages"]] == ["user"] and len(decoded["messages"][0]["content"]) == len(anthropic) + 1
    assert len(decoded.get("documents", [])) == len(cohere)
    assert fix_text(fixed, path="request.json", config=config, unsafe=True) == fixed


def test_a_number_field_written_with_an_escaped_key_is_placed_by_its_literal():
    raw = '{"messages": [{"role": "user", "content": "Q"}], "documents": [{"data": {"text": "T", "\\u0073core": 0.9}}]}'
    [_, key, _] = parse_chat_json(raw)
    assert (key.path, key.text, raw[key.literal[0] : key.literal[1]], key.source.value) == ("documents[0].data.score", "score", '"\\u0073core"', "0.9")


def test_a_null_template_is_no_text():
    assert parse_chat_json('{"_type": "prompt", "template": null}') == []


# Document blocks whose text is not in the request, as each provider writes them, and how the note names the way it is given.
UNREAD_DOCUMENTS = [
    ({"type": "document", "title": "Policy", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}}, "", "base64 data"),
    ({"type": "document", "source": {"type": "url", "url": "https://example.com/policy.pdf"}}, "", "a URL"),
    ({"type": "document", "source": {"type": "file", "file_id": "file_011"}}, "", "a file id"),
    ({"document": {"name": "Policy", "format": "pdf", "source": {"bytes": "JVBE"}}}, ".document", "bytes"),
    ({"document": {"name": "Policy", "format": "pdf", "source": {"s3Location": {"uri": "s3://b/p.pdf"}}}}, ".document", "an S3 location"),
]


@pytest.mark.parametrize(("block", "suffix", "given"), UNREAD_DOCUMENTS)
@pytest.mark.parametrize("place", [0, 1])
def test_a_document_whose_text_is_not_in_the_request_is_noted(block, suffix, given, place):
    content = [{"type": "text", "text": "Answer from the policy."}]
    content.insert(place, block)
    texts = parse_chat_json(json.dumps({"messages": [{"role": "user", "content": content}]}))
    assert texts.unread == [f"messages[0].content[{place}]{suffix}: a document given as {given} is not read (its text is not in the request)"]
    assert "Answer from the policy." in [t.text for t in texts]


@pytest.mark.parametrize(
    "block",
    [
        {"type": "document", "source": {"type": "text", "data": "Returns take 30 days."}},
        {"type": "document", "source": {"type": "content", "content": [{"type": "text", "text": "Returns take 30 days."}]}},
        {"document": {"name": "Policy", "source": {"text": "Returns take 30 days."}}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
    ],
)
def test_a_document_with_its_text_and_an_image_are_not_noted(block):
    assert parse_chat_json(json.dumps({"messages": [{"role": "user", "content": [block]}]})).unread == []


# Messages other products write: the role under another key or named by the message's type, the
# content as "text"; and a completions request whose prompt is a list of one.
OTHER_SHAPES = {
    "speaker and text": ('{"messages": [{"speaker": "system", "text": "Answer from the sources."}, {"speaker": "human", "text": "What is RAG?"}]}',
                         [("system", "Answer from the sources."), ("human", "What is RAG?")]),
    "typed messages": ('[{"content": "Template Metadata", "_type": "metadatamessage"}, {"content": "Answer from the sources.", "_type": "systemmessage"},'
                       ' {"content": "What is RAG?", "_type": "usermessage"}]',
                       [("system", "Answer from the sources."), ("user", "What is RAG?")]),
    "prompt list of one": ('{"model": "m", "prompt": ["Answer from the sources. What is RAG?"]}', [("user", "Answer from the sources. What is RAG?")]),
}


@pytest.mark.parametrize("shape", OTHER_SHAPES)
def test_messages_other_products_write_are_read(shape):
    raw, expected = OTHER_SHAPES[shape]
    assert [(chat.role, chat.text) for chat in parse_chat_json(raw)] == expected
    # The twin: with neither a role, a speaker nor a message type (or a batch of prompts), it is no chat record.
    broken = raw.replace('"speaker"', '"who"').replace('"_type"', '"kind"').replace('?"]', '?", "b"]')
    with pytest.raises(JsonSyntaxError) as caught:
        parse_chat_json(broken)
    assert caught.value.message in ('message has no "role"', '"prompt" must be a string, or a list of one string')


def test_a_role_under_another_name_takes_its_turn_as_the_usual_role():
    """Sourcegraph's `"speaker": "human"` is the user: earlier human turns (each a file of the codebase, answered
    "Ok.") are earlier turns, not static text after the assistant's. The same body written with `role`/`content`
    gives the same findings. Seen in blind87 sourcegraph cody."""
    turns = [("system", "You are a coding assistant. Answer with code only.")]
    for name in ("src/a.ts", "src/b.ts", "src/c.ts"):
        turns += [("human", f"Codebase context from file {name}:\n```typescript\nexport interface A{{}}\nexport const b = 1;\n"
                            "export function c() {\n  return b;\n}\n```"), ("assistant", "Ok.")]
    turns.append(("human", "Answer without apologizing.\n\nQuestion: Write a class Dog that implements Animal."))
    spoken = json.dumps({"messages": [{"speaker": who, "text": text} for who, text in turns]})
    usual = {"human": "user"}
    written = json.dumps({"messages": [{"role": usual.get(who, who), "content": text} for who, text in turns]})
    assert [(f.code, f.line) for f in lint_text(spoken, path="body.json")] == [(f.code, f.line) for f in lint_text(written, path="body.json")] == []
