"""The reader: one pass over a template's tag tree, collecting the parts of the prompt model."""

from __future__ import annotations

import dataclasses
import re

from jinja2 import nodes

from ...meaning import vocabulary
from ...meaning.vocabulary import normalise_label
from ...model.prompt import Field, FieldForm, Part, PartKind, Source, SourceStyle, Span
from ..expressions import Reference, iterated_name
from ..expressions import jinja_expression as _expression
from ..expressions import jinja_reference as reference
from ..segment import PART_LABELS, Vocab, is_input, slot_kind, text_lines
from .origin import Macro, Origin, Output, attribute_of, instruction_spans, macros, neighbour, quoted, removal_span, renders_messages, written_pieces
from .tags import Block, Tag, statement, tag_statement

# How deep macro calls are followed (a macro may call another).
MAX_MACRO_DEPTH = 5
# Words in an `{% if %}` test that make a date shown under it conditional on staleness.
# What an includes reader answers for a name that leads outside the project root.
OUTSIDE_ROOT = "outside the project root"

_RULE_LINE = re.compile(r"[-=*_~]{3,}")  # a separator line between a label and its block
# The word a template writes right before a value, one space apart: "part {{ c.index }}".
_WORD_BEFORE = re.compile(r"(?<![\w-])([A-Za-z]+) $")
# A header's closing group and a colon, at the end of the text before an output: "[1] (chan, 2024-05-01): ".
_HEADER_END = re.compile(r"[)\]][ \t]*:[ \t]*$")
# What may follow a text that ends its line: closing quotes and brackets, a stop.
_CLOSING_MARKS = re.compile(r"[\s\"'`)\]}>.,;!?\u201d\u300d\u3011]*")
# A literal label before an output: "Score: ", "- **Updated:** ".
_LITERAL_LABEL = re.compile(r"(?:\*\*|__)?([A-Za-z][\w .'/-]{0,30}?)(?:\*\*|__)?\s*[:=](?:\*\*|__)?\s*$")

# What a piece of an included file counts as where it is included, most telling first.
_INCLUDED_KINDS = (PartKind.SOURCES, PartKind.QUESTION, PartKind.HISTORY, PartKind.VOLATILE, PartKind.INPUT)


