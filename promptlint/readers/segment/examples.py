"""Worked examples, sample outputs and output formats written into the instructions.

They are static text: what they show is never a source, the user's question or per-request
data of this request, and never a wrapper around a source. They are told apart by structure
first (an element named for examples, a marker line and the block under it, a fenced block or
a written-out exchange in a template), and a block that holds a template slot is live data,
whatever announces it (an exchange: a slot that names the question, the context or the history).
What a marker word means is the lexicon's (segment.yaml, example-cues).
"""

from __future__ import annotations

import dataclasses
import re

from ...meaning import vocabulary
from ...meaning.vocabulary import normalise_label
from ...model.prompt import Message, Source, Span, SpanSet
from .vocab import QUESTION_LINE, SLOT, Line, Vocab, may_hold_slot, named_slots, names_the_question, trim


def example_spans(text: str, lower: str, lines: list[Line], vocab: Vocab, messages: list[Message]) -> list[Span]:
    """The examples of the text, in text order, none overlapping.

    In a template (the text has a slot) every literal block is static, so a fenced block or a
    written-out exchange with no slot in it is an example by its shape alone, and a marker's
    block runs on to the next slot. In an assembled prompt nothing tells a real paragraph from a
    written-out one but the marker, so a marker's block is the paragraph under it.
    """
    template = is_template(lower)
    found = _tagged(lower, vocab)
    if vocabulary.may_match(vocab.example_cues, lower):
        # A marker line writes its cue as it is: a text with no cue has none, and most have none.
        found += _marked(lines, vocab, messages, template) + _inline(lines, vocab)
    if template:
        found += _fenced(lines)
    if "<" in text:
        found += _placeholder_blocks(lines)
    found += _asked_formats(lines, vocab)
    found = [span for span in found if not _has_slot(lower, span.start, span.end)]
    if template:
        # A written answer is never the live turn's, whatever it prints ("A: You went there in {year}.");
        # a slot that holds the question, the context or the history is.
        found += [span for span in _exchanges(lines, vocab) if not _asks(text, lower, span, vocab)]
    return SpanSet(found).spans


def _asked_formats(lines: list[Line], vocab: Vocab) -> list[Span]:
    """The forms a line asks the answer in and writes out under it ("Please return a JSON object with the following
    schema:", then the object; "Respond in this format:", then a fenced block or the paragraph), each with its line."""
    found = []
    for index, line in enumerate(lines):
        if line.text.rstrip().endswith((":", "\uff1a", "**")) and vocab.asks_for_a_format.match(line.lower):
            end = _form_end(lines, index + 1)
            if end is not None:
                found.append(Span(line.start, lines[end].end))
    return found


def _form_end(lines: list[Line], start: int) -> int | None:
    """The index of the last line of the form written from line ``start`` on (blank lines before it skipped): a
    fenced block to its fence, a JSON object or array to the line its brackets close on, else the paragraph."""
    first = next((i for i in range(start, len(lines)) if not lines[i].blank), None)
    if first is None:
        return None
    opening = lines[first].text.strip()[:1]
    if _FENCE.match(lines[first].lower):
        return next((i for i in range(first + 1, len(lines)) if _FENCE.match(lines[i].lower)), None)
    if opening in "{[":
        depth = 0
        for i in range(first, len(lines)):
            depth += sum(lines[i].text.count(c) for c in "{[") - sum(lines[i].text.count(c) for c in "}]")
            if depth <= 0:
                return i
        return None
    return next((i - 1 for i in range(first, len(lines)) if lines[i].blank), len(lines) - 1)


# A line whose value is a placeholder a reader is told to fill: "**Summary:** <one or two sentences>", "## <label>",
# "- Title: <the paper's title>". The placeholder is words in angle brackets, not a tag (no "=", no "/").
_PLACEHOLDER_LINE = re.compile(r"\s*(?:#{1,6}\s*|[-*]\s+)?(?:\**[^\W\d][^:<>\n]{0,40}?\**\s*[:\uff1a]\s*\**\s*)?<[^<>=/\n]*\s[^<>=/\n]*>|\s*#{1,6}\s*<[^<>=/\n]+>")
# How many such lines in a row write out a format.
PLACEHOLDER_RUN = 3


