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
import collections

from .expressions import sum_terms
from .pycalls import Helpers, returned_text as helper_text

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def joined(node: ast.AST) -> ast.expr | None:
    """What `SEP.join(items)` joins: its one argument; None for any other node."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" and len(node.args) == 1:
        return node.args[0]
    return None


def shown_or_nothing(node: ast.AST | None) -> ast.AST | None:
    """`f" (Score: {s:.2f})" if s is not None else ""`: the text it shows, when it shows one; None for any other value."""
    if not isinstance(node, ast.IfExp):
        return None
    empty = [isinstance(b, ast.Constant) and isinstance(b.value, str) and not b.value.strip() for b in (node.body, node.orelse)]
    return node.orelse if empty[0] else node.body if empty[1] else None


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

    def __init__(self, name: str | None, helpers: Helpers | None = None):
        self.name = name
        # The module's functions, whose text a call of one is read as (see pycalls).
        self.helpers = helpers or {}
        self.parts: list[list[ast.expr]] | None = None
        self.strings: dict[str, list[ast.expr]] = {}
        # The literals and f-strings each string local is made of, which a text written out takes in.
        self.values: dict[str, list[ast.AST]] = {}
        # What each string local takes one piece of per item, in a loop: the names the loops iterate.
        self.items: dict[str, list[str]] = {}

    def read(self, body: list[ast.stmt]) -> bool:
        """Read the statements in order; False when a loop fills the list otherwise than once per item of a collection."""
        for statement in body:
            if isinstance(statement, _NESTED):
                continue
            if isinstance(statement, _LOOPS):
                if self.name and any(isinstance(n, ast.Name) and n.id == self.name for n in ast.walk(statement)):
                    if not self._filled_per_item(statement):
                        return False
                    continue
                self._grown_per_item(statement)
                continue
            if isinstance(statement, ast.If) and statement.orelse:
                if not self._branches(statement):
                    return False
            elif not self._statement(statement):
                for field in ("body", "orelse", "finalbody"):
                    if not self.read(getattr(statement, field, [])):
                        return False
        return True

    def _branches(self, choice: ast.If) -> bool:
        """An `if` and its `else`, each read from the state before them; where both write a string, the `if`'s
        stands (`if docs: prompt = "..." + ...` / `else: prompt = question`: the branch that writes the prompt)."""
        before = (dict(self.strings), dict(self.values), self.parts)
        if not self.read(choice.orelse):
            return False
        otherwise = (self.strings, self.values, self.parts)
        self.strings, self.values, self.parts = dict(before[0]), dict(before[1]), before[2]
        if not self.read(choice.body):
            return False
        for name, pieces in otherwise[0].items():
            if name not in self.strings or self.strings[name] is before[0].get(name):
                self.strings[name], self.values[name] = pieces, otherwise[1][name]
        if self.parts is before[2]:
            self.parts = otherwise[2]
        return True

    def _filled_per_item(self, loop: ast.stmt) -> bool:
        """A `for` loop over a collection that adds to the list its pieces for each item stands in the text as one
        slot, named by what it iterates (`{relevant_memories}`), as a comprehension joined over it reads; each
        item's text is read on its own (see pybuild). False for any other loop that fills the list."""
        iterated = _unwrapped(loop.iter, ("enumerate", "sorted", "reversed")) if isinstance(loop, (ast.For, ast.AsyncFor)) and not loop.orelse else None
        if self.parts is None or not isinstance(iterated, (ast.Name, ast.Attribute)):
            return False
        self.parts.append([ast.FormattedValue(value=iterated, conversion=-1)])
        return True

    def _grown_per_item(self, loop: ast.stmt) -> None:
        """A string a loop adds to holds one piece per item. A text of the function's own that a `for` loop
        only adds to (`prompt += "\\n\\n" + doc`) goes on with the items as one slot, named by what the loop
        iterates (`{docs}`), as a comprehension joined over it reads; any other string the loop writes is no
        longer a text of literals."""
        grown = self._grown_text(loop)
        for node in ast.walk(loop):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name) and target.id != grown:
                        self.strings.pop(target.id, None)
                        self.values.pop(target.id, None)
        if grown is not None:
            self.strings[grown] = self.strings[grown] + [ast.FormattedValue(value=loop.iter, conversion=-1)]
            self.values[grown].append(loop)
            self.items.setdefault(grown, []).append(loop.iter.id)

    def _grown_text(self, loop: ast.stmt) -> str | None:
        """The one text of the function's own a `for` loop over a name only adds to, at the top of its body."""
        if not isinstance(loop, ast.For) or not isinstance(loop.iter, ast.Name) or loop.orelse:
            return None
        # A counter the loop steps (`n += 1`) writes no text.
        targets = {self._added_to(statement) for statement in loop.body if not _counted(statement)}
        if len(targets) != 1 or None in targets:
            return None
        [name] = targets
        return name if self.own_text(name) else None

    @staticmethod
    def _added_to(statement: ast.stmt) -> str | None:
        """The name a statement adds text to: `x += ...`, or `x = x + ...`."""
        if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) and isinstance(statement.target, ast.Name):
            return statement.target.id
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            name = statement.targets[0].id
            return name if _after(name, statement.value) is not None else None
        return None

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
        if target in self.strings and _trimmed(target, value):
            return  # `prompt = prompt[:limit]`, `prompt = prompt.strip()`: the text as written, cut to fit
        if target in self.strings and (rest := _after(target, value)) is not None:
            self._added(target, rest)  # `prompt = prompt + "..."`: an addition written out
            if self.values.get(target):
                self.values[target][-1] = value  # the sum as written, so that it is no prompt of its own
        elif target in self.strings and (added := self._added_by_helper(target, value)) is not None:
            # `prompt = self.add_ddl_to_prompt(prompt, ddl_list)`: the text with what the helper adds to it.
            self.strings[target] = self.strings[target] + added
            self.values[target].append(value)
        elif target == self.name and isinstance(value, (ast.List, ast.Tuple)):
            self.parts = [self.pieces(e) for e in value.elts]
        else:
            self.strings[target] = self.pieces(value)
            self.values[target] = [value]

    def _added_by_helper(self, target: str, value: ast.AST) -> list[ast.expr] | None:
        """What a function of the module that is handed the text and returns it grown adds to it; None for any other value."""
        made = helper_text(value, self.helpers)
        first = made.values[0] if made is not None and made.values else None
        if not (plain_field(first) and isinstance(first.value, ast.Name) and first.value.id == target):
            return None
        return list(made.values[1:])

    def _added(self, target: str, value: ast.AST) -> None:
        if target == self.name and self.parts is not None and isinstance(value, (ast.List, ast.Tuple)):
            self.parts += [self.pieces(e) for e in value.elts]
        elif target in self.strings:
            self.strings[target] = self.strings[target] + self.pieces(value)
            self.values[target].append(value)

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
            return [piece for part in value.values for piece in self._written(part)]
        if isinstance(value, ast.Name) and value.id in self.strings:
            return list(self.strings[value.id])
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            return self.pieces(value.left) + self.pieces(value.right)
        if (shown := shown_or_nothing(value)) is not None:
            return self.pieces(shown)  # `x ? \`authors: ${x}\` : ""`, a line shown when there is a value
        if (filled := _filled_or_bare(value)) is not None:
            return self.pieces(filled)
        if (lines := literal_lines(value)) is not None and _written_string(value.func.value):
            # `" ".join(["Write ...", "Cite ..."])`: the text the lines make.
            return [piece for n, item in enumerate(lines) for piece in ([value.func.value] if n else []) + self.pieces(item)]
        if (made := helper_text(value, self.helpers)) is not None:
            return list(made.values)  # `hints = request_hints(req)`: the text the module's function makes of it
        return [ast.FormattedValue(value=_joined_over(value) or value, conversion=-1)]

    def _written(self, part: ast.expr) -> list[ast.expr]:
        """An f-string's field naming a local the function writes text into, as that text; any other part as it is."""
        if plain_field(part) and isinstance(part.value, ast.Name):
            return self.strings.get(part.value.id, [part]) if self.own_text(part.value.id) else [part]
        return [part]

    def own_text(self, name: str) -> bool:
        """The local holds words of the function's own, not only what it was handed (`context = "\\n".join(docs)`)."""
        return _has_words(self.strings.get(name, []))


