"""Following a call into a function of the same module, to read the text it returns.

A loop that builds one text per source often leaves part of it to a helper of
its own file: `label = _format_label(doc.metadata)` and then `f"{label}\\n{text}"`.
What the helper returns is read in place of the call, exactly as if it were
written inline: its parameters are bound to the call's arguments, the locals it
assigns before returning to their values, and the fields of the string it
returns then read the loop's variable as any field of the loop's own string does.

Only the file's own functions are followed (at its top, or methods of its classes
called through `self`/`cls`, or through an item, `doc.render()`, its `self` then the item),
a name defined twice is not followed, and a helper
is followed into the helpers it calls MAX_DEPTH deep, never into itself.

A helper with several returns is read by its richest returned string, the one
with the most fields: what a source shows when everything about it is known
(`if date: return f"[{title} | {date}]"` / `return f"[{title}]"` shows the date
whenever there is one). A return under an `if` whose test is about staleness is
left out: it is the stale note a good prompt shows only when it is due.
"""

from __future__ import annotations

import ast
import collections
import copy
import re

from ..meaning import vocabulary
from ..meaning.lexicon import shipped

# How many calls deep a helper is followed into the helpers it calls.
MAX_DEPTH = 2
# Whose method a call through these names is.
_OWN = frozenset({"self", "cls"})
# What a key of a record is written as: a name (`chunk_index`, `file-name`), never a sentence.
_KEY = re.compile(r"[A-Za-z_][\w-]*")
# The methods of a string that a field may call on a name it knows (`key.replace("_", " ").title()`): each makes text
# of text and its constant arguments, and nothing else.
_TEXT_METHODS = frozenset({"replace", "title", "upper", "lower", "capitalize", "strip", "lstrip", "rstrip"})

Helpers = dict[str, ast.FunctionDef | ast.AsyncFunctionDef]


def helpers_of(module: ast.Module) -> Helpers:
    """The functions a module defines, at its top, in its classes and inside other functions (`def _fmt_chunk(i,
    chunk)` in the method that joins the chunks), by name; a name defined twice is left out."""
    found: Helpers = {}
    seen: set[str] = set()
    for function in (d for d in ast.walk(module) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))):
        if function.name in seen:
            found.pop(function.name, None)
        else:
            found[function.name] = function
        seen.add(function.name)
    return found


def helper_called(node: ast.AST, helpers: Helpers) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The module's own function a call calls: `helper(x)`, or `self.helper(x)` in a class."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Name):
        return helpers.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        helper = helpers.get(func.attr)
        if func.value.id in _OWN or helper is not None and _receiver(helper) is not None:
            return helper
    return None


