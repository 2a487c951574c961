"""Find the prompts that live inside JavaScript and TypeScript code, without running it.

The file is read as tokens (see jsscan: the grammar says where its literals are), never run.
The strings taken mirror the Python reader's (see pysource): a string or template
literal assigned to a name that says prompt, template, instructions or system
(`SYSTEM_PROMPT`, `qaTemplate`); the `system`, `prompt`, `instructions` or `template`
property of an object (an SDK call's options) and the `content` of one with a
`role`; the argument of a prompt class (`PromptTemplate.fromTemplate`,
`new SystemMessage`); what a function named for prompts returns (`buildPrompt`);
and a literal with a slot named as the retrieved context (`${context}`) beside
words of its own. A literal logged, thrown or tagged (`sql\\`...\\``) is not a prompt.
Nor is a value of a table of short strings (a locale bundle of a user interface's
texts, TABLE_SIZE values and more, nearly all one-line literals): it is shown to
people, and quotes a prompt at most (a placeholder, a tooltip about `{knowledge}`).

A template literal made once per item (returned by the callback of `.map(...)`, or
pushed or added with `+=` in a `for...of` or `.forEach` body) that renders fields of
the item is one source's wrapper, read as pybuild reads a Python loop's f-string: its
`${...}` fields are what the loop body outputs, each read through a Python rendering
of its expression (`c.metadata?.date` reads c.metadata.date, `(i + 1)` the callback's
index, the source's ordinal). A wrapper the callback builds from pieces (an array of
lines joined, a sum, a local holding text) is read as the one text it makes (see _pieces).

The file lowered to the shared evaluator's form (see jslower) is then read by the evaluator
Python code is read by (pybuild, pycalls, pyassembly): what it finds on lines this reader
found nothing on, or a wrapper it reads more fields of (the pieces a loop adds in order), is
added. Through it a JavaScript file has what the evaluator knows: a helper function or a
class's method that formats one item, pieces appended in order, the same keeping rules.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache

from ..meaning.lexicon import Lexicon, shipped
from ..model.lines import line_column, line_starts
from ..model.prompt import Prompt, Syntax
from .jsscan import _ESCAPE, JsSyntaxError, Token, fields, tokens
from .expressions import spread_sum
from .pybuild import ITEM, Loop, field_jinja, jinja_expression, reference, segment_fields, split_fields
from .jslower import lowered
from .pybind import FILLING, PASSTHROUGH, read_fills
from .pysource import MIN_LENGTH, OUTPUT_CALLS, SDK_SYSTEM_OPTION, TEMPLATE_CALLS, PyTemplate, built_in, filled_elsewhere, kept_as_sources, names_prompt_function, requests_sent_twice, returned_prompt_texts, rewrite_through, says_prompt, with_sources_printed, written_texts
from .segment import SlotNames, is_prompt_text, is_template_text, words

# Tags that only reshape a template literal (its indentation): the template is still the prompt.
DEDENT_TAGS = frozenset({"dedent", "outdent", "stripIndent", "stripIndents", "oneLine", "oneLineTrim"})
# Names before which a template literal is a value, not a tagged template.
_VALUE_KEYWORDS = frozenset({"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "instanceof", "yield", "await", "export", "default"})
# How deep arrays and parentheses around a prompt are looked into (messages are two deep).
MAX_DEPTH = 8
_CONTROL = frozenset({"if", "for", "while", "switch", "catch", "with"})
_OPENERS = {"(": ")", "[": "]", "{": "}", "${": "}"}
# The roles a message's pair opens with (`['system', prompt]`, `['human', '{question}']`).
_ROLES = frozenset({"system", "user", "human", "assistant", "ai", "developer"})
# Calls that add their argument to the text being built, and the ones that make one text per item.
ADDING = frozenset({"push", "unshift"})
PER_ITEM = frozenset({"map", "flatMap", "forEach"})
# How many steps deep a text built from pieces is read (a local holding an array of templates is three).
MAX_PIECES = 8
# How many string values make an object a table of strings (a locale bundle holds hundreds; a
# module's prompts, a handful).
TABLE_SIZE = 40


class Code:
    """A file's tokens, with which bracket encloses each and which closes each, and the words
    that say a name holds a prompt."""

    def __init__(self, raw: str, jsx: bool, lexicon: Lexicon):
        self.raw = raw
        self.lexicon = lexicon
        self.toks = tokens(raw, jsx)
        self.parent = [-1] * len(self.toks)
        self.match: dict[int, int] = {}
        self.tables: dict[int, bool] = {}  # an object literal's `{`: whether it is a table of strings
        stack: list[int] = []
        for i, token in enumerate(self.toks):
            self.parent[i] = stack[-1] if stack else -1
            if token.kind != "punct":
                continue
            if token.text in _OPENERS:
                stack.append(i)
            elif token.text in (")", "]", "}") and stack and _OPENERS[self.toks[stack[-1]].text] == token.text:
                opener = stack.pop()
                self.match[opener], self.match[i] = i, opener
            # A closer that closes nothing open is skipped: JSX text the scanner cannot tell from code.

    def text(self, i: int) -> str:
        return self.toks[i].text if 0 <= i < len(self.toks) else ""

    def kind(self, i: int) -> str:
        return self.toks[i].kind if 0 <= i < len(self.toks) else ""

    def punct(self, i: int, *texts: str) -> bool:
        return self.kind(i) == "punct" and self.text(i) in texts

    def name(self, i: int) -> str | None:
        return self.text(i) if self.kind(i) == "name" else None

    def literal(self, i: int) -> bool:
        return self.kind(i) in ("string", "template")


def templates_in(raw: str, lexicon: Lexicon | None = None, jsx: bool = False) -> list[PyTemplate]:
    """The prompt templates of a file (``jsx``: a .jsx/.tsx file), the lexicon's `prompt` words
    naming them; JsSyntaxError when it cannot be scanned."""
    code = Code(raw, jsx, lexicon or shipped())
    starts = line_starts(raw)
    found: dict[tuple[int, int], PyTemplate] = {}
    for i, built in _candidates(code):
        template = None if _in_string_table(code, i) else _template(code, starts, i, built=built)
        if template is not None:
            found.setdefault((template.line, template.column), template)
    # A string built per item is one source's wrapper before it is a prompt of its own.
    sent = [t for i in _sent(code) if not _in_string_table(code, i) and (t := _template(code, starts, i))]
    alone = not found and not sent
    wrappers = list(_wrappers(code, starts))
    module = lowered(raw, jsx) if _evaluated(code, found, wrappers) else None
    if module is not None:
        # The same judgement as the evaluator's: a callback's text is a source only where the module says so.
        wrappers = kept_as_sources(module, wrappers, code.lexicon, alone, by_own_name=True)
    for template in (*wrappers, *sent):
        found.setdefault((template.line, template.column), template)
    if module is not None:
        _add_evaluated(raw, module, code.lexicon, alone, found)
        _add_returned(raw, module, code.lexicon, found)
        found = _written_through(raw, module, found, code.lexicon)
        # A text that prints the sources by the name their text is bound to, read by the evaluator: placed at its
        # first literal and never fixed, as _add_returned's.
        printed = with_sources_printed(module, raw, [t for t in found.values() if t.loop is not None], code.lexicon, found)
        found = {k: t if k in found else replace(t, origin=None, offsets=None) for k, t in printed.items()}
    return _bound_to_rewrites(raw, jsx, module, code, [found[k] for k in sorted(found)])


def _bound_to_rewrites(raw: str, jsx: bool, module: ast.Module | None, code: Code, templates: list[PyTemplate]) -> list[PyTemplate]:
    """The templates, each with the question slots a chain of the file fills with the question it rewrote
    (`ConversationalRetrievalQAChain.fromLLM(model, retriever, {qaTemplate: QA})`, see pybind), and the calls that
    fill a template held elsewhere with the rewrite (a prompt pulled from the hub, run through a mapping that passes
    the rewrite through, made by a function imported, `buildPrompt(context, question)`), read as the slots they fill;
    the file is lowered for it only when it names such a chain or a function that makes a prompt."""
    lexicon = code.lexicon
    chains = {chain["call"] for chain in words(lexicon=lexicon).condensing_chains} | {PASSTHROUGH}  # a chain run on a mapping of slots (see pybind)
    if not any(chain in raw for chain in chains) and not _names_a_prompt_function(code):
        return templates
    module = module or lowered(raw, jsx)
    bindings, fills = read_fills(module, lexicon) if module is not None else ({}, [])
    bound = [replace(t, bound=t.bound + bindings[t.line]) if t.line in bindings else t for t in templates]
    return sorted(bound + filled_elsewhere(fills, raw), key=lambda t: (t.line, t.column))


def _written_through(raw: str, module: ast.Module, found: dict, lexicon: Lexicon) -> dict:
    """The templates found, each read as more than its literal where the evaluator says so."""
    # A request that sends a template's field again as a message of its own: the template is read with its messages.
    found = found | {(t.line, t.column): t for t in requests_sent_twice(module, raw)}
    # A prompt a function grows (`let prompt = ...; prompt += ...`) is read as all it adds up to.
    for at, (template, taken) in written_texts(module, raw, lexicon).items():
        if at in found:
            found = {k: v for k, v in found.items() if k not in taken} | {at: template}
    return found


def _add_evaluated(raw: str, module: ast.Module, lexicon: Lexicon, alone: bool, found: dict) -> None:
    """The per-item texts the shared evaluator reads in the file lowered to its form (``module``, see
    jslower and pybuild), on the lines where this reader found none: what a helper function or a class's
    method makes, a text built in pieces by a loop. Its text is the evaluator's (Python fields), so it is
    placed at its first literal and never fixed: it is not written anywhere as one text."""
    taken = {line for line, _ in found}
    # What this reader read of each collection's items: the evaluator reading the same keys elsewhere reads the same wrapper.
    read = {(t.loop.collection, t.loop.keys) for t in found.values() if t.loop is not None}
    # A user interface's code names its chat messages everywhere (`useSendMessage`, `jsonMessage`):
    # in a file with no other prompt, only a function's own name that says context keeps what it builds.
    for template in built_in(module, raw, lexicon, alone, by_own_name=True):
        at = (template.line, template.column)
        same = found.get(at)
        # Where this reader found the same wrapper, the evaluator's stands when it reads more of the
        # item (the pieces a loop adds after it, in order).
        if same is None and (template.line in taken or _read_already(template, read)) or same is not None and (same.loop is None or _shown(same) >= _shown(template)):
            continue
        found[at] = replace(template, origin=None, offsets=None, loop=replace(template.loop, opening=None))


def _add_returned(raw: str, module: ast.Module, lexicon: Lexicon, found: dict) -> None:
    """What a function named for prompts returns, built from pieces this reader does not follow (lines pushed
    onto a list, then joined), where it found nothing on the lines the returned value is written on: read by
    the evaluator, so placed at its first literal and never fixed."""
    taken = {line for line, _ in found}
    for template, lines in returned_prompt_texts(module, raw, lexicon):
        if taken.isdisjoint(lines):
            found.setdefault((template.line, template.column), replace(template, origin=None, offsets=None))


def _template(code: Code, starts: list[int], i: int, loop: Loop | None = None, built: str | None = None) -> PyTemplate | None:
    """The literal at token ``i`` as a template; ``built``: the text built from pieces that starts with it,
    reported at the literal and never fixed (it is not written anywhere as one text)."""
    token = code.toks[i]
    text = token.value if built is None else built
    if len(text.strip()) < MIN_LENGTH:
        return None
    line, column = line_column(starts, token.start)
    offsets = token.offsets if built is None else None
    if loop is None:
        text, offsets = _as_slots(text, offsets)
    return PyTemplate(text, Syntax.TEXT, line, column, None, loop=loop, offsets=offsets)


# The dotted names an expression starts with (`params.referenceItems!.map`), and the methods that
# turn a collection into text, which a slot is not named for.
_CHAIN = re.compile(r"\s*([A-Za-z_$][\w$]*(?:\s*[?!]?\.\s*[A-Za-z_$][\w$]*)*)")
_TEXT_METHODS = frozenset({"map", "filter", "join", "slice", "flatMap", "reduce", "sort", "concat", "trim", "toString", "entries", "values", "forEach"})


def _as_slots(text: str, offsets: tuple[int, ...] | None) -> tuple[str, tuple[int, ...] | None]:
    """A prompt's text with each field no slot can be read from as written (over several lines, or
    holding a callback with its own braces or literals) written as the slot it fills, named for what it
    renders: `${params.docs.map((d) => ...).join("\n")}` is `${docs}`. Its characters map to the field's."""
    found = fields(text) or []
    for start, end, expression in reversed(found):
        slot = _slot_of(expression)
        if slot is None:
            continue
        text = text[:start] + slot + text[end:]
        if offsets is not None:
            offsets = offsets[:start] + (offsets[start],) * (len(slot) - 1) + (offsets[end - 1],) + offsets[end:]
    return text, offsets


