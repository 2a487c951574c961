"""Turn the text of an assembled prompt into the prompt model.

The segmenter finds the parts every rule reasons about: chat turns, the sources
(each with its header, metadata fields and content), the question, and which
stretches are static instructions or per-request data. It reads the text once
per concern and looks closely only at wrappers (header lines, metadata lines,
tags), never scanning chunk content word by word.
"""

from __future__ import annotations

import dataclasses
import functools
import re

from ...meaning.lexicon import Lexicon
from ...meaning.values import renderer_count
from ...meaning.vocabulary import normalise_label
from ...model.prompt import Message, Prompt, Source, SourceStyle, Span, SpanSet
from ..jsonsources import json_sources, text_key_by_role
from .vocab import LABEL_LINE, SLOT, Line, SlotNames, Vocab, consecutive_prompts, holds_slot, is_prompt_text, is_template_text, lowercase, may_hold_slot, renders_a_page, section_label, slot_kind, text_lines, words
from .instructions import imperative_aside, looks_like_instruction, opens_with_imperative
from .messages import role_messages
from .examples import blank_out, code_spans, end_before, example_spans, is_template
from .sources import by_position, context_slots, text_sources, unwrapped_context
from .records import document_template, list_sources, opens_the_context, record_sources, separated_sources
from .xml import widen_to_container, xml_sources
from .skeleton import aligned_fields, skeleton_sources
from .blocks import repeated_blocks
from .paragraphs import paragraph_sources
from .questions import find_questions
from .parts import PART_LABELS, is_input, label_parts, merge_parts

# What the other readers and the engine use: the entry, and the vocabulary and line services the readers share.
__all__ = [
    "LABEL_LINE", "PART_LABELS", "SlotNames", "Vocab", "consecutive_prompts", "imperative_aside", "is_input", "is_prompt_text", "is_template_text", "looks_like_instruction", "lowercase",
    "merge_parts", "opens_with_imperative", "renders_a_page", "role_messages", "segment_text", "slot_kind", "text_lines", "words",
]


def segment_text(
    text: str,
    messages: list[Message] | None = None,
    names: SlotNames = (),
    lexicon: Lexicon | None = None,
    known: list[Source] = (),
) -> Prompt:
    """Build the prompt model of ``text``.

    ``messages`` comes from a chat front-end (JSON): the regions of the text that
    are separate messages. Plain text gets its turns from role-marker lines.
    ``names`` are the template variables the config names; ``lexicon`` what labels mean.
    ``known`` are the sources a reader already knows (a request body's document
    blocks); more are looked for only outside them.
    """
    if marked := _other_slots(text):
        return _with_other_slots(text, marked, messages, names, lexicon, known)
    lower = lowercase(text)
    vocab = words(names, lexicon)
    messages = _usual_roles(messages, vocab)
    lines = text_lines(text, lower)
    if may_hold_slot(text) and (labelled := context_slots(text, lines, vocab)):
        vocab = words((*names, *labelled), lexicon)  # "OJK Context: {context_ojk}": the label says what the slot holds
    # The sources as read with the examples and the code in view: asked for at most once, for what is a chunk's own.
    in_view = functools.cache(lambda: _sources(text, lower, lines, vocab, messages if messages is not None else role_messages(text, lines, vocab), known)[0])
    shown = _examples(text, lower, lines, vocab, messages, known, in_view)
    # Program code in fenced blocks is shown like an example, and its slots are the code's: a text whose
    # only slots are there (a page that documents code) is as it was sent.
    code = code_spans(lines, vocab) if "```" in text or "~~~" in text else []
    assembled = _assembled(blank_out(text, code), blank_out(lower, code)) if code else _assembled(text, lower)
    if code and assembled:
        # A chunk's own code (a page of docs with its shell commands, a file of a repository) is the chunk's text,
        # whether it was taken for code or for an example: a block that opens after a source's header (a fence's line
        # stands before the text it opens) and before the end of its text. Sources read inside a block are the block's.
        own = [e for e in code if any(c.span.start < e.start < c.content.end for c in in_view())]
        code, shown = [span for span in code if span not in own], [span for span in shown if span not in own]
    shown = SpanSet(shown + code).spans if code else shown
    if not shown:
        return _read(text, lower, lines, vocab, messages, known, shown, assembled)
    # What an example shows is read as nothing: every reading sees blanks there, at the same offsets.
    seen, seen_lower = blank_out(text, shown), blank_out(lower, shown)
    prompt = _read(seen, seen_lower, text_lines(seen, seen_lower), vocab, messages, known, shown, assembled)
    return dataclasses.replace(prompt, text=text, lower=lower)


