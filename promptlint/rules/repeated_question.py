"""The question, repeated.

## What it does
Flags every copy of the user's question beyond the last one: the question stated
in the instructions, again before the sources, and again after them. Copies are
compared after folding case, white space and quotes. A source whose text happens
to contain the question's words is not a repeat; sources are not searched. In a
template, a copy in a branch that never renders with the sources ("No results for
{{ query }}") asks nothing beside them and is not counted. In a chat of written-out
messages where no label names the question, a question of six words or more that a
user's message states and that stands again outside the sources (a tool's output quoting
the query) is the question, repeated; so is a user's message of one line and three words
or more that another, longer message quotes whole ("the users prompt which is ### START
PROMPT ### Which devs know laravel ### END PROMPT ###"), reported without a fix. In code, the
messages of a request are read in the order they are sent, a list built by statements included, each message's
text as code writes it (an f-string, or strings and values added up: `"Context:\\n" + context + "\\nQuestion: " +
question` then `{"role": "user", "content": question}` sends the question twice):
a history the question was appended to (`history.append({"role": "user", "content": q})`, then
`messages.extend(history[-4:])`) holds it, and a last message that shows it again repeats it. In
LangChain's list of message templates a bare string is the user's message template
(`from_messages(["system", template, ("user", "{question}")])` sends three messages).

## Why is this bad?
It feels like emphasis and reads as padding: measured at -0.01 correctness and
about 40 wasted tokens. The last copy, next to generation, is the one that counts.

## Example
```
Answer the question: Can I return a damaged item after 40 days?
Sources: ...
Question: Can I return a damaged item after 40 days?
```

## Use instead
```
Answer the question from the sources.
Sources: ...
Question: Can I return a damaged item after 40 days?
```

## Fix safety
Safe when the extra copy is a line of its own (a `Question:` line or a
`<question>` element) and the copy that stays is one too: the line is removed, with a
`### Query:` heading above it when the copy is all that stands under it. A copy inside a
sentence is reported without a fix, because removing it would break the sentence; so is
a copy under a line that says more than the question's name ("Answer the following
question based on the above documents:"), and every copy when the last one is only a
mention inside a sentence ('in the same language as the question "{query}"').
"""

from __future__ import annotations

import bisect
import re

from ..model.findings import Applicability, Edit, Fix
from ..model.lines import remove_line
from ..model.prompt import Prompt, Span
from ._context import RuleContext

CODE = "PL101"
NAME = "repeated-question"
SUMMARY = "The question appears more than once"
FIX = "safe"
EFFECT = "−0.01 correctness, ~40 tokens wasted"
MIN_WORDS = 3


_GAP = re.compile(r"[\W_]+")


def _may_start_copy(lower: str, at: int, words: list[str]) -> bool:
    """Whether a copy of ``words`` can start at ``at``, where the first word is: a test that
    passes every copy and few other places, so that the copy pattern (compiling it costs
    more than the test) is rarely needed.

    Each further word must start where the longest gap (non-word characters and "_")
    before it ends, less its own leading underscores, which the gap also takes.
    """
    pos = at + len(words[0])
    for word in words[1:]:
        gap = _GAP.match(lower, pos)
        rest = word.lstrip("_")
        if gap is None or not lower.startswith(rest, gap.end()):
            return False
        if not rest:
            return True  # a word of underscores only: where it ends inside the gap is for the pattern to say
        pos = gap.end() + len(rest)
    return True


def _pattern_end(words: list[str]):
    """Where a copy of ``words`` that starts at an offset ends, by the copy pattern; None when none starts there."""
    pattern = re.compile(r"\b" + r"[\W_]+".join(re.escape(w) for w in words) + r"\b")

    def end(lower: str, at: int, words: list[str]) -> int | None:
        match = pattern.match(lower, at)
        return match.end() if match else None

    return end


def _copy_end(lower: str, at: int, words: list[str]) -> int | None:
    """What _pattern_end finds, for words with no underscore, where the first one stands: each gap
    is then the longest one (the next word starts with a character no gap takes), so the copy is the
    words read one after the other from a word boundary to a word boundary. Compiling the pattern
    took longer than the other rules take over most prompts."""
    if at and (lower[at - 1].isalnum() or lower[at - 1] == "_"):
        return None
    pos = at + len(words[0])
    for word in words[1:]:
        gap = _GAP.match(lower, pos)
        if gap is None or not lower.startswith(word, gap.end()):
            return None
        pos = gap.end() + len(word)
    return None if pos < len(lower) and (lower[pos].isalnum() or lower[pos] == "_") else pos


def _candidates(lower: str, words: list[str], stretches) -> list[int]:
    """Where a copy of ``words`` may start (see _may_start_copy) in each stretch (start, end) of ``lower``."""
    first = words[0]
    found = []
    for start, end in stretches:
        stop = end + len(first) - 1  # the first word may start before the end and go on past it
        at = lower.find(first, start, stop)
        while at >= 0:
            if _may_start_copy(lower, at, words):
                found.append(at)
            at = lower.find(first, at + 1, stop)
    return found


