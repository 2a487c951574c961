"""Find the prompt templates that live inside Python code, without running it.

The file is parsed with `ast`, never imported. A template is a string constant
that is assigned to a name like ``*_PROMPT`` or ``*_TEMPLATE``, or passed as the
template of a prompt class (LangChain's PromptTemplate and ChatPromptTemplate,
Haystack's PromptBuilder and ChatMessage.from_*, LlamaIndex's PromptTemplate), or
that is a Jinja template by its content (a value written as a sum of literals and other terms is the
one text it adds up to); and the per-source strings code builds in a
loop, through the module's own helpers and methods, and the per-item dicts it hands the
model as JSON (see pybuild and pycalls); and a text that prints those per-item strings by the
name they are bound to (see with_sources_printed).
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import tokenize
import unicodedata
from dataclasses import dataclass, replace

from ..meaning.lexicon import Lexicon, shipped, split
from ..model.lines import line_starts
from ..model.prompt import Syntax
from .pybuild import ADDING, BUILDING, LITERAL_METHODS, Loop, called_name, chain_end, every_statement, jinja_by_content, literal_in_call, reaching_the_model, formatters, split_fields, with_names, wrappers
from .pyassembly import assembled, joined, literal_lines, module_texts, one_text, own_nodes, returned_text, summed_text, written_out
from .pymessages import messages_written_out
from .pybind import Fill, read_fills, written_fills
from .pycalls import helpers_of, with_listed_keys
from .pyorder import with_order
from .pyversions import NewerSyntax, parse_module
from .segment import is_prompt_text, is_template_text, renders_a_page, slot_kind, words

# Names a template is assigned to: SYSTEM_PROMPT, qa_template, PROMPT_TMPL, ...
# Calls whose string arguments are templates, by the called name's last part.
TEMPLATE_CALLS = frozenset(
    {
        "PromptTemplate",
        "ChatPromptTemplate",
        "from_template",
        "from_messages",
        "PromptBuilder",
        "ChatPromptBuilder",
        "from_system",
        "from_user",
        "from_assistant",
        "SystemMessage",
        "HumanMessage",
        "AIMessage",
        "SystemMessagePromptTemplate",
        "HumanMessagePromptTemplate",
        "RichPromptTemplate",
    }
)
# The option by which model SDKs take the system prompt (`generateText({ system })`,
# `messages.create(system=...)`): an API's parameter, where a name alone would say nothing.
SDK_SYSTEM_OPTION = "system"
# Keyword arguments that hold the template of such a call.
TEMPLATE_KEYWORDS = frozenset({"template", "text", "content", "messages", "template_str"})
MIN_LENGTH = 20  # shorter strings are labels and names, not prompts


@dataclass(frozen=True)
class PyTemplate:
    text: str  # the template as the application sees it
    syntax: Syntax
    line: int  # 1-based line of the string in the file
    column: int  # 1-based column
    # Where ``text`` stands in the file, character for character; None when the
    # literal has escapes or pieces, or is an f-string (those are mapped by ``offsets``).
    origin: tuple[int, int] | None
    # For a string built once per item of a loop: what the loop iterates (see pybuild).
    loop: Loop | None = None
    # For a literal with escapes or in pieces ("a\\n" "b"), or an f-string: the file
    # offset of each character of ``text`` (where its escape starts), and of its end.
    offsets: tuple[int, ...] | None = None
    # The kinds the module's calls give its slots beyond their names: (slot, kind), see pybind.
    bound: tuple[tuple[str, str], ...] = ()
    # For a text rebuilt from several literals: the file offset of the literal each character comes
    # from (and of its end), so that findings are placed there; it is never edited.
    pieces: tuple[int, ...] | None = None


class PythonSyntaxError(Exception):
    def __init__(self, message: str, line: int, column: int, newer: bool = False):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column
        self.newer = newer  # valid Python of a newer version that could not be read (pyversions.NewerSyntax)


def templates_in(raw: str, lexicon: Lexicon | None = None) -> list[PyTemplate]:
    """The prompt templates of a module: strings a name (by the lexicon's `prompt` words), a
    prompt class, a prompt function or a model call says are prompts; PythonSyntaxError when
    it does not parse."""
    lexicon = lexicon or shipped()
    try:
        module = parse_module(raw)
    except SyntaxError as exc:
        raise PythonSyntaxError(exc.msg, exc.lineno or 1, exc.offset or 1, isinstance(exc, NewerSyntax)) from None
    named = _named_strings(module, lexicon)
    handed = [(literal, hint) for node in ast.walk(module) for literal, hint in _sent(node, lexicon)]
    # An f-string of locals its function writes text into is read with them written in (see pyassembly);
    # the texts so taken in are then part of that prompt, not prompts of their own.
    sent_twice = messages_written_out(module)
    written = _written(module, sent_twice, lexicon)
    handed += [(template, False) for template, _ in sent_twice]
    taken = {part for literal, _ in (*named, *handed) if id(literal) in written for part in written[id(literal)][1]}
    starts = line_starts(raw)
    found: dict[tuple[int, int], PyTemplate] = {}
    for template in _read(raw, starts, named, written, taken):
        found.setdefault((template.line, template.column), template)
    sent = _read(raw, starts, handed, written, taken)
    built = built_in(module, raw, lexicon, alone=not found and not sent)
    bindings, fills = read_fills(module, lexicon)
    # A string built per item is one source's wrapper before it is a prompt of its own.
    for template in (*built, *sent, *filled_elsewhere(fills, raw)):
        found.setdefault((template.line, template.column), template)
    found = with_sources_printed(module, raw, built, lexicon, found, (taken, written))
    for line, items in _items_bound(written, (*named, *handed), lexicon).items():
        bindings[line] = bindings.get(line, ()) + items
    never_run = _never_called(module)
    return [replace(found[k], bound=found[k].bound + bindings.get(found[k].line, ())) for k in sorted(found)
            if not any(first <= found[k].line <= last for first, last in never_run)]


def _named_strings(module: ast.Module, lexicon: Lexicon) -> list[tuple[ast.expr, bool]]:
    """The strings a name, a prompt class or a prompt function's return says are templates, each with whether it is Jinja."""
    named = [(literal, hint) for node in ast.walk(module) for literal, hint in _candidates(node, lexicon)]
    return named + [(literal, False) for literal in _module_texts_returned(module, lexicon)]


def _never_called(module: ast.Module) -> list[tuple[int, int]]:
    """The lines of the module's private functions that nothing runs: at the module's top level (a method may be
    called by a subclass elsewhere), named with a leading underscore (not a dunder), undecorated (a decorator may hand
    it to a framework), and never named anywhere else in the module. What they build reaches no prompt."""
    functions = [f for f in module.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    private = {f.name for f in functions if f.name.startswith("_") and not f.name.endswith("__") and not f.decorator_list}
    unsaid = private - _names_said(module) if private else set()
    return [(f.lineno, f.end_lineno or f.lineno) for f in functions if f.name in unsaid]


def _names_said(module: ast.Module) -> set[str]:
    """Every name the module says, in one walk: names, attributes, and strings (`getattr(module, "_build")`, `__all__`)."""
    said = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Name):
            said.add(node.id)
        elif isinstance(node, ast.Attribute):
            said.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            said.add(node.value)
    return said


def _items_bound(written: dict, literals: tuple, lexicon: Lexicon) -> dict[int, tuple[tuple[str, str], ...]]:
    """By the line of the text it is in, each slot of what a loop adds one piece of per item (see pyassembly)
    as the retrieved context, when its name says nothing else (`{ref_content}`, not `{history}`)."""
    vocab = words(lexicon=lexicon)
    return {literal.lineno: tuple((name, "context") for name in written[id(literal)][2] if slot_kind(name, vocab) is None)
            for literal, _ in literals if id(literal) in written and written[id(literal)][2]}


def _written(module: ast.Module, sent_twice: list[tuple[ast.AST, ast.Call]], lexicon: Lexicon) -> dict[int, tuple[ast.Call, set[int], tuple[str, ...]]]:
    """The f-strings of the module read as more than they write, by id: with the locals their function writes
    into them (see pyassembly), or with the messages of a request that sends one of their fields again
    (``sent_twice``, see pymessages); and the templates with the texts the module fills their slots with (see
    _filled_in); each with the ids of the literals it takes in."""
    texts, helpers = module_texts(module), helpers_of(module)
    written = {k: v for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) for k, v in written_out(f, texts, helpers).items()}
    return written | _filled_in(module, texts, lexicon) | {id(template): (text, set(), ()) for template, text in sent_twice}