def _usual_roles(messages: list[Message] | None, vocab: Vocab) -> list[Message] | None:
    """A body's roles under another name (Sourcegraph's `"speaker": "human"`) as the usual ones."""
    if not messages:
        return messages
    return [dataclasses.replace(m, role=vocab.role_names.get(m.role, m.role)) for m in messages]


def shows_sources(text: str, lexicon: Lexicon | None = None) -> bool:
    """Whether a text is a prompt as it was sent, read by the sources it writes out: two or more."""
    return len(segment_text(text, lexicon=lexicon).sources) >= 2


# A prompt as it was sent is a text of some length, over several lines.
_SENT_CHARS = 200


def sent_with_sources(text: str, lexicon: Lexicon | None = None) -> bool:
    """Whether a string kept under a key of any name is a prompt as it was sent (a test snapshot, a run's
    log): a text of some length whose sources are written out, and that asks a question or is written as
    turns of a chat (a script's commented blocks are no sources sent to a model)."""
    if len(text) < _SENT_CHARS or "\n" not in text:
        return False
    prompt = segment_text(text, lexicon=lexicon)
    return len(prompt.sources) >= 2 and bool(prompt.questions or prompt.messages)


def _assembled(text: str, lower: str) -> bool:
    """A text with no slot: a prompt as it was sent (a recorded prompt, a logged request), not a template."""
    return not holds_slot(text, lower)


def _examples(text: str, lower: str, lines: list[Line], vocab: Vocab, messages: list[Message] | None, known: list[Source], in_view) -> list[Span]:
    """The examples of the text that are no chunk's own text: a document a request body marks as one
    is data, whatever it shows; and in an assembled prompt, an example that starts in the text of a
    source read as before (``in_view()``: "[2] Shipping guide" and under it "For example: ...") is that chunk's."""
    shown = [e for e in example_spans(text, lower, lines, vocab, messages or []) if not any(e.overlaps(k.span) for k in known)]
    if not shown or is_template(lower):
        return shown
    return [e for e in shown if not any(c.content.start <= e.start < c.content.end for c in in_view())]


def _repeated(lower: str, sources: list[Source]) -> list[Source]:
    """A template's sources, each marked as rendered once per chunk when a slot stands in it. Not an assembled
    prompt's: braces in a chunk's own code (`$"{name}"`) are the code's, not a template's slots."""
    if not may_hold_slot(lower):
        return sources
    return [dataclasses.replace(s, repeated=bool(SLOT.search(lower, s.span.start, s.span.end))) for s in sources]