def _receiver(helper: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The parameter a method of a class receives its instance in (`self`); None for a plain function."""
    positional = helper.args.posonlyargs + helper.args.args
    return positional[0].arg if positional and positional[0].arg == "self" else None


def inlined(string: ast.JoinedStr, binding: dict[str, ast.AST], helpers: Helpers, calling: tuple[str, ...] = ()) -> ast.JoinedStr:
    """An f-string with its names bound (``binding``) and each field that calls a helper, or holds text, replaced by that text."""
    values: list[ast.AST] = []
    for part in string.values:
        if not isinstance(part, ast.FormattedValue):
            values.append(part)
            continue
        value = bind(part.value, binding)
        text = None
        if part.format_spec is None and part.conversion == -1:
            held = _as_text(value, strings_only=True) or _listed_text(value)  # a local that holds text, or a list of texts joined
            text = returned_text(value, helpers, calling) or (held and inlined(held, {}, helpers, calling))
        if text is not None:
            values.extend(text.values)
        else:
            values.append(ast.FormattedValue(value, part.conversion, part.format_spec))
    return ast.copy_location(ast.JoinedStr(values), string)


def _listed_text(value: ast.AST) -> ast.JoinedStr | None:
    """`" | ".join([f"DOC {i}", f"Source: {m.file}"])`, a list written out and joined, as the text it makes."""
    from .pyassembly import joined  # pyassembly reads calls with this module

    return _as_text(value) if isinstance(joined(value), (ast.List, ast.Tuple)) else None


def returned_text(call: ast.AST, helpers: Helpers, calling: tuple[str, ...] = ()) -> ast.JoinedStr | None:
    """The text a call of a helper returns, as an f-string reading the call's arguments; None when it is no such call."""
    helper = helper_called(call, helpers)
    if helper is None or helper.name in calling or len(calling) >= MAX_DEPTH:
        return None
    binding = _arguments(helper, call, isinstance(call.func, ast.Attribute))
    if binding is None:
        return None
    best: tuple[int, ast.JoinedStr] | None = None
    for value in _returns(helper.body, binding, ()):
        text = _as_text(value)
        if text is None:
            continue
        text = inlined(text, {}, helpers, calling + (helper.name,))
        if text.values and getattr(text.values[0], "lineno", None) is not None:
            text = ast.copy_location(text, text.values[0])  # where its first piece is written (`head` in `f"{head}\n..."`)
        shown = sum(isinstance(part, ast.FormattedValue) for part in text.values)
        if best is None or shown > best[0]:
            best = shown, text
    return best[1] if best is not None and best[0] else None


def richest_return(body: list[ast.stmt]) -> ast.AST | None:
    """What a function body returns, its locals bound as they are when it returns (a list it grows, under
    conditions too): of several returns, the one that shows the most values."""
    returned = list(_returns(body, {}, ()))
    return max(returned, key=lambda value: sum(isinstance(n, ast.FormattedValue) for n in ast.walk(value)), default=None)


def _arguments(helper: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, method: bool) -> dict[str, ast.AST] | None:
    """The helper's parameters bound to the call's arguments, or to their defaults; None for `*args`/`**kwargs` calls."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(keyword.arg is None for keyword in call.keywords):
        return None
    spec = helper.args
    positional = spec.posonlyargs + spec.args
    binding: dict[str, ast.AST] = {}
    for param, default in zip(positional[len(positional) - len(spec.defaults) :], spec.defaults):
        binding[param.arg] = default
    for param, default in zip(spec.kwonlyargs, spec.kw_defaults):
        if default is not None:
            binding[param.arg] = default
    if method and positional and positional[0].arg in _OWN:
        # `doc.render()`: the method of the item's class, its `self` the item.
        binding[positional[0].arg] = call.func.value
        positional = positional[1:]
    for param, arg in zip(positional, call.args):
        binding[param.arg] = arg
    for keyword in call.keywords:
        binding[keyword.arg] = keyword.value
    return binding


def _returns(body: list[ast.stmt], binding: dict[str, ast.AST], tests: tuple[str, ...], branch: bool = False):
    """Each value a function body returns, its names bound as they are when it returns; none under a staleness test.

    ``binding`` is carried through the body and its branches: a local a branch sets is
    what the branch shows, unless it sets a plain constant (the fallback when a field is missing).
    """
    staleness = vocabulary.patterns(shipped().words("unconditional-date", "staleness-tests"))
    stale = any(staleness.search(test.lower()) for test in tests)
    for statement in body:
        if (grown := _grown(statement, binding)) is not None:
            if not stale:  # a note added only when the source is stale is the recommended one
                binding[grown[0]] = grown[1]
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                if not (branch and isinstance(statement.value, ast.Constant) and targets[0].id in binding):
                    binding[targets[0].id] = bind(statement.value, binding)
        elif isinstance(statement, ast.Return) and statement.value is not None:
            if not stale:
                yield bind(statement.value, binding)
        elif isinstance(statement, ast.If):
            yield from _returns(statement.body, binding, tests + (ast.unparse(statement.test),), True)
            yield from _returns(statement.orelse, binding, tests, True)
        elif isinstance(statement, (ast.With, ast.AsyncWith, ast.Try)):
            yield from _returns(statement.body, binding, tests, branch)
        elif isinstance(statement, ast.For):
            yield from _loop_returns(statement, binding, tests, branch)


def _loop_returns(loop: ast.For, binding: dict[str, ast.AST], tests: tuple[str, ...], branch: bool):
    """What a loop of a function body returns and makes of its locals (see _returns)."""
    if over_keys(loop):
        # `for key in ["title", "date"]: parts.append(f"{key}: {doc[key]}")`: the body once per key, written out.
        for key in listed_keys(loop.iter):
            binding[loop.target.id] = ast.copy_location(ast.Constant(key), loop.iter)
            yield from _returns(loop.body, binding, tests, branch)
        binding.pop(loop.target.id, None)
    elif isinstance(loop.iter, ast.Name):
        _grow_per_item(loop, binding)


def _grow_per_item(loop: ast.For, binding: dict[str, ast.AST]) -> None:
    """`for ddl in ddl_list: prompt += f"{ddl}\\n\\n"`: one piece per item, read as one slot named by what the loop
    iterates, with the blank space each piece ends in."""
    for name, ending in _grown_per_item(loop, binding):
        item = ast.copy_location(ast.JoinedStr([ast.FormattedValue(loop.iter, -1, None), ast.Constant(ending)]), loop)
        binding[name] = ast.copy_location(ast.BinOp(binding[name], ast.Add(), item), loop)


def _grown_per_item(loop: ast.For, binding: dict[str, ast.AST]) -> list[tuple[str, str]]:
    """The bound texts a loop adds to (`text += ...`, under an `if` of its body too), each with the blank space
    its last piece ends in."""
    added = {}
    for node in ast.walk(loop):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
            last = node.value.values[-1] if isinstance(node.value, ast.JoinedStr) and node.value.values else node.value
            text = last.value if isinstance(last, ast.Constant) and isinstance(last.value, str) else ""
            added[node.target.id] = text[len(text.rstrip()) :]
    return sorted((name, ending) for name, ending in added.items() if name in binding and not isinstance(binding[name], ast.List))


def _grown(statement: ast.stmt, binding: dict[str, ast.AST]) -> tuple[str, ast.AST] | None:
    """What a statement makes of a local it adds to: a text with `text += piece`, a list with
    `parts.append(piece)`, `parts.extend([...])` or `parts += [...]`, a dict with `payload["score"] = s`;
    None for any other statement."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Subscript):
        return _keyed_into(statement.targets[0], statement.value, binding)
    if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) and isinstance(statement.target, ast.Name):
        name, added = statement.target.id, bind(statement.value, binding)
        held = binding.get(name)
        if isinstance(held, ast.List) and isinstance(added, (ast.List, ast.Tuple)):
            return name, ast.List([*held.elts, *added.elts], ast.Load())
        return (name, ast.copy_location(ast.BinOp(held, ast.Add(), added), held)) if held is not None else None
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and len(call.args) == 1):
        return None
    name = call.func.value.id
    held = binding.get(name)
    if not isinstance(held, ast.List):
        return None
    added = bind(call.args[0], binding)
    if call.func.attr == "append":
        return name, ast.List([*held.elts, added], ast.Load())
    if call.func.attr == "extend" and isinstance(added, (ast.List, ast.Tuple)):
        return name, ast.List([*held.elts, *added.elts], ast.Load())
    return None


