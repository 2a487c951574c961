"""The segmenter's vocabulary, the slots a template writes, and the lines of a text."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from ...meaning import vocabulary
from ...meaning.lexicon import Lexicon, is_field, shipped
from ...meaning.vocabulary import alternation, normalise_label
from ...model.prompt import Span
from ..expressions import slot_reference


# "[[ ## question ## ]]" (DSPy) and "## Question" / "Question:" on a line of their own; in Chinese and Japanese also
# between lenticular brackets, a note in parentheses after it ("【参考资料】", "【相关记忆】（仅供参考）"), which the
# lower-cased text these patterns read writes as "[参考资料]" (see lowercase).
SECTION_LABEL = re.compile(
    r"\s*(?:\[\[ ## (?P<dspy>[\w ]+?) ## \]\]|#{1,6}\s*(?P<md>[\w' ]+?)|(?P<plain>[^\W\d_][\w' ]{0,25}?)\s*[:：]"
    r"|\[(?P<cjk>[^\W\d_][\w' ]{0,25}?)\]:?(?:\s*\([^()\n]{0,80}\))?)\s*$"
)


@dataclass(frozen=True)
class Vocab:
    question_labels: frozenset[str]
    question_qualifiers: frozenset[str]
    askers: frozenset[str]
    asking_verbs: frozenset[str]
    content_labels: frozenset[str]
    content_words: int  # the most words a content label has
    title_labels: frozenset[str]
    metadata_labels: frozenset[str]  # a label alone on a line that opens a source's metadata
    fallback_title_labels: frozenset[str]  # a title only when no title label gives one
    key_attributes: frozenset[str]  # a source element's attributes that give its citation key
    question_tags: tuple[str, ...]  # elements whose text is the question, as written
    heading_labels: frozenset[str]
    warning_labels: frozenset[str]
    history_labels: frozenset[str]
    context_labels: frozenset[str]
    slot_kinds: dict[str, str]  # template variable name -> "question", "rewritten", "context", "history", "volatile"
    volatile_prefixes: tuple[str, ...]
    volatile_owners: tuple[str, ...]
    slot_fillers: frozenset[str]  # words of a variable's name that say how it is written (see segment.yaml)
    setup_qualifiers: frozenset[str]  # words of a variable's name that make it the assistant's setup (see segment.yaml)
    setup_vars: frozenset[str]  # names of variables that hold the deployment's setup, not a request's input
    count_words: frozenset[str]  # words of a variable's name that make it a number of things (see segment.yaml)
    retrieval_qualifiers: frozenset[str]  # words of a variable's name that say one item was retrieved (see segment.yaml)
    rewrite_qualifiers: frozenset[str]  # words that make a question's name a rewritten question's
    rewrite_heads: frozenset[str]  # the names of the question those words make a rewrite of
    rewrite_adjuncts: frozenset[str]  # words after the question's in a rewriter's name that say with what it rewrites
    past_qualifiers: frozenset[str]  # words that make a rewrite's name an earlier attempt's output
    condensing_chains: tuple[dict[str, str], ...]  # chains that answer with the question they rewrote (see segment.yaml)
    source_header: re.Pattern[str]
    role_marker: re.Pattern[str]
    role_word: re.Pattern[str]  # the role a marker names
    role_names: dict[str, str]  # a role under another name -> the usual one ("human" -> "user")
    chat_roles: frozenset[str]  # the names of the roles that take turns in a chat ("user", "ai")
    source_tag: re.Pattern[str]
    page_tag: re.Pattern[str]  # an opening tag of a page's element, its attributes in group 2 (see segment.yaml)
    page_attribute: re.Pattern[str]
    container_tags: frozenset[str]
    content_tags: frozenset[str]
    document_slots: frozenset[str]  # the slot a framework fills with one document's text (see segment.yaml)
    instruction_opener: re.Pattern[str]
    example_marker: re.Pattern[str]  # a line of its own that heads one ("**Example 2: ...**", "Output format:")
    asks_for_a_format: re.Pattern[str]  # a line asking for output in a form written under it ("Respond in this format:")
    example_cues: tuple[str, ...]  # the cues as patterns, to learn fast that a text writes none (vocabulary.may_match)
    example_word: re.Pattern[str]  # a cue as whole words of a label or an element's name ("few shot examples")
    example_asking: frozenset[str]  # labels of a written-out exchange's asking line ("Q", "User")
    example_answers: frozenset[str]  # and of its answering line ("A", "Assistant")
    code_languages: frozenset[str]  # what a code fence's info string says its block is in ("python")
    answer_cues: frozenset[str]  # labels of the line a completion prompt ends on ("Helpful Answer:")
    sequence_starts: tuple[str, ...]  # the special tokens that open a sequence ("<|begin_of_text|>")
    log_line: re.Pattern[str]  # a text that opens with a log level ("[WARN] ...", "Error: ..."): written for a person
    introduces_data: re.Pattern[str]  # words that announce data pasted after them ("the following document")
    volatile: re.Pattern[str]
    lexicon: Lexicon

    def is_field(self, label: str) -> bool:
        """A label worth reading as metadata: a score, a date, a title, ... as the lexicon reads it."""
        return is_field(self.lexicon, label)


# A labelled item of a bracketed header: "relevance: {{$relevance}}", "source=wiki".
_ITEM = r"\s*[^\W\d_][\w .-]{0,30}?\s*[:=：][^\[\]\n,;|]*"


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
    added = {normalise_label(name): kind for name, kind in names if kind in ("question", "context", "rewritten")}
    return dataclasses.replace(base, slot_kinds={**base.slot_kinds, **added})


@cache
def _vocabulary(lexicon: Lexicon) -> Vocab:
    seg = vocabulary.load("segment")
    labelled = {
        key: vocabulary.label_set(seg[key])
        for key in ("question-labels", "content-labels", "title-labels", "heading-labels", "warning-labels", "history-labels", "context-labels")
    }
    # "Chunk ID {id}:", "Source No. 3": the word may be followed by what kind of key comes next.
    # A Chinese, Japanese or Korean word may qualify it with no space between ("菜谱证据", "参考文档").
    words = "[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]{0,6}(?:" + alternation(seg["source-words"]) + ")(?:\\s+(?:" + alternation(seg["source-key-words"]) + "))?"
    # Headers are matched on the lower-cased line. The number after the word must
    # be followed by punctuation or the end of the line, so that a sentence such
    # as "Source 1 says ..." inside a chunk is not taken for a header.
    # A citation key: a number, or in a template the slot that numbers the sources.
    key = r"\d+|\$?\{\{?[^{}\n]{1,40}\}\}?"
    # In brackets the word may be qualified by a word or two ("[Context Chunk 3]", "[Retrieved Passage 2]"), but not by
    # a word that marks where the sources start or end ("[END CONTEXT 0]" closes the source it names).
    qualified = r"(?:(?!(?:end|begin|start|close|closing|open|opening)\s)[a-z]+\s+){0,2}(?:" + words + r")"
    source_header = re.compile(
        r"(?:[-=*#]{2,}\s*|#{1,6}\s+)?"
        r"(?:"
        r"\[#?(?P<key1>" + key + r")\](?P<rest1>.*)"
        r"|\[" + qualified + r"\s*#?(?P<key2>" + key + r")\]\s*:?(?P<rest2>.*)"
        r"|\[(?:" + words + r")(?: from \w+)?\]\s*:?(?P<rest5>.*)"
        r"|(?:" + words + r")\s*\[?#?(?P<key3>" + key + r")\]?(?:\s+of\s+\d+)?"
        r"(?P<rest3>\s*(?::::|[:.\u2014\u2013|]|-(?=\s)|\)).*|\s*[(\[].*|\s*[-=*]{2,}\s*|\s*)"
        # "Knowledge Item 3", "Search Result 2:": the word qualified by a word or two, and a count; a source's header
        # only as one of a run (sources.RUN_ONLY), since a line of prose may end so ("See Document 2.").
        r"|" + qualified + r"\s+(?P<key8>\d{1,3})(?P<rest14>\s*(?::|\u2014|\u2013|-(?=\s)).*|\s*[(\[].*|\s*)"
        r"|\((?P<key4>\d+)\)\s+(?P<rest4>.*)"
        # "Chunk: {chunk_id}", "Source: {i}": the word, a colon and a slot alone on the line.
        r"|(?:" + words + r")\s*:\s*(?P<key5>" + key + r")(?P<rest7>\s*)"
        # "==== [File: x; Relevance: 0.83]:": a bracket of two or more labelled items and nothing else.
        # "[Chunk 1 - Page 5]", "[Source 2: returns.pdf, score: 0.8]": the word, its key, and what the bracket names after it.
        r"|\[" + qualified + r"\s*#?(?P<key7>" + key + r")\s*[-\u2013\u2014|,;:]\s*(?P<rest12>[^\[\]\n]{1,160}?)\s*\]\s*:?"
        r"|(?P<rest6>\[" + _ITEM + r"(?:[,;|]\s*" + _ITEM + r")+\])\s*:?"
        # "1. Returns Policy — match score 0.92", "### Returns Policy (2026-03-01)": a numbered item or a
        # heading, a source's header only when it carries metadata and text follows (sources.LISTED).
        r"|(?P<key6>\d{1,3})[.)]\s+(?P<rest8>\S.*)"
        r"|#{1,6}\s+(?P<rest9>[^#\s].*)"
        # "Source [report.pdf, Page 8]:": the word, then what names the source in brackets, and a colon.
        r"|(?:" + words + r")\s*(?P<rest10>\[[^\[\]\n]{2,200}\])\s*:"
        # "docs/club-foot.txt:": a file's name alone and a colon, the file's text under it; a source's
        # header only as one of a run (sources.RUN_ONLY).
        r"|(?P<rest11>(?:[\w.~-]+[/\\])*[\w~-][\w.~ -]{0,80}\.[a-z][a-z0-9]{1,4})\s*:"
        # "src/Client/BlockPlaceSystem.cs": a file's path alone, folders and all, over its code (as a repository is
        # packed into a prompt); as one of a run too.
        r"|(?P<rest13>(?:[\w.~-]+[/\\])+[\w~-][\w.~-]{0,80}\.[a-z][a-z0-9]{1,4})"
        r")$"
    )
    roles = alternation(seg["role-markers"])
    # In a transcript written with a model's special tokens, a role between them:
    # "<|im_start|>user", "<|start_header_id|>user<|end_header_id|>", "<|USER_TOKEN|>", "<start_of_turn>model".
    token_roles = alternation(seg["role-markers"] + seg["token-roles"])
    special = r"(?:<\|[a-z_]+\|>|<[a-z_]+>)"
    role_marker = re.compile(
        # Bracketed or "... message:", any role is a turn ("[tool]"); a bare "Tool:" line may be a list's label.
        r"\s*(?:\[(?:" + token_roles + r")\]|(?:" + token_roles + r") message:|(?:" + roles + r"):(?=\s*$)"
        r"|" + special + r"*<\|(?:" + token_roles + r")(?:_token)?\|>" + special + r"*"
        r"|" + special + r"+\s*(?:" + token_roles + r")" + special + r"*)\s*$"
    )
    tag_names = alternation(seg["source-tags"])
    volatile = vocabulary.patterns(lexicon.words("cache-boundary", "volatile"))
    return Vocab(
        question_labels=labelled["question-labels"],
        question_qualifiers=frozenset(seg["question-qualifiers"]),
        askers=frozenset(seg["askers"]),
        asking_verbs=frozenset(seg["asking-verbs"]),
        content_labels=labelled["content-labels"],
        content_words=max(len(label.split()) for label in labelled["content-labels"]),
        title_labels=labelled["title-labels"],
        metadata_labels=vocabulary.label_set(seg["metadata-labels"]),
        fallback_title_labels=vocabulary.label_set(seg["fallback-title-labels"]),
        key_attributes=vocabulary.label_set(seg["key-attributes"]),
        question_tags=tuple(seg["question-tags"]),
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
        volatile_owners=tuple(normalise_label(w) + " " for w in seg["volatile-owners"]),
        slot_fillers=frozenset(seg["slot-fillers"]),
        setup_qualifiers=frozenset(seg["setup-qualifiers"]),
        setup_vars=frozenset(normalise_label(w) for w in seg["setup-vars"]),
        count_words=frozenset(seg["count-words"]),
        retrieval_qualifiers=frozenset(seg["retrieval-qualifiers"]),
        rewrite_qualifiers=frozenset(seg["rewrite-qualifiers"]),
        rewrite_heads=frozenset(seg["rewrite-heads"]),
        rewrite_adjuncts=frozenset(seg["rewrite-adjuncts"]),
        past_qualifiers=frozenset(seg["past-qualifiers"]),
        condensing_chains=tuple(seg["condensing-chains"]),
        source_header=source_header,
        role_marker=role_marker,
        role_word=re.compile(r"(?<![a-z])(?:" + token_roles + r")(?![a-z])"),
        role_names=dict(seg["role-names"]),
        chat_roles=frozenset(seg["role-markers"]),
        source_tag=re.compile(r"<(" + tag_names + r")(\s[^<>]*)?>"),
        page_tag=re.compile(r"<(" + alternation(seg["page-elements"]) + r")(\s[^<>]*)?/?>", re.IGNORECASE),
        page_attribute=re.compile(r"(?<![\w-])(?:" + alternation(seg["page-attributes"]) + r"|data-[\w-]+)\s*=", re.IGNORECASE),
        container_tags=frozenset(seg["container-tags"]),
        content_tags=frozenset(seg["content-tags"]),
        document_slots=vocabulary.label_set(seg["document-template-slots"]),
        example_marker=_example_marker(seg["example-cues"]),
        asks_for_a_format=re.compile(
            r"(?=.*\b(?:" + alternation(seg["output-verbs"]) + r")\b).*\b(?:the following|this)\s+(?:[\w-]+\s+){0,2}?(?:"
            + alternation(seg["format-nouns"]) + r")\b[^.!?\n]{0,40}?[:\uff1a]\s*(?:\*\*)?\s*$"
        ),
        example_cues=tuple(re.escape(cue) for cue in seg["example-cues"]),
        example_word=re.compile(r"(?<!\w)(?:" + alternation(seg["example-cues"]) + r")(?!\w)"),
        example_asking=vocabulary.label_set(seg["example-asking-labels"]),
        example_answers=vocabulary.label_set(seg["example-answer-labels"]),
        code_languages=frozenset(seg["code-fence-languages"]),
        instruction_opener=re.compile(r"\s*(?:" + alternation(seg["instruction-openers"]) + r")\b"),
        answer_cues=vocabulary.label_set(seg["answer-cues"]),
        sequence_starts=tuple(seg["sequence-starts"]),
        introduces_data=re.compile(
            r"\b(?:the following|below is (?:the |a |an )?|here is (?:the |a |an )?)\s*(?:" + alternation(seg["pasted-data"]) + r")s?\b"
            r"(?!\s+(?:format|schema|structure|template|examples?|rules|instructions|steps|guidelines)\b)"
        ),
        log_line=re.compile(r"\s*(?:\[(?:" + alternation(seg["log-levels"]) + r")\]|(?:" + alternation(seg["log-levels"]) + r")\s*:)"),
        volatile=volatile,
        lexicon=lexicon,
    )


def _example_marker(cues: list[str]) -> re.Pattern[str]:
    """A line of its own that may announce an example: the cue near its start (after a heading's marks,
    bold or a rule of dashes), then a short name with no sentence's end ("For example, cite the source." is none).
    examples.is_marker says which of these do; what follows its colon on the line ("For example: "...""),
    is an example of its own."""
    cue = r"(?:" + alternation(cues) + r")(?!\w)"
    rule = r"[-=#*_ \t]*"
    named = r"(?P<name>[^.!?\n]{0,60}?)"
    # A few words or symbols may qualify the cue ("**✅ Good example:**", "Use this output format:"), not a
    # group or a list ("Context (e.g. documents):"). Each is taken whole, with the spaces after it (possessive):
    # no cue starts with a symbol or a space, nor goes on a word, so giving a character back finds no match that
    # keeping it misses; and a line of a chunk's prose was given back character by character.
    qualified = r"(?:[^\w\s(),:;\[\]]++\s*+|[^\W\d_]++\s++){0,3}?"
    return re.compile(
        r"\s*(?:[-*\u2022]\s+)?(?:(?P<heading>#{1,6})\s*)?(?P<bold>\*\*|__)?" + rule + qualified + cue + named
        + r"\s*(?P<colon>[:\uff1a])?\s*(?:\*\*|__)?(?:" + rule + r"|(?<=[:\uff1a])[ \t]*(?P<shown>\S.*))$"
    )


# A template slot in text: {name}, {name:.2f}, {doc['x']}, {{ name }}, Dify's {{#name#}},
# Semantic Kernel's {{$name}}, string.Template's $name and Bedrock's $name$; a field that calls a method of a short
# string ({", ".join(titles)}, {'\n'.join(...)}, as code writes a join) is one, named by the method. Words after
# the name ("${the question to be answered}") describe a value in a written-out format: not a
# slot; an operator after it ("{{ context or '' }}") is the template's expression, which may hold braces of its
# own one level deep (an f-string's `{chr(10).join(f"- {p}" for p in pages) or "(none)"}`). A slot is on
# one line: braces around lines ("{\n    add(current);\n}") are code.
SLOT = re.compile(
    r"(?:(?P<brace>\{\{?[# \t]*\$?)(?:'[^'{}\n]{0,12}'\.|\"[^\"{}\n]{0,12}\"\.)?|(?<![\w$])\$)(?P<name>[a-z_]\w*+(?:\.\w+)*+)"
    r"(?(brace)(?![ \t]+(?!(?:or|and|if|else|is|not|in)\s)[a-z])(?:[^{}\n]|\{[^{}\n]{0,40}\}){0,160}?[# \t]*\}\}?|\$?)"
)


# Words of its own, beside the slots, before a text kept in code or data counts as a prompt.
PROMPT_WORDS = 3
_OWN_WORD = re.compile(r"[^\W\d_]{2,}")


def has_own_words(text: str) -> bool:
    """Whether a text holds words of its own beside its slots, as a prompt does (not a setting: "gpt-4o", "{model}")."""
    return len(_OWN_WORD.findall(SLOT.sub(" ", lowercase(text)))) >= PROMPT_WORDS


def is_template_text(text: str) -> bool:
    """Whether a text is a template of its own: words of its own beside a slot, not a setting ("gpt-4o",
    "{model}") nor a sample written out whole (an output format's JSON)."""
    return has_own_words(text) and holds_slot(text)


def is_prompt_text(text: str, vocab: Vocab, key: str | None = None, sources: frozenset[str] = frozenset()) -> bool:
    """Whether a string kept in code or data is a prompt although nothing marks it as one: words
    of its own, and a key that names a prompt (`system_prompt:`, `"template"`) or a slot the
    words call the retrieved context (`{context}`, `{{documents}}`, `$search_results$`), or one of
    ``sources``, the names code binds to the text of the sources it renders."""
    lower = lowercase(text)
    if not has_own_words(text) or vocab.log_line.match(lower) or _command_line(lower) or _sql_statement(text):
        return False
    if key is not None and vocab.lexicon.means(key, "prompt"):
        return True
    if sources:
        # The name alone or inside the slot's expression (`{'\n\n'.join(parts)}`).
        named = re.compile(r"\b(?:" + "|".join(re.escape(name.lower()) for name in sources) + r")\b")
        if any(named.search(lower, m.start(), m.end()) for m in SLOT.finditer(lower)):
            return True
    return may_hold_slot(lower) and any(_prints_the_context(text[m.start() : m.end()], text[m.start("name") : m.end("name")], vocab) or _announced_as_context(lower, m.start(), vocab) for m in SLOT.finditer(lower))


def _prints_the_context(slot: str, name: str, vocab: Vocab) -> bool:
    """Whether a slot prints the retrieved context by its name; one that reads a field of it prints that field
    (`{evaluation_results['pass_rate']}` a rate, `{doc.page_content}` a chunk's text)."""
    if slot_kind(name, vocab) != "context":
        return False
    reference = slot_reference(slot)
    key = reference.path[-1] if reference is not None and reference.path else None
    return key is None or slot_kind(key, vocab) == "context" or vocab.lexicon.means(key, "content-key")


# An option of a command line: `--corpus`, `-o`, `--chunk-size=512`, after a space and before a space or `=`.
_OPTION = re.compile(r"(?<!\S)--?[a-z][\w-]*(?=[\s=]|$)")


def _command_line(lower: str) -> bool:
    """Whether a text is a shell command (`"{python}" build_index.py --corpus "{docs}" --output "{out}"`): one
    line, continued lines joined, with two options or more. Its slots are a program's arguments, not a context."""
    line = lower.replace("\\\n", " ").strip()
    return "\n" not in line and len(_OPTION.findall(line)) >= 2


# A statement of SQL: its first line (after blank lines and `--` comments) opens with a verb in capitals, and a
# clause in capitals follows on a later line (`WITH scores AS (` ... `FROM {table} v`).
_SQL_OPENING = re.compile(r"(?:\s*--[^\n]*\n|\s*\n)*\s*(?:SELECT|WITH|INSERT\s+INTO|UPDATE|DELETE\s+FROM|CREATE\s+(?:TABLE|INDEX|VIEW)|MATCH)\b")
_SQL_CLAUSE = re.compile(r"\n\s*(?:FROM|WHERE|JOIN|LEFT\s+JOIN|GROUP\s+BY|ORDER\s+BY|SET|VALUES|RETURN|LIMIT)\b")


def _sql_statement(text: str) -> bool:
    """Whether a text is a query for a database, not for a model (its slots are a statement's parameters)."""
    return bool(_SQL_OPENING.match(text)) and bool(_SQL_CLAUSE.search(text))


def _announced_as_context(lower: str, at: int, vocab: Vocab) -> bool:
    """Whether a label that names the retrieved context stands right before a slot, on its line or alone on
    the line above ("Context:\n{parts}", "Documents: {joined}"): the slot is the context, whatever its name."""
    line_start = lower.rfind("\n", 0, at) + 1
    before = lower[line_start:at].strip(" \t$")
    if not before:
        above = lower[: max(line_start - 1, 0)].rstrip()
        before = above[above.rfind("\n") + 1 :].strip()
    return section_label(before) in vocab.context_labels


def section_label(text: str) -> str | None:
    """The name a line gives as a section's label ("Context:", "## Sources", "[[ ## context ## ]]"), normalised;
    None for any other line."""
    section = SECTION_LABEL.match(text)
    return normalise_label(section["dspy"] or section["md"] or section["plain"] or section["cjk"]) if section else None


def consecutive_prompts(text: str) -> list[tuple[int, int]]:
    """Where the prompts of a file that holds several templates one after another stand, or []
    when it holds one. A completion prompt ends on the line the model answers after ("Helpful
    Answer:", "Standalone question:"); text that follows it past a blank line, slots and all, can
    only be another prompt. Each piece must hold a slot, so that an answer written out after its
    prompt, or an assembled prompt's worked examples, never split one."""
    if not may_hold_slot(text):
        return []
    lower = lowercase(text)
    vocab = words()
    lines = text_lines(text, lower)
    starts = [0]
    for index, line in enumerate(lines[:-2]):
        cue = SECTION_LABEL.match(line.lower)
        if cue and cue["plain"] and normalise_label(cue["plain"]) in vocab.answer_cues and lines[index + 1].blank:
            following = next((ln for ln in lines[index + 1 :] if not ln.blank), None)
            if following is not None:
                starts.append(following.start)
    # A chat template's sequence-start token opens each prompt: from the second on, a new one starts there.
    opened = sorted(at for token in vocab.sequence_starts for at in _occurrences(lower, token))
    starts = sorted({*starts, *(lower.rfind("\n", 0, at) + 1 for at in opened[1:])})
    pieces = [(start, end) for start, end in zip(starts, [*starts[1:], len(text)])]
    return pieces if len(pieces) > 1 and all(SLOT.search(lower, start, end) for start, end in pieces) else []


def _occurrences(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + len(needle))
    return found


def may_hold_slot(text: str) -> bool:
    """The cheap test before looking for slots."""
    return "{" in text or "$" in text


def holds_slot(text: str, lower: str | None = None) -> bool:
    """Whether a text holds a template slot; ``lower``, when given, is ``text`` in lower case."""
    return may_hold_slot(text) and SLOT.search(lowercase(text) if lower is None else lower) is not None


def renders_a_page(text: str, vocab: Vocab) -> bool:
    """Whether a text is written in a page's markup: an element of a page with an attribute only a page gives it
    (`<div class="result-score">`, `<li data-chunk-index="3">`), or two kinds of such elements (`<li><strong>`)."""
    tags = list(vocab.page_tag.finditer(text)) if "<" in text else []
    return any(vocab.page_attribute.search(t[2] or "") for t in tags) or len({t[1].lower() for t in tags}) > 1


def slot_kind(name: str, vocab: Vocab) -> str | None:
    """What a template variable holds, judged by its name; None when the name says nothing."""
    label = normalise_label(name.rsplit(".", 1)[-1])
    kind = vocab.slot_kinds.get(label) or _kind_by_words(label, vocab)
    if kind is None and _per_request(name, label, vocab):
        kind = "volatile"
    return kind


def _kind_by_words(label: str, vocab: Vocab) -> str | None:
    """`question_text`, `retrieved_docs`: the name, once the words that say how the value is written are set aside;
    and for the context, the history and a rewrite (`kb_context`, `doc_summaries`, `query_interpretation`) its last
    word. A question's last word is not enough: `system_message` is no question."""
    named = [w for w in label.split() if w not in vocab.slot_fillers]
    if not named:
        return None
    whole, last = vocab.slot_kinds.get(" ".join(named)), vocab.slot_kinds.get(named[-1])
    if whole in ("context", "question", "history"):
        return whole
    if last in ("context", "history") and any(w in vocab.setup_qualifiers for w in named[:-1]):
        return None  # `personality_context`: the assistant's setup, not what a request retrieved
    if last in ("context", "history") and any(w in vocab.count_words for w in named):
        return None  # `total_chunks`, `num_docs`, `doc_count`: how many, not the text
    if last in ("context", "history", "rewritten"):
        return last
    if last == "question":
        return _qualified_rewrite(named, vocab)
    if last is None and vocab.slot_kinds.get(named[-1] + "s") == "context" and any(w in vocab.retrieval_qualifiers for w in label.split()):
        return "context"  # `retrieved_chunk`, `relevant_passage`: one of the items retrieved (`{document}` alone is pasted)
    return None


def _qualified_rewrite(named: list[str], vocab: Vocab) -> str | None:
    """"rewritten" for a question or a query a word qualifies as rewritten (`new_question`, `better_query`; not
    `new_message`, which has just arrived, nor `last_generated_query`, an earlier try's)."""
    qualifiers = named[:-1]
    if named[-1] not in vocab.rewrite_heads or not any(w in vocab.rewrite_qualifiers for w in qualifiers):
        return None
    return None if any(w in vocab.past_qualifiers for w in qualifiers) else "rewritten"


def _per_request(name: str, label: str, vocab: Vocab) -> bool:
    """Whether a name says it holds the user's or the moment's data (`user_city`, `current_time`), or a value
    read from an object the request brings, by the object's name (`user.name`, `requestHints.city`)."""
    owner = normalise_label(name.split(".", 1)[0]) if "." in name else None
    return (label + " ").startswith(vocab.volatile_prefixes) or owner is not None and (owner + " ").startswith(vocab.volatile_owners)


def names_the_question(label: str, vocab: Vocab) -> bool:
    """Whether a label (normalised) names the user's question: "Question", or a question one or two words
    qualify as the live one ("current user question", "business question"), not an example's or an earlier one;
    or one that says the user asks ("the user wants", "a student asked")."""
    if label in vocab.question_labels:
        return True
    said = label.split()
    said = said[1:] if said[:1] in (["the"], ["a"], ["an"]) else said
    if len(said) == 2 and said[0] in vocab.askers and said[1] in vocab.asking_verbs:
        return True
    *qualifiers, head = label.split() or [""]
    return head in ("question", "query") and 0 < len(qualifiers) <= 2 and all(w in vocab.question_qualifiers for w in qualifiers)


def speaks_of_context(line: Line, vocab: Vocab) -> bool:
    """Whether a line names the context ("Use the context below.", "# Relevant Context", "Instruction: With this context")."""
    return vocabulary.words_pattern(vocab.context_labels).search(line.lower) is not None


def holds_setup(name: str, vocab: Vocab) -> bool:
    """Whether a variable's name says it holds the deployment's setup, the same on every request
    (`format_instructions`, `tool_list`, `persona_block`), read without the words that say how the value
    is written (`tool_list` is tools)."""
    words = [w for w in normalise_label(name.rsplit(".", 1)[-1]).split() if w not in vocab.slot_fillers]
    return not words or " ".join(words) in vocab.setup_vars or words[-1] in vocab.setup_vars or any(w in vocab.setup_qualifiers for w in words)


# A string key after a slot's name (`state["rewritten_query"]`, `doc['title']`).
_SLOT_KEY = re.compile(r"""\[[ \t]*(['"])([\w -]{1,40})\1[ \t]*\]""")


def slot_name(text: str, match: re.Match[str]) -> str:
    """A slot's name as written, with the string keys after it read as its parts: `{state["rewritten_query"]}` is
    `state.rewritten_query`, whose last part says what it holds, as `{state.rewritten_query}`'s does."""
    name, at = text[match.start("name") : match.end("name")], match.end("name")
    while (key := _SLOT_KEY.match(text, at)) is not None:
        name, at = f"{name}.{key[2]}", key.end()
    return name


def named_slots(text: str, lower: str, start: int, end: int, vocab: Vocab, known: dict[str, str] | None = None) -> list[tuple[Span, str]]:
    """The slots between two offsets whose names say what they hold, with that kind; a slot
    that is only mentioned (see _mentioned) is not one. A name is read as written, where its
    case splits its words (`sourceContext`); ``lower`` is ``text`` in lower case. ``known``: the kind
    the text itself gave a name the lexicon does not know (a label over the slot: "QUESTION:\n{q}")."""
    found = []
    for match in SLOT.finditer(lower, start, end):
        name, keyed = text[match.start("name") : match.end("name")], slot_name(text, match)
        if lower.startswith("(", match.end("name")):
            # A method called on the value (`$now.format('yyyy-MM-dd')`) names what it does, not what the value is.
            name = name.rpartition(".")[0] or name
        # A key read from the value says what it holds (`state["rewritten_query"]`); one that says nothing leaves it
        # to the name (`best_match['text']` under "Context:").
        kind = (keyed != name and slot_kind(keyed, vocab)) or slot_kind(name, vocab) or (known or {}).get(keyed) or (known or {}).get(name)
        if kind is not None and (not _mentioned(lower, match.start(), match.end()) or _quoted_in_a_sentence(lower, match.start(), match.end())):
            found.append((Span(match.start(), match.end()), kind))
    return found


# A slot quoted as code: `{context}`, ``{context}``.
_QUOTED_SLOT = re.compile(r"(?<!`)`{1,2}\{[^{}`\n]*\}`{1,2}(?!`)")


def _quoted_in_a_sentence(lower: str, start: int, end: int) -> bool:
    """Whether a slot quoted as code is filled all the same: the template fills the same name unquoted elsewhere, and
    its line quotes no other slot ("Use only the context `{context}`." above "Context:\n{context}": the engine fills
    every place the name stands). A line that quotes several ("Variables: `{question}`, `{context}`") lists them for
    the people who fill the template."""
    line_start, line_end = lower.rfind("\n", 0, start) + 1, lower.find("\n", end)
    if not lower.startswith("`", end) or len(_QUOTED_SLOT.findall(lower, line_start, line_end if line_end >= 0 else len(lower))) != 1:
        return False
    slot, at = lower[start:end], lower.find(lower[start:end])
    while at >= 0:
        if not _mentioned(lower, at, at + len(slot)):
            return True
        at = lower.find(slot, at + 1)
    return False


# After a slot, what starts its description: "{{QUERY}} - the user's query", "{context} := ...".
_DESCRIBED = re.compile(r"[ \t]*(?::?=|[-\u2013\u2014:][ \t]+\S)")
# Before a slot on its line, only a comment's marks: "#   {{QUERY}}", "// {context}".
_COMMENTED = re.compile(r"[ \t]*(?:#+|//|--|/?\*+)[ \t]*$")


def _mentioned(lower: str, start: int, end: int) -> bool:
    """Whether a slot is written about rather than filled: quoted as code (`{question}`), or
    described on a comment line ("#   {{QUERY}}  - Will be replaced with the user's query"). Between
    three backticks or more ("Question: ```{question}```") the value is fenced off as a block: filled."""
    ticks = 0
    while ticks < 3 and ticks < start and lower[start - ticks - 1] == "`":
        ticks += 1
    if 0 < ticks < 3 and lower.startswith("`" * ticks, end) and not lower.startswith("`" * (ticks + 1), end):
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
LABEL_LINE = re.compile(r"\s*(?:[-*•]\s+)?(?:\*\*|__)?(?P<label>(?:[^\W\d]|@)[\w .@;/-]{0,40}?)(?:\*\*|__)?\s*[:=：](?!//)\s*(?:\*\*|__)?\s*(?P<value>.*)$")
# "label: value", "label=value" or "label value" inside a header group.
INLINE_ITEM = re.compile(r"\s*(?P<label>(?:[^\W\d_]|@)(?:[^\W\d]|[ .@;-]){0,30}?)\s*(?:[:=：]\s*|\s+(?=[\d({]))(?P<value>\S.*?)\s*$")
# A label and what follows it on its line; a label between brackets needs no colon ("【用户问题】", lower-cased "[用户问题]").
QUESTION_LINE = re.compile(
    r"\s*(?:#{1,6}\s*)?(?:\*\*|__)?(?P<bracket>\[)?(?P<label>[^\W\d_][\w' ]{0,20}?)\s*(?(bracket)\]:?|(?:\*\*|__)?[:：])(?:\*\*|__)?\s*(?P<value>.*)$"
)
SEPARATOR = re.compile(r"\s*(?:[-=*_]{3,}|```\w*)\s*$")


def lowercase(text: str) -> str:
    """``text`` in lower case, so that an offset in one is the same place in the other, and with the full-width
    punctuation Chinese, Japanese and Korean write read as its ASCII form ("【资料1】退货（分数：0.91，来源：a.pdf）" as
    "[资料1]退货(分数:0.91,来源:a.pdf)"), one character for one, so that every pattern of the lower-cased text reads both.

    str.lower keeps the length of every character but "\u0130" (capital I with a dot),
    which becomes "i" and a combining dot; here it becomes a plain "i".
    """
    return as_ascii(_lowered(text))


def as_ascii(text: str) -> str:
    """``text`` with its full-width punctuation written in ASCII, one character for one (see lowercase)."""
    # str.translate looks up every character: asked first whether there is one to write (a search in C).
    return text if text.isascii() or not _FULL_WIDTH_MARK.search(text) else text.translate(_FULL_WIDTH)


# Brackets, parentheses, the colon, the commas (an enumeration's too) and semicolon, the question and exclamation marks.
_FULL_WIDTH = str.maketrans("\u3010\u3011\uff08\uff09\uff1a\uff0c\u3001\uff1b\uff1f\uff01", "[]():,,;?!")
_FULL_WIDTH_MARK = re.compile("[" + "".join(map(chr, _FULL_WIDTH)) + "]")


def _lowered(text: str) -> str:
    if len(text) > _LONG and not text.isascii():
        # A prompt is mostly ASCII, yet one dash makes str.lower look up every character: lower
        # its bytes instead (ASCII letters alone), when the few other characters have no lower case
        # (a capital sigma, the one lowered by what is around it, has one). Twice as fast; the same.
        raw = text.encode("utf-8", "surrogatepass")
        if len(raw) - len(text) < len(text) >> 6:
            others = raw.translate(None, _ASCII).decode("utf-8", "surrogatepass")
            if others.lower() == others and "\u0130" not in others:
                return raw.lower().decode("utf-8", "surrogatepass")
    return text.replace("\u0130", "i").lower()


# Shorter texts, or with more than one byte in 64 beyond ASCII, are lowered faster by str.lower.
_LONG = 4096  # characters
_ASCII = bytes(range(128))


def trim(text: str, span: Span) -> Span:
    start, end = span.start, span.end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end)
