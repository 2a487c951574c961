"""A chat request whose messages send the user's text twice: in a template and as a message of its own.

    system = f"Answer from the sources.\\nQUESTION: {question}\\nSOURCES:\\n{context}"
    messages = [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]
    prompt = ChatPromptTemplate.from_messages([("system", SYSTEM), MessagesPlaceholder("history"), ("human", "{question}")])

A message is a dict with a role and a content, a pair of a role and a content, a spread of other
messages (`*history`) or a placeholder for them (`MessagesPlaceholder("history")`). Its content is
read as the evaluator reads a value: a template (an f-string, a sum of strings and values, a string with `{slots}`, or a name
the function or the module binds once to one) or a value sent as it is (`question`, `"{question}"`).
When a later message sends as it is a value an earlier message's template shows, the messages are
read as one text, in order, each a paragraph: the template's text, the rest as slots named by what
they send (`{history}`, `{question}`). The rules then see the value where the model does, twice.
Otherwise the messages are left as they are, each template a prompt of its own. The same reading
serves JavaScript lowered to Python's form (see jslower).

A list of messages may be built by statements as well as written out (`messages = [system]`, then
`messages.extend(history[-4:])` and `messages.append(...)`): it is read as the elements it ends with, and
a history the question was appended to before it was sent holds the question.
"""

from __future__ import annotations

import ast
import re

from .expressions import string_value
from .pyassembly import one_text, own_nodes, plain_field, summed_pieces

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
    """The requests of one function (or of the module's own statements) whose messages repeat a template's field:
    a list written out, or one built by statements."""
    bound = module_bound | _bound_once(scope)
    nodes = list(own_nodes(scope))
    templated = {id(node.args[0]) for node in nodes if _lists_templates(node)}
    written = [(node.elts, id(node) in templated) for node in nodes if isinstance(node, (ast.List, ast.Tuple))]
    built = [(elements, False) for elements in _built_lists(scope)]
    return [read for elements, bare in (*written, *built) if (read := _repeating(elements, bound, bare)) is not None]