def _keyed_into(target: ast.Subscript, value: ast.AST, binding: dict[str, ast.AST]) -> tuple[str, ast.Dict] | None:
    """A dict local with one more key: `payload["score"] = round(s.score, 4)`."""
    held = binding.get(target.value.id) if isinstance(target.value, ast.Name) else None
    key = target.slice
    if not (isinstance(held, ast.Dict) and isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return None
    grown = ast.Dict([*held.keys, key], [*held.values, bind(value, binding)])
    return target.value.id, ast.copy_location(grown, held)


def returned_dict(call: ast.AST, helpers: Helpers) -> ast.Dict | None:
    """The dict a call of a helper returns, its values reading the call's arguments: the richest of its
    returns (the one with the most keys, a key set under a condition included); None when it is no such call."""
    helper = helper_called(call, helpers)
    binding = helper and _arguments(helper, call, isinstance(call.func, ast.Attribute))
    if binding is None:
        return None
    made = [value for value in _returns(helper.body, binding, ()) if isinstance(value, ast.Dict)]
    return max(made, key=lambda d: len(d.keys), default=None)


def _as_text(value: ast.AST, strings_only: bool = False) -> ast.JoinedStr | None:
    """A value as the f-string it is: an f-string, a string, or a sum of strings and values; ``strings_only``: an
    f-string alone, or the one a conditional shows."""
    from .pybuild import listed_lines, text_pieces  # pybuild follows calls with this module

    if strings_only and isinstance(value, ast.IfExp):
        value = value.body  # `f" | {date}" if date else ""`: the branch that shows something
    if strings_only and not isinstance(value, ast.JoinedStr):
        return None
    pieces = text_pieces(value) if not isinstance(value, ast.List) else listed_lines(value)
    if not pieces or any(not isinstance(piece, (ast.JoinedStr, ast.Constant)) for piece in pieces):
        return None
    values = [v for piece in pieces for v in (piece.values if isinstance(piece, ast.JoinedStr) else [piece])]
    # Placed where its first literal is written: a text built in pieces is reported where it starts.
    first = next((p for p in pieces if getattr(p, "lineno", None) is not None and (not isinstance(p, ast.JoinedStr) or p.values)), value)
    return ast.copy_location(ast.JoinedStr(values), first)


def listed_keys(node: ast.AST) -> list[str] | None:
    """The keys a list or tuple written out names (`["source", "title", "date"]`); None for any other value."""
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else None
    if not items or not all(isinstance(i, ast.Constant) and isinstance(i.value, str) and _KEY.fullmatch(i.value) for i in items):
        return None
    return [i.value for i in items]


def over_keys(loop: ast.For | ast.AsyncFor) -> bool:
    """Whether a loop goes over the keys of one record rather than over items: it iterates keys written out
    and its body reads something at its variable (`doc[key]`, `doc.get(key)`, `getattr(doc, key)`)."""
    if not isinstance(loop.target, ast.Name) or listed_keys(loop.iter) is None:
        return False
    name = loop.target.id
    for node in (n for statement in loop.body for n in ast.walk(statement)):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == name:
            return True
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == name for a in node.args[:2]):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "get" or getattr(node.func, "id", "") == "getattr":
                return True
    return False