# A format string's slot: `{context}`, `{format_instructions}`.
_FORMAT_SLOT = re.compile(r"(?<!\{)\{(?P<name>[A-Za-z_]\w*)\}(?!\})")


def _filled_in(module: ast.Module, module_text: dict[str, ast.expr], lexicon: Lexicon) -> dict[int, tuple[ast.Call, set[int], tuple[str, ...]]]:
    """The templates (string literals with format slots) the module fills with texts it writes (see pybind.written_fills),
    by id, each read with those texts written in at their slots (`"{context}\\n\\n{format_instructions}\\n{query}"` filled
    by `prompt.partial(format_instructions=RULES)` reads the rules where the slot is), and the ids of the literals so taken in."""
    fills = written_fills(module, module_text, lexicon)
    found = {}
    for node in ast.walk(module) if fills else ():
        slots = fills.get(node.lineno) if isinstance(node, ast.Constant) and isinstance(node.value, str) and hasattr(node, "lineno") else None
        if slots and (text := _with_texts_at_slots(node, slots)) is not None:
            found[id(node)] = text, {id(n) for written in slots.values() for n in ast.walk(written)}, ()
    return found


def _with_texts_at_slots(template: ast.Constant, slots: dict[str, ast.expr]) -> ast.Call | None:
    """A template's text with the texts ``slots`` names written in where the slots stand; None when it has none of them."""
    pieces: list[ast.expr] = []
    at = 0
    for slot in (m for m in _FORMAT_SLOT.finditer(template.value) if m["name"] in slots):
        text = slots[slot["name"]]
        pieces += [ast.Constant(template.value[at : slot.start()]), *(text.values if isinstance(text, ast.JoinedStr) else [text])]
        at = slot.end()
    return one_text([*pieces, ast.Constant(template.value[at:])], template) if pieces else None


def written_texts(module: ast.Module, raw: str, lexicon: Lexicon) -> dict[tuple[int, int], tuple[PyTemplate, set[tuple[int, int]]]]:
    """By the line and column of the literal that starts it, each text ``module`` (Python's, or JavaScript lowered to
    it) writes out in more than one literal (see _written), with the places of the literals it takes in."""
    starts = line_starts(raw)
    nodes = {id(n): n for n in ast.walk(module) if isinstance(n, (ast.Constant, ast.JoinedStr)) and hasattr(n, "lineno")}
    texts = {}
    for first, (text, taken, _) in _written(module, [], lexicon).items():
        template = _template(raw, starts, text, False)
        if template is not None and first in nodes:
            texts[_place(raw, starts, nodes[first])] = template, {_place(raw, starts, nodes[n]) for n in taken if n in nodes}
    return texts


def filled_elsewhere(fills: list[Fill], raw: str) -> list[PyTemplate]:
    """At each call that fills a template whose text is elsewhere with the question rewritten (see pybind.read_fills),
    the slots it fills, each alone on a line: all the file shows of that prompt, read with the question bound to the
    rewrite."""
    starts = line_starts(raw)
    return [PyTemplate("\n\n".join("{" + slot + "}" for slot in slots), Syntax.TEXT, *_place(raw, starts, call), None, bound=bound) for call, slots, bound in fills]


def _place(raw: str, starts: list[int], node: ast.AST) -> tuple[int, int]:
    return node.lineno, _char_column(raw, starts[node.lineno - 1], node.col_offset) + 1


def requests_sent_twice(module: ast.Module, raw: str) -> list[PyTemplate]:
    """The templates whose field a later message of the request sends again, each read with all its
    messages (see pymessages); ``module`` is Python's or JavaScript lowered to it."""
    starts = line_starts(raw)
    return [t for _, text in messages_written_out(module) if (t := _template(raw, starts, text, False)) is not None]


def _read(raw: str, starts: list[int], literals: list, written: dict, taken: set[int]) -> list[PyTemplate]:
    """The templates of string literals, each written out where its function writes locals into it."""
    read = (_template(raw, starts, written[id(node)][0] if id(node) in written else node, hint) for node, hint in literals if id(node) not in taken)
    return [template for template in read if template is not None]


def built_in(module: ast.Module, raw: str, lexicon: Lexicon, alone: bool, by_own_name: bool = False) -> list[PyTemplate]:
    """The per-item strings a module builds (see pybuild), each a source's wrapper; ``alone``: the
    module holds no other prompt, and then (``by_own_name``) only a function's own name says it makes
    the context. ``module`` is Python's, or JavaScript lowered to it (jslower): one evaluator reads
    both, ``raw`` being the file it was read from."""
    starts = line_starts(raw)
    module = with_listed_keys(module)
    helpers = helpers_of(module)
    vocab = words(lexicon=lexicon)
    serialized = reaching_the_model(module, lexicon, _piped(module, lambda name: _names_the_context(name, vocab)))
    built = [w for node in ast.walk(module) if type(node) in BUILDING for w in with_names(wrappers(node, raw, starts, helpers, serialized), node, module)]
    source_words = frozenset(lexicon.words("segment", "source-words"))
    built += formatters(module, raw, starts, helpers, lambda name: bool(source_words.intersection(split(name))))
    return with_order(module, kept_as_sources(module, built, lexicon, alone, by_own_name))


def kept_as_sources(module: ast.Module, built: list[PyTemplate], lexicon: Lexicon, alone: bool, by_own_name: bool = False) -> list[PyTemplate]:
    """The per-item strings of a module that are sources' wrappers: not a chat history's turns, not a page's
    markup, not values put together bare outside a function that makes the context, and (see _for_context) each
    kept by a name, a shape or a call that says it makes the context. Whatever reader found them."""
    # A loop over the chat history renders turns, not sources: by the name of what it iterates, or of what
    # that was made from (`recent = chats.filter(...).slice(-10)`).
    history = words(lexicon=lexicon)
    made_from = _made_from(module)
    built = [t for t in built if not any(slot_kind(n, history) == "history" for n in _named_text(t.loop.collection, made_from))]
    # A text per item in a page's markup (`<div class="result-score">Score: ${score}</div>`) lists results for a person.
    built = [t for t in built if not renders_a_page(t.text, history)]
    built = _bare_in_context(module, built, lexicon)
    return _for_context(module, built, lexicon, inner=not by_own_name or not alone)


