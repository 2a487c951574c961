"""Request bodies and prompt files in the shapes applications send them, against their fixtures.

A fixture folder is fixtures/shapes/<shape>/ with one or more cases, written from the
provider's documented request format (<ext> is all of the name after its first dot, so
bad.prompt.yml is case "bad" of extension "prompt.yml"):
  bad<case>.<ext>          a file the default rules must flag
  bad<case>.expected       the findings, one per line: "line:column CODE"
  bad<case>.fixed.<ext>    the file after --fix; absent when no safe fix applies
  bad<case>.changes        what the fix changed in the decoded JSON or YAML, one path a line:
                           "- path" for a key removed, "~ path" for a string edited
  good<case>.<ext>         a file of the same shape the rules must not flag
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.document import parse_text
from promptlint.readers.segment import segment_text

SHAPES = ROOT / "fixtures" / "shapes"
CONFIG = build({"today": "2026-12-02"}, "shapes")


def _cases(kind: str) -> list:
    paths = sorted(SHAPES.glob(f"*/{kind}*"))
    return [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in paths if p.suffix not in (".expected", ".changes") and ".fixed" not in p.suffixes]


def _case(path: Path) -> tuple[str, str]:
    """A fixture's case and extension: "bad-tool-result.json" is ("bad-tool-result", ".json")."""
    case, dot, extension = path.name.partition(".")
    return case, dot + extension


def _beside(path: Path, suffix: str) -> Path:
    return path.with_name(_case(path)[0] + suffix)


# The structured formats, each with how a fixture's text decodes, to compare key by key.
DECODERS = {".json": json.loads, ".yaml": yaml.safe_load, ".yml": yaml.safe_load}


def _changes(old, new, path: str = "") -> list[str]:
    """Where two decoded JSON or YAML values differ, key by key: removed keys and edited strings."""
    if isinstance(old, dict) and isinstance(new, dict):
        assert set(new) <= set(old), f"keys added at {path or '/'}: {sorted(set(new) - set(old))}"
        assert list(new) == [k for k in old if k in new], f"keys reordered at {path or '/'}"
        changed = [f"- {path}.{k}".replace("- .", "- ") for k in old if k not in new]
        return changed + [c for k in new for c in _changes(old[k], new[k], f"{path}.{k}".lstrip("."))]
    if isinstance(old, list) and isinstance(new, list):
        assert len(old) == len(new), f"items removed at {path}"
        return [c for i, (a, b) in enumerate(zip(old, new)) for c in _changes(a, b, f"{path}[{i}]")]
    if old != new:
        assert isinstance(old, str) and isinstance(new, str), f"{path} changed type or value"
        return [f"~ {path}"]
    return []


@pytest.mark.parametrize("bad", _cases("bad"))
def test_bad_file_findings(bad):
    findings = lint_text(bad.read_text(encoding="utf-8"), path=str(bad), config=CONFIG)
    assert [f"{f.line}:{f.column} {f.code}" for f in findings] == _beside(bad, ".expected").read_text().split("\n")[:-1]


@pytest.mark.parametrize("bad", _cases("bad"))
def test_bad_file_fix_keeps_the_structure(bad):
    raw = bad.read_text(encoding="utf-8")
    fixed = fix_text(raw, path=str(bad), config=CONFIG)
    expected = _beside(bad, f".fixed{_case(bad)[1]}")
    if not expected.exists():
        assert fixed == raw
        return
    assert fixed == expected.read_text(encoding="utf-8")
    assert fix_text(fixed, path=str(bad), config=CONFIG) == fixed  # fixing again changes nothing
    fixed_codes = {f.code for f in lint_text(raw, path=str(bad), config=CONFIG) if f.fix}
    assert not fixed_codes & {f.code for f in lint_text(fixed, path=str(bad), config=CONFIG)}
    if bad.suffix in DECODERS:
        decode = DECODERS[bad.suffix]
        assert _changes(decode(raw), decode(fixed)) == _beside(bad, ".changes").read_text().split("\n")[:-1]


@pytest.mark.parametrize("good", _cases("good"))
def test_good_file_is_clean(good):
    assert lint_text(good.read_text(encoding="utf-8"), path=str(good), config=CONFIG) == []


# Each template language's placeholders, read by what their names say they hold.
PLACEHOLDERS = [
    ("f-string", "{context}", "{question}"),
    ("mustache", "{{context}}", "{{question}}"),
    ("dify", "{{#context#}}", "{{#sys.query#}}"),
    ("semantic-kernel", "{{$context}}", "{{$input}}"),
    ("string-template", "$context", "$question"),
    ("bedrock-knowledge-base", "$search_results$", "$query$"),
]


@pytest.mark.parametrize(("sources", "question"), [p[1:] for p in PLACEHOLDERS], ids=[p[0] for p in PLACEHOLDERS])
def test_placeholders_are_read_by_their_names(sources, question):
    text = f"Answer from the sources.\n\n{sources}\n\nQuestion: {question}\n"
    prompt = segment_text(text)
    kinds = [(p.kind.value, text[p.span.start : p.span.end]) for p in prompt.parts if p.kind.value != "instructions"]
    assert kinds == [("sources", sources), ("question", f"Question: {question}")]
    assert [text[q.start : q.end] for q in prompt.questions] == [question]


