"""What a template expression reads: the variable and the chain of keys it ends on.

A slot's meaning is the name of what it prints, however the template gets there:
``{{ c.modified_at.strftime('%d %b %Y') }}`` prints ``c.modified_at``,
``{{ '%.3f' % hit.rerank_score }}`` prints ``hit.rerank_score``,
``{{ doc.meta.get("similarity") | round(2) }}`` prints ``doc.meta.similarity``, and
the f-string or format-string slot ``{row['published']:%Y}`` prints ``row.published``.
Jinja expressions are read with Jinja's parser and Python ones with ``ast``; both
are followed through attribute and key chains, ``.get()``, constant subscripts,
filters, method calls, ``%`` and ``.format`` formatting, calls such as ``round()``,
``default``, conditional expressions and concatenation.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from ..meaning.vocabulary import normalise_label

if TYPE_CHECKING:
    import jinja2
    from jinja2 import nodes


@dataclass(frozen=True)
class Reference:
    """What an output reads: `doc.meta['title']` is root "doc", path ("meta", "title")."""

    root: str
    path: tuple[str, ...]

    @property
    def key(self) -> str:
        """The name that says what the value is: the last key, or the variable itself."""
        return normalise_label(self.path[-1] if self.path else self.root)

    @property
    def chain(self) -> str:
        """The variable and its keys as one dotted name ("doc.meta.similarity")."""
        return ".".join((self.root, *self.path))


@cache
def environment() -> jinja2.Environment:
    """A Jinja environment for parsing only: nothing is ever rendered, so no loader and no sandbox are needed.

    Jinja is imported here, when a template or a slot is first read: a prompt without
    either (most text files) never loads it.
    """
    import jinja2
    from jinja2 import nodes
    from jinja2.ext import Extension

    class MessageTag(Extension):
        """Haystack's chat template tag: `{% message role="user" %}...{% endmessage %}` is one message.

        Known so that such a template parses; its role is read by `jinja.message_blocks`.
        """

        tags = {"message"}

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            options = []
            while parser.stream.current.type != "block_end":
                if options:
                    parser.stream.skip_if("comma")
                key = parser.stream.expect("name")
                parser.stream.expect("assign")
                options.append(nodes.Keyword(key.value, parser.parse_expression()))
            body = parser.parse_statements(("name:endmessage",), drop_needle=True)
            return nodes.CallBlock(self.call_method("_message", kwargs=options), [], [], body).set_lineno(lineno)

    return jinja2.Environment(extensions=["jinja2.ext.i18n", "jinja2.ext.loopcontrols", "jinja2.ext.do", MessageTag])


@cache
def jinja_expression(inner: str) -> nodes.Node | None:
    """The expression of an output tag's inner text (`doc.title | upper`), or None when it does not parse."""
    import jinja2
    from jinja2 import nodes

    try:
        output = environment().parse("{{" + inner + "}}").body[0]
    except jinja2.TemplateSyntaxError:
        return None
    return output.nodes[0] if isinstance(output, nodes.Output) and output.nodes else None


def _constant_text(node: nodes.Node) -> bool:
    from jinja2 import nodes
    return isinstance(node, nodes.Const) and isinstance(node.value, str)


def _filtered(node: nodes.Filter) -> nodes.Node:
    """What a filter prints: "%.4f"|format(x) prints its argument, x|round(2) prints x."""
    return node.args[0] if _constant_text(node.node) and node.args else node.node


def _jinja_inner(node: nodes.Node) -> nodes.Node | None:
    """The expression a formatting wrapper prints, or None when ``node`` is not one."""
    from jinja2 import nodes
    if isinstance(node, nodes.Filter):
        return _filtered(node)
    if isinstance(node, nodes.Mod) and _constant_text(node.left):  # '%.3f' % x
        return node.right
    if isinstance(node, nodes.CondExpr):  # x if test else ''
        return node.expr1
    if isinstance(node, nodes.Concat):  # 'Score: ' ~ x
        return next((n for n in node.nodes if not isinstance(n, nodes.Const)), None)
    if isinstance(node, (nodes.BinExpr, nodes.Or)):  # x * 100, 'Score: ' + x, x or ''
        return node.right if isinstance(node.left, nodes.Const) else node.left
    if isinstance(node, nodes.Call):
        called = node.node
        if isinstance(called, nodes.Getattr) and (called.attr == "format" or _constant_text(called.node)) and node.args:
            return node.args[0]  # '{:.2f}'.format(x)
        if isinstance(called, nodes.Getattr):
            return called.node  # x.strftime('%Y'), x.isoformat()
        if isinstance(called, nodes.Name) and node.args and not isinstance(node.args[0], nodes.Name):
            return node.args[0]  # round(x.score, 2); not render(doc), which prints what it likes
    return None


def _follow(node, step) -> Reference | None:
    """Walk an expression down to the variable it prints; ``step`` reads one node of its syntax tree.

    ``step(node, keyed)`` answers ("key", key, next) for a key of a chain, ("root", name, None)
    for the variable, ("inner", None, next) for what a formatting wrapper prints, next being
    None when the node prints nothing of an item; ``keyed`` says whether a key was read.
    """
    path: list[str] = []
    while node is not None:
        kind, value, node = step(node, bool(path))
        if kind == "key":
            path.append(value)
        elif kind == "root":
            return Reference(value, tuple(reversed(path)))
    return None


