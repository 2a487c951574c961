"""A limit on how much logic one function holds: its cyclomatic complexity, read with `ast`.

The figure is McCabe's: 1 for the function, plus 1 for each place where the path through
it can fork:

- an `if` or `elif`, and a conditional expression (`a if test else b`);
- a `for`, `async for` or `while`, and the `else` of a loop (a second way out of it);
- each `except` handler;
- each `case` of a `match`;
- a boolean operator, once for each operand after the first (`a and b or c` is 2);
- in a comprehension, each `for` and each `if`.

An `else` of an `if`, a `try`'s `finally`, a `with` and an `assert` add nothing: they
are no choice the reader has to follow (the first is the other side of its `if`, an
assert is a check that stops the program). A function defined inside another, and a
method, is measured on its own, named by its place (`module.Class.method`,
`module.outer.inner`); a lambda's logic belongs to the function that holds it.

A function may not go above LIMIT (docs/contributing.md, Complexity).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "promptlint"
LIMIT = 20

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _forks(node: ast.AST) -> int:
    """How many places the path forks at ``node`` itself (its children are counted apart)."""
    if isinstance(node, (ast.If, ast.IfExp, ast.ExceptHandler, ast.match_case)):
        return 1
    if isinstance(node, _LOOPS):
        return 1 + bool(node.orelse)
    if isinstance(node, ast.BoolOp):
        return len(node.values) - 1
    if isinstance(node, ast.comprehension):
        return 1 + len(node.ifs)
    return 0


def complexity(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """1 plus the forks in the function's body, leaving out the functions and classes defined in it."""
    figure, pending = 1, list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            continue
        figure += _forks(node)
        pending.extend(ast.iter_child_nodes(node))
    return figure


def _functions(node: ast.AST, prefix: str):
    """Every function under ``node``, nested ones and methods too, each with its dotted name."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (*_FUNCTIONS, ast.ClassDef)):
            name = f"{prefix}.{child.name}"
            if isinstance(child, _FUNCTIONS):
                yield name, child
            yield from _functions(child, name)
        else:
            yield from _functions(child, prefix)


def figures() -> dict[str, int]:
    """Each function of the package by name (`cli.commands.check`, `rules.retrieval_score.check`), with its figure.

    A name defined twice (a function redefined under another condition) keeps the larger figure.
    """
    found: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        for name, function in _functions(ast.parse(path.read_text(encoding="utf-8")), module):
            found[name] = max(found.get(name, 0), complexity(function))
    return found


FIGURES = figures()


def test_no_function_goes_over_the_limit():
    over = {name: figure for name, figure in FIGURES.items() if figure > LIMIT}
    assert over == {}, f"split these functions to {LIMIT} or below"


def test_the_counting():
    source = '''
def f(items, flag):
    if flag and items or not items:          # if 1, boolean operators 2
        return [x for x in items if x if flag]   # comprehension for 1, ifs 2
    elif flag:                               # 1
        pass
    else:
        pass
    for item in items:                       # 1
        while item:                          # 1
            item = item - 1 if item else 0   # 1
        else:                                # 1
            pass
    try:
        pass
    except ValueError:                       # 1
        pass
    except KeyError:                         # 1
        pass
    finally:
        pass
    match flag:
        case 1:                              # 1
            pass
        case _:                              # 1
            pass
    assert flag
    with open(items):
        pass
    key = lambda x: x or flag                # 1
    def inner(y):                            # measured apart
        if y:
            return y
    return key
'''
    function = ast.parse(source).body[0]
    # function, first if, comprehension, elif, for, while, ternary, loop else, excepts, cases, lambda
    assert complexity(function) == 1 + 3 + 3 + 1 + 1 + 1 + 1 + 1 + 2 + 2 + 1
    assert dict(_functions(ast.parse(source), "m")).keys() == {"m.f", "m.f.inner"}
