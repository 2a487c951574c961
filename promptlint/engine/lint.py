"""Run the selected rules over a prompt, a text, or a whole file, and fix.

This is the pipeline: load -> segment -> check -> suppress -> fix. It touches no files;
the CLI reads and writes them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..model.findings import Applicability, Finding, Fix
from ..model.prompt import Prompt, Syntax
from ..readers import document as documents
from ..readers.bodysources import body_sources
from ..readers.retrieved import retrieved_sources
from ..readers.segment import segment_text, words
from .config import Config, default_config
from ..rules._context import RuleContext
from .baseline import digest
from .fix import FixDidNotConverge, apply_fixes, fix_loop


_contexts: tuple[Config, list[RuleContext]] | None = None


def _rule_contexts(config: Config) -> list[RuleContext]:
    """What each selected rule of ``config`` receives beside the prompt. It is the config's alone,
    so it is built once for the prompts linted with the same config in a row (an audit's records,
    a folder's files), not once a prompt; the config is held, so that another is never taken for it."""
    global _contexts
    if _contexts is None or _contexts[0] is not config:
        _contexts = (config, [RuleContext(rule, config.rule_options(rule), config.today, config.lexicon) for rule in config.selected])
    return _contexts[1]


def lint_prompt(prompt: Prompt, config: Config, *, template: bool = False) -> list[Finding]:
    """The findings of the selected rules; in a template, less those its directives suppress."""
    findings: list[Finding] = []
    for context in _rule_contexts(config):
        findings.extend(context.rule.check(prompt, context))
    if template:
        # Only a template has directives: Jinja drops its comments, so they never reach the model.
        from .suppress import apply_suppressions

        findings = apply_suppressions(prompt, findings, config)
    # Still reported, but --fix must leave it: the user has said so; or the text is in another file.
    findings = [f if f.fix is None or (f.code in config.fixable and prompt.may_edit(f.span, f.fix.edits)) else dataclasses.replace(f, fix=None) for f in findings]
    return sorted(findings, key=lambda f: (f.span.start, f.code))


def _segment(piece: documents.Prompt, text: str, config: Config, includes) -> Prompt:
    prompt = _segment_by_kind(piece, text, config, includes)
    bound = frozenset(name for name, kind in piece.names if kind == "rewritten")
    prompt = dataclasses.replace(prompt, rewrites_bound_by_code=bound) if bound else prompt
    return dataclasses.replace(prompt, hosts=piece.hosts) if piece.hosts else prompt


def _segment_by_kind(piece: documents.Prompt, text: str, config: Config, includes) -> Prompt:
    # The kinds the code around a prompt gives its slots (a question slot filled with a rewrite) come after the config's.
    names = config.slot_names + piece.names
    if piece.loop is not None:
        return _wrapper_reader(piece.loop).segment_wrapper(text, piece.loop, names, config.lexicon)
    if piece.syntax == Syntax.JINJA:
        from ..readers.jinja import segment_jinja

        return segment_jinja(text, names, includes, config.lexicon)
    piece = piece.with_text(text)
    vocab = words(names, config.lexicon)
    known = body_sources(text, piece.chats, piece.message_spans, vocab) if piece.chats else []
    if piece.retrieved and not known:
        known = retrieved_sources(text, piece.retrieved, piece.message_spans, vocab)
    return segment_text(text, piece.messages(), names, config.lexicon, known)


def segment_document(doc: documents.Document, config: Config) -> list[Prompt]:
    """The prompt model of each prompt of ``doc``, as the rules receive it.

    The same segmenting ``check_document`` does before it runs the rules, without
    running them: what the reader snapshots (tests/snapshots/readers/) record.
    """
    includes = _includes(doc, config)
    return [_segment(piece, piece.text, config, includes) for piece in doc.prompts]


def _wrapper_reader(loop):
    """The reader of the code that builds a per-item string: it reads the string's fields again after a fix."""
    if loop.language == "javascript":
        from ..readers import jssource as reader
    else:
        from ..readers import pybuild as reader
    return reader


def _includes(doc: documents.Document, config: Config):
    """The reader of the files a template in ``doc`` includes; None when it has no template or no file."""
    if not any(p.syntax == Syntax.JINJA for p in doc.prompts) or not Path(doc.path).is_file():
        return None
    from ..readers.includes import Includes, project_root

    return Includes(Path(doc.path), project_root(Path(doc.path), config.folder))


def _valid(doc: documents.Document, index: int):
    """A check every fixed text must pass: a fixed template must still parse, and a text whose
    source map says so (a YAML scalar, a translation) must read back exactly."""
    piece = doc.prompts[index]
    parses = None
    if piece.loop is not None:
        def parses(text: str) -> bool:
            return _wrapper_reader(piece.loop).still_parses(text, piece.loop)
    elif piece.syntax == Syntax.JINJA:
        from ..readers.jinja import parses
    if not piece.source.reread:
        return parses
    return lambda text: (parses is None or parses(text)) and doc.writes_back(index, text)


def _code_suppressions(doc: documents.Document):
    """The directives in the comments of a code file; None for any other file, or one without any."""
    if doc.kind not in (documents.DocumentKind.PYTHON, documents.DocumentKind.JAVASCRIPT) or not doc.prompts:
        return None
    from ..readers.jsscan import reads_jsx
    from .suppress import code_suppressions

    return code_suppressions(doc.raw, doc.kind.value, jsx=reads_jsx(doc.suffix))


def _lint_piece(doc: documents.Document, index: int, text: str, config: Config, includes=None, code=None) -> list[Finding]:
    piece = doc.prompts[index]
    found = lint_prompt(_segment(piece, text, config, includes), config, template=piece.syntax == Syntax.JINJA)
    if code is not None:
        # A directive in code covers the string where it stands in the file as read.
        found = code.apply(tuple(doc.locate(piece, at)[0] - 1 for at in (0, len(piece.text))), found)
    valid = _valid(doc, index) if piece.source.reread else None
    # The messages of a chat prompt are where they stand in this text (a fix loop's later pass has moved them).
    piece = piece.with_text(text)
    return [f if f.fix is None or _offered(piece, text, f.fix, valid) else dataclasses.replace(f, fix=None) for f in found]


def _offered(piece: documents.Prompt, text: str, fix: Fix, valid) -> bool:
    """One policy for every fix: it is offered only when the prompt's source map says its edit
    can be written back: never into a text not in the file verbatim, never across two chat
    messages, and, where the map must read the file back (YAML, a translation), only if it does."""
    if not piece.source.editable:
        return False
    if not fix.edits:
        return True
    return piece.source.fits(piece, fix.edits) and (valid is None or valid(apply_fixes(text, [fix])[0]))


@dataclasses.dataclass(frozen=True)
class FileResult:
    path: str
    findings: list[Finding]
    fixed: str | None = None  # the new file text, when fixing changed it
    error: str | None = None  # a one-line reason the file was not fixed
    fixed_findings: int = 0  # how many findings the fixes applied resolved (what check counts as fixable)
    # The other files the findings depend on (included templates) -> a digest of their bytes.
    depends: dict[str, str] = dataclasses.field(default_factory=dict)


def check_document(doc: documents.Document, config: Config, fix: Applicability | None = None) -> FileResult:
    """Lint every prompt of a document; with ``fix``, also return the fixed file text."""
    config = config.for_file(doc.path)
    # A file that does not parse was not checked: report it whatever rules are
    # selected, or a narrow --select would pass a broken file as clean.
    findings = list(doc.errors)
    new_pieces = []
    error = None
    includes = _includes(doc, config)
    code = _code_suppressions(doc)
    fixed_findings = 0  # the findings the fixes applied resolved
    for index, piece in enumerate(doc.prompts):
        text = piece.text
        if fix is not None:
            try:
                text, resolved = fix_loop(text, lambda t, i=index: _lint_piece(doc, i, t, config, includes, code), fix, _valid(doc, index))
                fixed_findings += resolved
            except FixDidNotConverge as exc:
                error = f"{doc.path}: {exc}; the file was left as it was"
                text = piece.text
        remaining = _lint_piece(doc, index, text, config, includes, code)
        fixed_piece = piece.with_text(text)
        placed: dict[int, tuple] = {}
        prompt = digest(text) if remaining else ""
        findings.extend(_place(doc, fixed_piece, f, placed, prompt) for f in remaining)
        new_pieces.append(fixed_piece)
    if code is not None:
        findings.extend(code.reports(doc.path, config))
    fixed = None
    if fix is not None and error is None:
        new_raw = doc.with_prompts(new_pieces)
        if new_raw != doc.original:
            fixed = new_raw
            # What remains is reported where it stands in the fixed file, not the original.
            fixed_doc = documents.parse_text(new_raw, doc.path, config.suffix_for(doc.path), config.lexicon)
            findings = check_document(fixed_doc, config).findings
    if fixed is None:
        fixed_findings = 0
    depends = dict(includes.digests) if includes else {}
    return FileResult(doc.path, sorted(_distinct(findings), key=lambda f: (f.line, f.column, f.code)), fixed, error, fixed_findings, depends)


def _distinct(findings: list[Finding]) -> list[Finding]:
    """The findings less those that say the same of the same place: two prompts read over one piece of code
    (a loop's text, and the text it adds to) find its field once each, and a user reads one cause."""
    seen: set[tuple] = set()
    kept = []
    for f in findings:
        key = (f.code, f.message, f.context, f.line, f.column, f.end_line, f.end_column)
        if key not in seen:
            seen.add(key)
            kept.append(f)
    return kept


def prompt_findings(doc: documents.Document, index: int, text: str, config: Config) -> list[Finding]:
    """The findings of prompt ``index`` of ``doc`` were its text ``text``, where the prompt stands in its text."""
    config = config.for_file(doc.path)
    return _lint_piece(doc, index, text, config, _includes(doc, config))


def fix_sources(doc: documents.Document, index: int, config: Config, fix: Applicability) -> str:
    """The text of prompt ``index`` of ``doc`` with the fixes `check --fix` applies inside its
    sources block, and no other: what `format` applies before it lays the block out.

    The text as read when the fixes do not settle (check reports that; format only lays out).
    """
    config = config.for_file(doc.path)
    includes = _includes(doc, config)
    piece = doc.prompts[index]

    def lint_pass(text: str) -> list[Finding]:
        block = _segment(piece, text, config, includes).sources_block
        found = _lint_piece(doc, index, text, config, includes)
        # An edit that starts in the block may take the line break after it.
        return [f for f in found if f.fix is not None and block is not None and all(block.start <= e.span.start <= block.end for e in f.fix.edits)]

    try:
        return fix_loop(piece.text, lint_pass, fix, _valid(doc, index))[0]
    except FixDidNotConverge:
        return piece.text


def fix_finding(doc: documents.Document, config: Config, finding: Finding) -> str | None:
    """The file's text with only ``finding``'s fix applied (a finding check_document reported
    for ``doc``); None when it has no fix, no longer stands there, or the fixed text would not parse."""
    if finding.fix is None or not finding.fix.edits:
        return None
    config = config.for_file(doc.path)
    includes = _includes(doc, config)
    code = _code_suppressions(doc)
    for index, piece in enumerate(doc.prompts):
        placed: dict[int, tuple] = {}
        prompt = digest(piece.text)
        if finding not in (_place(doc, piece, f, placed, prompt) for f in _lint_piece(doc, index, piece.text, config, includes, code)):
            continue
        text, applied = apply_fixes(piece.text, [finding.fix], _valid(doc, index))
        if not applied:
            return None
        pieces = list(doc.prompts)
        pieces[index] = piece.with_text(text)
        return doc.with_prompts(pieces)
    return None


def _place(doc: documents.Document, piece: documents.Prompt, finding: Finding, placed: dict[int, tuple], prompt: str) -> Finding:
    """The finding where it stands in the file, with its cause; ``placed`` holds the regions of the
    piece's fixes placed so far, ``prompt`` is a digest of the piece's text.

    Findings that share a fix (PL201 has one for all the dates) share its regions:
    placing them per finding made memory grow with the square of the findings.
    """
    line, column = doc.locate(piece, finding.span.start)
    end_line, end_column = doc.locate(piece, finding.span.end)
    regions = ()
    if finding.fix is not None and piece.chats is None:
        if id(finding.fix) not in placed:
            placed[id(finding.fix)] = tuple((*doc.locate(piece, e.span.start), *doc.locate(piece, e.span.end)) for e in finding.fix.edits)
        regions = placed[id(finding.fix)]
    context = doc.context(piece, finding.span.start)
    span = finding.span
    cause = digest(finding.code, finding.message, piece.text[span.start : span.end], f"{span.start}:{span.end}", context, prompt)
    return dataclasses.replace(
        finding,
        fix_regions=regions,
        path=doc.path,
        line=line,
        column=column,
        end_line=end_line,
        end_column=end_column,
        context=context,
        cause=cause,
    )


def lint_text(text: str, *, path: str | None = None, config: Config | None = None) -> list[Finding]:
    """Findings for a prompt given as text (``path`` picks the format by its suffix)."""
    config = config or default_config()
    name = path or "<text>"
    doc = documents.parse_text(text, name, config.suffix_for(name), config.lexicon)
    return check_document(doc, config).findings


def fix_text(text: str, *, path: str | None = None, config: Config | None = None, unsafe: bool = False) -> str:
    """The text with every safe fix (and with ``unsafe``, every unsafe one) applied."""
    config = config or default_config()
    name = path or "<text>"
    doc = documents.parse_text(text, name, config.suffix_for(name), config.lexicon)
    result = check_document(doc, config, Applicability.UNSAFE if unsafe else Applicability.SAFE)
    return result.fixed if result.fixed is not None else text
