"""Every stretch of the prompt labelled: static instructions or per-request data."""

from __future__ import annotations

import bisect
import json
import re

from ...meaning.vocabulary import normalise_label
from ...model.prompt import Message, Part, PartKind, Source, Span, SpanSet
from ..expressions import slot_reference
from .vocab import SLOT, Line, QUESTION_LINE, Vocab, holds_setup, lowercase, may_hold_slot, named_slots


# "{context} := ...": a written-out prompt shape saying what a slot expands to.
_DEFINITION = re.compile(r"\s*\{\{?\s*[a-z_][\w.]*\s*\}\}?\s*:?=")


def label_parts(
    text: str,
    lower: str,
    lines: list[Line],
    vocab: Vocab,
    sources: list[Source],
    block: Span | None,
    questions: list[Span],
    messages: list[Message],
    examples: list[Span] = (),
    assembled: bool = False,
    turns: Span | None = None,
) -> list[Part]:
    """Label every non-blank stretch of the prompt as static or per-request; ``examples`` are static, ``turns``
    are chat messages written out as JSON. In an assembled prompt, a JSON value under a title of its own is the
    request's input (see _titled_json)."""
    parts = _data_blocks(block, turns)
    parts += _titled_inputs(text, lines, vocab, [p.span for p in parts] + list(examples), assembled)
    for question in questions:
        if block is None or not block.contains(question):
            parts.append(Part(PartKind.QUESTION, Span(_label_start(lower, question), _label_end(lower, question)), "the question"))
    last_user = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"), None)
    for i, message in enumerate(messages):
        if i == len(messages) - 1 and message.role == "assistant" and _only_marker(text, message, vocab):
            continue  # an empty assistant turn at the end is where generation starts
        if message.role == "assistant" or (message.role == "user" and last_user is not None and i < last_user):
            parts.append(Part(PartKind.HISTORY, message.span, "an earlier turn"))
    parts += _examples_apart(parts, examples)
    parts += _written_turns(lines, vocab, SpanSet([p.span for p in parts]))
    taken = SpanSet([p.span for p in parts])
    for line in lines:
        if _DEFINITION.match(line.lower):
            break  # what follows says what a slot expands to; it is not sent where it stands
        for piece in _uncovered(text, line, taken):
            parts.extend(_line_parts(text, lower, piece, vocab, questions))
    parts.sort(key=lambda p: p.span.start)
    return merge_parts(text, parts)


# A chat history's heading or label, perhaps with a note in brackets: "# Conversation History (latest last)", "Chat history:".
_HISTORY_TITLE = re.compile(r"\s*(?:#{1,6}\s*)?\[?(?P<label>[a-z_ ]+?)\]?\s*(?:\([^()\n]*\))?\s*:?\s*$")
# A turn written on its line after its role's name: "User: what can I eat?", "Assistant: Eat more fibre."
_WRITTEN_TURN = re.compile(r"\s*\**(?P<role>[a-z]+)\**\s*:\s*\S")


def _written_turns(lines: list[Line], vocab: Vocab, taken: SpanSet) -> list[Part]:
    """The chat turns written out under a history's title in an assembled prompt ("# Conversation History", then
    "User: ..." and "Assistant: ..." lines): earlier turns, whatever the assistant's words say, up to the next
    heading or label alone on its line, or a part found already (the question). Only a block that opens with a
    turn is read so."""
    parts = []
    for i, line in enumerate(lines):
        if line.start in taken or (title := _HISTORY_TITLE.match(line.lower)) is None or normalise_label(title["label"]) not in vocab.history_labels:
            continue
        block = [row for row in lines[i + 1 :] if not row.blank]
        first = _WRITTEN_TURN.match(block[0].lower) if block else None
        if first is None or first["role"] not in vocab.chat_roles:
            continue
        end = next((k for k, row in enumerate(block) if row.start in taken or _ends_turns(row, vocab)), len(block))
        if end:
            parts.append(Part(PartKind.HISTORY, Span(block[0].start, block[end - 1].end), PART_LABELS[PartKind.HISTORY]))
    return parts


def _ends_turns(line: Line, vocab: Vocab) -> bool:
    """Whether a line ends a written-out history: a heading, or a label alone on its line, that opens no turn."""
    stripped = line.lower.strip()
    return stripped.startswith("#") or bool(vocab.role_marker.match(line.lower)) or (stripped.endswith(":") and _WRITTEN_TURN.match(line.lower) is None and len(stripped) < 40 and not stripped.startswith(("*", "-")))


def _data_blocks(block: Span | None, turns: Span | None) -> list[Part]:
    """The block of the sources, and the chat turns written out as JSON where they are no source."""
    parts = [Part(PartKind.SOURCES, block, "the sources")] if block is not None else []
    if turns is not None and not (block is not None and block.overlaps(turns)):
        parts.append(Part(PartKind.HISTORY, turns, PART_LABELS[PartKind.HISTORY]))
    return parts


def _examples_apart(parts: list[Part], examples: list[Span]) -> list[Part]:
    """The examples as static parts; one inside an earlier turn is part of that turn."""
    return [Part(PartKind.INSTRUCTIONS, span, "an example") for span in examples if not any(span.overlaps(p.span) for p in parts)]