def literal_lines(value: ast.AST) -> list[ast.expr] | None:
    """The lines of `SEP.join([...])` over a list or tuple of string literals and f-strings only; None for any other
    value. (What separates them is the caller's to read: a literal, or `chr(10)`.)"""
    items = joined(value)
    if not isinstance(items, (ast.List, ast.Tuple)) or not items.elts:
        return None
    return list(items.elts) if all(_written_string(e) or isinstance(e, ast.JoinedStr) for e in items.elts) else None


def _filled_or_bare(value: ast.AST) -> ast.AST | None:
    """`"Facts:\\n" + "\\n".join(facts) if facts else "Facts:\\n"`: a block shown with what it holds, or its label bare
    when there is nothing, read as the block filled; None for any other value (a choice of two words, `"Arabic" if
    arabic else "English"`, stays a slot)."""
    if not isinstance(value, ast.IfExp) or not _written_string(value.orelse) or not value.orelse.value.strip():
        return None
    terms = sum_terms(value.body)
    return value.body if len(terms) > 1 and _written_string(terms[0]) and terms[0].value.startswith(value.orelse.value) else None


def _has_words(pieces: list[ast.expr]) -> bool:
    return any(_written_string(p) and p.value.strip() for p in pieces)


def _written_string(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _unwrapped(iterated: ast.AST, calls: tuple[str, ...]) -> ast.AST:
    """What a loop iterates through the ``calls`` around it: `enumerate(sorted(docs))` is `docs`."""
    while isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id in calls and iterated.args:
        iterated = iterated.args[0]
    return iterated


def _trimmed(name: str, value: ast.AST) -> bool:
    """`name[:n]`, `name[a:b]` or `name.strip()`: the text a name holds, cut."""
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
        return isinstance(value.value, ast.Name) and value.value.id == name
    trims = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("strip", "rstrip", "lstrip")
    return trims and isinstance(value.func.value, ast.Name) and value.func.value.id == name


def _counted(statement: ast.stmt) -> bool:
    """`n += 1`: a number added to a name."""
    return isinstance(statement, ast.AugAssign) and isinstance(statement.value, ast.Constant) and type(statement.value.value) in (int, float)


def _after(name: str, value: ast.AST) -> ast.expr | None:
    """What `name + a + b` adds to ``name`` (`a + b`); None when the sum does not start with it."""
    added = []
    while isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        added.append(value.right)
        value = value.left
    if not (isinstance(value, ast.Name) and value.id == name and added):
        return None
    rest = added.pop()
    while added:
        rest = ast.BinOp(left=rest, op=ast.Add(), right=added.pop())
    return rest


def returned_text(function: ast.FunctionDef | ast.AsyncFunctionDef, returned: ast.AST) -> ast.AST:
    """What a function returns, a name it binds once to a string read as that string (`text = f"..."; return text`)."""
    if isinstance(returned, ast.Name):
        built = _Built(None)
        built.read(function.body)
        [value, *more] = built.values.get(returned.id, [None])
        if not more and isinstance(value, (ast.Constant, ast.JoinedStr)):
            return value
    return returned


def module_texts(module: ast.Module) -> dict[str, ast.expr]:
    """The module's texts: each name its top level binds to a string literal (`ANSWER_FORMAT = "..."`, a
    JavaScript template literal with no field) and nothing in the module binds again, not even a function's
    local of the same name."""
    bound = collections.Counter(n.id for n in ast.walk(module) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    texts = {
        s.targets[0].id: s.value
        for s in module.body
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and _written_whole(s.value)
    }
    return {name: text for name, text in texts.items() if bound[name] == 1}


def _written_whole(value: ast.AST) -> bool:
    """A string written out whole: a literal, or an f-string with no field."""
    parts = value.values if isinstance(value, ast.JoinedStr) else [value]
    return all(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in parts)


def written_out(function: ast.FunctionDef | ast.AsyncFunctionDef, module_text: dict[str, ast.expr], helpers: Helpers | None = None) -> dict[int, tuple[ast.Call, set[int], tuple[str, ...]]]:
    """The texts of a function read as more than one literal writes, keyed by the id of the literal that
    starts them: an f-string that names string locals the function writes text into, or the module's
    texts (``module_text``, see module_texts), with those written in (`prompt = f"{sources_section}{ANSWER_FORMAT}"`),
    a local bound to the text a function of the module (``helpers``) returns read as that text,
    and a string local the function grows (`prompt = "..."`, then `prompt += f"..."`), as all it adds up to.
    Each comes with the ids of the literals so taken in, which are then no prompts of their own, and the
    names of what a loop added one piece of per item (see _grown_per_item). A returned list of lines
    joined is one too."""
    built = _with_module_text(function, module_text, helpers)
    built.read(function.body)
    texts = _grown_texts(built)
    for node in own_nodes(function):
        if isinstance(node, ast.Return) and (lines := _returned_lines(function, node)) is not None:
            texts.setdefault(lines[0], (*lines[1], ()))
        if not isinstance(node, ast.JoinedStr):
            continue
        names = [p.value.id for p in node.values if isinstance(p, ast.FormattedValue) and isinstance(p.value, ast.Name) and built.own_text(p.value.id)]
        if not names:
            continue
        taken = {id(n) for name in names for value in built.values[name] for n in _written_in(value)}
        texts[id(node)] = one_text(built.pieces(node), node), taken, tuple(item for name in names for item in built.items.get(name, ()))
    return texts


def _written_in(value: ast.AST):
    """The nodes of a value that a text written out takes in: not those of what it makes per item (a comprehension,
    a JavaScript `.map` callback), which it reads as one slot and which stay one source's wrapper of their own."""
    pending = [value]
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))


