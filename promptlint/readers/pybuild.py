"""Per-source wrappers that Python code builds, found with `ast` and never run.

A string built once per item of an iteration (a `for` body that appends it, a
comprehension joined into one text) and rendering fields of the loop variable
renders one retrieved source: `f"[{i}] {doc.title}\\n{doc.text}"`. It is read as a
template of that source, the same model the Jinja reader builds for a `{% for %}`
body: the string's replacement fields become the loop body's outputs, each
reading what the field's expression reads (`doc.metadata["date"]`,
`r.get("score")`, or a local name bound from the loop variable).

A body that adds one source's text in pieces (a header, then the chunk added bare or
by a nested loop) is read as those pieces in order (see _in_order), and a piece a
function of the same file makes as the text it returns (see pycalls). A body that picks
what to add by the item's kind (an if/elif chain of three branches or more) renders
items of different kinds: each add is read alone.

A dict made once per item is the JSON text the model reads when the module hands it to the
model (serialized, returned by a tool, held by a chat message): its keys are the fields, each
named by its key (see json_text), also when it is built key by key (see _dict_built). A tuple made per item and printed whole into a prompt's
variable (a LangChain pipeline ending in a function of the module) is its repr: `(doc, score)`.
`map(f, docs)` is read as the comprehension it is.

Whether such a string is a prompt's source at all is judged by the module (pysource): in a
module with no other prompt, only with a name that says it makes the context, or the
item's text shown with more of the item beside it.

The prompt's text is the f-string's body as written (`{expr!r:spec}` fields,
`{{`/`}}` for braces), so findings land where the text stands in the file, and
a fix edits the literal in place. Strings passed to anything else (print, a
logger, an exception) are not read.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from string import Formatter
from types import MappingProxyType
from typing import TYPE_CHECKING

from ..meaning.lexicon import Lexicon, shipped
from ..model.prompt import Prompt, Span, Syntax
from .expressions import iterated_name, spread_sum, string_value, sum_terms
from .expressions import jinja_expression as jinja_node
from .pyassembly import joined, own_nodes, plain_field, shown_or_nothing
from .pycalls import Helpers, bind, helper_called, helpers_of, inlined, listed_keys, over_keys, returned_dict, returned_text, richest_return
from .segment import SlotNames, lowercase, slot_kind, words

if TYPE_CHECKING:
    from .pysource import PyTemplate

# Calls that add their argument to the text being built.
ADDING = frozenset({"append", "extend", "insert"})
# Calls that write a value as the text the model reads (`json.dumps(results)`, `yaml.safe_dump(refs)`).
SERIALIZERS = frozenset({"dumps", "dump", "safe_dump", "yaml_dump", "to_json", "stringify"})
# Calls on a string literal that still give the literal as a template.
LITERAL_METHODS = frozenset({"replace", "format", "strip", "lstrip", "rstrip"})
LITERAL_FUNCTIONS = frozenset({"dedent", "cleandoc"})
# A Jinja tag that only a template has: a loop, or an output reading an attribute or key.
_JINJA_TAG = re.compile(r"\{%-?\s*for\s|\{\{-?\s*[A-Za-z_]\w*\s*(?:\.\s*\w+|\[[^\]{}]+\])")
# The nodes that may build text per item: loops, and what holds a comprehension.
BUILDING = frozenset({ast.For, ast.AsyncFor, ast.Call, ast.Assign, ast.AnnAssign, ast.Return, ast.Lambda})
# What a tuple of loop variables is called as one item.
ITEM = "item_"
_OPENING = re.compile(r"(?i)([rbuf]*)('''|\"\"\"|'|\")")


@dataclass(frozen=True)
class Loop:
    """What a per-item string iterates, so that its fields can be read again after a fix."""

    target: str  # the loop variable the fields read ("doc")
    collection: str  # what the loop iterates, as a Jinja expression ("retrieved_docs")
    index: str | None = None  # the counter of `enumerate`, read as the source's ordinal
    # Local names bound from the loop variable in the loop body: name -> (root, keys).
    aliases: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # The literal's opening (`f"""`) when the text is its body as written; None otherwise.
    opening: str | None = None
    # The language of the code that builds it, which reads its fields again after a fix.
    language: str = "python"
    # The keys of the item the string reads (`title`, `page_content`), in order.
    keys: tuple[str, ...] = ()
    # One of the strings a loop body adds to one text, which is also read whole (see _in_order).
    piece: bool = False
    # The line the loop stands on (what it iterates): a helper's text read in is placed on the helper's line.
    site: int | None = None
    # The names the text of the items is bound to (`context = "\n".join(...)`, `context += ...`, the function
    # that returns it), and the names bound from those in turn (`context = "\n".join(parts)`): a prompt of the
    # module that prints one of them holds these sources.
    into: tuple[str, ...] = ()
    # Those of ``into`` a prompt of the module prints (see codefile).
    printed: tuple[str, ...] = ()


# ---------------------------------------------------------------- finding the wrappers


def wrappers(node: ast.AST, raw: str, starts: list[int], helpers: Helpers, serialized: Mapping[int | str, str] = MappingProxyType({})) -> list[PyTemplate]:
    """The per-item strings a node builds, each a template of one source (``starts``: where ``raw``'s lines start).

    Asked of every node of a module in turn: a `for` loop, or what holds a comprehension
    whose items become text (a `join`, `extend` or serializer call, an assignment, a return).
    A part of the text that a function of the module (``helpers``) makes is read in place of
    the call (see pycalls). A dict made per item is read as the JSON the model sees, when the
    module hands what holds it to the model as text (``serialized``: see reaching_the_model), and
    a tuple as its repr when a prompt's variable is filled with it; its items then iterate that variable.
    """
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return _loop_wrappers(node, raw, starts, helpers, serialized)
    if isinstance(node, ast.Return) and isinstance(joined(node.value), (ast.ListComp, ast.GeneratorExp)):
        return _bare_returned(node, raw, starts, helpers, serialized)
    found = []
    for comprehension in _held(node):
        element = comprehension.elt
        named = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        filled = serialized.get(id(comprehension), serialized.get(getattr(named, "id", None)))
        if filled is not None:
            made = element if isinstance(element, ast.Dict) else returned_dict(element, helpers)
            element = json_text(made) if made is not None else _repr_text(element) if filled and isinstance(element, ast.Tuple) else element
        if strings := _strings(element, helpers):
            generator = comprehension.generators[-1]
            strings, rebuilt = _with_helpers(strings, {}, helpers, node)
            made_text = _wrapper(generator.target, generator.iter, [], strings, raw, starts, rebuilt)
            found.append(replace(made_text, loop=replace(made_text.loop, collection=filled)) if made_text and filled else made_text)
    return [w for w in found if w is not None]


def with_names(built: list[PyTemplate], node: ast.AST, module: ast.Module) -> list[PyTemplate]:
    """The per-item strings a node builds, each with the names its text is bound to (see Loop.into)."""
    if not built:
        return built
    bound = _bound_to(node, module)
    named = [w.loop.into or bound for w in built]
    return [replace(w, loop=replace(w.loop, into=names + _bound_from(names, module))) for w, names in zip(built, named)]


def _bound_to(node: ast.AST, module: ast.Module) -> tuple[str, ...]:
    """What a node binds the text it builds to: the names it assigns, adds or appends to, or, for a `return`,
    the function that returns it."""
    if isinstance(node, ast.Call) and not _adding(node):
        # A join: what the statement that holds it binds it to (`context = "\n".join(...)`, `return ...`).
        node = next((s for s in ast.walk(module) if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)) and s.value is node), node)
    if isinstance(node, ast.Return):
        return tuple(f.name for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(r is node for r in own_nodes(f)))
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    else:
        inner = [node] if isinstance(node, ast.Call) else list(ast.walk(node))
        targets = [n.target for n in inner if isinstance(n, ast.AugAssign)] + [n.func.value for n in inner if _adding(n)]
    return tuple(dict.fromkeys(t.id for t in targets if isinstance(t, ast.Name)))


def _adding(node: ast.AST) -> bool:
    """`parts.append(...)`, `parts.extend(...)`, `parts.insert(...)`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ADDING


def _bound_from(names: tuple[str, ...], module: ast.Module) -> tuple[str, ...]:
    """The names assigned a value made from one of ``names`` (`context = "\n\n".join(parts)`, `ctx =
    format_context(docs)`): one step, which is how far a module takes a text to the prompt that prints it."""
    if not names:
        return ()
    found = []
    for node in ast.walk(module):
        if isinstance(node, ast.Assign) and _made_from(node.value, names):
            found += [t.id for t in node.targets if isinstance(t, ast.Name) and t.id not in names]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            isinstance(r, ast.Return) and r.value is not None and _made_from(r.value, names) for r in own_nodes(node)
        ):
            found.append(node.name)  # `return "\n".join(parts)`: a prompt prints the call (`{context(docs)}`)
    return tuple(dict.fromkeys(found))


def _made_from(value: ast.AST, names: tuple[str, ...]) -> bool:
    """Whether a value is one of ``names`` as text: the name, its items joined, or the function of that name called;
    not what another call makes of it (`llm.invoke(context)` is the model's answer)."""
    if isinstance(value, ast.Call):
        value = joined(value) or value.func
    return isinstance(value, ast.Name) and value.id in names


def formatters(module: ast.Module, raw: str, starts: list[int], helpers: Helpers, names_a_source) -> list[PyTemplate]:
    """The text a function of one item returns (`def format_chunk(doc): return f"Paper: {doc.title}\n{doc.text}"`),
    each a template of one source over the items it is given, when the file never calls it and its name says it
    renders a source (``names_a_source``): a call in the file reads it in place (see pycalls), and a function called
    from another file is all this file shows of its sources."""
    named = [f for f in helpers.values() if names_a_source(f.name)]
    if not named:
        return []  # most modules have no such function: the module is not walked for its calls
    called = {n.func.id if isinstance(n.func, ast.Name) else n.func.attr for n in ast.walk(module) if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))}
    found = []
    for function in (f for f in named if f.name not in called):
        parameters = [a.arg for a in function.args.args if a.arg not in ("self", "cls")]
        returned = richest_return(function.body) if len(parameters) == 1 else None
        if returned is not None and (strings := _strings(returned, helpers)) and _lays_out(strings):
            found.append(_wrapper(ast.Name(parameters[0]), ast.Name("items"), function.body, strings, raw, starts))
    # Two fields of the item at least: a text that prints its parameter whole (`{context}`) is a prompt, not an item's.
    return [w for w in found if w is not None and len(w.loop.keys) >= 2]


def _lays_out(strings: list[ast.AST]) -> bool:
    """Whether a text writes characters of its own between its fields (a label, a line break): one that only joins
    the item's values (`f"{chunk.title_prefix}{chunk.summary}{chunk.content}"`) is the item's pieces stored as one
    text, such as the text an index embeds, not a layout shown to a model."""
    return any(not isinstance(s, ast.JoinedStr) or any(isinstance(v, ast.Constant) and v.value for v in s.values) for s in strings)


def _loop_wrappers(node: ast.For | ast.AsyncFor, raw: str, starts: list[int], helpers: Helpers, serialized: Mapping[int | str, str]) -> list[PyTemplate]:
    if over_keys(node):
        return []  # the keys of one record, each line of it written out where its text is read (see pycalls)
    body = list(_statements(node.body))
    if serialized:
        body = [_as_json(statement, serialized, body) for statement in body]
    made = _made_by_helpers(body, helpers)
    texts = [] if _dispatches(node.body) else [(text, pieces) for text, pieces, more in _in_order(body, helpers) if more]
    text_of = {name: text for text, _ in texts for name in text}
    found = []
    # First: each text read whole stands where the string it starts with does, and reads more than that string alone.
    for text, pieces in texts:
        whole = _wrapper(node.target, node.iter, body, _with_helpers(pieces, made, helpers, node)[0], raw, starts, True)
        found += [replace(whole, loop=replace(whole.loop, into=text))] if whole else []
    for target, strings in _accumulated(body, helpers):
        strings, rebuilt = _with_helpers(strings, made, helpers, node)
        piece = _wrapper(node.target, node.iter, body, strings, raw, starts, rebuilt)
        found += [replace(piece, loop=replace(piece.loop, piece=target in text_of, into=text_of.get(target, (target,))))] if piece else []
    return found


# An if/elif chain of this many branches or more, two of them adding text, renders items of different kinds.
DISPATCH_BRANCHES = 3


def _dispatches(body: list[ast.stmt]) -> bool:
    """Whether a loop body picks what to add by the item's kind (`if b.type == "text": ... elif b.type ==
    "call": ...`): each branch renders another kind of item, so their adds are never one text."""
    for statement in (s for s in _statements(body) if isinstance(s, ast.If)):
        branches = _branches(statement)
        adding = sum(any(_added(s) is not None for s in _statements(branch)) for branch in branches)
        if len(branches) >= DISPATCH_BRANCHES and adding >= 2:
            return True
    return False


def _branches(statement: ast.If) -> list[list[ast.stmt]]:
    """The branches of an if/elif/else chain, in order."""
    branches = [statement.body]
    while len(statement.orelse) == 1 and isinstance(statement.orelse[0], ast.If):
        statement = statement.orelse[0]
        branches.append(statement.body)
    if statement.orelse:
        branches.append(statement.orelse)
    return branches


def _bare_returned(node: ast.Return, raw: str, starts: list[int], helpers: Helpers, serialized: Mapping[int | str, str]) -> list[PyTemplate]:
    """`return "\n\n".join(d.page_content for d in docs)`: the text returned is the items' values, bare.
    A join of strings is read where the join is called."""
    comprehension = joined(node.value)
    element = comprehension.elt
    if _strings(element, helpers) or not _shown_bare(element, {}):
        return []
    rendered = ast.copy_location(ast.ListComp(_field(element), comprehension.generators), comprehension)
    return wrappers(ast.copy_location(ast.Return(rendered), node), raw, starts, helpers, serialized)


def _held(node: ast.AST) -> list[ast.ListComp | ast.GeneratorExp]:
    """The comprehensions a node holds whose items may become text: joined, extended, serialized, assigned or returned."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("join", "extend"):
        held = node.args
    elif isinstance(node, ast.Call) and called_name(node) in SERIALIZERS and node.args:
        held = list(_literal_values(node.args[0]))
    elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.Return)):
        held = list(_literal_values(node.value)) if node.value is not None else []
    elif isinstance(node, ast.Lambda):
        held = list(_literal_values(node.body))  # what a tool made by a call returns (see _handed_over)
    else:
        held = []
    return [c for c in map(_comprehension, held) if c is not None]


def _comprehension(node: ast.AST) -> ast.ListComp | ast.GeneratorExp | None:
    """A comprehension, or a `map` written as the comprehension it is: `map(render, docs)` is
    `(render(x) for x in docs)`, `map(lambda d: f"...", docs)` is `(f"..." for d in docs)`."""
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return node
    if not (isinstance(node, ast.Call) and called_name(node) == "map" and len(node.args) == 2 and not node.keywords):
        return None
    function, iterated = node.args
    if isinstance(function, ast.Lambda) and len(function.args.args) == 1:
        target, element = function.args.args[0].arg, function.body
    elif isinstance(function, ast.Name):
        target = ITEM
        element = ast.copy_location(ast.Call(function, [ast.Name(ITEM, ast.Load())], []), function)
    else:
        return None
    generator = ast.comprehension(ast.copy_location(ast.Name(target, ast.Store()), function), iterated, [], 0)
    return ast.copy_location(ast.GeneratorExp(element, [generator]), node)


def _statements(body: list[ast.stmt]):
    """The statements of a loop body, through if/with/try but not into nested loops or definitions, nor into
    a branch that leaves the iteration (`if over_budget: parts.append(truncated); break`, or `return` the text so
    far): what it adds is another item's text, in place of the one the body goes on to add."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If) and statement.body and isinstance(statement.body[-1], (ast.Break, ast.Continue, ast.Return)):
            yield from _statements(statement.orelse)
        elif isinstance(statement, (ast.If, ast.With, ast.AsyncWith, ast.Try)):
            for block in (getattr(statement, name, []) for name in ("body", "orelse", "finalbody")):
                yield from _statements(block)
            for handler in getattr(statement, "handlers", []):
                yield from _statements(handler.body)


def _accumulated(body: list[ast.stmt], helpers: Helpers):
    """The string groups the body adds to something, each with what it adds to: `parts.append(f"...")`, `text += block`."""
    return ((target, strings) for target, strings, bare, _ in _adds(body, helpers) if not bare)


def _in_order(body: list[ast.stmt], helpers: Helpers) -> list[tuple[tuple[str, ...], list[ast.AST], bool]]:
    """Each text a loop body builds (the names its adds add to, see _texts), with what the body adds to it in
    order, as the pieces of one text, and whether they read more than any one string does: a bare value, or two
    adds with fields. Two lists filled side by side (`context_parts.append(...)`, `sources_used.append(...)`)
    are two texts, never one.

    A string added is itself; a value added bare (`parts.append(doc.page_content)`) is a
    field; a loop nested in the body adds its pieces for each part of the item, read with
    its variable bound to the part's first element, one level deep. The text built is
    what a string is added to: values added to anything else (`total += n`) are not
    read. Items appended to a list are read one per line.
    """
    adds, seen = [], set()
    for target, strings, bare, listed in _adds(body, helpers, nested=True):
        # The same text added twice is one text added in either branch of an `if` (a cut block or the whole).
        written = tuple(ast.dump(piece) for piece in strings)
        if written not in seen:
            seen.add(written)
            line = [ast.copy_location(ast.Constant("\n"), strings[-1])] if listed else []
            adds.append((target, strings + line, bare))
    texts = _texts(body, [target for target, _, bare in adds if not bare])
    return [_text_of(text, adds) for text in dict.fromkeys(texts.values())]


def _texts(body: list[ast.stmt], targets: list[str]) -> dict[str, tuple[str, ...]]:
    """Each name a loop body adds text to, with every name whose text flows into the same text, through locals or
    not: a list joined into another (`lines = [" | ".join(header_bits)]`, `parts.append("\n".join(lines))`) is a
    piece of it; lists filled side by side from the same item are not."""
    feeds: dict[str, set[str]] = {}
    for statement in (s for top in body for s in ast.walk(top)):
        added = _added(statement)
        receiver, value = (_receiver(statement), added) if added is not None else (_name_of(statement), getattr(statement, "value", None))
        if receiver is None or value is None:
            continue
        for name in {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} - {receiver}:
            feeds.setdefault(name, set()).add(receiver)
    text_of = {target: (target,) for target in targets}
    for target in targets:
        for reached in _reached(target, feeds) & text_of.keys():
            merged = tuple(dict.fromkeys(text_of[target] + text_of[reached]))
            text_of.update(dict.fromkeys(merged, merged))
    return text_of


def _reached(name: str, feeds: dict[str, set[str]]) -> set[str]:
    """The names whose values are made, step by step, from ``name``'s."""
    reached, pending = set(), [name]
    while pending:
        for fed in feeds.get(pending.pop(), ()):
            if fed not in reached:
                reached.add(fed)
                pending.append(fed)
    return reached


def _name_of(statement: ast.stmt) -> str | None:
    """The one name an assignment binds: `lines = [...]`."""
    targets = statement.targets if isinstance(statement, ast.Assign) else []
    return targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None


def _text_of(text: tuple[str, ...], adds: list[tuple[str, list[ast.AST], bool]]) -> tuple[tuple[str, ...], list[ast.AST], bool]:
    """The pieces the adds add to one text, and whether they read more than any one string does (see _in_order)."""
    kept = [(strings, bare) for target, strings, bare in adds if target in text]
    with_fields = sum(any(isinstance(part, ast.FormattedValue) for s in strings for part in getattr(s, "values", ())) for strings, _ in kept)
    return text, [piece for strings, _ in kept for piece in strings], any(bare for _, bare in kept) or with_fields > 1


def _adds(body: list[ast.stmt], helpers: Helpers, nested: bool = False, binding: dict[str, ast.AST] | None = None):
    """Each add of a loop body, in order: (what it adds to, its strings, whether it adds a bare value, whether to a list).

    ``nested``: a loop in the body adds too, each of its strings read with the loop's
    variable bound (``binding``) to the first element of what it iterates.
    """
    named: dict[str, list[ast.AST]] = {}
    set_by: dict[str, ast.stmt] = {}
    within = _branches_within(body)
    growing = _growing(body)
    for statement in body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            if _rewrites(statement, named):
                continue  # `formatted = formatted[:keep] + "..."`: the same text cut or cleaned, read as it was made
            if not _set_local(statement, named, set_by, within, helpers):
                continue
            if binding:
                binding[statement.targets[0].id] = bind(statement.value, binding)
        if nested and isinstance(statement, (ast.For, ast.AsyncFor)) and isinstance(statement.target, ast.Name):
            yield from _nested_adds(statement, helpers)
            continue
        if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) and statement.target.id in named.keys() - growing:
            continue  # a text made afresh for each item and added to nothing: where it goes (`Render.box(header=...)`) says what it is
        added = _added(statement)
        strings, bare = _added_strings(added, named, helpers) if added is not None else ([], False)
        strings = [_with_locals(s, named) for s in strings]
        if strings and not _grows(statement, growing, strings, named):
            yield _receiver(statement), [bind(s, binding) for s in strings] if binding else strings, bare, not isinstance(statement, ast.AugAssign)


def _set_local(statement: ast.Assign, named: dict[str, list[ast.AST]], set_by: dict[str, ast.stmt], within: dict[int, set[tuple[int, int]]], helpers: Helpers) -> bool:
    """Read what a local of the body is set to into ``named``, and say whether it was: set in each branch of an
    `if`, the branch that shows the most fields is what a source may hold, and the other is passed over.

    A local's text shows the locals set before it as their text (`cite = f"[S{i}] ({chunk_ref})"`); a local set to
    another is that one's text (`line = entry`)."""
    target, value = statement.targets[0].id, statement.value
    strings = list(named.get(value.id, [])) if isinstance(value, ast.Name) else [_with_locals(s, named) for s in _strings(value, helpers)]
    if target in set_by and _exclusive(set_by[target], statement, within) and _fields_in(named[target]) > _fields_in(strings):
        return False
    named[target], set_by[target] = strings, statement
    return True


def _branches_within(body: list[ast.stmt]) -> dict[int, set[tuple[int, int]]]:
    """For each statement under an `if` of the body, by its id, the branches it is in: (the `if`'s id, 0 in its body, 1 in its else)."""
    within: dict[int, set[tuple[int, int]]] = {}
    for statement in body:
        if isinstance(statement, ast.If):
            for branch, block in enumerate((statement.body, statement.orelse)):
                for node in (n for inner in block for n in ast.walk(inner)):
                    within.setdefault(id(node), set()).add((id(statement), branch))
    return within


def _exclusive(first: ast.stmt, then: ast.stmt, within: dict[int, set[tuple[int, int]]]) -> bool:
    """Whether two statements stand in different branches of one `if`, so only one of them runs for an item."""
    other = within.get(id(then), set())
    return any((branch_of, 1 - branch) in other for branch_of, branch in within.get(id(first), ()))


def _fields_in(strings: list[ast.AST]) -> int:
    return sum(isinstance(part, ast.FormattedValue) for s in strings for part in getattr(s, "values", ()))


def _nested_adds(loop: ast.For | ast.AsyncFor, helpers: Helpers):
    """The adds of a loop nested in a loop body, each a bare value of the outer item's text."""
    inner_body = list(_statements(loop.body))
    if over_keys(loop):
        # `for key in ["title", "date"]: lines.append(f"{key}: {doc[key]}")`: a line of the item's own per key.
        for key in listed_keys(loop.iter):
            yield from _adds(inner_body, helpers, binding={loop.target.id: ast.copy_location(ast.Constant(key), loop.iter)})
        return
    unbound = list(_adds(inner_body, helpers))
    if _wraps(unbound, loop.target.id):
        # The inner loop wraps each part itself and is read as its own sources' template: here it
        # stands as the parts it renders, once, so that no field of it is read twice.
        rendered = ast.copy_location(ast.JoinedStr([ast.FormattedValue(loop.iter, -1)]), loop)
        yield unbound[0][0], [rendered], True, False
        return
    inner = _adds(inner_body, helpers, binding={loop.target.id: _first(loop.iter)})
    yield from ((target, strings, True, listed) for target, strings, _, listed in inner)


def _growing(body: list[ast.stmt]) -> set[str]:
    """The locals the body adds to something, whole or as a field of the string added (`header` in
    `parts.append(f"{header}\\n{text}")`): a text one of them starts grows until it is added."""
    adds = [added for added in map(_added, body) if added is not None]
    shown = {part.value.id for added in adds for part in _plain_fields(added) if isinstance(part.value, ast.Name)}
    growing = {added.id for added in adds if isinstance(added, ast.Name)} | shown
    # A text shown in a growing one grows too: `header += ...`, then `full = f"{header}\n{text}"` is added.
    made = {s.targets[0].id: s.value for s in body if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)}
    pending = list(growing)
    while pending:
        for part in _plain_fields(made.get(pending.pop())):
            if isinstance(part.value, ast.Name) and part.value.id not in growing:
                growing.add(part.value.id)
                pending.append(part.value.id)
    return growing


def _rewrites(statement: ast.Assign, named: dict[str, list[ast.AST]]) -> bool:
    """Whether an assignment makes a text the body holds from that text itself (`text = text.strip()`)."""
    target = statement.targets[0].id
    return bool(named.get(target)) and any(isinstance(n, ast.Name) and n.id == target for n in ast.walk(statement.value))


def _plain_fields(string: ast.AST) -> list[ast.FormattedValue]:
    """The fields of an f-string shown as they are, with no conversion or format."""
    parts = string.values if isinstance(string, ast.JoinedStr) else ()
    return [p for p in parts if plain_field(p)]


def _with_locals(string: ast.AST, named: dict[str, list[ast.AST]]) -> ast.AST:
    """An f-string with each field that shows a local of the body holding text (`{header}`, set to an
    f-string and grown with `+=`) read as that text: the text the model gets, fields and all."""
    plain = {id(part) for part in _plain_fields(string)}
    if not plain:
        return string
    values: list[ast.AST] = []
    for part in string.values:
        held = named.get(part.value.id) if id(part) in plain and isinstance(part.value, ast.Name) else None
        if held and all(_literal(piece) for piece in held):
            values.extend(value for piece in held for value in (piece.values if isinstance(piece, ast.JoinedStr) else [piece]))
        else:
            values.append(part)
    return ast.copy_location(ast.JoinedStr(values), string)


def _wraps(adds: list, target: str) -> bool:
    """Whether a loop's adds write text of their own around a field of its item (`f"Chunk: {c.id}\n"`)."""
    for _, strings, bare, _ in adds:
        for piece in strings if not bare else ():
            parts = getattr(piece, "values", ())
            fields = [p for p in parts if isinstance(p, ast.FormattedValue)]
            written = "".join(p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str))
            if written.strip() and any(isinstance(n, ast.Name) and n.id == target for f in fields for n in ast.walk(f.value)):
                return True
    return False


def _added_strings(added: ast.AST, named: dict[str, list[ast.AST]], helpers: Helpers) -> tuple[list[ast.AST], bool]:
    """The strings a value added is made of (a local's, or its own), or the field it shows added bare; and whether bare."""
    strings = (named.get(added.id) if isinstance(added, ast.Name) else None) or _strings(added, helpers) or _summed_locals(added, named)
    if strings:
        return strings, False
    return ([_field(added)], True) if _shown_bare(added, named) else ([], False)


def _summed_locals(added: ast.AST, named: dict[str, list[ast.AST]]) -> list[ast.AST]:
    """`header + body`, each a text the body made (`header = f"--- Source [{d.id}] ---"`): their strings in
    order; nothing when a term is any other value."""
    terms = sum_terms(added) if isinstance(added, ast.BinOp) else []
    if len(terms) < 2 or not all(_literal(t) or isinstance(t, ast.Name) and named.get(t.id) for t in terms):
        return []
    return [piece for t in terms for piece in (named[t.id] if isinstance(t, ast.Name) else [t])]


def _grows(statement: ast.stmt, growing: set[str], strings: list[ast.AST], named: dict[str, list[ast.AST]]) -> bool:
    """`entry += f"URL: {r.url}"` on a text the body started and adds later (``growing``): that text
    grows (in ``named``), and is added where it goes."""
    grown = statement.target.id if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) else None
    if grown not in growing or not named.get(grown):
        return False
    named[grown] = named[grown] + strings
    return True


def _receiver(statement: ast.stmt) -> str:
    """What an add adds to: the list appended to, the name added to with `+=`."""
    return ast.unparse(statement.target if isinstance(statement, ast.AugAssign) else statement.value.func.value)


def _shown_bare(value: ast.AST, named: dict[str, list[ast.AST]]) -> bool:
    """Whether a value added as it is shows a field: a key of something (`doc.page_content`, `r["text"]`), or a local set in the body."""
    if isinstance(value, ast.Name):
        return value.id in named
    return _reads_a_field(value)


def _made_by_helpers(body: list[ast.stmt], helpers: Helpers) -> dict[str, ast.AST]:
    """The locals a loop body sets to what a function of the module returns: `label = _format_label(doc)`."""
    made = {}
    for statement in body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            if helper_called(statement.value, helpers) is not None:
                made[statement.targets[0].id] = statement.value
    return made


def _with_helpers(strings: list[ast.AST], made: dict[str, ast.AST], helpers: Helpers, node: ast.AST) -> tuple[list[ast.AST], bool]:
    """The strings with what the module's functions make read in place of their calls, and whether the text
    is no longer the literal as written: a call was read, or a string is a helper's, written outside ``node``."""
    read = [inlined(s, made, helpers) if isinstance(s, ast.JoinedStr) else s for s in strings]
    elsewhere = any(not node.lineno <= s.lineno <= node.end_lineno for s in strings)
    return read, elsewhere or any(ast.dump(a) != ast.dump(b) for a, b in zip(read, strings))


def _added(statement: ast.stmt) -> ast.AST | None:
    if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add):
        return statement.value
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if isinstance(call.func, ast.Attribute) and call.func.attr in ADDING and call.args:
            return call.args[-1]
    return None


def _strings(node: ast.AST | None, helpers: Helpers | None = None) -> list[ast.AST]:
    """The strings a value is made of, when it is one with fields (an f-string, a format string
    filled by keywords, a sum of strings and values), or a list of lines with one (a value beside them
    read as the field it shows); or the text a function of the module (``helpers``) returns for it."""
    made = returned_text(node, helpers) if helpers and node is not None else None
    if made is None and helpers and isinstance(node, (ast.List, ast.Tuple)):
        # `lines.extend(["", _source_block(n, chunk)])`: each item read as it is when added alone.
        # `lines.extend([header, truncate(c.text, 800), ""])`: each item one line, as a list's items are.
        written = [_strings(item, helpers) or text_pieces(item) for item in node.elts]
        # A value shows its field only beside text of the list's own: a tuple of values (`(hit.score, hit.text)`) is no text.
        read = [pieces or _shown_line(item) for pieces, item in zip(written, node.elts)] if any(written) else [None]
        items = None if None in read or [] in read else [piece for i, pieces in enumerate(read) for piece in _after_line(pieces, node.elts[i - 1] if i else None)]
    else:
        items = [made] if made is not None else text_pieces(node)
    return items if items and any(isinstance(item, (ast.JoinedStr, ast.Call)) for item in items) else []


def _after_line(pieces: list[ast.AST], previous: ast.AST | None) -> list[ast.AST]:
    """A list item's pieces, after the line break that ends the item before it (none before the first), placed
    at that item's last character: a finding that ends with the line ends there."""
    if previous is None:
        return pieces
    line, column = previous.end_lineno, previous.end_col_offset
    return [ast.Constant("\n", lineno=line, col_offset=column - 1, end_lineno=line, end_col_offset=column), *pieces]


def _shown_line(item: ast.AST) -> list[ast.AST] | None:
    """A list item that is no text of its own but shows a field, read as that field: `truncate(chunk.text, 800)`,
    `chunk.text`. None for any other value."""
    found = reference(item, {})
    return [_field(item)] if found is not None and found[1] else None


def text_pieces(node: ast.AST | None) -> list[ast.AST] | None:
    if _literal(node) or _filled(node):
        return [node]
    if isinstance(node, (ast.List, ast.Tuple)):
        parts = [text_pieces(item) for item in node.elts]
        return None if None in parts else [item for part in parts for item in part]
    if _trimmed(node):
        return text_pieces(node.func.value)  # `"\n".join(lines).strip()`: the same text, its edges trimmed
    if (items := _joined_items(node)) is not None:
        # `"\n".join([header, d.text])`: the items with the separator between them, each value a field.
        separator = node.func.value
        pieces = [[item] if _literal(item) else text_pieces(item) if _literal(shown_or_nothing(item)) else [_field(item)] for item in items]
        return [piece for i, part in enumerate(pieces) for piece in ([separator] if i else []) + part]
    if (shown := shown_or_nothing(node)) is not None:
        return text_pieces(shown)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _summed(node)
    return None


def listed_lines(node: ast.List) -> list[ast.AST] | None:
    """A list of lines a helper returns for its caller to add (`lines.extend(render(chunk))`), as the text
    they make one per line: a literal as itself, any other value as the field it shows. None with no words
    of its own."""
    if not any(_literal(item) for item in node.elts):
        return None
    # A value's field has no place of its own: the text stands where the helper's first literal does, not
    # where the caller's argument it reads is written.
    shown = [item if _literal(item) else ast.JoinedStr([ast.FormattedValue(item, -1, None)]) for item in node.elts]
    return [piece for item in shown for piece in (item, ast.Constant("\n"))]


def _summed(node: ast.BinOp) -> list[ast.AST] | None:
    """`"Score: " + str(doc.score) + "\n"`: each value a field, as in an f-string; None for `a + b`, which nothing says is text."""
    terms = sum_terms(node)
    if not any(_literal(term) for term in terms):
        return None
    return [_field(term) if not _literal(term) else term for term in terms]


def _joined_items(node: ast.AST | None) -> list[ast.AST] | None:
    """The items of `SEP.join(...)`, SEP a string literal: a list written out, item by item; a
    comprehension, its element read for the first item it iterates (as a loop nested in a loop
    body is); any other value, its first item. None for anything else."""
    items = joined(node) if node is not None else None
    if items is None or not isinstance(node.func.value, ast.Constant) or not isinstance(node.func.value.value, str):
        return None
    if isinstance(items, (ast.List, ast.Tuple)):
        return [piece for item in items.elts for piece in (_spread(item.value) if isinstance(item, ast.Starred) else [item])]
    if isinstance(items, (ast.ListComp, ast.GeneratorExp)):
        generator = items.generators[0]
        if not isinstance(generator.target, ast.Name):
            return None
        return [bind(items.elt, {generator.target.id: _first(generator.iter)})]
    return [_first(items)]


def _spread(value: ast.AST) -> list[ast.AST]:
    """The lines a spread adds among the others (`*lines`, `...(stale ? ["(stale)"] : [])`): a list written
    out, its items; under a condition, the items it adds when the test holds; any other value, its first."""
    if isinstance(value, ast.IfExp):
        value = value.body
    return list(value.elts) if isinstance(value, (ast.List, ast.Tuple)) else [_first(value)]


def _first(iterated: ast.AST) -> ast.AST:
    return ast.copy_location(ast.Subscript(iterated, ast.Constant(0), ast.Load()), iterated)


def _literal(node: ast.AST | None) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)


def _trimmed(node: ast.AST) -> bool:
    """A text with its edges trimmed: `text.strip()`, `.lstrip()`, `.rstrip()` with no argument."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("strip", "lstrip", "rstrip") and not node.args and not node.keywords


def _field(value: ast.AST) -> ast.JoinedStr:
    """A value added to a string, as the f-string that renders it."""
    return ast.copy_location(ast.JoinedStr([ast.FormattedValue(value, -1, None)]), value)


def _filled(node: ast.AST | None) -> bool:
    """`"[{n}] {title}".format(n=i, title=doc.title)` or `"[chunk {0}]\n{1}".format(cid, text)`: a format string
    literal filled by keywords or by position."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
        and not any(isinstance(arg, ast.Starred) for arg in node.args)
        and all(keyword.arg for keyword in node.keywords)
    )


def _by_position(call: ast.Call) -> str:
    """A format string whose fields are filled by position, with each such field written as the argument
    it takes, as an f-string would show it: `"[chunk {0}]".format(cid)` reads as `[chunk {cid}]`. A string
    no formatter reads stands as written."""
    text = call.func.value.value
    if not call.args:
        return text
    out, automatic = [], 0
    try:
        for literal, field, spec, conversion in Formatter().parse(text):
            out.append(literal.replace("{", "{{").replace("}", "}}"))
            if field is None:
                continue
            head = re.match(r"[^.\[]*", field)[0]
            if head.isdigit() or not head:
                position = int(head) if head else automatic
                automatic += not head
                if position >= len(call.args):
                    return text
                field = _written(call.args[position]) + field[len(head) :]
            out.append("{" + field + ("!" + conversion if conversion else "") + (":" + spec if spec else "") + "}")
    except ValueError:
        return text
    return "".join(out)


def _wrapper(target: ast.AST, iterated: ast.AST, body: list[ast.stmt], strings: list[ast.AST], raw: str, starts: list[int], rebuilt: bool = False) -> PyTemplate | None:
    index, target, iterated = _enumerated(target, iterated)
    target, aliases = _unpacked(target)
    name = getattr(target, "id", None)
    _alias_parallel(aliases, [*body, *strings], name)
    site = getattr(iterated, "lineno", None)
    if index is None and aliases and _counts(iterated):
        index, iterated = name, _read_at_the_counter(aliases, iterated)
    _alias_locals(aliases, body, name, index)
    _alias_keywords(aliases, strings)
    refs = [ref for s in strings for ref in _field_refs(_body(s), aliases)]
    if name is None or name not in (root for root, _ in refs):
        return None  # renders no field of the loop variable: a log line, a query, a message
    loop = Loop(
        target=name,
        site=site,
        collection=_collection(iterated),
        index=index,
        aliases=tuple((alias, *ref) for alias, ref in aliases.items()),
        keys=tuple(dict.fromkeys(keys[-1] for root, keys in refs if root == name and keys)),
    )
    return _loop_template(strings, raw, starts, loop, rebuilt)


def _read_at_the_counter(aliases: dict[str, tuple[str, tuple[str, ...]]], iterated: ast.AST) -> ast.AST:
    """`for i in range(len(docs))`, then `docs[i]`: the counter is the source's ordinal, and the one list read at it
    (see _alias_parallel) is what the loop goes through; several lists read at it are gone through together."""
    return ast.parse(next(iter(aliases)), mode="eval").body if len(aliases) == 1 else iterated


def _counts(iterated: ast.AST) -> bool:
    """`range(n)`, `range(len(docs))`, `range(0, n)`: a loop over the places of a list, not its items."""
    return isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "range"


def _collection(iterated: ast.AST) -> str:
    """What a loop iterates, as a Jinja expression: as written, or `items` with the sort it was given
    (`sorted(docs, key=lambda d: d.date)` is `items|sort(attribute='date')`)."""
    from .pyorder import sort_key  # pyorder reads this module

    collection = ast.unparse(spread_sum(iterated))
    if jinja_expression(collection):
        return collection
    key = sort_key(iterated)
    return f"items|sort(attribute='{key}')" if key else "items"


def _enumerated(target: ast.AST, iterated: ast.AST) -> tuple[str | None, ast.AST, ast.AST]:
    """`for i, doc in enumerate(docs)`: the counter's name, the item's target and what is iterated
    (docs); a loop over anything else has no counter."""
    if not (isinstance(iterated, ast.Call) and called_name(iterated) == "enumerate" and iterated.args):
        return None, target, iterated
    if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name):
        return target.elts[0].id, target.elts[1], iterated.args[0]
    return None, target, iterated.args[0]


def _unpacked(target: ast.AST) -> tuple[ast.AST, dict[str, tuple[str, tuple[str, ...]]]]:
    """`for doc, score in results`: one item, whose parts are named by the variables; any other
    target stands as it is, with no aliases yet."""
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return ast.Name(ITEM), {e.id: (ITEM, (e.id,)) for e in target.elts}
    return target, {}


def _alias_parallel(aliases: dict[str, tuple[str, tuple[str, ...]]], nodes: list[ast.AST], name: str | None) -> None:
    """Lists the loop variable indexes (`for idx in top_k:` then `chunks[idx]["source"]`, `scores[idx]`; `for i in
    range(n):` then `results.points[i].payload`): each is the item's value of that name, as a key of the item is
    (`chunks`, `scores`, `points`)."""
    for node in (n for top in nodes for n in ast.walk(top)) if name else ():
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == name and (dotted := _dotted(node.value)):
            aliases.setdefault(dotted, (name, (dotted.rsplit(".", 1)[-1],)))


def _dotted(node: ast.AST) -> str | None:
    """A name or an attribute chain of names as written (`results.points`); None for any other value."""
    if isinstance(node, ast.Name):
        return node.id
    inner = _dotted(node.value) if isinstance(node, ast.Attribute) else None
    return f"{inner}.{node.attr}" if inner else None


def _alias_locals(aliases: dict[str, tuple[str, tuple[str, ...]]], body: list[ast.stmt], name: str | None, index: str | None) -> None:
    """Add the variables the loop body sets from the item ``name``, or from a list read at the loop's counter
    ``index`` (`score = scores[i]`, one value per item): each stands for a field of it. A local set inside a loop
    nested in the body (`for other in hits: if other.id == hit.id: text = hit.text; break`) holds it as well."""
    for statement in map(_named_by_test, _with_nested_loops(body)):
        if _unpacked_from_item(statement, name, aliases):
            # `(date, entry) = item` names the item's parts, as `for date, entry in items` does; each name unpacked
            # from a value computed from the item is a field of it too, named by its variable.
            aliases.update({e.id: (name, (e.id,)) for e in statement.targets[0].elts})
            continue
        # `source = filename = doc.metadata["file_name"]`: each name of a chained assignment holds the value.
        if not isinstance(statement, ast.Assign) or not all(isinstance(t, ast.Name) for t in statement.targets):
            continue
        ref = reference(statement.value, aliases)
        for local in (t.id for t in statement.targets):
            if ref is not None and ref[0] == name and ref[1]:
                aliases[local] = ref
            elif _reads_item(statement.value, name, aliases) or _at_counter(statement.value, index):
                # `summary = "\n".join(h["text"] for h in doc["highlights"])`: computed from the item,
                # so a field of it, and its variable's name says what it holds.
                aliases[local] = (name, (local,))


def _with_nested_loops(body: list[ast.stmt]):
    """The statements of a loop body and, in their place, those of the loops nested in it, through every branch
    (a branch that leaves the nested loop too: it sets the local for the text the body goes on to add)."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            yield from every_statement(statement.body)


def _named_by_test(statement: ast.stmt) -> ast.stmt:
    """A branch whose test names its value (`if summary := doc.summary:`), read as the assignment it makes."""
    test = getattr(statement, "test", None) if isinstance(statement, (ast.If, ast.While)) else None
    if isinstance(test, ast.NamedExpr):
        return ast.copy_location(ast.Assign([test.target], test.value), statement)
    return statement


def every_statement(body: list[ast.stmt]):
    """The statements of a block in order, through every branch and loop in it, not into the functions and
    classes it defines (whose statements are theirs)."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            yield from every_statement(getattr(statement, name, []))
        for handler in getattr(statement, "handlers", []):
            yield from every_statement(handler.body)


def _unpacked_from_item(statement: ast.stmt, name: str | None, aliases: dict[str, tuple[str, tuple[str, ...]]]) -> bool:
    """Whether a statement unpacks into names the item or a value made from it: `chunk_date, entry = item`,
    `ok, text = extract(page, doc.snippet)`."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Tuple):
        return False
    return all(isinstance(e, ast.Name) for e in statement.targets[0].elts) and _reads_item(statement.value, name, aliases)


def _alias_keywords(aliases: dict[str, tuple[str, tuple[str, ...]]], strings: list[ast.AST]) -> None:
    """Add the names of a format string's keywords (`.format(title=doc.title)`): each stands for its value."""
    for call in (s for s in strings if isinstance(s, ast.Call)):
        for keyword in call.keywords:
            ref = reference(keyword.value, aliases)
            if ref is not None:
                aliases[keyword.arg] = ref


def _loop_template(strings: list[ast.AST], raw: str, starts: list[int], loop: Loop, rebuilt: bool) -> PyTemplate:
    """The template the loop's strings make, placed at the first of them (``rebuilt``: not as written, a helper's text read in)."""
    from .pysource import PyTemplate, _char_column  # pysource reads this module

    first = strings[0].func.value if isinstance(strings[0], ast.Call) else strings[0]
    line_start, end_line_start = starts[first.lineno - 1], starts[first.end_lineno - 1]
    start = line_start + _char_column(raw, line_start, first.col_offset)
    column = start - line_start + 1
    verbatim = _verbatim(raw[start : end_line_start + _char_column(raw, end_line_start, first.end_col_offset)], _body(strings[0]))
    if len(strings) == 1 and verbatim is not None and not rebuilt:
        inner_start, inner_end, opening = start + verbatim[0], start + verbatim[1], verbatim[2]
        return PyTemplate(raw[inner_start:inner_end], Syntax.TEXT, first.lineno, column, (inner_start, inner_end), loop=replace(loop, opening=opening))
    # Several literals, or escapes: the text is rebuilt, and findings point at the literal each piece comes from.
    return PyTemplate("".join(_body(s) for s in strings), Syntax.TEXT, first.lineno, column, None, loop=loop, pieces=_pieces(strings, raw, starts))


def _pieces(strings: list[ast.AST], raw: str, starts: list[int]) -> tuple[int, ...]:
    """For each character of the rebuilt text, a place in the literal its piece comes from, and the end of the
    last: where a finding in that piece stands. A piece longer than its literal (a local's text read into it)
    is placed at the literal's start, and so is the text's first character (a whole source's header)."""
    from .pysource import _char_column  # pysource reads this module

    offsets: list[int] = []
    end = 0
    for string in strings:
        literal = string.func.value if isinstance(string, ast.Call) else string
        start = starts[literal.lineno - 1] + _char_column(raw, starts[literal.lineno - 1], literal.col_offset)
        end = starts[literal.end_lineno - 1] + _char_column(raw, starts[literal.end_lineno - 1], literal.end_col_offset)
        opening = _OPENING.match(raw, start)
        inner = start + (opening.end() - start if opening else 1)  # past `f"` (or a template literal's backtick)
        length = len(_body(string))
        offsets.extend(inner + k if inner + length < end and offsets else start for k in range(length))
    return (*offsets, end)


