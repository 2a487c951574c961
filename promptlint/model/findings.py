"""What a rule reports: a finding, its fix, and the edits that make up a fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from .prompt import Span


class Applicability(IntEnum):
    """How safe a fix is; ordered so that a threshold selects what to apply."""

    DISPLAY = 0  # shown as a suggestion, never applied
    UNSAFE = 1  # applied with --unsafe-fixes: it changes what the model is told
    SAFE = 2  # applied with --fix: removes only what the model should not see


@dataclass(frozen=True)
class Edit:
    span: Span
    replacement: str = ""


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    edits: tuple[Edit, ...]
    description: str


class Severity(IntEnum):
    INFO = 0  # advisory: worth a look, not an error
    WARNING = 1
    ERROR = 2


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    message: str
    span: Span
    severity: Severity = Severity.WARNING
    tokens: int = 0  # tokens the offending text costs
    fix: Fix | None = None
    path: str = ""
    # Set when the prompt is one of several in a file (chat messages, JSONL records).
    context: str = ""
    # Resolved at the edge, once, from the span.
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0
    # Where each edit of the fix stands in the file, (line, column, end line, end column), when
    # the fix applies to the file text as it is (not inside JSON strings): for SARIF.
    fix_regions: tuple[tuple[int, int, int, int], ...] = ()
    # What makes two findings one cause, as a short digest: the rule, the message, the text flagged,
    # where it stands in its prompt, and that prompt's whole text (a template copied into several
    # files is one cause). "" for a finding of the file itself (a syntax error), never one cause.
    # Derived from what is compared already, so it takes no part in equality.
    cause: str = field(default="", compare=False)
