"""Dynamic content before the static instructions.

## What it does
Flags per-request content (conversation history, sources, the question, the
current date or time, user data, what the application detected in the request after its label
("Detected language: fr", "Predicted intent: refund"), the request's own input) placed before the main block
of static instructions or examples. A template slot alone on its line under a label of its own
("JOB DESCRIPTION:", "**Pergunta do cliente:**", "## Context (above)", `<report>`, "--- FINDINGS ---", "===Tables", "【参考经验】", then `{jd}`) is the request's input whatever
its name, unless the name says it holds the deployment's setup (`{format_instructions}`,
`{tool_list}`, `{criteria}`: `setup-vars` in `rules/segment.yaml`). A one-line, one-sentence reminder after the context
("Answer:", "Cite your sources."; the reply it asks for word for word may stand quoted on the next line, "If the
answer is not there, say:" then `"I could not find it."`) is not a violation (a sentence of several instructions, "Answer directly, do not
repeat the question, do not mention the context", is a block of them, not a reminder), nor is one short line of a few
sentences that closes the request after the question ("Write only SQL. Include the ids."), when the prompt
says something before its data; when only a label stands there ("Context: {context}"), that line is the
prompt's instructions, not a reminder of them. A timestamp rendered at the top of the
system prompt is a violation, and so is any sentence of the instructions after it.

In a template with a slot for the retrieved context, records the template writes out itself (its tools'
documentation, the sources of a worked example) are its own static text, not the request's: the context
comes in at the slot.

Only lines that instruct count, from the end of the sentence the per-request part stands in
("{context}, create a summary of each section." frames the context, and cannot move before it).
Not counted: labels and cues in any language
("Helpful Answer:", "Réponse :", "答案："), headings, tags (an element's opening tag whatever it says
inside, `<USER_RAG - RELEVANT CHUNKS, USE AS FACTS>`, when the element is closed after it), special tokens (and the role
Llama 3 names between two), escapes written out as text (`\\n ------- \\n`) and
template slots, lines that mark where the data starts or ends ("END of search
results."), a line ending in a colon that introduces the data or slot under it ("Here is
information about the user that can help you to answer:", then `<user_metadata>`; of "Do not repeat the
context. Here is the question:", only the last sentence), a line that prints a value with a few words around it ("Found {{ n }}
results", "Search took {{ ms }} ms"), worked examples in the instructions, the words of a tool's result,
after earlier chat turns (turns written out under a history's title count as such: "# Conversation History", then
"User: ..." and "Assistant: ..." lines, whatever the assistant's reply says), the instructions that open the last user turn
before its data (a chat API has no other place for them but the system prompt), and
anything after the line the model answers after ("Answer:" and a blank line): a debug
dump's footer or notes on a run are not sent. Nor are lines that are per-request data
themselves: records a run prints, the same line again with other values ("[chain/end]
[1:chain:QA] [3.07s] Exiting chain"), and a line that repeats a source's whole text, or
the question, after a label of one or two words (the run's output echoed after the sources).

In an assembled prompt (no slot anywhere: a prompt as a run recorded it, a logged request), no
template says which text is static, and a chunk's own text can run on after the data as easily as
instructions can. There a line counts only when it speaks to the model: it opens with an
instruction verb, perhaps after a condition or an adverb ("Answer only from...", "2. **Cite:** always...", "ONLY return JSON",
"For BUG_FIX, identify the root cause", "Based on the sources provided above, answer ..."), it holds a mark of a request in Chinese, Japanese or Korean ("请", a line
that opens with "尽量" or "必须", "ください", "하세요"), or it says "you" and names the task ("If your sources disagree, you say so"). The words are in `rules/cache-boundary.yaml`, in
English and a few other languages (French, German, Spanish, Italian, Portuguese, Russian, Vietnamese, Indonesian; "you" and the
task's words in Chinese, Japanese and Korean); a line in a language they do not hold does not count there.
A "Context:" section in a prompt that puts no question to the model (no question label, no line
ending in "?") is a static prompt's setting ("The user is a small business owner ..."), not data.
A JSON value of several lines that is the whole of a block under a title of its own ("--- FINDINGS ---",
"Scan results:") is data the request filled in, as a slot alone under its label is, unless the title
names the deployment's setup ("Tools:", "Output schema:"). With no context label, the data is what a sentence announces as pasted after it ("Given the following
document, ...", "I was given the following JSON response"): a JSON value, or the lines up to a gap of
two blank lines (or to the next part of the prompt).

Only a block worth moving is reported: static text of fewer than `min-static-tokens`
tokens (25 by default) would save less on every request than one source's wrapper costs
(PL402's budget), so a short tail of one or two rules after the context is left alone.
After a timestamp in the instructions the threshold does not apply: the timestamp ends
the cached prefix before the conversation history as well, whatever follows it. That is not
so after the question, in the turn that asks it: no history follows there.

## Why is this bad?
Providers cache the longest unchanged prefix of a prompt. Anything that changes
per request ends the cacheable prefix where it stands, so every static token after
it is paid for (and waited for) again on every call. The assembled prompt should be:
system prompt and examples (the cached prefix), then history, sources, and the
question.

## Example
```
Today's date is 2026-12-02.
You are a support assistant. Answer only from the sources...
(twenty more lines of rules)
```

## Use instead
```
You are a support assistant. Answer only from the sources...
(twenty more lines of rules)

Today's date is 2026-12-02.
```

## Fix safety
No automatic fix: moving instructions can change their meaning.

## Options
- `min-static-tokens` (tokens, default 25): less static text than this after the
  per-request content is not reported.
- `reminder-lines` (default 1) and `reminder-chars` (default 300): a tail of at most
  this many lines and characters, in one sentence (or in several, after the question
  when nothing of the request follows it), is a reminder when words more than a label's
  stand before the first per-request part.
"""

