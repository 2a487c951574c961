"""Sources written as records of labelled fields, with no header line, are sources.

Generated over the shapes prompt code writes: labelled-field records, Markdown sections
whose metadata is bold, one-line records; and twins of labelled lines that are not sources.
"""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.model.findings import Applicability
from promptlint.readers.segment import segment_text

CHUNKS = ["Damaged goods may be returned within 30 days of delivery.", "Store credit is issued after the return window."]


def _read(text):
    return [(s.title, [(f.label, f.value) for f in s.fields], text[s.content.start : s.content.end]) for s in segment_text(text).sources]


@pytest.mark.parametrize("content", ["Text", "Content", "Snippet", "Passage"])
@pytest.mark.parametrize("leading", [("Doc ID", "Origin"), ("Source", "Updated"), ("ID", "author_name")])
@pytest.mark.parametrize("trailing", ["Match score", None])
@pytest.mark.parametrize("between", ["\n", "\n---\n"])
def test_labelled_field_records(content, leading, trailing, between):
    records = []
    for n, chunk in enumerate(CHUNKS):
        lines = [f"{leading[0]}: 77{n}", f"{leading[1]}: wiki-{n}", f"{content}: {chunk}"]
        lines += [f"{trailing}: 0.{8 - n}"] if trailing else []
        records.append("\n".join(lines))
    text = f"Answer from the records below.\n\n{between.join(records)}\n\nQuestion: Can I return a damaged item?\n"
    labels = [label.lower().replace("_", " ") for label in leading] + ([trailing.lower()] if trailing else [])
    assert [(fields and [f for f, _ in fields], body) for _, fields, body in _read(text)] == [(labels, chunk) for chunk in CHUNKS]


@pytest.mark.parametrize("level", ["##", "###"])
@pytest.mark.parametrize("bold", ["**{label}:** {value}", "**{label}**: {value}", "__{label}:__ {value}", "- **{label}:** {value}"])
def test_markdown_sections_with_bold_metadata(level, bold):
    sections = []
    for title, chunk in zip(["Returns Policy", "Store Credit"], CHUNKS):
        meta = [bold.format(label="Updated", value="2026-10-01"), bold.format(label="Source", value="Confluence")]
        sections.append("\n".join([f"{level} {title}", *meta, chunk]))
    text = "Answer from the sections below.\n\n" + "\n\n".join(sections) + "\n\nQuestion: Can I return a damaged item?\n"
    expected = [(title, [("updated", "2026-10-01"), ("source", "Confluence")], chunk) for title, chunk in zip(["Returns Policy", "Store Credit"], CHUNKS)]
    assert _read(text) == expected


@pytest.mark.parametrize("separator", [", ", "; ", " | "])
@pytest.mark.parametrize("labels", [("Title", "URL", "Date Published"), ("Name", "Link", "Published")])
def test_one_line_records(separator, labels):
    records = []
    for n, chunk in enumerate(CHUNKS):
        values = [f"Policy {n}", f"https://example.com/{n}", f"2026-10-0{n + 1}"]
        records.append(separator.join(f"{label}: {value}" for label, value in zip(labels, values)) + "\n" + chunk)
    text = "Use the search results to answer.\n\n" + "\n\n".join(records) + "\n\nQuestion: Can I return a damaged item?\n"
    assert [(title, [f for f, _ in fields], body) for title, fields, body in _read(text)] == [
        (f"Policy {n}", [label.lower() for label in labels], chunk) for n, chunk in enumerate(CHUNKS)
    ]


@pytest.mark.parametrize("text", [
    # instructions written as labelled lines, once
    "Role: You are the support assistant.\nTone: Friendly and brief.\nLanguage: English\n\n{context}\n\nQuestion: {question}\n",
    # few-shot pairs: the question and the answer are not a source
    "Question: What color are apples?\nAnswer: Red.\n\nQuestion: What color is the sky?\nAnswer: Blue.\n\nQuestion: {question}\n",
    "Input: 2 + 2\nOutput: 4\n\nInput: 3 + 3\nOutput: 6\n\nInput: {question}\n",
    # prose with a label in it
    "Note: answer briefly.\nThe sources follow.\n\nNote: cite them.\nUse [n].\n\n{context}\n",
])
def test_labelled_lines_that_are_not_sources(text):
    assert segment_text(text).sources == []