def _for_context(module: ast.Module, built: list[PyTemplate], lexicon: Lexicon, inner: bool = True) -> list[PyTemplate]:
    """The per-item strings of a module that holds no prompt, kept only where a name says they
    make the context: the function that builds them, or (``inner``) what a statement of that function
    adds to, iterates or assigns (`def combine_context`, `context += ...`, `for doc in docs`), or a
    name that says prompt or messages. Elsewhere a loop that builds text per item makes a log line,
    a page or a file, not a prompt."""
    if not built:
        return built  # most modules build no text per item: their functions need no walk
    kept_lines, shown_lines = _lines_of(module, lexicon, inner=inner), _display_lines(module, lexicon) | _answer_lines(module, lexicon) | _printed_lines(module)
    named_lines = _lines_of(module, lexicon, inner=False) if any(_read_in(t) for t in built) else set()
    built = [t for t in built if not _only_written_out(module, t)]
    return [t for t in built if t.line not in shown_lines and (_made_in(t, kept_lines, named_lines) or _renders_a_source(t, lexicon))]


def with_sources_printed(module: ast.Module, raw: str, built: list[PyTemplate], lexicon: Lexicon, found: dict, read: tuple[set[int], dict] | None = None) -> dict:
    """The templates ``found`` (by line and column) with the texts that print the sources a loop of ``built`` renders,
    by the name their function binds the loop's text to (`body = "\n\n".join(f"{s.id}: {s.text}" for s in snippets)`,
    then `return f"{header}\n\nExcerpts:\n{body}\n\n{instructions}"`): a prompt whatever the names say, read with
    its function's string locals written in (see pyassembly), the name bound as the context; the texts so written in
    are then part of it, not prompts of their own. Not a text printed, logged or raised, nor a reply or a report for
    a person (see _answer_lines), nor one a prompt already takes in. ``read``: what the caller has read of the module
    already, the ids of the literals its prompts take in and the texts its functions write out (see _written); else
    they are read here. ``module`` is Python's, or JavaScript lowered to it (jslower)."""
    bound = _bound_to_sources(module, built)
    if not bound:
        return found  # most modules render no sources into a name
    reading = _Printing(raw, lexicon, module, *(read or (set(), _written(module, [], lexicon))))
    for function, names in bound:
        reading.read(function, names)
    places = {_place(raw, reading.starts, n) for n in ast.walk(module) if id(n) in reading.absorbed and hasattr(n, "lineno")}
    return {k: v for k, v in found.items() if k not in places} | {(t.line, t.column): t for t in reading.printing if (t.line, t.column) not in found}


def _bound_to_sources(module: ast.Module, built: list[PyTemplate]) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, frozenset[str]]]:
    """Each function of the module with the names it binds the text of the sources a loop of ``built`` renders to."""
    sites = [(t.loop.site or t.line, t.loop.into) for t in built if t.loop is not None and t.loop.into]
    functions = (f for f in ast.walk(module) if sites and isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)))
    bound = ((f, frozenset(n for line, into in sites if f.lineno <= line <= (f.end_lineno or line) for n in into)) for f in functions)
    return [(function, names) for function, names in bound if names]


class _Printing:
    """The texts of a module's functions that print names bound to the sources (see with_sources_printed), and the
    ids of the literals written into them."""

    def __init__(self, raw: str, lexicon: Lexicon, module: ast.Module, taken: set[int], written: dict):
        self.raw, self.starts, self.vocab = raw, line_starts(raw), words(lexicon=lexicon)
        self.shown = _display_lines(module, lexicon) | _answer_lines(module, lexicon)
        self.taken, self.written = taken, written  # see with_sources_printed's ``read``
        self.printing: list[PyTemplate] = []
        self.absorbed: set[int] = set()

    def read(self, function: ast.FunctionDef | ast.AsyncFunctionDef, names: frozenset[str]) -> None:
        quiet = {id(n) for node in own_nodes(function) if isinstance(node, ast.Raise) or isinstance(node, ast.Call) and called_name(node) in OUTPUT_CALLS for n in ast.walk(node)}
        for node in own_nodes(function):
            if not isinstance(node, ast.JoinedStr) or id(node) in quiet or id(node) in self.taken or node.lineno in self.shown:
                continue
            printed = names & {name for p in node.values if isinstance(p, ast.FormattedValue) and (name := _name_printed(p.value))}
            text, taken_in, _ = self.written.get(id(node), (node, set(), ()))
            template = _template(self.raw, self.starts, text, False) if printed else None
            if template is not None and is_prompt_text(template.text, self.vocab, sources=printed):
                self.printing.append(replace(template, bound=tuple((name, "context") for name in sorted(printed))))
                self.absorbed |= taken_in


def _name_printed(value: ast.AST) -> str | None:
    """The name a field prints: `{body}`, or its items joined (`${parts.join("\n\n")}`)."""
    value = joined(value) or value
    return value.id if isinstance(value, ast.Name) else None


def _read_in(template: PyTemplate) -> bool:
    """Whether a per-item string is written elsewhere than where its loop stands (a helper's text read in)."""
    return template.loop is not None and template.loop.site is not None and template.loop.site != template.line


def _made_in(template: PyTemplate, lines: set[int], named_lines: set[int]) -> bool:
    """Whether a per-item string is made on one of ``lines``: where it is written; or, for a helper's text read
    in where a loop calls it, where that loop stands, in a function whose own name says it makes the context
    (``named_lines``: a name inside it, `raw_content += ...`, says too little of a helper it calls)."""
    return template.line in lines or _read_in(template) and template.loop.site in named_lines


def _answer_lines(module: ast.Module, lexicon: Lexicon) -> set[int]:
    """The lines of a value given as the answer (`{"answer": f"... {d.excerpt} ..."}`, `answer=...`; `answer-keys` in
    `rules/segment.yaml`): the reply a person reads, built from the sources when no model is called, not a prompt."""
    keys = frozenset(lexicon.words("segment", "answer-keys"))
    values = []
    for node in ast.walk(module):
        if isinstance(node, ast.Dict):
            values += [v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and k.value in keys]
        elif isinstance(node, ast.Call):
            values += [k.value for k in node.keywords if k.arg in keys]
    return {line for value in values for line in range(value.lineno, (value.end_lineno or value.lineno) + 1)}


def _display_lines(module: ast.Module, lexicon: Lexicon) -> set[int]:
    """The lines of the functions that write a value out for a person to read (`def pretty(self)`, `__str__`,
    `display_results`), unless their name says prompt too: what they build, a run's context among it, is a report."""
    return {
        line
        for function in ast.walk(module)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        and lexicon.mentions(function.name, "display") and not names_prompt_function(function.name, lexicon)
        for line in range(function.lineno, (function.end_lineno or function.lineno) + 1)
    }


