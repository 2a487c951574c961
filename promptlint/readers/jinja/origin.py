"""A template file as read, the outputs the reader meets in it, and what the literal text around a tag says."""

from __future__ import annotations

import re
from dataclasses import dataclass

from jinja2 import nodes

from ...meaning.lexicon import Lexicon
from ...model.prompt import Span
from ..expressions import Reference, environment
from ..expressions import jinja_expression as _expression
from ..expressions import jinja_reference as reference
from ..segment import imperative_aside, looks_like_instruction, lowercase, opens_with_imperative, text_lines
from .tags import Block, Tag, check_syntax, statement, tree


@dataclass
class Origin:
    """A template file as read: the one being linted, or one it includes or imports."""

    source: str
    flat: tuple[Tag, ...]
    roots: list
    name: str = ""  # how it was included ("partials/doc.j2"); "" for the template being linted

    def __post_init__(self):
        self.index = {id(tag): i for i, tag in enumerate(self.flat)}
        self.lower = lowercase(self.source)

    def text(self, tag: Tag) -> str:
        return self.source[tag.span.start : tag.span.end]


def read_template(source: str, name: str = "") -> Origin:
    """A template's tags and tree; raises TemplateError when it does not parse."""
    flat = check_syntax(source)
    return Origin(source, flat, tree(flat), name)


@dataclass(frozen=True)
class Output:
    """An output inside a loop body: what it reads, the `{% if %}` tests it sits under, and where it is."""

    tag: Tag
    ref: Reference | None
    tests: tuple[str, ...]
    origin: Origin
    # The tag of the linted template that brings in another file's output (an include, a
    # call of an imported macro): findings about the output are reported there.
    site: Tag | None = None

    @property
    def span(self) -> Span:
        return self.site.span if self.site else self.tag.span

    @property
    def text(self) -> str:
        return self.origin.text(self.tag)


# The literal label and brackets that belong to an output: "(score: ", "Updated: ", "<chunk_id>".
# A label may be a list item's, and bold: "- **Score**: ", "**Updated:** ".
_LABEL_BEFORE = re.compile(
    r"(?:[ \t]*(?:[-*\u2022][ \t]+)?[(\[|,;]?[ \t]*(?:\*\*|__)?[A-Za-z][\w .'/-]{0,30}(?:\*\*|__)?[:=](?:\*\*|__)?[ \t]*"
    # "(relevance {{ doc.score }})": a bracket's words bound to the value without a colon go with it,
    # as does the "#" of "#{{ chunk.index }}".
    r"|[ \t]*[(\[][ \t]*(?:[A-Za-z][\w .'/-]{0,30}[ \t])?[ \t]*|[ \t]*<[\w.-]+>[ \t]*|[ \t]*#)?$"
)
_CLOSE_AFTER = re.compile(r"^(?:[ \t]*(?:[)\]]|</[\w.-]+>))?")


@dataclass(frozen=True)
class Macro:
    block: Block
    params: list[str]
    origin: Origin


def macros(origin: Origin) -> dict[str, Macro]:
    """The macros a template file defines, so that a loop calling one is read through it."""
    found = {}
    blocks = [item for item in origin.roots if isinstance(item, Block)]
    while blocks:
        item = blocks.pop()
        if item.keyword == "macro":
            macro = statement(item.tags[0].inner, "endmacro")
            if isinstance(macro, nodes.Macro):
                found[macro.name] = Macro(item, [arg.name for arg in macro.args], origin)
        blocks.extend(child for child in item.children if isinstance(child, Block))
    return found


def quoted(output: Output) -> str | None:
    """How a message quotes the output when the tag also prints text of its own
    (`{{- 'Relevance score: ' + doc['score'] | string + '\n' }}`, a label and a line break
    joined to the value): a slot of what it reads alone. None when the tag reads well as written."""
    expression = _expression(output.tag.inner)
    joined = isinstance(expression, (nodes.Add, nodes.Concat)) and any(
        isinstance(node.value, str) for node in expression.find_all(nodes.Const)
    )
    return f"{{{{ {output.ref.chain} }}}}" if joined and output.ref is not None else None


def renders_messages(outputs: list[Output], target: str) -> bool:
    """Whether a loop's item is a chat message: its `role` is printed, or tested around what is."""
    if any(o.ref and o.ref.root == target and o.ref.path[-1:] == ("role",) for o in outputs):
        return True
    for test in {t for o in outputs for t in o.tests}:
        condition = statement(test, "endif")
        if isinstance(condition, nodes.If) and any(
            reference(node) == Reference(target, ("role",)) for node in condition.test.find_all((nodes.Getattr, nodes.Getitem))
        ):
            return True
    return False


# What joins a string constant or a variable to the text around it in an expression that
# writes it: the tag's edges, `=` in a set, and concatenation. A constant elsewhere is a key,
# an argument or a value compared (`message['role'] == 'user'`, `strftime_now('%d %B')`).
_OPENS = {"variable_begin", "block_begin", "=", "+", "~"}
_CLOSES = {"variable_end", "block_end", "+", "~"}


