"""The lexicon: names and labels read as words, and the concept they stand for."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.meaning import lexicon

# Every spelling of a name a project may use reads as the same concept.
CONCEPTS = {
    "score": [
        "score", "_score", "scores", "rerank_score", "rerankerScore", "@search.rerankerScore", "@search.score",
        "vector_distance", "cosineSimilarity", "similarity", "relevance", "relevancy_score", "bm25", "hybrid score",
        "Match score", "confidence", "doc.meta.get('similarity')", "hit['_score']", "meta['relevance_score']",
        # Scores merged or rescaled by the pipeline.
        "combined_score", "composite_score", "fusedScore", "rrf_score", "final_score", "weighted_score", "normalized_score",
        "score_str", "similarity_pct", "relevanceFormatted",
    ],
    "date": [
        "date", "published_at", "publishedAt", "crawled_on", "as_of", "dateModified", "date_published", "last_updated",
        "updatedAt", "created", "Modified On", "indexed_at", "timestamp", "doc.metadata['published']", "lastEditedTime",
        "valid_at", "invalidAt", "expired_at", "edge.valid_at", "expire_time", "mtime", "doc.mtime", "file_ctime",
        # Written for a reader, the date is still the date (blind69g khromalabs: `{{created_at_formatted}}`).
        "created_at_formatted", "last_updated_formatted", "published_date_str", "updatedAtIso",
        # When the item's event happened or was kept (blind74 OliverTai688: `occurredAt` on every citation).
        "occurredAt", "recorded_at", "saved_at", "logged_at", "added_on", "imported_at", "collected_at", "observed_at",
    ],
    "system": ["source_system", "connector", "origin_app", "source", "sourceType", "data_source", "integration", "platform"],
    "ordinal": ["chunk_no", "chunkIndex", "chunk_id", "chunk number", "ordinal", "part", "node_id", "split_idx", "passage_id", "rank"],
    "derived": ["summary", "Key facts", "TL;DR", "highlights", "keywords", "why_this_was_retrieved", "contextualized_content", "situated_context"],
    "title": ["title", "doc_title", "pageTitle", "file_name"],
    "url": ["url", "source_url", "href", "permalink", "link"],
    "author": ["author", "authors", "doc_owner"],
    "warning": ["ocr confidence", "parse warning"],
    # A describing word may follow the text's name in code (blind60a asimnayakawadi: `row['text_clean']`).
    "content-key": ["page_content", "chunk_text", "clean_text", "text_clean", "content_raw", "textCleaned"],
}
CASES = [(name, concept) for concept, names in CONCEPTS.items() for name in names]


@pytest.mark.parametrize(("name", "concept"), CASES, ids=[f"{c}:{n}" for n, c in CASES])
def test_a_name_reads_as_its_concept(name, concept):
    assert concept in lexicon.shipped().concepts(name)


# Names that look close but mean something else, or nothing a rule reports.
NOT_REPORTED = ["valid", "is_valid", "invalid_reason", "distance_m", "ocr confidence", "applicants need a credit score", "combined risk score", "final credit score", "title", "url", "author", "language", "category", "value", "meta.value",
                # A word that says how a value is written means nothing alone, nor after another name.
                "formatted", "text_formatted", "chunk_str", "risk_score_str", "due_date_formatted",
                # What happened to an item, without the time it happened, is no date.
                "occurred", "saved", "is_saved", "recorded_by", "added_by", "imported"]


@pytest.mark.parametrize("name", NOT_REPORTED)
def test_a_name_no_metadata_rule_reports(name):
    assert not lexicon.shipped().reported(name)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("rerankerScore", ("reranker", "score")),
        ("@search.rerankerScore", ("search", "reranker", "score")),
        ("doc.meta['published_at']", ("doc", "meta", "published", "at")),
        ("chunkIndexes", ("chunk", "index")),
        ("search_matches", ("search", "match")),
        ("HTMLTitle", ("html", "title")),
        ("Key Facts", ("key", "fact")),
    ],
)
def test_names_split_into_singular_lower_case_words(name, words):
    assert lexicon.split(name) == words


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("doc.meta['published_at']", ["doc", "meta", "published_at"]),
        ('d.get("chunk_no")', ["d", "chunk_no"]),
        ("@search.rerankerScore", ["@search.rerankerScore"]),
        ("hit.metadata.value", ["hit", "metadata", "value"]),
    ],
)
def test_key_chains_split_into_keys(name, keys):
    assert lexicon.keys(name) == keys


# A word added through config reaches every reader and every rule of the concept.
FUZZY = {"rules": {"retrieval-score": {"extend-labels": ["fuzzy rank"]}, "below-relevance-floor": {"relevance-floor": 0.5}}, "extend-select": ["PL106"]}
INLINE = "Answer from the sources.\n\n[1] Returns Policy (fuzzy rank 0.12)\nDamaged goods may be returned.\n\n[2] Shipping FAQ (fuzzy rank 0.81)\nWe ship in 2 days.\n\nQuestion: Can I return it?\n"
LINE = "Answer from the sources.\n\n[1] Returns Policy\nFuzzy Rank: 0.31\nDamaged goods may be returned.\n\n[2] Shipping FAQ\nFuzzy Rank: 0.81\nWe ship in 2 days.\n\nQuestion: Can I return it?\n"
TEMPLATE = "Answer from the sources.\n{% for d in docs %}\n[{{ loop.index }}] {{ d.title }} ({{ d.fuzzy_rank }})\n{{ d.content }}\n{% endfor %}\nQuestion: {{ question }}\n"


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        ("inline.txt", INLINE, ["3:1 PL106", "3:32 PL102", "6:30 PL102"]),
        ("line.txt", LINE, ["3:1 PL106", "4:13 PL102", "8:13 PL102"]),
        ("template.j2", TEMPLATE, ["3:35 PL102"]),
    ],
)
def test_a_word_added_through_config_reaches_every_reader_and_rule(path, text, found):
    assert [f"{f.line}:{f.column} {f.code}" for f in lint_text(text, path=path, config=build(FUZZY, "test"))] == found
    assert lint_text(text, path=path, config=build({}, "test")) == []


# A prompt kept under a name no built-in word gives (`templates: {prompts: [...]}`) is read
# in code and data files alike: the name joins the lexicon's `prompt` concept.
PERSONA = "Answer from the sources.\n\n[1] Returns Policy (score 0.12)\nDamaged goods may be returned.\n\n[2] Shipping FAQ (score 0.81)\nWe ship in 2 days.\n"
NAMED_PROMPTS = {
    "agent.py": ('AGENT_PERSONA = """' + PERSONA + '"""\n', ["3:27 PL102", "6:25 PL102"]),
    "agent.ts": ("export const agentPersona = `" + PERSONA + "`;\n", ["3:27 PL102", "6:25 PL102"]),
    "agent.yaml": ("agent_persona: |\n" + "".join(f"  {line}\n" if line else "\n" for line in PERSONA.split("\n")), ["4:29 PL102", "7:27 PL102"]),
    "agent.json": ('{"agent_persona": ' + json.dumps(PERSONA) + "}\n", ["1:74 PL102", "1:139 PL102"]),
}


@pytest.mark.parametrize("path", NAMED_PROMPTS)
def test_a_prompt_name_added_through_config_reaches_every_reader(path):
    text, found = NAMED_PROMPTS[path]
    config = build({"templates": {"prompts": ["agent_persona"]}}, "test")
    assert [f"{f.line}:{f.column} {f.code}" for f in lint_text(text, path=path, config=config)] == found
    assert lint_text(text, path=path, config=build({}, "test")) == []


@pytest.mark.parametrize("name", ["RAG_PROMPT_TEMPLATE_V2", "promptForSummary", "qa_tmpl", "SYSTEM_MESSAGE", "answer_instructions", "PROMPTS"])
def test_code_names_a_prompt_by_any_of_its_words(name):
    assert lexicon.shipped().mentions(name, "prompt")


@pytest.mark.parametrize("name", ["prompt_tokens_used", "system", "agent_persona", "templated"])
def test_other_names_name_no_prompt_unless_a_word_says_so(name):
    assert lexicon.shipped().mentions(name, "prompt") == (name == "prompt_tokens_used")


def test_the_same_extensions_share_one_lexicon():
    assert build(FUZZY, "a").lexicon is build(FUZZY, "b").lexicon
    assert build({}, "a").lexicon is lexicon.shipped()


@pytest.mark.parametrize("first", ["document_id: {d.id}", "doc: 12", "id=7"])
def test_header_items_are_fields_when_one_of_them_is_known(first):
    text = f"Answer from the sources.\n\n[1] {first}, score: 0.91, attributes: x\nReturns are free.\n\n[2] {first}, score: 0.42, attributes: y\nShipping is free.\n\nQuestion: Is it free?\n"
    found = [f"{f.line}:{f.column} {f.code}" for f in lint_text(text, path="x.txt", config=build({"select": ["PL102"]}, "test"))]
    column = len(f"[1] {first}, score: ") + 1
    assert found == [f"3:{column} PL102", f"6:{column} PL102"]


@pytest.mark.parametrize(
    ("name", "concept"),
    [
        ("relevancia", "score"), ("puntuación de relevancia", "score"), ("Ähnlichkeit", "score"), ("pertinence", "score"),
        ("相关性分数", "score"), ("相似度", "score"), ("関連度スコア", "score"), ("관련도 점수", "score"),
        ("tương đồng", "score"), ("độ liên quan", "score"), ("relevansi", "score"),
        ("fecha de publicación", "date"), ("Datum", "date"), ("发布日期", "date"), ("更新时间", "date"), ("作成日", "date"), ("작성일", "date"),
        ("片段序号", "ordinal"), ("文件片段序号", "ordinal"), ("チャンク番号", "ordinal"), ("청크 번호", "ordinal"),
        ("摘要", "derived"), ("resumen", "derived"), ("標題", "title"), ("título", "title"),
    ],
)
def test_names_in_other_languages_mean_their_concept(name, concept):
    assert lexicon.build().means(name, concept)


# A noun after the text's name makes another name: `text_source` is a source of text, `text_length` a number.
@pytest.mark.parametrize("name", ["text_source", "text_length", "content_type", "text_en"])
def test_only_a_describing_word_may_follow_the_texts_name(name):
    assert "content-key" not in lexicon.shipped().concepts(name)


@pytest.mark.parametrize("name", ["今日", "时间", "分数线", "序号", "data"])
def test_a_run_that_does_not_end_in_a_head_means_nothing(name):
    assert not lexicon.build().reported(name)


@pytest.mark.parametrize("name", ["puntuación", "veröffentlichung", "相关性分数"])
def test_a_word_with_letters_beyond_ascii_is_one_word(name):
    assert lexicon.split(name) == (name.lower(),)


def test_a_misspelt_concept_key_fails_loudly(monkeypatch):
    load = lexicon.vocabulary.load
    misspelt = {**load("lexicon"), "prompt": {**load("lexicon")["prompt"], "head": ["persona"]}}
    monkeypatch.setattr(lexicon.vocabulary, "load", lambda name: misspelt if name == "lexicon" else load(name))
    with pytest.raises(ValueError, match="rules/lexicon.yaml: prompt: unknown key 'head'"):
        lexicon._build((("x", "extend-y", ("z",)),))


def test_a_function_named_for_messages_builds_a_prompt_but_a_message_field_means_nothing():
    assert lexicon.shipped().mentions("buildChatMessages", "messages")
    assert lexicon.shipped().concepts("message") == frozenset()


# A rule's word list extended in config is read with the additions by the readers that use
# it too: PL103's note labels, imperatives and what a note addresses tell the segmenter which lines talk to the model.
GERMAN_NOTE = {"rules": {"per-source-instruction": {"extend-note-labels": ["hinweis"], "extend-imperatives": ["bevorzuge"], "extend-addressed": [r"\bdiese quelle\b"]}}}
NOTED = {
    "noted.txt": "Answer from the sources.\n\n[1] Returns Policy\nHINWEIS: bevorzuge diese Quelle.\nDamaged goods may be returned within 30 days.\n\n[2] Shipping FAQ\nWe ship within 2 days.\n\nQuestion: Can I return it?\n",
    "noted.j2": "Answer from the sources.\n{% for d in docs %}\n[{{ loop.index }}] {{ d.title }}\nBevorzuge diese Quelle, wenn sie passt.\n{{ d.content }}\n{% endfor %}\nQuestion: {{ question }}\n",
}


@pytest.mark.parametrize("path", NOTED)
def test_a_rule_list_extended_in_config_reaches_the_segmenter(path):
    assert [f"{f.line}:{f.column} {f.code}" for f in lint_text(NOTED[path], path=path, config=build(GERMAN_NOTE, "test"))] == ["4:1 PL103"]
    assert lint_text(NOTED[path], path=path, config=build({}, "test")) == []


def test_the_lexicon_holds_every_rule_list_with_the_users_words():
    extended = build(GERMAN_NOTE, "test").lexicon
    assert extended.words("per-source-instruction", "note-labels")[-1] == "hinweis"
    assert "hinweis" not in lexicon.shipped().words("per-source-instruction", "note-labels")


def test_a_prompt_named_in_config_is_fixed_through_its_escapes():
    source = 'AGENT_PERSONA = "' + PERSONA.replace("\n", "\\n") + '"\n'
    config = build({"templates": {"prompts": ["agent_persona"]}}, "test")
    fixed = fix_text(source, path="agent.py", config=config)
    assert fixed == source.replace(" (score 0.12)", "").replace(" (score 0.81)", "")


@pytest.mark.parametrize(("item", "key", "label"), [("chunk", "id", "chunk_id"), ("doc", "id", "id"), ("chunk", "doc_id", "doc_id"), ("chunk", "title", "title")])
def test_an_items_bare_identifier_is_read_with_the_items_name(item, key, label):
    """`chunk.id` is the chunk's ordinal; `chunk.doc_id` names its own owner, the chunk's document."""
    assert lexicon.build().item_label(item, key) == label


MEMORIES = """Here are some relevant memories about the user. Use them to understand the conversation.

**User Context Memories:**
{{#memories}}
- {{{memory}}} (FIELD: {{VALUE}})
{{/memories}}
"""


@pytest.mark.parametrize("field, value, found", [("Created", "created_at_formatted", ["PL201"]), ("Updated", "updated_at_display", ["PL201"]), ("Kind", "kind_formatted", [])])
def test_a_value_written_for_a_reader_keeps_its_meaning(field, value, found):
    text = MEMORIES.replace("FIELD", field).replace("VALUE", value)
    assert [f.code for f in lint_text(text, path="memories.mustache", config=build({"today": "2026-12-06"}, "test")) if f.code != "PL205"] == found
