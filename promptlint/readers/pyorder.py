"""The order code puts a collection in before a loop renders it, read and never run.

`docs = sorted(docs, key=lambda d: d.metadata["published_at"])`, `docs.sort(key=attrgetter("date"))`,
`df = df.sort_values(by="datetime").head(5)`: a loop over `docs` (or `df.iterrows()`) later in the
same function renders the items in that order. The loop's collection is then written as the Jinja
sort it means (`docs|sort(attribute='published_at')`), so the rules read a sort in code as they read
one in a template. A name bound again to something that does not read it (`docs = other`) drops the
order; one bound to what reads it (`df = df.dropna()`) keeps it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from .pybuild import called_name, reference

if TYPE_CHECKING:
    from .pysource import PyTemplate

# Calls that order what they are called on or given.
SORTING = frozenset({"sorted", "sort", "sort_values", "order_by"})
_ROOT = re.compile(r"[A-Za-z_]\w*")


def with_order(module: ast.Module, built: list[PyTemplate]) -> list[PyTemplate]:
    """The per-item templates, each loop's collection with the sort the code gave it before the loop."""
    functions = [node for node in ast.walk(module) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    orders = {id(scope): list(_orders(scope.body)) for scope in [module, *functions]}
    return [_ordered(template, _scope(template.line, module, functions), orders) for template in built]


def _scope(line: int, module: ast.Module, functions: list[ast.AST]) -> ast.AST:
    """The innermost function holding ``line``; the module where none does."""
    holding = [f for f in functions if f.lineno <= line <= (f.end_lineno or f.lineno)]
    return min(holding, key=lambda f: (f.end_lineno or f.lineno) - f.lineno) if holding else module


def _ordered(template: PyTemplate, scope: ast.AST, orders: dict[int, list[tuple[int, str, str | None]]]) -> PyTemplate:
    root = _ROOT.match(template.loop.collection)
    key = None
    for line, name, sorted_by in orders[id(scope)]:
        if root and name == root[0] and line < template.line:
            key = sorted_by
    if key is None:
        return template
    return replace(template, loop=replace(template.loop, collection=f"{template.loop.collection}|sort(attribute='{key}')"))


def _orders(body: list[ast.stmt]):
    """(line, name, key or None) for each statement that sorts a name or binds it anew, in order; None drops an order."""
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            name = statement.targets[0].id
            key = sort_key(statement.value)
            if key is not None:
                yield statement.lineno, name, key
            elif not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(statement.value)):
                yield statement.lineno, name, None
        elif isinstance(statement, ast.Expr) and isinstance(call := statement.value, ast.Call) and isinstance(call.func, ast.Attribute):
            if isinstance(call.func.value, ast.Name) and (key := sort_key(call)) is not None:
                yield statement.lineno, call.func.value.id, key
        if not isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):  # a sort inside a loop is that loop's
            for field in ("body", "orelse", "finalbody"):
                yield from _orders(getattr(statement, field, []))


def sort_key(node: ast.AST) -> str | None:
    """The name of the key a sort anywhere in an expression orders by; None when there is no sort or no named key."""
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        name = called_name(call)
        if name not in SORTING:
            continue
        keyed = {k.arg: k.value for k in call.keywords}
        given = keyed.get("key") or keyed.get("by") or (call.args[0] if name != "sorted" and call.args else None)
        found = _named(given) if given is not None else None
        if found:
            return found
    return None


def _named(key: ast.AST) -> str | None:
    """The last name a key reads: `lambda d: d.metadata["date"]` is `date`, `itemgetter("published")` is
    `published`, `"datetime"` is itself, `["date", "rank"]` its first."""
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value
    if isinstance(key, (ast.List, ast.Tuple)) and key.elts:
        return _named(key.elts[0])
    if isinstance(key, ast.Call) and called_name(key) in ("itemgetter", "attrgetter") and key.args:
        return _named(key.args[0])
    if isinstance(key, ast.Lambda):
        read = reference(key.body, {})
        return read[1][-1] if read and read[1] else None
    return None
