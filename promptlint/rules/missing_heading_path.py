"""Source without a heading path.

## What it does
Advisory, and off by default (`extend-select: [PL204]` turns it on). Flags a
prompt whose titled sources carry no heading path (`Title — Section > Subsection`).

## Why is this bad?
The heading path measured as the most valuable addition to a source: +0.06
correctness for about 8 tokens. It makes a fragment interpretable, and unlike a
summary it cannot disagree with the text.

## Example
```
[1] Returns and Credits Policy
Damaged goods may be returned within 30 days...
```

## Use instead
```
[1] Returns and Credits Policy — Returns > Damaged goods
Damaged goods may be returned within 30 days...
```

## Fix safety
No fix: the heading path has to come from the document's structure at ingest.
"""

from __future__ import annotations

from ..model.findings import Severity
from ..model.prompt import Prompt
from ._context import RuleContext

CODE = "PL204"
NAME = "missing-heading-path"
SUMMARY = "Sources are rendered without their heading path"
EFFECT = "the heading path: +0.06 correctness for 8 tokens"
SEVERITY = Severity.INFO
DEFAULT = False


def check(prompt: Prompt, ctx: RuleContext):
    titled = [s for s in prompt.sources if s.title and not s.partial]
    if titled and not any(s.heading_path for s in titled):
        yield ctx.finding(
            prompt,
            titled[0].header,
            "No source shows its heading path; at about 8 tokens it measured +0.06, the most of any field",
            tokens_text="",
        )
