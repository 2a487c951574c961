"""`promptlint server`: the real server process, driven by a real LSP client (pygls's own).

Every wait is for a message the server must send (the diagnostics of a given
version), under a generous timeout; nothing is asserted by sleeping.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from promptlint.cli.server import Positions, text_edits
from promptlint.engine import registry

SCRIPT = str(Path(sys.executable).with_name("promptlint"))
TIMEOUT = 30  # seconds: a loaded two-core machine is slow, never this slow


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def offset_of(text: str, position: types.Position) -> int:
    """The offset of a protocol position (lines end at \\r\\n, \\n or \\r; columns count UTF-16 units), as an editor reads it."""
    breaks = list(re.finditer(r"\r\n|\n|\r", text))
    at = ([0] + [m.end() for m in breaks])[position.line]
    end = breaks[position.line].start() if position.line < len(breaks) else len(text)
    units = 0
    while units < position.character:
        assert at < end, "a column past the end of its line"
        units += utf16(text[at])
        at += 1
    return at


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """The text with the edits applied, as an editor applies them (all against the text before them)."""
    placed = sorted(((offset_of(text, e.range.start), offset_of(text, e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in placed:
        text = text[:start] + new + text[end:]
    return text


def edits_of(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    edit = action.edit
    if edit.document_changes:
        (change,) = edit.document_changes
        assert change.text_document.uri == uri
        return list(change.edits)
    return list(edit.changes[uri])


class Editor:
    """A client with the documents it has open, and the diagnostics the server sent for each version."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.client = LanguageClient("promptlint-tests", "1")
        self.published: dict[tuple[str, int | None], list[types.Diagnostic]] = {}
        self.order: list[str] = []  # the documents diagnostics came for, as they came
        self.arrived = asyncio.Event()
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri, params.version] = list(params.diagnostics)
            self.order.append(params.uri)
            self.arrived.set()

    async def start(self, *options: str) -> types.InitializeResult:
        await self.client.start_io(SCRIPT, "server", "--debounce", "0.01", *options, cwd=self.folder)
        capabilities = types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)),
        )
        result = await asyncio.wait_for(self.client.initialize_async(types.InitializeParams(capabilities=capabilities, root_uri=self.folder.as_uri())), TIMEOUT)
        self.client.initialized(types.InitializedParams())
        return result

    async def stop(self) -> int:
        """Shut the server down as an editor does; its exit code."""
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        process = self.client._server
        code = await asyncio.wait_for(process.wait(), TIMEOUT)
        await asyncio.wait_for(self.client.stop(), TIMEOUT)
        return code

    def uri(self, name: str) -> str:
        return (self.folder / name).as_uri()

    def open(self, name: str, text: str, language: str = "plaintext") -> str:
        uri = self.uri(name)
        self.texts[uri], self.versions[uri] = text, 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
        return uri

    def change(self, uri: str, text: str) -> None:
        self.texts[uri] = text
        self.versions[uri] += 1
        change = types.TextDocumentContentChangeWholeDocument(text=text)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]), content_changes=[change]))

    async def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """The diagnostics of the document's current version, once the server has sent them."""
        key = uri, self.versions[uri]

        async def arrived() -> list[types.Diagnostic]:
            while key not in self.published:
                self.arrived.clear()
                await self.arrived.wait()
            return self.published[key]

        return await asyncio.wait_for(arrived(), TIMEOUT)

    async def actions(self, uri: str, diagnostics: list[types.Diagnostic], where: types.Range, only: list[str] | None = None) -> list[types.CodeAction]:
        params = types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri), range=where, context=types.CodeActionContext(diagnostics=diagnostics, only=only))
        return await asyncio.wait_for(self.client.text_document_code_action_async(params), TIMEOUT) or []

    async def hover(self, uri: str, position: types.Position) -> types.Hover | None:
        return await asyncio.wait_for(self.client.text_document_hover_async(types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)), TIMEOUT)