def _slot_of(expression: str) -> str | None:
    """The slot a field fills, in the spelling the segmenter reads names in (snake case: it reads the
    text in lower case, where `chatHistory` would be one word); None for a field read as written."""
    if re.fullmatch(r"\s*[a-z_$][\w$]*\s*", expression):
        name = expression.strip()
        return "${" + snake(name) + "}" if snake(name) != name else None
    if not any(c in expression for c in "\n{}`"):
        return None
    match = _CHAIN.match(expression)
    names = re.sub(r"[\s?!]", "", match[1]).split(".") if match else []
    while names and names[-1] in _TEXT_METHODS:
        names.pop()
    # Its last name alone: a dotted slot reads as a field of an item (`{doc.title}`), not as a collection.
    return "${" + snake(names[-1]) + "}" if names else None


# ---------------------------------------------------------------- which literals are prompts


def snake(name: str) -> str:
    """A JavaScript name in the Python reader's spelling: `buildSystemPrompt` is build_system_prompt."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _named(code: Code, name: str | None) -> bool:
    return name is not None and (says_prompt(name, code.lexicon) or snake(name) == SDK_SYSTEM_OPTION)


def _candidates(code: Code):
    """Literals a name, a property, a prompt class or a prompt function says are prompts, each with the
    text it starts when it is a piece of a sum (None when the literal is the text)."""
    for i, token in enumerate(code.toks):
        if token.kind == "punct" and token.text == "=" and _named(code, _assigned_name(code, i)):
            yield from _text_value(code, i + 1)
        elif token.kind == "punct" and token.text == ":" and _property_is_prompt(code, i):
            yield from _text_value(code, i + 1)
        elif token.kind == "punct" and token.text == "(" and _template_call(code, i):
            for arg in _items(code, i):
                yield from _text_value(code, arg)
        elif token.kind == "name" and token.text == "return" and _prompt_function(code, _function_name(code, i)):
            yield from _text_value(code, i + 1)
        elif token.kind == "punct" and token.text == "=>" and not code.punct(i + 1, "{") and _prompt_function(code, _arrow_name(code, i)):
            yield from _text_value(code, i + 1)


def _text_value(code: Code, j: int) -> list[tuple[int, str | None]]:
    """The literals of the value starting at token ``j`` (see _value), or, when the value is a sum of pieces or lines joined
    (`"You are a tutor. " + \\`Context: ${context}\\` + "Answer briefly."`), the one text it adds up to, at its
    first literal: JavaScript has no implicit concatenation, so a long prompt is written as such a sum."""
    a, b = j, _expression_end(code, j)
    while code.punct(a, "(") and code.match.get(a) == b:
        a, b = a + 1, b - 1
    # A sum, or an array of lines joined (`[..., "Question:", question, "Instructions:", ...].join("\n")`).
    summed = any(code.punct(k, "+") for k in _top_level(code, a, b)) or code.punct(a, "[") and code.match.get(a, b) < b
    if summed and (built := _pieces(code, a, b, {}, 0)) is not None:
        return [built]
    return [(k, None) for k in _value(code, j)]


def _expression_end(code: Code, j: int) -> int:
    """The last token of the expression starting at ``j``: the statement's, or before a `,` that ends an item."""
    end = _statement_end(code, j)
    return next((k - 1 for k in range(j + 1, end + 1) if code.punct(k, ",") and code.parent[k] == code.parent[j]), end)


