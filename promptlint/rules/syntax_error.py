"""Input that cannot be parsed.

## What it does
Reports a file that cannot be read as its format says: invalid JSON, a JSONL line
that is not a chat record, a chat record of the wrong shape. The finding carries
the line and column of the problem; the other files (and the other lines of a
JSONL file) are still linted.

## Why is this bad?
A prompt that does not parse cannot be checked, and is likely not what your
application sends either.

## Example
```
{"messages": [{"role": "user", "content": "Hi"}
```

## Use instead
Valid JSON: `{"messages": [{"role": "user", "content": "Hi"}]}`

## Fix safety
No fix.
"""

from __future__ import annotations

from ..model.findings import Severity
from ..model.prompt import Prompt
from ._context import RuleContext

CODE = "PL900"
NAME = "syntax-error"
SUMMARY = "The input cannot be parsed"
SEVERITY = Severity.ERROR


def check(prompt: Prompt, ctx: RuleContext):
    """Parsing happens before the rules run; the loader reports PL900 itself."""
    return ()
