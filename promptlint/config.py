"""Settings: which rules run and with which options.

Read from ``--config FILE`` or the nearest ``.promptlint.yaml`` / ``.promptlint.yml``
above the current folder. Every key and value is checked; a bad one is a
one-line error that names the file and the key.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from . import registry, vocabulary
from .registry import Rule

CONFIG_NAMES = (".promptlint.yaml", ".promptlint.yml")
TOP_KEYS = ("select", "extend-select", "ignore", "rules", "today")


class ConfigError(Exception):
    """A one-line, user-facing description of what is wrong with the settings."""


@dataclass(frozen=True)
class Config:
    selected: tuple[Rule, ...]
    options: dict[str, dict] = field(default_factory=dict)  # rule name -> options, defaults filled in
    today: datetime.date = field(default_factory=datetime.date.today)
    source: str = "defaults"

    def rule_options(self, rule: Rule) -> dict:
        return self.options.get(rule.name, rule.options)


def default_config() -> Config:
    return build({}, "defaults")


def find_config(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        for name in CONFIG_NAMES:
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def load(path: Path | None, *, select: list[str] | None = None, ignore: list[str] | None = None) -> Config:
    """The config in ``path`` (or the discovered one), with command-line selections on top."""
    path = path or find_config(Path.cwd())
    data: dict = {}
    where = "defaults"
    if path is not None:
        where = str(path)
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{where}: cannot read config: {exc}") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
            raise ConfigError(f"{where}{at}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected a mapping of settings at the top level")
    if select:
        data = {**data, "select": select}
    if ignore:
        data = {**data, "ignore": list(data.get("ignore", [])) + list(ignore)}
    return build(data, where)


def _selectors(data: dict, key: str, where: str) -> list[Rule]:
    value = data.get(key, [])
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()]
    if not isinstance(value, list):
        raise ConfigError(f"{where}: '{key}' must be a list of rule codes, names or prefixes")
    rules: list[Rule] = []
    for selector in value:
        matched = registry.by_selector(str(selector))
        if not matched:
            raise ConfigError(f"{where}: '{key}': unknown rule selector '{selector}'")
        rules.extend(matched)
    return rules


def build(data: dict, where: str) -> Config:
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown setting '{unknown[0]}' (expected one of: {', '.join(TOP_KEYS)})")
    if "select" in data:
        chosen = _selectors(data, "select", where)
    else:
        chosen = [r for r in registry.all_rules() if r.default]
    chosen += _selectors(data, "extend-select", where)
    ignored = {r.code for r in _selectors(data, "ignore", where)}
    selected = tuple(sorted({r.code: r for r in chosen if r.code not in ignored}.values(), key=lambda r: r.code))

    today = data.get("today", datetime.date.today())
    if isinstance(today, str):
        try:
            today = datetime.date.fromisoformat(today)
        except ValueError:
            raise ConfigError(f"{where}: 'today' must be a date (YYYY-MM-DD), got '{today}'") from None
    if not isinstance(today, datetime.date):
        raise ConfigError(f"{where}: 'today' must be a date (YYYY-MM-DD)")

    rules_data = data.get("rules", {}) or {}
    if not isinstance(rules_data, dict):
        raise ConfigError(f"{where}: 'rules' must map rule names to their options")
    options = {rule.name: dict(rule.options) for rule in registry.all_rules()}
    for name, values in rules_data.items():
        rule = registry.get(str(name))
        if rule is None:
            raise ConfigError(f"{where}: rules: unknown rule '{name}'")
        if not isinstance(values, dict):
            raise ConfigError(f"{where}: rules.{name} must be a mapping of options")
        for key, value in values.items():
            options[rule.name][key] = _check_option(rule, key, value, where)
    return Config(selected=selected, options=options, today=today, source=where)


def _check_option(rule: Rule, key: str, value, where: str):
    if key.startswith("extend-") and rule.vocabulary:
        lists = vocabulary.load(rule.vocabulary)
        if key[len("extend-") :] not in lists:
            raise ConfigError(f"{where}: rules.{rule.name}.{key}: unknown word list (expected extend-" + ", extend-".join(lists) + ")")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: rules.{rule.name}.{key} must be a list of strings")
        return value
    if key not in rule.options:
        known = ", ".join(rule.options) or "none"
        raise ConfigError(f"{where}: rules.{rule.name}: unknown option '{key}' (options: {known})")
    default = rule.options[key]
    if default is None or isinstance(default, (int, float)) and not isinstance(default, bool):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: rules.{rule.name}.{key} must be a number, got {value!r}")
        if value < 0:
            raise ConfigError(f"{where}: rules.{rule.name}.{key} must not be negative")
        return value
    if not isinstance(value, type(default)):
        raise ConfigError(f"{where}: rules.{rule.name}.{key} must be a {type(default).__name__}, got {value!r}")
    return value
