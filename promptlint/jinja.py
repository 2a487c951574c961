"""The Jinja front-end: read a prompt template into the same prompt model as the text front-end.

The template is parsed, never rendered. Jinja's lexer gives the tags in order
and its parser gives what each expression means; positions are computed here,
because the lexer's token values drop the whitespace that `{%-`/`-%}` strip and
the final newline. Every slice is checked to join back into the exact source.

The model's text is the template source itself: a sources loop becomes one
repeated source (its body is the wrapper, `{{ doc.content }}` its content, the
other outputs of the loop variable its fields), `{{ question }}` outputs are
the question, and the literal text between tags is the static part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

import jinja2
from jinja2 import nodes

from .model import Field, Part, PartKind, Prompt, Source, Span
from .segment import looks_like_instruction, lowercase, merge_parts, role_messages, slot_kind, text_lines, words
from .vocabulary import normalise_label

# What the loop variable's attribute must be called for the loop to be the sources loop.
CONTENT_KEYS = frozenset({"content", "text", "page content", "body", "chunk", "passage", "snippet", "document content", "chunk text"})
# How deep macro calls are followed (a macro may call another).
MAX_MACRO_DEPTH = 5
# Attribute names that say nothing about what they hold.
GENERIC_KEYS = frozenset({"value", "val", "v", "data", "item", "meta", "metadata", "field", "x"})
# Words in an `{% if %}` test that make a date shown under it conditional on staleness.
STALENESS_WORDS = re.compile(r"stale|outdated|too old|is_old|age_days|older")
PAIRS = {
    "for": "endfor",
    "if": "endif",
    "macro": "endmacro",
    "call": "endcall",
    "filter": "endfilter",
    "block": "endblock",
    "with": "endwith",
    "autoescape": "endautoescape",
    "trans": "endtrans",
    "set": "endset",
}
BRANCHES = {"elif", "else", "pluralize"}


class TemplateError(Exception):
    def __init__(self, message: str, line: int, column: int = 1):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


@cache
def environment() -> jinja2.Environment:
    # Only for parsing: nothing is ever rendered, so no loader and no sandbox are needed.
    return jinja2.Environment(extensions=["jinja2.ext.i18n", "jinja2.ext.loopcontrols", "jinja2.ext.do"])


@dataclass
class Tag:
    kind: str  # "data", "variable", "block", "comment"
    span: Span
    keyword: str = ""  # the first name in a block tag: "for", "endif", ...
    inner: str = ""  # the text between the delimiters


@dataclass
class Block:
    """A block statement and its branches: `{% if %}` ... `{% else %}` ... `{% endif %}`."""

    keyword: str
    tags: list[Tag]  # the opening tag, each branch tag, the closing tag
    node: nodes.Node | None = None
    children: list = field(default_factory=list)  # Tag | Block, in source order

    @property
    def span(self) -> Span:
        return Span(self.tags[0].span.start, self.tags[-1].span.end)

    def branch_spans(self) -> list[Span]:
        return [Span(a.span.end, b.span.start) for a, b in zip(self.tags, self.tags[1:])]


def tags(source: str) -> list[Tag]:
    """The template as tags with exact offsets; their slices and the stripped whitespace join back into ``source``."""
    env = environment()
    found: list[Tag] = []
    pos = 0
    current: Tag | None = None
    try:
        stream = list(env.lexer.tokeniter(source, None))
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(exc.message or str(exc), exc.lineno or 1) from None
    for _, token, value in stream:
        at = source.find(value, pos) if value else pos
        if at < 0 or source[pos:at].strip():
            raise TemplateError(f"cannot place token {value!r}", source.count("\n", 0, pos) + 1)
        end = at + len(value)
        if token == "data":
            found.append(Tag("data", Span(at, end)))
        elif token.endswith("_begin"):
            current = Tag(token[: -len("_begin")], Span(at, end))
            found.append(current)
        elif current is not None:
            if token.endswith("_end"):
                current.inner = source[current.span.end : at]
                # `-%}\n` swallows the newline in the token value: it belongs to the tag.
                current.span = Span(current.span.start, end)
                current = None
            elif token == "name" and current.kind == "block" and not current.keyword:
                current.keyword = value
        pos = end
    if source[pos:].strip():
        raise TemplateError("unexpected text at the end", source.count("\n", 0, pos) + 1)
    return found


def tree(found: list[Tag]) -> list:
    """Nest block tags into Blocks; data, variable and comment tags stay leaves."""
    root: list = []
    stack: list[tuple[Block, list]] = []
    for tag in found:
        children = stack[-1][1] if stack else root
        if tag.kind != "block":
            children.append(tag)
            continue
        word = tag.keyword
        if word in PAIRS and not (word == "set" and _inline_set(tag)):
            block = Block(word, [tag])
            children.append(block)
            stack.append((block, block.children))
        elif word in BRANCHES and stack:
            stack[-1][0].tags.append(tag)
            children.append(tag)
        elif word.startswith("end") and stack and PAIRS.get(stack[-1][0].keyword) == word:
            stack[-1][0].tags.append(tag)
            stack.pop()
        else:
            children.append(tag)
    return root


def _inline_set(tag: Tag) -> bool:
    """`{% set x = 1 %}` stands alone; `{% set x %}...{% endset %}` is a block."""
    return "=" in tag.inner


# ---------------------------------------------------------------- what expressions read


@dataclass(frozen=True)
class Reference:
    """What an output reads: `doc.meta['title']` is root "doc", path ("meta", "title")."""

    root: str
    path: tuple[str, ...]

    @property
    def key(self) -> str:
        """The name that says what the value is: the last key, or the variable itself."""
        return normalise_label(self.path[-1] if self.path else self.root)


@cache
def _expression(inner: str) -> nodes.Node | None:
    try:
        output = environment().parse("{{" + inner + "}}").body[0]
    except jinja2.TemplateSyntaxError:
        return None
    return output.nodes[0] if isinstance(output, nodes.Output) and output.nodes else None


@cache
def _statement(inner: str, closing: str) -> nodes.Node | None:
    try:
        body = environment().parse("{%" + inner + "%}{% " + closing + " %}").body
    except jinja2.TemplateSyntaxError:
        return None
    return body[0] if body else None


def reference(node: nodes.Node | None) -> Reference | None:
    """Follow filters, attributes, constant subscripts and `.get('x')` down to a variable."""
    path: list[str] = []
    while node is not None:
        if isinstance(node, nodes.Filter):
            node = node.node
        elif isinstance(node, nodes.Getattr):
            path.append(node.attr)
            node = node.node
        elif isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
            path.append(node.arg.value)
            node = node.node
        elif (
            isinstance(node, nodes.Call)
            and isinstance(node.node, nodes.Getattr)
            and node.node.attr == "get"
            and node.args
            and isinstance(node.args[0], nodes.Const)
        ):
            path.append(str(node.args[0].value))
            node = node.node.node
        elif isinstance(node, nodes.Name):
            return Reference(node.name, tuple(reversed(path)))
        else:
            return None
    return None


# ---------------------------------------------------------------- the prompt model


# The literal label and brackets that belong to an output: "(score: ", "Updated: ", "<chunk_id>".
_LABEL_BEFORE = re.compile(r"(?:[ \t]*[(\[|,;]?[ \t]*[A-Za-z][\w .'/-]{0,30}[:=][ \t]*|[ \t]*[(\[][ \t]*|[ \t]*<[\w.-]+>[ \t]*)?$")
_CLOSE_AFTER = re.compile(r"^(?:[ \t]*(?:[)\]]|</[\w.-]+>))?")
_LITERAL_LABEL = re.compile(r"([A-Za-z][\w .'/-]{0,30})\s*[:=]\s*$")


class _Reader:
    """One pass over the tag tree, collecting the parts of the prompt model."""

    def __init__(self, source: str, flat: list[Tag]):
        self.source = source
        self.lower = lowercase(source)  # once: every literal is read against it
        self.flat = flat
        self.index = {id(tag): i for i, tag in enumerate(flat)}
        self.vocab = words()
        self.sources: list[Source] = []
        self.questions: list[Span] = []
        self.rewritten: list[Span] = []
        self.parts: list[Part] = []
        self.branches: list[tuple[Span, ...]] = []
        self.macros: dict[str, tuple[Block, list[str]]] = {}

    def collect_macros(self, items: list) -> None:
        """The macros this file defines, so that a loop calling one is read through it."""
        for item in items:
            if isinstance(item, Block) and item.keyword == "macro":
                macro = _statement(item.tags[0].inner, "endmacro")
                if isinstance(macro, nodes.Macro):
                    self.macros[macro.name] = (item, [arg.name for arg in macro.args])
            elif isinstance(item, Block):
                self.collect_macros(item.children)

    # -- walking

    def walk(self, items: list) -> None:
        for item in items:
            if isinstance(item, Block):
                self.block(item)
            elif item.kind == "data":
                self.literal(item)
            elif item.kind == "variable":
                self.output(item)

    def block(self, block: Block) -> None:
        if block.keyword == "macro":
            return  # a definition prints nothing where it stands
        if block.keyword == "if":
            self.branches.append(tuple(block.branch_spans()))
        if block.keyword == "for":
            loop = _statement(block.tags[0].inner, "endfor")
            if isinstance(loop, nodes.For) and self.loop(block, loop):
                return
        self.walk([c for c in block.children if not (isinstance(c, Tag) and c.kind == "block")])

    def literal(self, tag: Tag) -> None:
        for line in text_lines(self.source, self.lower, tag.span.start, tag.span.end):
            if line.blank or self.vocab.role_marker.match(line.lower):
                continue
            self.parts.append(Part(PartKind.INSTRUCTIONS, Span(line.start, line.end)))

    def output(self, tag: Tag) -> None:
        ref = reference(_expression(tag.inner))
        kind = slot_kind(ref.root if ref and not ref.path else (ref.key if ref else "")) if ref else None
        if kind == "question":
            self.questions.append(tag.span)
        elif kind == "rewritten":
            self.rewritten.append(tag.span)
        if kind is not None:
            part = {"question": PartKind.QUESTION, "rewritten": PartKind.QUESTION, "context": PartKind.SOURCES,
                    "history": PartKind.HISTORY, "volatile": PartKind.VOLATILE}[kind]
            self.parts.append(Part(part, tag.span, _LABELS[part]))

    # -- the sources loop

    def loop(self, block: Block, loop: nodes.For) -> bool:
        """Read a loop as the sources loop if it is one; say whether it was."""
        target = loop.target.name if isinstance(loop.target, nodes.Name) else None
        iterated = reference(loop.iter)
        iter_kind = slot_kind(iterated.key) if iterated else None
        if iter_kind == "history":
            self.parts.append(Part(PartKind.HISTORY, block.span, "chat history"))
            return True
        body = block.branch_spans()[0]
        outputs = self._outputs(block.children, [], {})
        mine = [(tag, ref, tests) for tag, ref, tests in outputs if ref and target and ref.root == target]
        if any(not ref.path for _, ref, _ in mine) and not any(ref.key in CONTENT_KEYS for _, ref, _ in mine):
            # `{{ item }}`: each item arrives rendered already, so its wrapper cannot be judged here.
            if iter_kind == "context":
                self.parts.append(Part(PartKind.SOURCES, block.span, "the retrieved context"))
                return True
            return False
        content = next((tag for tag, ref, _ in mine if ref.key in CONTENT_KEYS), None)
        if content is None and iter_kind != "context":
            return False
        fields, key_span = [], None
        for tag, ref, tests in outputs:
            if ref and ref.root == "loop" and ref.path and ref.path[0] in ("index", "index0"):
                key_span = key_span or tag.span
            elif ref and ref.root == target and tag is not content:
                fields.append(self._field(tag, ref, tests))
        title = next((f.value for f in fields if f.label in self.vocab.title_labels), None)
        heading = next((f.value for f in fields if f.label in self.vocab.heading_labels), None)
        content_span = content.span if content else Span(body.end, body.end)
        # Content printed by a macro defined elsewhere in the file: the loop body is the wrapper.
        header = Span(body.start, content_span.start) if body.contains(content_span) else body
        collection = block.tags[0].inner.split(" in ", 1)[-1].strip()
        self.sources.append(
            Source(
                position=len(self.sources),
                span=block.span,  # the whole loop: dropping the source drops the loop
                header=header,
                content=content_span,
                key=self.source[key_span.start : key_span.end] if key_span else None,
                key_span=key_span,
                title=title,
                heading_path=(heading,) if heading else (),
                fields=fields,
                wrapper_lines=self._instruction_lines(block),
                style="template",
                repeated=True,
                collection=collection,
            )
        )
        self.parts.append(Part(PartKind.SOURCES, block.span, "the sources"))
        return True

    def _outputs(self, items: list, tests: list[str], aliases: dict[str, str], depth: int = 0) -> list[tuple[Tag, Reference | None, list[str]]]:
        """Every output inside a loop body, with what it reads and the `{% if %}` tests it sits under.

        A call of a macro defined in this file is followed into the macro's body, its
        parameters read as the arguments passed (`render(doc)` makes `d.content` read `doc.content`).
        """
        found = []
        for item in items:
            if isinstance(item, Block):
                inner = tests + [item.tags[0].inner] if item.keyword == "if" else tests
                found.extend(self._outputs(item.children, inner, aliases, depth))
            elif item.kind == "variable":
                expression = _expression(item.inner)
                called = self._macro_call(expression, aliases) if depth < MAX_MACRO_DEPTH else None
                if called is not None:
                    macro, bound = called
                    found.extend(self._outputs(macro.children, tests, bound, depth + 1))
                    continue
                ref = reference(expression)
                if ref is not None and ref.root in aliases:
                    ref = Reference(aliases[ref.root], ref.path)
                found.append((item, ref, tests))
        return found

    def _macro_call(self, expression: nodes.Node | None, aliases: dict[str, str]) -> tuple[Block, dict[str, str]] | None:
        if not (isinstance(expression, nodes.Call) and isinstance(expression.node, nodes.Name)):
            return None
        macro = self.macros.get(expression.node.name)
        if macro is None:
            return None
        block, params = macro
        bound = {}
        for param, arg in zip(params, expression.args):
            if isinstance(arg, nodes.Name):
                bound[param] = aliases.get(arg.name, arg.name)
        return block, bound

    def _field(self, tag: Tag, ref: Reference, tests: list[str]) -> Field:
        label = ref.key
        before = self._neighbour(tag, -1)
        literal = _LITERAL_LABEL.search(before) if before is not None else None
        # The attribute's own name is the better witness ("distance_m" is meters, not a vector
        # distance); the literal label counts only when the name says nothing.
        if (not ref.path or label in GENERIC_KEYS) and literal and normalise_label(literal[1]) in self.vocab.field_labels:
            label = normalise_label(literal[1])
        return Field(
            label=label,
            value=self.source[tag.span.start : tag.span.end],
            span=self._removal(tag),
            value_span=tag.span,
            form="inline",
            conditional=any(STALENESS_WORDS.search(t.lower()) for t in tests),
        )

    def _neighbour(self, tag: Tag, step: int) -> str | None:
        """The literal text right before (step -1) or after (+1) a tag on its line, or None."""
        i = self.index[id(tag)] + step
        if not 0 <= i < len(self.flat) or self.flat[i].kind != "data":
            return None
        data = self.flat[i]
        text = self.source[data.span.start : data.span.end]
        return text.rsplit("\n", 1)[-1] if step < 0 else text.split("\n", 1)[0]

    def _removal(self, tag: Tag) -> Span:
        """The tag with its literal label and brackets; the whole line when nothing else is on it.

        Only literal text next to the tag is taken, so a removal never cuts into another tag.
        """
        before, after = self._neighbour(tag, -1), self._neighbour(tag, 1)
        start, end = tag.span.start, tag.span.end
        if before is not None:
            start -= len(_LABEL_BEFORE.search(before)[0])
        if after is not None:
            end += len(_CLOSE_AFTER.match(after)[0])
        line_start = self.source.rfind("\n", 0, tag.span.start) + 1
        line_end = self.source.find("\n", tag.span.end)
        line_end = len(self.source) if line_end < 0 else line_end
        alone = before is not None and after is not None or self._line_has_only(tag, line_start, line_end)
        if alone and not self.source[line_start:start].strip() and not self.source[end:line_end].strip():
            return Span(line_start, min(line_end + 1, len(self.source)))
        return Span(start, end)

    def _line_has_only(self, tag: Tag, line_start: int, line_end: int) -> bool:
        return not any(
            # Comments print nothing, so they do not keep a line alive.
            other is not tag and other.kind not in ("data", "comment") and other.span.start < line_end and other.span.end > line_start
            for other in self.flat
        )

    def _instruction_lines(self, block: Block) -> list[Span]:
        found = []
        for tag in (t for t in self.flat if t.kind == "data" and block.span.contains(t.span)):
            for line in text_lines(self.source, self.lower, tag.span.start, tag.span.end):
                if not line.blank and looks_like_instruction(line):
                    found.append(Span(line.start, line.end))
        return found


_LABELS = {
    PartKind.QUESTION: "the question",
    PartKind.SOURCES: "the retrieved context",
    PartKind.HISTORY: "chat history",
    PartKind.VOLATILE: "per-request data",
}


def check_syntax(source: str) -> list[Tag]:
    """The template's tags; raises TemplateError, with the line, when it does not parse."""
    try:
        environment().parse(source)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(exc.message or str(exc), exc.lineno or 1) from None
    except RecursionError:
        # Jinja's parser recurses once per nesting level; past Python's limit say so.
        raise TemplateError("nested too deeply to read", 1) from None
    return tags(source)


def parses(source: str) -> bool:
    try:
        check_syntax(source)
    except TemplateError:
        return False
    return True


def segment_jinja(source: str) -> Prompt:
    """The prompt model of a Jinja template; raises TemplateError when it does not parse."""
    flat = check_syntax(source)
    reader = _Reader(source, flat)
    roots = tree(flat)
    reader.collect_macros(roots)
    reader.walk(roots)
    lower = reader.lower
    lines = text_lines(source, lower)
    parts = merge_parts(source, sorted(reader.parts, key=lambda p: p.span.start))
    sources = reader.sources
    block = Span(sources[0].span.start, sources[-1].span.end) if sources else None
    return Prompt(
        text=source,
        lower=lower,
        sources=sources,
        parts=parts,
        questions=sorted(reader.questions),
        messages=role_messages(source, lines, reader.vocab),
        sources_block=block,
        rewritten_questions=sorted(reader.rewritten),
        branches=reader.branches,
    )