def _placeholder_blocks(lines: list[Line]) -> list[Span]:
    """Runs of lines whose values are placeholders (`## <label>`, then `**Street Photos:** <one sentence — ...>`
    on each line): a format written out for the model to fill, never data, however it is introduced."""
    found, run = [], []
    for line in [*lines, None]:
        if line is not None and _PLACEHOLDER_LINE.match(line.text):
            run.append(line)
            continue
        if len(run) >= PLACEHOLDER_RUN:
            found.append(Span(run[0].start, run[-1].end))
        run = []
    return found


def end_before(text: str, sources: list[Source], examples: list[Span]) -> list[Source]:
    """Each source cut where an example after the start of its text starts: an example is never a
    chunk's text, and once it is read as nothing, what ended the chunk before (its marker) is gone.
    An example element among a source's fields, before its text (`<expected_output>` beside
    `<document_content>`), is blank wrapper, and the text after it is still the chunk."""
    cut = []
    for source in sources:
        stop = next((e.start for e in examples if source.content.start <= e.start < source.span.end), None)
        if stop is not None:
            end = trim(text, Span(source.span.start, stop)).end
            content = Span(min(source.content.start, end), min(source.content.end, end))
            source = dataclasses.replace(source, span=Span(source.span.start, end), content=content)
        cut.append(source)
    return cut


def _asks(text: str, lower: str, span: Span, vocab: Vocab) -> bool:
    """Whether a slot in ``span`` holds the question, the context or the history: a date printed into a
    written answer ("dt<'{current_date}'") is the example's."""
    return any(kind in ("question", "context", "history") for _, kind in named_slots(text, lower, span.start, span.end, vocab))


def blank_out(text: str, spans: list[Span]) -> str:
    """``text`` with each span's characters but its line breaks made spaces: the offsets stay, and
    what reads the text for sources, questions and turns finds nothing there."""
    pieces, pos = [], 0
    for span in spans:
        pieces.append(text[pos : span.start])
        pieces.append(re.sub(r"[^\n]", " ", text[span.start : span.end]))
        pos = span.end
    pieces.append(text[pos:])
    return "".join(pieces)


# A Jinja statement ("{% for d in docs %}") is the template's too: what it repeats is live.
_STATEMENT = re.compile(r"\{%")


def is_template(lower: str) -> bool:
    """Whether a text is a template (it has a slot or a statement), whose literal text is all written once."""
    return _has_slot(lower, 0, len(lower))


def _has_slot(lower: str, start: int, end: int) -> bool:
    return may_hold_slot(lower[start:end]) and bool(SLOT.search(lower, start, end) or _STATEMENT.search(lower, start, end))


_OPENING_TAG = re.compile(r"<([a-z_][\w-]*)(?:\s[^<>]*)?>")
# A tag named in words (`<Reference documents JSON format>`, `<Answer rules>`), as prompts write them:
# its whole name, with no attribute, closes it.
_WORDS_TAG = re.compile(r"<([a-z_][\w-]*(?: [\w-]+)+)>")


def _tagged(lower: str, vocab: Vocab) -> list[Span]:
    """Elements whose name is an example's (<example>, <few_shot_examples>, <output_format>), with their tags."""
    found = []
    if "<" not in lower:
        return found
    for match in [*_OPENING_TAG.finditer(lower), *_WORDS_TAG.finditer(lower)]:
        if vocab.example_word.search(normalise_label(match[1])):
            close = lower.find(f"</{match[1]}>", match.end())
            if close > 0:
                found.append(Span(match.start(), close + len(match[1]) + 3))
    return found