@pytest.mark.parametrize("label", ["relevance", "Score", "similarity"])
@pytest.mark.parametrize("header", ["Document {n}: [DOC_{n}_TITLE] ({label}: [DOC_{n}_SCORE])", "[{n}] [DOC_{n}_TITLE] ({label}: [DOC_{n}_SCORE])"])
def test_square_bracket_placeholders_are_slots(label, header):
    sources = "\n\n".join(header.format(n=n, label=label) + f"\n[DOC_{n}_TEXT]" for n in (1, 2))
    text = f"Answer using the documents.\n\n{sources}\n\nQuestion: [USER_QUESTION]\n"
    prompt = segment_text(text)
    assert prompt.text == text
    assert [(s.title, s.fields[0].value) for s in prompt.sources] == [("[DOC_1_TITLE]", "[DOC_1_SCORE]"), ("[DOC_2_TITLE]", "[DOC_2_SCORE]")]
    found = [(f.line, f.code) for f in lint_text(text, path="t.txt", config=build({}, "test")) if f.code == "PL102"]
    assert found == [(3, "PL102"), (6, "PL102")]


@pytest.mark.parametrize("context, question", [("<<context>>", "<<question>>"), ("<<retrieved_docs>>", "<<user_query>>"), ("<<CONTEXT>>", "<<QUESTION>>")])
@pytest.mark.parametrize("reminder", ["[Remind]\nAnswer from the document only, cite every chunk you use as [n], and say so when the document does not hold the answer.\nWrite in the language of the question, keep the answer under five sentences and never cite a chunk you did not use.\n"])
def test_double_angle_placeholders_are_slots(context, question, reminder):
    """`<<context>>` (LongCite's templates, `.replace("<<context>>", ...)` in code) is a slot as `{{context}}` is."""
    text = f"Answer the question from the document.\n\n[Document Start]\n{context}\n[Document End]\n\n[Question]\n{question}\n\n{reminder}"
    prompt = segment_text(text)
    assert prompt.text == text
    assert [(p.kind.value, text[p.span.start : p.span.end]) for p in prompt.parts if p.kind.value != "instructions"] == [("sources", context), ("question", question)]
    assert [(f.line, f.code) for f in lint_text(text, path="t.txt", config=build({}, "test"))] == [(4, "PL305")]
    # The twin: Llama's <<SYS>> markers (capitals) are no slots, and with the reminder before the slots nothing fires.
    twin = f"<<SYS>>\n{reminder}<</SYS>>\n\n[Document Start]\n{context}\n[Document End]\n\n[Question]\n{question}\n"
    assert [f.code for f in lint_text(twin, path="t.txt", config=build({}, "test"))] == []


def test_a_double_angle_token_in_quotes_is_written_about_not_filled():
    # A design note on masking names its sentinels (`<<UUID_0>>`): read as slots, the note's lines became data.
    text = "Mask every id before the model sees it.\n\nSentinel:\n`<<UUID_0>>`\n\nRestore the ids after the model has answered.\n"
    assert [p.kind.value for p in segment_text(text).parts] == ["instructions"]
    assert [p.kind.value for p in segment_text(text.replace("`", "")).parts] == ["instructions", "input", "instructions"]


@pytest.mark.parametrize("quoted", ['"[GENERAL_KNOWLEDGE]"', "`[GENERAL_KNOWLEDGE]`", "\u201c[OWN_KNOWLEDGE]\u201d"])
def test_a_quoted_bracketed_word_is_a_literal_the_model_writes(quoted):
    # A sentinel the instructions tell the model to print (blind45a developerjefremov) is static text: read as
    # a placeholder of knowledge, it was retrieved context inside the instructions (a false PL305 followed).
    rules = f"Rules:\n1. If the context lacks the answer, print the sentinel {quoted} on its own line first.\n2. Be brief.\n\n"
    text = "You are a helpful assistant.\n\n" + rules + "Context:\n{context}\n\nQuestion: {question}\n"

    def dynamic(text):
        prompt = segment_text(text)
        return [text[p.span.start : p.span.end] for p in prompt.parts if p.kind.value != "instructions"]

    assert dynamic(text) == ["{context}", "Question: {question}"]
    # The twin: the same word unquoted stands where a value goes, a placeholder filled per request.
    unquoted = text.replace(quoted, quoted[1:-1])
    assert dynamic(unquoted) == [quoted[1:-1], "{context}", "Question: {question}"]


