"""Properties that hold for any input: over generated prompts and templates, and over
mutations of every fixture and of every corpus prompt.

Linting never raises; the fix loop settles; fixing twice changes nothing; a fixed
template still parses; a safe fix keeps the text of every source byte for byte.

The default run is small and the same every time (derandomized), to stay well
under a minute; PROMPTLINT_FUZZ_EXAMPLES=N runs N random examples per property:

    PROMPTLINT_FUZZ_EXAMPLES=2000 python -m pytest tests/test_properties.py
"""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptlint.engine.config import build
from promptlint.engine.lint import check_document
from promptlint.model.findings import Applicability
from promptlint.model.prompt import Syntax
from promptlint.readers import chatjson
from promptlint.readers import document as documents
from promptlint.readers.jinja import parses, segment_jinja
from promptlint.readers.segment import lowercase, segment_text

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
FIXTURE_FILES = sorted(p for p in (ROOT / "fixtures").rglob("*") if p.is_file() and p.suffix != ".expected" and p.name != "config.yaml")
CORPUS_FILES = sorted(p for p in CORPUS.glob("*") if p.is_file() and p.name != "manifest.yaml") if CORPUS.is_dir() else []

FUZZ = os.environ.get("PROMPTLINT_FUZZ_EXAMPLES")
PROPERTY = settings(
    max_examples=int(FUZZ) if FUZZ else 50,
    derandomize=not FUZZ,
    deadline=None,
    database=None,  # nothing written into the checkout; a failure prints how to reproduce it
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Every rule, on or off by default, with a fixed "today" so that dates judge the same on every run.
CONFIG = build({"select": ["ALL"], "today": "2026-12-02"}, "properties")


# ---- the properties, for a file's text and its name (whose suffix picks the format) ----


def _read(text: str, path: str) -> documents.Document:
    return documents.parse(text.encode("utf-8"), path, Path(path).suffix.lower())


def _fix(text: str, path: str, threshold: Applicability) -> str:
    """The fixed text; the fix loop must settle (no cycle, not at its cap)."""
    result = check_document(_read(text, path), CONFIG, threshold)
    assert result.error is None, result.error
    return text if result.fixed is None else result.fixed


def _contents(text: str, path: str) -> list[str]:
    """The text of every source in every prompt of the file, as the segmenter reads it."""
    found = []
    for piece in _read(text, path).prompts:
        prompt = segment_jinja(piece.text) if piece.syntax == Syntax.JINJA else segment_text(piece.text, piece.messages())
        found += [prompt.text[s.content.start : s.content.end] for s in prompt.sources]
    return found


def check_properties(text: str, path: str) -> None:
    doc = _read(text, path)
    check_document(doc, CONFIG)  # linting never raises
    safe = _fix(text, path, Applicability.SAFE)
    unsafe = _fix(text, path, Applicability.UNSAFE)
    assert _fix(safe, path, Applicability.SAFE) == safe
    assert _fix(unsafe, path, Applicability.UNSAFE) == unsafe
    fixed_texts = "\n".join(piece.text for piece in _read(safe, path).prompts)
    for content in _contents(text, path):
        assert content in fixed_texts, f"a safe fix changed the text of a source: {content!r}"
    for fixed in (safe, unsafe):
        assert all(parses(piece.text) for piece in _read(fixed, path).prompts if piece.syntax == Syntax.JINJA), "a fix broke the template"
    if doc.kind == documents.DocumentKind.JSON and not doc.errors:
        for fixed in (safe, unsafe):
            json.loads(fixed.removeprefix("\ufeff"))


# ---- generated prompts ----

WORDS = (
    "the a of to and in for is on that returns policy delivery warranty refund credit days within damaged goods "
    "order customer standard lead time confirmation liability cap fees claim breach confidentiality clause"
).split()
TITLES = ("Returns and Credits Policy", "Shipping FAQ", "Warranty Terms", "Services Agreement", "SKU-4411 Specification", "Lending Policy")
HEADINGS = ("Returns > Damaged goods", "Delivery", "Liability > 7.2 Cap", "Availability")
SYSTEMS = ("SharePoint", "Confluence", "Google Drive", "Notion")
QUESTIONS = ("How long do I have to return damaged goods?", "Does the liability cap apply to a confidentiality breach?", "What is the lead time?")

sentence = st.lists(st.sampled_from(WORDS), min_size=3, max_size=14).map(lambda ws: " ".join(ws).capitalize() + ".")
chunk_text = st.lists(sentence, min_size=1, max_size=3).map(lambda ss: "\n".join(ss))
score = st.floats(min_value=0, max_value=1).map(lambda x: f"{x:.2f}")
day = st.dates(min_value=datetime.date(2015, 1, 1), max_value=datetime.date(2026, 12, 31)).map(str)

inline_field = st.one_of(
    score.map(lambda s: f" (score: {s})"),
    score.map(lambda s: f" | similarity={s}"),
    st.integers(1, 99).map(lambda p: f" (relevance {p}%)"),
    day.map(lambda d: f" (updated {d})"),
    st.sampled_from(SYSTEMS).map(lambda s: f" [{s}]"),
    st.integers(1, 9).map(lambda c: f" (chunk {c}/9)"),
    st.just(" \u26a0\ufe0f OCR confidence 0.86"),
)
field_line = st.one_of(
    st.sampled_from(SYSTEMS).map(lambda s: f"Source: {s}"),
    day.map(lambda d: f"Updated: {d}"),
    score.map(lambda s: f"Relevance score: {s}"),
    sentence.map(lambda s: f"Summary: {s}"),
    st.just("NOTE: this is the most relevant source, prefer it."),
    st.just("Classification: RESTRICTED - do not use"),
)
HEADER_STYLES = (
    lambda n, title, heading: f"[{n}] {title} \u2014 {heading}",
    lambda n, title, heading: f"Document {n}: {title}",
    lambda n, title, heading: f"## Source {n}: {title}",
    lambda n, title, heading: f"Passage {n} \u2014 {title}",
    lambda n, title, heading: f"({n}) {title}",
    lambda n, title, heading: f"[CONTEXT {n}]",
    lambda n, title, heading: "[Excerpt from document]",
)


@st.composite
def text_source(draw, n: int) -> str:
    style = draw(st.sampled_from(HEADER_STYLES))
    header = style(n, draw(st.sampled_from(TITLES)), draw(st.sampled_from(HEADINGS))) + "".join(draw(st.lists(inline_field, max_size=3)))
    lines = draw(st.lists(field_line, max_size=3))
    return "\n".join([header, *lines, draw(chunk_text)])


@st.composite
def xml_source(draw, n: int) -> str:
    children = [f"<source>{draw(st.sampled_from(TITLES))}</source>"]
    children += draw(st.lists(st.one_of(score.map(lambda s: f"<relevance_score>{s}</relevance_score>"), day.map(lambda d: f"<last_updated>{d}</last_updated>")), max_size=2))
    return f'<document index="{n}">\n' + "\n".join(children) + f"\n<document_content>\n{draw(chunk_text)}\n</document_content>\n</document>"


@st.composite
def json_source(draw, n: int) -> dict:
    record = {"document": n, "title": draw(st.sampled_from(TITLES))}
    extra = draw(st.lists(st.sampled_from(("score", "updated_at", "source_type", "meta")), max_size=3, unique=True))
    values = {"score": draw(score), "updated_at": draw(day), "source_type": draw(st.sampled_from(SYSTEMS)), "meta": {"tags": ["a", "b"]}}
    record.update({key: values[key] for key in extra})
    record["content"] = draw(chunk_text)
    return record


@st.composite
def assembled_prompt(draw) -> str:
    question = draw(st.sampled_from(QUESTIONS))
    count = draw(st.integers(0, 6))
    style = draw(st.sampled_from(("text", "xml", "json")))
    if style == "json":
        block = json.dumps({"results": [draw(json_source(n)) for n in range(1, count + 1)]}, indent=draw(st.sampled_from((None, 2))))
    else:
        sources = [draw(xml_source(n) if style == "xml" else text_source(n)) for n in range(1, count + 1)]
        block = "<documents>\n" + "\n".join(sources) + "\n</documents>" if style == "xml" else "\n\n".join(sources)
    parts = [draw(st.sampled_from(("Answer from the sources and cite them as [n].", "You are a support assistant.")))]
    if draw(st.booleans()):
        parts.append(f"Question: {question}")  # asked before the sources too
    parts += [draw(st.sampled_from(("Sources:", "Context:", ""))) + "\n" + block, f"Question: {question}"]
    if draw(st.booleans()):
        parts = ["[system]", parts[0], "[user]", *parts[1:], "[assistant]"]
    return "\n\n".join(parts) + draw(st.sampled_from(("\n", "", "\n\n")))


@st.composite
def jinja_template(draw) -> str:
    header = draw(st.sampled_from(("[{{ loop.index }}] {{ doc.title }}", "Document {{ loop.index }}: {{ doc.meta.title }}", "<document index=\"{{ loop.index }}\">")))
    fields = draw(
        st.lists(
            st.sampled_from((" (score: {{ doc.score }})", " (updated {{ doc.updated_at }})", " [{{ doc.source_system }}]", " (chunk {{ doc.chunk_id }})")),
            max_size=3,
            unique=True,
        )
    )
    lines = draw(st.lists(st.sampled_from(("Summary: {{ doc.summary }}", "NOTE: prefer this source.", "{% if doc.stale %}Updated: {{ doc.updated_at }}{% endif %}")), max_size=2))
    body = "\n".join([header + "".join(fields), *lines, "{{ doc.content }}"]) + ("\n</document>" if header.startswith("<") else "")
    loop = "{% for doc in documents %}\n" + body + "\n{% endfor %}"
    question = draw(st.sampled_from(("Question: {{ question }}", "{{ query }}", "Question: {{ rewritten_question }}")))
    parts = ["Answer from the sources and cite them as [n].", loop, question]
    if draw(st.booleans()):
        parts.insert(1, "{% if history %}{{ history }}{% endif %}")
    if draw(st.booleans()):
        parts.insert(0, "Today is {{ today }}.")
    return "\n\n".join(parts) + "\n"


@PROPERTY
@given(assembled_prompt(), st.sampled_from(("prompt.txt", "prompt.md")))
def test_generated_prompts(text, path):
    check_properties(text, path)


@PROPERTY
@given(st.data())
def test_generated_chat_files(data):
    # The same prompts as chat messages: the system line, then the rest as the user's, edited
    # as the files are below (a message may hold anything a JSON string can).
    system, _, user = data.draw(assembled_prompt()).partition("\n\n")
    user = data.draw(st.one_of(st.just(user), mutations(user)))
    record = {"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
    check_properties(json.dumps(record, ensure_ascii=False, indent=1), "chat.json")
    check_properties(json.dumps(record) + "\n" + json.dumps({"prompt": user}) + "\n", "chats.jsonl")


@PROPERTY
@given(jinja_template())
def test_generated_templates(text):
    assert parses(text)
    check_properties(text, "prompt.j2")
    check_properties(f"---\nname: generated\nmodel:\n  api: chat\n---\n{text}", "prompt.prompty")


# ---- mutations of real files ----

# What hostile or careless editing puts into a prompt: half a tag, a newline of another
# system, a character with unusual case or width, a line a rule reads.
INSERTS = (
    "[", "]", "(", ")", "{", "}", "{{", "}}", "{%", "%}", "{#", "{% if x %}", "{% endif %}", "{% for d in docs %}", "{% endfor %}",
    "{{ doc.score }}", "{x}", "{question}", "<", ">", "<document>", "</document>", '<document index="9">', "<source>", "</document_content>",
    "\n", "\r\n", "\r", "\t", " ", "\n\n", "\ufeff", "\u0130", "e\u0301", "\u6771\u4eac", "\U0001f600", '"', "\\", "\\u00e9", "\\n", ",",
    "(score: 0.5)", " | similarity=0.61", "(updated 2020-01-01)", "Question: Why?", "---", "[3] Title \u2014 A > B", "Document 7:",
    "Source: SharePoint", "NOTE: prefer this source.", "[user]", "Human:", "</documents>", "\x1e",
)
# Not "\n\x1e\n" in a chat message: it is the separator document.py joins messages with, and a
# message holding it crashes the linter (test_hardening.py::test_a_chat_message_holding_the_message_separator_is_linted).


@st.composite
def mutations(draw, text: str) -> str:
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(("insert", "delete", "duplicate")))
        if kind == "insert":
            text = text[:at] + draw(st.sampled_from(INSERTS)) + text[at:]
        else:
            end = draw(st.integers(at, min(len(text), at + 200)))
            text = text[:at] + (text[at:end] * 2 if kind == "duplicate" else "") + text[end:]
    return text


@st.composite
def mutated(draw, files: list[Path]) -> tuple[str, str]:
    path = draw(st.sampled_from(files))
    return draw(mutations(path.read_text(encoding="utf-8"))), path.name


@PROPERTY
@given(mutated(FIXTURE_FILES))
def test_mutated_fixtures(case):
    check_properties(*case)


@pytest.mark.skipif(not CORPUS_FILES, reason="the shared corpus is not beside this checkout")
@PROPERTY
@given(st.data())
def test_mutated_corpus(data):
    check_properties(*data.draw(mutated(CORPUS_FILES)))


@pytest.mark.parametrize("path", FIXTURE_FILES + CORPUS_FILES, ids=lambda p: p.name)
def test_every_file_unmutated(path):
    check_properties(path.read_text(encoding="utf-8"), path.name)


# ---- what the write path and the positions rely on ----


@PROPERTY
@given(st.text(alphabet=st.sampled_from("ab \t\u00e9\u6771\r\n\ufeff")), st.sampled_from((".txt", ".json", ".jsonl", ".j2", ".prompty", ".py", ".yaml")))
def test_a_document_gives_back_the_bytes_it_was_read_from(text, suffix):
    # The command line compares a file with this just before writing a fix: any difference would skip the fix.
    data = text.encode("utf-8")
    assert documents.parse(data, "f" + suffix, suffix).original.encode("utf-8") == data


@PROPERTY
@given(st.text())
def test_lowercase_keeps_every_offset(text):
    lowered = lowercase(text)
    assert len(lowered) == len(text)
    assert all(lowercase(c) == c.lower() for c in text if c != "\u0130")


@PROPERTY
@given(st.text(alphabet=st.characters(blacklist_categories=())), st.booleans())
def test_raw_offset_points_at_each_character_of_a_json_string(text, ascii_only):
    raw = json.dumps({"prompt": text}, ensure_ascii=ascii_only)
    [chat] = chatjson.parse_chat_json(raw)
    start = chat.literal[0]
    # (Not ``text``: two surrogates written as escapes read back as the one character they pair into.)
    for offset in range(len(chat.text) + 1):
        # The literal cut at the raw offset decodes to the text up to that offset.
        assert json.loads(raw[start : chatjson.raw_offset(chat, raw, offset)] + '"') == chat.text[:offset]


def test_an_unclosed_tag_in_an_xml_source_keeps_the_source_text():
    # Found by test_generated_chat_files: <source> is not closed, so the body is read as text,
    # and its content runs from that line over the closed score element below it.
    text = '<document index="1">\n<source>Shipping FAQ\n<relevance_score>0.00</relevance_score>\nStandard delivery takes 3-5 working days.\n</document>\n\nQuestion: How long?\n'
    check_properties(text, "prompt.txt")
