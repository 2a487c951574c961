import json

import pytest

from promptlint.chatjson import (
    SHAPE_ERROR,
    ChatText,
    JsonSyntaxError,
    parse_chat_json,
    parse_chat_jsonl,
    raw_offset,
    replace_texts,
)

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
        ChatText(0, 0, None, "system", "Answer from the sources.", (86, 112), 6, 18),
        ChatText(0, 1, None, "user", "What is RAG?", (165, 179), 10, 18),
    ]
    first, second = parse_chat_json(PRETTY)
    assert literal_of(PRETTY, first) == '"Answer from the sources."'
    assert literal_of(PRETTY, second) == '"What is RAG?"'


def test_compact_file_gives_exact_spans_and_positions():
    raw = '{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Why?"}]}'
    assert parse_chat_json(raw) == [
        ChatText(0, 0, None, "system", "Be brief.", (40, 51), 1, 41),
        ChatText(0, 1, None, "user", "Why?", (78, 84), 1, 79),
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
    assert [(t.message, t.part, t.role, t.text) for t in texts] == [
        (0, 1, "user", "Describe it."),
        (0, 2, "user", "Briefly."),
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
    assert [(t.message, t.role, t.text) for t in parse_chat_json(raw)] == [(0, "system", "S"), (3, "user", "U")]


def test_prompt_object_is_one_user_text():
    raw = '{"id": 7, "prompt": "Summarise:\\nthe text"}'
    assert parse_chat_json(raw) == [ChatText(0, 0, None, "user", "Summarise:\nthe text", (20, 42), 1, 21)]


def test_bare_list_of_messages():
    raw = '[\n  {"role": "user", "content": "Hi"},\n  {"role": "assistant", "content": "Hello"}\n]'
    assert parse_chat_json(raw) == [
        ChatText(0, 0, None, "user", "Hi", (32, 36), 2, 31),
        ChatText(0, 1, None, "assistant", "Hello", (74, 81), 3, 36),
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

    assert results[0] == [ChatText(0, 0, None, "user", "one", (42, 47), 1, 43)]

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
        ('{"prompt": ["a"]}', '"prompt" must be a string', 1, 12),
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