from __future__ import annotations

import math
import re
from functools import cache

from ..meaning import tokens, vocabulary
from ..model.prompt import DYNAMIC_KINDS, Part, PartKind, Prompt, Span, SpanSet
from ._context import RuleContext

CODE = "PL305"
NAME = "cache-boundary"
SUMMARY = "Per-request content comes before static instructions and breaks prefix caching"
EFFECT = "every static token after it paid again per call (not measured)"
# Static text after the first dynamic part that is more than a reminder, and costs enough to move.
OPTIONS = {"reminder-lines": 1, "reminder-chars": 300, "min-static-tokens": 25}

# Lines that carry no instruction: a label alone ("Context:") or a separator ("---").
_LABEL_ONLY = re.compile(r"\s*[#\[\]\w' ]{0,30}[:\uff1a]?\s*$|\s*[-=*_~]{3,}\s*$")
_LIST_ITEM = re.compile(r"\s*(?:[-*\u2022]|\d+[.)])\s+\S")
_SENTENCE_END = re.compile(r"[.!?\u3002]+(?=\s|$)")
# What carries no words for the model to follow: special tokens (and a role named between two, Llama 3's
# `<|start_header_id|>assistant<|end_header_id|>`), tags, template tags and slots (the data they print, whatever
# they are named), list markers, and escapes written out as text (`\n ------- \n` in a template).
_MARKUP = re.compile(
    r"<\|[^|<>]*\|>(?:\w+<\|[^|<>]*\|>)?|\\[nrt]"
    r"""|</?[a-z_][\w:.-]*(?:\s+[\w:-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s<>]+))?)*\s*/?>"""
    r"|\{%.*?%\}|\$?\{\{?[^{}\n]*\}\}?|^\s*(?:[-*\u2022]|\d+[.)])\s+",
    re.IGNORECASE,
)
# A value a template prints: "{{ n }}", "{n}", "${n}" (not a tag, "{% if %}", which prints nothing).
_PRINTED = re.compile(r"\$?\{\{?[^{}%#\n]*\}\}?")
_TEMPLATE_TAG = re.compile(r"\{%.*?%\}|\{\{.*?\}\}")
# A heading: "## Sources", "---Response Guidelines---", "**Context**", "[call 2]".
_HEADING = re.compile(r"\s*(?:#{1,6}\s.*|[-=~]{2,}[^-=~]+[-=~]{2,}|\*\*[^*]+\*\*[:\uff1a]?|\[[^\[\]]*\])\s*$")
# A cue ends with a colon, in any script ("Helpful Answer:", "R\u00e9ponse :", "\u7b54\u6848\uff1a").
# Not a line of a JSON format the model is to fill ('"answer": "<the answer>",'), whose key is quoted.
_CUE = re.compile(r"[^.!?\u3002]*(?<![\"'])[:\uff1a]\W*$")
# A cue or a delimiter has at most this many words.
CUE_WORDS = 8