def _copies(prompt: Prompt, question: Span) -> list[Span]:
    words = re.findall(r"\w+", prompt.lower[question.start : question.end])
    if len(words) < MIN_WORDS:
        return []
    lower = prompt.lower
    outside = sorted(s.span for s in prompt.sources)
    # A copy that starts inside the question or a source overlaps it and is dropped: without a
    # candidate elsewhere there is nothing to look for, and most prompts stop here, their sources,
    # most of the text, not read.
    between = zip([0] + [s.end for s in outside], [s.start for s in outside] + [len(lower)])
    if all(question.start <= at < question.end for at in _candidates(lower, words, between)):
        return []
    # A match that starts in a source may overlap a candidate after it, which finditer would then skip.
    candidates = _candidates(lower, words, [(0, len(lower))])
    copy_end = _copy_end if not any("_" in w for w in words) else _pattern_end(words)
    starts = [s.start for s in outside]
    copies = []
    end = 0
    # The matches pattern.finditer(lower) would give, tried only where one can start.
    for at in candidates:
        found = copy_end(lower, at, words) if at >= end else None
        if found is None:
            continue
        end = found
        span = Span(at, end)
        # Sources do not overlap: only the last one starting before the copy's end can hold it.
        i = bisect.bisect_left(starts, span.end) - 1
        if not span.overlaps(question) and not (i >= 0 and outside[i].overlaps(span)):
            copies.append(span)
    return copies


def _own_line(prompt: Prompt, span: Span) -> Span | None:
    """The whole line holding ``span`` when the line is only the question (with a label or tag)."""
    start = prompt.text.rfind("\n", 0, span.start) + 1
    end = prompt.text.find("\n", span.end)
    end = len(prompt.text) if end < 0 else end
    before = prompt.lower[start : span.start].strip()
    after = prompt.lower[span.end : end].strip()
    label = re.fullmatch(r"(?:#{1,6}\s*)?(?:[a-z' ]{1,20}:|<[a-z_]+>)?\s*[\"'“‘]?", before)
    closing = re.fullmatch(r"[\"'”’?.!]*\s*(?:</[a-z_]+>)?", after)
    if not (label and closing):
        return None
    return Span(start, min(end + 1, len(prompt.text)))


def _with_its_label(prompt: Prompt, line: Span, labels: frozenset[str]) -> Span | None:
    """What removing a copy's line removes whole: the line, and a label or heading line above it
    ("### Query:") when the copy is all that stands under it; None when that label is more than
    the question's name ("Answer the following question based on the above documents:")."""
    text = prompt.text
    if line.start == 0:
        return line
    above = Span(text.rfind("\n", 0, line.start - 1) + 1, line.start)
    label = text[above.start : above.end].strip().strip("*_ ")  # "**Query:**" as "Query:"
    if not label.endswith((":", "\uff1a")):
        return line
    following = text[line.end : (text.find("\n", line.end) + 1 or len(text))].strip()
    if following and not following.startswith(("#", "<")) and not following.endswith(":"):
        return line  # more stands under the label: it keeps a body
    name = " ".join(re.findall(r"\w+", label.lower().replace("_", " ")))
    return Span(above.start, line.end) if name in labels else None


def _normal(prompt: Prompt, span: Span) -> str:
    return " ".join(re.findall(r"\w+", prompt.lower[span.start : span.end]))


def _asked_with_the_sources(prompt: Prompt) -> list[Span]:
    """Where the question is asked in text that renders with the sources: a template branch that
    never does ("No results for {{ query }}") sends no context to repeat the question beside."""
    if not prompt.sources:
        return prompt.questions
    return [q for q in prompt.questions if not prompt.exclusive(q, prompt.sources[0].span)]


def check(prompt: Prompt, ctx: RuleContext):
    asked = _asked_with_the_sources(prompt)
    if not asked:
        return
    question = asked[-1]
    same = [q for q in asked[:-1] if _normal(prompt, q) == _normal(prompt, question)]
    # A rewritten form sent beside the original is the question again, in other words.
    copies: list[Span] = []
    for span in sorted(_copies(prompt, question) + same + prompt.rewritten_questions):
        # The same place can be found twice (by its label and by its words): report it once.
        # Candidates come sorted, so only the last copy kept can overlap this one.
        if span.overlaps(question) or (copies and span.overlaps(copies[-1])):
            continue
        # In a template, copies in two branches of one `{% if %}` never render together.
        if not prompt.exclusive(span, question):
            copies.append(span)
    # The copy that stays must ask the question: a mention inside a sentence ("in the same language
    # as the question "{query}"") does not, and removing the line that asks it would leave none.
    kept = _own_line(prompt, question) is not None
    labels = frozenset(ctx.lexicon.words("segment", "question-labels"))
    for copy in copies:
        line = _own_line(prompt, copy) if kept else None
        whole = _with_its_label(prompt, line, labels) if line else None
        fix = Fix(Applicability.SAFE, (Edit(remove_line(prompt.text, whole)),), "Remove the extra copy of the question") if whole else None
        yield ctx.finding(
            prompt,
            copy,
            "The question is repeated here; only the copy next to generation is needed",
            fix=fix,
            tokens_text=prompt.text[copy.start : copy.end] if fix is None else None,
        )