def _grown_texts(built: _Built) -> dict[int, tuple[ast.Call, set[int], tuple[str, ...]]]:
    """Each string local of its own that a function adds to after its first value, as written_out gives it."""
    texts = {}
    for name, (first, *added) in built.values.items():
        if added and isinstance(first, (ast.Constant, ast.JoinedStr, ast.BinOp)) and built.own_text(name):
            texts[id(first)] = one_text(built.strings[name], first), {id(n) for value in added for n in _written_in(value)}, tuple(built.items.get(name, ()))
    return texts


def _with_module_text(function: ast.FunctionDef | ast.AsyncFunctionDef, module_text: dict[str, ast.expr], helpers: Helpers | None) -> _Built:
    """What a function builds, before it reads its body: the module's texts, less those a parameter of the same name hides."""
    built = _Built(None, helpers)
    arguments = function.args
    own = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg) if a is not None}
    for name, text in module_text.items():
        if name not in own:
            built.strings[name], built.values[name] = built.pieces(text), [text]
    return built


def _returned_lines(function: ast.FunctionDef | ast.AsyncFunctionDef, returned: ast.Return) -> tuple[int, tuple[ast.Call, set[int]]] | None:
    """A returned list of lines joined (`[`Question: ${q}`, "Context:", context, "Answer briefly."].join("\\n")`),
    as the one text it makes, keyed by its first literal, with the other literals it takes in."""
    items = joined(returned.value) if returned.value is not None else None
    if not isinstance(items, (ast.List, ast.Tuple)):
        return None
    literals = [item for item in items.elts if isinstance(item, (ast.Constant, ast.JoinedStr))]
    text = assembled(function, returned.value) if len(literals) >= 2 else None
    if text is None:
        return None
    return id(literals[0]), (text, {id(n) for literal in literals[1:] for n in ast.walk(literal)})


