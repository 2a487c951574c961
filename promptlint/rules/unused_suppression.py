"""A suppression directive that suppresses nothing, names no rule, or does not parse.

## What it does
Flags a `{# promptlint: ... #}` directive in a Jinja template, or a
`# promptlint: ...` / `// promptlint: ...` comment in Python or JavaScript/TypeScript,
that has no effect: one that suppressed no finding (`ignore`, `disable`,
`file-ignore`/`ignore-file`), an `enable` that ends no region that suppressed
anything, one that names a rule that does not exist, and one that is malformed
(`{# promptlint: ignor[PL102] #}`, rules not in brackets, or in code a `disable`,
which covers lines where a code directive covers strings). A directive is judged
only for the rules that ran: one naming a rule that is not selected is left alone.
Directives live only in Jinja comments and in the comments of code; the same text
in a string, a `{% raw %}` block or a plain-text prompt is not a directive.

## Why is this bad?
A directive that suppresses nothing is noise, and it hides the next finding of its
rule on that line without anyone deciding to. A misspelt directive or rule
silences nothing while its author believes it does.

## Example
```
{# promptlint: ignore[PL203] the ids are for the audit log #}
[{{ loop.index }}] {{ doc.meta.title }}
{# promptlint: ignore[PL1O2] #}
```

## Use instead
```
[{{ loop.index }}] {{ doc.meta.title }}
```
Suppress only a finding that is there, by its exact code or name (`PL102`,
`retrieval-score`).

## Fix safety
Safe: the directive is removed (its whole line when it stands alone on it), or,
when some of the rules it names are used, only the unused or unknown ones are
taken out of its list. Jinja drops comments when it renders, so the prompt the
model sees does not change, but for the spaces before a directive at the end of a
line, which are removed with it. A malformed directive has no fix: what it was
meant to say is for its author to correct, and neither has a directive in the
comments of code: a fix edits a prompt, and the comment is outside every prompt.
"""

from __future__ import annotations

from ..model.prompt import Prompt
from ._context import RuleContext

CODE = "PL901"
NAME = "unused-suppression"
SUMMARY = "A suppression directive suppresses nothing, names an unknown rule, or is malformed"
FIX = "safe"


def check(prompt: Prompt, ctx: RuleContext):
    """Whether a directive was used is known only once the other rules have run:
    the suppression stage (promptlint/engine/suppress.py) reports PL901 itself."""
    return ()
