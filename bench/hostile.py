"""Hostile input: the time and memory to lint must grow linearly with the size of the text.

Each case builds 1 MB and 10 MB of pathological text and times one entry point
on it: promptlint.engine.lint.lint_text (or fix_text, for fixes by the thousand) for
text, promptlint.readers.jinja.segment_jinja for Jinja-ish text, or the installed
``promptlint check --no-cache`` in one output format (``check FORMAT``: the text
written to a file; ``check-files``: the text cut into files of about 500 bytes, a
folder of them). Ten times the text should take about ten times as long; a
ratio over 20 prints a warning line, as does an exception (a template that does
not parse is a TemplateError, which is an answer, not a failure). Each run is in
a child process with a time limit (--limit), so a super-linear case cannot hang
the bench: a run stopped there prints a warning line too. The peak memory is that
child's (for ``check``, that of the largest promptlint process, workers included:
the resident size, from getrusage), and its ratio is printed beside the time's.

    python bench/hostile.py                    # every case, 1 MB and 10 MB
    python bench/hostile.py --scale 0.1        # 100 kB and 1 MB, for a quick look
    python bench/hostile.py sources slots      # some cases
    python bench/hostile.py --scale 2 dated-json   # one output format, 2 MB and 20 MB
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from promptlint.output.report import FORMATS

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


def _dated(size: int) -> str:
    """Sources that are dated and scored, about 120 characters each: ten thousand PL201 findings a MB, which share one fix."""
    parts, length, n = [], 0, 0
    while length + 120 <= size:
        n += 1
        part = f"[{n}] Returns Policy \u2014 Returns > Damaged goods (updated 2026-11-{n % 28 + 1:02d}) (score: 0.91)\nDamaged goods may be returned.\n\n"
        parts.append(part)
        length += len(part)
    return "Answer from the sources and cite them as [n].\n\n" + "".join(parts) + "Question: How long do I have?\n"


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
    # Static instructions after a timestamp, thirty-two thousand lines a MB (PL305 numbers each line).
    # Read as sources only when nothing else is: every line a fact with a dated group, and lines of parentheses.
    "fact-lists": ("lint_text .txt", lambda n: _repeat("- {edge.fact} ({edge.valid_at} - {edge.invalid_at})\n", n)),
    "bullet-parens": ("lint_text .txt", lambda n: _repeat("- " + "(" * 200 + "x" + ")" * 199 + "\n", n)),
    "mapping-metadata": ("lint_text .txt", lambda n: _repeat("Result 1\nContent: {c}\nMetadata: {" + "'chunk_id': 'c1', " * 20 + "'k': 'v'}\n", n)),
    "static-lines": ("lint_text .txt", lambda n: "Today's date is 2026-12-02.\n" + _repeat("Answer only from the sources.\n", n)),
    # Lines of one skeleton by the ten thousand, and one line of as many cells.
    "skeleton-records": ("lint_text .txt", lambda n: "## Sources\n\n" + "".join(
        f"- [{i}] Pricing ({i % 90 / 100:.2f}, 2026-11-20): The Pro plan number {i} costs 20 dollars a month.\n" for i in range(max(2, n // 90)))),
    "skeleton-cells": ("lint_text .txt", lambda n: _repeat("Pricing / (match: 0.9, 2026-11-20) | ", n)),
    "skeleton-interleaved": ("lint_text .txt", lambda n: "## Sources\n" + _repeat(
        "Pricing | match: 0.9\nThe Pro plan costs 20 dollars a month.\nRefunds / fetched: 2026-11-20\nRefunds are issued within 14 days.\n", n)),
    # Dated, scored sources through the whole command, in every output format: the findings
    # share one fix of as many edits, which each finding used to carry.
    **{f"dated-{fmt}": (f"check {fmt}", _dated) for fmt in FORMATS},
    # Two thousand files a MB, each with two dated, scored sources: memory must not grow with the files.
    "many-files": ("check-files full", lambda n: _dated(400) * max(1, n // len(_dated(400)))),
}

# Files of a check-files case: its text cut at the start of each prompt, 100 files a folder.
FILE_START = "Answer from the sources"


def _command(entry: str, text: str, folder: Path) -> list[str]:
    """The promptlint command a ``check`` case runs, its input written under ``folder``."""
    function, _, fmt = entry.partition(" ")
    target = folder / "prompts"
    if function == "check-files":
        prompts = [FILE_START + piece for piece in text.split(FILE_START)[1:]]
        for n, prompt in enumerate(prompts):
            path = target / f"part{n // 100:04d}" / f"prompt{n:06d}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(prompt, encoding="utf-8")
    else:
        target = folder / "hostile.txt"
        target.write_text(text, encoding="utf-8")
    executable = Path(sys.executable).with_name("promptlint")
    return [str(executable), "check", "--no-cache", "--output-format", fmt, str(target)]


def _check(entry: str, text: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        command = _command(entry, text, Path(folder))
        start = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=folder)
        seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(done.stderr.decode("utf-8", "replace").strip().splitlines()[-1])
    return seconds


def _run(entry: str, build: Callable[[int], str], size: int, out) -> None:
    """In the child: build the text, time the entry point on it, send back the seconds and peak KiB, or the error."""
    if entry.startswith("check"):
        try:
            seconds = _check(entry, build(size))
        except Exception as exc:  # the bench reports what the linter must never do
            out.send(f"{type(exc).__name__}: {str(exc)[:80]}")
            return
        out.send((seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
        return
    from promptlint.engine.lint import fix_text, lint_text
    from promptlint.readers.jinja import TemplateError, segment_jinja

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
    out.send((time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))


def measure(entry: str, build: Callable[[int], str], size: int, limit: float) -> tuple[float, int] | str | None:
    """Seconds and peak KiB, an error message, or None when the run passed the time limit."""
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
        second = measure(entry, build, 10 * small, args.limit) if isinstance(first, tuple) else None
        label = f"{name:<26} {entry:<18}"
        if isinstance(first, str) or isinstance(second, str):
            print(f"{label} error: {first if isinstance(first, str) else second}")
            print(f"warning: {name}: an exception escaped {entry}")
        elif first is None:
            print(f"{label} {args.scale:g} MB > {args.limit:g} s")
            print(f"warning: {name}: {args.scale:g} MB took over {args.limit:g} s")
        elif second is None:
            print(f"{label} {args.scale:g} MB {first[0]:8.3f} s   {10 * args.scale:g} MB > {args.limit:g} s   ratio > {args.limit / first[0]:.1f}")
            print(f"warning: {name}: {10 * args.scale:g} MB took over {args.limit:g} s")
        else:
            ratio = second[0] / first[0]
            memory = f"{first[1] / 1024:6.0f} MiB -> {second[1] / 1024:6.0f} MiB ({second[1] / first[1]:4.1f}x)"
            print(f"{label} {args.scale:g} MB {first[0]:8.3f} s   {10 * args.scale:g} MB {second[0]:8.3f} s   ratio {ratio:5.1f}   peak {memory}")
            if ratio > WARN_RATIO:
                print(f"warning: {name}: ratio {ratio:.1f} over {WARN_RATIO}, super-linear")


if __name__ == "__main__":
    main()