def _lists_templates(node: ast.AST) -> bool:
    """Whether a node is a call that takes a list of message templates (`ChatPromptTemplate.from_messages([...])`, in
    JavaScript `fromMessages`), where a bare string, or a name for one, is a template of the user's message."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("from_messages", "fromMessages")
            and bool(node.args) and isinstance(node.args[0], (ast.List, ast.Tuple)))


def _built_lists(scope: ast.AST) -> list[list[ast.expr]]:
    """The lists of a scope built by statements, in the order they run (`messages = [system]`, then
    `messages.extend(history[-4:])`, `messages.append({"role": "user", "content": ...})`), each as the elements it
    ends with. A list extended with another built before it takes that one's elements as they stand then: the
    history a question was appended to holds the question. A list only written out is read where it is written,
    and one that both branches of an `if` grow is not read: which message it sends depends on the branch."""
    built = _Built()
    built.run(getattr(scope, "body", []))
    return [built.lists[name] for name in sorted(built.grown - built.branching)]


class _Built:
    """The lists a run of statements builds: their elements so far, which grew, which grew in exclusive branches."""

    def __init__(self):
        self.lists: dict[str, list[ast.expr]] = {}
        self.grown: set[str] = set()
        self.branching: set[str] = set()

    def run(self, body: list[ast.stmt]) -> None:
        for statement in body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.value, ast.List):
                self.lists[ast.unparse(statement.targets[0])] = list(statement.value.elts)
            elif isinstance(statement, ast.If):
                self._branches(statement.body, statement.orelse)
            elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
                self.run(statement.body)  # a loop's body once; a try's handlers are its error paths
                self.run(getattr(statement, "finalbody", []))
            elif (grown_by := _growth(statement)) is not None:
                receiver, method, added = grown_by
                name = ast.unparse(receiver)
                # A list the scope did not make (a parameter, `history`) holds, before, what it was given.
                held = self.lists.get(name) or [ast.Starred(receiver)]
                self.lists[name] = held + ([added] if method == "append" else _elements(added, self.lists))
                self.grown.add(name)

    def _branches(self, body: list[ast.stmt], orelse: list[ast.stmt]) -> None:
        before = dict(self.lists)
        self.run(body)
        taken = self.lists
        self.lists = dict(before)
        self.run(orelse)
        # A list each branch grew is not one request; one that only the `if` grew takes its elements.
        for name, elements in taken.items():
            if self.lists.get(name) is before.get(name):
                self.lists[name] = elements
            elif elements is not before.get(name):
                self.branching.add(name)


def _growth(statement: ast.stmt) -> tuple[ast.expr, str, ast.expr] | None:
    """What a statement adds to a list, as (the list, "append" or "extend", what): `x.append(m)`, `x.extend(ms)`,
    `x += ms`; None for any other statement."""
    if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add):
        return statement.target, "extend", statement.value
    call = statement.value if isinstance(statement, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in ("append", "extend") and len(call.args) == 1:
        return call.func.value, call.func.attr, call.args[0]
    return None


def _elements(added: ast.expr, lists: dict[str, list[ast.expr]]) -> list[ast.expr]:
    """The elements a list is extended with: a list written out, a list built before (the last of them for
    `history[-4:]`), or, for anything else, a spread of it (`*rest`), which sends what it holds as it is."""
    if isinstance(added, (ast.List, ast.Tuple)):
        return list(added.elts)
    sliced = added.slice if isinstance(added, ast.Subscript) else None
    name = ast.unparse(added.value if sliced is not None else added)
    if name in lists and sliced is None:
        return list(lists[name])
    tail = _tail(sliced) if isinstance(sliced, ast.Slice) else None
    if name in lists and tail is not None:
        return lists[name][-tail:]
    return [ast.Starred(added)]


def _tail(sliced: ast.Slice) -> int | None:
    """How many elements a slice keeps from the end (`[-4:]`), or None for any other slice."""
    lower = sliced.lower
    if sliced.upper is None and sliced.step is None and isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub):
        count = lower.operand.value if isinstance(lower.operand, ast.Constant) else None
        return count if isinstance(count, int) and count > 0 else None
    return None


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


def _repeating(messages: list[ast.expr], bound: dict[str, ast.AST], bare: bool = False) -> tuple[ast.AST, ast.Call] | None:
    """The one template of a list of messages and the messages as one text, when another message, before it or
    after it, sends as it is a value the template shows, or the last message is a slot alone (`("human",
    "{question}")`); None otherwise. ``bare``: a string alone is a message (see _lists_templates)."""
    contents = [_content(_resolved_message(element, bound), bare) for element in messages]
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
    asks_last = first < len(values) - 1 and string_value(values[-1]) is not None and sent[-1] is not None
    if not (repeats or asks_last):
        return None
    pieces: list[ast.expr] = []
    for i, value in enumerate(values):
        pieces += ([ast.Constant(_BETWEEN)] if pieces else []) + _pieces(value, sent[i])
    template = _held(contents[first], bound) or contents[first]  # the code's own node, a sum read as its f-string
    return template, one_text(pieces, template)


def _content(element: ast.AST, bare: bool = False) -> ast.AST | None:
    """A message's content (`{"role": ..., "content": x}`, `("human", x)`), what a spread sends (`*history`), a
    placeholder's name as a slot (`MessagesPlaceholder("history")`), and where ``bare``, a string or a name
    alone; None for anything else."""
    if bare and (string_value(element) is not None or isinstance(element, ast.Name)):
        return element
    if isinstance(element, ast.Starred):
        return element.value
    if isinstance(element, (ast.List, ast.Tuple)) and len(element.elts) == 2 and string_value(element.elts[0]) is not None:
        return element.elts[1]
    if isinstance(element, ast.Call) and element.args and (name := string_value(element.args[0])) is not None and name.isidentifier():
        return ast.Constant("{" + name + "}")
    if not isinstance(element, ast.Dict):
        return None
    keys = {k.value: v for k, v in zip(element.keys, element.values) if isinstance(k, ast.Constant)}
    return keys.get("content") if "role" in keys else None


def _resolved_message(element: ast.AST, bound: dict[str, ast.AST]) -> ast.AST:
    """A name bound once to a message (`system_msg = {"role": "system", "content": ...}`), as that message."""
    held = _held(element, bound)
    return held if isinstance(held, (ast.Dict, ast.Tuple)) else element


def _resolved(value: ast.AST, bound: dict[str, ast.AST]) -> ast.AST:
    """A name bound once to a string, an f-string or a sum of strings and values, as that (a sum as the f-string
    it adds up to: `"Context:\\n" + context` as `f"Context:\\n{context}"`); any other value as it is."""
    held = _held(value, bound) or value
    if (summed := summed_pieces(held)) is not None:
        return ast.copy_location(ast.JoinedStr(values=summed), held)
    return held if isinstance(held, ast.JoinedStr) or string_value(held) is not None else value


def _held(value: ast.AST, bound: dict[str, ast.AST]) -> ast.AST | None:
    """What a name is bound to once, or None."""
    return bound.get(value.id) if isinstance(value, ast.Name) else None


def _sent_as_is(value: ast.AST) -> str | None:
    """What a message sends as it is, by name: a name or an attribute chain (`question`, `req.query`), a string
    that is one slot (`"{question}"`), an f-string that is one field; None for a text of its own."""
    if isinstance(value, ast.JoinedStr) and len(value.values) == 1 and plain_field(value.values[0]):
        value = value.values[0].value
    if (text := string_value(value)) is not None:
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
    return shown | {name for p in parts if (text := string_value(p)) is not None for name in _SLOT.findall(text)}


def _pieces(value: ast.AST, sent: str | None) -> list[ast.expr]:
    """A message as pieces of the one text: a template's own, a value sent as it is as a slot of its name."""
    if sent is not None:
        return [ast.Constant("{" + sent + "}")]
    return list(value.values) if isinstance(value, ast.JoinedStr) else [value if string_value(value) is not None else ast.FormattedValue(value, -1)]