def summed_text(value: ast.AST) -> ast.Call | None:
    """A sum with a string of words among its terms (`"You are a tutor. " + f"Context: {context}" + "Answer
    briefly."`) as the one text it adds up to, its other terms slots; None for any other value."""
    pieces = summed_pieces(value)
    return one_text(pieces, value) if pieces is not None else None


def summed_pieces(value: ast.AST) -> list[ast.expr] | None:
    """The pieces of a sum with a string of words among its terms, as an f-string's parts; None for any other value."""
    if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)):
        return None
    pieces = _Built(None).pieces(value)
    if not any(isinstance(p, ast.Constant) and isinstance(p.value, str) and p.value.strip() for p in pieces):
        return None
    return pieces


def one_text(pieces: list[ast.expr], at: ast.AST) -> ast.Call:
    """Pieces of text as the one text they make, written as code writes lines joined (`"".join([f"..."])`),
    which the Python reader reads as such, placed at ``at``."""
    joined = ast.List(elts=[ast.JoinedStr(values=pieces)], ctx=ast.Load())
    return ast.copy_location(ast.Call(func=ast.Attribute(value=ast.Constant(""), attr="join", ctx=ast.Load()), args=[joined], keywords=[]), at)


def plain_field(part: ast.AST) -> bool:
    """An f-string's field shown as it is, with no conversion or format (`{name}`, not `{score:.2f}`)."""
    return isinstance(part, ast.FormattedValue) and part.conversion == -1 and part.format_spec is None


def own_nodes(function: ast.AST):
    """The nodes of a function body, not of the functions and classes nested in it."""
    pending = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        if not isinstance(node, _NESTED):
            yield node
            pending.extend(ast.iter_child_nodes(node))


def _joined_over(value: ast.AST) -> ast.Name | None:
    """The name a comprehension joined into one text iterates: `"\\n".join(f"..." for d in docs)` is docs,
    and so is `enumerate(docs)`."""
    comprehension = joined(value)
    if not isinstance(comprehension, (ast.ListComp, ast.GeneratorExp)):
        return None
    iterated = _unwrapped(comprehension.generators[0].iter, ("enumerate",))
    return iterated if isinstance(iterated, ast.Name) else None