def _reads_item(value: ast.AST, name: str | None, aliases: dict[str, tuple[str, tuple[str, ...]]]) -> bool:
    """Whether an expression reads the loop variable, directly or through a name bound from it; not where it only
    says where to cut another value (`answer[start:end]`, `start` the item's position: a piece of the answer)."""
    return any(isinstance(node, ast.Name) and (node.id == name or aliases.get(node.id, ("",))[0] == name) for node in _uncut(value))


def _uncut(node: ast.AST):
    """The nodes of an expression, less the bounds of its slices."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.Slice):
            yield from _uncut(child)


def _at_counter(value: ast.AST, index: str | None) -> bool:
    """Whether an expression reads a list at the loop's counter (`scores[i]`)."""
    return index is not None and any(isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == index for node in ast.walk(value))


def _verbatim(literal: str, body: str) -> tuple[int, int, str] | None:
    """Where a string literal's body stands in it, and its opening, when it reads as ``body``, fields and all."""
    match = _OPENING.match(literal)
    quote = match.group(2) if match else ""
    if not match or not literal.endswith(quote) or len(literal) < match.end() + len(quote):
        return None
    inner = literal[match.end() : len(literal) - len(quote)]
    if "\\" in inner or quote in inner:  # escapes, or an implicit concatenation
        return None
    fields, read = split_fields(inner), split_fields(body) or []
    if fields is None or [_unparsed(f[2]) for f in fields] != [_unparsed(f[2]) for f in read]:
        return None  # not what the string reads: a name in it bound to another value (`{s}` for `r.snippets[0]`)
    return match.end(), len(literal) - len(quote), match.group(0)