@pytest.mark.parametrize("text", ["It costs US$5, or $ 5 in cash.\n", "Run echo $HOME first.\n", "Pay $10.\n"])
def test_dollar_signs_that_are_no_placeholder_are_text(text):
    assert [p.kind.value for p in segment_text(text).parts] == ["instructions"]


# A prompt file of no known shape keeps its prompt under a key of its own choosing.
TEMPLATE = "Answer from the documents.\n{% for d in docs %}\n[{{ loop.index }}] {{ d.title }} (score: {{ d.score }})\n{{ d.text }}\n{% endfor %}\nQuestion: {{ question }}\n"
FORMAT_PROMPT = "Answer only from the context below, and say so when it is silent.\n\n{context}\n\nQuestion: {question}\n"


def _yaml_file(path: list[str], text: str) -> str:
    block = "\n".join("      " + line if line else "" for line in text.rstrip("\n").split("\n"))
    head = "".join("  " * depth + key + ":\n" for depth, key in enumerate(path[:-1]))
    return "name: support-bot\n" + head + "  " * (len(path) - 1) + path[-1] + ": |\n" + block.replace("      ", "  " * len(path), -1) + "\n"


def _json_file(path: list[str], text: str) -> str:
    value: object = text
    for key in reversed(path):
        value = {key: value}
    return json.dumps({"name": "support-bot", **value}, indent=2) + "\n"


@pytest.mark.parametrize("path", [["prompt"], ["qa_template"], ["prompts", "answer", "system_prompt"], ["rag", "instructions"], ["agents", "support", "answer"]])
@pytest.mark.parametrize("write", [_json_file, _yaml_file], ids=["json", "yaml"])
def test_a_prompt_under_any_key_is_read(path, write):
    """A template under a key that names a prompt, or under any key when it has a context slot."""
    suffix = ".json" if write is _json_file else ".yaml"
    raw = write(path, TEMPLATE)
    findings = lint_text(raw, path=f"prompts{suffix}", config=CONFIG)
    if path[-1] == "answer":  # a key that names nothing, and no context slot: not read
        assert findings == []
        return
    assert [f.code for f in findings] == ["PL102"]
    line = raw.split("\n")[findings[0].line - 1]
    assert "{{ d.score }}" in line or "(score: " in line.replace("\\n", "\n")


@pytest.mark.parametrize("write", [_json_file, _yaml_file], ids=["json", "yaml"])
def test_a_string_with_a_context_slot_is_read_under_any_key(write):
    raw = write(["agents", "support", "answer"], FORMAT_PROMPT + "Always answer in English. Keep it under 100 words.\nSay so when the context does not answer, and never make up an answer.\n")
    assert [f.code for f in lint_text(raw, path="p" + (".json" if write is _json_file else ".yaml"), config=CONFIG)] == ["PL305"]


@pytest.mark.parametrize(
    "raw",
    [
        "services:\n  web:\n    image: nginx\n    command: run the server with the default config\n",
        '{"name": "app", "description": "A tool that answers questions from the context of a ticket.", "version": "1.0"}\n',
        '{"scripts": {"test": "pytest -q", "lint": "promptlint check prompts"}}\n',
        "prompt: short\n",
    ],
)
def test_data_that_holds_no_prompt_is_not_read(raw):
    suffix = ".json" if raw.startswith("{") else ".yaml"
    assert parse_text(raw, f"config{suffix}", suffix).prompts == ()


SYSTEM_TEXT = ("Act as a precise summarizer of the given text.\nKeep every number and name exactly as written.\n"
               "Never add facts the text does not state.\nWrite at most five sentences in plain English.")


@pytest.mark.parametrize("system_key", ["sys_prompt", "system", "systemMessage", "system_instructions"])
@pytest.mark.parametrize("user_key", ["prompts", "user_prompt", "prompt"])
def test_a_system_prompt_key_is_sent_first_wherever_it_stands_in_its_object(system_key, user_key):
    """An object's keys have no order a model sees: instructions under a system key after the
    user's text are the system prompt, before it, and no static text after the context."""
    node = {"temperature": 0.1, user_key: "Text to summarize:\n{context}", system_key: SYSTEM_TEXT}
    raw = json.dumps({"nodes": [node]}, indent=2) + "\n"
    assert [f.code for f in lint_text(raw, path="flow.json", config=CONFIG)] == []
    # The twin: the same instructions in the user's text after the context are after it.
    node = {"temperature": 0.1, user_key: "Text to summarize:\n{context}\n\n" + SYSTEM_TEXT}
    raw = json.dumps({"nodes": [node]}, indent=2) + "\n"
    assert [f.code for f in lint_text(raw, path="flow.json", config=CONFIG)] == ["PL305"]