def _read(
    text: str, lower: str, lines: list[Line], vocab: Vocab, messages: list[Message] | None, known: list[Source], shown: list[Span],
    assembled: bool,
) -> Prompt:
    """The prompt model of a text whose examples (``shown``) are blank; ``assembled`` if the text holds no slot."""
    if messages is None:
        messages = role_messages(text, lines, vocab)
    sources, json_block, turns = _sources(text, lower, lines, vocab, messages, known)
    unwrapped = None if sources else unwrapped_context(text, lower, lines, vocab, messages)
    if unwrapped is not None:
        sources = paragraph_sources(text, lines, unwrapped)
    if shown and json_block is None:
        sources = end_before(text, sources, shown)
    if not assembled:
        sources = _repeated(lower, sources)
    questions, rewritten, examples = find_questions(text, lower, lines, vocab, sources, messages)
    sources = _unless_told(sources, lines, vocab, assembled and not questions)
    if examples and json_block is None:
        # Sources before a worked example's question, or between it and its written answer, are part of that
        # example, not retrieved for this one.
        sources = by_position([s for s in sources if s.span.start > examples[-1].end])
    block = json_block or (widen_to_container(lower, Span(sources[0].span.start, sources[-1].span.end), vocab) if sources else None)
    region = block or (None if sources else unwrapped)
    parts = label_parts(text, lower, lines, vocab, sources, region, questions + rewritten, messages, shown, assembled, turns)
    return Prompt(
        text=text,
        lower=lower,
        sources=sources,
        parts=parts,
        questions=questions,
        messages=messages,
        sources_block=block,
        rewritten_questions=rewritten,
        # Other edits inside JSON would have to know its quoting: only a whole field may go,
        # its span taking its comma with it.
        locked=[json_block] if json_block else [],
        removable=[f.span for s in sources for f in s.fields] if json_block else [],
        assembled=assembled,
    )


def _unless_told(sources: list[Source], lines: list[Line], vocab: Vocab, unasked: bool) -> list[Source]:
    """The sources of an assembled text that asks no question (``unasked``), marked as guessed unless something says they are
    retrieved: a renderer's count over them, or a line before the first that opens the context (a context label or a
    heading that names it, "# Retrieved code"; a lone tag). Such a text may be a document, or a prompt of its own
    sections ("### Define [2100]" then "- **Summary**: ..."): its headers and records are reported, never fixed for
    certain. Tags and JSON keys that name sources say so themselves."""
    if not unasked or not sources or len(sources) >= 2 and renderer_count([s.key or "" for s in sources]):
        return sources
    before = [line for line in lines if line.end <= sources[0].span.start]
    if any(opens_the_context(line, vocab) or _names_the_context(line, vocab) for line in before):
        return sources
    return [s if s.style in (SourceStyle.XML, SourceStyle.JSON) else dataclasses.replace(s, guessed=True) for s in sources]


def _names_the_context(line: Line, vocab: Vocab) -> bool:
    label = section_label(line.lower)
    return label is not None and slot_kind(label.replace(" ", "_"), vocab) == "context"


def _sources(
    text: str, lower: str, lines: list[Line], vocab: Vocab, messages: list[Message], known: list[Source]
) -> tuple[list[Source], Span | None, Span | None]:
    """The sources of the text, the block of the JSON array they are items of, if they are, and the chat
    turns written out as JSON objects, if the JSON is read.

    Each way of writing sources is looked for only when the ones before found none: elements
    and header lines (besides the ``known``), then JSON, then records, separated blocks and lists,
    and last blocks that open with a line repeated word for word.
    """
    sources = list(known) + [s for s in xml_sources(text, lower, vocab) if not any(s.span.overlaps(k.span) for k in known)]
    # Lines of one skeleton are read before the header lines the lexicon knows, which they may look like,
    # unless those give a heading path: the canonical header (`[1] Title — A > B (...)`) is read as written,
    # and no skeleton is looked for.
    headed = text_sources(text, lines, vocab, messages, SpanSet([s.span for s in sources]))
    skeleton = [] if sources or any(s.heading_path for s in headed) else skeleton_sources(text, lines, vocab, messages)
    if skeleton:
        sources += aligned_fields(text, skeleton)
        headed = text_sources(text, lines, vocab, messages, SpanSet([s.span for s in sources]))  # outside its units
    sources = by_position(sources + aligned_fields(text, headed))
    if sources:
        return sources, None, None
    sources, json_block, turns = json_sources(text, vocab.content_labels, vocab.title_labels, vocab.heading_labels, vocab.chat_roles, vocab.metadata_labels)
    if not sources and (by_role := _tool_results_by_role(text, messages, vocab)):
        sources, json_block, turns = by_role
    if not sources:
        sources = (record_sources(text, lines, vocab, messages)
                   or separated_sources(text, lines, vocab, messages) or list_sources(text, lines, vocab)
                   or document_template(text, lines, vocab) or repeated_blocks(text, lines, vocab, messages))
    return sources, json_block, turns