def _prompt_function(code: Code, name: str | None) -> bool:
    return bool(name) and names_prompt_function(name, code.lexicon)


def _value(code: Code, j: int, depth: int = 0) -> list[int]:
    """The literals a value starting at token ``j`` is made of: itself, the items of an array
    (LangChain's `["system", "..."]` messages), a dedented template."""
    if depth > MAX_DEPTH:
        return []
    if code.literal(j):
        return [j]
    if code.name(j) in DEDENT_TAGS and code.kind(j + 1) == "template":
        return [j + 1]
    if code.punct(j, "(") and j in code.match:
        return _value(code, j + 1, depth + 1)
    if code.punct(j, "[") and j in code.match:
        return [k for item in _items(code, j) for k in _value(code, item, depth + 1)]
    if code.punct(j, "{") and j in code.match:
        # A table of prompts (`[{ title: ..., value: { ['4.9.7']: \`...\` } }]`): each value a template of its
        # own, not a setting beside the prompts ("gpt-4o") nor a sample written out (an output format).
        return [k for value in _property_values(code, j) for k in _value(code, value, depth + 1) if is_template_text(code.text(k))]
    return []


def _property_values(code: Code, opener: int) -> list[int]:
    """Where each property's value starts in an object literal: the tokens after its colons."""
    close = code.match.get(opener, opener)
    return [k + 1 for k in range(opener + 1, close) if code.parent[k] == opener and code.punct(k, ":")]


def _items(code: Code, opener: int) -> list[int]:
    """Where each item of a bracket group starts: the tokens after its opener and after each comma."""
    close = code.match.get(opener, opener)
    return [k for k in range(opener + 1, close) if code.parent[k] == opener and (k == opener + 1 or code.punct(k - 1, ","))]



def _assigned_name(code: Code, equals: int) -> str | None:
    """The name a value is assigned to: `const SYSTEM_PROMPT =`, `this.prompt =`, `const p: string =`."""
    # A type annotation between the name and `=`: back to the `:` at the same depth.
    depth = 0
    for k in range(equals - 1, max(equals - 40, -1), -1):
        text = code.text(k)
        if code.kind(k) == "punct" and text in (")", "]", ">", "}"):
            depth += 1
        elif code.kind(k) == "punct" and text in ("(", "[", "<", "{"):
            depth -= 1
            if depth < 0:
                break
        elif depth == 0 and (code.punct(k, ";", "=", "=>", ",") or code.name(k) in ("const", "let", "var")):
            break
        elif depth == 0 and code.punct(k, ":"):
            return code.name(k - 1)
    return code.name(equals - 1)


def _property_is_prompt(code: Code, colon: int) -> bool:
    """`system: "..."` in an object literal, or `content: ...` in one with a `role`."""
    key = _key(code, colon)
    if key is None:
        return False
    if _named(code, key):
        return True
    role = _value_of(code, code.parent[colon], "role")
    # A tool's message (`role: "tool"`) carries what the tool gave back: the request's data, no prompt anyone wrote.
    return key == "content" and role is not None and not code.lexicon.mentions(role, "tool-role")


def _key(code: Code, colon: int) -> str | None:
    """The key of an object literal's property whose `:` is at ``colon``; None for any other colon."""
    opener = code.parent[colon]
    if not code.punct(opener, "{") or not (code.punct(colon - 2, ",") or colon - 2 == opener):
        return None
    if code.kind(colon - 1) == "string":
        return code.toks[colon - 1].value
    return code.name(colon - 1)


def _value_of(code: Code, opener: int, key: str) -> str | None:
    """The value of an object literal's property ``key``: its string, "" when it is no string; None without it."""
    for k in _items(code, opener):
        written = code.toks[k].value if code.kind(k) == "string" else code.name(k)
        if written == key and code.punct(k + 1, ":"):
            return code.toks[k + 2].value if code.kind(k + 2) == "string" else ""
        if written == key and code.punct(k + 1, ",", "}"):
            return ""
    return None


def _template_call(code: Code, paren: int) -> bool:
    callee = code.name(paren - 1)
    return callee is not None and (callee in TEMPLATE_CALLS or snake(callee) in TEMPLATE_CALLS)


def _function_name(code: Code, i: int) -> str | None:
    """The name of the function whose body holds token ``i`` (its own, not an enclosing one's); "" when anonymous."""
    block = _function_block(code, i)
    return None if block is None else _block_function(code, block)


def _function_block(code: Code, i: int) -> int | None:
    """The `{` of the innermost function body that holds token ``i``; None at the top of the file."""
    p = code.parent[i]
    while p >= 0:
        if code.punct(p, "{") and _block_function(code, p) is not None:
            return p
        p = code.parent[p]
    return None


def _block_function(code: Code, brace: int) -> str | None:
    """The name of the function a `{` opens the body of ("" when anonymous); None when it opens no function body."""
    j = brace - 1
    if code.punct(j, "=>"):
        return _arrow_name(code, j) or ""
    j = _before_return_type(code, j)
    if not code.punct(j, ")") or j not in code.match:
        return None
    callee = _skip_generics(code, code.match[j] - 1)
    name = code.name(callee)
    if name is None or name in _CONTROL:
        return None
    return "" if name == "function" else name


def _before_return_type(code: Code, j: int) -> int:
    """Back over a return type annotation (`): Promise<string> {`) to the `)` before it; ``j`` when there is none."""
    for k in range(j, max(j - 30, -1), -1):
        if code.punct(k, ")") and code.punct(k + 1, ":"):
            return k
        if code.punct(k, ";", "{", "}", "=", "=>", "(") or code.name(k) in ("return", "else", "do", "try", "finally"):
            break
    return j