def test_a_bracketed_marker_is_not_a_placeholder():
    text = "Answer from the sources.\n\n[1] Pricing [INTERNAL_ONLY]\n[RESTRICTED] Margins are 40%.\n\nQuestion: [USER_QUESTION]\n"
    assert [f.code for f in lint_text(text, path="t.txt", config=build({}, "test")) if f.code == "PL105"] == ["PL105"]


@pytest.mark.parametrize("banner", ["----{t}----", "=== {t} ===", "~~ {t} ~~", "--{t}--"])
@pytest.mark.parametrize("title", ["Analyst {n}", "Report {{n}}", "Returns Policy"])
@pytest.mark.parametrize("score", ["Importance Score", "Relevance", "similarity"])
def test_banner_headed_records(banner, title, score):
    """A record under a banner heading reads like one under a Markdown heading; its score is reported."""
    def records(with_score):
        parts = []
        for n, chunk in enumerate(CHUNKS, 1):
            lines = [banner.format(t=title.format(n=n))] + ([f"{score}: 0.{9 - n}"] if with_score else []) + ["Updated: 2026-10-01", chunk]
            parts.append("\n".join(lines))
        return "---Goal---\n\nSummarise the reports below.\n\n---Reports---\n\n" + "\n\n".join(parts) + "\n\nQuestion: {question}\n"

    text = records(True)
    assert [(title.format(n=n), body) for n, (_, _, body) in enumerate(_read(text), 1)] == [(title.format(n=n), c) for n, c in enumerate(CHUNKS, 1)]
    assert [s.title for s in segment_text(text).sources] == [title.format(n=n) for n in (1, 2)]
    found = [f.line for f in lint_text(text, path="t.txt", config=build({}, "test")) if f.code == "PL102"]
    assert found == [8, 13]
    assert [f for f in lint_text(records(False), path="t.txt", config=build({}, "test")) if f.code == "PL102"] == []


@pytest.mark.parametrize("banner", ["---Role---", "=== Rules ===", "~~ Format ~~", "**1. Rules:**", "**Format**"])
def test_banner_headed_instructions_are_not_sources(banner):
    text = f"{banner}\nTone: formal\nAnswer briefly.\n\n---Data---\n\n{{context}}\n\n**2. Style:**\n- Be brief.\n- Target length: {{length}}\n\nQuestion: {{question}}\n"
    assert segment_text(text).sources == []


def _mapping(quote, pairs):
    return "{" + ", ".join(f"{quote}{k}{quote}: {quote}{v}{quote}" for k, v in pairs) + "}"


@pytest.mark.parametrize("quote", ["'", '"'])
@pytest.mark.parametrize("key", ["chunk_id", "chunkIndex", "node_id", "chunk_no"])
@pytest.mark.parametrize("at", [0, 1, 2])
@pytest.mark.parametrize("place", ["after", "before"])
def test_metadata_written_as_a_mapping(quote, key, at, place):
    """A "Metadata: {...}" line is read as its keys: a chunk id in it is reported, and the fix drops only that item."""
    from promptlint.engine.lint import fix_text

    def prompt(with_ordinal):
        sources = []
        for n, chunk in enumerate(CHUNKS, 1):
            pairs = [("document_id", f"doc-{n}"), ("source", f"wiki/{n}")]
            if with_ordinal:
                pairs.insert(at, (key, f"c{n}7"))
            meta = f"Metadata: {_mapping(quote, pairs)}"
            body = [f"Content: {chunk}", meta] if place == "after" else [meta, chunk]
            sources.append("\n".join([f"Result {n}", *body]))
        return "Answer from the results.\n\n" + "\n\n".join(sources) + "\n\nQuestion: Can I return a damaged item?\n"

    text, config = prompt(True), build({}, "test")
    found = [(f.line, text.splitlines()[f.line - 1][f.column - 1 : f.column + 2]) for f in lint_text(text, path="t.txt", config=config) if f.code == "PL203"]
    line = 5 if place == "after" else 4
    assert found == [(line, "c17"), (line + 4, "c27")]
    assert fix_text(text, path="t.txt", config=config) == prompt(False)
    assert [f for f in lint_text(prompt(False), path="t.txt", config=config) if f.code == "PL203"] == []