def with_listed_keys(module: ast.Module) -> ast.Module:
    """The module with each loop over a name of the module that holds keys written out, set once
    (`DISPLAY_FIELDS = ["title", "date"]`, then `for key in DISPLAY_FIELDS`), iterating those keys as written:
    the loops are rewritten in place (a copy of a large module would cost more than the reading)."""
    listed = {}
    for statement in module.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None and listed_keys(statement.value):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                listed[targets[0].id] = statement.value
    if not listed:
        return module  # most modules hold no such list: their trees are not walked for it
    stored = collections.Counter(n.id for n in ast.walk(module) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    held = {name: value for name, value in listed.items() if stored[name] == 1}
    for loop in (n for n in ast.walk(module) if isinstance(n, (ast.For, ast.AsyncFor))) if held else ():
        if isinstance(loop.iter, ast.Name) and loop.iter.id in held:
            loop.iter = ast.copy_location(copy.deepcopy(held[loop.iter.id]), loop.iter)
    return module


class _Bind(ast.NodeTransformer):
    def __init__(self, binding: dict[str, ast.AST]):
        self.binding = binding

    def visit_Name(self, node: ast.Name) -> ast.AST:
        value = self.binding.get(node.id)
        return copy.deepcopy(value) if value is not None and isinstance(node.ctx, ast.Load) else node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        """A field whose value is now known text (`{key.title()}` with `key` bound to "date") is that text."""
        self.generic_visit(node)
        values: list[ast.AST] = []
        for part in node.values:
            known = _known_text(part.value) if isinstance(part, ast.FormattedValue) and part.conversion == -1 and part.format_spec is None else None
            if known is not None:
                part = ast.copy_location(ast.Constant(known), node)
            if values and isinstance(part, ast.Constant) and isinstance(values[-1], ast.Constant):
                values[-1] = ast.copy_location(ast.Constant(values[-1].value + part.value), values[-1])
            else:
                values.append(part)
        return ast.copy_location(ast.JoinedStr(values), node)


def _known_text(node: ast.AST) -> str | None:
    """The text an expression makes when it is a string, or a string's method on one with constant arguments; None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _TEXT_METHODS and not node.keywords):
        return None
    text = _known_text(node.func.value)
    arguments = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if text is None or len(arguments) != len(node.args):
        return None
    try:
        return getattr(text, node.func.attr)(*arguments)
    except TypeError:  # `key.replace("_")`: not a call the method takes
        return None


def bind(node: ast.AST, binding: dict[str, ast.AST]) -> ast.AST:
    """An expression with the names ``binding`` knows replaced by their values (a copy)."""
    return _Bind(binding).visit(copy.deepcopy(node)) if binding else node