def _jinja_step(node: nodes.Node, keyed: bool):
    from jinja2 import nodes
    if isinstance(node, nodes.Getattr):
        return "key", node.attr, node.node
    if isinstance(node, nodes.Getitem) and _constant_text(node.arg):
        return "key", node.arg.value, node.node
    if isinstance(node, nodes.Call) and isinstance(node.node, nodes.Getattr) and node.node.attr == "get" and node.args and isinstance(node.args[0], nodes.Const):
        return "key", str(node.args[0].value), node.node.node
    if isinstance(node, nodes.Name):
        return "root", node.name, None
    if keyed and isinstance(node, nodes.Call):
        return "inner", None, None  # a key of what a call returns: not a field of the item
    if isinstance(node, nodes.Getitem):
        return "inner", None, node.node  # docs[0], history[-1]: the item of a list
    return "inner", None, _jinja_inner(node)


def jinja_reference(node: nodes.Node | None) -> Reference | None:
    """Follow a Jinja expression down to the variable and keys it prints."""
    return _follow(node, _jinja_step)


# Calls that iterate their first argument's items: a loop over `zip(documents, metadatas)` is over the documents.
_ITERATING = frozenset({"zip", "enumerate", "sorted", "reversed", "list"})


def iterated_name(iterated: nodes.Node | None) -> str | None:
    """The name of what a loop over ``iterated`` goes through: `zip(texts, scores)` goes through `texts`."""
    from jinja2 import nodes

    while isinstance(iterated, nodes.Call) and isinstance(iterated.node, nodes.Name) and iterated.node.name in _ITERATING and iterated.args:
        iterated = iterated.args[0]
    found = jinja_reference(iterated)
    return found.key if found else None


def _python_inner(node: ast.expr) -> ast.expr | None:
    """The Python expression a formatting wrapper prints, or None when ``node`` is not one."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant):
        return node.right
    if isinstance(node, ast.BinOp):  # x * 100, 'Score: ' + x
        return node.right if isinstance(node.left, ast.Constant) else node.left
    if isinstance(node, ast.BoolOp):  # x or ''
        return node.values[0]
    if isinstance(node, ast.IfExp):
        return node.body
    if isinstance(node, ast.Call):
        called = node.func
        if isinstance(called, ast.Attribute) and (called.attr == "format" or isinstance(called.value, ast.Constant)) and node.args:
            return node.args[0]
        if isinstance(called, ast.Attribute):
            return called.value
        if isinstance(called, ast.Name) and node.args and not isinstance(node.args[0], ast.Name):
            return node.args[0]
    return None


def spread_sum(node: ast.expr) -> ast.expr:
    """A list made of lists spread into it (`[*relevant, *marginal[:3]]`, JavaScript's `[...relevant,
    ...marginal]`) as the sum it is (`relevant + marginal[:3]`); any other value as it is."""
    if not isinstance(node, (ast.List, ast.Tuple)) or len(node.elts) < 2 or not all(isinstance(e, ast.Starred) for e in node.elts):
        return node
    total = node.elts[0].value
    for element in node.elts[1:]:
        total = ast.BinOp(total, ast.Add(), element.value)
    return total


def sum_terms(node: ast.AST) -> list[ast.AST]:
    """The terms of a sum, left to right (`"Facts:\\n" + "\\n".join(facts)` gives the literal, then the join)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return sum_terms(node.left) + sum_terms(node.right)
    return [node]


def string_value(node: ast.AST | None) -> str | None:
    """The value of a string constant (a key: `doc["date"]`, a message's text); None for anything else."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _python_step(node: ast.expr, keyed: bool):
    if isinstance(node, ast.Attribute):
        return "key", node.attr, node.value
    if isinstance(node, ast.Subscript) and (key := string_value(node.slice)) is not None:
        return "key", key, node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args and isinstance(node.args[0], ast.Constant):
        return "key", str(node.args[0].value), node.func.value
    if isinstance(node, ast.Name):
        return "root", node.id, None
    if keyed and isinstance(node, ast.Call):
        return "inner", None, None
    if isinstance(node, ast.Subscript):
        return "inner", None, node.value  # rows[0]: the item of a list
    return "inner", None, _python_inner(node)


def python_reference(node: ast.expr | None) -> Reference | None:
    """Follow a Python expression down to the variable and keys it prints."""
    return _follow(node, _python_step)


@cache
def _python_expression(text: str) -> ast.expr | None:
    """A format-string field's expression, without its conversion and format spec ("score_2:.2f" -> score_2)."""
    cuts = [len(text)] + [i for i, ch in enumerate(text) if ch in ":!"]
    for cut in cuts:
        try:
            return ast.parse(text[:cut].strip(), mode="eval").body
        except SyntaxError:
            continue
    return None


def slot_reference(slot: str) -> Reference | None:
    """What a slot written in text prints: `{{ expr }}` (Jinja, Mustache) or `{expr:spec}` (format string, f-string)."""
    slot = slot.strip()
    if slot.startswith("{{") and slot.endswith("}}"):
        inner = slot[2:-2].strip("-#^/ \t")
        return jinja_reference(jinja_expression(inner))
    if slot.startswith("{") and slot.endswith("}"):
        return python_reference(_python_expression(slot[1:-1]))
    return None