def _skip_generics(code: Code, j: int) -> int:
    """Back over a generic's `<...>` before a call's `(`."""
    if not code.punct(j, ">"):
        return j
    depth = 0
    for k in range(j, max(j - 40, -1), -1):
        depth += code.punct(k, ">") - code.punct(k, "<")
        if depth == 0:
            return k - 1
    return j


def _arrow_name(code: Code, arrow: int) -> str:
    """The name an arrow function is bound to (`const buildPrompt = (q) => ...`, `prompt: () => ...`); "" when none."""
    j = _params_start(code, arrow)
    if j is None:
        return ""
    j = _skip_generics(code, j - 1)
    if code.name(j) == "async":
        j -= 1
    if code.punct(j, "="):
        return _assigned_name(code, j) or ""
    if code.punct(j, ":"):
        return _key(code, j) or ""
    return ""


def _params_start(code: Code, arrow: int) -> int | None:
    """The first token of an arrow function's parameters."""
    j = _before_return_type(code, arrow - 1)
    if code.punct(j, ")") and j in code.match:
        return code.match[j]
    return j if code.name(j) is not None else None


def _read_already(template: PyTemplate, read: set[tuple[str, tuple[str, ...]]]) -> bool:
    """Whether this reader read, on another line, a wrapper of the same items showing all the keys the evaluator's shows."""
    return any(collection == template.loop.collection and set(template.loop.keys) <= set(keys) for collection, keys in read)


def _iterates(code: Code) -> bool:
    """Whether the file has a `for` loop or a per-item call (`.map(...)`), where the evaluator finds its texts."""
    return any(t.kind == "name" and (t.text == "for" or t.text in PER_ITEM and code.punct(k - 1, ".", "?.")) for k, t in enumerate(code.toks))


def _grows_text(code: Code) -> bool:
    """Whether the file adds to a value in place (`prompt += ...`), joins a list of lines (`[...].join("\\n")`) or
    pushes literals onto one (`sections.push("...")`), which the evaluator reads as one text."""
    return any(t.kind == "punct" and t.text == "+=" or code.punct(k, "]") and code.punct(k + 1, ".") and code.name(k + 2) == "join"
               or t.text in ADDING and t.kind == "name" and code.punct(k + 1, "(") and code.literal(k + 2) for k, t in enumerate(code.toks))


def _evaluated(code: Code, found: dict, wrappers: list) -> bool:
    """Whether the file is worth lowering for the evaluator. A text is built per item only in a loop or a
    callback; a request's messages need a list of them; text grown in pieces is read for a prompt found, or
    for what a function named for prompts returns."""
    grows = _grows_text(code) and (bool(found) or _names_a_prompt_function(code))
    return bool(wrappers) or _iterates(code) or _lists_messages(code) or grows or bool(found) and (_writes_in_declared_text(code) or _fills_slots(code))


def _fills_slots(code: Code) -> bool:
    """Whether the file calls a prompt's method that fills its slots (`prompt.partial({...})`, `.format({...})`), with
    what the evaluator may read written in (see pybind.written_fills)."""
    return any(code.name(i) in FILLING and code.punct(i - 1, ".", "?.") and code.punct(i + 1, "(") for i in range(len(code.toks)))


def _names_a_prompt_function(code: Code) -> bool:
    """Whether a name of the file says prompt as a function's does (`getPrompt`, `buildMessages`)."""
    return any(names_prompt_function(name, code.lexicon) for name in {t.text for t in code.toks if t.kind == "name"})


def _writes_in_declared_text(code: Code) -> bool:
    """Whether a template literal prints a text the file declares, at its top or in a function (`const FORMAT =
    "..."`, then `${FORMAT}`), which the evaluator reads written in."""
    names = {
        code.name(k + 1)
        for k, t in enumerate(code.toks)
        if code.name(k) in ("const", "let", "var") and code.punct(k + 2, "=") and k + 3 < len(code.toks) and code.toks[k + 3].kind in ("string", "template")
    }
    return any(t.kind == "template" and any("${" + name + "}" in t.text for name in names) for t in code.toks)


def _lists_messages(code: Code) -> bool:
    """Whether the file may list a request's messages: a `role` key, or an array that opens with a role's pair (`['system', ...]`)."""
    return any(t.kind == "name" and t.text == "role" or t.kind == "string" and t.text.strip("'\"`") in _ROLES and code.punct(k - 1, "[") for k, t in enumerate(code.toks))


def _shown(template: PyTemplate) -> int:
    """How many fields a per-item text shows, read in its language's syntax."""
    return len((fields if template.loop.language == "javascript" else split_fields)(template.text) or ())


# ---------------------------------------------------------------- a table of strings shown to people


def _in_string_table(code: Code, i: int) -> bool:
    """Whether the literal at ``i`` is a value of a table of short strings (a locale bundle,
    `export default { common: { confirm: 'Confirm', ... } }`): text shown to people, which
    quotes a prompt at most (a placeholder, a tooltip) and sends none to a model."""
    outer = _outermost_object(code, i)
    if outer is None:
        return False
    if outer not in code.tables:
        code.tables[outer] = _string_table(code, outer)
    return code.tables[outer]


def _outermost_object(code: Code, i: int) -> int | None:
    """The `{` of the outermost object literal the value at ``i`` is a property of, through nested objects."""
    if not code.punct(i - 1, ":") or _key(code, i - 1) is None:
        return None
    outer = code.parent[i]
    while code.punct(outer - 1, ":") and code.punct(code.parent[outer], "{") and _key(code, outer - 1) is not None:
        outer = code.parent[outer]
    return outer


def _string_table(code: Code, outer: int) -> bool:
    """Many properties, nearly all short literals: what a table of a user interface's strings is,
    and no module of prompts (whose values are few, or long)."""
    values = literals = short = 0
    for k in range(outer + 1, code.match.get(outer, outer)):
        if not code.punct(k, ":") or _key(code, k) is None or code.punct(k + 1, "{"):
            continue
        values += 1
        if code.literal(k + 1):
            literals += 1
            short += "\n" not in code.toks[k + 1].value.strip()
    return literals >= TABLE_SIZE and literals >= 0.9 * values and short >= 0.75 * literals


# ---------------------------------------------------------------- strings sent with the context


def _sent(code: Code):
    """Literals with a slot named as the retrieved context beside words of their own, not logged, thrown or tagged."""
    for i, token in enumerate(code.toks):
        if token.kind not in ("string", "template") or _tagged(code, i) or _to_people(code, i):
            continue
        # `${context}` reads as the slot `{context}` does.
        if is_prompt_text(token.value, words()):
            yield i


def _tagged(code: Code, i: int) -> bool:
    """A tagged template (`sql\\`...\\``, `html\\`...\\``): the tag decides what it is, not a model."""
    if code.kind(i) != "template":
        return False
    before = code.name(i - 1)
    return before is not None and before not in _VALUE_KEYWORDS and before not in DEDENT_TAGS or code.punct(i - 1, ")", "]")


