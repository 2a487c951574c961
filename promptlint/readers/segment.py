"""Turn the text of an assembled prompt into the prompt model.

The segmenter finds the parts every rule reasons about: chat turns, the sources
(each with its header, metadata fields and content), the question, and which
stretches are static instructions or per-request data. It reads the text once
per concern and looks closely only at wrappers (header lines, metadata lines,
tags), never scanning chunk content word by word.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from dataclasses import dataclass
from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

from ..meaning import vocabulary
from ..meaning.lexicon import Lexicon, is_field, shipped
from ..meaning.values import number, parse_date
from ..meaning.vocabulary import normalise_label
from ..model.lines import with_newline
from ..model.prompt import Field, FieldForm, Message, Part, PartKind, Prompt, Source, SourceStyle, Span, SpanSet
from .expressions import slot_reference
from .jsonsources import json_sources

# A source whose text is only this is a written-out "and so on", not a source.
_ELISIONS = ("...", "\u2026", "[...]")
# A header "title" this long is the chunk's text on the header line.
PASSAGE_WORDS = 16
# "[[ ## question ## ]]" (DSPy) and "## Question" / "Question:" on a line of their own.
_SECTION_LABEL = re.compile(r"\s*(?:\[\[ ## (?P<dspy>[\w ]+?) ## \]\]|#{1,6}\s*(?P<md>[\w' ]+?)|(?P<plain>[^\W\d_][\w' ]{0,25}?)\s*[:：])\s*$")


@dataclass(frozen=True)
class Vocab:
    question_labels: frozenset[str]
    content_labels: frozenset[str]
    title_labels: frozenset[str]
    heading_labels: frozenset[str]
    warning_labels: frozenset[str]
    history_labels: frozenset[str]
    context_labels: frozenset[str]
    slot_kinds: dict[str, str]  # template variable name -> "question", "rewritten", "context", "history", "volatile"
    volatile_prefixes: tuple[str, ...]
    slot_fillers: frozenset[str]  # words of a variable's name that say how it is written (see segment.yaml)
    rewrite_qualifiers: frozenset[str]  # words that make a question's name a rewritten question's
    source_header: re.Pattern[str]
    role_marker: re.Pattern[str]
    role_word: re.Pattern[str]  # the role a marker names
    role_names: dict[str, str]  # a role under another name -> the usual one ("human" -> "user")
    source_tag: re.Pattern[str]
    container_tags: frozenset[str]
    content_tags: frozenset[str]
    instruction_opener: re.Pattern[str]
    example_cue: re.Pattern[str]  # a line that announces a worked example
    answer_cues: frozenset[str]  # labels of the line a completion prompt ends on ("Helpful Answer:")
    volatile: re.Pattern[str]
    lexicon: Lexicon

    def is_field(self, label: str) -> bool:
        """A label worth reading as metadata: a score, a date, a title, ... as the lexicon reads it."""
        return is_field(self.lexicon, label)


# A labelled item of a bracketed header: "relevance: {{$relevance}}", "source=wiki".
_ITEM = r"\s*[^\W\d_][\w .-]{0,30}?\s*[:=：][^\[\]\n,;|]*"


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# Template variables the user names in config, as (name, kind) pairs: what the
# names alone cannot tell ("hits" holds the sources, "user_query" the question).
SlotNames = tuple[tuple[str, str], ...]


@cache
def words(names: SlotNames = (), lexicon: Lexicon | None = None) -> Vocab:
    """The segmenter's vocabulary, with the variables ``names`` adds and the words of ``lexicon`` (default: shipped)."""
    base = _vocabulary(lexicon or shipped())
    if not names:
        return base
    # Only the kinds a slot can have; a "content" name is a field of a source, read by the Jinja front-end.
    added = {normalise_label(name): kind for name, kind in names if kind in ("question", "context")}
    return dataclasses.replace(base, slot_kinds={**base.slot_kinds, **added})


@cache
def _vocabulary(lexicon: Lexicon) -> Vocab:
    seg = vocabulary.load("segment")
    labelled = {
        key: vocabulary.label_set(seg[key])
        for key in ("question-labels", "content-labels", "title-labels", "heading-labels", "warning-labels", "history-labels", "context-labels")
    }
    # "Chunk ID {id}:", "Source No. 3": the word may be followed by what kind of key comes next.
    words = "(?:" + _alternation(seg["source-words"]) + ")(?:\\s+(?:" + _alternation(seg["source-key-words"]) + "))?"
    # Headers are matched on the lower-cased line. The number after the word must
    # be followed by punctuation or the end of the line, so that a sentence such
    # as "Source 1 says ..." inside a chunk is not taken for a header.
    # A citation key: a number, or in a template the slot that numbers the sources.
    key = r"\d+|\$?\{\{?[^{}\n]{1,40}\}\}?"
    source_header = re.compile(
        r"(?:[-=*#]{2,}\s*|#{1,6}\s+)?"
        r"(?:"
        r"\[#?(?P<key1>" + key + r")\](?P<rest1>.*)"
        r"|\[(?:" + words + r")\s*#?(?P<key2>" + key + r")\]\s*:?(?P<rest2>.*)"
        r"|\[(?:" + words + r")(?: from \w+)?\]\s*:?(?P<rest5>.*)"
        r"|(?:" + words + r")\s*\[?#?(?P<key3>" + key + r")\]?(?:\s+of\s+\d+)?"
        r"(?P<rest3>\s*(?::::|[:.\u2014\u2013|]|-(?=\s)|\)).*|\s*[(\[].*|\s*[-=*]{2,}\s*|\s*)"
        r"|\((?P<key4>\d+)\)\s+(?P<rest4>.*)"
        # "Chunk: {chunk_id}", "Source: {i}": the word, a colon and a slot alone on the line.
        r"|(?:" + words + r")\s*:\s*(?P<key5>" + key + r")(?P<rest7>\s*)"
        # "==== [File: x; Relevance: 0.83]:": a bracket of two or more labelled items and nothing else.
        r"|(?P<rest6>\[" + _ITEM + r"(?:[,;|]\s*" + _ITEM + r")+\])\s*:?"
        r")$"
    )
    roles = _alternation(seg["role-markers"])
    # In a transcript written with a model's special tokens, a role between them:
    # "<|im_start|>user", "<|start_header_id|>user<|end_header_id|>", "<|USER_TOKEN|>", "<start_of_turn>model".
    token_roles = _alternation(seg["role-markers"] + seg["token-roles"])
    special = r"(?:<\|[a-z_]+\|>|<[a-z_]+>)"
    role_marker = re.compile(
        # Bracketed or "... message:", any role is a turn ("[tool]"); a bare "Tool:" line may be a list's label.
        r"\s*(?:\[(?:" + token_roles + r")\]|(?:" + token_roles + r") message:|(?:" + roles + r"):(?=\s*$)"
        r"|" + special + r"*<\|(?:" + token_roles + r")(?:_token)?\|>" + special + r"*"
        r"|" + special + r"+\s*(?:" + token_roles + r")" + special + r"*)\s*$"
    )
    tag_names = _alternation(seg["source-tags"])
    volatile = vocabulary.patterns(vocabulary.load("cache-boundary")["volatile"])
    return Vocab(
        question_labels=labelled["question-labels"],
        content_labels=labelled["content-labels"],
        title_labels=labelled["title-labels"],
        heading_labels=labelled["heading-labels"],
        warning_labels=labelled["warning-labels"],
        history_labels=labelled["history-labels"],
        context_labels=labelled["context-labels"],
        slot_kinds={
            normalise_label(word): kind
            for kind in ("question", "rewritten", "context", "history", "volatile")
            for word in seg[f"{kind}-vars"]
        },
        volatile_prefixes=tuple(normalise_label(w) + " " for w in seg["volatile-prefixes"]),
        slot_fillers=frozenset(seg["slot-fillers"]),
        rewrite_qualifiers=frozenset(seg["rewrite-qualifiers"]),
        source_header=source_header,
        role_marker=role_marker,
        role_word=re.compile(r"(?<![a-z])(?:" + token_roles + r")(?![a-z])"),
        role_names=dict(seg["role-names"]),
        source_tag=re.compile(r"<(" + tag_names + r")(\s[^<>]*)?>"),
        container_tags=frozenset(seg["container-tags"]),
        content_tags=frozenset(seg["content-tags"]),
        example_cue=re.compile(r"\s*(?:#{1,6}\s*)?(?:" + _alternation(seg["example-cues"]) + r")\b[^.!?]*$"),
        instruction_opener=re.compile(r"\s*(?:" + _alternation(seg["instruction-openers"]) + r")\b"),
        answer_cues=vocabulary.label_set(seg["answer-cues"]),
        volatile=volatile,
        lexicon=lexicon,
    )


# A template slot in text: {name}, {name:.2f}, {doc['x']}, {{ name }}, Dify's {{#name#}},
# Semantic Kernel's {{$name}}, string.Template's $name and Bedrock's $name$. Words after
# the name ("${the question to be answered}") describe a value in a written-out format: not a
# slot; an operator after it ("{{ context or '' }}") is the template's expression.
_SLOT = re.compile(
    r"(?:(?P<brace>\{\{?[#\s]*\$?)|(?<![\w$])\$)(?P<name>[a-z_]\w*+(?:\.\w+)*+)"
    r"(?(brace)(?!\s+(?!(?:or|and|if|else|is|not|in)\s)[a-z])(?:[^{}\n]{0,80}?)[#\s]*\}\}?|\$?)"
)


# Words of its own, beside the slots, before a text kept in code or data counts as a prompt.
PROMPT_WORDS = 3
_OWN_WORD = re.compile(r"[^\W\d_]{2,}")


def is_prompt_text(text: str, vocab: Vocab, key: str | None = None) -> bool:
    """Whether a string kept in code or data is a prompt although nothing marks it as one: words
    of its own, and a key that names a prompt (`system_prompt:`, `"template"`) or a slot the
    words call the retrieved context (`{context}`, `{{documents}}`, `$search_results$`)."""
    lower = text.lower()
    if len(_OWN_WORD.findall(_SLOT.sub(" ", lower))) < PROMPT_WORDS:
        return False
    if key is not None and vocab.lexicon.means(key, "prompt"):
        return True
    return _may_hold_slot(lower) and any(slot_kind(m["name"], vocab) == "context" for m in _SLOT.finditer(lower))


