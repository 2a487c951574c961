"""Pieces several rules share: reading metadata fields, the evidence that they are metadata,
and building the fixes that drop them."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ..meaning.lexicon import Lexicon
from ..meaning.values import number, parse_date
from ..model.findings import Applicability, Edit, Fix
from ..model.lines import remove_line
from ..model.prompt import Field, FieldForm, Prompt, Source, SourceStyle, Span

# "{score:.2f}", "{{ doc.score }}", "{{ '%.3f' % hit.score }}", a JavaScript template's "${c.score}",
# a field that formats its value in a string of its own ("{quoteattr(f'{s:.6f}')}"), or a prompt library's "[DOC_2_SCORE]".
_SLOT_VALUE = re.compile(r"\$?\{\{?(?:[^{}]|\{[^{}]*\})*\}\}?|\[[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\]")
# A slot reads a name: "{1}" and "{}" print none.
_NAMED = re.compile(r"[A-Za-z_]")


def is_slot(value: str) -> bool:
    """A template slot standing for the value ("{score:.2f}", "{{ doc.score }}", "[DOC_2_SCORE]")."""
    slot = _SLOT_VALUE.fullmatch(value.strip())
    return slot is not None and _NAMED.search(slot[0]) is not None


def has_slot(value: str) -> bool:
    """Whether a template slot stands somewhere in the value ("{item.id}: {item.name}")."""
    return any(_NAMED.search(slot[0]) for slot in _SLOT_VALUE.finditer(value))


# An ordinal's own shape, whatever its label: "3 of 7", "3/7", "#3".
_COUNTED = re.compile(r"\d+\s*(?:of|/)\s*\d+|#\s*\d+")
# A number or an id, one token ("3", "8f3a91c2", "node-17").
_ID = re.compile(r"[\w.:/-]{1,80}")
# A whole number, as a place in a list is written ("3", "#3").
_WHOLE = re.compile(r"#?\s*\d+")
# A fraction or a percentage as written ("0.93", ".5", "93%", "81.5 %").
_FRACTION = re.compile(r"\d*\.\d+|\d+(?:\.\d+)?\s*%")
# The names a slot reads ("{{ '%.2f' % d.score }}" reads "d.score").
_SLOT_NAME = re.compile(r"[A-Za-z_][\w.]*")


def _shared(field: Field, lexicon: Lexicon) -> bool:
    """Whether a score and an ordinal both go by the field's name ("rank"): its value tells them apart,
    a fraction or a percentage being a score, a whole number a place in the list."""
    concepts = lexicon.concepts(field.label)
    return "score" in concepts and "ordinal" in concepts


def _slot_scores(value: str, lexicon: Lexicon) -> bool:
    """Whether a slot prints a score and nothing an ordinal goes by: under a shared name, the slot's own name decides."""
    return any(
        "score" in found and "ordinal" not in found
        for found in (lexicon.concepts(name.rsplit(".", 1)[-1]) for name in _SLOT_NAME.findall(value))
    )


def _score_shaped(field: Field, lexicon: Lexicon) -> bool:
    """A number that is no date ("2026-01-04" is no score), or a slot that prints one."""
    value = field.value.strip()
    if is_slot(value):
        return not _shared(field, lexicon) or _slot_scores(value, lexicon)
    if number(value) is None or parse_date(value) is not None:
        return False
    return not (_shared(field, lexicon) and _WHOLE.fullmatch(value))


def _ordinal_shaped(field: Field, lexicon: Lexicon) -> bool:
    """An ordinal's shape, or a slot that prints one. "Part 2" under a heading-item word is a heading,
    an element's text ("<chunk>Refunds are issued ...</chunk>") is the retrieved content, and a
    date, a fraction or a percentage is no place in a list."""
    value = field.value.strip()
    if is_slot(value):
        return not (_shared(field, lexicon) and _slot_scores(value, lexicon))
    if _COUNTED.fullmatch(value):
        return True
    if parse_date(value) is not None or _FRACTION.fullmatch(value):
        return False
    # An id numbers something: a word alone ("confluence") is no place in a list.
    return field.label not in lexicon.phrases("heading-item") and bool(_ID.fullmatch(value)) and any(c.isdigit() for c in value)


# The shape a value must have to be the concept's: a score is a number, a date a date, an ordinal
# an ordinal; each may be a template slot that prints one. A concept not listed takes any value.
SHAPES: dict[str, Callable[[Field, Lexicon], bool]] = {
    "score": _score_shaped,
    "date": lambda field, _: parse_date(field.value) is not None or is_slot(field.value),
    "ordinal": _ordinal_shaped,
}


