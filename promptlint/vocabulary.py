"""The word lists rules match, loaded from the YAML files in the top-level rules/ folder.

They are data so that a reader can see what a rule looks for and a user can add
to it (``rules: {retrieval-score: {extend-labels: [...]}}`` in the config).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

import yaml


def _file(name: str):
    return resources.files("promptlint.rulesdata").joinpath(f"{name}.yaml")


def exists(name: str) -> bool:
    return _file(name).is_file()


@cache
def load(name: str) -> dict[str, list[str]]:
    """The vocabulary file ``rules/<name>.yaml`` as shipped with the package."""
    text = _file(name).read_text(encoding="utf-8")
    return yaml.safe_load(text) or {}


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalise_label(label: str) -> str:
    """Labels compare in lower case with "_", "-" and camelCase read as spaces: "updatedAt" == "updated at"."""
    spaced = _CAMEL.sub(" ", label)
    return " ".join(spaced.lower().replace("_", " ").replace("-", " ").split())


def label_set(words: list[str]) -> frozenset[str]:
    return _label_set(tuple(words))


@cache
def _label_set(words: tuple[str, ...]) -> frozenset[str]:
    # Rules ask for their label sets on every prompt: normalise each list once.
    return frozenset(normalise_label(w) for w in words)


def patterns(phrases: list[str]) -> re.Pattern[str]:
    """One alternation over lower-cased text, compiled case-sensitively for speed."""
    return re.compile("|".join(f"(?:{p})" for p in phrases), re.MULTILINE)