def consecutive_prompts(text: str) -> list[tuple[int, int]]:
    """Where the prompts of a file that holds several templates one after another stand, or []
    when it holds one. A completion prompt ends on the line the model answers after ("Helpful
    Answer:", "Standalone question:"); text that follows it past a blank line, slots and all, can
    only be another prompt. Each piece must hold a slot, so that an answer written out after its
    prompt, or an assembled prompt's worked examples, never split one."""
    if not _may_hold_slot(text):
        return []
    lower = lowercase(text)
    vocab = words()
    lines = text_lines(text, lower)
    starts = [0]
    for index, line in enumerate(lines[:-2]):
        cue = _SECTION_LABEL.match(line.lower)
        if cue and cue["plain"] and normalise_label(cue["plain"]) in vocab.answer_cues and lines[index + 1].blank:
            following = next((ln for ln in lines[index + 1 :] if not ln.blank), None)
            if following is not None:
                starts.append(following.start)
    pieces = [(start, end) for start, end in zip(starts, [*starts[1:], len(text)])]
    return pieces if len(pieces) > 1 and all(_SLOT.search(lower, start, end) for start, end in pieces) else []


def _may_hold_slot(text: str) -> bool:
    """The cheap test before looking for slots."""
    return "{" in text or "$" in text


def slot_kind(name: str, vocab: Vocab) -> str | None:
    """What a template variable holds, judged by its name; None when the name says nothing."""
    label = normalise_label(name.rsplit(".", 1)[-1])
    kind = vocab.slot_kinds.get(label)
    if kind is None:
        # `question_text`, `retrieved_docs`: the name, once the words that say how the value is
        # written are set aside; and for the context and the history (`kb_context`, `doc_summaries`)
        # its last word. A question's last word is not enough: `system_message` is no question.
        named = [w for w in label.split() if w not in vocab.slot_fillers]
        whole, last = (vocab.slot_kinds.get(" ".join(named)), vocab.slot_kinds.get(named[-1])) if named else (None, None)
        if whole in ("context", "question", "history"):
            kind = whole
        elif last in ("context", "history"):
            kind = last
        elif last == "question" and any(w in vocab.rewrite_qualifiers for w in named[:-1]):
            kind = "rewritten"  # `new_question`, `better_query`: the question as rewritten
    if kind is None and (label + " ").startswith(vocab.volatile_prefixes):
        kind = "volatile"
    return kind


def _slots(lower: str, start: int, end: int, vocab: Vocab) -> list[tuple[Span, str]]:
    """The slots between two offsets whose names say what they hold, with that kind; a slot
    that is only mentioned (see _mentioned) is not one."""
    found = []
    for match in _SLOT.finditer(lower, start, end):
        kind = slot_kind(match["name"], vocab)
        if kind is not None and not _mentioned(lower, match.start(), match.end()):
            found.append((Span(match.start(), match.end()), kind))
    return found


# After a slot, what starts its description: "{{QUERY}} - the user's query", "{context} := ...".
_DESCRIBED = re.compile(r"[ \t]*(?::?=|[-\u2013\u2014:][ \t]+\S)")
# Before a slot on its line, only a comment's marks: "#   {{QUERY}}", "// {context}".
_COMMENTED = re.compile(r"[ \t]*(?:#+|//|--|/?\*+)[ \t]*$")


def _mentioned(lower: str, start: int, end: int) -> bool:
    """Whether a slot is written about rather than filled: quoted as code (`{question}`), or
    described on a comment line ("#   {{QUERY}}  - Will be replaced with the user's query")."""
    if start > 0 and lower[start - 1] == "`" and lower[end : end + 1] == "`":
        return True
    line_start = lower.rfind("\n", 0, start) + 1
    return bool(_COMMENTED.fullmatch(lower, line_start, start) and _DESCRIBED.match(lower, end))


class Line(NamedTuple):
    # A named tuple, not a dataclass: a prompt has thousands of lines, and a frozen
    # dataclass is several times slower to build.
    start: int
    end: int  # without the newline
    text: str  # without the newline, as in the prompt
    lower: str

    @property
    def blank(self) -> bool:
        return not self.text.strip()


def text_lines(text: str, lower: str, start: int = 0, end: int | None = None) -> list[Line]:
    end = len(text) if end is None else end
    lines = []
    while start < end:
        stop = text.find("\n", start, end)
        stop = end if stop < 0 else stop
        lines.append(Line(start, stop, text[start:stop], lower[start:stop]))
        start = stop + 1
    return lines


# "Label: value" at the start of a metadata line.
_LABEL_LINE = re.compile(r"\s*(?:[-*•]\s+)?(?:\*\*|__)?(?P<label>(?:[^\W\d]|@)[\w .@;/-]{0,40}?)(?:\*\*|__)?\s*[:=：]\s*(?:\*\*|__)?\s*(?P<value>.*)$")
# "label: value", "label=value" or "label value" inside a header group.
_INLINE_ITEM = re.compile(r"\s*(?P<label>(?:[^\W\d_]|@)(?:[^\W\d]|[ .@;-]){0,30}?)\s*(?:[:=：]\s*|\s+(?=[\d({]))(?P<value>\S.*?)\s*$")
# A line holding only a tag that groups metadata ("<document_metadata>") or ends a source ("[END CONTEXT 1]").
_LONE_TAG = re.compile(r"\s*(?:</?[a-z_][\w-]*>|\[end [^\]]*\])\s*$")
# "{context} := ...": a written-out prompt shape saying what a slot expands to.
_DEFINITION = re.compile(r"\s*\{\{?\s*[a-z_][\w.]*\s*\}\}?\s*:?=")
# A slot alone on a line that prints what names the source ({chunk_heading}, {doc_title}).
_NAMING_SLOTS = ("title", "heading", "name", "section")
_LONE_SLOT = re.compile(r"\s*\{\{?\s*(?P<name>[a-z_][\w.]*)\s*\}\}?\s*$")
_SLOT_LABEL_LINE = re.compile(r"\s*\{\{?\s*[a-z_][\w.]*\s*\}\}?\s*:")
_QUESTION_LINE = re.compile(r"\s*(?:#{1,6}\s*)?(?P<label>[^\W\d_][\w' ]{0,20}?)\s*[:：]\s*(?P<value>.*)$")
_SEPARATOR = re.compile(r"\s*(?:[-=*_]{3,}|```\w*)\s*$")
_WARNING_MARK = re.compile("\u26a0\ufe0f?")
_HEADING_SPLIT = re.compile(r"\s+[\u2014\u2013]\s+")
_HEADING_SPLIT_BEFORE = re.compile(r"\s+[\u2014\u2013]\s+$")
# A parenthesised or bracketed group of a header line; possessive, so a long line never backtracks.
_HEADER_GROUP = re.compile(r"\(((?:\{[^{}]*\}|[^()])*+)\)|\[([^\[\]]*)\]")


def lowercase(text: str) -> str:
    """``text`` in lower case, so that an offset in one is the same place in the other.

    str.lower keeps the length of every character but "\u0130" (capital I with a dot),
    which becomes "i" and a combining dot; here it becomes a plain "i".
    """
    return text.replace("\u0130", "i").lower()


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
    if "[" in text and _BRACKET_SLOT.search(text):
        return _with_bracket_slots(text, messages, names)
    lower = lowercase(text)
    vocab = words(names, lexicon)
    lines = text_lines(text, lower)
    if messages is None:
        messages = role_messages(text, lines, vocab)
    sources, json_block = _sources(text, lower, lines, vocab, messages, known)
    if _may_hold_slot(text):
        sources = [dataclasses.replace(s, repeated=bool(_SLOT.search(lower, s.span.start, s.span.end))) for s in sources]
    questions, rewritten, examples = _questions(text, lower, lines, vocab, sources, messages)
    if examples and json_block is None:
        # Sources before a worked example's question are part of that example, not retrieved for this one.
        sources = _by_position([s for s in sources if s.span.start > examples[-1].start])
    block = json_block or (_widen_to_container(lower, Span(sources[0].span.start, sources[-1].span.end), vocab) if sources else None)
    region = block or (None if sources else _unwrapped_context(text, lower, lines, vocab, messages))
    parts = _parts(text, lower, lines, vocab, sources, region, questions + rewritten, messages)
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
    )


def _sources(
    text: str, lower: str, lines: list[Line], vocab: Vocab, messages: list[Message], known: list[Source]
) -> tuple[list[Source], Span | None]:
    """The sources of the text, and the block of the JSON array they are items of, if they are.

    Each way of writing sources is looked for only when the ones before found none: elements
    and header lines (besides the ``known``), then JSON, then records, separated blocks and lists.
    """
    sources = list(known) + [s for s in _xml_sources(text, lower, vocab) if not any(s.span.overlaps(k.span) for k in known)]
    sources = _by_position(sources + _text_sources(text, lines, vocab, messages, SpanSet([s.span for s in sources])))
    if sources:
        return sources, None
    sources, json_block = json_sources(text, vocab.content_labels, vocab.title_labels, vocab.heading_labels)
    if not sources:
        sources = (_record_sources(text, lines, vocab)
                   or _separated_sources(text, lines, vocab, messages) or _list_sources(text, lines, vocab))
    return sources, json_block


# A placeholder as prompt libraries write one: "[DOC_2_SCORE]", "[USER_QUESTION]" (capitals and an underscore).
_BRACKET_SLOT = re.compile(r"\[([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\]")


def _with_bracket_slots(text: str, messages: list[Message] | None, names: SlotNames) -> Prompt:
    """The prompt model of a text whose placeholders are in square brackets.

    They are read as the braces of a format string, which have the same length: every
    span stays where it is; the text and the values the rules quote are given back theirs.
    """
    prompt = segment_text(_BRACKET_SLOT.sub(r"{\1}", text), messages, names)
    slots = set(_BRACKET_SLOT.findall(text))
    braced = re.compile(r"\{(" + "|".join(sorted(slots, key=len, reverse=True)) + r")\}")

    def back(value):
        return braced.sub(r"[\1]", value) if isinstance(value, str) else value

    def source(s: Source) -> Source:
        fields = [dataclasses.replace(f, value=back(f.value)) for f in s.fields]
        return dataclasses.replace(s, title=back(s.title), key=back(s.key), heading_path=tuple(map(back, s.heading_path)), fields=fields)

    return dataclasses.replace(prompt, text=text, lower=lowercase(text), sources=[source(s) for s in prompt.sources])