def session(folder: Path, scenario, *options: str) -> None:
    """Run ``scenario(editor)`` against a fresh server; it must then shut down cleanly, exit code 0."""

    async def run() -> int:
        editor = Editor(folder)
        await editor.start(*options)
        try:
            await scenario(editor)
        finally:
            code = await editor.stop()
        return code

    assert asyncio.run(run()) == 0


def scored(titles: list[str], scores: list[str], newline: str = "\n", before: str = "") -> str:
    """A prompt whose sources each show a relevance line; ``before`` is written ahead of each title."""
    blocks = [f"[{n}] {before}{title}{newline}Relevance: {score}{newline}{title} says what it says.{newline}" for n, (title, score) in enumerate(zip(titles, scores), 1)]
    return f"Answer from the sources.{newline}{newline}" + newline.join(blocks) + f"{newline}Question: what do they say?{newline}"


def score_ranges(text: str, scores: list[str]) -> list[types.Range]:
    """Where each score value stands, in protocol positions (the line's UTF-16 units before it)."""
    lines = text.replace("\r\n", "\n").split("\n")
    ranges = []
    for score in scores:
        number = next(i for i, line in enumerate(lines) if line == f"Relevance: {score}" and not any(r.start.line == i for r in ranges))
        column = utf16(lines[number][: lines[number].index(score)])
        ranges.append(types.Range(types.Position(number, column), types.Position(number, column + utf16(score))))
    return ranges


@pytest.mark.parametrize(
    ("titles", "scores"),
    [
        (["Returns Policy", "Shipping FAQ"], ["0.91", "0.72"]),
        (["Lending Policy", "Credit Terms", "Fees"], ["0.88", "0.5", "0.31"]),
    ],
)
def test_a_score_is_a_diagnostic_whose_fix_removes_it(tmp_path, titles, scores):
    text = scored(titles, scores)

    async def scenario(editor: Editor) -> None:
        uri = editor.open("prompt.txt", text)
        diagnostics = await editor.diagnostics(uri)
        assert [d.code for d in diagnostics] == ["PL102"] * len(scores)
        assert [d.range for d in diagnostics] == score_ranges(text, scores)
        first = diagnostics[0]
        assert first.severity == types.DiagnosticSeverity.Warning
        assert first.source == "promptlint"
        assert first.message.startswith(f"[retrieval-score] Source 1 shows its retrieval score ('Relevance: {scores[0]}')")
        assert first.message.endswith(f"(costs {first.data['tokens']} tokens)") and first.data["tokens"] > 0
        assert first.data == {"name": "retrieval-score", "tokens": first.data["tokens"], "fix": "safe"}
        assert first.code_description.href.endswith("/rules/PL102.md")
        assert Path(first.code_description.href.removeprefix("file://")).read_text(encoding="utf-8").startswith("# PL102 `retrieval-score`\n")

        actions = await editor.actions(uri, [first], first.range)
        titles_offered = [a.title for a in actions]
        assert titles_offered[0] == "Fix PL102: Remove the score"
        assert actions[0].kind == types.CodeActionKind.QuickFix and actions[0].is_preferred
        assert list(actions[0].diagnostics) == [first]
        fixed = apply(text, edits_of(actions[0], uri))
        assert fixed == text.replace(f"Relevance: {scores[0]}\n", "", 1)
        editor.change(uri, fixed)
        left = await editor.diagnostics(uri)
        assert [d.range for d in left] == score_ranges(fixed, scores[1:])
        if len(left) < 2:
            # A label left on one source only may be the document's own: its fix is no longer safe.
            assert left[0].data["fix"] == "unsafe"
            return

        (fix_all,) = [a for a in await editor.actions(uri, [], left[0].range) if a.kind == types.CodeActionKind.SourceFixAll]
        assert fix_all.title == "Fix all safe fixes in this file"
        fixed = apply(fixed, edits_of(fix_all, uri))
        assert "Relevance" not in fixed
        editor.change(uri, fixed)
        assert await editor.diagnostics(uri) == []

    session(tmp_path, scenario)


