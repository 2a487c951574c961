"""The comments of a Python or JavaScript/TypeScript file, and the line each statement starts on.

What the suppression stage needs to read `# promptlint: ...` and `// promptlint: ...`
directives in code: a comment is found by the language's own tokens (Python's
`tokenize`, the JavaScript scanner), so the same text inside a string is never one.
A string's statement is where a directive on the line above it applies.
"""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from dataclasses import dataclass

from ..model.lines import line_column, line_starts
from .jsscan import JsSyntaxError, tokens

# Before one of these a line break ends a statement, whatever the line above ended with
# (JavaScript's automatic semicolons); the grammar of the language, not words of a prompt.
_JS_STATEMENT_WORDS = frozenset({"const", "let", "var", "function", "class", "return", "export", "import", "if", "for", "while", "switch", "throw", "type", "interface", "async", "await"})
# After these a `{` opens a block (a statement list), not an object literal.
_JS_BLOCK_AFTER = frozenset({")", "=>", "else", "try", "finally", "do", ";", "{", "}"})
_JS_COMMENT = re.compile(r"//(?P<line>[^\n]*)|/\*(?P<block>(?:[^*]|\*(?!/))*)\*/")


@dataclass(frozen=True)
class Comment:
    start: int  # file offsets, from `#`, `//` or `/*` to the comment's end
    end: int
    inner: str  # the text after `#` or `//`, or between `/*` and `*/`


@dataclass(frozen=True)
class CodeLayout:
    comments: tuple[Comment, ...]
    statements: tuple[int, ...]  # the 0-based line of each statement's start, ascending

    def statement_line(self, line: int) -> int:
        """The line (0-based) of the statement that holds a string starting on ``line``."""
        at = bisect.bisect_right(self.statements, line) - 1
        return self.statements[at] if at >= 0 else line


def layout(raw: str, language: str, jsx: bool = False) -> CodeLayout:
    """The comments and statement lines of a file of ``language`` ("python" or "javascript");
    none when its tokens cannot be read (the reader reports that file as it is)."""
    try:
        return _python(raw) if language == "python" else _javascript(raw, jsx)
    except (tokenize.TokenError, SyntaxError, JsSyntaxError):
        return CodeLayout((), ())


def _python(raw: str) -> CodeLayout:
    comments, statements = [], []
    starts = line_starts(raw)
    new_statement = True
    for token in tokenize.generate_tokens(io.StringIO(raw).readline):
        if token.type == tokenize.COMMENT:
            start = starts[token.start[0] - 1] + token.start[1]
            comments.append(Comment(start, start + len(token.string), token.string[1:]))
        elif token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            new_statement = True
        elif token.type not in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT) and new_statement:
            statements.append(token.start[0] - 1)
            new_statement = False
    return CodeLayout(tuple(comments), tuple(statements))


def _javascript(raw: str, jsx: bool) -> CodeLayout:
    found = tokens(raw, jsx)
    starts = line_starts(raw)
    comments, statements = [], []
    gap = 0  # comments are the text between tokens
    for index, token in enumerate(found):
        comments.extend(_js_comments(raw, gap, token.start))
        line = line_column(starts, token.start)[0] - 1
        if index == 0 or _starts_statement(found, index, line, starts):
            statements.append(line)
        gap = token.end
    comments.extend(_js_comments(raw, gap, len(raw)))
    return CodeLayout(tuple(comments), tuple(sorted(set(statements))))


def _js_comments(raw: str, start: int, end: int) -> list[Comment]:
    return [Comment(m.start(), m.end(), m["line"] if m["line"] is not None else m["block"]) for m in _JS_COMMENT.finditer(raw, start, end)]


def _starts_statement(found: list, index: int, line: int, starts: list[int]) -> bool:
    """Whether token ``index`` (on ``line``) starts a statement: after a `;`, in a block just
    opened, after a block's `}` that ends its line, or a statement's word after a line break."""
    token, before = found[index], found[index - 1]
    if before.text == ";":
        return True
    after_line_break = line_column(starts, before.end)[0] - 1 < line
    if token.kind == "name" and token.text in _JS_STATEMENT_WORDS and after_line_break and before.text != ".":
        return True
    if before.text == "}":
        return after_line_break
    return before.text == "{" and (index < 2 or found[index - 2].text in _JS_BLOCK_AFTER)
