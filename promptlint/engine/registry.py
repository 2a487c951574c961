"""The rules: each is a module in promptlint/rules/ and registers by being there.

A rule module holds its own metadata (CODE, NAME, SUMMARY, SEVERITY, FIX,
DEFAULT, OPTIONS, NEEDS, EFFECT), its documentation (the module docstring) and one ``check``
function. This module gathers them, checking each field's type (a missing or
misspelt field fails loudly rather than taking a default); nothing else lists the rules.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
import re
from functools import cache
from types import ModuleType

from .. import rules as rules_package
from ..meaning import vocabulary
from ..model.findings import Severity
from ..model.rule import FixKind, Rule

FIX_KINDS = tuple(kind.value for kind in FixKind)
# A rule module's metadata: its name, the type its value must have, and its default
# (None: required). Any other upper-case name close to one of these is a misspelling.
METADATA = {
    "CODE": (str, None),
    "NAME": (str, None),
    "SUMMARY": (str, None),
    "SEVERITY": (Severity, Severity.WARNING),
    "FIX": (str, "none"),
    "DEFAULT": (bool, True),
    "OPTIONS": (dict, {}),
    # The option without which a rule on by default reports nothing (PL106's floor): said
    # wherever its default is, so "on" never reads as "checking".
    "NEEDS": (str, ""),
    # The reference chapter's measured effect of what the rule flags, in a few words (the
    # README's rule table); a rule about the tool itself (PL9xx) has none.
    "EFFECT": (str, ""),
}
_CODE = re.compile(r"PL\d{3}")
_NAME = re.compile(r"[a-z]+(?:-[a-z]+)*")


class RuleError(Exception):
    """A rule module whose metadata is missing, misspelt or of the wrong type."""


def _metadata(module: ModuleType) -> dict:
    """The module's metadata, checked: a field missing, misspelt or of the wrong type fails loudly."""
    where = module.__name__
    for name in vars(module):
        public = name.isupper() and not name.startswith("_") and name not in METADATA
        close = difflib.get_close_matches(name, METADATA, n=1, cutoff=0.8) if public else []
        if close:
            raise RuleError(f"{where}: {name} is not rule metadata (did you mean {close[0]}?)")
    values = {}
    for name, (kind, default) in METADATA.items():
        value = getattr(module, name, default)
        if value is None:
            raise RuleError(f"{where}: {name} is missing")
        if not isinstance(value, kind):
            raise RuleError(f"{where}: {name} must be a {kind.__name__}, not {type(value).__name__}")
        values[name] = value
    if not _CODE.fullmatch(values["CODE"]) or not _NAME.fullmatch(values["NAME"]):
        raise RuleError(f"{where}: CODE must read PLnnn and NAME be kebab-case ({values['CODE']!r}, {values['NAME']!r})")
    if values["FIX"] not in FIX_KINDS:
        raise RuleError(f"{where}: FIX must be one of {', '.join(FIX_KINDS)}")
    if values["NEEDS"] and values["NEEDS"] not in values["OPTIONS"]:
        raise RuleError(f"{where}: NEEDS must name one of its OPTIONS, not {values['NEEDS']!r}")
    if not callable(getattr(module, "check", None)):
        raise RuleError(f"{where}: a rule needs a check function")
    return values


def _from_module(module: ModuleType) -> Rule:
    meta = _metadata(module)
    return Rule(
        code=meta["CODE"],
        name=meta["NAME"],
        summary=meta["SUMMARY"],
        severity=meta["SEVERITY"],
        fix=FixKind(meta["FIX"]),
        default=meta["DEFAULT"],
        options=dict(meta["OPTIONS"]),
        needs=meta["NEEDS"],
        effect=meta["EFFECT"],
        doc=(module.__doc__ or "").strip(),
        vocabulary=meta["NAME"] if vocabulary.exists(meta["NAME"]) else None,
        check=module.check,
    )


@cache
def all_rules() -> tuple[Rule, ...]:
    found = []
    for info in pkgutil.iter_modules(rules_package.__path__):
        module = importlib.import_module(f"{rules_package.__name__}.{info.name}")
        if hasattr(module, "CODE"):
            found.append(_from_module(module))
    for key in ("code", "name"):
        seen = [getattr(r, key) for r in found]
        twice = sorted({v for v in seen if seen.count(v) > 1})
        if twice:
            raise RuleError(f"two rules share the {key} {', '.join(twice)}")
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