@pytest.mark.parametrize("value", ["{metadata}", "{'not a mapping'}", "{chunk.metadata}", "{ }", "{'a' 'b'}"])
def test_a_braced_value_that_is_not_a_mapping_is_one_field(value):
    text = f"Answer from the results.\n\nResult 1\nContent: {CHUNKS[0]}\nMetadata: {value}\n\nQuestion: Can I return a damaged item?\n"
    assert [f for f in lint_text(text, path="t.txt", config=build({}, "test")) if f.code == "PL203"] == []


@pytest.mark.parametrize("prefix", ["", "==== ", "## ", "--- "])
@pytest.mark.parametrize("separator", [";", "; ", ", ", " | "])
@pytest.mark.parametrize("score", ["Relevance", "score", "Similarity"])
@pytest.mark.parametrize("title", ["File", "Source", "Title"])
@pytest.mark.parametrize("end", ["\n======\n", "\n\n"])
def test_a_bracket_of_labelled_items_heads_a_source(prefix, separator, score, title, end):
    """ "==== [File:x;Relevance:83.4%]:" is a source header; its score is reported; the instructions after a rule are not its text."""
    def prompt(with_score):
        sources = []
        for n, chunk in enumerate(CHUNKS, 1):
            items = [f"{title}:policy-{n}.pdf"] + ([f"{score}:8{n}.4%"] if with_score else []) + ["Updated:2026-10-01"]
            sources.append(f"{prefix}[{separator.join(items)}]:\n{chunk}")
        return "Facts:\n" + "\n".join(sources) + end + "Given only the facts above, answer.\nQuestion: Can I return a damaged item?\nAnswer:"

    text, config = prompt(True), build({}, "test")
    assert [(s.title, text[s.content.start : s.content.end]) for s in segment_text(text).sources] == [(f"policy-{n}.pdf", c) for n, c in enumerate(CHUNKS, 1)]
    found = [(f.line, text.splitlines()[f.line - 1][f.column - 1 : f.column + 4]) for f in lint_text(text, path="t.txt", config=config) if f.code == "PL102"]
    assert found == [(2, "81.4%"), (4, "82.4%")]
    assert [f for f in lint_text(prompt(False), path="t.txt", config=config) if f.code == "PL102"] == []


@pytest.mark.parametrize("line", ["[Tone: formal; Length: short]", "[Note: be careful, Answer: brief]", "[call 2: qa_chain, question = new_question]", "[Role: system | Mode: strict]"])
def test_a_bracket_of_labels_that_are_no_metadata_is_not_a_source(line):
    text = f"Answer from the context.\n{line}\nBe brief and cite.\n\n{{context}}\n\nQuestion: {{question}}\n"
    assert segment_text(text).sources == []


FACTS = ["{edge.fact}", "Damaged goods may be returned within 30 days"]


@pytest.mark.parametrize("marker", ["- ", "* ", "1. ", "\u2022 "])
@pytest.mark.parametrize("group", [
    "({e.valid_at} - {e.invalid_at})",
    '({e.valid_at if e.valid_at else "date unknown"} - {e.invalid_at or "present"})',
    "({e.published_at:%Y-%m-%d})",
    "(updated: {e.updated})",
    "({e['expired_at']})",
    "(created at {e.created_at})",
])
@pytest.mark.parametrize("fact", FACTS)
@pytest.mark.parametrize("wrapper", [("<FACTS>", "</FACTS>"), ("Facts:", ""), ("## Memory", "")])
def test_a_list_of_dated_items_is_a_list_of_sources(marker, group, fact, wrapper):
    """Facts or memories written one a line, each ending in a date group: the date is on every source."""
    def prompt(with_date):
        items = "\n".join(f"{marker}{fact} {group}" if with_date else f"{marker}{fact}" for _ in range(3))
        return f"Answer from the facts below.\n\n{wrapper[0]}\n{items}\n{wrapper[1]}\n\nQuestion: {{question}}\n"

    text, config = prompt(True), build({}, "test")
    assert [text[s.content.start : s.content.end] for s in segment_text(text).sources] == [fact] * 3
    found = [(f.line, f.column) for f in lint_text(text, path="t.txt", config=config) if f.code == "PL201"]
    column = len(marker) + len(fact) + 1 + group.index("{e") + 1  # at what the group's slot prints
    assert found == [(4, column), (5, column), (6, column)]
    assert segment_text(prompt(False)).sources == []
    assert [f for f in lint_text(prompt(False), path="t.txt", config=config) if f.code == "PL201"] == []


