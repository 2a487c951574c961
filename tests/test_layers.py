"""The layers, read from the imports: each module belongs to one, and the rules between them hold.

A module's layer is its folder: promptlint/<layer>/<module>.py is promptlint.<layer>.<module>,
so a new module is in the layer where it is written. ARCHITECTURE.md draws the same
folders, a line each, top to bottom.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "promptlint"

# The layer folders, top to bottom: the face, then what it drives, down to the model that everything reads.
LAYERS = ["cli", "integrations", "output", "traffic", "audit", "engine", "rules", "canonical", "readers", "meaning", "model"]
FACE = "cli"  # the command line, the rule reference it writes, the language server


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
    """The layer of a project module: its folder ("promptlint.rules.retrieval_score" is in "rules")."""
    parts = module.split(".")
    if parts[0] != "promptlint" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def _project(imports: set[str]) -> set[str]:
    return {name for name in imports if name.startswith("promptlint.") and name != "promptlint"}


def test_every_module_lives_in_a_layer_folder():
    stray = [str(path.relative_to(PACKAGE.parent)) for path in sorted(PACKAGE.rglob("*.py"))
             if path != PACKAGE / "__init__.py" and path.relative_to(PACKAGE).parts[0] not in LAYERS]
    assert stray == []


def test_every_layer_is_a_package_that_installs():
    packages = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    assert [name for name in LAYERS if not (PACKAGE / name / "__init__.py").is_file() or f"promptlint.{name}" not in packages] == []


def test_only_the_face_layer_imports_click():
    importers = sorted(module for module, imports in MODULES.items() if any(name.split(".")[0] == "click" for name in imports))
    assert importers and [module for module in importers if layer(module) != FACE] == []


@pytest.mark.parametrize(("lower", "upper"), [("rules", "readers"), ("readers", "rules")])
def test_rules_and_readers_never_import_each_other(lower, upper):
    crossing = {module: sorted(name for name in _project(imports) if layer(name) == upper)
                for module, imports in MODULES.items() if layer(module) == lower}
    assert {module: names for module, names in crossing.items() if names} == {}


def test_a_module_uses_only_its_own_layer_and_the_layers_below():
    rank = {name: i for i, name in enumerate(LAYERS)}
    upward = {module: sorted(name for name in _project(imports) if layer(name) and rank[layer(name)] < rank[layer(module)])
              for module, imports in MODULES.items() if layer(module)}
    assert {module: names for module, names in upward.items() if names} == {}


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
    rows = [line.split("|")[1].strip().strip("`").removesuffix("/") for line in page.splitlines() if line.startswith("| `")]
    assert rows == LAYERS
