"""The one model of a prompt that every front-end produces and every rule reads.

Positions are character offsets into ``Prompt.text`` (half-open spans). They are
turned into 1-based lines and columns only at the edge, when findings are shown.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property


@dataclass(frozen=True, order=True)
class Span:
    start: int
    end: int

    def __len__(self) -> int:
        return self.end - self.start

    def contains(self, other: "Span") -> bool:
        return self.start <= other.start and other.end <= self.end

    def overlaps(self, other: "Span") -> bool:
        return self.start < other.end and other.start < self.end


class SpanSet:
    """The union of some spans, with a logarithmic "is this offset inside?"."""

    def __init__(self, spans: list[Span]):
        self.spans: list[Span] = []
        for span in sorted(spans):
            if self.spans and span.start < self.spans[-1].end:
                self.spans[-1] = Span(self.spans[-1].start, max(self.spans[-1].end, span.end))
            else:
                self.spans.append(span)
        self.starts = [s.start for s in self.spans]

    def __contains__(self, offset: int) -> bool:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i >= 0 and offset < self.spans[i].end

    def end_at(self, offset: int) -> int:
        """The end of the span that holds ``offset`` (which must be inside one)."""
        return self.spans[bisect.bisect_right(self.starts, offset) - 1].end

    def covers(self, span: Span) -> bool:
        i = bisect.bisect_right(self.starts, span.start) - 1
        return i >= 0 and self.spans[i].contains(span)


class FieldForm(str, Enum):
    """Where a field is written in its source's wrapper (a str, so it reads and prints as its value)."""

    LINE = "line"  # a line of its own
    INLINE = "inline"  # inside the header
    TAG = "tag"  # an XML element
    JSON = "json"  # a member of a source written as JSON

    def __str__(self) -> str:
        return self.value


class SourceStyle(str, Enum):
    """How a source's wrapper is written (a str, so it reads and prints as its value)."""

    TEXT = "text"  # a header line or a labelled paragraph
    XML = "xml"  # XML tags
    TEMPLATE = "template"  # a template's loop, rendered once per retrieved chunk
    JSON = "json"  # a JSON object

    def __str__(self) -> str:
        return self.value


class Syntax(str, Enum):
    """How a prompt's text is read: as it stands, or as a Jinja template. Here rather than
    beside the document's prompt because the code readers, below the document, produce it."""

    TEXT = "text"  # an assembled prompt or a format string
    JINJA = "jinja"  # a Jinja template

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Field:
    """A piece of metadata rendered in a source's wrapper.

    ``span`` covers what a fix removes to drop the field (label, value and the
    punctuation that belongs to it); ``value_span`` covers the value alone.
    """

    label: str  # normalised: lower case, words joined by single spaces
    value: str
    span: Span
    value_span: Span
    form: FieldForm
    conditional: bool = False  # in a template, shown only under a staleness test
    # In a template, the field's text (label and all) when it is in another file, an include
    # or an imported macro: ``span`` is then the tag that brings it in. What a finding costs.
    elsewhere: str | None = None
    # How a message quotes the value when the text as written reads badly: a template tag that
    # also prints its label and a line break is quoted as the slot of what it reads.
    quoted: str | None = None

    @property
    def shown(self) -> str:
        """The value as a message quotes it."""
        return self.quoted or self.value


@dataclass
class Source:
    """One retrieved chunk as rendered in the prompt."""

    position: int  # 0-based rank order in the prompt
    span: Span  # the whole source, wrapper and content
    header: Span  # the header line or opening tag(s)
    content: Span  # the chunk text itself; fixes never edit inside it
    key: str | None = None  # the citation key the model is asked to use ("1")
    key_span: Span | None = None
    title: str | None = None
    heading_path: tuple[str, ...] = ()
    fields: list[Field] = field(default_factory=list)
    wrapper_lines: list[Span] = field(default_factory=list)  # unlabelled lines between header and content
    style: SourceStyle = SourceStyle.TEXT
    # A template of a source ("[{i}] {title}\n{content}"), rendered once per retrieved chunk.
    repeated: bool = False
    collection: str = ""  # in a template, what the sources loop iterates ("relevant + marginal[:3]")
    # The file's format marks the wrapper apart from the chunk (a request's document block and its
    # context): its fields are metadata by structure, not read out of the text.
    marked: bool = False
    # One of several statements of code that add to one source's text (the whole is read apart):
    # what the piece lacks, the whole may show.
    partial: bool = False
    # Taken for a source only by a field the rules judge (a loop over items named as nothing retrieved, whose
    # item shows a score): that field may be the item's own fact, so removing it is never certain.
    guessed: bool = False

    def field_named(self, *labels: str) -> Field | None:
        return next((f for f in self.fields if f.label in labels), None)


class PartKind(str, Enum):
    INSTRUCTIONS = "instructions"  # static text: rules, task, format, examples
    HISTORY = "history"  # earlier turns of the conversation
    SOURCES = "sources"  # the retrieved content block
    QUESTION = "question"  # the user's question
    VOLATILE = "volatile"  # per-request data: the current date or time, user data
    INPUT = "input"  # the request's own input under a label of its own ("RESUME:" then `{resume}`)


