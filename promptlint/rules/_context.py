"""What a rule's check receives besides the prompt: its options, words and helpers."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..meaning import tokens, vocabulary
from ..meaning.lexicon import Lexicon, shipped
from ..model.findings import Finding, Fix
from ..model.prompt import Field, Prompt, Source, Span
from ..model.rule import Rule
from ._fields import Reading, read


@dataclass(frozen=True)
class RuleContext:
    rule: Rule
    options: dict
    today: datetime.date
    lexicon: Lexicon = field(default_factory=shipped)  # what field labels mean, the user's words included

    def words(self, key: str) -> tuple[str, ...]:
        """A word list from the rule's vocabulary file plus the user's ``extend-<key>`` (the lexicon holds both)."""
        return self.lexicon.words(self.rule.vocabulary, key) if self.rule.vocabulary else ()

    def labels(self, key: str = "labels") -> frozenset[str]:
        return vocabulary.label_set(self.words(key))

    def fields(self, source: Source, concept: str) -> Iterator[Field]:
        """The source's fields whose label means ``concept`` ("score", "date", ...) by the lexicon."""
        return (f for f in source.fields if self.lexicon.means(f.label, concept))

    def readings(self, prompt: Prompt, concept: str) -> Iterator[Reading]:
        """Every source's fields that mean ``concept``, each with the evidence that it is metadata:
        the one place the metadata rules learn whether a field is certain enough to remove."""
        for source in prompt.sources:
            for f in self.fields(source, concept):
                yield read(prompt, source, f, concept, self.lexicon)

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