def _unparsed(expression: str) -> str:
    return ast.unparse(ast.parse(expression.strip(), mode="eval"))


def called_name(call: ast.Call) -> str:
    """The last part of the called name: `append` for `parts.append(...)`, `print` for `print(...)`."""
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")


def _field_refs(body: str, aliases):
    for _, _, expression in split_fields(body) or ():
        ref = reference(ast.parse(expression.strip(), mode="eval").body, aliases)
        if ref is not None:
            yield ref


def _body(node: ast.AST) -> str:
    """A string's body as text: a format string as written; an f-string's literal parts with
    their braces doubled, and its fields as `{expr!c:spec}`."""
    if isinstance(node, ast.Call):
        return _by_position(node)
    if isinstance(node, ast.Constant):
        return node.value.replace("{", "{{").replace("}", "}}")
    text = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            text.append(_body(part))
            continue
        expression = _written(part.value)
        conversion = "!" + chr(part.conversion) if part.conversion != -1 else ""
        spec = ":" + _body(part.format_spec) if part.format_spec is not None else ""
        text.append("{" + (" " if expression.startswith("{") else "") + expression + conversion + spec + "}")
    return "".join(text)


# ---------------------------------------------------------------- dicts the model reads as JSON


def reaching_the_model(module: ast.Module, lexicon: Lexicon, piped: Mapping[str, str] = MappingProxyType({})) -> dict[int | str, str]:
    """What a module hands the model as text, so that a dict made per item in it is JSON the model
    reads: the names and comprehensions (by id) that a chat message holds (`{"role": "tool",
    "content": results}`), that a tool returns (a function whose name or decorator the lexicon's
    `tool` words name: `@tool`, `def search_tool`), or that a serializer writes into a text kept,
    returned or written into a message or an f-string (`return json.dumps(results)`). A serialized
    value passed on to another call (`Response(content=json.dumps(rows))`) goes to a page or a
    file as much as to a model, and is not counted.

    Each is mapped to the prompt variable it fills, where that is known: what a function of the
    module returns when a pipeline ends in it (``piped``: function -> variable, see chain_end) is
    printed whole into that variable. Elsewhere the variable is "" (not known)."""
    streamed = _streamed(module)
    held = [h for node in ast.walk(module) if id(node) not in streamed for h in _handed_over(node, lexicon)]
    # What a serializer writes, where its text is kept: the text is the JSON of its argument.
    held = [inner for node in held for inner in _literal_values(node.args[0] if _serialized(node) else node)]
    held += _held_in_dicts(module, held)
    # What a function of the module returns for it (`json.dumps(transform_chunks(chunks))`, or a name assigned its
    # result, `rag_context = build_rag_context(q)` then `json.dumps(rag_context)`): the list it makes.
    helpers = helpers_of(module)
    assigned = _assigned_calls(module, {h.id for h in held if isinstance(h, ast.Name)}) if helpers else {}
    held += [value for node in held if (helper := helper_called(assigned.get(getattr(node, "id", None), node), helpers)) for value in _returned_values(helper)]
    reaching = {_held_key(h): "" for h in held if isinstance(h, (ast.Name, ast.ListComp, ast.GeneratorExp))}
    for function, variable in piped.items():
        if function in helpers:
            returned = map(_sliced, _returned_values(helpers[function]))
            reaching.update((_held_key(h), variable) for h in returned if isinstance(h, (ast.Name, ast.ListComp, ast.GeneratorExp)))
    return reaching


