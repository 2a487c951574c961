"""Apply fixes: one engine for every rule and every front-end.

Fixes are applied in order of position; a fix whose edits overlap one already
taken waits for the next pass (the text is linted again in between). The loop
stops when nothing changes, and gives up on a cycle or at a cap, keeping the
original text rather than a half-fixed one.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from ..model.findings import Applicability, Edit, Finding, Fix

MAX_PASSES = 10


class FixDidNotConverge(Exception):
    """The fix loop hit its cap or a cycle; the original text is kept."""


def applicable(findings: Sequence[Finding], threshold: Applicability) -> list[Fix]:
    return [f.fix for f in findings if f.fix is not None and f.fix.applicability >= threshold and f.fix.edits]


def apply_fixes(text: str, fixes: Sequence[Fix], valid: Callable[[str], bool] | None = None) -> tuple[str, int]:
    """Apply the fixes that do not overlap an earlier one; return the text and how many were applied."""
    text, applied = _apply_fixes(text, fixes, valid)
    return text, len(applied)


def _apply_fixes(text: str, fixes: Sequence[Fix], valid: Callable[[str], bool] | None = None) -> tuple[str, list[Fix]]:
    """Apply the fixes that do not overlap an earlier one; return the text and the fixes applied.

    With ``valid`` (a template must still parse), the text with all of them is checked
    once; only when it fails is each fix checked on its own, and one whose result fails
    is left out. (Checking each fix every time parsed a template once per fix.)
    """
    # A fix shared by several findings (one edit set for the whole prompt) is applied once. The
    # same object is dropped by identity first: hashing it once per finding is quadratic.
    ordered = sorted(set({id(fix): fix for fix in fixes}.values()), key=lambda f: (min(e.span.start for e in f.edits), f.description))
    chosen = _non_overlapping(ordered)
    edits = [edit for fix in chosen for edit in fix.edits]
    if valid is None or valid(_apply(text, edits)):
        return _apply(text, edits), chosen
    taken = _Taken()
    applied = []
    for fix in chosen:
        if valid(_apply(text, taken.edits + list(fix.edits))):
            taken.add(fix.edits)
            applied.append(fix)
    return _apply(text, taken.edits), applied


def _non_overlapping(fixes: Sequence[Fix]) -> list[Fix]:
    taken = _Taken()
    chosen = []
    for fix in fixes:
        if _self_overlap(fix.edits) or any(taken.overlaps(edit) for edit in fix.edits):
            continue
        taken.add(fix.edits)
        chosen.append(fix)
    return chosen


class _Taken:
    """Edits taken so far, which never overlap, kept in order: an overlap test looks at neighbours only."""

    def __init__(self):
        self.edits: list[Edit] = []
        self._sorted: list[Edit] = []
        self._starts: list[int] = []

    def overlaps(self, edit: Edit) -> bool:
        # Candidates start at most at the edit's end. Of those that start before it, only the
        # ones with the greatest such start can reach it (taken edits do not overlap one
        # another; an insertion may share its start with a longer edit).
        i = bisect.bisect_left(self._starts, edit.span.start)
        if i:
            i = bisect.bisect_left(self._starts, self._starts[i - 1])
        j = bisect.bisect_right(self._starts, edit.span.end)
        return any(_overlap(edit, other) for other in self._sorted[i:j])

    def add(self, edits: Sequence[Edit]) -> None:
        for edit in edits:
            i = bisect.bisect_right(self._starts, edit.span.start)
            self._starts.insert(i, edit.span.start)
            self._sorted.insert(i, edit)
            self.edits.append(edit)


def _apply(text: str, edits: list[Edit]) -> str:
    # Pieces joined once: rebuilding the text at every edit made many edits quadratic.
    pieces, at = [], 0
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end)):
        pieces += [text[at : edit.span.start], edit.replacement]
        at = edit.span.end
    pieces.append(text[at:])
    return "".join(pieces)


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
) -> tuple[str, int]:
    """Lint and fix until nothing fixable is left; return the fixed text and how many findings
    the fixes applied resolved: what `check` counts as fixable, `--diff` would fix and `--fix` fixed.

    A finding that goes away only because another's fix changed the text around it (a
    wrapper's tokens, with a field removed) was not fixed, and is not counted.
    """
    seen = {text}
    current = text
    fixed = 0
    for _ in range(MAX_PASSES):
        findings = lint(current)
        fixes = applicable(findings, threshold)
        if not fixes:
            return current, fixed
        current, applied = _apply_fixes(current, fixes, valid)
        if not applied:
            return current, fixed
        # Findings that share one fix (every date of a prompt) are each fixed by it.
        taken = {id(fix) for fix in applied}
        fixed += sum(1 for f in findings if f.fix is not None and id(f.fix) in taken)
        if current in seen:
            raise FixDidNotConverge("fixes did not settle (a cycle)")
        seen.add(current)
    raise FixDidNotConverge(f"fixes did not settle after {MAX_PASSES} passes")
