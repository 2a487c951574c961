"""`promptlint server`: findings, fixes and rule documentation in an editor, over the Language Server Protocol.

The server lints the text the editor holds, as `check` lints a file: the config of
the file's folder (found as `check` finds it), the same suppressions, the same fixes.
It never renders a template. Each document is linted off the event loop, in a
thread, so a slow file does not hold up the others or the requests; a result for a
version the editor has since replaced is dropped, as a newer one is on its way.
Typing is linted once it pauses (``debounce``); opening and saving at once.

Documents are synchronised whole (not by incremental changes): the editor's text is
then exactly what the server lints, whatever line separators it holds (an
incremental change is placed by lines, and Python and the protocol do not agree on
what ends a line).

Findings are placed in the text the rules read (no BOM, LF newlines); here they are
placed once more, in the text as the editor holds it, where a column counts the code
units the client asked for (UTF-16 unless it chose another encoding).
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import logging
import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version as installed_version
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import DISTRIBUTION
from ..engine.formatting import format_document
from ..engine import registry
from ..engine.config import CONFIG_NAMES, Config, ConfigError, Resolver
from ..engine.lint import check_document, fix_finding
from ..model.findings import Applicability, Finding, Severity
from ..output.report import plural
from ..readers import document as documents
from . import docs

logger = logging.getLogger(__name__)

SOURCE = "promptlint"
FIX_ALL = types.CodeActionKind.SourceFixAll
FORMAT = f"{types.CodeActionKind.Source.value}.format.promptlint"
SEVERITIES = {Severity.INFO: types.DiagnosticSeverity.Information, Severity.WARNING: types.DiagnosticSeverity.Warning, Severity.ERROR: types.DiagnosticSeverity.Error}
# Lints at once: a slow file takes one thread, the others go on in the rest.
THREADS = 4
_LINE_BREAK = re.compile(r"\r\n|\n|\r")  # what ends a line for the protocol


class Positions:
    """Protocol positions in a text as the editor holds it.

    Lines end at \\r\\n, \\n or \\r; a column counts ``units`` of the line's text before
    it (UTF-16 code units by default: a character outside the Basic Multilingual Plane,
    an emoji, counts two).
    """

    def __init__(self, text: str, units: Callable[[str], int]):
        self.text = text
        self.units = units
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def position(self, offset: int) -> types.Position:
        line = bisect.bisect_right(self.starts, offset) - 1
        return types.Position(line=line, character=self.units(self.text[self.starts[line] : offset]))

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(self.position(start), self.position(end))


@dataclasses.dataclass
class Linted:
    """One version of a document, linted: what its diagnostics, fixes and hovers are made from."""

    version: int | None
    positions: Positions
    diagnostics: list[types.Diagnostic]
    doc: documents.Document | None = None  # None when the text could not be linted
    config: Config | None = None
    findings: list[Finding] = dataclasses.field(default_factory=list)  # one for each diagnostic, in order
    # Source actions (fix all, format) computed for this version: the editor asks at each cursor move.
    actions: dict[str, list[types.TextEdit] | None] = dataclasses.field(default_factory=dict)


def path_of(uri: str) -> Path:
    """The file a document is; an unsaved one is named by its URI, in the current folder (for its config)."""
    path = to_fs_path(uri)
    if path is not None:
        return Path(path)
    return Path.cwd() / (Path(unquote(urlparse(uri).path)).name or "untitled")


def lint(uri: str, text: str, version: int | None, units: Callable[[str], int]) -> Linted:
    """The document linted as `check` lints its file; what stops that is one diagnostic, never an exception."""
    positions = Positions(text, units)
    path = path_of(uri)
    try:
        config = Resolver().for_folder(path.parent)
        doc = documents.parse_text(text, str(path), config.suffix_for(path), config.lexicon)
        findings = check_document(doc, config).findings
        diagnostics = [diagnostic(f, doc, positions) for f in findings]
    except (ConfigError, documents.UnreadableFile) as exc:
        return Linted(version, positions, [_problem(str(exc))])
    except Exception as exc:  # a bug must cost one file its findings, not the editor its server
        logger.exception("linting %s failed", path)
        return Linted(version, positions, [_problem(f"{path}: promptlint failed on this file ({type(exc).__name__}: {exc}); please report it")])
    return Linted(version, positions, diagnostics, doc, config, findings)


def _problem(message: str) -> types.Diagnostic:
    return types.Diagnostic(range=types.Range(types.Position(0, 0), types.Position(0, 0)), message=message, severity=types.DiagnosticSeverity.Error, source=SOURCE)


def finding_range(finding: Finding, doc: documents.Document, positions: Positions) -> types.Range:
    return positions.range(doc.file_offset(finding.line, finding.column), doc.file_offset(finding.end_line, finding.end_column))


def diagnostic(finding: Finding, doc: documents.Document, positions: Positions) -> types.Diagnostic:
    rule = registry.get(finding.code)
    cost = f" (costs {plural(finding.tokens, 'token')})" if finding.tokens else ""
    return types.Diagnostic(
        range=finding_range(finding, doc, positions),
        message=f"[{finding.name}] {finding.message}{cost}",
        severity=SEVERITIES[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=docs.reference_uri(rule)) if rule else None,
        source=SOURCE,
        data={"name": finding.name, "tokens": finding.tokens, "fix": finding.fix.applicability.name.lower() if finding.fix else None},
    )


def text_edits(old: str, new: str, positions: Positions) -> list[types.TextEdit]:
    """The edit that turns the editor's text ``old`` into ``new``: what lies between the
    text they share at the start and at the end (none when they are equal).

    One edit, found in linear time: a line diff took minutes on a file of thousands of
    sources, and an editor applies one edit as well as many.
    """
    if old == new:
        return []
    head = len(os.path.commonprefix([old, new]))
    tail = len(os.path.commonprefix([old[head:][::-1], new[head:][::-1]]))
    # A position inside a \r\n is none the protocol knows: the edit starts or ends beside it.
    if head and old[head - 1 : head + 1] == "\r\n":
        head -= 1
    if tail and old[len(old) - tail - 1 : len(old) - tail + 1] == "\r\n":
        tail -= 1
    return [types.TextEdit(range=positions.range(head, len(old) - tail), new_text=new[head : len(new) - tail])]


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def fix_actions(linted: Linted, wanted: types.Range, edit: Callable) -> list[types.CodeAction]:
    """A quick fix for each fix of a finding in ``wanted``; one for the findings that share one."""
    actions, seen = [], set()
    for finding, diag in zip(linted.findings, linted.diagnostics):
        fix = finding.fix
        if fix is None or fix.applicability < Applicability.UNSAFE or id(fix) in seen or not _overlaps(diag.range, wanted):
            continue
        seen.add(id(fix))
        fixed = fix_finding(linted.doc, linted.config, finding)
        if fixed is None:
            continue
        safe = fix.applicability == Applicability.SAFE
        covered = [d for f, d in zip(linted.findings, linted.diagnostics) if f.fix is fix]
        actions.append(
            types.CodeAction(
                title=f"Fix {finding.code}: {fix.description}{'' if safe else ' (unsafe)'}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=covered,
                is_preferred=safe,
                edit=edit(text_edits(linted.positions.text, fixed, linted.positions)),
            )
        )
    return actions


def source_edits(linted: Linted, kind: str) -> list[types.TextEdit] | None:
    """The edits of a source action (fix all safe fixes, format) on this version; None when it changes nothing."""
    if kind not in linted.actions:
        if kind == FIX_ALL:
            result = check_document(linted.doc, linted.config, Applicability.SAFE)
            fixed = result.fixed if result.error is None else None
        else:
            fixed = format_document(linted.doc, linted.config).text
        linted.actions[kind] = text_edits(linted.positions.text, fixed, linted.positions) if fixed is not None else None
    return linted.actions[kind]


def _wanted(kind: str, only: list[str] | None) -> bool:
    """Whether the client asked for actions of ``kind``: none named, or one it falls under."""
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)


def hover_text(finding: Finding) -> str:
    rule = registry.get(finding.code)
    head = f"**{finding.code}** `{finding.name}`: {finding.message}"
    return f"{head}\n\n{rule.doc}" if rule else head


class Session:
    """The server's state: the documents linted, the lints waiting for typing to pause, and the threads."""

    def __init__(self, server: LanguageServer, debounce: float):
        self.server = server
        self.debounce = debounce
        self.linted: dict[str, Linted] = {}
        self.waiting: dict[str, asyncio.Task] = {}
        self.pool = ThreadPoolExecutor(THREADS, thread_name_prefix="promptlint")
        self.shut_down = False

    def open_document(self, uri: str):
        """The editor's document, or None once it is closed."""
        return self.server.workspace.text_documents.get(unquote(uri))

    def schedule(self, uri: str, delay: float) -> None:
        """Lint the document after ``delay`` seconds; a lint already waiting for it is dropped."""
        waiting = self.waiting.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        self.waiting[uri] = asyncio.get_running_loop().create_task(self._lint_after(uri, delay))

    async def _lint_after(self, uri: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        document = self.open_document(uri)
        if document is None:
            return
        version, units = document.version, self.server.workspace.position_codec.client_num_units
        linted = await asyncio.get_running_loop().run_in_executor(self.pool, lint, uri, document.source, version, units)
        current = self.open_document(uri)
        if current is None or current.version != version:
            return  # closed, or edited meanwhile: that edit's lint publishes
        self.linted[uri] = linted
        self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=linted.diagnostics, version=version))

    def saved(self, uri: str) -> None:
        """Lint the saved document now; a saved configuration file may change every open document's findings, so lint them all."""
        if path_of(uri).name in CONFIG_NAMES:
            for other in set(self.linted) | set(self.waiting):  # as the editor names them
                self.schedule(other, 0)
        self.schedule(uri, 0)

    def close(self, uri: str) -> None:
        waiting = self.waiting.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        self.linted.pop(uri, None)
        self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def current(self, uri: str) -> Linted | None:
        """The lint of the document as the editor holds it now; None while a newer one is pending."""
        linted, document = self.linted.get(uri), self.open_document(uri)
        if linted is None or document is None or linted.version != document.version:
            return None
        return linted

    def workspace_edit(self, uri: str, version: int | None) -> Callable[[list[types.TextEdit]], types.WorkspaceEdit]:
        """How an action's edits are sent: tied to the document's version when the client allows, so a stale one is refused."""
        capabilities = self.server.client_capabilities.workspace
        versioned = capabilities is not None and capabilities.workspace_edit is not None and capabilities.workspace_edit.document_changes

        def edit(edits: list[types.TextEdit]) -> types.WorkspaceEdit:
            if versioned:
                return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits)])
            return types.WorkspaceEdit(changes={uri: edits})

        return edit

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri, only = params.text_document.uri, params.context.only
        linted = self.current(uri)
        if linted is None or linted.doc is None:
            return []
        edit = self.workspace_edit(uri, linted.version)
        loop = asyncio.get_running_loop()
        actions = []
        if _wanted(types.CodeActionKind.QuickFix, only):
            actions += await loop.run_in_executor(self.pool, fix_actions, linted, params.range, edit)
        for kind, title in ((FIX_ALL, "Fix all safe fixes in this file"), (FORMAT, "Format the sources (promptlint format)")):
            if not _wanted(kind, only):
                continue
            edits = await loop.run_in_executor(self.pool, source_edits, linted, kind)
            if edits:
                actions.append(types.CodeAction(title=title, kind=kind, edit=edit(edits)))
        return actions

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        linted = self.current(params.text_document.uri)
        if linted is None:
            return None
        at = types.Range(params.position, params.position)
        found = [(f, d) for f, d in zip(linted.findings, linted.diagnostics) if _overlaps(d.range, at)]
        if not found:
            return None
        text = "\n\n---\n\n".join(hover_text(f) for f, _ in found)
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=found[0][1].range)

    def shutdown(self) -> None:
        self.shut_down = True
        for task in self.waiting.values():
            task.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)


def build(debounce: float) -> tuple[LanguageServer, Session]:
    server = LanguageServer(SOURCE, installed_version(DISTRIBUTION), text_document_sync_kind=types.TextDocumentSyncKind.Full)
    session = Session(server, debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        session.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        session.schedule(params.text_document.uri, session.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        session.saved(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        session.close(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL, FORMAT]))
    async def code_action(ls: LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return await session.code_actions(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: LanguageServer, params: types.HoverParams) -> types.Hover | None:
        return session.hover(params)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: LanguageServer, params: None) -> None:
        session.shutdown()

    return server, session


def serve(debounce: float) -> bool:
    """Serve on standard input and output until the client says exit; whether it asked to shut down first."""
    server, session = build(debounce)
    server.start_io()
    return session.shut_down