def _tool_results_by_role(text: str, messages: list[Message], vocab: Vocab):
    """The sources a tool's message gives back as a JSON list of records whose text no key's name says holds it
    (`[{"id": ..., "section": ..., "question": ..., "answer": "..."}]`): read by the role of each key, the long text
    varying from record to record being the content (see jsonsources.text_key_by_role). A reading by shape, so
    each source is marked as guessed and no fix of it is certain."""
    for message in messages:
        if vocab.lexicon.names(message.role, "tool-role") and (key := text_key_by_role(text[message.span.start : message.span.end])):
            sources, block, turns = json_sources(
                text, vocab.content_labels | {normalise_label(key)}, vocab.title_labels, vocab.heading_labels, vocab.chat_roles, vocab.metadata_labels
            )
            if sources:
                return [dataclasses.replace(s, guessed=True) for s in sources], block, turns
    return None


# Placeholders marked otherwise than with braces, each with the braces of the same length it reads as:
# [DOC_2_SCORE], [USER_QUESTION] (capitals and an underscore; in quotes, a literal the model is told to write:
# print the sentinel "[GENERAL_KNOWLEDGE]"), and <<context>>, <<user_query>>, <<CONTEXT>> (not <<SYS>>, Llama's marker;
# in quotes, a token a text writes about: sentinels `<<UUID_0>>` in a design note).
_OTHER_SLOTS = (
    # The bracket first, then what stands before it: a pattern that opens with a literal is found fast.
    (re.compile(r"\[(?<![\"'`\u201c]\[)([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\](?![\"'`\u201d])"), "[{}]", "{{{}}}"),
    (re.compile(r"<<(?<![\"'`\u201c]<<)(?!SYS>>)([A-Za-z_][A-Za-z0-9_]*)>>(?![\"'`\u201d])"), "<<{}>>", "{{{{{}}}}}"),
)


def _other_slots(text: str) -> list[tuple[re.Pattern, str, str]]:
    """The placeholder marks of _OTHER_SLOTS a text uses."""
    return [(pattern, marked, braced) for pattern, marked, braced in _OTHER_SLOTS if marked[0] in text and pattern.search(text)]


def _with_other_slots(text: str, marks: list[tuple[re.Pattern, str, str]], messages: list[Message] | None, names: SlotNames, lexicon: Lexicon | None, known: list[Source]) -> Prompt:
    """The prompt model of a text whose placeholders are marked otherwise than with braces.

    They are read as the braces of a format string of the same length: every span stays
    where it is; the text and the values the rules quote are given back their own marks.
    """
    braced_text = text
    restore: list[tuple[re.Pattern, str]] = []
    for pattern, marked, braced in marks:
        slots = sorted(set(pattern.findall(text)), key=len, reverse=True)
        braced_text = pattern.sub(lambda m, braced=braced: braced.format(m.group(1)), braced_text)
        names_alternation = "(" + "|".join(map(re.escape, slots)) + ")"
        shown = re.compile(re.escape(braced.format("@")).replace("@", names_alternation))
        restore.append((shown, marked))
    prompt = segment_text(braced_text, messages, names, lexicon, known)

    def back(value):
        if not isinstance(value, str):
            return value
        for shown, marked in restore:
            value = shown.sub(lambda m, marked=marked: marked.format(m.group(1)), value)
        return value

    def source(s: Source) -> Source:
        fields = [dataclasses.replace(f, value=back(f.value)) for f in s.fields]
        return dataclasses.replace(s, title=back(s.title), key=back(s.key), heading_path=tuple(map(back, s.heading_path)), fields=fields)

    return dataclasses.replace(prompt, text=text, lower=lowercase(text), sources=[source(s) for s in prompt.sources])
