"""Sources found as blocks of lines that repeat: the lines a renderer writes around every chunk.

A renderer that writes each chunk over several lines writes the same lines around each
(">> METADATA START", "*****", a lone "###"), the same labels before its metadata ("Document
name: ..."), and the chunk's text between them. A line written word for word more than once
opens a unit wherever it stands. Only then is each line of a unit read by its role across
the units: a line the same in every unit is the wrapper's; a labelled line with a short value
is a field; a short unlabelled line that varies, before the text, is a field when it is shaped
as one (a date, a number) and otherwise the title; the rest is the chunk's text.

Lines written word for word more than once are as often the prompt's own (the labels of
few-shot examples, the markers of a list): a run is read as sources only on evidence of
retrieved text: two units or more, each with a text of its own words that no other unit has,
none speaking to the model and most opening with no imperative, under a line that speaks of the context, or under a line
that announces what follows (ending in a colon) with the question asked after the units.
This reader is the last one asked: a text whose sources another reader finds is not read here.
"""

from __future__ import annotations

import collections
import itertools
import re

from ...meaning.vocabulary import normalise_label
from ...model.lines import with_newline
from ...model.prompt import Field, FieldForm, Message, Source, Span
from .instructions import looks_like_instruction, opens_with_imperative
from .skeleton import CONTENT_WORDS, asked_after, value_shaped, where_sources_stand
from .records import record_field
from .sources import by_position, cut_last_source, first_value, strip_blank_edges
from .vocab import LABEL_LINE, SEPARATOR, SLOT, Line, Vocab

_NUMBERS = re.compile(r"\d+")
# How many different repeated lines are tried as the line that opens a unit, in the order they first stand.
MAX_OPENERS = 8
# Words past which a labelled line's value is text, not a field's value.
FIELD_WORDS = 8
# Words past which an unlabelled line is no field nor title.
TITLE_WORDS = 8


def repeated_blocks(text: str, lines: list[Line], vocab: Vocab, messages: list[Message]) -> list[Source]:
    """The sources written as blocks that open with a line repeated word for word (see the module's docstring)."""
    written = collections.Counter(line.text.strip() for line in lines if not line.blank)
    openers = [key for key in dict.fromkeys(line.text.strip() for line in lines if not line.blank) if written[key] >= 2]
    for opener in openers[:MAX_OPENERS]:
        if SLOT.search(opener.lower()):
            continue  # a template's line: its units are a loop's, which the template readers read
        if sources := _units(text, lines, opener, vocab, messages):
            return by_position(sources)
    return []


def _units(text: str, lines: list[Line], opener: str, vocab: Vocab, messages: list[Message]) -> list[Source]:
    """The units that each line ``opener`` opens, read by role; none when they are no sources."""
    starts = [i for i, line in enumerate(lines) if line.text.strip() == opener]
    if not _opens_units(lines, starts, opener):
        return []
    blocks = [_blanks_off(lines[a:b]) for a, b in zip(starts, starts[1:])]
    # A unit of nothing but its opener closes the one before ("###" after a note): it is no unit.
    blocks = [block for block in blocks if _holds_more(block, opener)]
    if not blocks:
        return []
    read = [_read(text, block, _shared(blocks), vocab) for block in blocks]
    # The text of the last unit starts after as many lines as it does in every unit before (its own heading need not end it).
    head = min((sum(line.end <= source.content.start for line in block) for block, source in zip(blocks, read) if source), default=1)
    last = _last_block(lines[starts[-1] :], blocks, head, vocab, messages)
    blocks += [last] if _holds_more(last, opener) else []
    shared = _shared(blocks)
    read = [_read(text, block, shared, vocab) for block in blocks]
    if len(blocks) < 2 or any(source is None for source in read) or not _retrieved(text, read, lines, vocab):
        return []
    return read


def _opens_units(lines: list[Line], starts: list[int], opener: str) -> bool:
    """Whether a repeated line stands where units start: not one value of a header that varies ("Page 24:" twice
    among "Page 23:" and "Page 7:", which other readers read), nor right under a line each time ("- id (BIGINT)"
    under each "TABLE `users`:": a line inside units that start above it)."""
    shape = _shape(opener)
    if any(_shape(line.text.strip()) == shape and line.text.strip() != opener for line in lines[starts[0] : starts[-1]]):
        return False
    return not all(i and not lines[i - 1].blank and not SEPARATOR.match(lines[i - 1].text) for i in starts)


def _shape(line: str) -> str:
    """A line with its numbers as one mark: "Page 24:" and "Page 7:" are one shape."""
    return _NUMBERS.sub("0", line)


def _holds_more(block: list[Line], opener: str) -> bool:
    return any(not line.blank and line.text.strip() != opener for line in block)


def _blanks_off(block: list[Line]) -> list[Line]:
    end = len(block)
    while end > 1 and block[end - 1].blank:
        end -= 1
    return block[:end]


