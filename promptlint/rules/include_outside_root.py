"""An include or import names a file outside the project root.

## What it does
Reports an `{% include %}`, `{% import %}` or `{% from ... import %}` whose file
lies outside the project root: the folder of the config file that governs the
template (or the current folder without one), or the template's own folder when
the template is outside that. `..`, an absolute path and a symbolic link that
leads out all count. promptlint does not read such a file, so whatever it
renders into the prompt is not checked.

## Why is this bad?
A linter runs on every commit of every developer, often on code it has never
seen: it must not read files outside the project because a template names them.
A template that reaches out of its project is also fragile: it renders only
where that other file happens to exist.

## Example
```
{% include "../../shared/sources.j2" %}
```

## Use instead
Keep the included templates inside the project (or lint from a folder that
holds both, with a config file there):
```
{% include "partials/sources.j2" %}
```

## Fix safety
No fix.
"""

from __future__ import annotations

from ..model.prompt import Prompt
from ._context import RuleContext

CODE = "PL902"
NAME = "include-outside-root"
SUMMARY = "An include or import names a file outside the project root; it was not read"


def check(prompt: Prompt, ctx: RuleContext):
    for span, name in prompt.refused_includes:
        yield ctx.finding(prompt, span, f"'{name}' is outside the project root; promptlint did not read it, so what it renders is not checked")
