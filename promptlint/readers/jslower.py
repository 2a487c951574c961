"""JavaScript and TypeScript lowered to the small part of Python's `ast` that the evaluator of
string-building code reads (pybuild, pycalls, pyassembly), so that one evaluator reads both.

The intermediate form is that part of `ast`: functions and class methods (`this` is `self`),
assignments and `+=`, returns, `if`, `for...of` loops, calls, attributes and subscripts,
strings and f-strings (a template literal is one, its `${...}` fields its replacement fields),
sums, conditionals, lists and dicts. What the evaluator reads of JavaScript is written in the
Python it means: `xs.map((x, i) => ...)` is the comprehension `[... for i, x in enumerate(xs)]`,
`xs.forEach(...)` a `for` loop, `parts.push(s)` `parts.append(s)`, `lines.join(sep)`
`sep.join(lines)`, `a ?? b` and `a || b` `a or b`, `s.trim()` `s.strip()`. Anything else is a
name the evaluator does not know (`_`), which it reads as no text.

Each node keeps the position of the code it lowers (lines, and columns in UTF-8 bytes, as
`ast` counts them), so that what the evaluator finds stands where it is written in the file.
Nothing is run.
"""

from __future__ import annotations

import ast
from .jsscan import JsSyntaxError, _Source, _string, _template

# Calls whose JavaScript name says what a Python method does.
_METHODS = {"push": "append", "unshift": "append", "trim": "strip", "trimStart": "lstrip", "trimEnd": "rstrip", "concat": "__add__"}
_BOOL = {"&&": ast.And, "||": ast.Or, "??": ast.Or}
_COMPARE = {"===": ast.Eq, "==": ast.Eq, "!==": ast.NotEq, "!=": ast.NotEq, "<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE}
_ARITHMETIC = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "%": ast.Mod}
_CONSTANTS = {"true": True, "false": False, "null": None, "undefined": None}
# Wrappers that only say a value's type or await it: the value is what they hold.
_THROUGH = frozenset({"parenthesized_expression", "await_expression", "as_expression", "non_null_expression", "satisfies_expression", "type_assertion"})
_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "method_definition"})
# The item of a callback whose parameter is an object pattern.
_ITEM = "item"
# Deeper than this a tree is not lowered (each level is a call deeper here).
MAX_DEPTH = 200


def lowered(raw: str, jsx: bool) -> ast.Module | None:
    """The file as the Python module the evaluator reads; None when it cannot be read."""
    try:
        return _Lowering(_Source(raw, jsx)).module()
    except (JsSyntaxError, RecursionError):
        return None


