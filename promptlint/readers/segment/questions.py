"""Where the question is asked, and where a rewritten form of it is filled in."""

from __future__ import annotations

import re

from ...meaning.vocabulary import normalise_label
from ...model.prompt import Message, Source, Span, SpanSet
from .vocab import Line, QUESTION_LINE, SECTION_LABEL, SLOT, Vocab, may_hold_slot, names_the_question, named_slots, section_label, slot_name, text_lines, trim


def find_questions(
    text: str, lower: str, lines: list[Line], vocab: Vocab, sources: list[Source], messages: list[Message]
) -> tuple[list[Span], list[Span], list[Span]]:
    """Every place the question is asked outside the sources, every slot for a rewritten form of it,
    and the questions of worked examples."""
    inside = SpanSet([s.span for s in sources])
    labelled, answered = _labelled_questions(text, lines, vocab, inside)
    found = labelled + _tagged_questions(text, lower, inside, vocab)
    slotted, rewritten = _question_slots(text, lower, vocab, inside, found)
    found += slotted
    if not found and (asked_last := _last_user_question(text, lower, vocab, sources, messages)) is not None:
        found.append(asked_last)
    if not found:
        found += _asked_twice(text, lower, inside, messages) or _message_quoted(lower, inside, messages)
    elif messages:
        # A label over the user's words quoted into another message ("The user asked: "..."") leaves their own turn a copy.
        found += [span for span in _message_quoted(lower, inside, messages) if not any(span.overlaps(f) for f in found)]
    asked = _restated(text, _not_rewritten(found, rewritten))
    live = _live(lower, asked)
    examples = sorted([span for span in asked if span not in live] + answered)
    if may_hold_slot(text):
        # In a template the user's question is a slot: a question written out before a slot ("질문: 졸업 이수
        # 학점이 어떻게 돼?" under an output example, then `{context}`) is static text, the same on every
        # request. A print with placeholders only in a format it describes ends with the question it asks;
        # and a user's turn of a recorded conversation is the request's own, whatever the system turn holds.
        turns = SpanSet([m.span for m in messages if m.role == "user"])
        live = [span for span in live if SLOT.search(lower, span.start, span.end) or span.start in turns or not SLOT.search(lower, span.end)]
    return live, rewritten, examples


def _labelled_questions(text: str, lines: list[Line], vocab: Vocab, inside: SpanSet) -> tuple[list[Span], list[Span]]:
    """The questions after a question label: on its line ("Question: ..."), or on the next line
    after a section label ("## Question"); and apart, when two or more are, those answered in writing below their label."""
    found: list[Span] = []
    answered: list[tuple[Span, Span]] = []
    for index, line in enumerate(lines):
        if line.start in inside:
            continue
        match = _question_label(line, vocab)
        if match is not None:
            asked = _unquoted(text, trim(text, Span(line.start + match.start("value"), line.end)))
            answer = _written_answer(lines, index, vocab)
            if answer is None:
                found.append(asked)
            else:
                answered.append((asked, Span(asked.start, answer.end)))
            continue
        label = section_label(line.lower)
        if label and names_the_question(label, vocab):
            nxt = next((ln for ln in lines[index + 1 :] if not ln.blank), None)
            if nxt is not None and not SECTION_LABEL.match(nxt.lower) and nxt.start not in inside:
                found.append(trim(text, Span(nxt.start, nxt.end)))
    if len(answered) < 2:
        # One question answered in writing may be the live one, printed with the reply; a run of them is worked examples.
        return sorted(found + [asked for asked, _ in answered]), []
    return found, [exchange for _, exchange in answered]


def _question_label(line: Line, vocab: Vocab) -> re.Match[str] | None:
    """A question label and the question after it: opening the line ("Question: ..."), or opening a sentence of it
    with the question quoted ("You are a tutor. A student asked: "where is href taught?"")."""
    match = QUESTION_LINE.match(line.lower)
    if match and names_the_question(normalise_label(match["label"]), vocab) and match["value"].strip():
        return match
    for sentence in _SENTENCE_START.finditer(line.lower):
        match = QUESTION_LINE.match(line.lower, sentence.end())
        if match and match["value"][:1] in _QUOTES and names_the_question(normalise_label(match["label"]), vocab):
            return match
    return None


# Where a sentence of a line starts after another.
_SENTENCE_START = re.compile(r"[.!?][ \t]+(?=\S)")
# Quotes a question may stand in after its label, opening and closing.
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "`": "`"}


def _unquoted(text: str, value: Span) -> Span:
    """A value that opens with a quote, up to where the quote closes ("The user asked: "..." Answer briefly."): the words quoted."""
    close = _QUOTES.get(text[value.start : value.start + 1])
    end = text.find(close, value.start + 1, value.end) if close else -1
    return Span(value.start + 1, end) if end > value.start + 1 else value


def _written_answer(lines: list[Line], index: int, vocab: Vocab) -> Line | None:
    """The line that answers the question on line ``index`` in writing, before the next question ("Question: ...",
    then "Answer: No evidence found."; or "QUESTION: ...", the documents of a worked example over paragraphs, then
    "FINAL ANSWER: ..."): a worked example's, or a record's, never the live one, which leaves the answer to the
    model ("Answer:", "Answer:<end_of_turn>"). None when no answer is written."""
    for line in lines[index + 1 :]:
        match = QUESTION_LINE.match(line.lower)
        if not match:
            continue
        label = normalise_label(match["label"])
        if label in vocab.example_asking or names_the_question(label, vocab):
            return None
        if _answers(label, vocab) and _ANSWER_WORDS.search(_TOKEN.sub("", match["value"])):
            return line
    return None