@pytest.mark.parametrize(
    ("newline", "bom", "before"),
    [
        ("\r\n", "", "🙂 "),  # an emoji: two UTF-16 units
        ("\r\n", "\ufeff", "𝔉𝔞𝔮 "),  # mathematical letters, each outside the BMP, after a BOM
        ("\n", "", "é🙂😀 "),
    ],
)
def test_ranges_count_utf16_units_in_the_text_as_the_editor_holds_it(tmp_path, newline, bom, before):
    scores = ["0.91", "0.72"]
    text = bom + scored(["Returns Policy", "Shipping FAQ"], scores, newline, before)
    # The score goes on the title's line, after the astral characters.
    text = text.replace(f"Returns Policy{newline}Relevance: 0.91", "Returns Policy (score: 0.91)")
    title_line = text.split(newline).index(next(line for line in text.split(newline) if "(score: 0.91)" in line))

    async def scenario(editor: Editor) -> None:
        uri = editor.open("prompt.txt", text)
        first, second = await editor.diagnostics(uri)
        line = text.split(newline)[title_line]
        column = utf16(line[: line.index("0.91")])
        assert first.range == types.Range(types.Position(title_line, column), types.Position(title_line, column + 4))
        assert column > len(line[: line.index("0.91")])  # the astral characters counted twice
        assert second.range == score_ranges(text.removeprefix(bom), ["0.72"])[0]

        (fix,) = [a for a in await editor.actions(uri, [first], first.range) if a.kind == types.CodeActionKind.QuickFix]
        fixed = apply(text, edits_of(fix, uri))
        assert fixed == text.replace(" (score: 0.91)", "")
        editor.change(uri, fixed)
        (left,) = await editor.diagnostics(uri)
        assert left.range == second.range

    session(tmp_path, scenario)


def position_of(text: str, offset: int) -> types.Position:
    before = re.split(r"\r\n|\n|\r", text[:offset])
    return types.Position(line=len(before) - 1, character=utf16(before[-1]))


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_score_in_a_chat_file_is_fixed_inside_its_json_string(tmp_path, newline):
    content = scored(["Returns 🙂 Policy", "Shipping FAQ"], ["0.91", "0.72"])
    record = {"messages": [{"role": "system", "content": "Answer from the sources."}, {"role": "user", "content": content}]}
    text = json.dumps(record, ensure_ascii=False, indent=2).replace("\n", newline)

    async def scenario(editor: Editor) -> None:
        uri = editor.open("chat.json", text, "json")
        first, second = await editor.diagnostics(uri)
        for diagnostic, score in ((first, "0.91"), (second, "0.72")):
            start = text.index(f"Relevance: {score}") + len("Relevance: ")
            assert diagnostic.range == types.Range(position_of(text, start), position_of(text, start + len(score)))
        (fix,) = [a for a in await editor.actions(uri, [first], first.range) if a.kind == types.CodeActionKind.QuickFix]
        fixed = apply(text, edits_of(fix, uri))
        assert json.loads(fixed)["messages"][1]["content"] == content.replace("Relevance: 0.91\n", "")
        assert fixed.count("\r\n") == text.count("\r\n")
        editor.change(uri, fixed)
        (left,) = await editor.diagnostics(uri)
        assert left.range.start.line == second.range.start.line

    session(tmp_path, scenario)


def test_a_template_broken_and_mended_comes_and_goes_as_a_syntax_error(tmp_path):
    good = "Answer from the sources.\n{% for doc in documents %}\n[{{ loop.index }}] {{ doc.title }}\n{{ doc.content }}\n{% endfor %}\nQuestion: {{ question }}\n"
    broken = good.replace("{% endfor %}\n", "")

    async def scenario(editor: Editor) -> None:
        uri = editor.open("answer.j2", good, "jinja")
        assert await editor.diagnostics(uri) == []
        editor.change(uri, broken)
        (error,) = await editor.diagnostics(uri)
        assert error.code == "PL900"
        assert error.severity == types.DiagnosticSeverity.Error
        assert error.message.startswith("[syntax-error] invalid Jinja: ")
        assert error.range.start.line == error.range.end.line and 0 <= error.range.start.line < broken.count("\n")
        editor.change(uri, good)
        assert await editor.diagnostics(uri) == []

    session(tmp_path, scenario)