def _printed_lines(module: ast.Module) -> set[int]:
    """The lines of what a call prints or logs (`print("\n".join(f"{h.score:.3f} {h.title}" for h in hits))`): a
    line for a person watching the run, even in a module that goes on to send those hits to a model."""
    printed = (n for n in ast.walk(module) if isinstance(n, ast.Call) and called_name(n) in OUTPUT_CALLS)
    return {line for call in printed for arg in [*call.args, *(k.value for k in call.keywords)] for line in range(arg.lineno, (arg.end_lineno or arg.lineno) + 1)}


def _only_written_out(module: ast.Module, template: PyTemplate) -> bool:
    """Whether the text a loop builds goes only to what a call prints, logs or writes to a file, in the function
    that builds it (`lines.append(f"- #{c['chunk_index']} ...")`, then `fh.write("\n".join(lines))`): a report."""
    into = set(template.loop.into) if template.loop is not None else set()
    if not into:
        return False
    nodes = list(own_nodes(_innermost(module, template.loop.site or template.line)))
    calls = [n for n in nodes if isinstance(n, ast.Call)]
    written = {id(n) for call in calls if called_name(call) in OUTPUT_CALLS for n in ast.walk(call)}
    # What a line is added to by (`lines.append(...)`; JavaScript's `push` is lowered to it) is not read there.
    grown = {id(call.func.value) for call in calls if isinstance(call.func, ast.Attribute) and call.func.attr in ADDING}
    read = [n for n in nodes if isinstance(n, ast.Name) and n.id in into and isinstance(n.ctx, ast.Load) and id(n) not in grown]
    return bool(read) and all(id(n) in written for n in read)


def _innermost(module: ast.Module, line: int) -> ast.AST:
    """The innermost function around a line, or the module for its own code."""
    around = [f for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.lineno <= line <= (f.end_lineno or f.lineno)]
    return max(around, key=lambda f: f.lineno, default=module)


def _lines_of(module: ast.Module, lexicon: Lexicon, inner: bool) -> set[int]:
    """The lines of the functions whose name says they make the context (``inner``: or a prompt, or a
    name in them says so: what a statement adds to, iterates or assigns), or whose result the module
    hands over as the context."""
    vocab = words(lexicon=lexicon)

    def says_context(name: str) -> bool:
        return _names_the_context(name, vocab) or inner and names_prompt_function(name, lexicon)

    filling = _filling_the_context(module, says_context)
    kept_lines: set[int] = set()
    for function in (n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        names = [function.name]
        if inner:
            names += [_named(n) for n in ast.walk(function) if isinstance(n, (ast.For, ast.AsyncFor, ast.Assign, ast.AugAssign, ast.comprehension))]
        if function.name in filling or any(name and says_context(name) for name in names) or _fills_a_prompt(function, lexicon):
            kept_lines.update(range(function.lineno, (function.end_lineno or function.lineno) + 1))
    return kept_lines


# Calls that fill a prompt's variables: a chain run on a dict of them (`(prompt | llm).invoke({...})`), or a
# prompt object formatted with them (`PROMPT.format(answers=...)`; a literal's `.format` is any text's).
CHAIN_RUNS = frozenset({"invoke", "ainvoke", "stream", "astream", "batch", "abatch"})
PROMPT_FILLS = frozenset({"format", "format_messages", "format_prompt", "partial"})


def _fills_a_prompt(function: ast.FunctionDef | ast.AsyncFunctionDef, lexicon: Lexicon) -> bool:
    """Whether the function hands a text it builds to a prompt as one of its variables (fullstack-gpt's
    `condensed = "\n\n".join(f"..." for answer in answers)`, then `chain.invoke({"answers": condensed})`), or to a
    function whose name says it makes a prompt (`getRagAnswerPrompt(question, formattedTopics)`)."""
    assigned = {n.targets[0].id for n in own_nodes(function) if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)}
    for call in (n for n in own_nodes(function) if isinstance(n, ast.Call)):
        attribute = call.func.attr if isinstance(call.func, ast.Attribute) else None
        if attribute in CHAIN_RUNS and call.args and isinstance(call.args[0], ast.Dict):
            values = call.args[0].values
        elif attribute in PROMPT_FILLS and not isinstance(call.func.value, (ast.Constant, ast.JoinedStr)):
            values = [k.value for k in call.keywords]
        elif lexicon.mentions(called_name(call), "prompt"):
            # Not one named for a message: `send_message(channel, text)` posts to people as often as to a model.
            values = [*call.args, *(k.value for k in call.keywords)]
        else:
            continue
        if any(isinstance(v, ast.Name) and v.id in assigned for v in values):
            return True
    return False


def _names_the_context(name: str, vocab) -> bool:
    # The name, or the name less a last word that says how the text is held (`context_parts`).
    named = [name, "_".join(split(name)[:-1])]
    return any(slot_kind(n, vocab) == "context" for n in named if n)


def _filling_the_context(module: ast.Module, says_context) -> set[str]:
    """The functions of the module whose result is handed over as the context: a call bound to a
    name, a keyword or a key that says context (`context = build(rows)`, `PROMPT.format(context=
    build(rows))`, `{"context": build(rows)}`), whatever the function is called; or a pipeline
    that ends in one (see _piped)."""
    called = {called_name(value) for name, value in _named_values(module) if isinstance(value, ast.Call) and says_context(name)}
    return called | set(_piped(module, says_context))


def _piped(module: ast.Module, says_context) -> dict[str, str]:
    """The functions whose result fills a prompt's context variable, each with that variable: where a LangChain
    pipeline ends (`{"context": retriever | format_docs, ...} | prompt`, or through a name bound to the
    pipeline: `{"context": fusion_chain}`, `fusion_chain = queries | retriever.map() | fuse`), or a function
    called for it (`context = retrieve_docs(query)`, its list of dicts then printed into the prompt)."""
    bound = {n.targets[0].id: n.value for n in ast.walk(module) if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)}
    printed = _printed_whole(module)
    return {end: name for name, value in _named_values(module) if says_context(name) and (end := _filling(name, value, bound, printed))}


def _filling(name: str, value: ast.AST, bound: dict[str, ast.AST], printed: frozenset[str]) -> str | None:
    """The function whose result a value is: the end of a pipeline, or a function of the module called by its name
    whose result the prompt prints whole (`context = retrieve_docs(q)` then `f"Context:\n{context}"`); a result
    only read from (`for doc in search_results: ... doc['text']`) is not the text the model reads."""
    if isinstance(value, ast.Call):
        return value.func.id if isinstance(value.func, ast.Name) and name in printed else None
    return chain_end(value, bound)


def _printed_whole(module: ast.Module) -> frozenset[str]:
    """The names a string prints as they are: an f-string's field (`{context}`) or a format call's keyword (`context=context`)."""
    printed = set()
    for node in ast.walk(module):
        if isinstance(node, ast.FormattedValue):
            printed.add(node.value)
        elif isinstance(node, ast.Call) and called_name(node) == "format":
            printed.update(k.value for k in node.keywords)
    return frozenset(v.id for v in printed if isinstance(v, ast.Name))