def is_marker(line: Line, vocab: Vocab) -> bool:
    """Whether a line announces an example: a heading or a bold line that starts with the cue, the cue
    and a name before a colon ("Example chat history:"), or the cue alone ("-Examples-", "Example #2")."""
    match = vocab.example_marker.match(line.lower)
    if match is None:
        return False
    if match["heading"] or match["bold"]:
        return True  # "### Example: refunds" names its example; the block is under it
    return not match["shown"] and (match["colon"] is not None or re.fullmatch(r"[\s#]*\d*", match["name"]) is not None)


def _inline(lines: list[Line], vocab: Vocab) -> list[Span]:
    """What a marker shows on its own line, after its colon ("For example: "Today is sunny [1]."")."""
    found = []
    for line in lines:
        match = vocab.example_marker.match(line.lower) if ":" in line.lower or "\uff1a" in line.lower else None
        if match and match["shown"] and not (match["heading"] or match["bold"]):
            found.append(Span(line.start + match.start("shown"), line.end))
    return found


_FENCE = re.compile(r"\s*(?:```|~~~)")
# A closing tag at the start of a line: the element the marker stands in ends there.
_CLOSING = re.compile(r"\s*</([a-z_][\w-]*)>")
# A Markdown heading: its marks, and its words.
_HEADING = re.compile(r"\s*(#{1,6})\s+(.*?)[\s:#]*$")


def _marked(lines: list[Line], vocab: Vocab, messages: list[Message], template: bool) -> list[Span]:
    """The blocks under marker lines, each with its marker."""
    found = []
    index = 0
    while index < len(lines):
        if not is_marker(lines[index], vocab):
            index += 1
            continue
        end = _block_end(lines, index, vocab, messages, template)
        body = [line for line in lines[index + 1 : end] if not line.blank]
        if body:
            found.append(Span(lines[index].start, body[-1].end))
        index = max(end, index + 1)
    return found


def _block_end(lines: list[Line], marker: int, vocab: Vocab, messages: list[Message], template: bool) -> int:
    """The index of the first line after a marker's block: the paragraph that holds a slot (or the
    slot's line, in the marker's own paragraph), a new turn, the end of the element or message the
    marker stands in, another marker's paragraph; in an assembled prompt also the paragraph's end,
    unless the marker is a Markdown heading: its section is its block (see _section_end)."""
    message_end = next((m.span.end for m in messages if m.span.start <= lines[marker].start < m.span.end), None)
    heading = _HEADING.match(lines[marker].lower)
    if heading and not template:
        section = _section_end(lines, marker, len(heading[1]), message_end, vocab)
        if _answered(lines[marker + 1 : section], vocab):
            return section
    paragraph, fenced, seen = marker, False, False
    for index in range(marker + 1, len(lines)):
        line = lines[index]
        if message_end is not None and line.start >= message_end:
            return index
        if _FENCE.match(line.lower):
            fenced, seen = not fenced, True
        elif SLOT.search(line.lower) or _STATEMENT.search(line.lower):
            return paragraph + 1 if paragraph > marker else index
        elif line.blank and not fenced:
            if seen and not template:
                return index
            paragraph = index
        elif not fenced:
            if _ends_block(lines, marker, index, vocab, seen and paragraph == index - 1):
                return index
            seen = True
    return len(lines)


def _section_end(lines: list[Line], marker: int, level: int, message_end: int | None, vocab: Vocab) -> int:
    """The first line after the section a heading marker opens ("## Example 1: Statistics"): a heading
    of its level or above, a heading that names the context or the question, a slot, or the end of the
    message it stands in."""
    for index in range(marker + 1, len(lines)):
        line = lines[index]
        if message_end is not None and line.start >= message_end or SLOT.search(line.lower):
            return index
        heading = _HEADING.match(line.lower)
        if heading and (len(heading[1]) <= level or (normalise_label(heading[2]) in vocab.context_labels or names_the_question(normalise_label(heading[2]), vocab))):
            return index
    return len(lines)