def _reads_a_field(value: ast.AST) -> bool:
    """Whether a value reads a key or attribute of something (`doc.page_content`, `r["text"]`), not a name alone."""
    found = reference(value, {})
    return found is not None and bool(found[1])


def _streamed(module: ast.Module) -> set[int]:
    """The parts of the texts a generator yields (by id): they go to whoever iterates it, a client's stream as often
    as a model (`yield f"data: {json.dumps(payload)}\n\n"`, a server-sent event)."""
    return {id(part) for node in ast.walk(module) if isinstance(node, ast.Yield) and isinstance(node.value, ast.JoinedStr) for part in node.value.values}


def _held_in_dicts(module: ast.Module, held: list[ast.AST]) -> list[ast.AST]:
    """What the names among ``held`` hold, where the module builds such a name as a dict: `payload = {"results":
    results}` or `payload["results"] = results`, then `json.dumps(payload)`, serializes `results` too."""
    names = {h.id for h in held if isinstance(h, ast.Name)}
    values = []
    for node in ast.walk(module) if names else ():
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in names and isinstance(node.value, ast.Dict):
                values.append(node.value)
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in names and isinstance(target.slice, ast.Constant):
                values.append(node.value)
    return [inner for value in values for inner in _literal_values(value)]


def _assigned_calls(module: ast.Module, names: set[str]) -> dict[str, ast.Call]:
    """The call each of ``names`` is assigned from, where the module assigns it one (`rag_context = build(q)`)."""
    if not names:
        return {}
    return {
        node.targets[0].id: node.value
        for node in ast.walk(module)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id in names and isinstance(node.value, ast.Call)
    }