def _is_label(line: str, delimiters: tuple[str, ...]) -> bool:
    """A line that labels or marks the data around it rather than instructing the model."""
    words = _MARKUP.sub(" ", line).strip()
    if not re.search(r"\w", words):
        return True
    if _LIST_ITEM.match(line):
        return False  # "2. Growth trends": an item of what the model is told to give, however short
    if _LABEL_ONLY.fullmatch(words) or _HEADING.fullmatch(words):
        return True
    count = len(words.split())
    if count <= CUE_WORDS and _CUE.fullmatch(words.lstrip(".,;)\"' ")):
        return True
    # "BEGIN of search results.", "END CONTEXT", ">>> END OF CONVERSATION": where the data starts or stops.
    first = words.lstrip("-=*#[(<>| ").split()
    return count <= CUE_WORDS and bool(first) and first[0].lower().strip("-=*#[(<>|") in delimiters


def _static_after(prompt: Prompt, start: int, ctx: RuleContext, framing: Span | None = None) -> list[tuple[int, str]]:
    """The static pieces after ``start``, with the line each is on; labels, markup, tool results and ``framing`` do not count."""
    delimiters, tool_roles = tuple(ctx.words("delimiters")), frozenset(ctx.words("tool-roles"))
    tool_results = SpanSet([m.span for m in prompt.messages if m.role in tool_roles])
    pieces = []
    line_no, counted = 0, 0  # the newlines before ``counted``: each stretch of text is counted once
    end = _answered_at(prompt, start, ctx)
    data = [p.span.start for p in prompt.parts if p.kind in DYNAMIC_KINDS]
    for part in prompt.parts:
        if part.kind is not PartKind.INSTRUCTIONS or part.span.end <= start or part.span.start >= end:
            continue
        if framing is not None and framing.contains(part.span):
            continue
        if tool_results.spans and part.span.start in tool_results:
            continue  # a tool's result is per-request output, fixed words and all
        line_no += prompt.text.count("\n", counted, part.span.start)
        counted = part.span.start
        for i, at, line in _lines_from(prompt, part, start):
            if at >= end:
                break
            if (instructing := _counted_text(prompt, at, line, delimiters, data)).strip():
                pieces.append((line_no + i, instructing))
    return pieces


def _counted_text(prompt: Prompt, at: int, line: str, delimiters: tuple[str, ...], data: list[int]) -> str:
    """What of a static line counts as instructions: none of a label, an opening tag or a caption; of a line
    that introduces the data under it, the sentences before the one that does ("Do not repeat the context.
    Here is the question:")."""
    if not line.strip() or _is_label(line, delimiters) or _opens_an_element(prompt, at, line) or _captions_a_value(prompt.text, at):
        return ""
    return _before_last_sentence(line) if _introduces_data(prompt, at + len(line), data) else line


_WORD_CHAR = re.compile(r"\w")


def _before_last_sentence(line: str) -> str:
    """A line less its last sentence; empty when it holds one."""
    ends = [m.end() for m in _SENTENCE_END.finditer(line.rstrip()) if _WORD_CHAR.search(line, m.end())]
    return line[: ends[-1]] if ends else ""


# A line that is one opening tag, whatever it says inside: `<USER_RAG - RELEVANT CHUNKS, USE AS FACTS>`.
_OPENING_TAG = re.compile(r"\s*<([A-Za-z_][\w-]*)(?=[\s>])[^<>\n]*>\s*$")


