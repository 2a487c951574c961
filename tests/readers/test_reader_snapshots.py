"""Reader snapshots: an input file and the prompt model the readers yield from it, as YAML.

Like sqlfluff's dialect fixtures (SQL beside its parse tree), so a change to a reader
or the segmenter shows in review as a change to what the rules are given. The inputs:
  tests/snapshots/readers/<name>             an input written for this, one per shape that matters
  FIXTURES below                             an input already in fixtures/ that shows a shape
and each one's snapshot is tests/snapshots/readers/<name>.snap.yaml. The model is
read through promptlint.engine.lint.segment_document, what `check` runs the rules on.

A snapshot holds text, not offsets: each part, source, header, field and question as
the exact text of its span, and line:column in the file where a position matters (the
start of a message, a source, a question). Values at their defaults are left out, and
a control character is shown as its Unicode picture (␞ joins a chat's messages).
Update with `python -m pytest --snapshot-update` and review `git diff tests/snapshots`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, SUFFIX
from promptlint.engine.config import build
from promptlint.engine.lint import segment_document
from promptlint.model.prompt import Prompt, Span
from promptlint.readers import document

# A control character is shown as its Unicode picture ("\x1e", which joins a chat's messages
# into one text, as "␞"): escaped, it would force the whole text onto one quoted line.
CONTROL_PICTURES = {code: 0x2400 + code for code in range(32) if chr(code) not in "\n\t"}
READERS = ROOT / "tests" / "snapshots" / "readers"
CONFIG = build({"today": "2026-12-02"}, str(READERS))

# Shapes the fixtures already hold, by the snapshot's name: reused, not copied.
FIXTURES = {
    "numbered-sources.txt": "fixtures/atlas/before.txt",
    "mixed-text-and-xml.txt": "fixtures/PL104-derived-text/bad.txt",
    "jinja-loop.j2": "fixtures/PL102-retrieval-score/bad-template.j2",
    "hf-chat-template.jinja": "fixtures/shapes/hf-chat-template-documents/bad.jinja",
    "chat.json": "fixtures/PL900-syntax-error/good.json",
    "broken.json": "fixtures/PL900-syntax-error/bad.json",
    "openai-chat.json": "fixtures/shapes/openai-chat/bad.json",
    "anthropic-messages.json": "fixtures/shapes/anthropic-messages/bad.json",
    "cohere-v2.json": "fixtures/shapes/cohere-v2/bad.json",
    "hf-tokenizer-config.json": "fixtures/shapes/hf-tokenizer-config/bad.json",
    "semantic-kernel.yaml": "fixtures/shapes/semantic-kernel-yaml/bad.yaml",
    "github-models.prompt.yml": "fixtures/shapes/github-models-prompt/bad.prompt.yml",
}


def _inputs() -> dict[str, Path]:
    """Every input by its snapshot's name: the files in the folder, then the fixtures."""
    written = {path.name: path for path in sorted(READERS.iterdir()) if path.is_file() and not path.name.endswith(SUFFIX)}
    assert not set(written) & set(FIXTURES), "an input in the folder and a fixture share a name"
    return {**written, **{name: ROOT / path for name, path in FIXTURES.items()}}


INPUTS = _inputs()


def _snapshot_path(name: str) -> Path:
    return READERS / f"{name}{SUFFIX}"


def _model(path: Path) -> dict:
    """The document and the model of each of its prompts, as plain data."""
    doc = document.read(path, str(path.relative_to(ROOT)), CONFIG.suffix_for(path))
    data = {
        "input": str(path.relative_to(ROOT)),
        "kind": doc.kind.value,
        "errors": [f"{e.line}:{e.column} {e.code} {e.message}" for e in doc.errors],
        "unread": list(doc.unread),
        "prompts": [_prompt(doc, piece, model) for piece, model in zip(doc.prompts, segment_document(doc, CONFIG))],
    }
    return _without_defaults(data)


def _prompt(doc: document.Document, piece: document.Prompt, model: Prompt) -> dict:
    def text(span: Span | None) -> str | None:
        return model.text[span.start : span.end].translate(CONTROL_PICTURES) if span is not None else None

    def at(offset: int) -> str:
        return "{}:{}".format(*doc.locate(piece, offset))

    return {
        "at": at(0),
        "record": piece.record + 1 if piece.record is not None and doc.kind == document.DocumentKind.JSONL else None,
        "syntax": piece.syntax.value,
        "read_only": not piece.writable,  # not in the file verbatim: findings only, no fixes
        "translated": piece.translated,  # read as the Jinja it means: fixes go through the translation
        "messages": [{"at": at(m.span.start), "name": m.name, "role": m.role, "text": text(m.span)} for m in model.messages],
        "parts": [{"kind": p.kind.value, "label": p.label, "text": text(p.span)} for p in model.parts],
        "sources": [
            {
                "at": at(s.span.start),
                "key": s.key,
                "title": s.title,
                "heading_path": list(s.heading_path),
                "style": s.style.value,
                "header": text(s.header),
                "fields": [
                    {"label": f.label, "value": f.value, "text": text(f.span), "value_text": text(f.value_span),
                     "form": f.form.value, "conditional": f.conditional, "elsewhere": f.elsewhere}
                    for f in s.fields
                ],
                "wrapper_lines": [text(line) for line in s.wrapper_lines],
                "content": text(s.content),
                "document_id": CONFIG.lexicon.document_of(s),
                "repeated": s.repeated,
                "collection": s.collection,
            }
            for s in model.sources
        ],
        "questions": [{"at": at(q.start), "text": text(q)} for q in model.questions],
        "rewritten_questions": [{"at": at(q.start), "text": text(q)} for q in model.rewritten_questions],
        "locked": [text(span) for span in model.locked],
        # Each `{% if %}` by where its branches start: which text never renders together.
        "branches": [[at(branch.start) for branch in block] for block in model.branches],
        "refused_includes": [{"at": at(tag.start), "name": name} for tag, name in model.refused_includes],
    }


def _without_defaults(value):
    """The data less its empty and default values (None, False, "", []), so a snapshot shows what a reader found."""
    if isinstance(value, dict):
        kept = {key: _without_defaults(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item not in (None, False, "", [], {})}
    if isinstance(value, list):
        return [_without_defaults(item) for item in value]
    return value


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_reader_snapshot(name, snapshots):
    path = INPUTS[name]
    assert path.is_file(), f"the input of {name} is gone: {path.relative_to(ROOT)}; remove it from FIXTURES, or restore it"
    snapshots.check(_snapshot_path(name), _model(path))


def test_no_stale_reader_snapshots(snapshots):
    snapshots.check_none_stale(READERS, {_snapshot_path(name) for name in INPUTS})
