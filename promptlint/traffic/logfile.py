"""Captured requests as a JSONL log: a request body a line, as ``promptlint audit`` reads it.

The body is written as it was sent, so the audit reads exactly what the model was sent; a
body written over several lines (pretty-printed JSON) is written again on one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path


def line(body: bytes) -> bytes:
    """A JSON body as one JSONL line, with its end of line."""
    if b"\n" in body or b"\r" in body:
        body = json.dumps(json.loads(body), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return body + b"\n"


def write(path: Path, bodies: Iterable[bytes]) -> None:
    """The log of ``bodies`` at ``path``, written whole or not at all (through a file beside it)."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        with open(partial, "wb") as out:
            for body in bodies:
                out.write(line(body))
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