def _to_people(code: Code, i: int) -> bool:
    """Whether a literal is logged, shown or thrown: an argument of console.log, a logger, a notice the
    interface shows people (`showToast`, the lexicon's `user-notice`), an Error, or `throw`n."""
    p = code.parent[i]
    while p >= 0:
        if code.punct(p, "("):
            at = _skip_generics(code, p - 1)
            callee = code.name(at) or ""
            # `toast.success(...)`: the object a method is called on may name the notice.
            receiver = (code.name(at - 2) or "") if code.punct(at - 1, ".", "?.") else ""
            if callee in OUTPUT_CALLS or callee.endswith("Error") or any(code.lexicon.mentions(n, "user-notice") for n in (callee, receiver) if n):
                return True
        if code.punct(p, "{") and _block_function(code, p) is not None:
            break
        p = code.parent[p]
    # `throw \`...\``: back over the statement's own tokens.
    for k in range(i - 1, max(i - 60, -1), -1):
        if code.punct(k, ";", "{", "}") and code.parent[k] <= code.parent[i]:
            return False
        if code.name(k) == "throw":
            return True
    return False


# ---------------------------------------------------------------- per-item wrappers


def _wrappers(code: Code, starts: list[int]):
    """Templates made once per item that render the item's fields: each one source's wrapper."""
    for i, token in enumerate(code.toks):
        if token.kind == "punct" and token.text == "(" and code.name(i - 1) in PER_ITEM and code.punct(i - 2, ".", "?."):
            callback = _callback(code, i + 1)
            if callback is None:
                continue
            params, body = callback
            collection = _receiver(code, i - 2)
            if code.name(i - 1) == "forEach":
                accumulated = _accumulated(code, body)
                made, into = [(k, _template_end(code, k)) for k in accumulated], _added_to(code, accumulated)
            else:
                into = _assigned_to(code, _receiver_start(code, i - 2))
                if code.punct(body, "{"):
                    made = [(k + 1, _statement_end(code, k + 1)) for k in range(body, code.match.get(body, body)) if code.name(k) == "return" and _function_block(code, k) == body]
                else:  # an arrow's expression, up to the call's closing parenthesis
                    made = [(body, min(_statement_end(code, body), code.match.get(i, len(code.toks)) - 1))]
            found = _wrapper(code, starts, _texts(code, made, body), params, collection, body, into + _joined_into(code, into))
        elif token.kind == "name" and token.text == "for" and code.punct(i + 1, "(") and code.name(i + 2) in ("const", "let", "var"):
            found = _for_of(code, starts, i)
        else:
            continue
        yield from found


def _for_of(code: Code, starts: list[int], i: int) -> list[PyTemplate]:
    """`for (const chunk of chunks) { parts.push(\\`...\\`) }`; `for (const [i, c] of chunks.entries())` numbers them."""
    close = code.match.get(i + 1)
    target = _param(code, i + 3)
    of = _skip_group(code, i + 3) + 1
    if close is None or target is None or code.name(of) != "of":
        return []
    collection = code.raw[code.toks[of + 1].start : code.toks[close - 1].end] if close > of + 1 else ""
    params = [target]
    if target[0] == "array" and len(target[1]) == 2 and collection.endswith(".entries()"):
        collection = collection[: -len(".entries()")]
        params = [("name", target[1][1]), ("name", target[1][0])]
    body = close + 1
    accumulated = _accumulated(code, body)
    made, into = [(k, _template_end(code, k)) for k in accumulated], _added_to(code, accumulated)
    return _wrapper(code, starts, _texts(code, made, body), params, _jinja_collection(collection), body, into + _joined_into(code, into))


def _skip_group(code: Code, j: int) -> int:
    return code.match.get(j, j) if code.punct(j, "[", "{", "(") else j


def _callback(code: Code, j: int) -> tuple[list, int] | None:
    """A callback's parameters and where its body starts: `(c, i) => ...`, `c => ...`, `function (c) {...}`."""
    if code.name(j) == "async":
        j += 1
    if code.name(j) == "function":
        j += 1 if code.punct(j + 1, "(") else 2
        close = code.match.get(j)
        if not code.punct(j, "(") or close is None:
            return None
        body = close + 1
        while body < len(code.toks) and not code.punct(body, "{"):
            body += 1  # over a return type annotation
        return _params(code, j), body
    if code.punct(j, "(") and j in code.match:
        arrow = code.match[j] + 1
        while arrow < len(code.toks) and code.parent[arrow] == code.parent[j] and not code.punct(arrow, "=>", ",", ")"):
            arrow += 1  # over a return type annotation
        return (_params(code, j), arrow + 1) if code.punct(arrow, "=>") else None
    if code.name(j) is not None and code.punct(j + 1, "=>"):
        return [("name", code.text(j))], j + 2
    return None


def _params(code: Code, paren: int) -> list:
    return [p for p in (_param(code, k) for k in _items(code, paren)) if p is not None]


def _param(code: Code, j: int):
    """One parameter or loop variable: ("name", x), ("object", ((local, key), ...)) or ("array", (a, b, ...))."""
    if code.name(j) is not None:
        return "name", code.text(j)
    if code.punct(j, "{") and j in code.match:
        pairs = []
        for k in _items(code, j):
            if code.name(k) is None:
                continue
            renamed = code.punct(k + 1, ":") and code.name(k + 2) is not None
            pairs.append((code.text(k + 2) if renamed else code.text(k), code.text(k)))
        return "object", tuple(pairs)
    if code.punct(j, "[") and j in code.match:
        return "array", tuple(code.text(k) for k in _items(code, j) if code.name(k) is not None)
    return None


def _receiver(code: Code, dot: int) -> str:
    """What `.map(...)` is called on, as a Jinja expression: `chunks`, `results.documents`; "items" when unclear."""
    j = _receiver_start(code, dot)
    return _jinja_collection(code.raw[code.toks[j].start : code.toks[dot - 1].end]) if j >= 0 else "items"


def _receiver_start(code: Code, dot: int) -> int:
    """The first token of what `.map(...)` is called on; -1 when unclear."""
    j = dot - 1
    while j >= 0:
        if code.punct(j, "]") and j in code.match and j == dot - 1 and not (code.name(code.match[j] - 1) or code.punct(code.match[j] - 1, ")", "]")):
            return code.match[j]  # an array written out, `[...relevant, ...marginal].map(...)`
        if code.punct(j, ")", "]") and j in code.match:
            j = code.match[j] - 1
        elif code.name(j) is not None and code.punct(j - 1, ".", "?."):
            j -= 2
        elif code.name(j) is not None:
            return j
        else:
            return -1
    return -1


# Tokens back from a value to the name a declaration gives it: `const context: string = ...`.
DECLARATION_REACH = 5


def _assigned_to(code: Code, j: int) -> tuple[str, ...]:
    """The name the expression starting at token ``j`` is assigned or added to: `const context = ...`,
    `context += ...`; () when it is not."""
    if code.punct(j - 1, "+=", "=") and code.name(j - 2) and not code.punct(j - 3, ".", "?."):
        declared = next((k for k in range(j - 3, max(j - 3 - DECLARATION_REACH, -1), -1) if code.name(k) in ("const", "let", "var")), None)
        return (code.text(declared + 1) if declared is not None and code.name(declared + 1) else code.text(j - 2),)
    return ()


def _joined_into(code: Code, names: tuple[str, ...]) -> tuple[str, ...]:
    """The names assigned one of ``names`` joined (`const context = parts.join("\\n\\n")`): one step, as in Python."""
    if not names:
        return ()
    found = [n for k in range(len(code.toks)) if code.name(k) in names and code.punct(k + 1, ".") and code.name(k + 2) == "join" for n in _assigned_to(code, k)]
    return tuple(dict.fromkeys(n for n in found if n not in names))


