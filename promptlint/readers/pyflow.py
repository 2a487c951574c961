"""Which values of a Python module may hold the user's question rewritten, read from how the module fills
its names and calls its functions, never run.

A value holds a rewrite when its name says so (`standalone_question`, `enhanced["condensed_query"]`), when a
call named for rewriting the question makes it (`condense_question(q, h)`, `question_rewriter.invoke(...)`), a
function typed to return one (`-> RewrittenQuery`) or an object built to write one (`prompt |
llm.with_structured_output(RewrittenQuery)`), or when it is read from such a value (`rewritten.query`,
`variants[0]`, `result.content.strip()`). A name holds one when any value it is given does, in any branch
(`chosen = best` after `for best, score in variants`), or its annotation names a rewrite; a parameter when any
call of its function in the module passes one (`self._respond(chosen, docs)`). Of values tried in turn
(`state.get("standalone_question") or question`), only the first counts: the others stand in when it is missing.
"""

from __future__ import annotations

import ast

from ..meaning.lexicon import split
from .pybuild import called_name
from .segment import slot_kind

# Methods that return the text they are called on, written differently.
_TEXT_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "replace", "removeprefix", "removesuffix"})
# Calls on a chain or a prompt that run it; what they return is what the chain was built to write.
_RUNS = frozenset({"invoke", "ainvoke", "run", "arun", "predict", "apredict", "__call__"})
# Parts of a rewrite that are the rewrite's text, whatever their names say.
_TEXT_PARTS = frozenset({"content", "text"})


