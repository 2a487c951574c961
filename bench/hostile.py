"""Hostile input: the time to lint must grow linearly with the size of the text.

Each case builds 1 MB and 10 MB of pathological text and times one entry point
on it: promptlint.lint.lint_text (or fix_text, for fixes by the thousand) for
text, promptlint.jinja.segment_jinja for Jinja-ish text. Ten times the text should take about ten times as long; a
ratio over 20 prints a warning line, as does an exception (a template that does
not parse is a TemplateError, which is an answer, not a failure). Each run is in
a child process with a time limit (--limit), so a super-linear case cannot hang
the bench: a run stopped there prints a warning line too.

    python bench/hostile.py                    # every case, 1 MB and 10 MB
    python bench/hostile.py --scale 0.1        # 100 kB and 1 MB, for a quick look
    python bench/hostile.py sources slots      # some cases
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Callable

MB = 1_000_000
WARN_RATIO = 20


def _repeat(unit: str, size: int) -> str:
    # Whole units: a cut one would make the last line unlike the others.
    return unit * max(1, size // len(unit))


def _sources(size: int) -> str:
    """About a hundred characters a source: ten thousand of them in 1 MB."""
    parts, length, n = [], 0, 0
    while length + 100 <= size:
        n += 1
        part = f"[{n}] Returns Policy \u2014 Returns > Damaged goods (score: 0.91)\nDamaged goods may be returned.\n\n"
        parts.append(part)
        length += len(part)
    return "".join(parts)


def _chat(size: int) -> str:
    """One chat message holding the sources: every finding is placed through the JSON string's escapes."""
    return json.dumps({"messages": [{"role": "user", "content": _sources(size)}]})