@pytest.mark.parametrize("score", ["(score: {h.score:.2f})", "({h.rerank_score})", "(relevance {h.relevance})"])
def test_a_list_of_scored_items_reports_the_score(score):
    text = "Use the hits.\n\n" + "\n".join(f"- {{h.text}} {score}" for _ in range(2)) + "\n\nQuestion: {question}\n"
    assert [f.line for f in lint_text(text, path="t.txt", config=build({}, "test")) if f.code == "PL102"] == [3, 4]


@pytest.mark.parametrize("items", [
    ["- Cite the source (use its number)", "- Be brief (two sentences at most)"],
    ["1. Answer in English (or the user's language)", "2. Keep it short (under {max_words} words)"],
    ["- {fact} ({e.valid_at})"],  # one item alone is not a list of sources
    ["- Reply with the date (today is {today})", "- Sign off (as {assistant_name})"],
])
def test_a_list_with_asides_is_not_a_list_of_sources(items):
    text = "Rules:\n" + "\n".join(items) + "\n\n{context}\n\nQuestion: {question}\n"
    assert segment_text(text).sources == []


POSTS = [("1j0b", "Bought calls on SPY", "Worst case: they expire worthless.", "Best case: they expire worthless too.\nGood luck!"),
         ("1j0c", "Double down", "Keep coming at me.", ""),
         ("1j0d", "Gain on puts", "Sold these too early.", "Will look to re-enter next week.\nCongrats anyway.")]


def test_the_last_record_keeps_its_paragraphs_when_the_records_before_it_do():
    # Scraped posts: each record's comments run on past a blank line, so the last one's do too, to the end.
    records = [f"Post ID: {pid}\nTitle: {title}\nText: \nTop Comments: {first}" + (f"\n\n{rest}" if rest else "") for pid, title, first, rest in POSTS]
    text = "Extract the ticker and the sentiment of each post. Return JSON only.\nHere are the posts:\n\n" + "\n---\n".join(records) + "\n"
    sources = segment_text(text).sources
    assert [s.title for s in sources] == [title for _, title, _, _ in POSTS]
    assert text[sources[-1].span.start : sources[-1].span.end].endswith("Congrats anyway.")
    assert [f.code for f in lint_text(text, path="p.txt") if f.code == "PL305"] == []
    # The twin: records of one paragraph each end at their blank line, and the rules after them are static text.
    single = [f"Post ID: {pid}\nTitle: {title}\nText: \nTop Comments: {first}" for pid, title, first, _ in POSTS]
    rules = "Use UNKNOWN when a post names no ticker.\nReturn one ticker a post: the one it discusses most.\nAnswer in JSON only, with no prose around it.\n"
    twin = "Extract the ticker and the sentiment of each post.\nHere are the posts:\n\n" + "\n---\n".join(single) + "\n\n" + rules
    assert [f.code for f in lint_text(twin, path="p.txt", config=build({"rules": {"cache-boundary": {"min-static-tokens": 0}}}, "test")) if f.code == "PL305"] == ["PL305"]


NODES = [("manual.pdf", "416", "387", "Press and hold the display switch to reset the trip meter."),
         ("manual.pdf", "416", "80", "The multi-information display shows fuel economy and driving assist status."),
         ("warranty.pdf", "12", "3", "The warranty covers manufacturing defects for three years or 100,000 km.")]


def _nodes(nodes=NODES) -> str:
    blocks = [f"file_path: /data/{path}\ntotal_pages: {pages}\nsource: {page}\n\n{text}" for path, pages, page, text in nodes]
    return "Context information is below.\n---------------------\n" + "\n\n".join(blocks) + "\n---------------------\nGiven the context information and not prior knowledge, answer the query.\nQuery: How do I reset the trip meter?\nAnswer: "