def _literal_values(node: ast.AST):
    """What a dict or list written out holds, each value in turn (`{"question": q, "sources": [... for d in docs]}`
    holds the comprehension): the payload of a request written as one literal; any other value is itself."""
    if isinstance(node, ast.Dict):
        yield from (inner for value in node.values for inner in _literal_values(value))
    elif isinstance(node, (ast.List, ast.Tuple)):
        yield from (inner for value in node.elts for inner in _literal_values(value))
    else:
        yield node


def _sliced(node: ast.AST) -> ast.AST:
    """The list a slice is of: `results[:top_n]` holds items of `results`."""
    while isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        node = node.value
    return node


def _held_key(node: ast.Name | ast.ListComp | ast.GeneratorExp) -> int | str:
    return node.id if isinstance(node, ast.Name) else id(node)


def chain_end(node: ast.AST, bound: Mapping[str, ast.AST]) -> str | None:
    """The function whose result a LangChain pipeline gives (`retriever | format_docs` gives format_docs's, and a
    function alone is a pipeline of one step); a name bound to a pipeline (``bound``: the module's assignments,
    `fusion = queries | retriever.map() | fuse`) is read through. None when the value is anything else."""
    seen: set[str] = set()
    while True:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            node = node.right
        elif isinstance(node, ast.Name) and node.id in bound and node.id not in seen:
            seen.add(node.id)
            node = bound[node.id]
        else:
            return node.id if isinstance(node, ast.Name) else None