def _added_to(code: Code, found: list[int]) -> tuple[str, ...]:
    """The names a loop body adds its texts to (see _accumulated): `out += \\`...\\``, `parts.push(\\`...\\`)`."""
    names = [code.text(k - 2) if code.punct(k - 1, "+=") else code.text(k - 4) for k in found if code.punct(k - 1, "+=") or code.punct(k - 1, "(")]
    return tuple(dict.fromkeys(n for n in names if n))


def _jinja_collection(text: str) -> str:
    node = python_of(text)
    python = ast.unparse(spread_sum(node)) if node is not None else ""
    return python if python and jinja_expression(python) else "items"


def _accumulated(code: Code, body: int) -> list[int]:
    """The templates a loop body adds to a text: `parts.push(\\`...\\`)`, `out += \\`...\\``, directly or through a name."""
    if body + 1 >= len(code.toks):
        return []  # the file ends where the body would start: the grammar read on past an error
    end = code.match.get(body, body) if code.punct(body, "{") else _statement_end(code, body)
    owner = _function_block(code, body + 1 if code.punct(body, "{") else body)
    named: dict[str, int] = {}
    found = []
    for k in range(body, end + 1):
        if _function_block(code, k) != owner:
            continue  # in a function defined in the body: its own
        if code.literal(k) and code.punct(k - 1, "=") and code.name(k - 2) and code.name(k - 3) in ("const", "let", "var"):
            named[code.text(k - 2)] = k
        if code.literal(k) or code.name(k) in named:
            added = code.punct(k - 1, "+=") or code.punct(k - 1, "(") and code.name(k - 2) in ADDING and code.punct(k - 3, ".", "?.")
            if added:
                found.append(k if code.literal(k) else named[code.text(k)])
    return found


def _statement_end(code: Code, j: int) -> int:
    """The last token of the statement starting at ``j``: before a `;`, or where a new line starts a new statement."""
    k = j
    while k + 1 < len(code.toks):
        nxt = k + 1
        if code.parent[nxt] < code.parent[j] or code.punct(nxt, ";") and code.parent[nxt] == code.parent[j]:
            return k
        if code.parent[nxt] == code.parent[j] and _new_line(code, k, nxt) and code.name(nxt) in ("const", "let", "var", "return", "if", "for", "while", "function"):
            return k
        k = nxt
    return k


def _new_line(code: Code, a: int, b: int) -> bool:
    return "\n" in code.raw[code.toks[a].end : code.toks[b].start]


def _wrapper(code: Code, starts: list[int], texts: list[tuple[int, str]], params: list, collection: str, body: int, into: tuple[str, ...] = ()) -> list[PyTemplate]:
    """The per-item texts that render a field of the item (the first parameter): (the literal a text starts at, the
    text); ``into``: the names their text is bound to (see Loop.into)."""
    if not params:
        return []
    aliases: dict[str, tuple[str, tuple[str, ...]]] = {}
    kind, item = params[0]
    if kind == "name":
        target = item
    else:
        target = ITEM
        aliases = {local: (ITEM, (key,)) for local, key in item} if kind == "object" else {name: (ITEM, (name,)) for name in item}
    index = params[1][1] if len(params) > 1 and params[1][0] == "name" else None
    _local_aliases(code, body, target, index, aliases)
    loop = Loop(target, collection, index, tuple((alias, *ref) for alias, ref in aliases.items()), language="javascript", into=into)
    found = []
    for k, text in dict(texts).items():
        token = code.toks[k]
        if token.kind == "template" and _tagged(code, k) or token.kind != "template" and text == token.value:
            continue  # a tagged template; a plain string, no text built around it
        keys = _item_keys(text, loop, aliases)
        template = _template(code, starts, k, replace(loop, keys=keys), None if text == token.value else text) if keys is not None else None
        if template is not None:
            found.append(template)
    return found


def _item_keys(text: str, loop: Loop, aliases) -> tuple[str, ...] | None:
    """The keys of the item a per-item text's fields read, in order; None when no field reads the item."""
    refs = [ref for _, _, expression in fields(text) or () if (ref := _reference(expression, aliases)) is not None]
    if loop.target not in (root for root, _ in refs):
        return None
    return tuple(dict.fromkeys(path[-1] for root, path in refs if root == loop.target and path))


def _reference(expression: str, aliases) -> tuple[str, tuple[str, ...]] | None:
    node = python_of(expression)
    return reference(node, aliases) if node is not None else None


def _local_aliases(code: Code, body: int, target: str, index: str | None, aliases: dict) -> None:
    """Names a loop body binds from the item: `const date = c.metadata.date`, `const { title } = c`,
    or from a list read at the loop's counter (`const score = scores[i]`), which holds one value per item."""
    for bound, (first, last) in _declarations(code, body):
        value = code.raw[code.toks[first].start : code.toks[last].end] if last >= first else ""
        ref = _reference(value, aliases)
        if bound[0] == "name":
            if ref is not None and ref[0] == target and ref[1]:
                aliases[bound[1]] = ref
            elif _reads_the_item(code, first, last + 1, target, aliases) or _at_the_counter(code, first, last + 1, index):
                # Computed from the item (`const summary = c.highlights.map(...).join(" ")`): a field of it, named by its variable.
                aliases[bound[1]] = (target, (bound[1],))
        elif bound[0] == "object" and ref is not None and ref[0] == target:
            for local, key in bound[1]:
                aliases[local] = (target, ref[1] + (key,))


def _declarations(code: Code, body: int):
    """Each `const x = ...` (or let, var) at the top of a block body: what it binds (see _param) and its value's first and last token."""
    if not code.punct(body, "{"):
        return
    for k in range(body + 1, code.match.get(body, body)):
        if code.parent[k] != body or code.name(k) not in ("const", "let", "var") or not code.punct(_skip_group(code, k + 1) + 1, "="):
            continue
        equals = _skip_group(code, k + 1) + 1
        bound = _param(code, k + 1)
        if bound is not None:
            yield bound, (equals + 1, _statement_end(code, equals + 1))


def _reads_the_item(code: Code, start: int, end: int, target: str, aliases: dict) -> bool:
    """Whether the tokens from ``start`` to ``end`` use the loop's item, or a name bound from it, as a value (not as a property's name)."""
    names = (target, *[a for a, r in aliases.items() if r[0] == target])
    return any(code.name(m) in names and not code.punct(m - 1, ".", "?.") for m in range(start, end))


def _at_the_counter(code: Code, start: int, end: int, index: str | None) -> bool:
    """Whether the tokens from ``start`` to ``end`` read a list at the loop's counter (`context.scores[i]`)."""
    return index is not None and any(code.name(m) == index and code.punct(m - 1, "[") and code.punct(m + 1, "]") for m in range(start, end))


# ---------------------------------------------------------------- a text built from pieces


def _texts(code: Code, made: list[tuple[int, int]], body: int) -> list[tuple[int, str]]:
    """The texts a loop body makes, each from the tokens ``first..last`` of an expression: (the literal it starts at, its text)."""
    held = {bound[1]: value for bound, value in _declarations(code, body) if bound[0] == "name"}
    found = []
    for first, last in made:
        built = _pieces(code, first, last, held, 0)
        if built is not None:
            found.append(built)
        else:  # not one text: the literals it holds (`flatMap(c => [\`...\`, \`...\`])`), each one
            found.extend((k, _filled(code, code.toks[k].value, held, 0)) for k in _value(code, first))
    return found