class Reader:
    """One pass over the tag tree, collecting the parts of the prompt model.

    ``includes`` (see promptlint.readers.includes) reads the files an `{% include %}`,
    `{% import %}` or `{% from ... import %}` names; without it they are not followed.
    What another file contributes is reported at the tag that brings it in, and never
    fixed there: the text is in the other file.
    """

    def __init__(self, main: Origin, vocab: Vocab, content_keys: frozenset[str], includes=None, chain: tuple[int, ...] = ()):
        # ``content_keys``: the loop item's attributes the config says hold the chunk text,
        # besides those the lexicon knows ("content-key").
        self.main = main
        # The files and macros being read on the way here (ids): one met again is a cycle,
        # which would render without end, so it is not followed.
        self.chain = chain + (id(main),)
        self.source = main.source
        self.lower = main.lower  # once: every literal is read against it
        self.vocab = vocab
        self.content_keys = content_keys
        self.includes = includes
        self.sources: list[Source] = []
        self.questions: list[Span] = []
        self.rewritten: list[Span] = []
        self.parts: list[Part] = []
        self.branches: list[tuple[Span, ...]] = []
        self.locked: list[Span] = []  # tags that stand for another file's text
        self.refused: list[tuple[Span, str]] = []  # includes naming a file outside the project root
        self.macros: dict[int, dict[str, Macro]] = {}  # origin id -> its macros (and, for the linted file, its imports)
        self.namespaces: dict[str, dict[str, Macro]] = {}
        self.item_names: list[str] = []  # the items of the loops being walked (`transit` in `for transit in ...`)

    def read(self) -> None:
        self.collect_imports(self.main.roots)
        self.walk(self.main.roots)

    # -- other files

    def include(self, site: Span, template: nodes.Node, chain: tuple[int, ...] = ()) -> Origin | None:
        """The file an include or import names, read; None when it is not found or not followed (a cycle)."""
        if self.includes is None or len(self.chain) > MAX_MACRO_DEPTH:
            return None
        if isinstance(template, (nodes.List, nodes.Tuple)):
            names = [item.value for item in template.items if isinstance(item, nodes.Const)]  # the first found is used
        else:
            names = [template.value] if isinstance(template, nodes.Const) else []  # a name computed at render time: unknown
        for name in (n for n in names if isinstance(n, str)):
            found = self.includes.load(name)
            if found == OUTSIDE_ROOT:
                self.refused.append((site, name))
                return None
            if found is not None and id(found) in self.chain + chain:
                return None
            if found is not None:
                self.locked.append(site)
                return found
        return None

    def _macros_of(self, origin: Origin) -> dict[str, Macro]:
        """The macros a file defines (and, for the linted one, imports), read once."""
        if id(origin) not in self.macros:
            self.macros[id(origin)] = macros(origin)
        return self.macros[id(origin)]

    def collect_imports(self, items: list) -> None:
        """The macros `{% from x import m %}` and `{% import x as ns %}` bring in."""
        for item in items:
            if isinstance(item, Block):
                self.collect_imports(item.children)
            elif item.kind == "block" and item.keyword in ("from", "import"):
                node = tag_statement(item.inner)
                if not isinstance(node, (nodes.FromImport, nodes.Import)):
                    continue
                origin = self.include(item.span, node.template)
                if origin is None:
                    continue
                defined = self._macros_of(origin)
                if isinstance(node, nodes.Import):
                    self.namespaces[node.target] = defined
                    continue
                for name in node.names:
                    name, alias = name if isinstance(name, tuple) else (name, name)
                    if name in defined:
                        self._macros_of(self.main)[alias] = defined[name]

    # -- walking

    def walk(self, items: list) -> None:
        for item in items:
            if isinstance(item, Block):
                self.block(item)
            elif item.kind == "data":
                self.literal(item)
            elif item.kind == "variable":
                self.output(item)
            elif item.kind == "block" and item.keyword == "set":
                self.assigned(item)
            elif item.kind == "block" and item.keyword == "include":
                self.included(item)

    def block(self, block: Block) -> None:
        if block.keyword == "macro":
            return  # a definition prints nothing where it stands
        if block.keyword == "if":
            self.branches.append(tuple(block.branch_spans()))
        if block.keyword == "for":
            loop = statement(block.tags[0].inner, "endfor")
            if isinstance(loop, nodes.For) and self.loop(block, loop):
                return
            target = loop.target if isinstance(loop, nodes.For) else None
            items = [target.name] if isinstance(target, nodes.Name) else [n.name for n in target.find_all(nodes.Name)] if target else []
            self.item_names.extend(items)
            self._walk_children(block)
            del self.item_names[len(self.item_names) - len(items) :]
            return
        self._walk_children(block)

    def _walk_children(self, block: Block) -> None:
        self.walk([c for c in block.children if not (isinstance(c, Tag) and c.kind == "block" and c.keyword not in ("include", "set"))])

    def included(self, tag: Tag) -> None:
        """An `{% include %}` outside a sources loop: the file counts as one part where it is included."""
        node = tag_statement(tag.inner)
        origin = self.include(tag.span, node.template) if isinstance(node, nodes.Include) else None
        if origin is None:
            return
        child = Reader(origin, self.vocab, self.content_keys, self.includes, self.chain)
        child.read()
        self.refused.extend((tag.span, name) for _, name in child.refused)
        for source in child.sources:
            self.sources.append(
                dataclasses.replace(
                    source,
                    position=len(self.sources),
                    span=tag.span,
                    header=tag.span,
                    content=tag.span,
                    key_span=None,
                    fields=[dataclasses.replace(f, span=tag.span, value_span=tag.span) for f in source.fields],
                    wrapper_lines=[],
                )
            )
        if child.questions:
            self.questions.append(tag.span)
        if child.rewritten:
            self.rewritten.append(tag.span)
        kinds = {part.kind for part in child.parts}
        kind = next((k for k in _INCLUDED_KINDS if k in kinds), PartKind.INSTRUCTIONS if kinds else None)
        if kind is not None:
            self.parts.append(Part(kind, tag.span, PART_LABELS.get(kind, "")))

    def literal(self, tag: Tag) -> None:
        for line in text_lines(self.source, self.lower, tag.span.start, tag.span.end):
            if line.blank or self.vocab.role_marker.match(line.lower):
                continue
            self.parts.append(Part(PartKind.INSTRUCTIONS, Span(line.start, line.end)))

    def output(self, tag: Tag) -> None:
        written = written_pieces(self.main, tag)
        if not any(kind == "text" for kind, _ in written):
            ref = reference(_expression(tag.inner))
            # Named by its key, and by the object it is read from (`user.name`), which may say whose it is.
            self.slot(tag.span, (ref.root if not ref.path else f"{ref.root}.{ref.key}") if ref else None)
            return
        # A chat template joins its text and its variables in one expression
        # (`{{ '<|system|>Today: ' + date_string + '. You are ...' }}`): each is read where it stands.
        for kind, span in written:
            if kind == "text":
                self.text(span)
            else:
                self.slot(span, self.source[span.start : span.end])

    def assigned(self, tag: Tag) -> None:
        """A `{% set %}` that joins text, as chat templates build their system message
        (`{% set system = "You are ..." + strftime_now('%d %B') %}`): it is printed as joined,
        so its text and its date are read where they are set. Other variables in it are read
        where they are printed."""
        for kind, span in written_pieces(self.main, tag):
            if kind == "text":
                self.text(span)
            elif slot_kind(self.source[span.start : span.end], self.vocab) == "volatile":
                self.slot(span, self.source[span.start : span.end])

    def text(self, span: Span) -> None:
        for line in text_lines(self.source, self.lower, span.start, span.end):
            if not line.blank and not self.vocab.role_marker.match(line.lower):
                self.parts.append(Part(PartKind.INSTRUCTIONS, Span(line.start, line.end)))

    def slot(self, span: Span, name: str | None) -> None:
        """A printed variable, by what its name says it holds."""
        kind = slot_kind(name, self.vocab) if name else None
        if kind in ("question", "rewritten") and name.split(".", 1)[0] in self.item_names:
            kind = None  # `{{ transit.interpretation }}` in a loop: each item's own, not the request's question
        if kind == "question":
            self.questions.append(span)
        elif kind == "rewritten":
            self.rewritten.append(span)
        if kind is not None:
            part = {"question": PartKind.QUESTION, "rewritten": PartKind.QUESTION, "context": PartKind.SOURCES,
                    "history": PartKind.HISTORY, "volatile": PartKind.VOLATILE}[kind]
            self.parts.append(Part(part, span, PART_LABELS[part]))
        elif name and is_input(self.source, span, name, self.vocab):
            self.parts.append(Part(PartKind.INPUT, span, PART_LABELS[PartKind.INPUT]))

    # -- the sources loop

    def loop(self, block: Block, loop: nodes.For) -> bool:
        """Read a loop as the sources loop if it is one; say whether it was."""
        target = _item_named(block, loop.target.name) if isinstance(loop.target, nodes.Name) else None
        iter_kind = self._iterated_kind(block, loop)
        if iter_kind == "history":
            self.parts.append(Part(PartKind.HISTORY, block.span, "chat history"))
            return True
        instructions = self._instruction_lines(block)
        outputs = self._outputs(block.children, (), {}, self.main, None, (), instructions)
        if target and renders_messages(outputs, target):
            # A chat template's loop over the conversation (`loop_messages`, `messages[1:]`), by its item's role.
            self.parts.append(Part(PartKind.HISTORY, block.span, "chat history"))
            return True
        mine = [o for o in outputs if o.ref and target and o.ref.root == target]
        if any(not o.ref.path for o in mine) and not any(self._is_content(o.ref) for o in mine):
            # `{{ item }}`: each item arrives rendered already, so its wrapper cannot be judged here.
            if iter_kind == "context":
                self.parts.append(Part(PartKind.SOURCES, block.span, "the retrieved context"))
                return True
            return False
        # An item that carries a retrieval score (`{{ r.score }}`, `[weight={{ hit.score }}]`) and prints a text is a
        # retrieved one, whatever the loop's names say: the score is what retrieval alone gives. But the reading is a
        # guess (a product's rating is a score too), so no fix of it is certain. The text ends the item's line, as a
        # chunk does; short values written around the score (`Entity: "{{ name }}" (slug: {{ slug }}, similarity:
        # {{ sim }})`) make a record of a task, no chunk.
        content, guessed = self._item_text(mine, iter_kind)
        if content is None and iter_kind != "context":
            return False
        self.sources.append(dataclasses.replace(self._loop_source(block, outputs, target, content, instructions), guessed=guessed))
        self.parts.append(Part(PartKind.SOURCES, block.span, "the sources"))
        return True

    def _item_text(self, mine: list[Output], iter_kind: str | None) -> tuple[Output | None, bool]:
        """The output that prints the item's text, and whether the item is read as retrieved by its score alone (the
        text then printed as over the context, ending its line)."""
        content = self._content_output(mine, iter_kind)
        if content is not None or iter_kind is not None or not self._shows_a_score(mine):
            return content, False
        content = self._content_output(mine, "context")
        return (content, True) if content is not None and self._ends_its_line(content) else (None, False)

    def _shows_a_score(self, mine: list[Output]) -> bool:
        return any(o.ref.path and self.vocab.lexicon.means(o.ref.key, "score") for o in mine)

    def _content_output(self, mine: list[Output], iter_kind: str | None) -> Output | None:
        """The output of a loop's item that prints the chunk, if one does (the page's text rather than its précis)."""
        if content := self._by_content_key(mine):
            return content
        # A loop over the context whose item prints one value no word list knows, or only
        # a summary (`r.highlight_text` beside its title, URL and date): that value is the chunk.
        # One under a label that names a field (`# file: {{ f.basename }}.md`) is that field.
        unknown = [o for o in mine if o.ref.path and self.vocab.lexicon.concepts(o.ref.key) <= {"derived"} and not self.vocab.is_field(self._label_before(o))]
        texts = self._before_precis([o for o in unknown if self._opens_the_text(o)])
        below = self._below_its_header(mine)
        if iter_kind == "context":
            # Of two such values or more, the one alone on its line or under a text label ("Excerpt:"); the others
            # stand beside other values ("{{ h.start }} → {{ h.end }}"). When none is so, the value printed
            # below the item's header is the chunk (`_below_its_header`); when two are, none is known to be.
            if len(unknown) == 1 and below is None:
                return unknown[0]
            if len(texts) == 1:
                return texts[0]
            return None if texts else below or self._beside_metadata(mine)
        # Over anything else, by its shape: the one value printed bare (or under a label that opens the text),
        # beside values under labels that name metadata (`{{ a.answer }}`, then `Source: {{ a.source }}`,
        # `Date: {{ a.date }}`), is what the item holds. Under any other label ("PMID:"), a value is a field.
        labelled = any(self.vocab.is_field(self._label_before(o)) for o in mine)
        return texts[0] if len(texts) == 1 and labelled else None

    def _beside_metadata(self, mine: list[Output]) -> Output | None:
        """The one value of an item of the context that the rules do not count as metadata, when every other
        value is and nothing labels them (`(doc, score)` printed whole, as a repr prints a tuple): by elimination,
        the item's text. Words around the values ("Processed {id}: score {score}") make a line of another kind."""
        if any(char.isalpha() for o in mine for side in (-1, 1) for char in neighbour(o.origin, o.tag, side) or ""):
            return None
        rest = [o for o in mine if not (o.ref.path and self.vocab.lexicon.reported(o.ref.key))]
        return rest[0] if len(rest) == 1 and len(mine) > 1 and rest[0].ref.path else None

    def _below_its_header(self, mine: list[Output]) -> Output | None:
        """The item's last value, by its role: alone on the body's last line, under a header whose values
        include one the lexicon knows as metadata (`[{{ d.source }}, chunk {{ d.chunk_id }}/{{ d.total }}]`
        then `{{ d.doc }}`). A header's values stand on the lines above; the text is printed last, bare.
        A value whose name says it is reported metadata (a summary, a date) is not the text, wherever it stands."""
        *header, last = mine or [None]
        if last is None or not header or not last.ref.path or self.vocab.lexicon.reported(last.ref.key):
            return None
        after = neighbour(last.origin, last.tag, 1) or ""
        if not self._alone_on_its_line(last) or after.split("\n", 1)[0].strip():
            return None
        return last if any(o.ref.path and self.vocab.lexicon.concepts(o.ref.key) for o in header) else None

    def _ends_its_line(self, output: Output) -> bool:
        """Whether nothing but closing marks follows an output on its line (`"{{ x.text }}"`, not `{{ slug }}, ...`)."""
        after = neighbour(output.origin, output.tag, 1) or ""
        return _CLOSING_MARKS.fullmatch(after.split("\n", 1)[0]) is not None

    def _alone_on_its_line(self, output: Output) -> bool:
        """Whether nothing stands before an output on its line: "{{ a.answer }}", not "... → {{ a.end }}"."""
        before = neighbour(output.origin, output.tag, -1) or ""
        return not before[before.rfind("\n") + 1 :].strip()

    def _label_before(self, output: Output) -> str:
        """The literal label right before an output ("PMID: {{ a.pmid }}"), normalised; empty when there is none."""
        before = neighbour(output.origin, output.tag, -1)
        literal = _LITERAL_LABEL.search(before) if before is not None else None
        return normalise_label(literal[1]) if literal else ""

    def _by_content_key(self, mine: list[Output]) -> Output | None:
        """The output whose key says it prints the chunk; a précis (`Snippet: {{ r.snippet }}`) only where no other
        value prints under a content label."""
        contents = [o for o in mine if self._is_content(o.ref)]
        if not contents:
            return None
        labelled = [o for o in mine if o not in contents and self._label_before(o) in self.vocab.content_labels]
        return self._before_precis(contents + labelled)[0]

    def _before_precis(self, outputs: list[Output]) -> list[Output]:
        """Outputs that may print the chunk, less those that print a page's précis when another may print the page's
        text: by its key or the label before it (`Snippet: {{ r.snippet }}` above `Content: {{ r.text }}`)."""
        precis = self.vocab.lexicon.phrases("precis")
        own = [o for o in outputs if normalise_label(o.ref.key) not in precis and self._label_before(o) not in precis]
        return own or outputs

    def _opens_the_text(self, output: Output) -> bool:
        """Whether an output may print the chunk: alone on its line, or under a label that opens the text
        ("Text:", or "Abstract:" where nothing else prints the page's text)."""
        label = self._label_before(output)
        if not label:
            return self._alone_on_its_line(output) or self._after_a_header(output)
        return label in self.vocab.content_labels or label in self.vocab.lexicon.phrases("precis")

    def _after_a_header(self, output: Output) -> bool:
        """Whether an output ends its line after a header's closing group and a colon: the text of
        `[{{ i }}] ({{ d.channel }}, {{ d.date }}): {{ d.cut }}`."""
        before, after = neighbour(output.origin, output.tag, -1) or "", neighbour(output.origin, output.tag, 1) or ""
        return bool(_HEADER_END.search(before[before.rfind("\n") + 1 :])) and not after.split("\n", 1)[0].strip()

    def _loop_source(self, block: Block, outputs: list[Output], target: str | None, content: Output | None, instructions: list[Span]) -> Source:
        """The source a sources loop renders once per item: its fields, key and chunk, the loop body its wrapper."""
        body = block.branch_spans()[0]
        fields, key_span = self._fields_and_key(outputs, target, content)
        title = next((f.value for f in fields if f.label in self.vocab.title_labels), None)
        heading = next((f.value for f in fields if f.label in self.vocab.heading_labels), None)
        content_span = content.span if content else Span(body.end, body.end)
        # Content printed by a macro defined elsewhere in the file: the loop body is the wrapper.
        header = Span(body.start, content_span.start) if body.contains(content_span) else body
        collection = block.tags[0].inner.split(" in ", 1)[-1].strip()
        return Source(
            position=len(self.sources),
            span=block.span,  # the whole loop: dropping the source drops the loop
            header=header,
            content=content_span,
            key=self.source[key_span.start : key_span.end] if key_span else None,
            key_span=key_span,
            title=title,
            heading_path=(heading,) if heading else (),
            fields=fields,
            wrapper_lines=sorted(set(instructions)),
            style=SourceStyle.TEMPLATE,
            repeated=True,
            collection=collection,
        )

    def _outputs(
        self, items: list, tests: tuple[str, ...], aliases: dict[str, str], origin: Origin, site: Tag | None, chain: tuple[int, ...], instructions: list[Span]
    ) -> list[Output]:
        """Every output inside a loop body, with what it reads and the `{% if %}` tests it sits under.

        A call of a macro is followed into the macro's body, its parameters read as the
        arguments passed (`render(doc)` makes `d.content` read `doc.content`); an include
        is followed into the included file, which sees the loop's variables. Instruction
        lines met on the way go to ``instructions`` (the loop body's own are there already).
        ``chain`` holds the macros and files followed to get here: none is followed twice.
        """
        found = []
        for item in items:
            if isinstance(item, Block):
                inner = tests + (item.tags[0].inner,) if item.keyword == "if" else tests
                found.extend(self._outputs(item.children, inner, aliases, origin, site, chain, instructions))
            elif item.kind == "data" and chain:
                lines = instruction_spans(origin, item, self.vocab.lexicon)
                instructions.extend([site.span] if site and lines else lines)
            elif item.kind == "block" and item.keyword == "include" and len(chain) < MAX_MACRO_DEPTH:
                node = tag_statement(item.inner)
                included = self.include((site or item).span, node.template, chain) if isinstance(node, nodes.Include) else None
                if included is not None:
                    found.extend(self._outputs(included.roots, tests, aliases, included, site or item, chain + (id(included),), instructions))
            elif item.kind == "variable":
                found.extend(self._printed(item, tests, aliases, origin, site, chain, instructions))
        return found

    def _printed(
        self, item: Tag, tests: tuple[str, ...], aliases: dict[str, str], origin: Origin, site: Tag | None, chain: tuple[int, ...], instructions: list[Span]
    ) -> list[Output]:
        """The outputs of one `{{ ... }}`: a macro call's, read in the macro's body, or the output itself (see _outputs)."""
        expression = _expression(item.inner)
        called = self._macro_call(expression, aliases, origin) if len(chain) < MAX_MACRO_DEPTH else None
        if called is not None and id(called[0].block) not in chain:
            macro, bound = called
            inner_site = site if site or macro.origin is self.main else item
            if inner_site is not site:
                self.locked.append(item.span)
            return self._outputs(macro.block.children, tests, bound, macro.origin, inner_site, chain + (id(macro.block),), instructions)
        ref = reference(expression)
        if ref is not None and ref.root in aliases:
            ref = Reference(aliases[ref.root], ref.path)
        return [Output(item, ref, tests, origin, site)]

    def _macro_call(self, expression: nodes.Node | None, aliases: dict[str, str], origin: Origin) -> tuple[Macro, dict[str, str]] | None:
        """The macro an output calls (`render(doc)`, `macros.render(doc)`), with its parameters bound."""
        if not isinstance(expression, nodes.Call):
            return None
        called = expression.node
        if isinstance(called, nodes.Name):
            macro = self._macros_of(origin).get(called.name)
        elif isinstance(called, nodes.Getattr) and isinstance(called.node, nodes.Name) and origin is self.main:
            macro = self.namespaces.get(called.node.name, {}).get(called.attr)
        else:
            macro = None
        if macro is None:
            return None
        bound = {}
        for param, arg in zip(macro.params, expression.args):
            if isinstance(arg, nodes.Name):
                bound[param] = aliases.get(arg.name, arg.name)
        return macro, bound

    def _iterated_kind(self, block: Block, loop: nodes.For) -> str | None:
        """What the loop iterates, by the name of what it iterates or by the label above it."""
        iterated = iterated_name(loop.iter)
        kind = slot_kind(iterated, self.vocab) if iterated else None
        return kind or ("context" if self._announced_as_context(block) else None)

    def _announced_as_context(self, block: Block) -> bool:
        """Whether the label right above a loop names the retrieved context ("Knowledge
        relationships:", "Relevant search results:"): its items are the sources, whatever
        the loop's variable is called."""
        # The loop's line up to it and the five lines above, without copying all the text before it.
        start = self.source.rfind("\n", 0, block.span.start) + 1
        for _ in range(5):
            start = self.source.rfind("\n", 0, start - 1) + 1 if start > 0 else 0
        lines = [ln.strip() for ln in self.source[start : block.span.start].split("\n")]
        label = next((ln for ln in reversed(lines) if ln and not _RULE_LINE.fullmatch(ln)), "").rstrip("*_ ")
        if not label.endswith((":", "\uff1a")) or "{" in label:
            return False
        words = " " + normalise_label(label.rstrip(":\uff1a").strip("#*_ ")) + " "
        return any(f" {name} " in words for name in self.vocab.context_labels)

    def _fields_and_key(self, outputs: list[Output], target: str | None, content: Output | None) -> tuple[list[Field], Span | None]:
        """The fields of a sources loop's item and where its citation key is printed."""
        fields, key_span = [], None
        for o in outputs:
            if o.ref and o.ref.root == "loop" and o.ref.path and o.ref.path[0] in ("index", "index0"):
                if o.site is None:
                    key_span = key_span or o.tag.span
            elif key_span is None and o.ref and o.ref.root == target and self._cites(o):
                key_span = o.tag.span
            elif o.ref and o.ref.root == target and o is not content:
                fields.append(self._field(o))
        return fields, key_span

    def _cites(self, output: Output) -> bool:
        """Whether an item's value in brackets is its citation key (`[{{ doc.index }}]`, the number
        the application gives each source); a chunk's id or number there is an ordinal, a field."""
        before, after = neighbour(output.origin, output.tag, -1), neighbour(output.origin, output.tag, 1)
        label = self.vocab.lexicon.item_label(output.ref.root, output.ref.key)
        bracketed = output.site is None and (before or "").endswith("[") and (after or "").startswith("]")
        return bracketed and self.vocab.lexicon.concepts(label) == {"key"}

    def _is_content(self, ref: Reference) -> bool:
        """Whether the loop item's attribute holds the chunk text (the loop is then the sources loop)."""
        return ref.key in self.content_keys or self.vocab.lexicon.means(ref.key, "content-key")

    def _field(self, output: Output) -> Field:
        ref = output.ref
        label = self.vocab.lexicon.item_label(ref.root, ref.key) if ref.path else ref.key
        before = neighbour(output.origin, output.tag, -1)
        literal = _LITERAL_LABEL.search(before) if before is not None else None
        # The attribute's own name is the better witness ("distance_m" is meters, not a vector
        # distance); the literal label counts only when the name says nothing (a single letter, "value":
        # "Page: {s}" prints a page), or names a kind of what the label names that the lexicon does not know
        # ("Relevance Score: {{ c.llm_score }}": a score, of a kind the label says).
        said = normalise_label(literal[1]) if literal else ""
        lexicon = self.vocab.lexicon
        if literal and lexicon.concepts(said) and (lexicon.is_generic(label) or self.vocab.is_field(said) and (not ref.path or any(lexicon.qualified(label, c) for c in lexicon.concepts(said)))):
            label = said
        label = self._qualified(label, before)
        # An element's attribute is named by the markup the model reads (`hit_score="{{ d.s }}"`).
        attribute = attribute_of(output.origin, output.tag)
        if attribute is not None and self.vocab.is_field(normalise_label(attribute[0])):
            label = normalise_label(attribute[0])
        removal = removal_span(output.origin, output.tag)
        return Field(
            label=label,
            value=output.text,
            quoted=quoted(output),
            span=output.span if output.site else removal,
            value_span=output.span,
            form=FieldForm.INLINE,
            conditional=any(vocabulary.patterns(self.vocab.lexicon.words("unconditional-date", "staleness-tests")).search(t.lower()) for t in output.tests),
            elsewhere=output.origin.source[removal.start : removal.end] if output.site else None,
        )

    def _qualified(self, label: str, before: str | None) -> str:
        """A name that says no more than a key (`c.index`) after the word the template writes before it
        ("part ${c.index + 1}") reads as the two: "part index", a chunk's place in its document."""
        word = _WORD_BEFORE.search(before or "")
        if word is None or not self.vocab.lexicon.concepts(label) <= {"key"}:
            return label
        qualified = normalise_label(word[1]) + " " + label
        return qualified if self.vocab.lexicon.concepts(qualified) - {"key"} else label

    def _instruction_lines(self, block: Block) -> list[Span]:
        # The block's own tags only: a slice of the flat list, from its opening tag to its closing one.
        first, last = self.main.index[id(block.tags[0])], self.main.index[id(block.tags[-1])]
        return [span for tag in self.main.flat[first : last + 1] if tag.kind == "data" for span in instruction_spans(self.main, tag, self.vocab.lexicon)]


def _item_named(block: Block, target: str) -> str:
    """The name a loop's item goes by: its variable, or, in a loop over positions, the name the body
    sets to the item at that position (`{% for i in batch %}{% set elt = doc.elements[i] %}`)."""
    for child in block.children:
        node = tag_statement(child.inner) if isinstance(child, Tag) and child.keyword == "set" else None
        if isinstance(node, nodes.Assign) and isinstance(node.target, nodes.Name) and isinstance(node.node, nodes.Getitem):
            if isinstance(node.node.arg, nodes.Name) and node.node.arg.name == target:
                return node.target.name
    return target