def _answers(label: str, vocab: Vocab) -> bool:
    """Whether a label heads an answer: an answer's ("Answer:") or one qualified ("FINAL ANSWER:")."""
    return label in vocab.example_answers or label.rpartition(" ")[2] in vocab.example_answers


# A special token or a placeholder in angle brackets ("Answer:<end_of_turn>", "Answer: <your answer>"): no answer written.
_TOKEN = re.compile(r"<[^<>\n]*>")
_ANSWER_WORDS = re.compile(r"\w")


def _tagged_questions(text: str, lower: str, inside: SpanSet, vocab: Vocab) -> list[Span]:
    """The questions inside a question tag ("<question>...</question>")."""
    found: list[Span] = []
    if "<" not in lower:
        return found  # one pass for the tags' first character, not one for each tag
    for tag in vocab.question_tags:
        pos = 0
        while (open_at := lower.find(f"<{tag}>", pos)) >= 0:
            close = lower.find(f"</{tag}>", open_at)
            if close < 0:
                break
            span = trim(text, Span(open_at + len(tag) + 2, close))
            if span.end > span.start and not inside.covers(span):
                found.append(span)
            pos = close
    return found


def _question_slots(text: str, lower: str, vocab: Vocab, inside: SpanSet, labelled: list[Span]) -> tuple[list[Span], list[Span]]:
    """The slots of the question, and those of a rewritten form of it, outside the sources. A slot a
    question label or tag names (``labelled``: "QUESTION:\n{q}") prints the question wherever else it
    stands, whatever its name."""
    questions: list[Span] = []
    rewritten: list[Span] = []
    if not may_hold_slot(text):
        return questions, rewritten
    named = {slot_name(text, slot): "question" for s in labelled if (slot := SLOT.fullmatch(lower, s.start, s.end))}
    for span, kind in named_slots(text, lower, 0, len(text), vocab, named):
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
        return trim(text, Span(body[-1].start, body[-1].end))
    return None


# A question written out: at least this many words before its question mark, on its line.
ASKED_WORDS = 6
MAX_ASKED = 20
# Of the words before a question mark, the most that are read as the question.
QUESTION_WORDS = 40


def _asked_twice(text: str, lower: str, inside: SpanSet, messages: list[Message]) -> list[Span]:
    """With no question found otherwise, in a chat of written-out messages: a question of at least
    ASKED_WORDS words that stands twice outside the sources, once in a user's message (the request
    states the user's question, then a tool's output quotes it again). Where each copy starts is
    found by the longest run of words before the question mark that the other copy ends with too."""
    users = [m.span for m in messages if m.role == "user"]
    if not users:
        return []
    for words in _questions(lower):
        for n in range(len(words), ASKED_WORDS - 1, -1):
            pattern = re.compile(r"\b" + r"[\W_]+".join(re.escape(w) for w in words[-n:]) + r"\W*\?")
            copies = [Span(m.start(), m.end()) for m in pattern.finditer(lower) if m.start() not in inside]
            if len(copies) >= 2 and any(u.contains(c) for u in users for c in copies):
                return copies
    return []


# A user's message quoted whole inside another message has at least this many words.
QUOTED_WORDS = 3
QUOTED_MESSAGES = 4


def _message_quoted(lower: str, inside: SpanSet, messages: list[Message]) -> list[Span]:
    """With no question found otherwise, in a chat: a user's message of one line, of QUOTED_WORDS to
    QUESTION_WORDS words, whose words stand again inside another, longer message, outside the sources
    (the app quotes the user's request into the message it builds: "the users prompt which is ###
    START PROMPT ### Which devs know laravel ### END PROMPT ###")."""
    # The last few user messages: a long conversation's every turn is not searched for across the whole text.
    for message in [m for m in messages if m.role == "user"][-QUOTED_MESSAGES:]:
        said = lower[message.span.start : message.span.end].strip()
        # A message of many lines, a conversation's context pasted in, is not split into words for nothing.
        if "\n" in said:
            continue
        words = re.findall(r"\w+", said)
        if not QUOTED_WORDS <= len(words) <= QUESTION_WORDS:
            continue
        pattern = re.compile(r"(?<!\w)" + r"[\W_]+".join(re.escape(w) for w in words) + r"(?!\w)")
        copies = [
            Span(m.start(), m.end()) for m in pattern.finditer(lower)
            if m.start() not in inside and (message.span.contains(Span(m.start(), m.end())) or _within_longer(m.start(), message, messages))
        ]
        if len(copies) >= 2:
            return copies
    return []


def _within_longer(at: int, quoted: Message, messages: list[Message]) -> bool:
    """Whether ``at`` is inside another message that says more than the one it quotes."""
    return any(m is not quoted and m.span.start <= at < m.span.end and len(m.span) > 2 * len(quoted.span) for m in messages)


def _questions(lower: str):
    """The words before each of the first MAX_ASKED question marks, back to the line's start or the
    question mark before it (the last QUESTION_WORDS of them). Found by scanning, never by a pattern
    that could try every start of a long line."""
    mark, asked = lower.find("?"), 0
    while mark >= 0 and asked < MAX_ASKED:
        start = max(lower.rfind("\n", 0, mark), lower.rfind("?", 0, mark)) + 1
        words = re.findall(r"\w+", lower[start:mark])
        if words:
            asked += 1
            yield words[-QUESTION_WORDS:]
        mark = lower.find("?", mark + 1)


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
    slot = [bool(SLOT.search(lower, span.start, span.end)) for span in found]
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