def _template_end(code: Code, k: int) -> int:
    """The last token of the template literal at ``k``: its fields' tokens follow its own."""
    last = k
    while last + 1 < len(code.toks) and code.toks[last + 1].start < code.toks[k].end:
        last += 1
    return last


def _pieces(code: Code, a: int, b: int, held: dict[str, tuple[int, int]], depth: int) -> tuple[int, str] | None:
    """The text the expression in tokens ``a..b`` builds, with the literal it starts at, as a template's text
    (`${...}` fields); None when it builds no text of its own (a value, a call).

    Read are template literals (a field naming a local that holds text takes its text), strings,
    a conditional's shown branch (`x ? a : b`, `x && a`), a value's default (`a ?? b`, `a || b`),
    a sum with a string, and an array of pieces joined (`[...].filter(Boolean).join("\n")`):
    its elements in order, a spread conditional array (`...(x ? [a] : [])`) included, as
    lines joined with the separator; `filter` drops nothing for reading. ``held``: the locals
    the body binds (name: the tokens of its value), followed MAX_PIECES deep.
    """
    if depth > MAX_PIECES or a > b:
        return None
    while code.punct(a, "(") and code.match.get(a) == b:
        a, b = a + 1, b - 1
    top = _top_level(code, a, b)
    if (branch := _shown_branch(code, a, b, top)) is not None:
        return next((made for x, y in branch if (made := _pieces(code, x, y, held, depth + 1)) is not None), None)
    if len(top) > 1 and any(code.punct(k, "+") for k in top):
        return _sum(code, a, b, top, held, depth)
    if code.punct(a, "[") and a in code.match or code.name(a) in held and a < b and code.punct(held[code.text(a)][0], "["):
        return _joined(code, a, b, held, depth)
    return _piece(code, a, b, held, depth)


def _piece(code: Code, a: int, b: int, held: dict, depth: int) -> tuple[int, str] | None:
    """One literal, or a local that holds text: its text."""
    if code.kind(a) == "template" and _template_end(code, a) == b:
        return a, _filled(code, code.toks[a].value, held, depth)
    if code.kind(a) == "string" and a == b:
        return a, _as_template(code.toks[a].value)
    if code.name(a) in held and a == b:
        return _pieces(code, *held[code.text(a)], held, depth + 1)
    return None


def _top_level(code: Code, a: int, b: int) -> list[int]:
    """The tokens of ``a..b`` outside its brackets and its templates' fields."""
    top, k = [], a
    while k <= b:
        top.append(k)
        k = (code.match.get(k, k) if code.punct(k, *_OPENERS) else _template_end(code, k) if code.kind(k) == "template" else k) + 1
    return top


def _shown_branch(code: Code, a: int, b: int, top: list[int]) -> list[tuple[int, int]] | None:
    """The branches a conditional or a default may show, in the order they are read; None when it is neither."""
    question = next((k for k in top if code.punct(k, "?")), None)
    colon = next((k for k in top if question is not None and k > question and code.punct(k, ":")), None)
    if question is not None and colon is not None:
        return [(question + 1, colon - 1), (colon + 1, b)]
    ands = [k for k in top if code.punct(k, "&&")]
    if ands:
        return [(ands[-1] + 1, b)]
    # A value with a default (`doc.name || \`Document ${i}\``) shows the value whenever there is one:
    # the default's text is not what the local holds.
    default = next((k for k in top if code.punct(k, "??", "||")), None)
    return [(a, default - 1)] if default is not None else None


def _sum(code: Code, a: int, b: int, top: list[int], held: dict, depth: int) -> tuple[int, str] | None:
    """`"Date: " + doc.date + "\n"`: a string's pieces in order, any other term a field."""
    plus = [k for k in top if code.punct(k, "+")]
    terms = list(zip([a, *(k + 1 for k in plus)], [*(k - 1 for k in plus), b]))
    made = [_pieces(code, x, y, held, depth + 1) for x, y in terms]
    if not any(made):
        return None
    first = next(piece[0] for piece in made if piece)
    return first, "".join(piece[1] if piece else _field(code, x, y) for piece, (x, y) in zip(made, terms))


def _joined(code: Code, a: int, b: int, held: dict, depth: int) -> tuple[int, str] | None:
    """`[a, b, c].filter(Boolean).join(sep)`, or `lines.join(sep)` with `lines` holding the array: the elements' texts joined by the separator."""
    array, k = (a, code.match[a] + 1) if code.punct(a, "[") else (held[code.text(a)][0], a + 1)
    if code.match.get(array) != (held[code.text(a)][1] if array != a else k - 1):
        return None  # a name holding more than the array (`lines = [...].concat(...)`)
    while code.punct(k, ".", "?.") and code.name(k + 1) == "filter" and code.punct(k + 2, "(") and k + 2 in code.match:
        k = code.match[k + 2] + 1
    if not (code.punct(k, ".", "?.") and code.name(k + 1) == "join" and code.punct(k + 2, "(") and code.match.get(k + 2) == b):
        return None
    if b == k + 3:
        separator = ","
    elif code.kind(k + 3) == "string" and b == k + 4:
        separator = code.toks[k + 3].value
    else:
        return None
    made = [piece for x, y in _elements(code, array) if (piece := _element(code, x, y, held, depth)) is not None]
    return (made[0][0], _as_template(separator).join(text for _, text in made)) if made else None


def _elements(code: Code, opener: int) -> list[tuple[int, int]]:
    """The first and last token of each element of an array literal; a spread array's elements in its place."""
    starts = _items(code, opener)
    close = code.match[opener]
    found = []
    for x, after in zip(starts, [*starts[1:], close + 1]):
        y = after - 2 if after <= close else close - 1  # before the comma, or the closing bracket
        y -= code.punct(y, ",")  # a trailing comma
        if x > y or code.punct(x, ","):
            continue
        if code.punct(x, "..."):
            spread = _spread_array(code, x + 1, y)
            found.extend(_elements(code, spread) if spread is not None else [])
        else:
            found.append((x, y))
    return found


def _spread_array(code: Code, a: int, b: int) -> int | None:
    """The array literal a spread shows: `...[x]`, `...(x ? [a] : [])`; None for any other value."""
    while code.punct(a, "(") and code.match.get(a) == b:
        a, b = a + 1, b - 1
    if code.punct(a, "[") and code.match.get(a) == b:
        return a
    branch = _shown_branch(code, a, b, _top_level(code, a, b))
    return _spread_array(code, *branch[0]) if branch else None


def _element(code: Code, a: int, b: int, held: dict, depth: int) -> tuple[int, str] | None:
    """One element of an array of pieces: its text, or a field when it is a value; None for null and the like."""
    if a == b and code.name(a) in ("null", "undefined", "false"):
        return None
    return _pieces(code, a, b, held, depth + 1) or (a, _field(code, a, b))


def _field(code: Code, a: int, b: int) -> str:
    return "${" + code.raw[code.toks[a].start : code.toks[b].end] + "}"


def _filled(code: Code, text: str, held: dict, depth: int) -> str:
    """A template's text with each field that names a local holding text replaced by that text."""
    out, at = [], 0
    for start, end, expression in fields(text) or ():
        name = expression.strip()
        made = _pieces(code, *held[name], held, depth + 1) if name in held else None
        if made is not None and fields(made[1]):  # a local holding text made of values; a plain string stays its field
            out.append(text[at:start] + made[1])
            at = end
    return "".join(out) + text[at:]