# name -> (entry point, builder of a text of about the given size). The entry point is
# "segment_jinja", or "lint_text"/"fix_text" with the suffix of the path that picks the format.
CASES: dict[str, tuple[str, Callable[[int], str]]] = {
    "unclosed-brackets": ("lint_text .txt", lambda n: _repeat("[1 [Returns Policy [score: 0.91\n", n)),
    "unclosed-braces": ("lint_text .txt", lambda n: _repeat("{{ question {{ context\n", n)),
    "unclosed-braces-template": ("segment_jinja", lambda n: _repeat("{{ question {{ context\n", n)),
    "unclosed-document": ("lint_text .txt", lambda n: _repeat('<document index="1">\n<source>Returns Policy\n', n)),
    "single-line": ("lint_text .txt", lambda n: _repeat("[1] Returns Policy (score: 0.91) <document> {x} Question: how long? ", n)),
    "sources": ("lint_text .txt", _sources),
    "sources-chat-json": ("lint_text .json", _chat),
    "questions": ("lint_text .txt", lambda n: _repeat("Question: how long do I have?\n", n)),
    "dashes": ("lint_text .txt", lambda n: _repeat("-" * 9999 + "\n", n)),
    "slots": ("lint_text .txt", lambda n: _repeat("{x} " * 20 + "\n", n)),
    "slots-template": ("segment_jinja", lambda n: _repeat("{{ x }} " * 20 + "\n", n)),
    # JSON-shaped sources: ten thousand result objects, and brackets that never close.
    "json-sources": ("lint_text .txt", lambda n: json.dumps({"results": [{"title": "Returns Policy", "score": 0.91, "content": "Damaged goods may be returned."}] * max(1, n // 80)})),
    "json-unclosed": ("lint_text .txt", lambda n: _repeat('{"content": "x", "title": [', n)),
    # Thousands of sources loops, and fixes by the thousand (each used to cost a pass over the text).
    "template-loops": ("lint_text .j2", lambda n: _repeat("{% for doc in docs %}\n[{{ loop.index }}] {{ doc.title }} (score: {{ doc.score }})\n{{ doc.content }}\n{% endfor %}\n", n)),
    "fix-template-loops": ("fix_text .j2", lambda n: _repeat("{% for doc in docs %}\n[{{ loop.index }}] {{ doc.title }} (score: {{ doc.score }})\n{{ doc.content }}\n{% endfor %}\n", n)),
    "fix-sources": ("fix_text .txt", _sources),
    # The question under thousands of `{% if %}`s: each copy is judged against the branches.
    "if-questions": ("lint_text .j2", lambda n: "Answer.\n{{ context }}\n" + _repeat("{% if x %}Question: {{ question }}{% endif %}\n", n)),
    # Suppression directives by the thousand, and a chat of thousands of messages.
    "directives": ("lint_text .j2", lambda n: "Answer.\n" + _repeat("{# promptlint: disable[PL101] #}Question: {{ question }}{# promptlint: enable[PL101] #}\n", n)),
    "chat-messages": ("lint_text .json", lambda n: json.dumps({"messages": [{"role": "user", "content": "[1] Guide (score: 0.9)\nText.\n\nQuestion: why?"}] * max(1, n // 80)})),
}


def _run(entry: str, build: Callable[[int], str], size: int, out) -> None:
    """In the child: build the text, time the entry point on it, send back the seconds or the error."""
    from promptlint.jinja import TemplateError, segment_jinja
    from promptlint.lint import fix_text, lint_text

    function, _, suffix = entry.partition(" ")
    path = "hostile" + suffix

    def target(text: str) -> None:
        try:
            if function == "segment_jinja":
                segment_jinja(text)
            else:
                (fix_text if function == "fix_text" else lint_text)(text, path=path)
        except TemplateError:
            pass

    try:
        target(build(1000))  # loads the vocabularies and the tokenizer before the clock starts
        text = build(size)
        start = time.perf_counter()
        target(text)
    except Exception as exc:  # the bench reports what the linter must never do
        out.send(f"{type(exc).__name__}: {str(exc)[:80]}")
        return
    out.send(time.perf_counter() - start)


def measure(entry: str, build: Callable[[int], str], size: int, limit: float) -> float | str | None:
    """Seconds, an error message, or None when the run passed the time limit."""
    sys.stdout.flush()  # else the forked child, on exiting, prints the parent's pending output again
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_run, args=(entry, build, size, send))
    child.start()
    result = receive.recv() if receive.poll(limit) else None
    child.kill()
    child.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"some of: {', '.join(CASES)} (default: all)")
    parser.add_argument("--scale", type=float, default=1.0, help="size of the small text in MB (the large one is ten times it)")
    parser.add_argument("--limit", type=float, default=300.0, help="seconds a run may take before it is stopped")
    args = parser.parse_args()
    unknown = [name for name in args.cases if name not in CASES]
    if unknown:
        parser.error(f"unknown case: {', '.join(unknown)}")
    small = int(args.scale * MB)
    for name in args.cases or CASES:
        entry, build = CASES[name]
        first = measure(entry, build, small, args.limit)
        # A run that failed or took too long says enough; ten times the text would only take longer.
        second = measure(entry, build, 10 * small, args.limit) if isinstance(first, float) else None
        label = f"{name:<26} {entry:<16}"
        if isinstance(first, str) or isinstance(second, str):
            print(f"{label} error: {first if isinstance(first, str) else second}")
            print(f"warning: {name}: an exception escaped {entry}")
        elif first is None:
            print(f"{label} {args.scale:g} MB > {args.limit:g} s")
            print(f"warning: {name}: {args.scale:g} MB took over {args.limit:g} s")
        elif second is None:
            print(f"{label} {args.scale:g} MB {first:8.3f} s   {10 * args.scale:g} MB > {args.limit:g} s   ratio > {args.limit / first:.1f}")
            print(f"warning: {name}: {10 * args.scale:g} MB took over {args.limit:g} s")
        else:
            ratio = second / first
            print(f"{label} {args.scale:g} MB {first:8.3f} s   {10 * args.scale:g} MB {second:8.3f} s   ratio {ratio:5.1f}")
            if ratio > WARN_RATIO:
                print(f"warning: {name}: ratio {ratio:.1f} over {WARN_RATIO}, super-linear")


if __name__ == "__main__":
    main()