@dataclass(frozen=True)
class Reading:
    """A field read as metadata of one concept, with the evidence of that reading. Its label names
    the concept (the lexicon's word, unqualified by a domain word: "rerank score", not "risk score");
    ``shaped``: its value has the concept's shape; ``repeated``: a renderer wrote it, as a template
    does, or as the same label on the sources of assembled text shows. A label on one source
    only, or a different label on the next, is the document's own text."""

    source: Source
    field: Field
    shaped: bool
    repeated: bool

    @property
    def certain(self) -> bool:
        return self.shaped and self.repeated and not self.source.guessed

    @property
    def applicability(self) -> Applicability:
        """What removing it is: safe only when every piece of evidence holds."""
        return Applicability.SAFE if self.certain else Applicability.UNSAFE


class _Labels:
    """Which labels the sources written the same way carry, counted once per prompt: each rule asks
    of every field, and a prompt may hold thousands of sources."""

    def __init__(self, prompt: Prompt):
        self.peers: Counter[SourceStyle] = Counter()
        self.carriers: Counter[tuple[SourceStyle, str]] = Counter()
        for source in prompt.sources:
            if not source.marked:
                self.peers[source.style] += 1
                self.carriers.update((source.style, label) for label in {f.label for f in source.fields})
        self._meaning: dict[tuple[SourceStyle, str], frozenset[str]] = {}

    def of_concept(self, style: SourceStyle, concept: str, lexicon: Lexicon) -> frozenset[str]:
        found = self._meaning.get((style, concept))
        if found is None:
            found = self._meaning[(style, concept)] = frozenset(label for s, label in self.carriers if s == style and lexicon.means(label, concept))
        return found


_last: list[tuple[Prompt, _Labels]] = []  # the prompt the rules are reading now, and its labels


def _labels(prompt: Prompt) -> _Labels:
    # Read once into a local: a server's threads lint other prompts at the same time, and a race
    # costs only a recount, never another prompt's labels.
    entry = _last[0] if _last else None
    if entry is None or entry[0] is not prompt:
        entry = (prompt, _Labels(prompt))
        _last[:] = [entry]
    return entry[1]


def rendered_by_a_renderer(prompt: Prompt, source: Source, field: Field, concept: str, lexicon: Lexicon) -> bool:
    """Whether a renderer wrote the field's label: a source template, a wrapper the format marks, or,
    among the sources written the same way (when two or more are), the label on two of them or more
    and no other label of the concept on any (in markup, an attribute or a child element on two or more): a label on one source only, or another label on the
    next source, is the document's own text."""
    if source.repeated or source.marked:
        return True
    labels = _labels(prompt)
    if labels.peers[source.style] < 2:
        # One source written so shows no renderer: a labelled line of its may be the document's own;
        # markup and a header's group are not prose.
        return source.style is SourceStyle.XML or field.form is not FieldForm.LINE
    if source.style is SourceStyle.XML and field.form in (FieldForm.INLINE, FieldForm.TAG):
        # Markup, not prose: an attribute or a child element that two sibling sources or more carry
        # is the renderer's, whatever other names the concept has beside it (<doc rank> over <passage match>).
        return labels.carriers[(source.style, field.label)] >= 2
    return labels.carriers[(source.style, field.label)] >= 2 and labels.of_concept(source.style, concept, lexicon) <= {field.label}


def read(prompt: Prompt, source: Source, field: Field, concept: str, lexicon: Lexicon) -> Reading:
    if field.value and field.value == prompt.text[source.content.start : source.content.end].strip():
        # The source's own text printed again (`{chunk['chunk']}` in both branches of an `if`): content, no metadata.
        return Reading(source, field, False, False)
    shape = SHAPES.get(concept)
    return Reading(source, field, shape is None or shape(field, lexicon), rendered_by_a_renderer(prompt, source, field, concept, lexicon))


def written(prompt: Prompt, field: Field) -> str:
    """The field as a message quotes it: its label and value as the file writes them."""
    if field.quoted:
        return f"{field.label}: {field.quoted}"
    text = field.elsewhere if field.elsewhere is not None else prompt.text[field.span.start : field.span.end]
    return " ".join(text.split()).strip(" ,;|/()[]\u00b7\u2022\u2014\u2013-")


def label_written(prompt: Prompt, field: Field) -> str:
    """The field's label as the file writes it ("Summary", "Key facts"); the field as written when
    its label is no text of the file (a slot's name, a JSON key read from its value's place)."""
    if field.elsewhere is None and field.span.start < field.value_span.start <= field.span.end:
        label = prompt.text[field.span.start : field.value_span.start].strip(" \t\n:=|()[]<>/,;\u2014\u2013-\"'")
        if label and not has_slot(label):
            return " ".join(label.split())
    return written(prompt, field)


