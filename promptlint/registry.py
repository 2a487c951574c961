"""The rules: each is a module in promptlint/rules/ and registers by being there.

A rule module holds its own metadata (CODE, NAME, SUMMARY, SEVERITY, FIX,
DEFAULT, OPTIONS), its documentation (the module docstring) and one ``check``
function. This module gathers them; nothing else lists the rules.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from types import ModuleType

from . import rules as rules_package
from . import vocabulary
from .findings import Finding, Severity

FIX_KINDS = ("none", "safe", "unsafe", "safe/unsafe")


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    severity: Severity
    fix: str  # what fixes it offers: one of FIX_KINDS
    default: bool  # selected when the config says nothing
    options: dict  # option name -> default value
    doc: str
    vocabulary: str | None  # the rule's name when it has a word list, rules/<name>.yaml
    check: Callable[..., Iterable[Finding]]


def _from_module(module: ModuleType) -> Rule:
    fix = getattr(module, "FIX", "none")
    if fix not in FIX_KINDS:
        raise ValueError(f"{module.__name__}: FIX must be one of {FIX_KINDS}")
    return Rule(
        code=module.CODE,
        name=module.NAME,
        summary=module.SUMMARY,
        severity=getattr(module, "SEVERITY", Severity.WARNING),
        fix=fix,
        default=getattr(module, "DEFAULT", True),
        options=dict(getattr(module, "OPTIONS", {})),
        doc=(module.__doc__ or "").strip(),
        vocabulary=module.NAME if vocabulary.exists(module.NAME) else None,
        check=module.check,
    )


@cache
def all_rules() -> tuple[Rule, ...]:
    found = []
    for info in pkgutil.iter_modules(rules_package.__path__):
        module = importlib.import_module(f"{rules_package.__name__}.{info.name}")
        if hasattr(module, "CODE"):
            found.append(_from_module(module))
    return tuple(sorted(found, key=lambda r: r.code))


def by_selector(selector: str) -> list[Rule]:
    """Rules a selector names: a code ("PL102"), a name ("retrieval-score"), a prefix ("PL1") or "ALL"."""
    selector = selector.strip()
    if selector.upper() == "ALL":
        return list(all_rules())
    return [r for r in all_rules() if r.name == selector.lower() or r.code.startswith(selector.upper())]


def get(selector: str) -> Rule | None:
    matches = [r for r in all_rules() if r.code == selector.upper() or r.name == selector.lower()]
    return matches[0] if matches else None