def _named_values(module: ast.Module):
    """Each value the module binds to a name, a keyword or a dict's key, with that name."""
    for node in ast.walk(module):
        if isinstance(node, ast.keyword):
            pairs = [(node.arg, node.value)]
        elif isinstance(node, ast.Assign):
            pairs = [(_name_of(target), node.value) for target in node.targets]
        elif isinstance(node, ast.Dict):
            pairs = [(key.value if isinstance(key, ast.Constant) else None, value) for key, value in zip(node.keys, node.values)]
        else:
            continue
        yield from ((name, value) for name, value in pairs if isinstance(name, str) and name)


def _bare_in_context(module: ast.Module, built: list[PyTemplate], lexicon: Lexicon) -> list[PyTemplate]:
    """The per-item strings, less those that are the item's values alone (`"\n".join(d.text for d in
    docs)`, `f"{prefix}{text}"`) outside a function whose own name says it makes the context (`def format_docs`): elsewhere
    such a join makes a file's text, a message's or a transcript's."""
    if not any(_bare(t) for t in built):
        return built
    kept_lines = _lines_of(module, lexicon, inner=False)
    return [t for t in built if not _bare(t) or _made_in(t, kept_lines, kept_lines)]


def _bare(template: PyTemplate) -> bool:
    """Whether a per-item string is one value of the item alone (`{doc.text}`, `\n{text}`), or beside
    values from elsewhere, with nothing written around them but white space (`{prefix}{text}`): put
    together, not wrapped. Two of the item's own values (`{doc.date}\n{doc.text}`) are a wrapper's fields."""
    text = template.text
    fields = split_fields(text) or []
    written = "".join(text[end:start] for (_, end, _), (start, _, _) in zip([(0, 0, "")] + fields, fields + [(len(text), 0, "")]))
    return bool(fields) and not written.strip() and (len(fields) == 1 or len(template.loop.keys) <= 1)


def _renders_a_source(template: PyTemplate, lexicon: Lexicon) -> bool:
    """Whether a per-item string is shaped as a source whatever the names around it: it shows
    the item's text (a content key) and something more of the item beside it (a title, a date),
    or its number in the list (`[{i}] {r.snippet}`)."""
    loop = template.loop
    if loop is None or not any(lexicon.means(key, "content-key") for key in loop.keys) or _parts_of_a_document(loop, lexicon):
        return False
    return len(loop.keys) > 1 or loop.index is not None and _shows(template.text, loop.index)


def _parts_of_a_document(loop: Loop, lexicon: Lexicon) -> bool:
    """A loop over what a document is made of (`for comment in issue["comments"]`): its text is the document's."""
    named = re.findall(r"[A-Za-z_]\w*", loop.collection.split("|")[0])
    parts = lexicon.phrases("document-part")
    # By the word the name ends in (`issue_comments`), or by the whole name (`rich_text`: a run of a page's text).
    return any(words[-1:] and (words[-1] in parts or " ".join(words) in parts) for words in map(split, (loop.target, *named[-1:])))


def _shows(text: str, name: str) -> bool:
    """Whether a field of a per-item string reads ``name`` (a counter a loop has is not always shown:
    `.forEach((event, idx) => ...)` numbers stream events for something else)."""
    return any(re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", expression) for _, _, expression in split_fields(text) or ())


def _named_text(collection: str, made_from: dict[str, str]) -> tuple[str, ...]:
    """The name a collection's expression ends in (`self.collected_info[:5]` is collected_info), and the
    name of what a local of that name was made from (``made_from``)."""
    try:
        name = _name_of(ast.parse(collection, mode="eval").body) or ""
    except SyntaxError:
        return ("",)
    return (name, made_from[name]) if name in made_from else (name,)


def _made_from(module: ast.Module) -> dict[str, str]:
    """For each local bound to an expression built on another name (`recent = chats.filter(f)[-10:]`), that name."""
    made = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            root = node.value
            while isinstance(root, (ast.Call, ast.Attribute, ast.Subscript)):
                root = root.func if isinstance(root, ast.Call) else root.value
            if isinstance(root, ast.Name) and root.id != node.targets[0].id:
                made[node.targets[0].id] = root.id
    return made


def _named(node: ast.AST) -> str | None:
    """The name a loop iterates (`docs`, `self.chunks`), or an assignment or `+=` assigns to."""
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        target = node.iter
    elif isinstance(node, ast.Assign):
        target = node.targets[0]
    else:
        target = node.target
    return _name_of(target)


def _name_of(target: ast.AST) -> str | None:
    """The name an expression ends in, through what wraps a collection: `enumerate(docs)`, `docs.items()`, `docs[:5]`."""
    while isinstance(target, (ast.Call, ast.Subscript)):
        if isinstance(target, ast.Subscript):
            target = target.value
        elif isinstance(target.func, ast.Attribute):
            target = target.func.value
        else:
            target = target.args[0] if target.args else target.func
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else None


def _candidates(node: ast.AST, lexicon: Lexicon):
    """String nodes that are templates, with whether the context says Jinja."""
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(t, ast.Name) and lexicon.mentions(t.id, "prompt") for t in targets) and node.value is not None:
            yield from _strings(node.value, False)
        elif isinstance(node.value, (ast.Constant, ast.Call)):
            # A Jinja template by its content, whatever its name (`DEFAULT_GRAPH_KNOWLEDGE`).
            yield from (s for s in _strings(node.value, True) if jinja_by_content(s[0]))
    elif isinstance(node, ast.Call):
        name = called_name(node)
        if name in TEMPLATE_CALLS:
            jinja = name in ("PromptBuilder", "ChatPromptBuilder", "from_system", "from_user", "from_assistant") or any(
                k.arg == "template_format" and isinstance(k.value, ast.Constant) and k.value.value == "jinja2"
                for k in node.keywords
            )
            for arg in node.args:
                yield from _strings(arg, jinja)
            for keyword in node.keywords:
                if keyword.arg in TEMPLATE_KEYWORDS:
                    yield from _strings(keyword.value, jinja)


# Calls whose string arguments go to a person or a log, never to a model.
OUTPUT_CALLS = frozenset({"print", "debug", "info", "warning", "warn", "error", "exception", "critical", "log", "echo", "secho", "write", "write_text", "writelines"})


def names_prompt_function(name: str, lexicon: Lexicon) -> bool:
    """A function that makes a prompt says so in its name (build_prompt, get_system_prompt, format_messages)."""
    return lexicon.mentions(name, "prompt") or lexicon.mentions(name, "messages")


def _sent(node: ast.AST, lexicon: Lexicon):
    """Strings code sends as a prompt although no name says so.

    What a function named for prompts returns; the `content` of a chat message
    (`{"role": ..., "content": ...}`), but a tool's; and a string whose slot is the retrieved context
    (`{context}`, `{docs_text}`) beside words of its own. Strings printed, logged,
    raised or asserted are messages to people, and a docstring describes.
    """
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield from _returned_prompts(node, lexicon)
        yield from _sent_by_name(node, lexicon)
    if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        yield from _with_context_slot(node.body)
    elif isinstance(node, ast.Dict) and (content := _message_content(node, lexicon)) is not None:
        yield from _strings(content, False)