# ---------------------------------------------------------------- messages


def role_messages(text: str, lines: list[Line], vocab: Vocab) -> list[Message]:
    markers = [line for line in lines if vocab.role_marker.match(line.lower)]
    messages = []
    for i, marker in enumerate(markers):
        end = markers[i + 1].start if i + 1 < len(markers) else len(text)
        role = vocab.role_word.search(marker.lower)[0]
        role = vocab.role_names.get(role, role)
        messages.append(Message(role=role, span=Span(marker.start, end), name=f"{role} turn at offset {marker.start}"))
    return messages


# ---------------------------------------------------------------- text sources


def _by_position(sources: list[Source]) -> list[Source]:
    ordered = sorted(sources, key=lambda s: s.span.start)
    return [dataclasses.replace(s, position=i) for i, s in enumerate(ordered)]


def _text_sources(text: str, lines: list[Line], vocab: Vocab, messages: list[Message], taken: SpanSet) -> list[Source]:
    """Sources written as text: a header line ("[1] Title", "Document 2:") and the lines under it."""
    headers = _source_headers(lines, vocab, taken)
    sources = []
    for n, (index, match) in enumerate(headers):
        last = n + 1 == len(headers)
        stop = headers[n + 1][0] if not last else len(lines)
        body = [line for line in lines[index + 1 : stop] if line.start not in taken]
        if last:
            # A header that carries the chunk itself ("[1] «...»") has its content already.
            passage = _carries_chunk(next(match[g] for g in _REST_GROUPS if match[g] is not None))
            body = _cut_last_source(body, vocab, messages, lines[index].start, seen_content=passage)
        source = _text_source(text, n, lines[index], match, body, vocab)
        if text[source.content.start : source.content.end].strip() not in _ELISIONS or source.fields:
            sources.append(source)
    return _with_document_header(text, lines, vocab, sources, taken)


def _source_headers(lines: list[Line], vocab: Vocab, taken: SpanSet) -> list[tuple[int, re.Match[str]]]:
    """The lines outside ``taken`` that head a text source, by index, with their match."""
    headers = []
    for index, line in enumerate(lines):
        if line.start in taken:
            continue
        match = vocab.source_header.match(line.lower.strip())
        if match and _heads_a_source(line, match, vocab) and not _after_example_cue(lines, index, vocab):
            headers.append((index, match))
    return headers


def _heads_a_source(line: Line, match: re.Match[str], vocab: Vocab) -> bool:
    """A line written as a source's header that is one: not a labelled instruction, a field or a turn's role."""
    if match["rest6"] is not None and not _names_a_field(match["rest6"], vocab):
        return False  # "[Tone: formal; Length: short]": labelled, but nothing a source carries
    # The slot as written: its names are read by their case ("chunkIndex").
    if match["key5"] is not None and _labelled_key(line.text.strip()[match.start("key5") : match.end("key5")], vocab) is None:
        return False  # "Source: {doc.source}": a field, not a header
    # "[{conversation[0].type}]": a turn's role written as a slot, not a citation key.
    return not _prints_the_conversation(next((match[g] for g in _KEY_GROUPS if match[g] is not None), None), vocab)


def _with_document_header(text: str, lines: list[Line], vocab: Vocab, sources: list[Source], taken: SpanSet) -> list[Source]:
    """Labelled lines right above the first chunk header that name a document ("Document Title: ...",
    "Doc ID: ...") are that document's header: metadata of every chunk under it, written once.
    They join the first chunk, which is where a fix removes them; the title is every chunk's."""
    fields: list[Field] = []
    index = next((i for i, line in enumerate(lines) if line.start == sources[0].header.start), 0) - 1 if sources else -1
    while index >= 0 and lines[index].start not in taken:
        line = lines[index]
        index -= 1
        if line.blank:
            continue
        labelled = _LABEL_LINE.match(line.lower)
        label = normalise_label(line.text[labelled.start("label") : labelled.end("label")]) if labelled else ""
        if not labelled or not labelled["value"].strip() or not (vocab.is_field(label) or "key" in vocab.lexicon.concepts(label)):
            break
        fields.insert(0, _line_field(text, line, labelled, label))
    # "Document Title" reads as a generated title when a source has a name besides; here it is the name.
    title = next((f.value for f in fields if vocab.lexicon.means(f.label.split()[-1], "title")), None)
    if title is None and not any(vocab.lexicon.means(f.label, "key") for f in fields):
        return sources  # labelled lines that name no document: a preamble, not a document's header
    head, *rest = sources
    head = dataclasses.replace(head, span=Span(fields[0].span.start, head.span.end), fields=fields + head.fields, title=head.title or title)
    return [head, *(dataclasses.replace(s, title=s.title or title) for s in rest)]


def _labelled_key(key: str, vocab: Vocab) -> str | None:
    """What the slot of a "Chunk: {...}" header prints: "key" ("{i}"), "ordinal" (a chunk id or
    number, "{chunk['chunk_id'] + 1}"), or None: any other slot, or a number ("Source: 770" is a field)."""
    reference = slot_reference(key.lstrip("$"))
    concepts = vocab.lexicon.concepts(vocab.lexicon.item_label(reference.root, reference.key) if reference.path else reference.key) if reference else frozenset()
    return "ordinal" if "ordinal" in concepts else "key" if "key" in concepts else None


def _prints_the_conversation(key: str | None, vocab: Vocab) -> bool:
    """Whether a header's key is a slot reading the history or the question ("{messages[-1].role}")."""
    reference = slot_reference(key.lstrip("$")) if key and key.startswith(("{", "${")) else None
    return reference is not None and slot_kind(reference.root, vocab) in ("history", "question")


def _names_a_field(group: str, vocab: Vocab) -> bool:
    """Whether one item of a bracketed header ("[File: x; Relevance: 0.8]") is metadata the lexicon knows."""
    items = (_INLINE_ITEM.match(group[start:end]) for start, end in _split_items(group[1:-1], 1))
    return any(item and vocab.is_field(normalise_label(item["label"])) for item in items)


def _after_example_cue(lines: list[Line], index: int, vocab: Vocab) -> bool:
    """Whether the line before a header announces a worked example ("For example:"): its source is not a live one."""
    previous = next((ln for ln in reversed(lines[max(0, index - 3) : index]) if not ln.blank), None)
    return previous is not None and bool(vocab.example_cue.match(previous.lower))


# A field of a record: "Doc ID: 7", "**Updated:** 2026-10-01", "- Origin: wiki". A short label only.
_RECORD_FIELD = re.compile(r"\s*(?:[-*\u2022]\s+)?(?:\*\*|__)?(?P<label>(?:[^\W\d_]|@)[\w.@/-]*(?: [\w.@/-]+){0,3}?)(?:\*\*|__)?\s*[:=：](?:\*\*|__)?\s*(?P<value>.*)$")
_MD_HEADING = re.compile(r"\s*#{1,6}\s+(?P<title>\S.*?)\s*$")
# A banner heading: "----Analyst 2----", "=== Report {n} ===", "~~ Notes ~~"; its words name the record.
# Not "**...**": that is bold text, which opens an instruction as often as a record.
_BANNER = re.compile(r"\s*[-=~]{2,}\s*(?P<title>[^-=~\s](?:[^\n]*?[^-=~\s])?)\s*[-=~]{2,}\s*$")


def _record_sources(text: str, lines: list[Line], vocab: Vocab) -> list[Source]:
    """Sources written as records of labelled fields with no header line: "Doc ID: ... / Origin: ... /
    Text: ... / Match score: ...", a Markdown section whose metadata is bold ("## Title" then
    "**Updated:** 2026-10-01" then the text), or a one-line record ("Title: ..., URL: ..., Date: ...").

    A record is a paragraph (lines between blank lines): an optional heading (Markdown, or a banner
    such as "----Analyst 2----"), then fields, then the
    text (after a content label, or the first unlabelled lines), then optional fields. It takes two
    records of the same first label, or one whose text is labelled and has two fields besides, so
    that a paragraph of "Label: value" instructions is not read as a source.
    """
    stop = vocab.question_labels | vocab.history_labels | vocab.context_labels
    records = []
    for paragraph in _paragraphs(lines):
        for group in _repeats(paragraph):
            record = _record(text, group, vocab, stop)
            if record is not None:
                records.append(record)
    firsts = [r[1] for r in records]
    kept = [r for r in records if firsts.count(r[1]) >= 2 or (r[2] and len(r[0].fields) >= 2)]
    return [dataclasses.replace(source, position=n) for n, (source, _, _) in enumerate(kept)]


def _paragraphs(lines: list[Line]) -> list[list[Line]]:
    paragraphs: list[list[Line]] = [[]]
    for line in lines:
        if line.blank or _SEPARATOR.match(line.text):
            if paragraphs[-1]:
                paragraphs.append([])
        else:
            paragraphs[-1].append(line)
    return [p for p in paragraphs if p]


def _repeats(paragraph: list[Line]) -> list[list[Line]]:
    """A paragraph split where its first label comes again: records written one after another."""
    first = _RECORD_FIELD.match(paragraph[0].lower)
    if first is None:
        return [paragraph]
    groups: list[list[Line]] = [[]]
    for line in paragraph:
        field = _RECORD_FIELD.match(line.lower)
        if groups[-1] and field and field["label"] == first["label"]:
            groups.append([])
        groups[-1].append(line)
    return groups


def _record(text: str, paragraph: list[Line], vocab: Vocab, stop: frozenset[str]) -> tuple[Source, str, bool] | None:
    """The source a paragraph holds as a record, with its first field's label and whether its text is labelled."""
    heading = _MD_HEADING.match(paragraph[0].text) or _BANNER.match(paragraph[0].text)
    title = heading["title"].strip("*_ ") if heading else None
    read = _record_lines(text, paragraph[1:] if heading else paragraph, vocab, stop)
    if read is None:
        return None
    fields, content, labelled = read
    if title is None:
        title = _first_value(fields, vocab.title_labels)
    first = paragraph[0]
    source = Source(0, Span(first.start, paragraph[-1].end), Span(first.start, first.end if heading else first.start),
                    _trim(text, content), title=title, fields=fields)
    return source, (fields[0].label if not heading else "#"), labelled


