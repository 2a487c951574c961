"""A chat request whose messages send the user's text twice: in a template and as a message of its own.

    system = f"Answer from the sources.\\nQUESTION: {question}\\nSOURCES:\\n{context}"
    messages = [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]

Each message is read as the evaluator reads a value: a template (a string or an f-string, or a
name the function binds once to one) or a value sent bare (`question`). When a value sent bare
in a later message is also a field of an earlier message's template, the messages are read as
one text, in order, each a paragraph: the template's text, then the rest as slots named by
their expressions (`{history}`, `{question}`). The rules then see the value where the model
does, twice. Otherwise the messages are left as they are, each template a prompt of its own.
The same reading serves JavaScript lowered to Python's form (see jslower).
"""

from __future__ import annotations

import ast

from .pyassembly import own_nodes

# What stands between two messages read as one text.
_BETWEEN = "\n\n"


def messages_written_out(module: ast.Module) -> list[tuple[ast.JoinedStr, ast.Call]]:
    """The templates of the module sent beside a message that repeats one of their fields, each with
    the text of all the messages of its request (see the module's docstring)."""
    scopes = [module, *(n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    return [read for scope in scopes for read in _in_scope(scope)]


def _in_scope(scope: ast.AST) -> list[tuple[ast.JoinedStr, ast.Call]]:
    """The requests of one function (or of the module's own statements) whose messages repeat a template's field."""
    bound = _bound_once(scope)
    return [read for node in own_nodes(scope) if isinstance(node, ast.List) and (read := _repeating(node, bound)) is not None]


def _bound_once(scope: ast.AST) -> dict[str, ast.AST]:
    """The names a scope binds exactly once, to what."""
    bound: dict[str, list[ast.AST]] = {}
    for node in own_nodes(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            bound.setdefault(node.target.id, []).append(node.value)
    return {name: values[0] for name, values in bound.items() if len(values) == 1}


def _repeating(messages: ast.List, bound: dict[str, ast.AST]) -> tuple[ast.AST, ast.Call] | None:
    """The one template of a list of messages and the messages as one text, when a later message sends bare
    a value the template shows; None otherwise."""
    contents = [_content(element) for element in messages.elts]
    if not contents or any(c is None for c in contents):
        return None  # not a list of messages: every element is one, or spreads others
    values = [_resolved(c, bound) for c in contents]
    templates = [i for i, v in enumerate(values) if isinstance(v, ast.JoinedStr)]
    if len(templates) != 1:
        return None
    first = templates[0]
    shown = {ast.unparse(p.value) for p in values[first].values if _plain(p)}
    if not any(_bare(v) and ast.unparse(v) in shown for v in values[first + 1 :]):
        return None
    pieces: list[ast.expr] = []
    for i, value in enumerate(values):
        pieces += ([ast.Constant(_BETWEEN)] if pieces else []) + (list(value.values) if i == first else [ast.FormattedValue(value, -1)])
    joined = ast.List(elts=[ast.JoinedStr(values=pieces)], ctx=ast.Load())
    return values[first], ast.copy_location(ast.Call(func=ast.Attribute(value=ast.Constant(""), attr="join", ctx=ast.Load()), args=[joined], keywords=[]), values[first])


def _content(element: ast.AST) -> ast.AST | None:
    """A message's content (`{"role": ..., "content": x}`), or what a spread sends (`*history`); None for anything else."""
    if isinstance(element, ast.Starred):
        return element.value
    if not isinstance(element, ast.Dict):
        return None
    keys = {k.value: v for k, v in zip(element.keys, element.values) if isinstance(k, ast.Constant)}
    return keys.get("content") if "role" in keys else None


def _resolved(value: ast.AST, bound: dict[str, ast.AST]) -> ast.AST:
    """A name bound once to an f-string, as that f-string; any other value as it is."""
    held = bound.get(value.id) if isinstance(value, ast.Name) else None
    return held if isinstance(held, ast.JoinedStr) else value


def _plain(part: ast.AST) -> bool:
    return isinstance(part, ast.FormattedValue) and part.conversion == -1 and part.format_spec is None


def _bare(value: ast.AST) -> bool:
    """A value sent as it is: a name or an attribute chain (`question`, `req.query`)."""
    while isinstance(value, ast.Attribute):
        value = value.value
    return isinstance(value, ast.Name)
