"""Source code: Python, JavaScript and TypeScript files, read for the prompt templates they hold
(see pysource and jssource for which strings those are)."""

from __future__ import annotations

import re
import sys
from dataclasses import replace

from ..model.lines import line_column, line_starts
from ..model.prompt import Syntax
from .document import Document, DocumentKind, Input, Prompt, syntax_error
from .sourcemap import Anchored, Escaped, Pieces, SourceMap, Verbatim


def read_python(file: Input) -> Document:
    """A Python file: each prompt template found in it is one prompt."""
    from .pysource import PythonSyntaxError, templates_in

    try:
        found = templates_in(file.raw, file.lexicon)
    except PythonSyntaxError as exc:
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        if exc.newer:
            # Valid newer Python that could not be rewritten in place (see pyversions): not the
            # file's error, so no PL900; the user is told the file was not read.
            return file.document(DocumentKind.PYTHON, unread=[f"not read: line {exc.line} uses syntax newer than Python {version} that could not be read ({exc.message})"])
        if _newer_fstring(file.raw, exc.line):
            # Without tree-sitter to tell (see pyversions), an f-string near the error may be one
            # Python 3.12 allows (PEP 701: quotes and backslashes in its fields).
            return file.document(DocumentKind.PYTHON, unread=[f"not read: line {exc.line} may use f-string syntax of Python 3.12, which Python {version} cannot parse ({exc.message})"])
        return file.document(DocumentKind.PYTHON, errors=[syntax_error(file.display, f"invalid Python: {exc.message}", exc.line, exc.column)])
    return _code_document(file, DocumentKind.PYTHON, found)


# An f-string opening: `f"`, `rf'`, `F"""`.
_FSTRING = re.compile(r"(?i)(?<![\w])(?:rf|fr|f)['\"]")


def _newer_fstring(raw: str, line: int) -> bool:
    """Whether a parse error may be an f-string written as Python 3.12 allows, which an older
    Python refuses: an f-string opens on the error's line or the few lines before it."""
    from .pyversions import has_grammar

    if sys.version_info >= (3, 12) or has_grammar():
        return False  # this Python, or the grammar, has told newer syntax from an error
    lines = raw.split("\n")[max(0, line - 6) : line]
    return any(_FSTRING.search(text) for text in lines)


def read_javascript(file: Input) -> Document:
    """A JavaScript or TypeScript file: each prompt found in it is one prompt (see jssource)."""
    from .jsscan import JsSyntaxError, reads_jsx
    from .jssource import templates_in

    try:
        found = templates_in(file.raw, file.lexicon, jsx=reads_jsx(file.suffix))
    except JsSyntaxError as exc:
        language = "TypeScript" if "ts" in file.suffix else "JavaScript"
        line, column = line_column(line_starts(file.raw), exc.offset)
        return file.document(DocumentKind.JAVASCRIPT, errors=[syntax_error(file.display, f"invalid {language}: {exc.message}", line, column)])
    return _code_document(file, DocumentKind.JAVASCRIPT, found)


def _code_document(file: Input, kind: DocumentKind, found: list) -> Document:
    """The document of a source file from the templates its reader found (pysource.PyTemplate)."""
    from .jinja import parses

    prompts = []
    for template in found:
        syntax = template.syntax if template.syntax == Syntax.TEXT or parses(template.text) else Syntax.TEXT
        loop, hosts = template.loop, ()
        if loop is not None and (printed := _printed(loop.into, found)):
            # The prompt that prints the items' text holds these sources, and the others are likely the rest of
            # its request (its system message).
            loop, hosts = replace(loop, printed=printed), tuple(t.text for t in found if t.loop is None)
        prompts.append(Prompt((template.text,), _code_source(template, kind, file), syntax=syntax, loop=loop, names=template.bound, hosts=hosts))
    return file.document(kind, prompts)


# A slot of a code string: `{context}`, `${context}`, `{{ context }}`, `{"\n".join(parts)}`.
_SLOT = re.compile(r"\{[^{}\n]*\}")


def _printed(names: tuple[str, ...], found: list) -> tuple[str, ...]:
    """Those of ``names`` that a slot of the file's prompts not built per item prints (`context = "\\n".join(...)`,
    then `f"Context: {context}"`; `def get_context(...)`, then `{get_context(q)}`)."""
    if not names:
        return ()
    slots = "\n".join(slot[0] for t in found if t.loop is None for slot in _SLOT.finditer(t.text))
    return tuple(n for n in names if re.search(rf"\b{re.escape(n)}\b", slots))


def _code_source(template, kind: DocumentKind, file: Input) -> SourceMap:
    """A code string stands in the file verbatim, or through its escapes, or (an f-string) not at all."""
    if template.origin:
        return Verbatim(*template.origin)
    if template.offsets:
        return Escaped(template.offsets, kind.value, file.lexicon)
    if template.pieces:
        return Pieces(template.pieces)
    return Anchored(template.line, template.column)