def test_a_template_score_is_fixed_in_the_template(tmp_path):
    template = "Answer from the sources.\n{% for doc in documents %}\n[{{ loop.index }}] {{ doc.title }} (score: {{ doc.score }})\n{{ doc.content }}\n{% endfor %}\nQuestion: {{ question }}\n"

    async def scenario(editor: Editor) -> None:
        uri = editor.open("answer.jinja", template, "jinja")
        (score,) = await editor.diagnostics(uri)
        assert score.code == "PL102"
        (fix,) = [a for a in await editor.actions(uri, [score], score.range) if a.kind == types.CodeActionKind.QuickFix]
        fixed = apply(template, edits_of(fix, uri))
        assert fixed == template.replace(" (score: {{ doc.score }})", "")
        editor.change(uri, fixed)
        assert await editor.diagnostics(uri) == []

    session(tmp_path, scenario)


def test_unsafe_fixes_say_so_and_hover_shows_the_rules_documentation(tmp_path):
    # A rewritten question (PL304) has only an unsafe fix: it changes what the model is asked.
    template = "Answer from the sources.\n{% for doc in documents %}\n{{ doc.content }}\n{% endfor %}\nQuestion: {{ rewritten_query }}\n"

    async def scenario(editor: Editor) -> None:
        uri = editor.open("answer.j2", template, "jinja")
        (rewritten,) = [d for d in await editor.diagnostics(uri) if d.code == "PL304"]
        assert rewritten.data["fix"] == "unsafe"
        (fix,) = [a for a in await editor.actions(uri, [rewritten], rewritten.range) if a.kind == types.CodeActionKind.QuickFix]
        assert fix.title.startswith("Fix PL304: ") and fix.title.endswith(" (unsafe)")
        assert not fix.is_preferred
        hover = await editor.hover(uri, rewritten.range.start)
        rule = registry.get("PL304")
        assert hover.contents.kind == types.MarkupKind.Markdown
        assert hover.contents.value.startswith("**PL304** `rewritten-question`: ")
        assert hover.contents.value.endswith(rule.doc)
        assert hover.range == rewritten.range
        assert await editor.hover(uri, types.Position(0, 0)) is None
        # Only the source actions, when only they are asked for: no unsafe fix among them.
        source = await editor.actions(uri, [], rewritten.range, only=[types.CodeActionKind.Source])
        assert all(a.kind != types.CodeActionKind.QuickFix for a in source)

    session(tmp_path, scenario)


def test_format_is_a_source_action(tmp_path):
    text = "Answer from the sources.\n\n[1] Returns Policy (score: 0.91)\nDamaged goods may be returned within 30 days.\n\n[2] Shipping FAQ (score: 0.82)\nDelivery takes 3-5 days.\n\nQuestion: how long?\n"
    from promptlint.engine.formatting import format_document
    from promptlint.engine.config import default_config
    from promptlint.readers.document import parse_text

    expected = format_document(parse_text(text, "prompt.txt", ".txt"), default_config()).text
    assert expected is not None and expected != text

    async def scenario(editor: Editor) -> None:
        uri = editor.open("prompt.txt", text)
        await editor.diagnostics(uri)
        everything = types.Range(types.Position(0, 0), types.Position(0, 0))
        (format_action,) = await editor.actions(uri, [], everything, only=["source.format"])
        assert format_action.kind == "source.format.promptlint"
        assert apply(text, edits_of(format_action, uri)) == expected

    session(tmp_path, scenario)


