"""Rule metadata is typed: a field missing, misspelt or of the wrong type fails loudly."""

from __future__ import annotations

from types import ModuleType

import pytest

from promptlint.engine import registry
from promptlint.engine.registry import RuleError
from promptlint.model.rule import FixKind
from promptlint.model.findings import Severity


def rule_module(**fields) -> ModuleType:
    module = ModuleType("promptlint.rules.example", "Example rule.")
    values = {"CODE": "PL999", "NAME": "example-rule", "SUMMARY": "An example.", "check": lambda prompt, ctx: []}
    values.update(fields)
    for name, value in values.items():
        if value is not None:
            setattr(module, name, value)
    return module


def test_a_rule_takes_its_metadata_and_the_defaults():
    rule = registry._from_module(rule_module(FIX="safe/unsafe", OPTIONS={"floor": 0.5}))
    assert (rule.code, rule.name, rule.severity, rule.fix, rule.default, rule.options) == (
        "PL999", "example-rule", Severity.WARNING, FixKind.SAFE_OR_UNSAFE, True, {"floor": 0.5})
    assert str(rule.fix) == "safe/unsafe" and rule.fix == "safe/unsafe"


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"SEVERTY": Severity.ERROR}, "SEVERTY is not rule metadata (did you mean SEVERITY?)"),
        ({"DEFAUT": False}, "DEFAUT is not rule metadata (did you mean DEFAULT?)"),
        ({"SUMMARY": None}, "SUMMARY is missing"),
        ({"DEFAULT": "no"}, "DEFAULT must be a bool, not str"),
        ({"SEVERITY": "error"}, "SEVERITY must be a Severity, not str"),
        ({"OPTIONS": [("floor", 0.5)]}, "OPTIONS must be a dict, not list"),
        ({"FIX": "always"}, "FIX must be one of none, safe, unsafe, safe/unsafe"),
        ({"CODE": "X1"}, "CODE must read PLnnn and NAME be kebab-case ('X1', 'example-rule')"),
        ({"NAME": "Example_Rule"}, "CODE must read PLnnn and NAME be kebab-case ('PL999', 'Example_Rule')"),
        ({"check": None}, "a rule needs a check function"),
    ],
)
def test_bad_metadata_fails_loudly(fields, error):
    with pytest.raises(RuleError) as raised:
        registry._from_module(rule_module(**fields))
    assert str(raised.value) == f"promptlint.rules.example: {error}"


def test_other_constants_and_private_names_are_the_rule_s_own():
    rule = registry._from_module(rule_module(LABEL_WORDS=10, _NAME="x", STALE_LABEL="last updated"))
    assert rule.code == "PL999"


def test_the_shipped_rules_have_unique_codes_and_names():
    rules = registry.all_rules()
    assert len({r.code for r in rules}) == len({r.name for r in rules}) == len(rules)
    assert all(isinstance(r.fix, FixKind) for r in rules)