def _record_lines(text: str, lines: list[Line], vocab: Vocab, stop: frozenset[str]) -> tuple[list[Field], Span, bool] | None:
    """The fields and the text of a record's lines, and whether a label introduced the text;
    None when the lines are no record (no fields or no text, a label in ``stop``, prose after the fields)."""
    fields: list[Field] = []
    content: Span | None = None
    labelled = trailing = False
    for line in lines:
        field = _RECORD_FIELD.match(line.lower)
        label = normalise_label(field["label"]) if field else ""
        if label in stop or (field and looks_like_instruction(line)):
            return None  # the question, the history or an instruction, not a source
        if field and label in vocab.content_labels and content is None:
            content, labelled = Span(line.start + field.start("value"), line.end), True
        elif field and len(items := _split_items(line.lower, 0)) > 1:
            # "Title: ..., URL: ..., Date Published: ...": a one-line record.
            fields.extend(_inline_field(line.text, line.start, start, end) for start, end in items)
            trailing = content is not None
        elif field and field["value"].strip():
            value = Span(line.start + field.start("value"), line.end)
            fields.append(Field(label, text[value.start : value.end].strip(" *_"), with_newline(text, line), value, FieldForm.LINE))
            trailing = content is not None
        elif trailing:
            return None  # text after the trailing fields: prose, not a record
        else:
            content = Span(line.start, line.end) if content is None else Span(content.start, line.end)
    if content is None or not fields:
        return None
    return fields, content, labelled


def _separated_sources(text: str, lines: list[Line], vocab: Vocab, messages: list[Message]) -> list[Source]:
    """Sources with no headers, only "---" lines between them, under a "Context:" label."""
    for index, line in enumerate(lines):
        section = _SECTION_LABEL.match(line.lower)
        if not section or normalise_label(section["dspy"] or section["md"] or section["plain"]) not in vocab.context_labels:
            continue
        block = _cut_last_source(lines[index + 1 :], vocab, messages, line.start)
        chunks: list[list[Line]] = [[]]
        for body_line in block:
            if _SEPARATOR.match(body_line.text):
                chunks.append([])
            else:
                chunks[-1].append(body_line)
        chunks = [c for c in (_strip_blank_edges(c) for c in chunks) if c]
        if len(chunks) < 2:
            continue
        if any(len(c) == 1 and (slot := _SLOT.fullmatch(c[0].lower.strip())) and slot_kind(slot["name"], vocab) == "context" for c in chunks):
            # "Context:\n{context_str}\n------\nYou are ...": the slot is the whole context, and the
            # rule after it closes the context block; it does not start another source.
            return []
        return [
            Source(n, Span(c[0].start, c[-1].end), Span(c[0].start, c[0].start), Span(c[0].start, c[-1].end))
            for n, c in enumerate(chunks)
        ]
    return []


# A list item that ends in a parenthesised group: "- {edge.fact} ({edge.valid_at} - {edge.invalid_at})".
_LIST_ITEM = re.compile(r"\s*(?:[-*\u2022]|\d+[.)])\s+(?P<text>\S.*?)\s*(?P<group>\((?:\{[^{}\n]*\}|[^()\n])*+\))\s*$")
_GROUP_SLOT = re.compile(r"\{[^{}\n]*\}")


def _list_sources(text: str, lines: list[Line], vocab: Vocab) -> list[Source]:
    """Sources written as a list, one a line, each ending in a group of metadata ("- {fact} ({valid_at} - {invalid_at})").

    A run of two or more items counts, when every item's group holds a field the lexicon
    knows, by its label ("(updated: ...)") or by what its slot prints: a list of
    instructions with an aside in parentheses is not a list of sources.
    """
    sources: list[Source] = []
    run: list[Source] = []
    for line in [*lines, None]:
        item = _LIST_ITEM.match(line.text) if line is not None else None
        field = _group_field(text, line, item, vocab) if item else None
        if field is not None:
            content = Span(line.start + item.start("text"), line.start + item.end("text"))
            run.append(Source(0, Span(line.start, line.end), Span(line.start, line.start), content, fields=[field]))
            continue
        if len(run) >= 2:
            sources.extend(run)
        run = []
    return _by_position(sources)


def _group_field(text: str, line: Line, item: re.Match[str], vocab: Vocab) -> Field | None:
    """The group ending a list item as one field, named by its label or by its first slot the lexicon knows;
    None when nothing in it is metadata. A range ("({valid_at} - {invalid_at})") is one field."""
    start, end = line.start + item.start("group"), line.start + item.end("group")
    inner = Span(start + 1, end - 1)
    whole = _with_space(text, 0, start, end)
    labelled = _INLINE_ITEM.match(line.lower[: inner.end - line.start], inner.start - line.start)
    if labelled and vocab.is_field(label := normalise_label(labelled["label"])):
        value = Span(line.start + labelled.start("value"), line.start + labelled.end("value"))
        return Field(label, text[value.start : value.end], whole, value, FieldForm.INLINE)
    slots = list(_GROUP_SLOT.finditer(text, inner.start, inner.end))
    for slot in slots:
        reference = slot_reference(slot[0])
        if reference and vocab.is_field(reference.key):
            # The value is what the slots print, words around them aside ("(relevance {h.relevance})").
            value = Span(slots[0].start(), slots[-1].end())
            return Field(reference.key, text[value.start : value.end], whole, value, FieldForm.INLINE)
    return None


def _unwrapped_context(text: str, lower: str, lines: list[Line], vocab: Vocab, messages: list[Message]) -> Span | None:
    """Retrieved text with no wrapper around each source, in an assembled prompt: the last context label's
    value and the lines under it ("context: Brewing is ..."), or the last element named for the context
    ("<information>...</information>"). In a template a context slot is the context, and a written-out
    one is a worked example.
    """
    if _may_hold_slot(text) and any(kind == "context" for _, kind in _slots(lower, 0, len(text), vocab)):
        return None
    found: Span | None = None
    for index, line in enumerate(lines):
        labelled = _QUESTION_LINE.match(line.lower)
        label = normalise_label(labelled["label"]) if labelled else ""
        # "PASSAGE: 'Your car has ...'": a chunk's own label on a line that carries a whole passage.
        passage = label in vocab.content_labels and len(labelled["value"].split()) >= PASSAGE_WORDS
        if labelled and labelled["value"].strip() and (label in vocab.context_labels or passage):
            rest = _cut_last_source(lines[index + 1 :], vocab, messages, line.start, seen_content=True)
            found = _trim(text, Span(line.start + labelled.start("value"), rest[-1].end if rest else line.end))
    for match in _CONTEXT_ELEMENT.finditer(lower):
        if normalise_label(match[1]) in vocab.context_labels | vocab.container_tags:
            close = lower.find(f"</{match[1]}>", match.end())
            if close > match.end() and (found is None or match.start() > found.start):
                found = _trim(text, Span(match.end(), close))
    return found if found and found.end > found.start else None


_CONTEXT_ELEMENT = re.compile(r"<([a-z_][\w-]*)(?:\s[^<>]*)?>")


def _cut_last_source(body: list[Line], vocab: Vocab, messages: list[Message], start: int, seen_content: bool = False) -> list[Line]:
    """Where the last source ends: at the next part of the prompt, not at the end of the text."""
    message_end = next((m.span.end for m in messages if m.span.start <= start < m.span.end), None)
    for i, line in enumerate(body):
        if message_end is not None and line.start >= message_end:
            return body[:i]
        stripped = line.lower.strip()
        if not stripped or (seen_content and _SEPARATOR.match(line.text)):
            # A blank line or a rule ("======") then an instruction: the text has ended.
            nxt = body[i + 1] if i + 1 < len(body) else None
            if seen_content and nxt is not None and (
                vocab.instruction_opener.match(nxt.lower) or _is_boundary(nxt, vocab)
            ):
                return body[:i]
            continue
        if seen_content and _is_boundary(line, vocab):
            return body[:i]
        seen_content = True
    return body


def _is_boundary(line: Line, vocab: Vocab) -> bool:
    stripped = line.lower.strip()
    if vocab.role_marker.match(line.lower) or stripped.startswith(("</", "#", "[[ ##", "[end ")):
        return True
    label = _QUESTION_LINE.match(line.lower)
    return bool(label) and normalise_label(label["label"]) in vocab.question_labels | vocab.history_labels


_KEY_GROUPS = ("key1", "key2", "key3", "key4", "key5")
_REST_GROUPS = ("rest1", "rest2", "rest3", "rest4", "rest5", "rest6", "rest7")


def _text_source(text: str, position: int, header: Line, match: re.Match[str], body: list[Line], vocab: Vocab) -> Source:
    """A source under a header line ("Document [1]: Title"): its key, what the rest of the header says, and its body."""
    offset = header.start + (len(header.lower) - len(header.lower.lstrip()))
    key, key_span, ordinal = _header_key(text, header, match, offset, vocab)
    rest_group = next(g for g in _REST_GROUPS if match[g] is not None)
    rest = Span(offset + match.start(rest_group), offset + match.end(rest_group))
    if (on_header := _chunk_on_header(text, position, header, rest, body, key, key_span, vocab)) is not None:
        return on_header
    title, heading, fields = _parse_header(text, rest, vocab)
    fields = [ordinal, *fields] if ordinal else fields
    body_read = _read_body(text, body, vocab, default_start=header.end)
    fields += body_read.fields
    wrapper_lines = body_read.wrapper_lines
    content_start, content_end = body_read.content.start, body_read.content.end
    title = title or _first_value(fields, vocab.title_labels) or _first_value(fields, frozenset({"source"}))
    if not heading and (path := _first_value(fields, vocab.heading_labels)):
        heading = tuple(p.strip() for p in path.split(">") if p.strip())
    end = max([content_end, header.end, body_read.end] + [f.span.end for f in fields] + [w.end for w in wrapper_lines])
    return Source(
        position=position,
        span=Span(header.start, end),
        header=Span(header.start, header.end),
        content=Span(content_start, content_end),
        key=key,
        key_span=key_span,
        title=title,
        heading_path=heading,
        fields=fields,
        wrapper_lines=wrapper_lines,
    )


