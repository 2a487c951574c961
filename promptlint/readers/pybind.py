"""What a module fills its templates' slots with, read at the calls that fill them, never run.

A template is a string constant given a name (`QA_PROMPT = '''...'''`) or a string a function
returns (`def build_prompt(context, question): return f"..."`). The module fills its slots where
it calls them: `QA_PROMPT.format(question=standalone_question)`, `chain.invoke({"question": q})`
on a prompt made from it, or `build_prompt(docs, rewritten_question)`, whose arguments bind the
parameters the f-string prints. A slot that holds the question, filled with a value whose name
says it is the question rewritten (`standalone_question`, `enhanced["condensed_query"]`), or with a
local a function named for rewriting the question fills (`standalone = rewrite_question(q, history)`,
`q2 = condense_question(q, h) if h else q`), is bound to the rewritten question: the template alone
cannot say so.
"""

from __future__ import annotations

import ast

from ..meaning.lexicon import Lexicon, split
from .pybuild import called_name
from .segment import slot_kind, words

# Calls on a prompt that fill its slots by keyword, or with a dict of them.
_FILLING = frozenset({"format", "format_messages", "format_prompt", "invoke", "ainvoke", "partial"})


def rewritten_bindings(module: ast.Module, lexicon: Lexicon) -> dict[int, tuple[tuple[str, str], ...]]:
    """For the first line of each string a template is made of: the question slots a call of the
    module fills with a rewritten question, each as (slot, "rewritten")."""
    vocab = words(lexicon=lexicon)
    owners = _owners(module)
    rewriting = _rewriting_calls(module, vocab, frozenset(lexicon.words("segment", "rewrite-verbs")))
    bound: dict[str, set[str]] = {}
    for call in (n for n in ast.walk(module) if isinstance(n, ast.Call)):
        owner, filled = _filled(call, owners)
        for slot, value in filled:
            name = _name(value)
            rewritten = name and slot_kind(name, vocab) == "rewritten" or isinstance(value, ast.Name) and value.id in rewriting
            if rewritten and slot_kind(slot, vocab) == "question":
                bound.setdefault(owner, set()).add(slot)
    return {line: tuple((slot, "rewritten") for slot in sorted(bound[owner])) for owner, (_, lines) in owners.items() if owner in bound for line in lines}


def _rewriting_calls(module: ast.Module, vocab, verbs: frozenset[str]) -> set[str]:
    """The locals a call of a function named for rewriting the question fills, alone or in either branch of a
    choice: `standalone = rewrite_question(q, history)`, `q2 = await condense_query(q, h) if h else q`."""
    filled = set()
    for node in ast.walk(module):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        branches = [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
        calls = [b.value if isinstance(b, ast.Await) else b for b in branches]
        if any(isinstance(c, ast.Call) and _names_a_rewrite(called_name(c), vocab, verbs) for c in calls):
            filled.add(node.targets[0].id)
    return filled


def _names_a_rewrite(function: str, vocab, verbs: frozenset[str]) -> bool:
    named = split(function)
    return any(w in verbs for w in named) and any(slot_kind(w, vocab) == "question" for w in named)


def _owners(module: ast.Module) -> dict[str, tuple[list[str], set[int]]]:
    """Each template's name (a constant's, or the function's that returns it) with the parameters that
    fill it (a function's) and the lines its strings start on."""
    owners: dict[str, tuple[list[str], set[int]]] = {}
    for node in ast.walk(module):
        if _named_assignment(node):
            owners[node.targets[0].id] = ([], _string_lines(node.value))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            returned = {line for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None for line in _string_lines(r.value)}
            owners[node.name] = ([a.arg for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")], returned)
    owners = {name: owner for name, owner in owners.items() if owner[1]}
    # `chain = QA_PROMPT | llm`: what a prompt is piped into is filled as the prompt is.
    for node in ast.walk(module):
        if _named_assignment(node) and isinstance(node.value, ast.BinOp):
            left = node.value
            while isinstance(left, ast.BinOp):
                left = left.left
            if isinstance(left, ast.Name) and left.id in owners:
                owners[node.targets[0].id] = owners[left.id]
    return owners


def _named_assignment(node: ast.AST) -> bool:
    return isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)


def _string_lines(node: ast.AST) -> set[int]:
    return {n.lineno for n in ast.walk(node) if isinstance(n, ast.JoinedStr) or isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _filled(call: ast.Call, owners: dict[str, tuple[list[str], set[int]]]) -> tuple[str, list[tuple[str, ast.AST]]]:
    """The template a call fills and (slot, value) for each slot it fills; ("", []) for any other call."""
    callee = called_name(call)
    if callee in owners and owners[callee][0]:
        # `build_prompt(context, rewritten_question)`: the arguments bind the function's parameters.
        params = owners[callee][0]
        return callee, [*zip(params, call.args), *((k.arg, k.value) for k in call.keywords if k.arg)]
    target = call.func.value if isinstance(call.func, ast.Attribute) else None
    owner = target.id if isinstance(target, ast.Name) else None
    if callee not in _FILLING or owner not in owners:
        return "", []
    filled = [(k.arg, k.value) for k in call.keywords if k.arg]
    for arg in call.args:
        if isinstance(arg, ast.Dict):
            filled += [(k.value, v) for k, v in zip(arg.keys, arg.values) if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    return owner, filled


def _name(value: ast.AST) -> str | None:
    """The name a value is known by: a variable's, an attribute's, or a key's (`enhanced["standalone_query"]`)."""
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Attribute):
        return value.attr
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, str):
        return value.slice.value
    return None