def _repr_text(node: ast.Tuple) -> ast.JoinedStr:
    """A tuple printed whole, as its repr reads: `(doc, score)` is `({doc!r}, {score!r})`."""
    values: list[ast.AST] = [ast.Constant("(")]
    for i, part in enumerate(node.elts):
        values.append(ast.Constant(", " if i else ""))
        values.append(ast.Constant(repr(part.value)) if isinstance(part, ast.Constant) else ast.FormattedValue(part, ord("r"), None))
    values.append(ast.Constant(")"))
    return ast.copy_location(ast.JoinedStr(values), node)


def _handed_over(node: ast.AST, lexicon: Lexicon) -> list[ast.AST]:
    """What one node of a module hands the model: a serializer's call kept, returned or written into an
    f-string; a chat message's content; what a tool returns."""
    if isinstance(node, (ast.Return, ast.Assign, ast.FormattedValue)):
        return [value for value in _kept_values(node) if _serialized(value)]
    if isinstance(node, ast.Dict):
        keys = {key.value: value for key, value in zip(node.keys, node.values) if isinstance(key, ast.Constant)}
        return [keys["content"]] if "role" in keys and "content" in keys else []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_tool(node, lexicon):
        return _returned_values(node)
    if isinstance(node, ast.Call) and lexicon.mentions(called_name(node) or "", "tool"):
        # A tool made by a call, its function given in the options (`tool({execute: async () => ({results})})`).
        given = [v for arg in node.args if isinstance(arg, ast.Dict) for v in arg.values] + [k.value for k in node.keywords]
        return [f.body for f in given if isinstance(f, ast.Lambda)]
    return []