def _answered(section: list[Line], vocab: Vocab) -> bool:
    """Whether a section writes out an exchange over its paragraphs: a line asking ("USER: ...") and,
    after it, another label with the answer written on it or on the line under it. Such a worked example
    (its documents, the question, the answer) is one example whatever blank lines it holds; a live
    prompt leaves the answer to the model."""
    labels = [_label(line) for line in section]
    # The asking label may be qualified ("Original question:"), and what the example writes after it may be under a
    # label of its own ("Alternative questions:"): under an example's heading, a question and then another labelled
    # part are an exchange written out.
    asked = next((i for i, label in enumerate(labels) if label in vocab.example_asking or label.rpartition(" ")[2] in vocab.example_asking), None)
    if asked is None:
        return False
    answers = [i for i in range(asked + 1, len(section)) if labels[i] and labels[i] != labels[asked]]
    return any(_value(section[i]) or i + 1 < len(section) and not section[i + 1].blank for i in answers)


def _ends_block(lines: list[Line], marker: int, index: int, vocab: Vocab, opens_paragraph: bool) -> bool:
    """Whether a line ends the block above it: a turn's role, another marker opening its paragraph,
    or the closing tag of an element opened before the marker."""
    line = lines[index]
    if vocab.role_marker.match(line.lower) or (opens_paragraph and is_marker(line, vocab)):
        return True
    closing = _CLOSING.match(line.lower)
    return closing is not None and not any(f"<{closing[1]}" in ln.lower for ln in lines[marker + 1 : index])


def _fenced(lines: list[Line]) -> list[Span]:
    """Fenced blocks: in a template, one with no slot in it is a format or a sample, written once."""
    fences = [line for line in lines if _FENCE.match(line.lower)]
    return [Span(opening.start, closing.end) for opening, closing in zip(fences[::2], fences[1::2])]


# A fence's opening line and the language its info string names ("```python", "~~~ ts").
_CODE_FENCE = re.compile(r"\s*(?:```|~~~)\s*([\w+#-]+)")


def code_spans(lines: list[Line], vocab: Vocab) -> list[Span]:
    """Fenced blocks of program code (the fence names the language: "```python"). A slot written inside the
    code (`print(f"Prompt: {input}")`, a dict's braces) is the code's own, and the block is shown text like an
    example; one alone on its line fills the block with this request's code ("```python\n{code}\n```")."""
    fences = [index for index, line in enumerate(lines) if _FENCE.match(line.lower)]
    found = []
    for opening, closing in zip(fences[::2], fences[1::2]):
        language = _CODE_FENCE.match(lines[opening].lower)
        if language is None or language[1] not in vocab.code_languages:
            continue
        if not any(SLOT.fullmatch(line.lower.strip()) for line in lines[opening + 1 : closing]):
            found.append(Span(lines[opening].start, lines[closing].end))
    return found


def _exchanges(lines: list[Line], vocab: Vocab) -> list[Span]:
    """Paragraphs that write out a few-shot exchange: a line asking ("Q: ...", "User: ...") and after
    it a line answering with its answer written ("A: Paris."). The live exchange leaves the answer
    to the model ("A:"), or is a slot."""
    found = []
    paragraph: list[Line] = []
    for line in [*lines, Line(0, 0, "", "")]:
        if not line.blank:
            paragraph.append(line)
            continue
        labels = [(_label(ln), ln) for ln in paragraph]
        asked = next((i for i, (label, _) in enumerate(labels) if label in vocab.example_asking), None)
        if asked is not None and any(label in vocab.example_answers and _value(ln) for label, ln in labels[asked + 1 :]):
            found.append(Span(paragraph[0].start, paragraph[-1].end))
        paragraph = []
    return found


def _label(line: Line) -> str:
    match = QUESTION_LINE.match(line.lower)
    return normalise_label(match["label"]) if match else ""


def _value(line: Line) -> str:
    match = QUESTION_LINE.match(line.lower)
    return match["value"].strip() if match else ""