def _header_key(text: str, header: Line, match: re.Match[str], offset: int, vocab: Vocab) -> tuple[str | None, Span | None, Field | None]:
    """The key a header line gives its source ("[1]", "Document 2"), or the ordinal field it gives instead."""
    key_group = next((g for g in _KEY_GROUPS if match[g] is not None), None)
    if key_group is None:
        return None, None, None
    key_span = Span(offset + match.start(key_group), offset + match.end(key_group))
    value = text[key_span.start : key_span.end]
    if key_group == "key5" and _labelled_key(value, vocab) == "ordinal":
        # "Chunk: {chunk_id + 1}": the line numbers the chunk inside its document; it cites nothing.
        return None, None, Field(slot_reference(value.lstrip("$")).key, value, with_newline(text, header), key_span, FieldForm.LINE)
    return match[key_group], key_span, None


def _chunk_on_header(
    text: str, position: int, header: Line, rest: Span, body: list[Line], key: str | None, key_span: Span | None, vocab: Vocab
) -> Source | None:
    """The source when its header line carries the chunk itself, after a metadata group or alone; None when it does not."""
    raw = text[rest.start : rest.end]
    lead = _LEADING_GROUP.match(text, rest.start, rest.end)
    grouped = lead and _carries_chunk(raw) and not _is_passage(raw)
    if not grouped and not _is_passage(raw):
        return None
    lines = _strip_blank_edges(body)
    end = max(rest.end, lines[-1].end if lines else rest.end)
    if grouped:
        # "Document [1](Title: X): «chunk text»": the metadata in a group, then the chunk on the header line.
        opened = len(raw) - len(raw.lstrip())
        closed = raw.rfind(")" if raw[opened] == "(" else "]", 0, lead.end() - rest.start)
        fields = [_inline_field(raw, rest.start, s, e) for s, e in _split_items(lowercase(raw[opened + 1 : closed]), opened + 1)]
        title = _first_value(fields, vocab.title_labels)
        return Source(position, Span(header.start, end), Span(header.start, lead.end()), _trim(text, Span(lead.end(), end)), key, key_span,
                      title=title.strip("\"'\u201c\u201d") if title else None, fields=fields)
    # "[1] «chunk text»": the header line carries the chunk itself, its title at most
    # before a bar ("[1] «David Gregory (physician) | David Gregory was ...»").
    titled = _PASSAGE_TITLE.match(text, rest.start, rest.end)
    return Source(position, Span(header.start, end), Span(header.start, rest.start), _trim(text, Span(rest.start, end)), key, key_span,
                  title=titled["title"].strip() if titled else None)


@dataclass(frozen=True)
class _Body:
    fields: list[Field]
    wrapper_lines: list[Span]
    content: Span
    end: int = 0  # where the source ends, when text after the content still belongs to it


@dataclass(frozen=True)
class _Head:
    """The metadata and wrapper lines above a source's content, and how the content opens."""
    fields: list[Field]
    wrapper_lines: list[Span]
    next_line: int  # the index of the first body line after the head
    labelled: bool = False  # the content was introduced by a label ("Content:", "Text" alone)
    inline: Span | None = None  # "Content: text": the content on the label's own line


def _read_body(text: str, body: list[Line], vocab: Vocab, default_start: int) -> _Body:
    """Split the lines under a header into metadata lines, wrapper lines and the content.

    Metadata and wrapper lines come first; the content starts at the first line
    that is neither, or after an explicit "Content:" (or bare "Text") label.
    """
    head = _read_head(text, body, vocab)
    fields, i = head.fields, head.next_line
    if head.inline and _LONE_SLOT.match(lowercase(text[head.inline.start : head.inline.end])):
        # "Snippet: {{Snippet}}" in a source template: the labelled lines after it are fields too.
        after_slot, read = _fields_after_slot(text, body[i:], vocab)
        if read:
            # The slot is the whole chunk: the lines after the fields that follow it stay in the
            # source, as before, but are no part of the chunk, so that its fields are not inside it.
            fields += after_slot
            tail = _strip_blank_edges(body[i + read :])
            end = max(tail[-1].end if tail else 0, fields[-1].span.end)
            return _Body(fields, head.wrapper_lines, head.inline, end)
    if head.labelled:
        content_lines, closing = _closing_fields(text, body[i:], vocab)
        fields += closing
    else:
        content_lines = _strip_blank_edges(body[i:])
    if head.inline:
        content_start = head.inline.start
    else:
        content_start = content_lines[0].start if content_lines else (body[i - 1].end if i and body else default_start)
    content_end = content_lines[-1].end if content_lines else (head.inline.end if head.inline else content_start)
    return _Body(fields, head.wrapper_lines, Span(content_start, max(content_end, content_start)))
def _read_head(text: str, body: list[Line], vocab: Vocab) -> _Head:
    """The metadata and wrapper lines that open a source's body, up to its content or a content label."""
    fields: list[Field] = []
    wrapper_lines: list[Span] = []
    for i, line in enumerate(body):
        if _edge(line):
            continue
        labelled = _LABEL_LINE.match(line.lower)
        # The label as written, so that "sourceDocument" reads as "source document".
        label = normalise_label(line.text[labelled.start("label") : labelled.end("label")]) if labelled else ""
        if _is_content_label(line, labelled, label, vocab):
            return _Head(fields, wrapper_lines, i + 1, labelled=True, inline=_value_on_line(line, labelled))
        if (metadata := _metadata_fields(text, line, labelled, label, vocab)) is not None:
            fields.extend(metadata)
        elif looks_like_instruction(line):
            wrapper_lines.append(with_newline(text, line))
        elif labelled and _prints_the_chunk(labelled, label, vocab):
            return _Head(fields, wrapper_lines, i + 1, labelled=True, inline=_value_on_line(line, labelled))
        else:
            return _Head(fields, wrapper_lines, i)
    return _Head(fields, wrapper_lines, len(body))


def _is_content_label(line: Line, labelled: re.Match[str] | None, label: str, vocab: Vocab) -> bool:
    """A line that introduces the content: "Content: ..." or "Text" alone on its line."""
    if labelled:
        return label in vocab.content_labels
    return normalise_label(line.lower.strip()) in vocab.content_labels


def _value_on_line(line: Line, labelled: re.Match[str] | None) -> Span | None:
    """The text after a label on its own line ("Content: text"), if there is any."""
    if labelled and labelled["value"].strip():
        return Span(line.start + labelled.start("value"), line.end)
    return None


def _metadata_fields(text: str, line: Line, labelled: re.Match[str] | None, label: str, vocab: Vocab) -> list[Field] | None:
    """The fields a line of a source's head gives, or None when it is no metadata line."""
    slot = _LONE_SLOT.match(line.lower)
    if slot and normalise_label(slot["name"]).endswith(_NAMING_SLOTS):
        # "{chunk_heading}" alone on a line: the slot names what it prints.
        return [Field(normalise_label(slot["name"]), line.text.strip(), with_newline(text, line), Span(line.start, line.end), FieldForm.LINE)]
    if not labelled:
        if _SLOT_LABEL_LINE.match(line.lower):
            # "{key}: {value}": a template line that prints any metadata field.
            return [Field("metadata", line.text.strip(), with_newline(text, line), Span(line.start, line.end), FieldForm.LINE)]
        return None
    if mapping := _mapping_fields(text, line, labelled):
        return mapping
    if vocab.is_field(label) or "_" in labelled["label"].strip():
        return [_line_field(text, line, labelled, label)]
    return None


def _prints_the_chunk(labelled: re.Match[str], label: str, vocab: Vocab) -> bool:
    """A labelled slot that neither its label nor its name calls metadata ("**Memory:** {{memory}}")
    prints the chunk, as a content label's slot does; fields may follow it."""
    printed = _LONE_SLOT.match(labelled["value"])
    return bool(printed) and not vocab.lexicon.concepts(printed["name"]) and not vocab.is_field(label)


def _fields_after_slot(text: str, lines: list[Line], vocab: Vocab) -> tuple[list[Field], int]:
    """The fields on the labelled lines that follow a slot printing the chunk, and how many lines they take."""
    fields: list[Field] = []
    read = 0
    for line in lines:
        labelled = _LABEL_LINE.match(line.lower)
        if not labelled:
            break
        label = normalise_label(line.text[labelled.start("label") : labelled.end("label")])
        if mapping := _mapping_fields(text, line, labelled):
            fields.extend(mapping)
        elif vocab.is_field(label := _named_by_slot(_line_field(text, line, labelled, label), vocab).label):
            fields.append(_line_field(text, line, labelled, label))
        else:
            break
        read += 1
    return fields, read


def _closing_fields(text: str, lines: list[Line], vocab: Vocab) -> tuple[list[Line], list[Field]]:
    """The content of labelled text without its edges, and the fields written after it: derived
    fields after a blank line ("Summary: ..."), then a last line of metadata written as a mapping."""
    content_lines, trailing = _split_trailing_fields(lines, vocab)
    fields = [_line_field(text, line, labelled, normalise_label(labelled["label"])) for line, labelled in trailing]
    content_lines = _strip_blank_edges(content_lines)
    last = _LABEL_LINE.match(content_lines[-1].lower) if content_lines else None
    if last and (mapping := _mapping_fields(text, content_lines[-1], last)):
        fields.extend(mapping)
        content_lines = _strip_blank_edges(content_lines[:-1])
    return content_lines, fields


# One "'key': value" item of a mapping written out as a Python dict or a JSON object.
_MAPPING_ITEM = re.compile(r"""\s*(?P<q>['"])(?P<label>[^'"\n]{1,40})(?P=q)\s*:\s*(?P<value>\S.*?)\s*$""")
_OPENERS, _CLOSERS = "{[(", "}])"