def _kept_values(node: ast.Return | ast.Assign | ast.FormattedValue) -> list[ast.AST]:
    """The values a node keeps; returned beside other values, a text is one of them: `return json.dumps(payload), citations`."""
    return node.value.elts if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) else [node.value]


def _returned_values(function: ast.AST) -> list[ast.AST]:
    return [r.value for r in ast.walk(function) if isinstance(r, ast.Return) and r.value is not None]


def _serialized(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Call) and called_name(node) in SERIALIZERS and bool(node.args)


def _is_tool(function: ast.FunctionDef | ast.AsyncFunctionDef, lexicon: Lexicon) -> bool:
    decorators = [d.func if isinstance(d, ast.Call) else d for d in function.decorator_list]
    names = [function.name] + [d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "") for d in decorators]
    return any(name and lexicon.mentions(name, "tool") for name in names)


def _as_json(statement: ast.stmt, serialized: Mapping[int | str, str], body: list[ast.stmt]) -> ast.stmt:
    """A loop body's statement that adds a dict to a list the model reads (``serialized``), the dict read as its JSON
    text: the dict written in the add, or the one a local of the ``body`` is built into (see _dict_built)."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and isinstance(statement.value.func, ast.Attribute):
        call = statement.value
        added = call.args[-1] if call.args else None
        if isinstance(added, ast.Name):
            added = _dict_built(added.id, body)
        if call.func.attr in ADDING and isinstance(added, ast.Dict) and _receiver(statement) in serialized:
            text = json_text(added)
            if text is not None:
                return ast.copy_location(ast.Expr(ast.Call(call.func, [*call.args[:-1], text], [])), statement)
    return statement


def _dict_built(name: str, body: list[ast.stmt]) -> ast.Dict | None:
    """The dict a local is built into over a loop body: written as a literal, then given keys one by one, some only
    when the item has the value (`result = {"title": t}`, then `if date: result["updated_at"] = date`). Each key
    stands where it is first given; None when the body does not write the local as a dict literal."""
    assigned = [s for s in body if isinstance(s, ast.Assign) and len(s.targets) == 1]
    at = next((i for i, s in enumerate(assigned) if isinstance(s.targets[0], ast.Name) and s.targets[0].id == name and isinstance(s.value, ast.Dict)), None)
    if at is None:
        return None
    written = assigned[at].value
    keys = {k.value: v for k, v in zip(written.keys, written.values) if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    for statement in assigned[at + 1 :]:
        key = _key_given(statement.targets[0], name)
        # A key given in two branches keeps the value that reads a field (`section.text` over a message made of it).
        if key is not None and (key not in keys or not _reads_a_field(keys[key])):
            keys[key] = statement.value
    return ast.copy_location(ast.Dict([ast.Constant(k) for k in keys], list(keys.values())), written)


def _key_given(target: ast.AST, name: str) -> str | None:
    """The key an assignment gives the dict ``name``: `result["updated_at"] = ...` gives "updated_at", as does
    `result.updated_at = ...` in TypeScript."""
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == name:
        return target.attr
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name:
        return string_value(target.slice)
    return None


def json_text(node: ast.Dict) -> ast.JoinedStr | None:
    """A dict written per item as the JSON text the model reads, each value a field named by its key:
    `{"source_type": d.source}` reads `{"source_type": {d['source_type']}}`, so that its key says what
    the field is, as a JSON source's key does. None for a chat message (a `role` key) or a dict with
    keys that are not written out."""
    values = _json_values(node, ())
    if values is None or any(isinstance(key, ast.Constant) and key.value == "role" for key in node.keys):
        return None
    if sum(isinstance(value, ast.FormattedValue) for value in values) < 2:
        return None  # `{"type": "text", "text": t}`: a content block of a message, one value and its kind
    return ast.copy_location(ast.JoinedStr(values), node)


def _json_values(node: ast.Dict, path: tuple[str, ...]) -> list[ast.AST] | None:
    if not node.keys or not all(isinstance(key, ast.Constant) and isinstance(key.value, str) for key in node.keys):
        return None
    values: list[ast.AST] = [ast.Constant("{")]
    for i, (key, value) in enumerate(zip(node.keys, node.values)):
        values.append(ast.Constant((", " if i else "") + json.dumps(key.value) + ": "))
        if isinstance(value, ast.Dict):
            inner = _json_values(value, path + (key.value,))
            if inner is None:
                return None
            values.extend(inner)
        elif isinstance(value, ast.Constant):
            values.append(ast.Constant(json.dumps(value.value)))
        else:
            values.append(ast.FormattedValue(_keyed(value, path + (key.value,)), -1, None))
    values.append(ast.Constant("}"))
    return values


def _keyed(value: ast.AST, path: tuple[str, ...]) -> ast.AST:
    """What a dict's value reads, named by the dict's keys: `d.source` under "source_type" is `d["source_type"]`."""
    ref = reference(value, {})
    if ref is None:
        return value
    keyed: ast.AST = ast.copy_location(ast.Name(ref[0], ast.Load()), value)
    if ref == (path[-1], ()):
        return keyed  # a local named as its key, `"score": float(score)`, says what it is itself
    for key in path:
        keyed = ast.copy_location(ast.Subscript(keyed, ast.Constant(key), ast.Load()), value)
    return keyed


def _written(node: ast.AST) -> str:
    """An expression as a field writes it; `_` (a value of nothing known) for one this Python cannot
    write inside an f-string (a helper's text bound in, holding a backslash)."""
    try:
        return ast.unparse(node)
    except ValueError:
        return "_"


# ---------------------------------------------------------------- what a field reads


def reference(node: ast.AST, aliases: dict[str, tuple[str, tuple[str, ...]]]) -> tuple[str, tuple[str, ...]] | None:
    """The variable and keys an expression shows: `doc.metadata["date"][:10]` reads doc, (metadata, date)."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id, (node.id, ()))
    if isinstance(node, ast.Attribute):
        if aliases and (dotted := _dotted(node)) in aliases:
            return aliases[dotted]  # a list of the object's, read at the loop's counter (see _alias_parallel)
        inner = reference(node.value, aliases)
        return inner and (inner[0], inner[1] + (node.attr,))
    if isinstance(node, ast.Subscript):
        inner = reference(node.value, aliases)
        key = string_value(node.slice)
        if key is not None:
            return inner and (inner[0], inner[1] + (key,))
        return inner  # an index or a slice: a part of the same value
    if isinstance(node, ast.Call):
        return _call_reference(node, aliases)
    if isinstance(node, ast.JoinedStr) and (shown := _formatted_alone(node)) is not None:
        return reference(shown, aliases)  # `f"{similarity:.6f}"`: the value, formatted
    if isinstance(node, ast.IfExp):
        return reference(node.body, aliases)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return reference(node.values[0], aliases)  # `meta or {}`: the value, or a default when it is missing
    if isinstance(node, ast.BinOp) and isinstance(node.right, ast.Constant):
        return reference(node.left, aliases)  # `i + 1`
    return None


def _formatted_alone(node: ast.JoinedStr) -> ast.AST | None:
    """The one value an f-string formats with no words around it (`f"{score:.2f}"`, `f"({date})"`); None otherwise."""
    values = [v for v in node.values if isinstance(v, ast.FormattedValue)]
    words = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return values[0].value if len(values) == 1 and not any(c.isalpha() for c in words) else None


def _call_reference(node: ast.Call, aliases: dict[str, tuple[str, tuple[str, ...]]]) -> tuple[str, tuple[str, ...]] | None:
    """What a call shows: a key it gets, the value whose method it is, or the argument a function shows in another form."""
    if shipped().mentions(called_name(node), "staleness"):
        return None  # `stale_note(d.updated_at)`: the function's verdict on the date, shown only when it is stale
    if isinstance(node.func, ast.Name):
        return _function_reference(node, aliases)
    if not isinstance(node.func, ast.Attribute):
        return None
    inner = reference(node.func.value, aliases)
    key = string_value(node.args[0]) if node.func.attr == "get" and node.args else None
    if key is not None:
        return inner and (inner[0], inner[1] + (key,))
    if node.func.attr == "get" and len(node.args) == 2:
        return inner  # `texts.get(hit["chunk_id"], "")`: a mapping's value under the item's id, not the id
    if isinstance(node.func.value, ast.Constant) and node.args:
        return reference(node.args[0], aliases)  # `"\n".join(doc.snippets)`: a method of a literal shows its argument
    if isinstance(node.func.value, ast.Name) and node.func.value.id not in aliases and node.args:
        # A function of a module or class: datetime.fromisoformat(r["date"]), json.dumps(d.meta);
        # d.replace("a", "b") is d's own method, and shows d.
        return reference(node.args[0], aliases) or inner
    return inner  # a method of the value: .strip(), .split("T"), .isoformat()


def _function_reference(node: ast.Call, aliases: dict[str, tuple[str, tuple[str, ...]]]) -> tuple[str, tuple[str, ...]] | None:
    """What a plain function's call shows: `getattr(doc, "title", "")` the attribute, as `doc.title` reads it;
    `str(score)`, `round(score, 2)`, `format_date(d.updated)` the value in another form."""
    key = string_value(node.args[1]) if node.func.id == "getattr" and len(node.args) >= 2 else None
    if key is not None:
        inner = reference(node.args[0], aliases)
        return inner and (inner[0], inner[1] + (key,))
    return reference(node.args[0], aliases) if node.args else None


def split_fields(body: str) -> list[tuple[int, int, str]] | None:
    """Each replacement field of an f-string body: (start, end, expression); None when it is not one."""
    found = []
    i, n = 0, len(body)
    while i < n:
        char = body[i]
        if char in "{}" and body.startswith(char * 2, i):
            i += 2
        elif char == "}":
            return None
        elif char != "{":
            i += 1
        else:
            end, expression_end = _field_end(body, i + 1)
            if end is None:
                return None
            expression = body[i + 1 : expression_end]
            try:
                ast.parse(expression.strip(), mode="eval")
            except SyntaxError:
                return None
            found.append((i, end, expression))
            i = end
    return found


def _field_end(body: str, i: int) -> tuple[int | None, int]:
    """Past the `}` closing a field that starts at ``i``, and where its expression ends."""
    depth, quote, expression_end = 0, None, None
    while i < len(body):
        char = body[i]
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}" and depth:
            depth -= 1
        elif char == "}":
            return i + 1, i if expression_end is None else expression_end
        elif expression_end is None and depth == 0 and (char == ":" or char == "!" and not body.startswith("!=", i)):
            expression_end = i
        i += 1
    return None, i


# ---------------------------------------------------------------- the prompt model


def segment_wrapper(text: str, loop: Loop, names: SlotNames = (), lexicon: Lexicon | None = None) -> Prompt:
    """The model of a per-item f-string: the body of a sources loop (see jinja.segment_origin)."""
    fields = [(start, end, field_jinja(_expression(expression), loop)) for start, end, expression in split_fields(text) or []]
    return segment_fields(text, loop, fields, names, lexicon)


def segment_fields(text: str, loop: Loop, fields: list[tuple[int, int, str]], names: SlotNames = (), lexicon: Lexicon | None = None) -> Prompt:
    """The model of a string built per item, given its fields: (start, end, what the field reads as a Jinja expression).

    Shared by the readers of code: each splits its own language's fields and says what they read.
    """
    from .jinja import Block, Origin, Tag, segment_origin

    names = _with_the_context_named(loop, names, lexicon)
    opening = Tag("block", Span(0, 0), "for", f" for {loop.target} in {loop.collection} ")
    children, at = [], 0
    for start, end, expression in fields:
        if start > at:
            children.append(Tag("data", Span(at, start)))
        children.append(Tag("variable", Span(start, end), inner=" " + expression + " "))
        at = end
    if at < len(text):
        children.append(Tag("data", Span(at, len(text))))
    closing = Tag("block", Span(len(text), len(text)), "endfor", " endfor ")
    prompt = segment_origin(Origin(text, (opening, *children, closing), [Block("for", [opening, closing], children=children)]), names, lexicon=lexicon)
    if any(source.content.end > source.content.start for source in prompt.sources):
        return replace(prompt, sources=[replace(s, partial=True) for s in prompt.sources]) if loop.piece else prompt
    # Not a source after all (a log line, a query, a chat turn): nothing in it is a prompt's.
    return Prompt(text, lowercase(text), [], [], [], [])


def _with_the_context_named(loop: Loop, names: SlotNames, lexicon: Lexicon | None) -> SlotNames:
    """``names`` and, when a prompt of the module prints the items' text under a name that says it is the context
    (`context = "\n".join(...)`, then `{context}`; a function `get_context` that returns it, then `{get_context(q)}`),
    what the loop goes through as the context, whatever it is called: `zip(texts, scores)` then goes through the
    retrieved texts. A name no prompt prints says less (`write_report` writes a report)."""
    vocab = words(names, lexicon)
    if not any(slot_kind(name, vocab) == "context" for name in loop.printed):
        return names
    iterated = iterated_name(jinja_node(loop.collection))
    return (*names, (iterated, "context")) if iterated else names


def _expression(text: str) -> ast.AST | None:
    return ast.parse(text.strip(), mode="eval").body


def field_jinja(node: ast.AST | None, loop: Loop) -> str:
    """What a field reads (its expression as Python), as a Jinja expression: `doc['metadata']['date']`, `loop.index`."""
    aliases = {name: (root, keys) for name, root, keys in loop.aliases}
    ref = reference(node, aliases) if node is not None else None
    if ref is None:
        return "_"
    root, keys = ref
    if root == loop.index and not keys:
        return "loop.index"  # (a loop over a list's places counts with its target: `docs[i]` reads the item)
    if root != loop.target:
        return "_"
    return root + "".join("[" + repr(key) + "]" for key in keys)


def jinja_expression(text: str) -> bool:
    """Whether a collection's text reads as a Jinja expression (the loop's `in` part)."""
    from .jinja import parses

    return "{" not in text and "}" not in text and parses("{{ " + text + " }}")


def still_parses(text: str, loop: Loop) -> bool:
    """A fixed body must still be the same kind of literal, fields intact."""
    if loop.opening is None or split_fields(text) is None:
        return False
    quote = loop.opening.lstrip("rbufRBUF")
    try:
        node = ast.parse(loop.opening + text + quote, mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, (ast.JoinedStr, ast.Constant))


# ---------------------------------------------------------------- templates by their content


def literal_in_call(node: ast.Call) -> ast.AST | None:
    """The string literal a call only reshapes: `"...".replace(a, b)`, `.format(...)`, `dedent("...")`."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in LITERAL_METHODS:
        inner = func.value
    elif called_name(node) in LITERAL_FUNCTIONS and node.args:
        inner = node.args[0]
    else:
        return None
    if isinstance(inner, ast.Call):
        return literal_in_call(inner)
    return inner if isinstance(inner, ast.Constant) and isinstance(inner.value, str) or isinstance(inner, ast.JoinedStr) else None


def jinja_by_content(node: ast.AST) -> bool:
    """Whether a string constant is a Jinja template by what it holds: a loop or an output of a key, and it parses."""
    if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or not _JINJA_TAG.search(node.value):
        return False
    from .jinja import parses

    return parses(node.value)
