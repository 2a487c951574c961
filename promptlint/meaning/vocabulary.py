"""The word lists rules match, loaded from the YAML files in the top-level rules/ folder.

They are data so that a reader can see what a rule looks for and a user can add
to it (``rules: {retrieval-score: {extend-labels: [...]}}`` in the config).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

import yaml


# The shipped lists are read by every run and every worker: libyaml's reader, where PyYAML
# was built with it, reads them ten times as fast (tests/test_perf_equivalence.py: to the same data).
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _file(name: str):
    return resources.files("promptlint.rulesdata").joinpath(f"{name}.yaml")


def exists(name: str) -> bool:
    return _file(name).is_file()


@cache
def load(name: str) -> dict[str, list[str]]:
    """The vocabulary file ``rules/<name>.yaml`` as shipped with the package."""
    text = _file(name).read_text(encoding="utf-8")
    return yaml.load(text, Loader=LOADER) or {}


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalise_label(label: str) -> str:
    """Labels compare in lower case with "_", "-" and camelCase read as spaces: "updatedAt" == "updated at"."""
    lowered = label.lower()
    if lowered != label:
        # Only a capital starts a camelCase word; most labels (and the long lines tested
        # as labels) have none, and the regex would scan them for nothing.
        lowered = _CAMEL.sub(" ", label).lower()
    return " ".join(lowered.replace("_", " ").replace("-", " ").split())


def label_set(words: list[str]) -> frozenset[str]:
    return _label_set(tuple(words))


@cache
def _label_set(words: tuple[str, ...]) -> frozenset[str]:
    # Rules ask for their label sets on every prompt: normalise each list once.
    return frozenset(normalise_label(w) for w in words)


def alternation(words) -> str:
    """Literal words as one regular-expression alternation, the longest first so that none is cut short."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# Han, kana and hangul: scripts that write a word against the next with no space between.
_IDEOGRAPHS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
IDEOGRAPHIC = re.compile(f"[{_IDEOGRAPHS}]")


# A run of ideographic characters: a Chinese or Japanese sentence writes no space between its words.
_IDEOGRAPHIC_RUN = re.compile(f"[{_IDEOGRAPHS}]+")


def word_count(text: str) -> int:
    """How many words a text holds, a run of ideographic characters read as a word every two characters (a
    Chinese word is one to three of them), so that a sentence is as long in any script."""
    spaced = len(text.split())
    if not IDEOGRAPHIC.search(text):
        return spaced
    return spaced + sum((len(run) - 1) // 2 for run in _IDEOGRAPHIC_RUN.findall(text))


@cache
def words_pattern(words: frozenset[str]) -> re.Pattern[str]:
    """Any of ``words`` in lower-cased text: a word of an alphabet as a whole word, one of an ideographic script
    wherever it stands, since a qualifier is written against it ("相关上下文" is the relevant context)."""
    spaced = [w for w in words if not IDEOGRAPHIC.search(w)]
    joined = [w for w in words if IDEOGRAPHIC.search(w)]
    whole = r"\b(?:" + alternation(spaced) + r")\b" if spaced else ""
    return re.compile("|".join(filter(None, [whole, alternation(joined)])) or r"(?!)")


def patterns(phrases: list[str]) -> re.Pattern[str]:
    """One alternation over lower-cased text, compiled case-sensitively for speed."""
    return _patterns(tuple(phrases))


@cache
def _patterns(phrases: tuple[str, ...]) -> re.Pattern[str]:
    # Rules and readers ask for the same lists on every prompt: compile each once.
    return re.compile("|".join(f"(?:{p})" for p in phrases), re.MULTILINE)


def may_match(phrases: list[str], text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether ``patterns(phrases)`` can match anywhere in ``text`` (between ``start`` and
    ``end``, as a search from one to the other), judged without running it.

    Every match of a phrase holds one of a few fixed strings ("prefer " in
    ``\\bprefer (?:this|it)\\b``), which it consumes (a lookaround's text is none of
    them); when none of them is in the text, nothing can match. Looking for them takes
    a fraction of the time the pattern takes to try every position of a long text. True
    when a phrase has no such strings.
    """
    needles = _all_needles(tuple(phrases))
    if needles is None:
        return True
    if len(needles) <= _FIND_EACH:
        return any(text.find(needle, start, end) >= 0 for needle in needles)
    return _one_pattern(needles).search(text, start, len(text) if end is None else end) is not None


# Up to this many needles, a search for each is the faster (5 needles: twice as fast as one pattern on the
# bench corpus); past it one pattern of them all is (20: ten times as fast as a search each).
_FIND_EACH = 10


@cache
def _one_pattern(needles: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, needles)))


# Past this many strings, a run of a phrase's alternatives is not spelled out.
_MAX_NEEDLES = 64
# A string common to a run's alternatives, this long or longer, stands for all of them.
_COMMON = 4


@cache
def _all_needles(phrases: tuple[str, ...]) -> tuple[str, ...] | None:
    found: set[str] = set()
    for phrase in phrases:
        needles = _needles(phrase)
        if needles is None:
            return None
        found.update(needles)
    # A needle that holds another is found only where that one is: one search is enough.
    return tuple(sorted(n for n in found if not any(m != n and m in n for m in found)))


def _needles(phrase: str) -> list[str] | None:
    """Strings of which every match of ``phrase`` holds one; None if it has none.

    They come from one run of literal text in the pattern (a run may hold alternatives:
    "(?:restricted|secret) data"): the run with the fewest strings of those whose strings
    are not too short to be rare, then the longest.
    The pattern is read as ``re`` parses it: its parser is private, but has kept
    this form since Python 2.
    """
    from re import _parser

    parsed = _parser.parse(phrase, re.MULTILINE)
    if parsed.state.flags & re.IGNORECASE:
        return None
    runs: list[list[str]] = []
    run = [""]
    for item in [*parsed.data, None]:
        options = _options(*item) if item is not None else None
        if options is not None and len(run) * len(options) <= _MAX_NEEDLES:
            run = [s + o for s in run for o in options]
            continue
        if min(map(len, run)):
            common = _common(run)
            runs.append([common] if len(common) >= _COMMON else run)
        run = options or [""]
    return min(runs, key=lambda r: (min(map(len, r)) < _COMMON, len(r), -min(map(len, r))), default=None)


def _common(strings: list[str]) -> str:
    """The longest string that every one of ``strings`` holds."""
    shortest = min(strings, key=len)
    for size in range(len(shortest), 0, -1):
        for start in range(len(shortest) - size + 1):
            piece = shortest[start : start + size]
            if all(piece in s for s in strings):
                return piece
    return ""


def _options(op, av) -> list[str] | None:
    """Every string one parsed item of a pattern matches, when it is literal text or alternatives of it."""
    from re import _constants as c

    if op is c.LITERAL:
        return [chr(av)]
    if op is c.IN:
        return [chr(code) for _, code in av] if all(kind is c.LITERAL for kind, _ in av) else None
    if op is c.BRANCH:
        alternatives = [_sequence(branch.data) for branch in av[1]]
        if any(a is None for a in alternatives) or sum(map(len, alternatives)) > _MAX_NEEDLES:
            return None
        return [s for a in alternatives for s in a]
    if op is c.SUBPATTERN and not av[1] and not av[2]:  # a group that sets no flags
        return _sequence(av[3].data)
    return None


def _sequence(items) -> list[str] | None:
    strings = [""]
    for op, av in items:
        options = _options(op, av)
        if options is None or len(strings) * len(options) > _MAX_NEEDLES:
            return None
        strings = [s + o for s in strings for o in options]
    return strings