def _top_level_items(raw: str, start: int, end: int) -> list[tuple[int, int]]:
    """The comma-separated items of ``raw[start:end]``, not splitting inside quotes or brackets."""
    items, depth, quote, begin = [], 0, "", start
    for i in range(start, end):
        ch = raw[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth -= 1
        elif ch == "," and depth == 0:
            items.append((begin, i))
            begin = i + 1
    items.append((begin, end))
    return items


def _mapping_fields(text: str, line: Line, labelled: re.Match[str]) -> list[Field]:
    """The fields of a line whose value is a mapping ("Metadata: {'chunk_id': 'c1', 'source': 'wiki'}"):
    one per key, each removable on its own. Items that are not "'key': value" (a slot, "...") are left."""
    value_start = line.start + labelled.start("value")
    raw = text[value_start : line.end].rstrip()
    if len(raw) < 2 or raw[0] != "{" or raw[-1] != "}" or not _MAPPING_ITEM.match(raw, 1):
        return []
    fields = []
    for start, end in _top_level_items(raw, 1, len(raw) - 1):
        item = _MAPPING_ITEM.match(raw[start:end])
        if item is None:
            continue
        value = item["value"]
        quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
        value_at = value_start + start + item.start("value") + (1 if quoted else 0)
        shown = value[1:-1] if quoted else value
        # The item and the comma after it (before it, for the last): removing it leaves a valid mapping.
        span_start, span_end = start + item.start("q"), end
        if raw[end] == ",":
            span_end = end + 1 + (len(raw[end + 1 :]) - len(raw[end + 1 :].lstrip(" ")))
        elif start > 1:
            span_start = start - 1
        fields.append(Field(normalise_label(item["label"]), shown, Span(value_start + span_start, value_start + span_end),
                            Span(value_at, value_at + len(shown)), FieldForm.INLINE))
    return fields


def _line_field(text: str, line: Line, labelled: re.Match[str], label: str) -> Field:
    """A "Label: value" line as a field; removing it removes the line."""
    value_start = line.start + labelled.start("value")
    return Field(label, text[value_start : line.end].strip(), with_newline(text, line), Span(value_start, line.end), FieldForm.LINE)


# A metadata group that opens a header's rest: "(Title: X): ", "[Updated 2026-01-14] ".
_LEADING_GROUP = re.compile(r"\s*(?:\((?:[^()\n]|\([^()\n]*\))*\)|\[[^\[\]\n]*\])\s*:?\s*")


# A passage that opens with its title and a bar: "«Title | text", a few words with no sentence end.
_PASSAGE_TITLE = re.compile(r"\s*[«\"“](?P<title>[^\s|.!?][^|.!?\n]{0,80}?)\s+\|\s+\S")


def _carries_chunk(rest: str) -> bool:
    """A header line whose rest is the chunk, or a metadata group and then the chunk."""
    lead = _LEADING_GROUP.match(rest)
    return _is_passage(rest) or bool(lead and len(rest[lead.end() :].split()) >= PASSAGE_WORDS)


def _is_passage(rest: str) -> bool:
    """A header line that carries the chunk itself rather than a title."""
    rest = rest.strip()
    if rest.startswith(("«", '"', "“")):
        return True
    # A long run of prose with no metadata groups, ending like a sentence.
    return len(rest.split()) >= PASSAGE_WORDS and not re.search(r"[(\[|\u2014]", rest) and rest.endswith((".", "!", "?", "…"))


def _first_value(fields: list[Field], labels: frozenset[str]) -> str | None:
    return next((f.value for f in fields if f.label in labels and f.value), None)


def _split_trailing_fields(lines: list[Line], vocab: Vocab) -> tuple[list[Line], list[tuple[Line, re.Match[str]]]]:
    """Derived fields rendered after the chunk text ("\\n\\nSummary: ...") belong to the wrapper.

    Called only when the text was introduced by a label ("Text:", "Content:"),
    and only a labelled line after a blank line at the end of the source counts:
    otherwise a "Summary:" paragraph is the document's own text.
    """
    lexicon = vocab.lexicon
    trailing: list[tuple[Line, re.Match[str]]] = []
    end = len(lines)
    while end > 0 and lines[end - 1].blank:
        end -= 1
    i = end - 1
    while i > 0:
        line = lines[i]
        labelled = _LABEL_LINE.match(line.lower)
        if labelled and lexicon.means(normalise_label(labelled["label"]), "derived") and lines[i - 1].blank:
            trailing.insert(0, (line, labelled))
            end = i
            i -= 1
            continue
        if labelled and lexicon.means(normalise_label(labelled["label"]), "derived"):
            break
        i -= 1
        if i < end - 3:
            break
    # A trailing field's value may run onto the lines after its label.
    if trailing:
        first_line = trailing[0][0]
        cut = next(k for k, line in enumerate(lines) if line is first_line)
        return lines[:cut], [_extend_value(lines, lines.index(line), m) for line, m in trailing]
    return lines, []


def _extend_value(lines: list[Line], index: int, match: re.Match[str]) -> tuple[Line, re.Match[str]]:
    line = lines[index]
    end = index
    while end + 1 < len(lines) and not lines[end + 1].blank and not _LABEL_LINE.match(lines[end + 1].lower):
        end += 1
    if end == index:
        return line, match
    last = lines[end]
    joined_text = line.text + "\n" + "\n".join(l.text for l in lines[index + 1 : end + 1])
    merged = Line(line.start, last.end, joined_text, lowercase(joined_text))
    return merged, _LABEL_LINE.match(merged.lower.replace("\n", " "))


def _edge(line: Line) -> bool:
    return line.blank or bool(_SEPARATOR.match(line.text) or _LONE_TAG.match(line.lower))


def _strip_blank_edges(lines: list[Line]) -> list[Line]:
    start, end = 0, len(lines)
    while start < end and _edge(lines[start]):
        start += 1
    while end > start and _edge(lines[end - 1]):
        end -= 1
    return lines[start:end]


@cache
def _instruction_pattern() -> re.Pattern[str]:
    return vocabulary.patterns(vocabulary.load("per-source-instruction")["phrases"])


FRAMING_CHARS = 200


@cache
def _framing_pattern() -> re.Pattern[str]:
    return vocabulary.patterns(vocabulary.load("per-source-instruction")["framing"])


@cache
def _imperatives() -> str:
    return _alternation(vocabulary.load("per-source-instruction")["imperatives"])


@cache
def _addressing() -> re.Pattern[str]:
    """A clause that addresses the reader: it starts with an imperative ("prefer it", "do not cite") or says "you"."""
    return re.compile(r"(?:^|[,;:.!?]\s*|\band\s+)(?:" + _imperatives() + r")\b|\byou(?:r)?\b")


@cache
def _imperative_line() -> re.Pattern[str]:
    # Not a label that starts with such a word ("Use case: {{ d.use_case }}"): no colon right after.
    return re.compile(r"\s*(?:[-*\u2022]\s+)?(?:" + _imperatives() + r")\s+[a-z](?![^:\n]{0,20}:)")


def opens_with_imperative(line: Line) -> bool:
    """A line that opens with an imperative verb ("Treat the following as background only.").
    Talk to the model only where the text cannot be a chunk's own: a template's literal text."""
    return _imperative_line().match(line.lower) is not None


def looks_like_instruction(line: Line) -> bool:
    """A line of its own that talks to the model ("NOTE: prefer this source", "The following excerpt
    mentions the search terms ..."), not chunk text that happens to.

    A note that states a fact ("Note: the warranty was extended in 2024.") is the source's content.
    """
    stripped = line.lower.lstrip(" \t*_-")
    if stripped.startswith(("note:", "nb:", "important:", "instruction:", "guidance:")):
        return _addressing().search(stripped, stripped.index(":")) is not None or _instruction_pattern().search(stripped) is not None
    if _instruction_pattern().match(stripped):
        return True
    # A framing sentence is short; a chunk's first line can be long, and is not one.
    return len(stripped) <= FRAMING_CHARS and _framing_pattern().search(stripped) is not None


# ---------------------------------------------------------------- headers


def _parse_header(text: str, rest: Span, vocab: Vocab) -> tuple[str | None, tuple[str, ...], list[Field]]:
    """Split "Title — A > B (score: 0.61) ⚠️ OCR confidence 0.86" into title, heading path and fields."""
    fields: list[Field] = []
    raw = text[rest.start : rest.end]
    lowered = lowercase(raw)
    end = len(raw)
    warning = _WARNING_MARK.search(raw)
    if warning:
        value_start = warning.end() + (len(raw[warning.end() :]) - len(raw[warning.end() :].lstrip()))
        fields.append(
            Field("parse warning", raw[value_start:].strip(), _with_space(raw, rest.start, warning.start(), end), Span(rest.start + value_start, rest.end), FieldForm.INLINE)
        )
        end = warning.start()
    # Parenthesised and bracketed groups hold metadata; "|" separates items.
    groups, title_end = _group_fields(raw, lowered[:end], rest.start, vocab)
    fields += groups
    pieces = [(s, e) for s, e in _split_items(lowered[:title_end], 0, separators="|")]
    if len(pieces) > 1:
        fields.extend(_inline_field(raw, rest.start, s, e, separator="|") for s, e in pieces[1:])
        title_end = pieces[0][1]
    title_text = raw[:title_end].strip(" \t:.-|\u2014\u2013") or _after_groups(raw, lowered, end)
    title_text = re.sub(r"^[-=*]{2,}|[-=*]{2,}$", "", title_text).strip()
    title_text, item_fields = _title_items(raw, rest.start, _split_items(lowered[:title_end], 0), title_text, vocab)
    fields.extend(item_fields)
    heading: tuple[str, ...] = ()
    parts = _HEADING_SPLIT.split(title_text, maxsplit=1)
    if len(parts) == 2:
        title_text = parts[0].strip()
        heading = tuple(p.strip() for p in parts[1].split(">") if p.strip())
        heading, dashed = _dashed_fields(raw, rest.start, heading, vocab)
        fields.extend(dashed)
    return (title_text or None), heading, fields


def _group_fields(raw: str, lowered: str, offset: int, vocab: Vocab) -> tuple[list[Field], int]:
    """The fields in the groups of a header's rest ("(score: 0.61)", "[Updated 2026-01-14]"),
    and where the first group starts: the title ends there."""
    fields: list[Field] = []
    title_end = len(lowered)
    # A slot in a group may hold parentheses of its own: "({round(d['score'], 2)})".
    for group in _HEADER_GROUP.finditer(lowered):
        inner_start = group.start() + 1
        inner = lowered[inner_start : group.end() - 1]
        items = list(_split_items(inner, inner_start))
        group_fields = [_named_by_slot(_inline_field(raw, offset, s, e), vocab) for s, e in items]
        if len(group_fields) == 1:
            # A group of one field is removed whole, its brackets with it.
            f = group_fields[0]
            fields.append(Field(f.label, f.value, _with_space(raw, offset, group.start(), group.end()), f.value_span, FieldForm.INLINE))
        else:
            fields.extend(group_fields)
        title_end = min(title_end, group.start())
    return fields, title_end


def _title_items(raw: str, offset: int, items: list[tuple[int, int]], title_text: str, vocab: Vocab) -> tuple[str, list[Field]]:
    """The title and the fields of a header's comma-separated items."""
    labelled = _LABEL_LINE.match(lowercase(title_text))
    if not labelled:
        # "[1] Returns Policy, relevance: 92%": the title, then fields after commas.
        trailing = _trailing_fields(raw, offset, items, vocab)
        return (raw[: items[0][1]].strip(" \t:.-|\u2014\u2013"), trailing) if trailing else (title_text, [])
    item_fields = [_inline_field(raw, offset, s, e) for s, e in items] if len(items) > 1 else []
    if any(vocab.is_field(f.label) for f in item_fields):
        # "[1] source_id=RAGAS2023, chunk_id=17", "[1] document_id: 7, score: 0.8": every item
        # is a field when one of them is a field the lexicon knows; one may be the title.
        return next((f.value for f in item_fields if f.label in vocab.title_labels), ""), item_fields
    if normalise_label(labelled["label"]) in vocab.title_labels:
        return title_text[labelled.start("value") :].strip(), []
    return title_text, []


def _after_groups(raw: str, lowered: str, end: int) -> str:
    """The title written after the header's groups ("Passage 1 [92% relevant]: Returns Policy")."""
    last = None
    for last in _HEADER_GROUP.finditer(lowered[:end]):
        pass
    tail = raw[last.end() : end].strip(" \t:.-|\u2014\u2013") if last else ""
    return "" if any(ch in tail for ch in "{}[]()") else tail  # words, not the rest of an expression


def _trailing_fields(raw: str, offset: int, items: list[tuple[int, int]], vocab: Vocab) -> list[Field]:
    """The items after a title's first comma, when each is a field the lexicon knows; else none."""
    fields = [_inline_field(raw, offset, s, e) for s, e in items[1:]]
    return fields if fields and all(f.label and vocab.is_field(f.label) for f in fields) else []


def _dashed_fields(raw: str, offset: int, heading: tuple[str, ...], vocab: Vocab) -> tuple[tuple[str, ...], list[Field]]:
    """A last part after a dash that is a field ("Returns Policy — relevance 0.92", a date) is no heading."""
    if not heading:
        return heading, []
    last = heading[-1]
    at = raw.rfind(last)
    field = _inline_field(raw, offset, at, at + len(last)) if at >= 0 else None
    labelled = field is not None and field.label and vocab.is_field(field.label) and number(field.value) is not None
    if not labelled and (field is None or field.label or parse_date(field.value) is None):
        return heading, []  # a heading, unless a known field with a number or a date alone ("— 1 March 2026")
    # The dash before it goes with it.
    dash = _HEADING_SPLIT_BEFORE.search(raw, 0, at)
    start = dash.start() if dash else at
    field = Field(field.label, field.value, Span(offset + start, offset + at + len(last)), field.value_span, FieldForm.INLINE)
    return heading[:-1], [field]


# After a comma, what starts a new item: "label: value", "label=value" or "label 3".
_ITEM_START = re.compile(r"\s*(?:[^\W\d_]|@)[\w .@-]{0,30}?(?:\s*[:=：]|\s+\d)")


def _split_items(inner: str, base: int, separators: str = ",;|") -> list[tuple[int, int]]:
    """Split a header group into items; a comma inside a value ("March 3, 2019") does not split."""
    items, start = [], 0
    for i, ch in enumerate(inner):
        if ch in separators and (ch == "|" or _ITEM_START.match(inner, i + 1)):
            items.append((base + start, base + i))
            start = i + 1
    items.append((base + start, base + len(inner)))
    return [(s, e) for s, e in items if inner[s - base : e - base].strip()]


# A number before its label: "(92% match)", "[0.92 relevance]".
_VALUE_FIRST = re.compile(r"\s*(?P<value>\d+(?:\.\d+)?\s*%?)\s+(?P<label>[^\W\d_]+(?: [^\W\d_]+){0,3})\s*$")


def _inline_field(raw: str, offset: int, start: int, end: int, separator: str = ",;") -> Field:
    item = raw[start:end]
    match = _INLINE_ITEM.match(lowercase(item)) or _VALUE_FIRST.match(lowercase(item))
    if match and parse_date(match["value"]) is None and parse_date(item.strip()) is not None:
        match = None  # a date alone ("Mar 1, 2026"), not a label "Mar" and a value "1, 2026"
    if match:
        label = normalise_label(match["label"])
        value_start = start + match.start("value")
        value = raw[value_start : start + match.end("value")]
    else:
        # An unlabelled item ("(2025-08-02)", "[Confluence]"): the rules judge it by its value;
        # a slot ("({score_2:.2f})", "({{ '%.2f' % d.score }})") by what it prints.
        value_start = start + len(item) - len(item.lstrip())
        value = item.strip()
        printed = slot_reference(value) if value.startswith("{") else None
        label = printed.key if printed else ""
    # The span a fix removes: the item and the separator before it (or after it, for the first item).
    span_start, span_end = start, end
    # Where the text before the item ends, found without copying it: a header line can be megabytes long.
    before = start
    while before > 0 and raw[before - 1].isspace():
        before -= 1
    if before > 0 and raw[before - 1] in separator:
        span_start = before - 1
    elif raw[end : end + 1] and raw[end] in separator:
        span_end = end + 1
        while span_end < len(raw) and raw[span_end] == " ":
            span_end += 1
    return Field(label, value.strip(), Span(offset + span_start, offset + span_end), Span(offset + value_start, offset + value_start + len(value.rstrip())), FieldForm.INLINE)


def _named_by_slot(field: Field, vocab: Vocab) -> Field:
    """A field whose words say nothing the lexicon knows ("saved on {{created_at}}") is named by the
    slot it prints, as a template's attribute is: the slot's name is the better witness."""
    printed = slot_reference(field.value) if field.value.startswith("{") else None
    if printed is None or vocab.is_field(field.label) or not vocab.is_field(printed.key):
        return field
    return dataclasses.replace(field, label=printed.key)


def _with_space(raw: str, offset: int, start: int, end: int) -> Span:
    """A header group and the one space before it, so that removing it leaves no double space."""
    if start > 0 and raw[start - 1] == " ":
        start -= 1
    return Span(offset + start, offset + end)


# ---------------------------------------------------------------- XML sources


def _xml_sources(text: str, lower: str, vocab: Vocab) -> list[Source]:
    """Sources wrapped in elements: <document index="1">...</document>, <item>, <search_result>, ..."""
    if "<" not in text:
        return []
    sources: list[Source] = []
    for match, close in _closed_elements(lower, vocab.source_tag, 0, len(lower)):
        sources.append(_xml_source(text, lower, len(sources), match, close, vocab))
    return sources


def _closed_elements(lower: str, opening: re.Pattern[str], start: int, end: int) -> Iterator[tuple[re.Match[str], int]]:
    """Each element of ``lower[start:end]`` that ``opening`` opens (its name its first group) and that
    is closed there, with where its closing tag starts; the next is looked for after that tag."""
    # Tags with no closing tag after the current position, which only moves on: without
    # this, each of n unclosed tags would search the rest of the text (n squared).
    unclosed: set[str] = set()
    pos = start
    while match := opening.search(lower, pos, end):
        tag = match[1]
        close = -1 if tag in unclosed else lower.find(f"</{tag}>", match.end(), end)
        if close < 0:
            unclosed.add(tag)
            pos = match.end()
            continue
        yield match, close
        pos = close + len(tag) + 3


_ATTRIBUTE = re.compile(r"([\w:.-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_CHILD_OPEN = re.compile(r"<([a-z_][\w.-]*)(?:\s[^<>]*)?>")


def _xml_source(text: str, lower: str, position: int, match: re.Match[str], close: int, vocab: Vocab) -> Source:
    """One source element: the key and fields of its opening tag and of its children, and its chunk."""
    end = close + len(match[1]) + 3
    key, key_span, fields = _attribute_fields(text, lower, match)
    inner = Span(match.end(), close)
    content, children, child_spans = _child_elements(text, lower, inner, vocab)
    fields += children
    title, heading = _title_and_heading(children, vocab)
    wrapper_lines: list[Span] = []
    if content is None:
        body = _body_between_children(text, lower, inner, child_spans, vocab)
        fields += body.fields
        wrapper_lines = body.wrapper_lines
        content = body.content
    content = _trim(text, content)
    if title is None:
        title = _attribute_title(fields)
    return Source(
        position=position,
        span=Span(match.start(), end),
        header=Span(match.start(), match.end()),
        content=content,
        key=key,
        key_span=key_span,
        title=title,
        heading_path=heading,
        fields=fields,
        wrapper_lines=wrapper_lines,
        style=SourceStyle.XML,
    )


def _attribute_fields(text: str, lower: str, match: re.Match[str]) -> tuple[str | None, Span | None, list[Field]]:
    """The key of a source element's opening tag (its first "index", "id", ... attribute) and its other attributes as fields."""
    fields: list[Field] = []
    key = key_span = None
    for attr in _ATTRIBUTE.finditer(lower, match.start(), match.end()):
        label = normalise_label(attr[1])
        group = 2 if attr[2] is not None else 3
        value_span = Span(attr.start(group), attr.end(group))
        if label in ("index", "id", "n", "number", "key") and key is None:
            key, key_span = text[value_span.start : value_span.end], value_span
            continue
        start = attr.start() - 1 if text[attr.start() - 1] == " " else attr.start()
        fields.append(Field(label, text[value_span.start : value_span.end], Span(start, attr.end()), value_span, FieldForm.INLINE))
    return key, key_span, fields


def _child_elements(text: str, lower: str, inner: Span, vocab: Vocab) -> tuple[Span | None, list[Field], list[Span]]:
    """What the child elements of a source element hold: the chunk, when the first content
    element does, and the others as fields, with the spans a fix removes them by."""
    content: Span | None = None
    fields: list[Field] = []
    child_spans: list[Span] = []
    for child, child_close in _closed_elements(lower, _CHILD_OPEN, inner.start, inner.end):
        name = child[1]
        value_span = Span(child.end(), child_close)
        if name in vocab.content_tags and content is None:
            content = value_span
            continue
        span = _tag_line_span(text, Span(child.start(), child_close + len(name) + 3))
        fields.append(Field(normalise_label(name), text[value_span.start : value_span.end].strip(), span, value_span, FieldForm.TAG))
        child_spans.append(span)
    return content, fields, child_spans


def _title_and_heading(children: list[Field], vocab: Vocab) -> tuple[str | None, tuple[str, ...]]:
    """The title and the heading path the child elements give, each from the first that names one."""
    title = None
    heading: tuple[str, ...] = ()
    for child in children:
        if child.label in vocab.title_labels | {"source"} and title is None:
            title = child.value
        elif child.label in vocab.heading_labels and not heading:
            heading = tuple(p.strip() for p in child.value.split(">") if p.strip())
    return title, heading


def _body_between_children(text: str, lower: str, inner: Span, child_spans: list[Span], vocab: Vocab) -> _Body:
    """With no content element, the text between the children, read as a text source's body."""
    covered = SpanSet(child_spans)
    inner_lines = text_lines(text, lower, inner.start, inner.end)
    body = _read_body(text, [ln for ln in inner_lines if ln.start not in covered], vocab, default_start=inner.start)
    # The body leaves out the children's lines, but the content runs from its first line
    # to its last. Over a child read as a field (a tag left unclosed above the child makes
    # the content start there), a fix that removes the field would edit the content.
    content = body.content
    crossed = [ln.end for ln in inner_lines if ln.start in covered and content.start < ln.start < content.end]
    if crossed:
        return dataclasses.replace(body, content=Span(max(crossed), content.end))
    return body


def _attribute_title(fields: list[Field]) -> str | None:
    """The title an attribute of the opening tag gives ("title", then "name", "source", a file name)."""
    for name in ("title", "name", "source", "filename", "file"):
        found = next((f for f in fields if f.label == name and f.form == FieldForm.INLINE), None)
        if found:
            return found.value
    return None


def _trim(text: str, span: Span) -> Span:
    start, end = span.start, span.end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end)


def _tag_line_span(text: str, span: Span) -> Span:
    """A child element alone on its line is removed with its line."""
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.end)
    line_end = len(text) if line_end < 0 else line_end
    if not text[line_start : span.start].strip() and not text[span.end : line_end].strip():
        return Span(line_start, min(line_end + 1, len(text)))
    return span