def test_what_cannot_be_linted_is_one_diagnostic_and_the_server_goes_on(tmp_path):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / ".promptlint.yaml").write_text("select: [PL102]\nno-such-key: 1\n", encoding="utf-8")
    text = scored(["Returns Policy"], ["0.91"])

    async def scenario(editor: Editor) -> None:
        bad = editor.open("broken/prompt.txt", text)
        (problem,) = await editor.diagnostics(bad)
        assert problem.severity == types.DiagnosticSeverity.Error
        assert "no-such-key" in problem.message and ".promptlint.yaml" in problem.message
        assert problem.range == types.Range(types.Position(0, 0), types.Position(0, 0))
        assert await editor.actions(bad, [problem], problem.range) == []
        surrogate = editor.open("lone.txt", text + "\ud800")
        (problem,) = await editor.diagnostics(surrogate)
        assert "lone surrogate" in problem.message
        good = editor.open("prompt.txt", text)
        assert [d.code for d in await editor.diagnostics(good)] == ["PL102"]

    session(tmp_path, scenario)


def test_the_config_of_the_files_folder_and_suppressions_apply(tmp_path):
    (tmp_path / "quiet").mkdir()
    (tmp_path / "quiet" / ".promptlint.yaml").write_text("ignore: [PL102]\n", encoding="utf-8")
    text = scored(["Returns Policy", "Shipping FAQ"], ["0.91", "0.72"])
    template = "{# promptlint: file-ignore[PL102] #}\nAnswer.\n{% for doc in documents %}\n[{{ loop.index }}] {{ doc.title }} (score: {{ doc.score }})\n{{ doc.content }}\n{% endfor %}\nQuestion: {{ question }}\n"

    async def scenario(editor: Editor) -> None:
        quiet = editor.open("quiet/prompt.txt", text)
        assert await editor.diagnostics(quiet) == []
        loud = editor.open("prompt.txt", text)
        assert [d.code for d in await editor.diagnostics(loud)] == ["PL102", "PL102"]
        suppressed = editor.open("answer.j2", template, "jinja")
        assert [d.code for d in await editor.diagnostics(suppressed)] == []

    session(tmp_path, scenario)


def test_saving_a_configuration_file_lints_the_open_documents_again(tmp_path):
    text = scored(["Returns Policy", "Shipping FAQ"], ["0.91", "0.72"])
    config = tmp_path / ".promptlint.yaml"
    config.write_text("ignore: []\n", encoding="utf-8")

    async def scenario(editor: Editor) -> None:
        prompt = editor.open("prompt.txt", text)
        assert [d.code for d in await editor.diagnostics(prompt)] == ["PL102", "PL102"]
        settings_uri = editor.open(".promptlint.yaml", "ignore: []\n", "yaml")
        await editor.diagnostics(settings_uri)
        before = editor.order.count(prompt)
        editor.change(settings_uri, "ignore: [PL102]\n")
        config.write_text("ignore: [PL102]\n", encoding="utf-8")
        editor.client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=settings_uri)))

        async def republished() -> None:
            while editor.order.count(prompt) == before:
                editor.arrived.clear()
                await editor.arrived.wait()

        await asyncio.wait_for(republished(), TIMEOUT)
        assert editor.published[prompt, 1] == []

    session(tmp_path, scenario)


def test_only_the_last_of_quick_edits_is_reported(tmp_path):
    scores = ["0.91", "0.72", "0.64", "0.5"]

    async def scenario(editor: Editor) -> None:
        uri = editor.open("prompt.txt", scored(["A Policy"], scores[:1]))
        await editor.diagnostics(uri)
        for count in range(2, len(scores) + 1):
            editor.change(uri, scored([f"Policy {n}" for n in range(count)], scores[:count]))
        final = await editor.diagnostics(uri)
        assert len(final) == len(scores)
        # What was sent is for the last version or an earlier one whose lint finished in time, never later.
        assert all(version <= editor.versions[uri] for _, version in editor.published)

    session(tmp_path, scenario)