def _as_template(value: str) -> str:
    """A string's value as a template's text: the characters a field would start with escaped."""
    return value.replace("\\", "\\\\").replace("${", "\\${")


# ---------------------------------------------------------------- a field's expression, read as Python


_PYTHON_NAMES = {"null": "None", "undefined": "None", "true": "True", "false": "False", "Number": "float", "String": "str", "parseFloat": "float", "parseInt": "int", "Boolean": "bool"}
# `Math.round(x)`, `JSON.stringify(x)`: a function of the value that keeps it, as pybuild.reference reads it.
_PYTHON_FUNCTIONS = {("Math", "round"): "round", ("Math", "abs"): "abs", ("Math", "floor"): "int", ("Math", "ceil"): "int", ("Math", "trunc"): "int", ("JSON", "stringify"): "str"}
_DROPPED = frozenset({"new", "await", "typeof", "void"})
_OPERATORS = {"&&": " and ", "===": "==", "!==": "!="}


@lru_cache(maxsize=4096)
def python_of(expression: str) -> ast.AST | None:
    """A JavaScript expression as the Python one that reads the same value, for pybuild.reference;
    None when it has no such reading (an arrow function, a regular expression)."""
    try:
        toks = tokens(expression)
        text = _python_text(toks, 0, len(toks))
        return ast.parse(text.strip() or "None", mode="eval").body if text is not None else None
    except (JsSyntaxError, SyntaxError, RecursionError, MemoryError):
        return None  # a field too deeply nested to read is read as no field


def _python_text(toks: list[Token], a: int, b: int) -> str | None:
    """The expression in ``toks[a:b]`` written as Python; None when a part of it has no Python."""
    if (conditional := _conditional(toks, a, b)) is not None:
        # `x.date ? x.date : ""` prints its first branch, as pybuild reads an IfExp.
        question, colon = conditional
        parts = [_python_text(toks, x, y) for x, y in ((question + 1, colon), (a, question), (colon + 1, b))]
        return None if None in parts else f"({parts[0]}) if ({parts[1]}) else ({parts[2]})"
    if (default := _default(toks, a, b)) is not None:
        # `c.date ?? ""` and `c.date || "n/a"` print the value, as `.get("date", "")` does.
        return _python_text(toks, a, default)
    return _python_words(toks, a, b)


def _top_level_punctuation(toks: list[Token], a: int, b: int) -> Iterator[tuple[int, str]]:
    """Each punctuation token of ``toks[a:b]`` outside brackets, with its index."""
    depth = 0
    for k in range(a, b):
        text = toks[k].text if toks[k].kind == "punct" else ""
        depth += text in ("(", "[", "{", "${") and 1 or 0
        depth -= text in (")", "]", "}") and 1 or 0
        if depth == 0 and text:
            yield k, text


def _conditional(toks: list[Token], a: int, b: int) -> tuple[int, int] | None:
    """Where the `?` and the `:` of a conditional at the top of ``toks[a:b]`` are, if it is one."""
    question = None
    for k, text in _top_level_punctuation(toks, a, b):
        if text == "?" and question is None:
            question = k
        elif text == ":" and question is not None:
            return question, k
    return None


def _default(toks: list[Token], a: int, b: int) -> int | None:
    """Where the `??` or `||` that gives a value its default is, at the top of ``toks[a:b]``."""
    return next((k for k, text in _top_level_punctuation(toks, a, b) if text in ("??", "||")), None)


def _python_words(toks: list[Token], a: int, b: int) -> str | None:
    """The tokens of ``toks[a:b]`` written one by one as Python; None when one has no Python."""
    out: list[str] = []
    k = a
    while k < b:
        token = toks[k]
        if token.kind == "template":
            out.append(_template_python(token))
            k += 1
            while k < b and toks[k].start < token.end:
                k += 1  # its fields' tokens
            continue
        if token.kind == "punct" and token.text == "..." and k > a and toks[k - 1].text in ("[", ",", "("):
            out.append("*")  # a spread, `[...a, ...b]`, as Python's `[*a, *b]`
            k += 1
            continue
        if token.kind == "regex" or token.kind == "punct" and token.text in ("=>", "...", "${"):
            return None
        if token.kind == "name" and k + 2 < b and (token.text, toks[k + 2].text) in _PYTHON_FUNCTIONS and toks[k + 1].text == ".":
            out.append(_PYTHON_FUNCTIONS[(token.text, toks[k + 2].text)])
            k += 3
            continue
        if (word := _python_word(toks, k, a, b)) is not None:
            out.append(word)
        k += 1
    return " ".join(out)


def _template_python(token: Token) -> str:
    """A nested template literal as the Python of its first field, which is what it prints of a value."""
    inner = fields(token.value) or []
    first = python_of(inner[0][2]) if inner else None
    return "(" + ast.unparse(first) + ")" if first is not None else '""'


def _python_word(toks: list[Token], k: int, a: int, b: int) -> str | None:
    """What the token ``toks[k]`` is in Python; None when Python leaves it out (`await`, `typeof`)."""
    token = toks[k]
    if token.kind == "string":
        return repr(token.value)
    if token.kind == "name":
        return _PYTHON_NAMES.get(token.text, token.text) if token.text not in _DROPPED else None
    if token.kind == "number":
        return token.text.rstrip("n")
    # What is left is punctuation: templates and regular expressions are read by the caller.
    if token.text == "?.":
        return "" if k + 1 < b and toks[k + 1].text in ("[", "(") else "."
    if token.text == "!":
        # After a value it is TypeScript's non-null assertion (`x.meta!.date`); before one, a negation.
        after_value = k > a and (toks[k - 1].kind in ("name", "number", "string") or toks[k - 1].text in (")", "]"))
        return "" if after_value else " not "
    return _OPERATORS.get(token.text, token.text)


# ---------------------------------------------------------------- reading a wrapper again, writing a fix


def segment_wrapper(text: str, loop: Loop, names: SlotNames = (), lexicon: Lexicon | None = None) -> Prompt:
    """The model of a per-item template literal: the body of a sources loop (see pybuild.segment_fields)."""
    found = [(start, end, field_jinja(python_of(expression), loop)) for start, end, expression in fields(text) or []]
    return segment_fields(text, loop, found, names, lexicon)


def still_parses(text: str, loop: Loop) -> bool:
    """A fixed wrapper must still split into whole fields."""
    return fields(text) is not None


def rewrite(raw: str, offsets: tuple[int, ...], old: str, new: str, lexicon: Lexicon | None = None) -> str | None:
    """The file with a literal's text changed from ``old`` to ``new``, written where the changed
    characters are, escaped; None when the file would not read back with ``new`` as a prompt."""
    result = rewrite_through(raw, offsets, old, new, _escape, _encoded_end)
    try:
        read_back = templates_in(result, lexicon, jsx=True)
    except JsSyntaxError:
        return None
    return result if any(t.text == new for t in read_back) else None


def _escape(text: str) -> str:
    """Text as it is written inside any string or template literal, whatever its quotes."""
    for char, escape in (("\\", "\\\\"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"), ('"', '\\"'), ("'", "\\'"), ("`", "\\`"), ("${", "\\${")):
        text = text.replace(char, escape)
    return text


def _encoded_end(raw: str, offset: int) -> int:
    """Where the character written at ``offset`` ends: after its escape, or after itself."""
    return _ESCAPE.match(raw, offset).end() if raw[offset] == "\\" else offset + 1