def _widen_to_container(lower: str, block: Span, vocab: Vocab) -> Span:
    before = lower[: block.start].rstrip()
    opened = re.search(r"<([a-z_]+)(?:\s[^<>]*)?>$", before)
    if not opened or opened[1] not in vocab.container_tags:
        return block
    closing = f"</{opened[1]}>"
    after = lower[block.end :]
    if after.lstrip().startswith(closing):
        end = block.end + (len(after) - len(after.lstrip())) + len(closing)
        return Span(opened.start(), end)
    return block


# ---------------------------------------------------------------- the question


def _questions(
    text: str, lower: str, lines: list[Line], vocab: Vocab, sources: list[Source], messages: list[Message]
) -> tuple[list[Span], list[Span], list[Span]]:
    """Every place the question is asked outside the sources, every slot for a rewritten form of it,
    and the questions of worked examples."""
    inside = SpanSet([s.span for s in sources])
    found = _labelled_questions(text, lines, vocab, inside) + _tagged_questions(text, lower, inside)
    slotted, rewritten = _question_slots(text, lower, vocab, inside)
    found += slotted
    if not found and (asked_last := _last_user_question(text, lower, vocab, sources, messages)) is not None:
        found.append(asked_last)
    asked = _restated(text, _not_rewritten(found, rewritten))
    live = _live(lower, asked)
    return live, rewritten, [span for span in asked if span not in live]