# What may stand before a question on its line as its label: "Question:", "## Query", "<question>".
_QUESTION_LABEL = re.compile(r"\s*(?:#{1,6}\s*)?(?:[\w' ]{0,25}[:\uff1a]?)?\s*(?:<[a-z_]+>)?\s*[\"'\u201c\u2018]?")


def _label_start(lower: str, question: Span) -> int:
    """Where the question's part starts: at its label, not at the words before it on its line."""
    line_start = lower.rfind("\n", 0, question.start) + 1
    if _QUESTION_LABEL.fullmatch(lower, line_start, question.start):
        return line_start
    tag = re.search(r"<[a-z_]+>\s*$", lower[max(line_start, question.start - 40) : question.start])
    return question.start - (len(tag[0]) if tag else 0)


# What may close a question after it on its line: a quote, and the tag that opened it ("</question>").
_QUESTION_CLOSE = re.compile(r"[\"'\u201d\u2019]?[ \t]*</[a-z_][\w-]*>")


def _label_end(lower: str, question: Span) -> int:
    """Where the question's part ends: after the tag that closes it, which is no instruction."""
    closing = _QUESTION_CLOSE.match(lower, question.end)
    return closing.end() if closing else question.end


def _uncovered(text: str, line: Line, taken: SpanSet) -> list[Line]:
    """The pieces of ``line`` outside the parts already found ("</search_results> Using the results...")."""
    i = bisect.bisect_right(taken.starts, line.start) - 1
    if i >= 0 and taken.spans[i].end >= line.end:
        return []  # most lines of a prompt are inside the sources
    if (i < 0 or taken.spans[i].end <= line.start) and (i + 1 == len(taken.spans) or taken.spans[i + 1].start >= line.end):
        return [line]  # and most others are not touched at all
    i = max(i, 0)
    pieces, pos = [], line.start
    while i < len(taken.spans) and taken.spans[i].start < line.end:
        span = taken.spans[i]
        if span.end > pos:
            if span.start > pos:
                pieces.append(_piece_of(text, pos, span.start))
            pos = span.end
        i += 1
    if pos < line.end:
        pieces.append(_piece_of(text, pos, line.end))
    return pieces


def _piece_of(text: str, start: int, end: int) -> Line:
    return Line(start, end, text[start:end], lowercase(text[start:end]))


def _line_parts(text: str, lower: str, line: Line, vocab: Vocab, questions: list[Span]) -> list[Part]:
    """What one line (or the piece of it left by the parts found before) is."""
    if line.blank or vocab.role_marker.match(line.lower):
        return []
    labelled = QUESTION_LINE.match(line.lower) or _HISTORY_TITLE.match(line.lower)
    if labelled and normalise_label(labelled["label"]) in vocab.history_labels:
        return [Part(PartKind.HISTORY, Span(line.start, line.end), "chat history")]
    slots = named_slots(text, lower, line.start, line.end, vocab) if may_hold_slot(line.lower) else []
    if slots and questions:
        # A question slot that is not the live question is in a worked example or a written-out format.
        slots = [(span, kind) for span, kind in slots if kind != "question" or any(span.overlaps(q) for q in questions)]
    if slots:
        return _slot_parts(text, line, slots)
    if (given := _labelled_input(text, line, vocab)) is not None:
        return [Part(PartKind.INPUT, given, PART_LABELS[PartKind.INPUT])]
    volatile = vocab.volatile.search(line.lower)
    if volatile:
        # The datum runs to the end of its sentence; the sentences after it are static again.
        stop = _SENTENCE_STOP.search(line.lower, volatile.end())
        end = line.start + stop.end() if stop else line.end
        parts = [Part(PartKind.VOLATILE, Span(line.start + volatile.start(), end), "per-request data")]
        if stop and line.text[stop.end() :].strip():
            parts.append(Part(PartKind.INSTRUCTIONS, Span(end, line.end)))
        return parts
    return [Part(PartKind.INSTRUCTIONS, Span(line.start, line.end))]


_SENTENCE_STOP = re.compile(r"[.!?](?=\s)")
# What titles the block under it: a short label ending in a colon (in bold too, "**Question:**"), a Markdown heading, an opening tag,
# a banner ("--- FINDINGS ---", or opened only: "===Tables"), a label between brackets ("【参考经验】", lower-cased "[参考经验]").
_BLOCK_TITLE = re.compile(
    r"\s*(?:#{1,6}\s+\S.*|[^\n]{1,60}[:\uff1a](?:\*\*|__)?|<[a-z_][\w-]*>|([-=~])\1+[ \t]*[^\s\-=~][^\n]{0,58}?[ \t]*\1{2,}|([-=~])\2{2,}[ \t]*[^\s\-=~][^\n]{0,58}"
    r"|\[[^\]\n]{1,30}\](?:\([^()\n]{0,40}\))?)\s*$"
)