class Rewrites:
    """The module's values that may hold the question rewritten (see the module's docstring)."""

    def __init__(self, module: ast.Module, vocab, verbs: frozenset[str]):
        self.vocab, self.verbs = vocab, verbs
        self.scope: dict[int, ast.AST] = {}
        functions = [f for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        # Breadth first: a function nested in another comes later and claims its own nodes.
        for function in functions:
            for node in ast.walk(function):
                self.scope[id(node)] = function
        self.functions = {f.name: f for f in functions}
        self.given: dict[tuple[int, str], list[ast.AST]] = {}
        self.typed: set[tuple[int, str]] = set()
        self.attributes: dict[str, list[ast.AST]] = {}
        self.calls: dict[str, list[ast.Call]] = {}
        for node in ast.walk(module):
            self._record(node)
        self._names: dict[tuple[int, str], bool] = {}
        self._returns: dict[str, bool] = {}

    def holds(self, value: ast.AST) -> bool:
        """Whether a value may hold the question rewritten."""
        value = _as_item(_preferred(value))
        if isinstance(value, ast.IfExp):
            return self.holds(value.body) or self.holds(value.orelse)
        name = _value_name(value)
        if name and slot_kind(name, self.vocab) == "rewritten":
            return True
        if isinstance(value, ast.Name):
            return self._name_holds(value.id, self.scope.get(id(value)))
        if isinstance(value, (ast.Attribute, ast.Subscript)):
            return self._part_holds(value)
        return isinstance(value, ast.Call) and self._call_holds(value)

    def rewriter_writes(self, node: ast.Return | ast.Assign) -> bool:
        """Whether a `return` or an assignment is of a function whose name says it rewrites the question (`def
        rewrite_query(state)`, `def transform_query`): what it returns or writes under the question's key is the
        rewrite, however it was made."""
        scope = self.scope.get(id(node))
        return isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._names_a_rewrite(scope.name)

    def _name_holds(self, name: str, scope: ast.AST | None) -> bool:
        """Whether a name may hold the question rewritten where ``scope`` (a function, or None for the module) reads it."""
        key = (id(scope) if scope is not None else 0, name)
        if key not in self._names:
            self._names[key] = False  # a name given itself (`q = q.strip()`) adds nothing to what it holds
            self._names[key] = key in self.typed or any(self.holds(v) for v in self.given.get(key, ())) or self._passed(name, scope)
        return self._names[key]

    def _names_a_rewrite(self, identifier: str) -> bool:
        """Whether a name (of a function, an object, a type) says it is, or makes, the question rewritten:
        `RewrittenQuery`, `question_rewriter`, `condense_question`; not `on_new_message`, which has just arrived."""
        words = split(identifier)
        asked = [n for n, w in enumerate(words) if slot_kind(w, self.vocab) == "question"]
        qualified = any(w in self.vocab.rewrite_qualifiers for w in words) and any(words[n] in self.vocab.rewrite_heads for n in asked)
        rewording = qualified or any(w in self.verbs for w in words)
        # `expand_query_context` makes the context of a question, not the question: what the name's last words name
        after = words[asked[-1] + 1 :] if asked else []
        named = "" if after[:1] and after[0] in self.vocab.rewrite_adjuncts else " ".join(after)
        return rewording and bool(asked) and not (named and slot_kind(named, self.vocab) in ("context", "history"))

    def _record(self, node: ast.AST) -> None:
        if isinstance(node, ast.Call):
            self.calls.setdefault(called_name(node), []).append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                self._give(target, node.value)
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and self._typed_as_rewrite(node.annotation):
                self.typed.add(self._key(node.target))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self._give(node.target, node.iter)  # an item of a list of rewrites is a rewrite
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._give(node.optional_vars, node.context_expr)

    def _give(self, target: ast.AST, value: ast.AST | None) -> None:
        if value is None:
            return
        if isinstance(target, ast.Name):
            self.given.setdefault(self._key(target), []).append(value)
        elif isinstance(target, ast.Attribute):
            self.attributes.setdefault(target.attr, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            paired = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
            for n, element in enumerate(target.elts):
                self._give(element, value.elts[n] if paired else value)
        elif isinstance(target, ast.Starred):
            self._give(target.value, value)

    def _key(self, name: ast.Name) -> tuple[int, str]:
        scope = self.scope.get(id(name))
        return (id(scope) if scope is not None else 0, name.id)

    def _passed(self, name: str, scope: ast.AST | None) -> bool:
        """Whether a call of the function ``name`` is a parameter of passes it a rewrite."""
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        params = [a.arg for a in scope.args.posonlyargs + scope.args.args]
        if name not in params and name not in [a.arg for a in scope.args.kwonlyargs]:
            return False
        for call in self.calls.get(scope.name, ()):
            # A method called on an object (`self._respond(q, docs)`) is passed the object as its first parameter.
            positional = params[1:] if isinstance(call.func, ast.Attribute) and params[:1] in (["self"], ["cls"]) else params
            bound = [*zip(positional, call.args), *((k.arg, k.value) for k in call.keywords if k.arg)]
            if any(param == name and not isinstance(arg, ast.Starred) and self.holds(arg) for param, arg in bound):
                return True
        return False

    def _part_holds(self, value: ast.Attribute | ast.Subscript) -> bool:
        """`rewritten.query`, `result.content`, `variants[0]`, `variants[:3]` of a rewrite: the rewrite; its other
        fields (`rewritten.retrieval_tag`) are not."""
        part = _value_name(value)
        if part is None:
            return isinstance(value, ast.Subscript) and self.holds(value.value)
        kind = slot_kind(part, self.vocab)
        textual = kind in ("question", "rewritten") or part in self.vocab.rewrite_qualifiers or part in _TEXT_PARTS
        return textual and self.holds(value.value)

    def _call_holds(self, call: ast.Call) -> bool:
        callee = called_name(call)
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if self._names_a_rewrite("_".join(called_names(call))):
            return True
        if receiver is not None and callee in _TEXT_METHODS or callee == "str" and call.args:
            return self.holds(receiver if receiver is not None else call.args[0])
        if receiver is not None and callee in _RUNS:
            return self._built_to_rewrite(receiver)
        return callee in self.functions and self._returns_a_rewrite(self.functions[callee])

    def _returns_a_rewrite(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether a function of the module is typed to return a rewrite, or returns one."""
        if function.name not in self._returns:
            self._returns[function.name] = False
            returned = [r.value for r in ast.walk(function) if isinstance(r, ast.Return) and r.value is not None and self.scope.get(id(r)) is function]
            typed = function.returns is not None and self._typed_as_rewrite(function.returns)
            self._returns[function.name] = typed or any(self.holds(v) for v in returned)
        return self._returns[function.name]

    def _built_to_rewrite(self, receiver: ast.AST) -> bool:
        """Whether the object a chain is run on was built of parts named for rewriting the question (`rewriter =
        rewrite_prompt | llm.with_structured_output(RewrittenQuery)`, `self.rewriter = ...`), wherever the module builds it."""
        if isinstance(receiver, ast.Attribute):
            built = self.attributes.get(receiver.attr, [])
        elif isinstance(receiver, ast.Name):
            built = [v for (_, name), values in self.given.items() if name == receiver.id for v in values]
        else:
            built = []
        return any(self._typed_as_rewrite(v) for v in built)

    def _typed_as_rewrite(self, node: ast.AST) -> bool:
        """Whether a type, or what an object is built of, is named for the question rewritten."""
        names = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)] + [n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)]
        names += [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.isidentifier()]
        return any(self._names_a_rewrite(name) for name in names)


def called_names(call: ast.Call) -> list[str]:
    """The names a call is known by: the function's, and the object's whose method it is (`question_rewriter.invoke`,
    `self.query_rewriter.run`)."""
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else None
    return [name, called_name(call)] if name else [called_name(call)]


def _preferred(value: ast.AST) -> ast.AST:
    """Of values tried in turn (`a or b`), the first; an awaited value as what is awaited."""
    while True:
        if isinstance(value, ast.Await):
            value = value.value
        elif isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            value = value.values[0]
        else:
            return value


def _as_item(value: ast.AST) -> ast.AST:
    """`x.get("key")` as `x["key"]`; any other value as it is."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get" and value.args:
        return ast.Subscript(value=value.func.value, slice=value.args[0])
    return value


def _value_name(value: ast.AST) -> str | None:
    """The name a value is known by: a variable's, an attribute's, or a key's (`enhanced["standalone_query"]`,
    `state.get("standalone_query")`)."""
    value = _as_item(value)
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Attribute):
        return value.attr
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, str):
        return value.slice.value
    return None