def _labelled_questions(text: str, lines: list[Line], vocab: Vocab, inside: SpanSet) -> list[Span]:
    """The questions after a question label: on its line ("Question: ..."), or on the next line
    after a section label ("## Question")."""
    found: list[Span] = []
    for index, line in enumerate(lines):
        if line.start in inside:
            continue
        match = _QUESTION_LINE.match(line.lower)
        if match and normalise_label(match["label"]) in vocab.question_labels and match["value"].strip():
            start = line.start + match.start("value")
            found.append(_trim(text, Span(start, line.end)))
            continue
        section = _SECTION_LABEL.match(line.lower)
        if section and normalise_label(section["dspy"] or section["md"] or section["plain"]) in vocab.question_labels:
            nxt = next((ln for ln in lines[index + 1 :] if not ln.blank), None)
            if nxt is not None and not _SECTION_LABEL.match(nxt.lower) and nxt.start not in inside:
                found.append(_trim(text, Span(nxt.start, nxt.end)))
    return found


def _tagged_questions(text: str, lower: str, inside: SpanSet) -> list[Span]:
    """The questions inside a question tag ("<question>...</question>")."""
    found: list[Span] = []
    for tag in ("question", "query", "user_query", "user_question"):
        pos = 0
        while (open_at := lower.find(f"<{tag}>", pos)) >= 0:
            close = lower.find(f"</{tag}>", open_at)
            if close < 0:
                break
            span = _trim(text, Span(open_at + len(tag) + 2, close))
            if span.end > span.start and not inside.covers(span):
                found.append(span)
            pos = close
    return found


def _question_slots(text: str, lower: str, vocab: Vocab, inside: SpanSet) -> tuple[list[Span], list[Span]]:
    """The slots of the question, and those of a rewritten form of it, outside the sources."""
    questions: list[Span] = []
    rewritten: list[Span] = []
    if not _may_hold_slot(text):
        return questions, rewritten
    for span, kind in _slots(lower, 0, len(text), vocab):
        if span.start in inside:
            continue
        if kind == "question":
            questions.append(span)
        elif kind == "rewritten":
            rewritten.append(span)
    return questions, rewritten


def _last_user_question(text: str, lower: str, vocab: Vocab, sources: list[Source], messages: list[Message]) -> Span | None:
    """With no question found otherwise, the last line of the last user message after its sources,
    when it asks something."""
    last_user = next((m for m in reversed(messages) if m.role == "user"), None)
    if last_user is None:
        return None
    tail = Span(max([last_user.span.start] + [s.span.end for s in sources if last_user.span.contains(s.span)]), last_user.span.end)
    body = [ln for ln in text_lines(text, lower, tail.start, tail.end) if not ln.blank and not vocab.role_marker.match(ln.lower)]
    if body and body[-1].text.rstrip().endswith("?"):
        return _trim(text, Span(body[-1].start, body[-1].end))
    return None


def _not_rewritten(found: list[Span], rewritten: list[Span]) -> list[Span]:
    """The places the question is asked, in order, less those a rewritten form fills ("Question: {new_question}")."""
    return sorted(span for span in found if not any(span.contains(r) for r in rewritten))


def _live(lower: str, found: list[Span]) -> list[Span]:
    """The places the live question is asked: a written-out question that differs from it is a worked example.

    The live question is the one asked last; few-shot demonstrations ("Question: What
    color are apples?") come before it with other words. In a template, where it is a
    slot, every slot of the question stays (``{input}`` and ``{query}`` both hold it).
    """
    if len(found) < 2:
        return found
    slot = [bool(_SLOT.search(lower, span.start, span.end)) for span in found]
    live = _words(lower, found[-1])
    return [span for span, is_slot in zip(found, slot) if (is_slot and slot[-1]) or _words(lower, span) == live]


def _words(lower: str, span: Span) -> list[str]:
    return re.findall(r"\w+", lower[span.start : span.end])


def _restated(text: str, found: list[Span]) -> list[Span]:
    """One span per place: a question found both by its label and its tag counts once."""
    unique: list[Span] = []
    for span in found:
        if not unique or not unique[-1].overlaps(span):
            unique.append(span)
    return unique


# ---------------------------------------------------------------- parts


def _parts(
    text: str,
    lower: str,
    lines: list[Line],
    vocab: Vocab,
    sources: list[Source],
    block: Span | None,
    questions: list[Span],
    messages: list[Message],
) -> list[Part]:
    """Label every non-blank stretch of the prompt as static or per-request."""
    parts: list[Part] = []
    if block is not None:
        parts.append(Part(PartKind.SOURCES, block, "the sources"))
    for question in questions:
        if block is None or not block.contains(question):
            parts.append(Part(PartKind.QUESTION, Span(_label_start(lower, question), _label_end(lower, question)), "the question"))
    last_user = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"), None)
    for i, message in enumerate(messages):
        if i == len(messages) - 1 and message.role == "assistant" and _only_marker(text, message, vocab):
            continue  # an empty assistant turn at the end is where generation starts
        if message.role == "assistant" or (message.role == "user" and last_user is not None and i < last_user):
            parts.append(Part(PartKind.HISTORY, message.span, "an earlier turn"))
    taken = SpanSet([p.span for p in parts])
    for line in lines:
        if _DEFINITION.match(line.lower):
            break  # what follows says what a slot expands to; it is not sent where it stands
        for piece in _uncovered(text, line, taken):
            parts.extend(_line_parts(text, lower, piece, vocab, questions))
    parts.sort(key=lambda p: p.span.start)
    return merge_parts(text, parts)


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
    labelled = _QUESTION_LINE.match(line.lower) or re.match(r"\s*\[?(?P<label>[a-z_ ]+?)\]?\s*:?\s*$", line.lower)
    if labelled and normalise_label(labelled["label"]) in vocab.history_labels:
        return [Part(PartKind.HISTORY, Span(line.start, line.end), "chat history")]
    slots = _slots(lower, line.start, line.end, vocab) if _may_hold_slot(line.lower) else []
    if slots and questions:
        # A question slot that is not the live question is in a worked example or a written-out format.
        slots = [(span, kind) for span, kind in slots if kind != "question" or any(span.overlaps(q) for q in questions)]
    if slots:
        return _slot_parts(text, line, slots)
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


def _slot_parts(text: str, line: Line, slots: list[tuple[Span, str]]) -> list[Part]:
    """A line with slots: each slot is the part its name says, the words around them are static."""
    parts, pos = [], line.start
    for span, kind in slots:
        if text[pos : span.start].strip():
            parts.append(Part(PartKind.INSTRUCTIONS, Span(pos, span.start)))
        part = PartKind(_PART_OF_SLOT[kind])
        parts.append(Part(part, span, _SLOT_LABELS[part]))
        pos = span.end
    if text[pos : line.end].strip():
        parts.append(Part(PartKind.INSTRUCTIONS, Span(pos, line.end)))
    return parts


_PART_OF_SLOT = {"question": "question", "rewritten": "question", "context": "sources", "history": "history", "volatile": "volatile"}
_SLOT_LABELS = {
    PartKind.QUESTION: "the question",
    PartKind.SOURCES: "the retrieved context",
    PartKind.HISTORY: "chat history",
    PartKind.VOLATILE: "per-request data",
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