def test_a_slow_file_does_not_hold_up_the_others(tmp_path):
    # Thousands of sources take the linter seconds; one takes it milliseconds.
    count = 4000
    large = scored([f"Policy {n}" for n in range(count)], [f"0.{n % 90 + 10}" for n in range(count)])
    small = scored(["Returns Policy"], ["0.91"])

    async def scenario(editor: Editor) -> None:
        slow = editor.open("large.txt", large)
        quick = editor.open("small.txt", small)
        assert [d.code for d in await editor.diagnostics(quick)] == ["PL102"]
        assert len(await editor.diagnostics(slow)) >= count
        assert editor.order == [quick, slow]

    session(tmp_path, scenario)


def test_a_failure_of_the_linter_is_one_diagnostic(tmp_path, monkeypatch):
    import promptlint.cli.server as server

    def broken(doc, config):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(server, "check_document", broken)
    linted = server.lint((tmp_path / "prompt.txt").as_uri(), "Answer.\n", 3, utf16)
    (problem,) = linted.diagnostics
    assert problem.message == f"{tmp_path / 'prompt.txt'}: promptlint failed on this file (RecursionError: maximum recursion depth exceeded); please report it"
    assert problem.severity == types.DiagnosticSeverity.Error
    assert (linted.version, linted.doc, linted.findings) == (3, None, [])


@pytest.mark.parametrize(("bom", "newline"), [("", "\n"), ("\ufeff", "\r\n"), ("\ufeff", "\n"), ("", "\r\n")])
def test_a_finding_is_placed_in_the_file_as_read_and_fixed_alone(bom, newline):
    from promptlint.engine.config import default_config
    from promptlint.engine.lint import check_document, fix_finding
    from promptlint.readers.document import parse_text

    scores = ["0.91", "0.72", "0.5"]
    text = bom + scored(["Returns 🙂 Policy", "Shipping FAQ", "Fees"], scores, newline)
    doc = parse_text(text, "prompt.txt", ".txt")
    findings = check_document(doc, default_config()).findings
    assert [text[doc.file_offset(f.line, f.column) : doc.file_offset(f.end_line, f.end_column)] for f in findings] == scores
    for finding, score in zip(findings, scores):
        assert fix_finding(doc, default_config(), finding) == text.replace(f"Relevance: {score}{newline}", "")
    # A finding of another text, or one without a fix, fixes nothing here.
    other = check_document(parse_text(scored(["Other"], ["0.33"]), "prompt.txt", ".txt"), default_config()).findings[0]
    assert fix_finding(doc, default_config(), other) is None
    assert fix_finding(doc, default_config(), dataclasses.replace(findings[0], fix=None)) is None


def test_exit_without_shutdown_exits_1(tmp_path):
    async def run() -> int:
        editor = Editor(tmp_path)
        await editor.start()
        editor.client.exit(None)
        code = await asyncio.wait_for(editor.client._server.wait(), TIMEOUT)
        await asyncio.wait_for(editor.client.stop(), TIMEOUT)
        return code

    assert asyncio.run(run()) == 1


def test_without_pygls_the_command_says_what_to_install(tmp_path):
    code = "import sys; sys.modules['pygls'] = None; sys.argv = ['promptlint', 'server']; from promptlint.cli.commands import main; main()"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=TIMEOUT)
    assert result.returncode == 2
    assert result.stderr == "Error: promptlint server needs pygls: pip install 'promptlint-rag[server]'\n"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "é", "🙂", " ", "\n", "\r\n", "\r", "𝔉"]), max_size=30).map("".join),
    st.lists(st.sampled_from(["a", "é", "🙂", " ", "\n", "\r\n", "\r", "𝔉"]), max_size=30).map("".join),
)
def test_edits_turn_the_old_text_into_the_new(old, new):
    edits = text_edits(old, new, Positions(old, utf16))
    assert apply(old, edits) == new