def _labelled_input(text: str, line: Line, vocab: Vocab) -> Span | None:
    """A slot alone on its line under a label of its own: see ``is_input``."""
    lone = SLOT.fullmatch(line.lower.strip())
    if lone is None or "{" not in lone[0]:
        return None
    start = line.start + len(line.text) - len(line.text.lstrip())
    span = Span(start, start + len(line.text.strip()))
    # Named by the key it reads, where it reads one (`{self.settings.get('policy')}` holds the policy).
    reference = slot_reference(line.text.strip())
    name = (reference.path[-1] if reference.path else reference.root) if reference else lone["name"]
    return span if is_input(text, span, name, vocab) else None


def is_input(text: str, slot: Span, name: str, vocab: Vocab) -> bool:
    """Whether a slot alone on its line under a label of its own ("JOB DESCRIPTION:" then `{jd}`) is the
    request's input: whatever its name says, unless the name says it holds the deployment's setup
    (`{format_instructions}`, `{tool_list}`)."""
    line_start, line_end = text.rfind("\n", 0, slot.start) + 1, text.find("\n", slot.end)
    if text[line_start : slot.start].strip() or text[slot.end : line_end if line_end >= 0 else len(text)].strip():
        return False
    if holds_setup(name, vocab):
        return False
    end = line_start
    while end > 0 and text[end - 1] in " \t\r\n":
        end -= 1
    # A sentence of any length that ends in a colon announces what it stands over ("To help you, we list the
    # keywords found in the paper:"), as a short label does.
    title = lowercase(text[text.rfind("\n", 0, end) + 1 : end])
    return _BLOCK_TITLE.fullmatch(title) is not None or title.rstrip().endswith((":", "\uff1a"))


def _titled_inputs(text: str, lines: list[Line], vocab: Vocab, taken: list[Span], assembled: bool) -> list[Part]:
    """In an assembled prompt, the JSON values under titles of their own (see _titled_json) that no part
    found before holds; in a template, literal JSON is the template's own text."""
    if not assembled or ("[" not in text and "{" not in text):
        return []
    return [Part(PartKind.INPUT, span, PART_LABELS[PartKind.INPUT]) for span in _titled_json(text, lines, vocab) if not any(span.overlaps(t) for t in taken)]


def _titled_json(text: str, lines: list[Line], vocab: Vocab) -> list[Span]:
    """JSON values of several lines, each the whole of a block under a title of its own ("--- FINDINGS ---",
    "Search results:"): in a prompt as it was sent, data the request filled in where a template had its slot
    (see is_input), unless the title names the deployment's setup ("Tools:", "Output schema:")."""
    found, decoder = [], json.JSONDecoder()
    before: Line | None = None  # the line before, blank lines skipped: the title, if it is written as one
    for line in lines:
        if line.blank:
            continue
        opening = line.text.lstrip()
        # Whether the line before is a title is asked only above a value: most lines are under none.
        title = before if before is not None and opening[:1] in "[{" and _BLOCK_TITLE.fullmatch(before.lower) else None
        before = line
        if title is not None and (found == [] or found[-1].end <= line.start):
            start = line.start + len(line.text) - len(opening)
            try:
                _, end = decoder.raw_decode(text, start)
            except ValueError:
                end = -1
            label = normalise_label(title.lower.strip(" \t-=~#:*_<>"))
            line_end = text.find("\n", end) if end >= 0 else -1
            if end > line.end and not text[end : line_end if line_end >= 0 else len(text)].strip() and not holds_setup(label, vocab):
                found.append(Span(start, end))
    return found


def _slot_parts(text: str, line: Line, slots: list[tuple[Span, str]]) -> list[Part]:
    """A line with slots: each slot is the part its name says, the words around them are static."""
    parts, pos = [], line.start
    for span, kind in slots:
        if text[pos : span.start].strip():
            parts.append(Part(PartKind.INSTRUCTIONS, Span(pos, span.start)))
        part = PartKind(_PART_OF_SLOT[kind])
        parts.append(Part(part, span, PART_LABELS[part]))
        pos = span.end
    if text[pos : line.end].strip():
        parts.append(Part(PartKind.INSTRUCTIONS, Span(pos, line.end)))
    return parts


_PART_OF_SLOT = {"question": "question", "rewritten": "question", "context": "sources", "history": "history", "volatile": "volatile"}
# How a finding names each per-request part, in every reader.
PART_LABELS = {
    PartKind.QUESTION: "the question",
    PartKind.SOURCES: "the retrieved context",
    PartKind.HISTORY: "chat history",
    PartKind.VOLATILE: "per-request data",
    PartKind.INPUT: "the request's input",
}


def _only_marker(text: str, message: Message, vocab: Vocab) -> bool:
    body = vocab.role_marker.sub("", lowercase(text[message.span.start : message.span.end]), count=1)
    return not body.strip()


def merge_parts(text: str, parts: list[Part]) -> list[Part]:
    merged: list[Part] = []
    for part in parts:
        if merged and merged[-1].kind == part.kind and not text[merged[-1].span.end : part.span.start].strip():
            merged[-1] = Part(part.kind, Span(merged[-1].span.start, max(merged[-1].span.end, part.span.end)), merged[-1].label)
        elif merged and merged[-1].span.contains(part.span):
            continue
        else:
            merged.append(part)
    return merged
