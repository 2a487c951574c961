"""What a rule is, as the engine holds it: its metadata, its documentation and its check."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from .findings import Finding, Severity

# Where the documentation site is published (mkdocs.yml's site_url; a test keeps the two equal):
# SARIF's helpUri and the audit page link each rule to its page under it.
DOCS_URL = "https://promptlint-rag.readthedocs.io/en/latest/"


class FixKind(str, Enum):
    """What fixes a rule offers (a str, so it reads and prints as its value)."""

    NONE = "none"
    SAFE = "safe"
    UNSAFE = "unsafe"
    SAFE_OR_UNSAFE = "safe/unsafe"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    severity: Severity
    fix: FixKind  # what fixes it offers
    default: bool  # selected when the config says nothing
    options: dict  # option name -> default value
    doc: str
    vocabulary: str | None  # the rule's name when it has a word list, rules/<name>.yaml
    check: Callable[..., Iterable[Finding]]
    needs: str = ""  # the option without which it reports nothing, when it has one
    effect: str = ""  # the reference chapter's measured effect of what it flags, in a few words

    @property
    def help_uri(self) -> str:
        """The rule's page on the documentation site."""
        return f"{DOCS_URL}rules/{self.code}/"

    @property
    def default_text(self) -> str:
        """Whether it runs by default, as the rule lists and docs say it: "on", "off", or on but silent until its option is set."""
        if not self.default:
            return "off"
        return f"on, silent until `{self.needs}` is set" if self.needs else "on"

    @property
    def default_sentence(self) -> str:
        """The same as a sentence of its documentation: "On by default, but silent until `relevance-floor` is set."."""
        silent = f", but silent until `{self.needs}` is set" if self.default and self.needs else ""
        return f"{'On' if self.default else 'Off'} by default{silent}."
