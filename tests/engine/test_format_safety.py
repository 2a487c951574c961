"""`promptlint format` never loses meaning (issue 10, part 1).

It rewrites a sources block only when it reads every part of it, and otherwise leaves
the file byte for byte with a one-line reason. The exact cases first (each breakage
found on the corpus, as a small prompt), then the properties every file `format`
changes must keep, over the corpus, the fixtures and generated prompts: the chunk
texts and content placeholders, the lines around the sources block, balanced tags
and sections, JSON keys, a template that parses and renders the same chunk texts,
and a second `format` that changes nothing. (Only these tests render templates.)
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from pathlib import Path

import jinja2
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from promptlint.engine.formatting import format_document
from promptlint.cli.commands import main
from promptlint.engine.config import build
from promptlint.engine.lint import check_document
from promptlint.model.prompt import Syntax
from promptlint.readers import document
from promptlint.readers.jinja import parses, segment_jinja
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-02"}, "test")
CORPUS = ROOT.parent / "shared" / "corpus"


def formatted(text: str, name: str = "prompt.txt", unsafe: bool = False):
    doc = document.parse(text.encode("utf-8"), name, Path(name).suffix)
    return format_document(doc, CONFIG, unsafe)


# ---------------------------------------------------------------- blocks kept as they are

HANDLEBARS = """\
Answer from the results below.
{{#each results}}
[{{@index}}] {{this.name}} (score: {{this.score}})
{{this.snippet}}
{{/each}}
Question: {{question}}
"""

MUSTACHE = """\
Use the documents.
{{#documents}}
[{{index}}] {{title}} (relevance: {{score}})
{{content}}
{{/documents}}
Question: {{question}}
"""

JSON_SOURCES = """\
Answer from these search results:
[{"title": "Returns", "url": "https://example.com/r", "content": "a\\nb \\"x\\""}, {"title": "Shipping", "url": "https://example.com/s", "content": "Ships in 3 days."}]
Question: How do returns work?
"""

PLACEHOLDER_FIELDS = """\
You are given retrieved context bullets. Answer only from them.

Context:
[#1] | {doc} | s={score:.3f} | {snippet}
[#2] | {doc} | s={score:.3f} | {snippet}

Answer succinctly and cite chunk ids like [#1].
"""

TEXT_BETWEEN = """\
Answer from the files.

<files>
<file>
<filename>{file.filename}</filename>
<type>{file.type}</type>
</file>
</files>

A search was run with the message as the query, retrieving the context inside <context></context> tags.

<context>
<file>
<filename>{file.filename}</filename>
<context><contextItem><![CDATA[{page_content}]]></contextItem></context>
</file>
</context>
"""

SHOTS = """\
Question: Which is the rainiest place?

[1] Cherrapunji (score: 0.9)
Cherrapunji has often been credited as the wettest place on Earth.

Answer: Mawsynram [1].

Question: When did the US break away from England?

[1] American Revolution (score: 0.8)
The Treaty of Paris was signed September 3, 1783.

Answer:"""

FENCED = """\
DOCUMENT 1: Returns policy
Updated: 2024-01-01
```
Damaged goods may be returned within 30 days.
```

Question: Can I return it?
"""

CHAT_TEMPLATE = """\
{%- for document in documents %}
{{- '<|start_of_role|>document {"document_id": "' + document['doc_id'] | string + '"}<|end_of_role|>\\n' }}
{{- document['text'] }}
{{- '<|end_of_text|>\\n' }}
{%- endfor %}
"""

NAMED_TAG = """\
Quote the <title> of every document you use.

<documents>
<document index="1">
<title>Returns policy</title>
<content>
Damaged goods may be returned within 30 days.
</content>
</document>
</documents>

Question: Can I return it?
"""

NAMED_TAG_LOOP = """\
Cite the <url> of every document you use.
{% for doc in documents %}
<url>{{ doc.url }}</url>
{{ doc.content }}
{% endfor %}
Question: {{ question }}
"""


# A heading item read as a field (issue 29): no fix removes it, so the layout has no place for it.
RELEASE = """\
Answer from the sources.

[1] Release Notes — Version 4.2
The export button now supports CSV.

[2] Release Notes — Version 4.3
Dark mode was added to the settings page.

Question: When was dark mode added?
"""

HANDBOOK = """\
Use the sources to answer.

[1] Staff Handbook — Leave > Section 2
Employees accrue 2 days of paid leave per month worked.

[2] Staff Handbook — Travel > Section 5
Economy class is booked for flights under six hours.

Question: How much leave do I accrue?
"""

# A labelled date that is not stale, on the one source: check --fix keeps it (PL201 wants two).
DATED = """\
Answer from the sources.

[1] Loan File 88 — Risk > Assessment
Updated: 2026-10-01
The applicant has a stable income.

Question: When was it reviewed?
"""

# A marker in a template's header: the canonical key would replace it.
MARKED_LOOP = """\
Answer from the sources.
{% for c in forbidden %}
[RESTRICTED] {{ c.content }}
{% endfor %}
Question: {{ question }}
"""

# A source wrapped in an element, holding the canonical text layout inside: the rules read
# that element as a source with no title, so the layout would add a PL205.
WRAPPED_TITLE = """\
Answer from the sources.

[1] Returns and Credits Policy
Damaged goods may be returned within 30 days of delivery.

<document index="2">
<source>Shipping FAQ</source>
<document_content>
Standard delivery takes 3-5 working days.
</document_content>
</document>

Question: How long does delivery take?
"""


@pytest.mark.parametrize(
    ("text", "name", "reason"),
    [
        (WRAPPED_TITLE, "qa.txt", "the new layout would read with a finding the prompt does not have (PL205)"),
        (DATED, "qa.txt", "a field the canonical header has no place for (updated)"),
        (MARKED_LOOP, "qa.j2", "a word of a source's header the layout has no place for (restricted)"),
        (HANDLEBARS, "qa.hbs", "Handlebars sections"),
        (HANDLEBARS, "qa.txt", "Handlebars sections"),
        (MUSTACHE, "qa.txt", "Handlebars sections"),
        (JSON_SOURCES, "qa.txt", "JSON sources"),
        (PLACEHOLDER_FIELDS, "qa.txt", "a source without chunk text"),
        (TEXT_BETWEEN, "qa.txt", "a source without chunk text"),
        (SHOTS, "qa.txt", "citation keys missing or repeated"),
        (FENCED, "qa.txt", "a code fence around a source"),
        (CHAT_TEMPLATE, "chat.j2", "an output the layout has no place for"),
        (NAMED_TAG, "qa.txt", "a tag the instructions name"),
        (NAMED_TAG_LOOP, "qa.j2", "a tag the instructions name"),
    ],
    ids=["no-new-finding", "date-not-stale", "header-word", "handlebars-each", "handlebars-in-txt", "mustache-section", "json", "placeholder-fields", "text-between", "few-shot-keys",
         "code-fence", "chat-tokens", "named-tag", "named-tag-in-loop"],
)
def test_a_block_format_does_not_read_is_kept_with_its_reason(text, name, reason):
    result = formatted(text, name)
    assert (result.text, result.kept) == (None, (f"sources block kept: {reason}",))


@pytest.mark.parametrize("text", [RELEASE, HANDBOOK], ids=["heading-item-version", "heading-item-section"])
def test_a_heading_item_is_part_of_the_heading_path_so_the_block_is_already_canonical(text):
    assert (formatted(text, "qa.txt").text, formatted(text, "qa.txt").kept) == (None, ())


def test_the_reason_is_one_line_and_the_file_stays_byte_for_byte(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    raw = HANDLEBARS.replace("\n", "\r\n").encode("utf-8")
    Path("qa.hbs").write_bytes(raw)
    result = CliRunner().invoke(main, ["format", "qa.hbs"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "qa.hbs: sources block kept: Handlebars sections\n1 file left unchanged.\n")
    assert Path("qa.hbs").read_bytes() == raw
    check = CliRunner().invoke(main, ["format", "--check", "qa.hbs"])
    assert (check.exit_code, check.stdout, check.stderr) == (0, "1 file already formatted.\n", "qa.hbs: sources block kept: Handlebars sections\n")


# ---------------------------------------------------------------- blocks rewritten

WRAPPED = """\
Human:
<search_results>
<item index="1">
<source>Returns policy</source>
<relevance>0.91</relevance>
<page_content>
{description_1}
</page_content>
</item>
<item index="2">
<page_content>
{description_2}
</page_content>
</item>
</search_results> Using the search results within the <search_results></search_results> tags, answer the question.
"""

# The wrappers the instruction names stay; the canonical header lines go inside each item.
WRAPPED_FORMATTED = """\
Human:
<search_results>
<item index="1">
[1] Returns policy
{description_1}
</item>

<item index="2">
[2]
{description_2}
</item>
</search_results> Using the search results within the <search_results></search_results> tags, answer the question.
"""

UNGROUPED = """\
Answer from the sources.

Sources:
[4] Services Agreement (score: 0.91)
Liability is capped at the fees paid.

[5] SKU-4411 Specification (score: 0.82)
Standard lead time is 6 weeks.

[6] Services Agreement (score: 0.55)
The cap does not apply to confidentiality breaches.

Question: Does the cap apply?
"""

# Without --unsafe-fixes: the same order and the same citation keys.
UNGROUPED_SAFE = """\
Answer from the sources.

Sources:
[4] Services Agreement
Liability is capped at the fees paid.

[5] SKU-4411 Specification
Standard lead time is 6 weeks.

[6] Services Agreement
The cap does not apply to confidentiality breaches.

Question: Does the cap apply?
"""

# With --unsafe-fixes: grouped by document and numbered anew, as check's PL301 fix does.
UNGROUPED_UNSAFE = """\
Answer from the sources.

Sources:
[1] Services Agreement
Liability is capped at the fees paid.

[2] Services Agreement
The cap does not apply to confidentiality breaches.

[3] SKU-4411 Specification
Standard lead time is 6 weeks.

Question: Does the cap apply?
"""

TRAILING_FIELD = """\
[1] Warranty FAQ
Text: Claims need the original receipt.

Summary: receipt needed.

Question: How long do I have?
"""

TRAILING_FIELD_FORMATTED = """\
[1] Warranty FAQ
Claims need the original receipt.

Question: How long do I have?
"""

XML_LOOP = """\
<documents>
{% for document in documents %}
 <document index="{{loop.index}}">
  {{document.content}}
  </document>
{% endfor %}
</documents>
"""

XML_LOOP_FORMATTED = """\
<documents>
{% for document in documents %}
<document index="{{loop.index}}">
[{{ loop.index }}]
{{ document.content }}
</document>
{% endfor %}
</documents>
"""


@pytest.mark.parametrize(
    ("text", "name", "unsafe", "expected"),
    [
        (WRAPPED, "qa.txt", False, WRAPPED_FORMATTED),
        (UNGROUPED, "qa.txt", False, UNGROUPED_SAFE),
        (UNGROUPED, "qa.txt", True, UNGROUPED_UNSAFE),
        # A summary on the one source there is may be the document's own: only the unsafe format drops it.
        (TRAILING_FIELD, "qa.txt", True, TRAILING_FIELD_FORMATTED),
        (XML_LOOP, "qa.j2", False, XML_LOOP_FORMATTED),
    ],
    ids=["wrappers-kept", "order-and-keys-kept", "unsafe-regroups", "blank-line-kept", "template-wrapper-kept"],
)
def test_a_block_format_reads_is_rewritten(text, name, unsafe, expected):
    assert formatted(text, name, unsafe) == type(formatted(text, name))(expected, ())
    assert formatted(expected, name, unsafe).text is None


def test_unsafe_fixes_option_of_format(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("qa.txt").write_text(UNGROUPED, encoding="utf-8")
    assert CliRunner().invoke(main, ["format", "qa.txt"]).exit_code == 0
    assert Path("qa.txt").read_text(encoding="utf-8") == UNGROUPED_SAFE
    result = CliRunner().invoke(main, ["format", "--unsafe-fixes", "qa.txt"])
    assert (result.exit_code, result.stderr) == (0, "Reformatted: qa.txt\n1 file reformatted.\n")
    assert Path("qa.txt").read_text(encoding="utf-8") == UNGROUPED_UNSAFE


# ---------------------------------------------------------------- the properties

# The names a content placeholder goes by (`{page_content}`, `{{ doc.text }}`, `{doc['snippet']}`).
CONTENT_NAMES = {"content", "page_content", "text", "body", "chunk", "snippet", "passage", "passages", "context",
                 "context_str", "documents", "document", "data", "chunk_text", "excerpt"}
PLACEHOLDER = re.compile(r"\{\{?[^{}\n]*?(\w+)['\"\]]*\s*(?:\|[^{}\n]*)?\}\}?")
TAG = re.compile(r"<(/?)([A-Za-z_][\w\-]*)[^<>]*?(/?)>")
SECTION = re.compile(r"\{\{~?\s*([#/^])\s*(\w+)")
COUNTER = re.compile(r"\{%[-+]? set citation = namespace\(n=0\) %\}")


def content_placeholders(text: str) -> Counter:
    """By expression: `{{- doc.content }}` and `{{ doc.content }}` print the same text."""
    return Counter(re.sub(r"[\s{}~-]", "", m[0]) for m in PLACEHOLDER.finditer(text) if m[1].lower() in CONTENT_NAMES)


def tags(text: str) -> tuple[set[str], set[str]]:
    """The names of the XML-like elements opened as often as closed, and of the others."""
    opened, closed = Counter(), Counter()
    for m in TAG.finditer(text):
        if not m[3]:
            (closed if m[1] else opened)[m[2].lower()] += 1
    names = set(opened) | set(closed)
    return {n for n in names if opened[n] == closed[n]}, {n for n in names if opened[n] != closed[n]}


def sections(text: str) -> Counter:
    return Counter((m[1] == "/", m[2]) for m in SECTION.finditer(text))


def keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


class Sample(jinja2.Undefined):
    """Any name a template reads: each attribute and item is named by its path, each list has two."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Sample(name=f"{self._undefined_name}.{name}")

    def __getitem__(self, key):
        return Sample(name=f"{self._undefined_name}.{key}")

    def __iter__(self):
        return iter([Sample(name=f"{self._undefined_name}[{i}]") for i in range(2)])

    def __str__(self):
        return f"«{self._undefined_name}»"

    def __len__(self):
        return 2

    def __bool__(self):
        return True


def rendered_chunks(template: str, names: set[str]) -> Counter | None:
    """The chunk texts a template renders from sample data: «documents[0].content», ...; None if it does not render."""
    try:
        text = jinja2.Environment(undefined=Sample).from_string(template).render()
    except Exception:  # a filter or a test sample data cannot satisfy; an include
        return None
    return Counter(m[0] for m in re.finditer(r"«[^«»]*?\.(\w+)»", text) if m[1] in names)


class Value:
    """A value a format string reads: each attribute and item is named by its path."""

    def __init__(self, path: str):
        self.path = path

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Value(f"{self.path}.{name}")

    def __getitem__(self, key):
        return Value(f"{self.path}.{key}")

    def __format__(self, spec):
        return f"«{self.path}»"


class Names(dict):
    def __missing__(self, key):
        return Value(key)


def format_rendered(text: str) -> str | None:
    """A format-string prompt filled with sample values; None if it is not one (`{}`, stray braces)."""
    try:
        return text.format_map(Names())
    except (ValueError, IndexError, KeyError, AttributeError, TypeError):
        return None


def sources_and_block(piece: document.Prompt):
    prompt = segment_jinja(piece.text) if piece.syntax == Syntax.JINJA else segment_text(piece.text, piece.messages())
    return prompt.sources, prompt.sources_block


def assert_kept_says_why(result) -> None:
    """Each block format leaves as it is comes with a one-line reason."""
    assert all(reason.startswith("sources block kept: ") and "\n" not in reason for reason in result.kept)


def assert_keeps_meaning(raw: bytes, name: str, must_change: bool = False) -> None:
    doc = document.parse(raw, name, Path(name).suffix)
    result = format_document(doc, CONFIG)
    assert_kept_says_why(result)
    if result.text is None:
        assert not must_change, "format changed nothing"
        return
    new = result.text
    again = document.parse(new.encode("utf-8"), name, Path(name).suffix)
    assert len(again.prompts) == len(doc.prompts)
    for old_piece, new_piece in zip(doc.prompts, again.prompts):
        old, text = old_piece.text, new_piece.text
        if old == text:
            continue
        sources, block = sources_and_block(old_piece)
        # Every chunk text (in a template, its output) survives, and every content placeholder.
        for source in sources:
            content = old[source.content.start : source.content.end]
            assert (content if old_piece.syntax != "jinja" else re.sub(r"\{\{-?\s*|\s*-?\}\}", "", content)) in text
        assert not content_placeholders(old) - content_placeholders(text)
        # The text before and after the sources block stays (in a template, give or take the counter).
        unmarked = COUNTER.sub("", text)
        assert unmarked.startswith(old[: block.start]) and unmarked.endswith(old[block.end :])
        assert not tags(old)[0] & tags(text)[1]
        assert sections(old) == sections(text)
        if old_piece.syntax != "jinja" and format_rendered(old) is not None:
            # A format-string template still fills, and with the same chunk texts.
            after = format_rendered(text)
            assert after is not None
            for source in sources:
                chunk = format_rendered(old[source.content.start : source.content.end])
                assert chunk is None or chunk in after
        if old_piece.syntax == Syntax.JINJA:
            assert parses(text)
            names = {re.findall(r"\w+", old[s.content.start : s.content.end])[-1] for s in sources}
            before = rendered_chunks(old, names)
            if before is not None:
                assert rendered_chunks(text, names) == before
    if Path(name).suffix == ".json":
        assert keys(json.loads(new)) == keys(json.loads(raw))
    if Path(name).suffix == ".jsonl":
        assert [keys(json.loads(line)) for line in new.splitlines()] == [keys(json.loads(line)) for line in raw.decode().splitlines()]
    # A second format changes nothing.
    assert format_document(again, CONFIG).text is None


def prompt_files() -> list[Path]:
    folders = [ROOT / "fixtures"] + ([CORPUS] if CORPUS.is_dir() else [])
    return sorted(p for folder in folders for p in folder.rglob("*") if p.is_file() and p.name != "manifest.yaml")


# A text prompt is also met inside a chat request, in a Python string and with Windows line
# ends, where format reads it and writes it back through another source map.
TEXT_SUFFIXES = (".txt", ".md", ".prompt", ".j2", ".jinja", ".prompty")
RENDERINGS = {
    "chat request": (".json", lambda text: json.dumps({"model": "any", "messages": [
        {"role": "system", "content": "Answer from the sources only."}, {"role": "user", "content": text}]}, ensure_ascii=False, indent=2)),
    "python string": (".py", lambda text: 'PROMPT = """' + text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') + '"""\n'),
    "crlf": (None, lambda text: text.replace("\n", "\r\n")),
}
# The sweep checks meaning only where format changes a file: at least this many must be changed
# (fewer where the shared corpus is not beside the checkout and only the fixtures are read).
CHANGED_FLOOR = 150 if CORPUS.is_dir() else 60


@cache
def prompt_variants() -> tuple[tuple[str, str, bytes, bool], ...]:
    """Each known file as written, and each text prompt in each rendering: (id, file name,
    bytes, whether format changes it), less what is no prompt file."""
    variants = []
    for path in prompt_files():
        label, raw = str(path.relative_to(path.parents[1])), path.read_bytes()
        variants.append((label, path.name, raw))
        if path.suffix in TEXT_SUFFIXES:
            for how, (suffix, render) in RENDERINGS.items():
                variants.append((f"{label} ({how})", f"prompt{suffix or path.suffix}", render(raw.decode("utf-8")).encode("utf-8")))
    read = []
    for label, name, raw in variants:
        try:
            doc = document.parse(raw, name, Path(name).suffix)
        except document.UnreadableFile:
            continue
        read.append((label, name, raw, format_document(doc, CONFIG).text is not None))
    return tuple(read)


def _changed():
    return [pytest.param(name, raw, id=label) for label, name, raw, changed in prompt_variants() if changed]


def test_format_changes_enough_known_prompts_for_the_sweep_to_count():
    assert len(_changed()) >= CHANGED_FLOOR


@pytest.mark.parametrize(("name", "raw"), _changed())
def test_format_keeps_the_meaning_of_every_known_prompt(name, raw):
    assert_keeps_meaning(raw, name, must_change=True)


def test_format_leaves_every_other_known_prompt_as_it_is():
    unchanged = [(label, name, raw) for label, name, raw, changed in prompt_variants() if not changed]
    assert unchanged
    for label, name, raw in unchanged:
        result = format_document(document.parse(raw, name, Path(name).suffix), CONFIG)
        assert result.text is None, label
        assert_kept_says_why(result)


# Generated prompts: sources in the layouts format meets, with what it must not drop around them.
SENTENCES = ["Damaged goods may be returned within 30 days.", "Standard lead time is 6 weeks.",
             "The cap does not apply to breaches.", "{page_content}", "{doc['text']}", "Line one.\nLine two."]
TITLES = ["Returns policy", "SKU-4411", "{title}", "Services Agreement"]


LAYOUTS = ["bracket", "labelled", "xml", "xml-attr", "bare"]


@st.composite
def text_source(draw, n: int, layout: str) -> str:
    content, title = draw(st.sampled_from(SENTENCES)), draw(st.sampled_from(TITLES))
    if layout == "bracket":
        return f"[{n}] {title} (score: 0.{n}1) (updated 2024-0{n % 9 + 1}-02)\n{content}"
    if layout == "labelled":
        return f"Source {n}: {title}\nURL: https://example.com/{n}\nRelevance: 0.{n}\n{content}"
    if layout == "xml":
        return f"<document>\n<title>{title}</title>\n<score>0.{n}</score>\n<content>\n{content}\n</content>\n</document>"
    if layout == "xml-attr":
        return f'<document index="{n}" source="{title}">\n{content}\n</document>'
    return f"Document {n}:\n{content}"


@st.composite
def text_prompt(draw) -> str:
    # One renderer writes every source of a prompt in one layout; metadata on two or more is what it repeats.
    count = draw(st.integers(2, 4))
    layout = draw(st.sampled_from(LAYOUTS))
    sources = [draw(text_source(n, layout)) for n in range(1, count + 1)]
    between = draw(st.sampled_from(["\n\n", "\n", "\n\n---\n\n", "\n\nRead the next source with care.\n\n"]))
    block = between.join(sources)
    if draw(st.booleans()):
        block = f"<documents>\n{block}\n</documents>"
    if draw(st.booleans()):
        block = "{{#each docs}}\n" + block + "\n{{/each}}"
    intro = draw(st.sampled_from(["Answer from the sources and cite them as [n].", "Use the <documents> tags below."]))
    return f"{intro}\n\nSources:\n{block}\n\nQuestion: {{question}}\n"


@st.composite
def loop_template(draw) -> str:
    header = draw(st.sampled_from(["", "[{{ loop.index }}] {{ doc.meta.title }}\n", "Document {{ loop.index }}: {{ doc.title }}\n",
                                   "---- Document {{ loop.index }} ----\n", "<document index=\"{{ loop.index }}\">\n",
                                   "{% if doc.meta.title %}Title: {{ doc.meta.title }}\n{% endif %}"]))
    fields = draw(st.lists(st.sampled_from(["Score: {{ doc.score }}\n", "URL: {{ doc.meta.url }}\n", "Updated: {{ doc.meta.updated_at }}\n",
                                             "{{ doc.meta.summary }}\n", "Note: prefer this one.\n"]), max_size=2))
    content = draw(st.sampled_from(["{{ doc.content }}", "{{ doc['text'] }}", "{{- doc.content }}"]))
    closing = "\n</document>" if header.startswith("<document") else ""
    tags = draw(st.sampled_from([("{% for doc in documents %}\n", "\n{% endfor %}"), ("{%- for doc in documents -%}\n", "\n{%- endfor %}")]))
    loop = f"{tags[0]}{header}{''.join(fields)}{content}{closing}{tags[1]}"
    if draw(st.booleans()):  # a second sources loop: the numbers run on through a counter
        loop += "\nMore:\n" + loop.replace("documents", "extra")
    return f"Answer from the sources.\n{loop}\nQuestion: {{{{ question }}}}\n"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text_prompt())
def test_format_keeps_the_meaning_of_generated_prompts(text):
    assert_keeps_meaning(text.encode("utf-8"), "prompt.txt")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text_prompt(), st.booleans())
def test_format_keeps_the_meaning_of_generated_chat_records(text, in_system):
    instructions = {"role": "system", "content": "Answer from the sources only."}
    sources = {"role": "system" if in_system else "user", "content": text}
    record = {"model": "any", "temperature": 0, "messages": [instructions, sources, {"role": "user", "content": "Why?"}]}
    assert_keeps_meaning(json.dumps(record, ensure_ascii=False, indent=2).encode("utf-8"), "request.json")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loop_template())
def test_format_keeps_the_meaning_of_generated_templates(template):
    assert_keeps_meaning(template.encode("utf-8"), "prompt.j2")


@pytest.mark.parametrize(
    ("strategy", "name", "floor"),
    # Format keeps a block it cannot say another way (a URL line, a field of its own), and says
    # why: those cases check the reason, the others the meaning; each generator reaches both.
    [(text_prompt(), "prompt.txt", 0.2), (loop_template(), "prompt.j2", 0.6)],
    ids=["text", "template"],
)
def test_the_generators_reach_prompts_that_format_changes(strategy, name, floor):
    seen = Counter()

    @settings(max_examples=100, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(strategy)
    def probe(text):
        seen[format_document(document.parse(text.encode("utf-8"), name, Path(name).suffix), CONFIG).text is not None] += 1

    probe()
    assert seen[True] >= floor * sum(seen.values()) and seen[False], seen


# ---------------------------------------------------------------- format is check --fix plus layout (issue 29)

ALL = build({"select": ["ALL"], "today": "2026-12-02"}, "test")


@pytest.mark.parametrize("unsafe", [False, True], ids=["format", "unsafe-fixes"])
def test_format_output_has_no_finding_its_input_did_not_have_and_settles(unsafe):
    """Over every fixture and corpus file, with every rule selected: the findings of format's
    output (with `--unsafe-fixes` too), counted per code, are no more than those of its
    input, and a second format changes nothing.

    Counted per code rather than matched by the text they flag: a finding on a source's
    header (PL205 on its title, PL204 on its heading) flags the header line, which the layout
    rewrites (`Document 3: Terms` becomes `[3] Terms`), so matching by text would call the
    same finding new. A count per code still catches what matters: a kind of finding the
    input did not have (PL205 once a title is dropped), and one more of a kind (a second
    source left without a title). Format only removes what check --fix removes and rebuilds
    headers from what they held, so it cannot trade one finding for another of the same code.
    """
    changed, grew = 0, []
    for path in prompt_files():
        try:
            doc = document.parse(path.read_bytes(), path.name, path.suffix)
        except document.UnreadableFile:
            continue
        result = format_document(doc, ALL, unsafe)
        if result.text is None:
            continue
        changed += 1
        again = document.parse(result.text.encode("utf-8"), path.name, path.suffix)
        before = Counter(f.code for f in check_document(doc, ALL).findings)
        after = Counter(f.code for f in check_document(again, ALL).findings)
        if after - before:
            grew.append((f"{path.parent.name}/{path.name}", dict(after - before)))
        assert format_document(again, ALL, unsafe).text is None, path
    assert grew == []
    # The files format changes (reach): what check --fix removes from their sources, and their layout.
    assert changed >= (42 if CORPUS.is_dir() else 20)


def test_a_field_of_the_one_source_there_is_is_kept_by_the_safe_format():
    # One source shows no renderer: its "Summary:" line may be the document's own text.
    assert formatted(TRAILING_FIELD, "qa.txt", False).kept == ("sources block kept: a field the canonical header has no place for (summary)",)
