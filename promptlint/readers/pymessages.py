"""A chat request whose messages send the user's text twice: in a template and as a message of its own.

    system = f"Answer from the sources.\\nQUESTION: {question}\\nSOURCES:\\n{context}"
    messages = [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]
    prompt = ChatPromptTemplate.from_messages([("system", SYSTEM), MessagesPlaceholder("history"), ("human", "{question}")])

A message is a dict with a role and a content, a pair of a role and a content, a spread of other
messages (`*history`) or a placeholder for them (`MessagesPlaceholder("history")`). Its content is
read as the evaluator reads a value: a template (an f-string, or a string with `{slots}`, or a name
the function or the module binds once to one) or a value sent as it is (`question`, `"{question}"`).
When a later message sends as it is a value an earlier message's template shows, the messages are
read as one text, in order, each a paragraph: the template's text, the rest as slots named by what
they send (`{history}`, `{question}`). The rules then see the value where the model does, twice.
Otherwise the messages are left as they are, each template a prompt of its own. The same reading
serves JavaScript lowered to Python's form (see jslower).
"""

from __future__ import annotations

import ast
import re

from .pyassembly import one_text, own_nodes, plain_field

# What stands between two messages read as one text.
_BETWEEN = "\n\n"
# A slot a string template writes: `{question}`.
_SLOT = re.compile(r"\{([A-Za-z_]\w*)\}")


def messages_written_out(module: ast.Module) -> list[tuple[ast.AST, ast.Call]]:
    """The templates of the module sent beside a message that repeats one of their fields, each with
    the text of all the messages of its request (see the module's docstring)."""
    module_bound = _bound_once(module)
    scopes = [module, *(n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    return [read for scope in scopes for read in _in_scope(scope, module_bound)]


def _in_scope(scope: ast.AST, module_bound: dict[str, ast.AST]) -> list[tuple[ast.AST, ast.Call]]:
    """The requests of one function (or of the module's own statements) whose messages repeat a template's field."""
    bound = module_bound | _bound_once(scope)
    return [read for node in own_nodes(scope) if isinstance(node, (ast.List, ast.Tuple)) and (read := _repeating(node, bound)) is not None]


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


def _repeating(messages: ast.List | ast.Tuple, bound: dict[str, ast.AST]) -> tuple[ast.AST, ast.Call] | None:
    """The one template of a list of messages and the messages as one text, when another message, before it or
    after it, sends as it is a value the template shows, or the last message is a slot alone (`("human",
    "{question}")`); None otherwise."""
    contents = [_content(element) for element in messages.elts]
    if len(contents) < 2 or any(c is None for c in contents):
        return None  # not a list of messages: every element is one, or stands for others
    values = [_resolved(c, bound) for c in contents]
    sent = [_sent_as_is(v) for v in values]
    templates = [i for i, v in enumerate(values) if sent[i] is None and _shown(v)]
    if len(templates) != 1:
        return None
    first = templates[0]
    repeats = any(name in _shown(values[first]) for i, name in enumerate(sent) if i != first)
    # A chat template's last message may be its slot alone (`("human", "{question}")`): the request the template
    # ends in, which the template's text and the rules read as its last part.
    asks_last = first < len(values) - 1 and _string(values[-1]) is not None and sent[-1] is not None
    if not (repeats or asks_last):
        return None
    pieces: list[ast.expr] = []
    for i, value in enumerate(values):
        pieces += ([ast.Constant(_BETWEEN)] if pieces else []) + _pieces(value, sent[i])
    return values[first], one_text(pieces, values[first])


def _content(element: ast.AST) -> ast.AST | None:
    """A message's content (`{"role": ..., "content": x}`, `("human", x)`), what a spread sends (`*history`), a
    placeholder's name as a slot (`MessagesPlaceholder("history")`); None for anything else."""
    if isinstance(element, ast.Starred):
        return element.value
    if isinstance(element, (ast.List, ast.Tuple)) and len(element.elts) == 2 and _string(element.elts[0]) is not None:
        return element.elts[1]
    if isinstance(element, ast.Call) and element.args and (name := _string(element.args[0])) is not None and name.isidentifier():
        return ast.Constant("{" + name + "}")
    if not isinstance(element, ast.Dict):
        return None
    keys = {k.value: v for k, v in zip(element.keys, element.values) if isinstance(k, ast.Constant)}
    return keys.get("content") if "role" in keys else None


def _string(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _resolved(value: ast.AST, bound: dict[str, ast.AST]) -> ast.AST:
    """A name bound once to a string or an f-string, as that; any other value as it is."""
    held = bound.get(value.id) if isinstance(value, ast.Name) else None
    return held if isinstance(held, ast.JoinedStr) or _string(held) is not None else value


def _sent_as_is(value: ast.AST) -> str | None:
    """What a message sends as it is, by name: a name or an attribute chain (`question`, `req.query`), a string
    that is one slot (`"{question}"`), an f-string that is one field; None for a text of its own."""
    if isinstance(value, ast.JoinedStr) and len(value.values) == 1 and plain_field(value.values[0]):
        value = value.values[0].value
    if (text := _string(value)) is not None:
        slot = _SLOT.fullmatch(text.strip())
        return slot[1] if slot else None
    chain = value
    while isinstance(chain, ast.Attribute):
        chain = chain.value
    return ast.unparse(value) if isinstance(chain, ast.Name) else None


def _shown(value: ast.AST) -> set[str]:
    """The values a template shows: its plain fields and its `{slots}`."""
    parts = value.values if isinstance(value, ast.JoinedStr) else [value]
    shown = {ast.unparse(p.value) for p in parts if plain_field(p)}
    return shown | {name for p in parts if (text := _string(p)) is not None for name in _SLOT.findall(text)}


def _pieces(value: ast.AST, sent: str | None) -> list[ast.expr]:
    """A message as pieces of the one text: a template's own, a value sent as it is as a slot of its name."""
    if sent is not None:
        return [ast.Constant("{" + sent + "}")]
    return list(value.values) if isinstance(value, ast.JoinedStr) else [value if _string(value) is not None else ast.FormattedValue(value, -1)]