def test_fields_alone_over_a_text_are_a_nodes_metadata():
    # LlamaIndex prints a node as its metadata lines, a blank line, then its text.
    text = _nodes()
    sources = segment_text(text).sources
    assert [[f.label for f in s.fields] for s in sources] == [["file path", "total pages", "source"]] * 3
    assert [text[s.content.start : s.content.end] for s in sources] == [t for *_, t in NODES]


@pytest.mark.parametrize("settings", ["Tone: formal\nLength: short\n\nAnswer the question in two sentences.",
                                      "- TITLE: the community's name, short but specific, with its key entities named\n- SUMMARY: an executive summary of how the entities relate to each other\n\n"
                                      "Return the report as JSON.\n\n- TITLE: the report's title, short and specific, naming the main entities\n- SUMMARY: a summary of the whole community and its structure in a few lines\n\nBe concise.",
                                      "## Incident [04598313a59d]\nSeverity: high\nConfidence: 1.0\n\n### Primary Correlations\n- event log cleared",
                                      "• **Data Collection**: Gathering information from multiple sources simultaneously\n• **Validation**: Cross-checking facts using different tools\n"
                                      "• **Efficiency**: Reducing total execution time when steps don't depend on each other"])
def test_fields_alone_that_do_not_repeat_or_sit_under_a_heading_are_no_records(settings):
    assert segment_text(f"You write reports.\n\n{settings}\n").sources == []



TOOL_RECORDS = (
    'TOOL: Product_Alerts - "Activa si el usuario solicita alertas, reportes o retiros de productos de la FDA."\n'
    "Keywords: FDA, recall, alert, warning, banned product, contaminated product, health advisory.\n"
    "🚫 No confundir con: consultas sobre recetas o información nutricional.\n\n"
    'TOOL: Recommend_Recipe - "Activa si el usuario solicita ideas de comidas sin ingredientes concretos."\n'
    "Keywords: recipe, meal, lunch, dinner, breakfast, healthy, suggestion, menu, diet, quick ideas.\n"
    "🚫 No confundir con: solicitudes con ingredientes concretos o restricciones alimentarias.\n"
)


@pytest.mark.parametrize("heading", ["=== TOOLS ===", "## Available tools"])
def test_records_under_a_heading_that_names_tools_are_setup_not_sources(heading):
    text = f"You pick one tool for the user's message.\n\n{heading}\n\n{TOOL_RECORDS}\n=== Final Instructions ===\n- Respond only with JSON.\n"
    assert segment_text(text).sources == []
    # The twin: the same records under a heading that names no tools are read as records.
    assert len(segment_text(text.replace(heading, "=== RESULTS ===")).sources) == 2


NEWS = [("2026-11-30", "Stock tumbles after a going-concern warning", "Barron's"), ("2026-11-28", "Big movers ahead of the open", "MarketWatch")]


@pytest.mark.parametrize("written", ["{date}: {title}", "{date} - {title}", "{date} 10:49 | {title}", "{date}T17:54:02Z \u2014 {title}"])
def test_a_list_items_opening_date_is_its_field(written):
    """News items one a line, each opening with its date and ending in its source: the date is a field of each,
    parted from the item's text, and a date on every source."""
    items = "\n".join("- " + written.format(date=d, title=t) + f" (Source: {s})" for d, t, s in NEWS)
    text = f"Recent news about the stock:\n{items}\n\nQuestion: Should I buy?\n"
    read = _read(text)
    assert [(fields[0][0], fields[0][1][:10], content) for _, fields, content in read] == [("", d, t) for d, t, _ in NEWS]
    found = [f for f in lint_text(text, path="p.txt", config=build({"today": "2026-12-02"}, "test")) if f.code == "PL201"]
    # No label says the date is the source's, not the day what the item tells happened: no fix is certain.
    assert [(f.line, f.column, f.fix.applicability) for f in found] == [(2, 3, Applicability.UNSAFE), (3, 3, Applicability.UNSAFE)]


@pytest.mark.parametrize("written", ["{title}, {date}", "2026 {title}", "{date}{title}"])
def test_the_twin_whose_date_opens_no_item_is_no_field(written):
    items = "\n".join("- " + written.format(date=d, title=t) + f" (Source: {s})" for d, t, s in NEWS)
    text = f"Recent news about the stock:\n{items}\n\nQuestion: Should I buy?\n"
    assert [[label for label, _ in fields] for _, fields, _ in _read(text)] == [["source"], ["source"]]
