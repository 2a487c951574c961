"""A prompt a function assembles from pieces before it returns them joined.

    def build_prompt(docs, now):
        parts = [f"Current date: {now}"]
        intro = "Here are the sources:"
        intro += "\\n\\n".join(f"[{i}] {d.text}" for i, d in enumerate(docs))
        parts.append(intro)
        parts.append("Answer in one sentence.")
        return "\\n".join(parts)

The function's own statements are read in order (into `if`, `with` and `try`, never
into a loop or a nested function): the list it fills (`= [...]`, `.append`, `.extend`,
`+=`) and the strings it builds on the way (`=`, `+=`, `+`). What it returns is then one
`SEP.join([...])` over f-strings, as if written out, which the Python reader reads as
lines joined in code. A value the function does not build from literals (a parameter, a
call, a comprehension's join) reads as a slot named by its expression; a comprehension
joined over a name reads as that name: `{docs}`, the items it renders.
"""

from __future__ import annotations

import ast

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def joined(node: ast.AST) -> ast.expr | None:
    """What `SEP.join(items)` joins: its one argument; None for any other node."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" and len(node.args) == 1:
        return node.args[0]
    return None


def assembled(function: ast.FunctionDef | ast.AsyncFunctionDef, returned: ast.AST) -> ast.Call | None:
    """The returned `SEP.join(parts)` with its parts written out as f-strings; None when it is none."""
    items = joined(returned)
    if items is None:
        return None
    built = _Built(items.id if isinstance(items, ast.Name) else None)
    if not built.read(function.body):
        return None
    if isinstance(items, ast.Name):
        pieces = built.parts
    elif isinstance(items, (ast.List, ast.Tuple)):
        pieces = [built.pieces(item) for item in items.elts]
    else:
        return None
    if pieces is None or not pieces or all(len(p) == 1 and isinstance(p[0], ast.FormattedValue) for p in pieces):
        return None  # nothing of its own: names joined, no prompt written here
    strings = ast.List(elts=[ast.JoinedStr(values=p) for p in pieces], ctx=ast.Load())
    return ast.copy_location(ast.Call(func=returned.func, args=[strings], keywords=[]), returned)


class _Built:
    """What a function body builds: the list ``name`` it fills, and its string locals, as f-string parts."""

    def __init__(self, name: str | None):
        self.name = name
        self.parts: list[list[ast.expr]] | None = None
        self.strings: dict[str, list[ast.expr]] = {}

    def read(self, body: list[ast.stmt]) -> bool:
        """Read the statements in order; False when a loop fills the list (one piece per item: not read here)."""
        for statement in body:
            if isinstance(statement, _NESTED):
                continue
            if isinstance(statement, _LOOPS):
                if self.name and any(isinstance(n, ast.Name) and n.id == self.name for n in ast.walk(statement)):
                    return False
                continue
            if not self._statement(statement):
                for field in ("body", "orelse", "finalbody"):
                    if not self.read(getattr(statement, field, [])):
                        return False
        return True

    def _statement(self, statement: ast.stmt) -> bool:
        """Read one statement that builds something; False for one that holds statements (or nothing to read)."""
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            self._assigned(statement.targets[0].id, statement.value)
            return True
        if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) and isinstance(statement.target, ast.Name):
            self._added(statement.target.id, statement.value)
            return True
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and isinstance(statement.value.func, ast.Attribute):
            self._called(statement.value)
            return True
        return False

    def _assigned(self, target: str, value: ast.AST) -> None:
        if target == self.name and isinstance(value, (ast.List, ast.Tuple)):
            self.parts = [self.pieces(e) for e in value.elts]
        else:
            self.strings[target] = self.pieces(value)

    def _added(self, target: str, value: ast.AST) -> None:
        if target == self.name and self.parts is not None and isinstance(value, (ast.List, ast.Tuple)):
            self.parts += [self.pieces(e) for e in value.elts]
        elif target in self.strings:
            self.strings[target] = self.strings[target] + self.pieces(value)

    def _called(self, call: ast.Call) -> None:
        """`parts.append(x)`, `parts.extend([...])`."""
        owner = call.func.value
        if not (isinstance(owner, ast.Name) and owner.id == self.name and self.parts is not None and len(call.args) == 1):
            return
        if call.func.attr == "append":
            self.parts.append(self.pieces(call.args[0]))
        elif call.func.attr == "extend" and isinstance(call.args[0], (ast.List, ast.Tuple)):
            self.parts += [self.pieces(e) for e in call.args[0].elts]

    def pieces(self, value: ast.AST) -> list[ast.expr]:
        """A string value as f-string parts: literals as text, what the code fills as slots."""
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return [value]
        if isinstance(value, ast.JoinedStr):
            return list(value.values)
        if isinstance(value, ast.Name) and value.id in self.strings:
            return list(self.strings[value.id])
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            return self.pieces(value.left) + self.pieces(value.right)
        return [ast.FormattedValue(value=_joined_over(value) or value, conversion=-1)]


def _joined_over(value: ast.AST) -> ast.Name | None:
    """The name a comprehension joined into one text iterates: `"\\n".join(f"..." for d in docs)` is docs."""
    comprehension = joined(value)
    if isinstance(comprehension, (ast.ListComp, ast.GeneratorExp)) and isinstance(comprehension.generators[0].iter, ast.Name):
        return comprehension.generators[0].iter
    return None