def _opens_an_element(prompt: Prompt, at: int, line: str) -> bool:
    """Whether a line is the opening tag of an element the prompt closes later: the markup around the data
    it names (`<USER_RAG - ... USE AS FACTS>` then `{{user_documents}}` then `</USER_RAG>`), which goes where
    that data goes, however many words the tag holds."""
    tag = _OPENING_TAG.match(line)
    return tag is not None and prompt.lower.find(f"</{tag[1].lower()}>", at + len(line)) >= 0


def _lines_from(prompt: Prompt, part: Part, start: int):
    """Each line of a part from ``start`` on, with its place in the part and where it starts: a line that
    ``start`` cuts keeps what follows the cut (the rest of the sentence a per-request value stands in
    goes where the value goes)."""
    at = part.span.start
    for i, line in enumerate(prompt.text[part.span.start : part.span.end].split("\n")):
        if at + len(line) >= start:
            cut = max(start - at, 0)
            yield i, at + cut, line[cut:]
        at += len(line) + 1


# What carries a sentence on after a value inside it: a comma or a semicolon, or a word on the same line.
_SENTENCE_GOES_ON = re.compile(r"[,;]|[ \t]+[a-z]")


def _sentence_end(prompt: Prompt, at: int) -> int:
    """Where the sentence that a per-request value at ``at`` stands inside ends ("{context}, create a summary
    of each section, ... content."): ``at`` itself when the value ends its sentence or its line."""
    if not _SENTENCE_GOES_ON.match(prompt.text, at):
        return at
    stop = _SENTENCE_END.search(prompt.text, at)
    blank = prompt.text.find("\n\n", at)
    ends = [e for e in (stop.end() if stop else -1, blank) if e >= 0]
    return min(ends) if ends else len(prompt.text)


# A line that only opens or marks a block: an opening tag, a fence, a rule.
_BLOCK_OPENING = re.compile(r"[ \t]*(?:<[A-Za-z][^<>/\n]*>|```\w*|[-=~*]{3,})[ \t]*\n")


def _introduces_data(prompt: Prompt, line_end: int, data: list[int]) -> bool:
    """Whether a line that ends with a colon is followed by per-request data or a slot, past blank lines and a
    line that opens its block ("Here is the ticket's history that can help you:", then `<ticket_history>`, then
    the slot): it introduces what follows, and goes where that goes; it is no instruction to move before it."""
    text = prompt.text
    if not _MARKUP.sub(" ", text[text.rfind("\n", 0, line_end) + 1 : line_end]).rstrip().endswith((":", "\uff1a")):
        return False
    at = line_end
    while at < len(text) and text[at] in " \t\n":
        at += 1
    opening = _BLOCK_OPENING.match(text, at)
    if opening:
        at = opening.end()
        while at < len(text) and text[at] in " \t":
            at += 1
    return at in data or bool(_PRINTED.match(text, at))


_ANSWER_CUE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*)?(?P<label>[^\W\d][\w ]{0,30}?)(?:\*\*)?[ \t]*[:\uff1a][ \t]*(?:\*\*)?[ \t]*\n[ \t]*\n", re.MULTILINE)


def _answered_at(prompt: Prompt, start: int, ctx: RuleContext) -> int:
    """Where the prompt ends for the model: after the line it answers after ("Answer:", then a blank
    line). What follows such a line in a text (a debug dump's footer, notes on a run) is not sent."""
    cues = vocabulary.patterns(ctx.lexicon.words("segment", "answer-cues"))
    for match in _ANSWER_CUE.finditer(prompt.lower, start):
        if cues.fullmatch(" ".join(match["label"].split())):
            return match.end()
    return len(prompt.text)


def _captions_a_value(text: str, at: int) -> bool:
    """Whether the line holding ``at`` prints a value with a few words around it ("Found
    {{ n }} results:", "Search completed in {{ ms }}ms"): per-request output, not an instruction."""
    start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
    line = text[start : end if end >= 0 else len(text)]
    if "{" not in line or not _PRINTED.search(line):
        return False
    # Words inside a tag (a string a chat template prints or sets) are the template's own text, not a caption.
    inside = any(tag.start() <= at - start < tag.end() for tag in _TEMPLATE_TAG.finditer(line))
    return not inside and len(_MARKUP.sub(" ", line).split()) <= CUE_WORDS


