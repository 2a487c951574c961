"""Apply fixes: one engine for every rule and every front-end.

Fixes are applied in order of position; a fix whose edits overlap one already
taken waits for the next pass (the text is linted again in between). The loop
stops when nothing changes, and gives up on a cycle or at a cap, keeping the
original text rather than a half-fixed one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .findings import Applicability, Edit, Finding, Fix

MAX_PASSES = 10


class FixDidNotConverge(Exception):
    """The fix loop hit its cap or a cycle; the original text is kept."""


def applicable(findings: Sequence[Finding], threshold: Applicability) -> list[Fix]:
    return [f.fix for f in findings if f.fix is not None and f.fix.applicability >= threshold and f.fix.edits]


def apply_fixes(text: str, fixes: Sequence[Fix], valid: Callable[[str], bool] | None = None) -> tuple[str, int]:
    """Apply the fixes that do not overlap an earlier one; return the text and how many were applied.

    With ``valid`` (a template must still parse), a fix whose result fails it is left out.
    """
    taken: list[Edit] = []
    applied = 0
    # A fix shared by several findings (one edit set for the whole prompt) is applied once.
    for fix in sorted(set(fixes), key=lambda f: (min(e.span.start for e in f.edits), f.description)):
        if any(_overlap(edit, other) for edit in fix.edits for other in taken):
            continue
        if _self_overlap(fix.edits):
            continue
        if valid is not None and not valid(_apply(text, taken + list(fix.edits))):
            continue
        taken.extend(fix.edits)
        applied += 1
    return _apply(text, taken), applied


def _apply(text: str, edits: list[Edit]) -> str:
    out = text
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end), reverse=True):
        out = out[: edit.span.start] + edit.replacement + out[edit.span.end :]
    return out


def _overlap(a: Edit, b: Edit) -> bool:
    if a.span.overlaps(b.span):
        return True
    # An insertion inside another edit, or two at one place, has no clear order.
    for x, y in ((a, b), (b, a)):
        if x.span.start == x.span.end and (y.span.start < x.span.start < y.span.end or x.span == y.span):
            return True
    return False


def _self_overlap(edits: Sequence[Edit]) -> bool:
    ordered = sorted(edits, key=lambda e: e.span.start)
    return any(_overlap(x, y) for x, y in zip(ordered, ordered[1:]))


def fix_loop(
    text: str,
    lint: Callable[[str], list[Finding]],
    threshold: Applicability,
    valid: Callable[[str], bool] | None = None,
) -> tuple[str, list[Finding]]:
    """Lint and fix until nothing fixable is left; return the fixed text and the findings that remain."""
    seen = {text}
    current = text
    for _ in range(MAX_PASSES):
        findings = lint(current)
        fixes = applicable(findings, threshold)
        if not fixes:
            return current, findings
        current, applied = apply_fixes(current, fixes, valid)
        if not applied:
            return current, findings
        if current in seen:
            raise FixDidNotConverge("fixes did not settle (a cycle)")
        seen.add(current)
    raise FixDidNotConverge(f"fixes did not settle after {MAX_PASSES} passes")
