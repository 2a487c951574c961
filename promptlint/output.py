"""Show findings: one function per output format, each returning the text to print."""

from __future__ import annotations

import json
from collections.abc import Sequence

from .findings import Applicability, Finding

FORMATS = ("full", "concise", "json")


def _where(f: Finding) -> str:
    return f"{f.path}:{f.line}:{f.column}"


def concise(findings: Sequence[Finding], sources: dict[str, str]) -> str:
    return "".join(f"{_where(f)}: {f.code} [{f.name}] {f.message}\n" for f in findings)


def full(findings: Sequence[Finding], sources: dict[str, str]) -> str:
    out = []
    for f in findings:
        context = f" ({f.context})" if f.context else ""
        out.append(f"{_where(f)}: {f.code} [{f.name}] {f.message}{context}")
        lines = sources.get(f.path, "").split("\n")
        if 0 < f.line <= len(lines):
            text = lines[f.line - 1]
            number = str(f.line)
            pad = " " * len(number)
            width = max(1, (f.end_column - f.column) if f.end_line == f.line else len(text) - f.column + 1)
            out.append(f" {pad} |")
            out.append(f" {number} | {text}")
            out.append(f" {pad} | {' ' * (f.column - 1)}{'^' * width}")
        if f.fix is not None:
            kind = {Applicability.SAFE: "safe", Applicability.UNSAFE: "unsafe"}.get(f.fix.applicability, "suggestion")
            out.append(f"  = fix ({kind}): {f.fix.description}")
        if f.tokens:
            out.append(f"  = costs {f.tokens} tokens")
        out.append("")
    return "\n".join(out) + ("\n" if out else "")


def as_json(findings: Sequence[Finding], sources: dict[str, str]) -> str:
    return json.dumps([_record(f) for f in findings], indent=2, ensure_ascii=False) + "\n"


def _record(f: Finding) -> dict:
    fix = None
    if f.fix is not None:
        fix = {
            "applicability": f.fix.applicability.name.lower(),
            "message": f.fix.description,
            # Edits are offsets into the prompt text (for a chat file, the joined messages).
            "edits": [{"start": e.span.start, "end": e.span.end, "content": e.replacement} for e in f.fix.edits],
        }
    return {
        "path": f.path,
        "code": f.code,
        "name": f.name,
        "message": f.message,
        "severity": f.severity.name.lower(),
        "line": f.line,
        "column": f.column,
        "end_line": f.end_line,
        "end_column": f.end_column,
        "tokens": f.tokens,
        "context": f.context or None,
        "fix": fix,
    }


RENDERERS = {"full": full, "concise": concise, "json": as_json}


def summary(findings: Sequence[Finding], fixed: int = 0) -> str:
    if not findings:
        return "All checks passed!" if not fixed else f"Fixed {fixed} file(s); no findings remain."
    safe = [f for f in findings if f.fix and f.fix.applicability is Applicability.SAFE]
    unsafe = [f for f in findings if f.fix and f.fix.applicability is Applicability.UNSAFE]
    saved = sum(f.tokens for f in safe)
    parts = [f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''}"]
    if fixed:
        parts.append(f"fixed {fixed} file(s)")
    if safe:
        parts.append(f"{len(safe)} fixable with --fix (saves {saved} tokens)")
    if unsafe:
        parts.append(f"{len(unsafe)} more with --unsafe-fixes")
    return ", ".join(parts) + "."