def _framing(prompt: Prompt, dynamic: Part) -> Span | None:
    """After earlier turns, the static text that opens the last user turn, before its data, frames that turn.

    A chat API has no place for it before the history but the system prompt; the
    instructions after the turn's sources are what is out of place.
    """
    if dynamic.kind is not PartKind.HISTORY:
        return None
    turn = next((m for m in reversed(prompt.messages) if m.role == "user"), None)
    if turn is None or turn.span.start < dynamic.span.end:
        return None
    data = next((p for p in prompt.parts if p.kind in DYNAMIC_KINDS and turn.span.start <= p.span.start < turn.span.end), None)
    return Span(turn.span.start, data.span.start) if data else None


# What varies between the records a run prints: bracketed paths, slots, numbers and timings.
_VARYING = re.compile(r"\[[^\]\n]*\]|\{[^{}\n]*\}|\d+(?:[.:]\d+)*")
# A label before a copied value ('"text": ...', "Result:") has at most this many words.
LABEL_WORDS = 2


def _records(pieces: list[tuple[int, str]]) -> set[int]:
    """The lines that share one skeleton (their varying values masked) with another, different line: the
    records a run prints ("[chain/end] [1:chain:QA] [3.07s] Exiting chain"), not instructions, which do
    not say one thing twice with other values."""
    skeletons = {line: " ".join(_VARYING.sub("\x00", piece).split()) for line, piece in pieces}
    texts: dict[str, set[str]] = {}
    for line, piece in pieces:
        texts.setdefault(skeletons[line], set()).add(piece.strip())
    return {line for line, skeleton in skeletons.items() if "\x00" in skeleton and len(texts[skeleton]) > 1}


def _copies(prompt: Prompt, pieces: list[tuple[int, str]]) -> set[int]:
    """The lines that repeat a source's text, or the question, whole after a short label (a run's
    output echoed after the sources it came from): they change with that text, so they are not static."""
    # Longer than a cue: a short instruction may well be a source's whole text and still be an instruction.
    long = [(line, words) for line, piece in pieces if len(words := re.findall(r"\w+", piece.lower())) > CUE_WORDS]
    if not long:
        return set()  # the sources' words are read only for a line that may repeat them
    spans = [s.content for s in prompt.sources] + prompt.questions
    said = {" ".join(re.findall(r"\w+", prompt.lower[span.start : span.end])) for span in spans}
    return {line for line, words in long if any(" ".join(words[skip:]) in said for skip in range(LABEL_WORDS + 1))}


def _is_reminder(prompt: Prompt, pieces: list[tuple[int, str]], ctx: RuleContext) -> bool:
    """One short line of one sentence that gives one instruction ("Answer:", "Cite your sources.") is a reminder,
    not a block; so is one short line of a few after the question, when nothing of the request follows it
    ("Write only SQL. Include the ids.")."""
    # A line that only quotes what the line before asks for ("If it is not there, say:" then "\"I could not find
    # it.\"") goes on that line's sentence.
    lines = {line for line, _ in pieces} - _quoted_replies(pieces)
    text = " ".join(piece.strip() for _, piece in pieces)
    if len(lines) > ctx.options["reminder-lines"] or len(text) >= ctx.options["reminder-chars"]:
        return False
    # Sentences with words: a stop after a slot's closing quote ('"{query}". Use...') ends none.
    sentences = sum(1 for sentence in _SENTENCE_END.split(_MARKUP.sub(" ", text)) if re.search(r"\w", sentence))
    return sentences <= 1 and _instructions_in(text, ctx) <= 1 or min(lines) > _closing_line(prompt)


# A line that is all a quotation: a reply the line before asks the model to give word for word.
_QUOTATION = re.compile(r"[\"'\u201c\u300c][^\n]*[\"'\u201d\u300d][.!]?")