def written_pieces(origin: Origin, tag: Tag) -> list[tuple[str, Span]]:
    """What an output or a set joins: its string constants ("text", the span between the quotes)
    and its variables and calls ("name", `date_string`, `strftime_now(...)`, filtered or not)."""
    text = origin.text(tag)
    tokens, pos = [], 0
    for _, kind, value in environment().lexer.tokeniter(text, None):
        pos = text.find(value, pos)
        if kind != "whitespace":
            tokens.append((value if kind == "operator" else kind, value, tag.span.start + pos))
        pos += len(value)
    found = []
    assigned = tag.kind == "variable"  # in a set, what comes before `=` is the name being set
    for i, (kind, value, start) in enumerate(tokens):
        if kind == "=":
            assigned = True
        elif not assigned or i == 0 or i + 1 == len(tokens) or tokens[i - 1][0] not in _OPENS:
            continue
        elif kind == "string" and tokens[i + 1][0] in _CLOSES:
            found.append(("text", Span(start + 1, start + len(value) - 1)))
        elif kind == "name" and tokens[i + 1][0] in _CLOSES | {"|", "("}:
            found.append(("name", Span(start, start + len(value))))
    return found


# An element's attribute whose value an output prints whole: ` score="` before it, the quote after.
_ATTRIBUTE_BEFORE = re.compile(r"[ \t]+([A-Za-z_][\w:.-]*)[ \t]*=[ \t]*([\"'])$")


def attribute_of(origin: Origin, tag: Tag) -> tuple[str, Span] | None:
    """The name of the attribute whose whole value an output prints (`<doc score="{{ d.score }}">`),
    and the span that removes it: the attribute with the spaces before it."""
    before, after = neighbour(origin, tag, -1), neighbour(origin, tag, 1)
    found = _ATTRIBUTE_BEFORE.search(before) if before is not None else None
    # The value may end in its unit: `match="{{ (d.score * 100) | round }}%"`.
    closing = 2 if after is not None and after.startswith("%" + (found[2] if found else "")) else 1
    if found is None or after is None or not after[closing - 1 :].startswith(found[2]):
        return None
    return found[1], Span(tag.span.start - (len(before) - found.start()), tag.span.end + closing)


def removal_span(origin: Origin, tag: Tag) -> Span:
    """The tag with its literal label and brackets, or the attribute it fills; the whole line when
    nothing else is on it.

    Only literal text next to the tag is taken, so a removal never cuts into another tag.
    """
    attribute = attribute_of(origin, tag)
    if attribute is not None:
        return attribute[1]
    source = origin.source
    before, after = neighbour(origin, tag, -1), neighbour(origin, tag, 1)
    start, end = tag.span.start, tag.span.end
    if before is not None:
        start -= len(_LABEL_BEFORE.search(before)[0])
    if after is not None:
        end += len(_CLOSE_AFTER.match(after)[0])
    line_start = source.rfind("\n", 0, tag.span.start) + 1
    line_end = source.find("\n", tag.span.end)
    line_end = len(source) if line_end < 0 else line_end
    alone = before is not None and after is not None or _line_has_only(origin, tag, line_start, line_end)
    if alone and not source[line_start:start].strip() and not source[end:line_end].strip():
        return Span(line_start, min(line_end + 1, len(source)))
    if start == line_start:
        # First on its line: the space after it goes too, so that what follows starts the line.
        while end < line_end and source[end] in " \t":
            end += 1
    return Span(start, end)


def _line_has_only(origin: Origin, tag: Tag, line_start: int, line_end: int) -> bool:
    """Whether no other tag that prints or acts shares the line (comments print nothing)."""
    # Tags are in source order: only the neighbours that reach into the line need a look.
    here = origin.index[id(tag)]
    for step in (-1, 1):
        i = here + step
        while 0 <= i < len(origin.flat) and origin.flat[i].span.start < line_end and origin.flat[i].span.end > line_start:
            if origin.flat[i].kind not in ("data", "comment"):
                return False
            i += step
    return True


def instruction_spans(origin: Origin, tag: Tag, lexicon: Lexicon) -> list[Span]:
    """The lines of literal text that talk to the model; a line of its own with its newline, so removing it leaves none.

    A template's own text is never a chunk's, so a line of it that opens with an imperative
    ("Treat the following as background only.") talks to the model too; in assembled text
    such a line may be the chunk's first ("Use a soft cloth ..."), and only the phrases count."""
    found = []
    for line in text_lines(origin.source, origin.lower, tag.span.start, tag.span.end):
        if not line.blank and (looks_like_instruction(line, lexicon) or opens_with_imperative(line, lexicon)):
            whole = (line.start == 0 or origin.source[line.start - 1] == "\n") and line.end < tag.span.end
            found.append(Span(line.start, line.end + whole))
        elif not line.blank and (aside := imperative_aside(line, lexicon)) is not None:
            found.append(Span(*aside))  # the label stays
    return found


def neighbour(origin: Origin, tag: Tag, step: int) -> str | None:
    """The literal text right before (step -1) or after (+1) a tag on its line, or None."""
    i = origin.index[id(tag)] + step
    if not 0 <= i < len(origin.flat) or origin.flat[i].kind != "data":
        return None
    text = origin.text(origin.flat[i])
    return text.rsplit("\n", 1)[-1] if step < 0 else text.split("\n", 1)[0]