def _shared(blocks: list[list[Line]]) -> set[str]:
    """The lines every unit writes, word for word: the wrapper's."""
    return set.intersection(*({line.text.strip() for line in block if not line.blank} for block in blocks))


def _last_block(rest: list[Line], blocks: list[list[Line]], head: int, vocab: Vocab, messages: list[Message]) -> list[Line]:
    """The last unit: up to the line that closes every unit before it, as often as it stands in them (the
    second "*****" of a text between two), else its ``head`` lines and its text up to the next part of the
    prompt, less the rules that end it."""
    closings = {block[-1].text.strip() for block in blocks}
    if len(closings) == 1 and (closing := closings.pop()) != rest[0].text.strip():
        times, seen = sum(line.text.strip() == closing for line in blocks[0]), 0
        for i, line in enumerate(rest):
            seen += line.text.strip() == closing
            if seen == times:
                return rest[: i + 1]
    heading = list(itertools.takewhile(lambda line: not line.blank, rest[:head]))
    if len(heading) < head or head >= len(rest):
        return heading  # a unit's lines before its text run unbroken: a blank line among them ends it ("###" closing one)
    return strip_blank_edges(heading + cut_last_source(rest[head:], vocab, messages, rest[head].start, seen_content=True))


def _read(text: str, block: list[Line], shared: set[str], vocab: Vocab) -> Source | None:
    """One unit read by role (see the module's docstring); None when it has no text of its own."""
    fields: list[Field] = []
    title = None
    body: list[Line] = []
    for line in block:
        if body:
            body.append(line)
        elif line.blank or line.text.strip() in shared:
            continue
        elif (field := _field(text, line)) is not None:
            fields.append(field)
        elif len(line.text.split()) <= TITLE_WORDS and value_shaped(line.text.strip(" #*_")):
            fields.append(Field("", line.text.strip(" #*_"), with_newline(text, line), _stripped(line), FieldForm.LINE))
        elif len(line.text.split()) <= TITLE_WORDS and title is None and not fields:
            title = line.text.strip(" #*_")
        else:
            body.append(line)
    # The wrapper's lines after the text ("*****" closing it) are no part of it.
    body = strip_blank_edges([line for line in body if line.text.strip() not in shared or line.blank])
    if not body:
        return None
    content = Span(body[0].start, body[-1].end)
    # Read by what repeats, not by what a format marks: a line taken for a field may be the chunk's own, so no fix of one is certain.
    return Source(0, Span(block[0].start, block[-1].end), Span(block[0].start, content.start), content,
                  title=title or first_value(fields, vocab.title_labels), fields=fields, guessed=True)


def _field(text: str, line: Line) -> Field | None:
    """A labelled line with a short value ("Document name: github.md"), as a field."""
    labelled = LABEL_LINE.match(line.text)
    if labelled is None or not labelled["value"].strip() or len(labelled["value"].split()) > FIELD_WORDS:
        return None
    return record_field(text, line, labelled, normalise_label(labelled["label"]))


def _stripped(line: Line) -> Span:
    """Where a line's words stand, without its marks ("# 05-06-2023")."""
    inner = line.text.strip(" #*_")
    at = line.text.index(inner) if inner else 0
    return Span(line.start + at, line.start + at + len(inner))


def _retrieved(text: str, sources: list[Source], lines: list[Line], vocab: Vocab) -> bool:
    """Whether units read as such are retrieved text: each a text of its own words, none the same as
    another's, none opening with an instruction, and where sources stand (see skeleton)."""
    texts = [text[s.content.start : s.content.end] for s in sources]
    if any(len(t.split()) < CONTENT_WORDS for t in texts) or len(set(texts)) < len(texts):
        return False
    # A how-to's chunk may open with a verb ("Select the trigger ..."), and a note with a word that is one ("Quote
    # from ..."): units are instructions when most open so, or one speaks to the model.
    firsts = [next(line for line in lines if line.start == s.content.start) for s in sources]
    if any(looks_like_instruction(f, vocab.lexicon) for f in firsts) or 2 * sum(opens_with_imperative(f, vocab.lexicon) for f in firsts) > len(firsts):
        return False
    # Where sources stand (see skeleton), a rule between the line above and the units ("---") standing for nothing;
    # or under a line that announces what follows ("Here are the notes:") and before the question.
    first = next(i for i, line in enumerate(lines) if line.start == sources[0].span.start)
    above = next((i for i in range(first - 1, -1, -1) if not lines[i].blank and not SEPARATOR.match(lines[i].text)), None)
    if above is None:
        return False
    end = sources[-1].span.end
    announced = lines[above].lower.rstrip().endswith(":") and asked_after(lines, vocab, end)
    return announced or where_sources_stand(lines, vocab, above + 1, end)