def _quoted_replies(pieces: list[tuple[int, str]]) -> set[int]:
    """The lines of a tail that quote a reply the line before introduces with a colon."""
    return {line for (_, before), (line, piece) in zip(pieces, pieces[1:]) if before.rstrip().endswith((":", "\uff1a")) and _QUOTATION.fullmatch(piece.strip())}


# Where one instruction of a sentence may end and the next begin: "Answer directly, do not repeat the question".
_CLAUSE = re.compile(r"[,;:]|\s(?:and|or|but)\s")


def _instructions_in(text: str, ctx: RuleContext) -> int:
    """How many of a sentence's clauses open with an instruction verb: "Cite your sources." gives one, "Answer
    directly, do not repeat the question, do not start with ..." several, and is a block, not a reminder."""
    opener = _instruction_opener(ctx)
    return sum(1 for clause in _CLAUSE.split(_MARKUP.sub(" ", text).lower()) if opener.match(clause.strip()))


# Words before the data that say something a tail could remind of (more than a label's).
REMINDED_WORDS = 3
_WORD = re.compile(r"[^\W\d_]+")


def _not_worth_moving(prompt: Prompt, dynamic: Part, static: list[tuple[int, str]], ctx: RuleContext) -> bool:
    """A reminder of instructions said before the data, or static text too cheap to move."""
    return _is_reminder(prompt, static, ctx) and _instructed_before(prompt, dynamic) or _cheap(static, ctx)


def _instructed_before(prompt: Prompt, dynamic: Part) -> bool:
    """Whether words stand before the first per-request part, more than a label's ("Context:"): a short tail then
    reminds of what was said. With none, the tail is the prompt's instructions, whatever their length."""
    return len(_WORD.findall(prompt.text, 0, dynamic.span.start)) >= REMINDED_WORDS


def _closing_line(prompt: Prompt) -> float:
    """The line the question ends on when nothing dynamic follows it; infinite otherwise."""
    dynamic = [p for p in prompt.parts if p.kind in DYNAMIC_KINDS]
    if not dynamic or dynamic[-1].kind is not PartKind.QUESTION:
        return math.inf
    return prompt.text.count("\n", 0, dynamic[-1].span.end)


def _cheap(pieces: list[tuple[int, str]], ctx: RuleContext) -> bool:
    """Static text that costs fewer tokens than ``min-static-tokens``: moving it would save less on every
    request than a single source's wrapper costs."""
    text = "\n".join(piece for _, piece in pieces)
    limit = ctx.options["min-static-tokens"]
    return tokens.at_most(text) < limit or tokens.count(text) < limit


@cache
def _opener(verbs: tuple[str, ...], adverbs: tuple[str, ...], conditions: tuple[str, ...]) -> re.Pattern[str]:
    """A verb that opens a line, after a list marker or a bold label ("2. **Cite:** always ..."), a condition
    ("For BUG_FIX, identify ...", "If the field is empty, analyze ...") and an adverb ("ONLY return ...", "2. Then,
    extract ..."), then its object; not a label that starts with such a word ("Use case: search"), which a
    colon soon after shows, nor a noun ("Limit of cover", "List of exclusions")."""
    alternatives = vocabulary.alternation(verbs)
    condition = "(?:(?:" + "|".join(re.escape(c) for c in conditions) + r")\s[^,.;:\n]{1,80},\s*)?" if conditions else ""
    adverb = "(?:(?:" + "|".join(re.escape(a) for a in adverbs) + r"),?\s+)?" if adverbs else ""
    return re.compile(r"\W*(?:\d+[.)]\s*)?(?:\*\*[^*\n]{0,40}\*\*:?\s*)?" + condition + adverb + "(?:" + alternatives + r")\s+(?!of\b|\w+(?:\s+\w+)?\s*:)(?:[\"'`(\[]\w|(?P<next>\w+))")


def _instruction_opener(ctx: RuleContext) -> re.Pattern[str]:
    return _opener(tuple(ctx.words("instruction-verbs")), tuple(ctx.words("instruction-adverbs")), tuple(ctx.words("instruction-conditions")))