def _returned_prompts(function: ast.FunctionDef | ast.AsyncFunctionDef, lexicon: Lexicon):
    """What a function named for prompts returns, a text assembled from pieces read as its pieces written out
    (see pyassembly): the value returned, or the one under a key that says prompt in a returned mapping
    (`{"system": "\\n\\n".join(sections), "urls": urls}`), through a call that only tidies the joined text
    (`remove_extra_line_breaks("\\n\\n".join(sections))`)."""
    if not names_prompt_function(function.name, lexicon):
        return
    for returned in _returns(function.body):
        for value in _prompt_values(returned.value, lexicon):
            yield from _strings(assembled(function, value) or returned_text(function, value), False)


# Calls of a text that give it back filled or tidied: `CORE_RULES.format(today=today)`, `RULES.strip()`.
_TEXT_METHODS = LITERAL_METHODS | {"substitute", "safe_substitute"}


def _module_texts_returned(module: ast.Module, lexicon: Lexicon) -> list[ast.expr]:
    """The module's texts (see pyassembly.module_texts) that a function named for prompts returns, whatever
    their own names say: as they are or filled (`return CORE_RULES.format(today=today)`), or among the blocks it
    joins and returns (`blocks = [CORE_RULES.format(...), INTERNAL_RULES if internal else CUSTOMER_RULES]`, then
    `return "\n\n".join(blocks)`)."""
    functions = [f for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and names_prompt_function(f.name, lexicon)]
    texts = module_texts(module) if functions else {}
    found = []
    for function in functions if texts else ():
        blocks = _listed(function)
        for returned in _returns(function.body):
            items = joined(returned.value)
            pieces = blocks.get(items.id, []) if isinstance(items, ast.Name) else items.elts if isinstance(items, (ast.List, ast.Tuple)) else [returned.value]
            found += [texts[name] for piece in pieces for name in _text_names(piece) if name in texts]
    return list({id(t): t for t in found}.values())