# What must not be left at the seam of a removal: a separator or a label's colon with nothing after
# it, punctuation that belonged to the removed value, or words around a gap ("Chunk  of {{ n }}").
_DANGLING_END = re.compile(r"(?:[:=>|/,;#(\[\u2014\u2013-]|\w[ \t]+)[ \t]*$")
_DANGLING_START = re.compile(r"^[ \t]*[.:,;)\]]")


def _imbalance(text: str) -> int:
    return sum(text.count(opening) - text.count(closing) for opening, closing in ("()", "[]"))


def whole_unit(text: str, span: Span) -> bool:
    """Whether removing ``span`` takes a whole unit: its line is left with no dangling separator,
    label, bracket or parenthesis, and no words on both sides of a gap, that it did not have."""
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.end)
    line_end = len(text) if line_end < 0 else line_end
    left, right = text[line_start : span.start], text[span.end : line_end]
    if _imbalance(text[span.start : span.end]) != 0:
        return False  # one bracket of a pair goes, the other stays: "(relevance {{ s }})" cut to "(relevance "
    if not left.strip():
        return not _DANGLING_START.match(right)
    if not right.strip():
        return not _DANGLING_END.search(left) or bool(_DANGLING_END.search(text[line_start:line_end]))
    # Punctuation after the seam is the removed value's ("CHUNK {id}. ") only with a gap before it.
    if left[-1:].isspace() and (right[:1].isspace() or _DANGLING_START.match(right)):
        return False
    return not re.search(r"[(\[][ \t]*$", left)


# A separator between the items of a header ("Title | score 0.9", "---- score 0.9", "Title — 0.9, Returns").
_SEPARATORS = "|/,;\u2014\u2013\u00b7-"
_SEPARATOR_BEFORE = re.compile(r"[ \t]*(?:[|/,;\u2014\u2013\u00b7]|-+)[ \t]*$")
_SEPARATOR_AFTER = re.compile(r"^[ \t]*(?:[|/,;\u2014\u2013\u00b7]|-+)[ \t]*")


def _unit(text: str, span: Span, label: str) -> Span | None:
    """The span that removes an inline field whole: itself, with its label when the label is
    written before a slot ("score {{ doc.score }}"), and with the separator that joins it to
    the item before it (or, first on its line, to the item after it); None when no such span
    leaves the line whole."""
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.end)
    line_end = len(text) if line_end < 0 else line_end
    labelled = re.search(r"(?i)(?<![\w])" + r"[ _-]?".join(map(re.escape, label.split())) + r"[ \t]*[:=]?[ \t]*$", text[line_start : span.start]) if label else None
    cores = [span] + ([Span(line_start + labelled.start(), span.end)] if labelled else [])
    for core in cores:
        left = text[line_start : core.start]
        spaced = len(left) - len(left.rstrip(" \t"))
        before = _SEPARATOR_BEFORE.search(left)
        after = _SEPARATOR_AFTER.match(text[core.end : line_end])
        candidates = [
            core,
            # The field's span opens on its separator: the space before it goes too.
            Span(core.start - spaced, core.end) if spaced and text[core.start] in _SEPARATORS else None,
            Span(line_start + before.start(), core.end) if before and before.start() > 0 else None,
            Span(core.start, core.end + after.end()) if after else None,
        ]
        for candidate in candidates:
            if candidate is not None and whole_unit(text, candidate):
                return candidate
    return None


def remove_field(prompt: Prompt, field: Field, description: str, applicability: Applicability = Applicability.SAFE) -> Fix | None:
    """The fix that removes the field whole, or none when its whole unit cannot be told."""
    span = remove_line(prompt.text, field.span) if field.form != FieldForm.INLINE else _unit(prompt.text, field.span, field.label)
    return Fix(applicability, (Edit(span),), description) if span is not None else None


def remove_source(prompt: Prompt, source: Source, description: str) -> Fix:
    """Drop a whole source, with the blank line that separates it from the next."""
    end = source.span.end
    text = prompt.text
    while end < len(text) and text[end] in " \t":
        end += 1
    while end < len(text) and text[end] == "\n" and (end + 1 >= len(text) or text[end + 1] in "\n"):
        end += 1
    if end < len(text) and text[end] == "\n":
        end += 1
    return Fix(Applicability.UNSAFE, (Edit(Span(source.span.start, end)),), description)


def source_label(source: Source) -> str:
    """How a message names a source: by its citation key, or as every source of a template."""
    if source.repeated:
        return "Each source"
    return f"Source {source.key or source.position + 1}"