class _Lowering:
    def __init__(self, source: _Source):
        self.source = source
        self.depth = 0

    def module(self) -> ast.Module:
        return ast.Module(body=self.block(self.source.root), type_ignores=[])

    # ---------------------------------------------------------------- statements

    def block(self, node) -> list[ast.stmt]:
        body = [s for child in node.named_children for s in self.statement(child)]
        return body or [self.at(ast.Pass(), node)]

    def statement(self, node) -> list[ast.stmt]:
        kind = node.type
        if kind == "export_statement":
            inner = node.child_by_field_name("declaration") or node.child_by_field_name("value")
            return self.statement(inner) if inner is not None else []
        if kind in _FUNCTIONS:
            return [self.function(node, node.child_by_field_name("name"), node.child_by_field_name("body"))]
        if kind in ("class_declaration", "abstract_class_declaration", "class"):
            return [self.klass(node)]
        if kind in ("lexical_declaration", "variable_declaration", "expression_statement", "return_statement"):
            return self.simple(node)
        if kind == "import_statement":
            return self.import_statement(node)
        if kind == "if_statement":
            return [self.if_statement(node)]
        if kind == "switch_statement":
            return self.switch_statement(node)
        if kind == "for_in_statement":
            return [self.for_of(node)]
        if kind in ("statement_block", "try_statement", "finally_clause", "catch_clause", "else_clause"):
            return [s for child in node.named_children for s in self.statement(child)]
        if kind in ("for_statement", "while_statement", "do_statement"):
            body = node.child_by_field_name("body")
            return self.statement(body) if body is not None else []
        return []

    def import_statement(self, node) -> list[ast.stmt]:
        """`import { buildPrompt, QA as qa } from "./prompts"` as Python's `from prompts import ...`, a default import
        as one name of it, `import * as prompts from "./prompts"` as `import prompts`."""
        source = node.child_by_field_name("source")
        module = self.text(source).strip("'\"").rsplit("/", 1)[-1] if source is not None else ""
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        names, whole = [], []
        for part in clause.named_children if clause is not None else ():
            if part.type == "identifier":
                names.append(ast.alias(self.text(part)))
            elif part.type == "namespace_import" and part.named_child_count:
                bound = self.text(part.named_children[0])
                whole.append(ast.alias(module or bound, bound if bound != module else None))
            elif part.type == "named_imports":
                for spec in (c for c in part.named_children if c.type == "import_specifier"):
                    name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                    names.append(ast.alias(self.text(name), self.text(alias) if alias is not None else None))
        lowered = [self.at(ast.ImportFrom(module, names, 0), node)] if names else []
        return lowered + ([self.at(ast.Import(whole), node)] if whole else [])

    def simple(self, node) -> list[ast.stmt]:
        """A declaration, an expression's statement, a return."""
        if node.type == "return_statement":
            value = node.named_children[0] if node.named_child_count else None
            return [self.at(ast.Return(self.expr(value) if value is not None else None), node)]
        if node.type == "expression_statement":
            return self.expression_statement(node.named_children[0]) if node.named_child_count else []
        return [s for d in node.named_children if d.type == "variable_declarator" for s in self.declarator(d)]

    def declarator(self, node) -> list[ast.stmt]:
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if value is None or name is None:
            return []
        if name.type == "identifier" and value.type in ("arrow_function", "function_expression", "function"):
            return [self.function(value, name, value.child_by_field_name("body"))]
        if name.type == "object_pattern":  # `const { title, url } = doc`: each a name for its key
            return [self.at(ast.Assign([self.at(ast.Name(key, ast.Store()), node)], self.at(ast.Attribute(self.expr(value), field, ast.Load()), node)), node) for key, field in self.pattern(name)]
        return [self.at(ast.Assign([self.target(name)], self.expr(value)), node)]

    def expression_statement(self, node) -> list[ast.stmt]:
        if node.type == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if right is not None and right.type in ("arrow_function", "function_expression", "function"):
                # `module.exports = function formatPrompt(...) {...}`: a function, named as it says or as what it is bound to.
                return [self.function(right, right.child_by_field_name("name") or _last_name(left), right.child_by_field_name("body"))]
            return [self.at(ast.Assign([self.target(left)], self.expr(right)), node)]
        if node.type == "augmented_assignment_expression":
            operator = node.child_by_field_name("operator")
            op = _ARITHMETIC.get(self.text(operator)[:-1], ast.Add) if operator is not None else ast.Add
            return [self.at(ast.AugAssign(self.target(node.child_by_field_name("left")), op(), self.expr(node.child_by_field_name("right"))), node)]
        loop = self.for_each(node)
        return [loop] if loop is not None else [self.at(ast.Expr(self.expr(node)), node)]

    def if_statement(self, node) -> ast.If:
        alternative = node.child_by_field_name("alternative")
        consequence = node.child_by_field_name("consequence")
        return self.at(ast.If(self.expr(node.child_by_field_name("condition")), self.statement(consequence) or [self.at(ast.Pass(), node)], self.statement(alternative) if alternative is not None else []), node)

    def switch_statement(self, node) -> list[ast.stmt]:
        """`switch (mode) { case 'a': ...; default: ... }` as the chain of `if`s it chooses between (a case
        that falls through to the next is read as its own branch)."""
        subject, body = node.child_by_field_name("value"), node.child_by_field_name("body")
        if subject is None or body is None:
            return []
        chain: list[ast.stmt] = []
        for case in reversed([c for c in body.named_children if c.type in ("switch_case", "switch_default")]):
            value = case.child_by_field_name("value")
            statements = [s for child in case.named_children if value is None or child.start_byte != value.start_byte for s in self.statement(child)]
            if value is None:
                chain = statements
            else:
                test = self.at(ast.Compare(self.expr(subject), [ast.Eq()], [self.expr(value)]), case)
                chain = [self.at(ast.If(test, statements or [self.at(ast.Pass(), case)], chain), case)]
        return chain

    def for_of(self, node) -> ast.For:
        left, right, body = (node.child_by_field_name(f) for f in ("left", "right", "body"))
        iterated = self.expr(right)
        target = self.target(left) if left is not None else self.at(ast.Name("_", ast.Store()), node)
        if isinstance(target, ast.Tuple) and isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) and iterated.func.attr == "entries":
            iterated = self.at(ast.Call(self.at(ast.Name("enumerate", ast.Load()), node), [iterated.func.value], []), node)  # `xs.entries()`
        return self.at(ast.For(target, iterated, self.statement(body) or [self.at(ast.Pass(), node)], []), node)

    def for_each(self, node) -> ast.For | None:
        """`xs.forEach((x, i) => {...})`: the loop it is."""
        method = self.method_call(node)
        if method is None or method[1] != "forEach":
            return None
        receiver, _, callback = method
        params, body = self.callback(callback)
        if params is None:
            return None
        target, iterated = self.iteration(params, self.expr(receiver), node)
        statements = self.statement(body) if body.type == "statement_block" else [self.at(ast.Expr(self.expr(body)), body)]
        return self.at(ast.For(target, iterated, statements or [self.at(ast.Pass(), node)], []), node)

    def function(self, node, name, body) -> ast.FunctionDef:
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        names = self.parameters(params)
        if body is not None and body.type == "statement_block":
            statements = self.block(body)
        else:
            statements = [self.at(ast.Return(self.expr(body)), body or node)]
        arguments = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], kwonlyargs=[], kw_defaults=[], defaults=[])
        return self.at(ast.FunctionDef(self.text(name) if name is not None else "_", arguments, statements, [], None), node)

    def klass(self, node) -> ast.ClassDef:
        """A class, its methods taking `self` first as Python's do."""
        body = node.child_by_field_name("body")
        methods = []
        for member in body.named_children if body is not None else ():
            if member.type == "method_definition":
                method = self.function(member, member.child_by_field_name("name"), member.child_by_field_name("body"))
            elif member.type == "public_field_definition" and (value := member.child_by_field_name("value")) is not None and value.type == "arrow_function":
                method = self.function(value, member.child_by_field_name("name"), value.child_by_field_name("body"))
            else:
                continue
            method.args.args.insert(0, ast.arg("self"))
            methods.append(method)
        name = node.child_by_field_name("name")
        return self.at(ast.ClassDef(self.text(name) if name is not None else "_", [], [], methods or [self.at(ast.Pass(), node)], []), node)

    def parameters(self, params) -> list[str]:
        if params is None:
            return []
        if params.type == "identifier":
            return [self.text(params)]
        names = []
        for param in params.named_children:
            pattern = param.child_by_field_name("pattern") if param.type in ("required_parameter", "optional_parameter") else param
            names.append(self.text(pattern) if pattern is not None and pattern.type == "identifier" else "_")
        return names

    def pattern(self, node) -> list[tuple[str, str]]:
        """An object pattern's (local, key) pairs: `{ title, url: link }` is (title, title), (link, url)."""
        pairs = []
        for child in node.named_children:
            if child.type == "object_assignment_pattern":  # `{ metadata = {} }`: the key, with a default
                child = child.child_by_field_name("left") or child
            if child.type == "shorthand_property_identifier_pattern":
                pairs.append((self.text(child), self.text(child)))
            elif child.type == "pair_pattern" and (value := child.child_by_field_name("value")) is not None and value.type == "identifier":
                pairs.append((self.text(value), self.text(child.child_by_field_name("key"))))
        return pairs

    def target(self, node) -> ast.expr:
        if node is not None and node.type == "array_pattern":
            return self.at(ast.Tuple([self.target(c) for c in node.named_children], ast.Store()), node)
        if node is not None and node.type in ("lexical_declaration", "variable_declaration"):  # `for (const x of xs)`
            return self.target(node.named_children[0]) if node.named_child_count else self.at(ast.Name("_", ast.Store()), node)
        if node is not None and node.type == "variable_declarator":
            return self.target(node.child_by_field_name("name"))
        value = self.expr(node)
        if isinstance(value, (ast.Name, ast.Attribute, ast.Subscript)):
            value.ctx = ast.Store()
            return value
        return self.at(ast.Name("_", ast.Store()), node)

    # ---------------------------------------------------------------- expressions

    def expr(self, node) -> ast.expr:
        if node is None:
            return ast.Constant(None)
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise RecursionError
            return self.at(self.value(node), node)
        finally:
            self.depth -= 1

    def value(self, node) -> ast.expr:
        kind = node.type
        if kind in _THROUGH:
            return self.expr(node.named_children[0]) if node.named_child_count else ast.Constant(None)
        reader = getattr(self, "_" + kind, None)
        if reader is not None:
            return reader(node)
        if kind == "string":
            return ast.Constant(_string(self.source, node).value)
        if kind == "number":
            return ast.Constant(_number(self.text(node)))
        if kind in ("identifier", "property_identifier", "shorthand_property_identifier"):
            return ast.Constant(_CONSTANTS[self.text(node)]) if self.text(node) in _CONSTANTS else ast.Name(self.text(node), ast.Load())
        if kind == "this":
            return ast.Name("self", ast.Load())
        if kind in ("true", "false", "null", "undefined"):
            return ast.Constant(_CONSTANTS[kind])
        return ast.Name("_", ast.Load())

    def _template_string(self, node) -> ast.JoinedStr:
        """A template literal as the f-string it is: its text between fields, and each field's expression."""
        values: list[ast.expr] = []
        text = _template(self.source, node).value  # its text, fields as written
        at = 0
        for field in (c for c in node.children if c.type == "template_substitution"):
            a, b = self.source.span(field)
            offset = text.find(self.source.raw[a:b], at)
            if offset < 0:
                break
            if offset > at:
                values.append(self.at(ast.Constant(_unescaped(text[at:offset])), node))
            inner = field.named_children[0] if field.named_child_count else None
            values.append(self.at(ast.FormattedValue(self.expr(inner), -1, None), field))
            at = offset + (b - a)
        if at < len(text):
            values.append(self.at(ast.Constant(_unescaped(text[at:])), node))
        return ast.JoinedStr(values)

    def _member_expression(self, node) -> ast.expr:
        prop = node.child_by_field_name("property")
        return ast.Attribute(self.expr(node.child_by_field_name("object")), self.text(prop) if prop is not None else "_", ast.Load())

    def _subscript_expression(self, node) -> ast.expr:
        return ast.Subscript(self.expr(node.child_by_field_name("object")), self.expr(node.child_by_field_name("index")), ast.Load())

    def _binary_expression(self, node) -> ast.expr:
        operator = self.text(node.child_by_field_name("operator"))
        left, right = self.expr(node.child_by_field_name("left")), self.expr(node.child_by_field_name("right"))
        if operator in _BOOL:
            return ast.BoolOp(_BOOL[operator](), [left, right])
        if operator in _COMPARE:
            return ast.Compare(left, [_COMPARE[operator]()], [right])
        return ast.BinOp(left, _ARITHMETIC.get(operator, ast.BitOr)(), right)

    def _ternary_expression(self, node) -> ast.expr:
        return ast.IfExp(self.expr(node.child_by_field_name("condition")), self.expr(node.child_by_field_name("consequence")), self.expr(node.child_by_field_name("alternative")))

    def _unary_expression(self, node) -> ast.expr:
        operand = self.expr(node.child_by_field_name("argument"))
        return ast.UnaryOp(ast.Not(), operand) if self.text(node.child_by_field_name("operator")) == "!" else operand

    def _array(self, node) -> ast.expr:
        return ast.List([self.expr(c) for c in node.named_children if c.type != "comment"], ast.Load())

    def _spread_element(self, node) -> ast.expr:
        return ast.Starred(self.expr(node.named_children[0]) if node.named_child_count else ast.Constant(None), ast.Load())

    def _object(self, node) -> ast.expr:
        keys: list[ast.expr | None] = []
        values: list[ast.expr] = []
        for child in node.named_children:
            if child.type == "pair":
                key = child.child_by_field_name("key")
                keys.append(ast.Constant(_string(self.source, key).value if key.type == "string" else self.text(key)))
                values.append(self.expr(child.child_by_field_name("value")))
            elif child.type == "shorthand_property_identifier":
                keys.append(ast.Constant(self.text(child)))
                values.append(self.expr(child))
            elif child.type == "spread_element":
                keys.append(None)
                values.append(self.expr(child.named_children[0]) if child.named_child_count else ast.Constant(None))
        return ast.Dict(keys, values)

    def _assignment_expression(self, node) -> ast.expr:
        return self.expr(node.child_by_field_name("right"))

    def _new_expression(self, node) -> ast.expr:
        arguments = node.child_by_field_name("arguments")
        return ast.Call(self.expr(node.child_by_field_name("constructor")), self.arguments(arguments), [])

    def _arrow_function(self, node) -> ast.expr:
        body = node.child_by_field_name("body")
        params = self.parameters(node.child_by_field_name("parameters") or node.child_by_field_name("parameter"))
        arguments = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in params], kwonlyargs=[], kw_defaults=[], defaults=[])
        returned = self.returned(body)
        return ast.Lambda(arguments, returned if returned is not None else ast.Constant(None))

    def _call_expression(self, node) -> ast.expr:
        method = self.method_call(node)
        if method is not None:
            lowered = self.method(node, *method)
            if lowered is not None:
                return lowered
        return ast.Call(self.expr(node.child_by_field_name("function")), self.arguments(node.child_by_field_name("arguments")), [])

    def method(self, node, receiver, name: str, argument) -> ast.expr | None:
        """A method call read as the Python it means: `.map`, `.join`, `.filter(Boolean)`, `.push`."""
        if name in ("map", "flatMap") and argument is not None:
            params, body = self.callback(argument)
            returned = self.returned(body) if params is not None else None
            if returned is None:
                return None
            if keys := self.destructured(argument):
                # `({ text, file_name }) => ...`: each name is the item's key (`item.text`), as `x => x.text` reads it.
                from .pycalls import bind

                item = self.at(ast.Name(_ITEM, ast.Load()), node)
                returned = bind(returned, {local: self.at(ast.Attribute(item, key, ast.Load()), node) for local, key in keys})
                params = [_ITEM, *params[1:]]
            target, iterated = self.iteration(params, self.expr(receiver), node)
            return ast.ListComp(returned, [ast.comprehension(target, iterated, [], 0)])
        if name == "join":
            separator = self.expr(argument) if argument is not None else ast.Constant(",")
            return ast.Call(self.at(ast.Attribute(separator, "join", ast.Load()), node), [self.expr(receiver)], [])
        if name == "filter":
            return self.expr(receiver)  # drops the empty pieces: the text shown is the same
        if name in _METHODS:
            arguments = self.arguments(node.child_by_field_name("arguments"))
            return ast.Call(self.at(ast.Attribute(self.expr(receiver), _METHODS[name], ast.Load()), node), arguments, [])
        return None

    def method_call(self, node):
        """(receiver, method name, first argument) of `receiver.method(arg, ...)`; None for any other node."""
        if node.type != "call_expression":
            return None
        function = node.child_by_field_name("function")
        if function is None or function.type != "member_expression":
            return None
        arguments = node.child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments is not None and arguments.named_child_count else None
        return function.child_by_field_name("object"), self.text(function.child_by_field_name("property")), first

    def callback(self, node):
        """A callback's parameter names and its body; (None, None) when it is no function written in place."""
        while node is not None and node.type == "parenthesized_expression" and node.named_child_count:
            node = node.named_children[0]
        if node is None or node.type not in ("arrow_function", "function_expression", "function"):
            return None, None
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        return self.parameters(params), node.child_by_field_name("body")

    def destructured(self, node) -> list[tuple[str, str]]:
        """A callback's first parameter written as an object pattern, as its (local, key) pairs; none otherwise."""
        while node is not None and node.type == "parenthesized_expression" and node.named_child_count:
            node = node.named_children[0]
        params = node.child_by_field_name("parameters") if node is not None else None
        first = params.named_children[0] if params is not None and params.named_child_count else None
        if first is not None and first.type in ("required_parameter", "optional_parameter"):
            first = first.child_by_field_name("pattern")
        return self.pattern(first) if first is not None and first.type == "object_pattern" else []

    def iteration(self, params: list[str], iterated: ast.expr, node):
        """The target and iterable of a loop over ``iterated`` with the callback's (item, index) parameters."""
        item = self.at(ast.Name(params[0] if params else "_", ast.Store()), node)
        if len(params) < 2:
            return item, iterated
        index = self.at(ast.Name(params[1], ast.Store()), node)
        enumerated = self.at(ast.Call(self.at(ast.Name("enumerate", ast.Load()), node), [iterated], []), node)
        return self.at(ast.Tuple([index, item], ast.Store()), node), enumerated

    def returned(self, body) -> ast.expr | None:
        """What a callback's body gives: its expression, or the return of its block that shows the most, with
        the block's locals bound as they are when it returns (see pycalls.richest_return)."""
        if body is None:
            return None
        if body.type != "statement_block":
            return self.expr(body)
        from .pycalls import richest_return

        return richest_return(self.function(body.parent, None, body).body)

    def arguments(self, node) -> list[ast.expr]:
        return [self.expr(c) for c in node.named_children if c.type != "comment"] if node is not None else []

    # ---------------------------------------------------------------- positions

    def at(self, lowered, node):
        (row, column), (end_row, end_column) = node.start_point, node.end_point
        lowered.lineno, lowered.col_offset, lowered.end_lineno, lowered.end_col_offset = row + 1, column, end_row + 1, end_column
        return lowered

    def text(self, node) -> str:
        if node is None:
            return ""
        start, end = self.source.span(node)
        return self.source.raw[start:end]


def _number(text: str) -> float | int:
    try:
        return int(text.rstrip("n").replace("_", ""), 0)
    except ValueError:
        try:
            return float(text.replace("_", ""))
        except ValueError:
            return 0


def _unescaped(text: str) -> str:
    """A template's literal text as its value: the escapes it keeps as written (`\\$`, `\\{`, `\\\\`) read."""
    return text.replace("\\$", "$").replace("\\{", "{").replace("\\\\", "\\")


def _last_name(target):
    """The node that names what a value is bound to: `exports.formatPrompt`'s property, or the name itself."""
    return target.child_by_field_name("property") if target is not None and target.type == "member_expression" else target