def _speaks_to_model(piece: str, ctx: RuleContext) -> bool:
    """A line that instructs the model: it opens with an instruction verb, holds a mark of a request (Chinese,
    Japanese, Korean), or says "you" and names the task."""
    words = _MARKUP.sub(" ", piece)
    lower = words.lower()
    opens = _instruction_opener(ctx).match(lower)
    # The word after the verb is no name ("State Bank of India"), in lower case or an acronym ("Write SQL only").
    after = words[opens.start("next") : opens.end("next")] if opens and opens["next"] else ""
    if opens and not (after[:1].isupper() and not after.isupper()) or vocabulary.patterns(ctx.words("imperative-marks")).search(lower):
        return True
    return bool(vocabulary.patterns(ctx.words("you-words")).search(lower) and vocabulary.patterns(ctx.words("task-words")).search(lower))


def _spoken_paragraphs(prompt: Prompt, pieces: list[tuple[int, str]], ctx: RuleContext) -> list[tuple[int, str]]:
    """The pieces in a paragraph (lines with no blank line between them) where a line speaks to the model."""
    if not pieces:
        return pieces
    blank = {n for n, line in enumerate(prompt.text.split("\n")) if not line.strip()}
    paragraphs: list[list[tuple[int, str]]] = []
    for line, piece in pieces:
        if paragraphs and not any(n in blank for n in range(paragraphs[-1][-1][0] + 1, line)):
            paragraphs[-1].append((line, piece))
        else:
            paragraphs.append([(line, piece)])
    return [p for paragraph in paragraphs if any(_speaks_to_model(piece, ctx) for _, piece in paragraph) for p in paragraph]


def _per_request(prompt: Prompt, part: Part) -> bool:
    """Whether a part changes from request to request. In a template with a slot for the retrieved context, sources
    written out elsewhere, none of them a slot's text per item (tool documentation read as records, a worked
    example), are the template's own text: the context comes in at the slot."""
    if prompt.assembled or part.kind is not PartKind.SOURCES or not (inside := _sources_in(prompt, part)):
        return True
    slotted = any(p.kind is PartKind.SOURCES and not _sources_in(prompt, p) for p in prompt.parts)
    return not slotted or any(s.repeated for s in inside)


def _where(prompt: Prompt, dynamic: Part) -> Span:
    """Where the per-request content starts: the header of its first source, or the part."""
    if dynamic.kind is not PartKind.SOURCES:
        return dynamic.span
    return next((s.header for s in prompt.sources if s.span.end > dynamic.span.start), dynamic.span)


def _sources_in(prompt: Prompt, part: Part) -> list:
    return [s for s in prompt.sources if part.span.contains(s.span)]


def check(prompt: Prompt, ctx: RuleContext):
    dynamic = next((p for p in prompt.parts if p.kind in DYNAMIC_KINDS and _per_request(prompt, p)), None)
    if dynamic is None:
        return
    static = _static_after(prompt, _sentence_end(prompt, dynamic.span.end), ctx, _framing(prompt, dynamic))
    data = _records(static) | _copies(prompt, static)
    static = [(line, piece) for line, piece in static if line not in data]
    if prompt.assembled:
        static = _spoken_paragraphs(prompt, static, ctx)
    # Per-request data inside the instructions (a timestamp) splits them: no line after it is a reminder,
    # and what it costs is not only the text after it: it ends the cached prefix before the history too.
    # Not in the turn that asks the question, after the question: no history follows that.
    split = dynamic.kind is PartKind.VOLATILE and min(line for line, _ in static or [(0, "")]) <= _closing_line(prompt)
    if not static or (not split and _not_worth_moving(prompt, dynamic, static, ctx)):
        return
    lines = len({line for line, _ in static})
    yield ctx.finding(
        prompt,
        _where(prompt, dynamic),
        # Worded so that a plural label ("the sources") and a singular one both read right.
        f"{lines} line{'s' if lines != 1 else ''} of static instructions {'come' if lines != 1 else 'comes'} after "
        f"{dynamic.label}; everything from there on misses the prompt cache on every request",
        tokens_text="\n".join(piece for _, piece in static),
    )