def _listed(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[ast.expr]]:
    """Each list a function fills, with what it puts in it: `blocks = [a, b]`, `blocks.append(c)`, `.extend([d])`."""
    lists: dict[str, list[ast.expr]] = {}
    for node in own_nodes(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(node.value, (ast.List, ast.Tuple)):
            lists.setdefault(node.targets[0].id, []).extend(node.value.elts)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend") and isinstance(node.func.value, ast.Name) and node.args:
            added = node.args[0]
            lists.setdefault(node.func.value.id, []).extend(added.elts if isinstance(added, (ast.List, ast.Tuple)) else [added])
    return lists


def _text_names(piece: ast.AST) -> list[str]:
    """The names of the texts a value gives: `CORE_RULES`, `CORE_RULES.format(...)`, `A if mode else B`."""
    while isinstance(piece, ast.Call) and isinstance(piece.func, ast.Attribute) and piece.func.attr in _TEXT_METHODS:
        piece = piece.func.value
    if isinstance(piece, ast.IfExp):
        return _text_names(piece.body) + _text_names(piece.orelse)
    return [piece.id] if isinstance(piece, ast.Name) else []


def _prompt_values(value: ast.AST, lexicon: Lexicon) -> list[ast.AST]:
    if isinstance(value, ast.Dict):
        named = [v for k, v in zip(value.keys, value.values) if isinstance(k, ast.Constant) and isinstance(k.value, str) and says_prompt(k.value, lexicon)]
        return [inner for v in named for inner in _prompt_values(v, lexicon)]
    if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords and joined(value.args[0]) is not None:
        return [value.args[0]]
    return [value]


def says_prompt(key: str, lexicon: Lexicon) -> bool:
    """A key or property that holds a prompt: one named for prompts, or the system prompt's option of the model SDKs."""
    return lexicon.mentions(key, "prompt") or key == SDK_SYSTEM_OPTION


def returned_prompt_texts(module: ast.Module, raw: str, lexicon: Lexicon) -> list[tuple[PyTemplate, range]]:
    """What the functions of a module named for prompts return (see _returned_prompts), as templates with the
    lines the returned value is written on: for a JavaScript file lowered to the evaluator's form (jslower),
    whose own reader reads its literals."""
    starts = line_starts(raw)
    functions = [f for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    returned = [found for f in functions for found in _returned_prompts(f, lexicon)]
    return [(t, range(node.lineno, (node.end_lineno or node.lineno) + 1)) for node, hint in returned if (t := _template(raw, starts, node, hint))]


def _sent_by_name(function: ast.FunctionDef | ast.AsyncFunctionDef, lexicon: Lexicon):
    """The string a local of the function holds when a chat message of the function sends that local
    (`user = f"QUESTION: {query} ..."`, then `{"role": "user", "content": user}`, or a call given the messages by
    their roles' names, `PromptBundle(system=SYSTEM, user=user)`), whatever it is called; and
    the lines a message sends joined, as the function fills them (`parts.append(f"USER QUERY:\\n{q}")`, ...,
    then `HumanMessage(content="\\n".join(parts))`), read as the one text they make (see pyassembly)."""
    roles = words(lexicon=lexicon).chat_roles
    for content in (c for node in own_nodes(function) for c in (_message_content(node, lexicon), *_given_by_role(node, roles))):
        if isinstance(content, ast.Name):
            yield from _strings(returned_text(function, content), False)
        elif joined(content) is not None and (text := assembled(function, content)) is not None:
            yield from _strings(text, False)


# The chat message classes of the frameworks, which take the message's text as `content` or first.
_MESSAGE_CLASSES = frozenset({"SystemMessage", "HumanMessage", "AIMessage", "ChatMessage"})


def _message_content(node: ast.AST, lexicon: Lexicon) -> ast.AST | None:
    """What a chat message sends, but a tool's: X of `{"role": ..., "content": X}` or `HumanMessage(content=X)`;
    None for any other node."""
    if isinstance(node, ast.Dict):
        keys = {key.value: value for key, value in zip(node.keys, node.values) if isinstance(key, ast.Constant)}
        return keys["content"] if "role" in keys and "content" in keys and not _tool_output(keys["role"], lexicon) else None
    if isinstance(node, ast.Call) and called_name(node) in _MESSAGE_CLASSES:
        return next((k.value for k in node.keywords if k.arg == "content"), node.args[0] if node.args else None)
    return None


def _given_by_role(node: ast.AST, roles: frozenset[str]) -> list[ast.AST]:
    """The texts a call gives as the messages of two chat roles or more, each by its role's name
    (`PromptBundle(system=SYSTEM, user=user, context=context)`): each is a message's text."""
    if not isinstance(node, ast.Call):
        return []
    given = [k.value for k in node.keywords if k.arg in roles]
    return given if len(given) >= 2 else []


def _tool_output(role: ast.AST, lexicon: Lexicon) -> bool:
    """A message of a tool's role (`"tool"`, `"tool_result"`) carries what the tool gave back: the request's data,
    no prompt anyone wrote. (One that holds the retrieved context is still read, by its slot.)"""
    return isinstance(role, ast.Constant) and isinstance(role.value, str) and lexicon.mentions(role.value, "tool-role")


def _returns(body: list[ast.stmt]):
    """The return statements of a function body, not of the functions nested in it."""
    return (s for s in every_statement(body) if isinstance(s, ast.Return) and s.value is not None)


def _with_context_slot(body: list[ast.stmt]):
    """The strings of a block's own statements (a nested function is its own block) with a context slot."""
    pending = [s for s in body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring, or a string that goes nowhere
        if isinstance(node, (ast.Raise, ast.Assert, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call) and called_name(node) in OUTPUT_CALLS:
            continue
        if isinstance(node, (ast.Constant, ast.JoinedStr)):
            if _context_slotted(node):
                yield node, False
            continue
        pending.extend(ast.iter_child_nodes(node))


def _context_slotted(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and is_prompt_text(node.value, words())
    # An f-string's fields, as the slots of the text it writes.
    return is_prompt_text(_joined(node), words())


def _strings(node: ast.AST, jinja: bool):
    """The string literals in a value: itself, or the items of a list/tuple of messages."""
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        yield node, jinja
    elif isinstance(node, (ast.List, ast.Tuple)):
        for item in node.elts:
            yield from _strings(item, jinja)
    elif isinstance(node, ast.Dict):
        # A table of prompts (`PROMPTS = [{"title": "QA", "value": {"v2": "..."}}]`): each value a template of its
        # own, not a setting beside the prompts ("gpt-4o") nor a sample written out (an output format).
        for value in node.values:
            yield from ((s, j) for s, j in _strings(value, jinja) if is_template_text(_own_text(s)))
    elif isinstance(node, ast.Call) and literal_in_call(node) is not None:
        yield literal_in_call(node), jinja  # `"""...""".format(...)`, `dedent("""...""")`
    elif _percent_formatted(node):
        yield node, jinja  # `"""... %s ...""" % malformed_json`
    elif _lines_joined(node) is not None:
        yield node, jinja  # `"\n".join(["You answer ...", "{context}", ...])`
    elif summed_text(node) is not None:
        yield node, jinja  # `"You answer ... " + f"Context: {context}" + "Answer briefly."`


def _own_text(node: ast.AST) -> str:
    """A string's text, or the code of any other value (an f-string's fields are then its slots)."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ast.unparse(node)


def _template(raw: str, starts: list[int], node: ast.AST, jinja_hint: bool) -> PyTemplate | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        summed = summed_text(node)
        return _template(raw, starts, summed, jinja_hint) if summed is not None else None
    if isinstance(node, ast.BinOp):
        return _percent_template(raw, starts, node)
    if isinstance(node, ast.Call):
        # Lines joined in code are no text of the file: findings point at the call, never fixed.
        text = _lines_joined(node)
        syntax = Syntax.JINJA if jinja_hint or "{%" in text else Syntax.TEXT
        return PyTemplate(text, syntax, node.lineno, _char_column(raw, starts[node.lineno - 1], node.col_offset) + 1, None) if len(text.strip()) >= MIN_LENGTH else None
    if isinstance(node, ast.Constant) and not isinstance(node.value, str):
        return None
    start = starts[node.lineno - 1] + _char_column(raw, starts[node.lineno - 1], node.col_offset)
    end = starts[node.end_lineno - 1] + _char_column(raw, starts[node.end_lineno - 1], node.end_col_offset)
    if isinstance(node, ast.Constant):
        text = node.value
        origin = _origin(raw, start, end, text)
        offsets = _offsets(raw, start, end, text) if origin is None else None
    else:
        # An f-string: its fields, as written, read as format-string slots ("{context}").
        # A fix is always written through the offsets, which check that the file reads back.
        origin, (text, offsets) = None, _fstring(raw, start, end) or (_joined(node), None)
    if len(text.strip()) < MIN_LENGTH:
        return None
    syntax = Syntax.JINJA if jinja_hint or "{{" in text and "}}" in text or "{%" in text else Syntax.TEXT
    return PyTemplate(text, syntax, node.lineno, start - starts[node.lineno - 1] + 1, origin, offsets=offsets)


# A printf-style conversion: `%s`, `%(name)s`, `%.2f`, and `%%` for a percent sign.
_PERCENT = re.compile(r"%(?:\((?P<key>[^()]*)\))?[-#0 +]*(?:\d+|\*)?(?:\.\d+)?[sdrifgeEGxXoc]|%%")


def _percent_formatted(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)


def _percent_template(raw: str, starts: list[int], node: ast.BinOp) -> PyTemplate | None:
    """A string filled with `%`: each conversion reads as a slot named by what fills it (`%s`
    filled by `malformed_json` is `{malformed_json}`, `%(context)s` is `{context}`), placed
    where the conversion is written. The text is no longer the literal, so nothing is fixed in it."""
    literal = _template(raw, starts, node.left, False)
    if literal is None:
        return None
    values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
    names = iter(v.id if isinstance(v, ast.Name) else "value" for v in values)
    where = list(range(literal.origin[0], literal.origin[1] + 1)) if literal.origin else list(literal.offsets or ())
    if len(where) != len(literal.text) + 1:
        return literal
    text, offsets, at = [], [], 0
    for match in _PERCENT.finditer(literal.text):
        written = "%" if match[0] == "%%" else "{" + (match["key"] or next(names, "value")) + "}"
        text.append(literal.text[at : match.start()] + written)
        offsets.extend(where[at : match.start()] + [where[match.start()]] * len(written))
        at = match.end()
    text.append(literal.text[at:])
    offsets.extend(where[at:])
    return PyTemplate("".join(text), literal.syntax, literal.line, literal.column, None, offsets=tuple(offsets))


def _char_column(raw: str, line_start: int, byte_offset: int) -> int:
    """ast gives UTF-8 byte offsets within the line; positions here are characters."""
    line_end = raw.find("\n", line_start)
    line = raw[line_start : len(raw) if line_end < 0 else line_end]
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def _origin(raw: str, start: int, end: int, text: str) -> tuple[int, int] | None:
    """Where the string's text stands inside its literal, when it stands there verbatim."""
    literal = raw[start:end]
    match = re.match(r"(?i)([rbu]*)('''|\"\"\"|'|\")", literal)
    if not match or not literal.endswith(match.group(2)):
        return None  # implicit concatenation or something unusual
    inner_start = start + match.end()
    inner_end = end - len(match.group(2))
    if raw[inner_start:inner_end] != text:
        return None  # escapes: the text is not the source character for character
    return inner_start, inner_end


_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_ESCAPE = re.compile(r"\\(\n|[0-7]{1,3}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|.)", re.DOTALL)


def _offsets(raw: str, start: int, end: int, text: str) -> tuple[int, ...] | None:
    """The file offset of each character of a string literal's value, through its escapes
    and the pieces of an implicit concatenation; None when it cannot be told exactly."""
    segment = raw[start:end]
    starts = line_starts(segment)
    offsets: list[int] = []
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(segment).readline) if t.type == tokenize.STRING]
    except (tokenize.TokenError, SyntaxError):
        return None
    for token in tokens:
        match = re.match(r"(?i)([rbu]*)('\'\'|\"\"\"|'|\")", token.string)
        if match is None or "b" in match.group(1).lower():
            return None
        at = start + starts[token.start[0] - 1] + token.start[1] + match.end()
        body = token.string[match.end() : len(token.string) - len(match.group(2))]
        offsets += _body_offsets(body, at, "r" in match.group(1).lower())
    if not tokens:
        return None
    offsets.append(end - len(match.group(2)))  # the end of the text: the last closing quote
    return tuple(offsets) if len(offsets) == len(text) + 1 and _decodes(raw, offsets, text) else None


def _body_offsets(body: str, at: int, raw_string: bool) -> list[int]:
    """One offset per character the body of one literal stands for."""
    if raw_string:
        return [at + i for i in range(len(body))]
    offsets, i = [], 0
    while i < len(body):
        escape = _ESCAPE.match(body, i) if body[i] == "\\" else None
        if escape is None:
            offsets.append(at + i)
            i += 1
            continue
        if escape.group(1) != "\n":  # a backslash before a newline joins the lines: no character
            offsets += [at + i] * len(_unescape(escape.group(1)))
        i = escape.end()
    return offsets


def _separator(node: ast.AST) -> str | None:
    """What a join puts between its items, when the code says it plainly: a string, `chr(10)`, `os.linesep`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "chr" and len(node.args) == 1:
        code = node.args[0]
        return chr(code.value) if isinstance(code, ast.Constant) and isinstance(code.value, int) and 0 <= code.value < 0x110000 else None
    return "\n" if isinstance(node, ast.Attribute) and node.attr == "linesep" else None


def _lines_joined(node: ast.AST) -> str | None:
    """The text of `SEP.join([...])` over a list or tuple of string literals and f-strings (see pyassembly.literal_lines), else None."""
    lines = literal_lines(node)
    separator = _separator(node.func.value) if lines is not None else None
    if separator is None:
        return None
    return separator.join(line.value if isinstance(line, ast.Constant) else _joined(line) for line in lines)


def _joined(node: ast.JoinedStr) -> str:
    """An f-string's text when its source cannot be scanned: fields as ast writes them."""
    return "".join(part.value if isinstance(part, ast.Constant) else "{" + ast.unparse(part.value) + "}" for part in node.values)


_PIECE = re.compile(r"(?i)([rbuf]*)('\'\'|\"\"\"|'|\")")
_BETWEEN_PIECES = re.compile(r"(?:\s|\\\n|#[^\n]*)*")


def _fstring(raw: str, start: int, end: int) -> tuple[str, tuple[int, ...]] | None:
    """An f-string's text (its pieces joined, escapes and doubled braces decoded, each
    replacement field as written) and the file offset of each character and of the end.

    Scanned by hand because tokenize splits f-strings differently from one Python to
    the next; None when the source is not what was expected.
    """
    text: list[str] = []
    offsets: list[int] = []
    i = start
    while True:
        i = _BETWEEN_PIECES.match(raw, i, end).end()
        if i >= end:
            break
        piece = _PIECE.match(raw, i, end)
        if piece is None or "b" in piece[1].lower():
            return None
        i = _scan_piece(raw, piece.end(), end, piece[2], piece[1].lower(), text, offsets)
        if i is None:
            return None
    if not offsets:
        return None
    offsets.append(end - len(piece[2]))  # the end of the text: the last closing quote
    return ("".join(text), tuple(offsets)) if _decodes(raw, offsets, "".join(text)) else None


def _scan_piece(raw: str, i: int, end: int, quote: str, prefix: str, text: list[str], offsets: list[int]) -> int | None:
    """Reads one piece's body into ``text``/``offsets``; where the piece ends, or None."""
    while i < end:
        char = raw[i]
        if raw.startswith(quote, i):
            return i + len(quote)
        if char == "\\" and "r" in prefix:
            text += raw[i : i + 2]  # a raw piece keeps the backslash and what follows it
            offsets += (i, i + 1)
            i += 2
        elif char == "\\":
            escape = _ESCAPE.match(raw, i)
            if escape[1] != "\n":
                decoded = _unescape(escape[1])
                text.append(decoded)
                offsets += [i] * len(decoded)
            i = escape.end()
        elif char in "{}" and "f" in prefix and raw.startswith(char * 2, i):
            text.append(char)
            offsets.append(i)
            i += 2
        elif char in "{}" and "f" in prefix:
            field_end = _field_end(raw, i, end) if char == "{" else None
            if field_end is None:
                return None
            text.append(raw[i:field_end])
            offsets += range(i, field_end)
            i = field_end
        else:
            text.append(char)
            offsets.append(i)
            i += 1
    return None


def _field_end(raw: str, i: int, end: int) -> int | None:
    """Where the replacement field opening at ``i`` ends: braces nest, strings inside are skipped."""
    depth = 0
    while i < end:
        char = raw[i]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        elif char in "'\"":
            quote = raw[i : i + 3] if raw.startswith(char * 3, i) else char
            close = re.compile(r"\\.|" + re.escape(quote), re.DOTALL)
            match = close.search(raw, i + len(quote), end)
            while match is not None and match[0] != quote:
                match = close.search(raw, match.end(), end)
            if match is None:
                return None
            i = match.end()
            continue
        i += 1
    return None


def _unescape(escape: str) -> str:
    """What one escape (without its backslash) stands for; an unknown one keeps its backslash."""
    if escape in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[escape]
    if escape[0] in "01234567":
        return chr(int(escape, 8))
    if escape[0] in "xuU" and len(escape) > 1:
        return chr(int(escape[1:], 16))
    if escape.startswith("N{"):
        return unicodedata.lookup(escape[2:-1])
    return "\\" + escape


def _decodes(raw: str, offsets: list[int], text: str) -> bool:
    """Whether the characters mapped stand where the text says: each a verbatim character or an escape."""
    return all(raw[o] == c or raw[o] == "\\" for o, c in zip(offsets, text))


def rewrite(raw: str, offsets: tuple[int, ...], old: str, new: str, lexicon: Lexicon | None = None) -> str | None:
    """The file with a template's value changed from ``old`` to ``new`` (``offsets`` as PyTemplate's).

    Each change is written where the characters it replaces are written, escaped;
    None when the file would not read back with ``new`` as a template (a raw piece
    cannot take an escape), so that it is left as it was.
    """
    result = rewrite_through(raw, offsets, old, new, _escape, _encoded_end)
    try:
        read_back = templates_in(result, lexicon)
    except PythonSyntaxError:
        return None
    return result if any(t.text == new for t in read_back) else None


def rewrite_through(raw: str, offsets: tuple[int, ...], old: str, new: str, escape, encoded_end) -> str:
    """``raw`` with a literal's value changed from ``old`` to ``new``, each change written where
    the characters it replaces are: ``escape`` writes new text for the literal, ``encoded_end``
    says where the character written at an offset ends. The caller reads the result back."""
    pieces, at = [], 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            pieces += [raw[at : offsets[i1]], escape(new[j1:j2])]
            # To the end of the last character replaced: what lies between two pieces stays.
            at = encoded_end(raw, offsets[i2 - 1]) if i2 > i1 else offsets[i1]
    return "".join(pieces) + raw[at:]


def _encoded_end(raw: str, offset: int) -> int:
    """Where the character written at ``offset`` ends: after its escape, or after itself."""
    return _ESCAPE.match(raw, offset).end() if raw[offset] == "\\" else offset + 1


def _escape(text: str) -> str:
    """Text as it is written inside any non-raw string literal, whatever its quotes."""
    for char, escape in (("\\", "\\\\"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"), ('"', '\\"'), ("'", "\\'")):
        text = text.replace(char, escape)
    return text