DYNAMIC_KINDS = frozenset({PartKind.HISTORY, PartKind.SOURCES, PartKind.QUESTION, PartKind.VOLATILE, PartKind.INPUT})


@dataclass(frozen=True)
class Part:
    kind: PartKind
    span: Span
    label: str = ""  # a human word for messages: "the current date", "chat history"


@dataclass(frozen=True)
class Message:
    """A chat message (or a role-marked region of plain text)."""

    role: str
    span: Span
    name: str  # how findings name it: "messages[2] (user)"


class _Ifs:
    """The `{% if %}` blocks of a template in text order, each with the nearest one around it."""

    def __init__(self, branches: list[tuple[Span, ...]]):
        blocks = sorted((b for b in branches if b), key=lambda b: (b[0].start, -b[-1].end))
        self.branches = blocks
        self.spans = [Span(b[0].start, b[-1].end) for b in blocks]
        self.starts = [s.start for s in self.spans]
        self.parents: list[int] = []
        open_blocks: list[int] = []
        for i, span in enumerate(self.spans):
            while open_blocks and self.spans[open_blocks[-1]].end <= span.start:
                open_blocks.pop()
            self.parents.append(open_blocks[-1] if open_blocks else -1)
            open_blocks.append(i)


@dataclass
class Prompt:
    text: str
    lower: str  # text.lower(), computed once so that rules match case-sensitively
    sources: list[Source]
    parts: list[Part]  # in text order, not overlapping
    questions: list[Span]  # every place the question is asked, in text order
    messages: list[Message]
    sources_block: Span | None = None  # from the first source to the last, with any container tags
    # Template slots filled with a rewritten form of the question ({standalone_question}).
    rewritten_questions: list[Span] = field(default_factory=list)
    # The names of slots that the code filling the template, not their names, shows are filled with a rewrite:
    # renaming them fixes nothing, the code must pass the question instead.
    rewrites_bound_by_code: frozenset[str] = frozenset()
    # For a source's template in code: the texts of the prompts of its file, when one of them prints what it renders
    # (the prompt that holds the sources, and the rest of its request: whether the model cites their keys, for one).
    hosts: tuple[str, ...] = ()
    # In a template, the branches of each `{% if %}`: text in two branches never renders together.
    branches: list[tuple[Span, ...]] = field(default_factory=list)
    # In a template, the tags that bring in another file's text (an include, a call of an
    # imported macro), or sources written as JSON: what is found there is reported, not
    # fixed. In text order, never overlapping.
    locked: list[Span] = field(default_factory=list)
    # Inside a locked stretch, the spans a fix may still remove whole: the fields of sources
    # written as JSON, each span taking the field's comma with it.
    removable: list[Span] = field(default_factory=list)
    # Includes and imports naming a file outside the project root, which was not read: (tag, name).
    refused_includes: list[tuple[Span, str]] = field(default_factory=list)
    # The text as it was sent, with no slot anywhere: which of its text is static is read from its
    # words alone, not from what a template wrote.
    assembled: bool = False

    def exclusive(self, a: Span, b: Span) -> bool:
        """Whether ``a`` and ``b`` lie in different branches of one `{% if %}`, so never render together.

        Only the deepest `if` holding both can tell: inside it, a deeper one holding both
        would sit in one of its branches. It is found by bisection and a climb up the
        nesting, not by trying every `if` (which made many ifs and questions quadratic).
        """
        ifs = self._ifs
        whole = Span(min(a.start, b.start), max(a.end, b.end))
        node = bisect.bisect_right(ifs.starts, whole.start) - 1
        while node >= 0 and not ifs.spans[node].contains(whole):
            node = ifs.parents[node]
        if node < 0:
            return False
        branches = ifs.branches[node]
        starts = [s.start for s in branches]

        def branch_of(span: Span) -> int | None:
            i = bisect.bisect_right(starts, span.start) - 1
            return i if i >= 0 and branches[i].contains(span) else None

        where_a, where_b = branch_of(a), branch_of(b)
        return where_a is not None and where_b is not None and where_a != where_b

    def is_locked(self, span: Span) -> bool:
        """Whether ``span`` lies in a locked stretch (see ``locked``)."""
        i = bisect.bisect_right(self._locked_starts, span.start) - 1
        return i >= 0 and self.locked[i].contains(span)

    def may_edit(self, span: Span, edits) -> bool:
        """Whether a fix of a finding at ``span`` may make ``edits``: anywhere outside a locked
        stretch; inside one, only removals of whole ``removable`` spans."""
        if not self.is_locked(span):
            return True
        return all(not edit.replacement and edit.span in self._removable for edit in edits)

    @cached_property
    def _removable(self) -> frozenset[Span]:
        return frozenset(self.removable)

    @cached_property
    def _locked_starts(self) -> list[int]:
        return [span.start for span in self.locked]

    @cached_property
    def _ifs(self) -> _Ifs:
        return _Ifs(self.branches)

    def message_at(self, offset: int) -> Message | None:
        for message in self.messages:
            if message.span.start <= offset < message.span.end:
                return message
        return None

    @property
    def question(self) -> Span | None:
        """The question as asked last, the copy that should stay."""
        return self.questions[-1] if self.questions else None
