"""The layers, read from the imports: each module belongs to one, and the rules between them hold.

ARCHITECTURE.md draws the same table; a new module must be placed here (the first
test fails until it is), so the layers stay written down.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "promptlint"

# Top to bottom: the face, then what it drives, down to the model that everything reads.
LAYERS = {
    "face": {"cli", "docs", "server"},
    "output": {"output", "auditreport"},
    "audit": {"audit", "auditdask", "logs"},
    "engine": {"lint", "fix", "suppress", "parallel", "cache", "baseline", "config", "files", "registry", "context"},
    "canonical": {"formatting", "render", "chunks"},
    "rules": {"rules"},  # the package: every rule module and the helpers they share
    "readers": {"formats", "document", "chatjson", "pysource", "pybuild", "jsscan", "jssource", "segment", "jinja", "expressions",
                "jsonsources", "bodysources", "includes"},
    "meaning": {"lexicon", "vocabulary", "values", "tokens"},
    "model": {"model", "findings"},
}


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module the file imports, anywhere in it (a function's lazy import too), as a full name."""
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            found.add(base)
            # `from . import lexicon` imports a module, not a name.
            found.update(f"{base}.{alias.name}" for alias in node.names if (PACKAGE.parent / (base + "." + alias.name).replace(".", "/")).with_suffix(".py").exists())
    return found


MODULES = {_module(path): _imports(path) for path in sorted(PACKAGE.rglob("*.py"))}


def layer(module: str) -> str | None:
    """The layer of a project module ("promptlint.rules.retrieval_score" is in "rules")."""
    parts = module.split(".")
    if parts[0] != "promptlint" or len(parts) < 2:
        return None
    return next((name for name, members in LAYERS.items() if parts[1] in members), None)


def _project(imports: set[str]) -> set[str]:
    return {name for name in imports if name.startswith("promptlint.") and name != "promptlint"}


def test_every_module_has_a_layer():
    assert [module for module in MODULES if module != "promptlint" and layer(module) is None] == []


def test_only_the_command_line_imports_click():
    assert sorted(module for module, imports in MODULES.items() if any(name.split(".")[0] == "click" for name in imports)) == ["promptlint.cli"]


@pytest.mark.parametrize(("lower", "upper"), [("rules", "readers"), ("readers", "rules")])
def test_rules_and_readers_never_import_each_other(lower, upper):
    crossing = {module: sorted(name for name in _project(imports) if layer(name) == upper)
                for module, imports in MODULES.items() if layer(module) == lower}
    assert {module: names for module, names in crossing.items() if names} == {}


def test_the_model_imports_nothing_else_of_the_project():
    model = {module: sorted(name for name in _project(imports) if layer(name) != "model")
             for module, imports in MODULES.items() if layer(module) == "model"}
    assert {module: names for module, names in model.items() if names} == {}


def test_the_meaning_of_words_imports_only_the_model():
    meaning = {module: sorted(name for name in _project(imports) if layer(name) not in ("meaning", "model"))
               for module, imports in MODULES.items() if layer(module) == "meaning"}
    assert {module: names for module, names in meaning.items() if names} == {}


def test_the_architecture_page_lists_every_layer():
    page = (PACKAGE.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for name, members in LAYERS.items():
        row = next((line for line in page.splitlines() if line.startswith(f"| {name} |")), "")
        assert sorted(member for member in members) == sorted(row.split("|")[2].replace("`", "").replace(",", " ").split()), name
