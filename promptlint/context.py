"""What a rule's check receives besides the prompt: its options, words and helpers."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from . import tokens, vocabulary
from .findings import Finding, Fix
from .model import Prompt, Span
from .registry import Rule


@dataclass(frozen=True)
class RuleContext:
    rule: Rule
    options: dict
    today: datetime.date

    def words(self, key: str) -> list[str]:
        """A word list from the rule's vocabulary file plus the user's ``extend-<key>``."""
        base = vocabulary.load(self.rule.vocabulary).get(key, []) if self.rule.vocabulary else []
        return list(base) + list(self.options.get(f"extend-{key}", []))

    def labels(self, key: str = "labels") -> frozenset[str]:
        return vocabulary.label_set(self.words(key))

    def finding(self, prompt: Prompt, span: Span, message: str, *, fix: Fix | None = None, tokens_text: str | None = None) -> Finding:
        """A finding of this rule; its token cost is that of ``tokens_text`` or of what the fix removes."""
        if tokens_text is None:
            tokens_text = "".join(prompt.text[e.span.start : e.span.end] for e in fix.edits) if fix else ""
        return Finding(
            code=self.rule.code,
            name=self.rule.name,
            message=message,
            span=span,
            severity=self.rule.severity,
            tokens=tokens.count(tokens_text),
            fix=fix,
        )
