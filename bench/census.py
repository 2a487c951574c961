"""A census of promptlint on real repositories, as a new user meets it: `promptlint check .` at each root.

    python bench/census.py run DIR [DIR ...] --out census.json   # lint each folder, print the tables
    python bench/census.py sample census.json --n 60 --seed 1     # a blinded sample of findings to judge
    python bench/census.py score census.json judged.yaml          # precision of the judged sample, recall
                                                                  # of the hand-read answer prompts

`run` lints each folder with the default settings (`--no-cache`, JSON output) and prints the
findings per rule and per repository, with the time each took and the files that held a prompt.
Findings are counted as a user sees them: a copy of a finding in another file (a record with
`duplicate_of`) is folded into its first place, and counted apart.

`sample` prints findings drawn at random (a fixed seed), each as an id, its location and the
lines around it, but not the rule that fired nor its message: the judge labels what the chapter
says is there before seeing what promptlint said. The judged file is YAML:

    findings:              # one entry per sampled id: the chapter pattern seen there, or none
      3: {pattern: PL102}  # a retrieval score is really there
      7: {pattern: none}   # nothing the chapter names
      9: {pattern: PL201, debatable: true}
    patterns:              # what reading each repository's main answer prompt found
      - {repo: Cinnamon+kotaemon, path: libs/ktem/ktem/reasoning/simple.py, pattern: PL201}

A sampled finding is right when its rule is the pattern judged there; the debatable ones are
counted apart. A judged sample pairs with the census it was drawn from (its ids are places in it). A pattern is found when promptlint reports that rule in that file.

    python bench/census.py labels census.json labels-A.yaml [labels-B.yaml ...]   # judge by files labelled

`labels` judges the census against files labelled by reading before anything ran (judges given
bench/census-brief.md: each file with a finding, among others that have none, its prompts by line
range with the rules the chapter says must fire there, `expect`, or may, `allow`; and each
repository's main answer prompt). A finding is right when its rule is expected in the prompt whose
lines hold it (give or take LABEL_SLACK lines: a range is the reader's), debatable when allowed,
wrong otherwise, in a file that holds no prompt too; a finding of an unlabelled file is counted
apart. A main prompt's expected rule is found when promptlint reports it in that file or in one of
its `related` files; a second count adds the places the labeller's evidence for that rule cites (`cited`:
"/repo/path.py:826-828", taken from the evidence text by file name and line, give or take LABEL_SLACK lines), since
the brief asks for the prompt "with the code that renders the sources into it" and the evidence names that code.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import yaml

PROMPTLINT = str(Path(sys.executable).with_name("promptlint"))
CONTEXT_LINES = 3


def run(folders: list[Path], out: Path) -> None:
    census = []
    for folder in folders:
        started = time.perf_counter()
        done = subprocess.run(
            [PROMPTLINT, "check", "--no-cache", "--exit-zero", "--output-format", "json", "."],
            cwd=folder, capture_output=True, text=True,
        )
        seconds = time.perf_counter() - started
        findings = json.loads(done.stdout or "[]")
        census.append({"repo": folder.name, "root": str(folder.resolve()), "seconds": round(seconds, 1),
                       "findings": findings, "stderr": done.stderr.splitlines()[-3:]})
    out.write_text(json.dumps(census, indent=1), encoding="utf-8")
    _print_tables(census)


def _causes(findings: list[dict]) -> list[dict]:
    """The findings a user is shown: a copy of a finding in another file (its `duplicate_of`) is folded."""
    return [f for f in findings if not f.get("duplicate_of")]


def _print_tables(census: list[dict]) -> None:
    codes = sorted({f["code"] for repo in census for f in repo["findings"]})
    print("| repository | seconds | files with findings | findings | folded copies | " + " | ".join(codes) + " |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(codes))
    totals = collections.Counter()
    folded = 0
    for repo in census:
        causes = _causes(repo["findings"])
        per_code = collections.Counter(f["code"] for f in causes)
        totals.update(per_code)
        folded += len(repo["findings"]) - len(causes)
        files = len({f["path"] for f in repo["findings"]})
        cells = " | ".join(str(per_code.get(c, 0)) for c in codes)
        print(f"| {repo['repo']} | {repo['seconds']} | {files} | {len(causes)} | {len(repo['findings']) - len(causes)} | {cells} |")
    print(f"| all | | | {sum(totals.values())} | {folded} | " + " | ".join(str(totals[c]) for c in codes) + " |")


def _numbered(census: list[dict]):
    """Every finding shown with a stable id: its place among them in the census (copies folded)."""
    n = 0
    for repo in census:
        for finding in _causes(repo["findings"]):
            n += 1
            yield n, repo, finding


def sample(census_file: Path, n: int, seed: int) -> None:
    census = json.loads(census_file.read_text(encoding="utf-8"))
    everything = list(_numbered(census))
    for number, repo, finding in sorted(random.Random(seed).sample(everything, min(n, len(everything))), key=lambda x: x[0]):
        path = Path(repo["root"]) / finding["path"]
        print(f"## {number}: {repo['repo']} {finding['path']}:{finding['line']}:{finding['column']}")
        print("```")
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        first = max(0, finding["line"] - 1 - CONTEXT_LINES)
        for i in range(first, min(len(lines), finding["end_line"] + CONTEXT_LINES)):
            mark = ">" if finding["line"] - 1 <= i < finding["end_line"] else " "
            print(f"{mark}{i + 1:5} {lines[i][:240]}")
        print("```\n")


def score(census_file: Path, judged_file: Path) -> None:
    census = json.loads(census_file.read_text(encoding="utf-8"))
    judged = yaml.safe_load(judged_file.read_text(encoding="utf-8"))
    by_id = {number: finding for number, _, finding in _numbered(census)}
    verdicts = collections.Counter()
    for number, label in (judged.get("findings") or {}).items():
        if int(number) not in by_id:
            sys.exit(f"{judged_file}: finding {number} is not in {census_file}: a judged sample pairs with the census it was drawn from")
        verdict = "right" if label["pattern"] == by_id[int(number)]["code"] else "wrong"
        verdicts[verdict, bool(label.get("debatable"))] += 1
    print(
        f"judged findings: {verdicts['right', False]} right, {verdicts['wrong', False]} wrong, and debatable "
        f"{verdicts['right', True]} right, {verdicts['wrong', True]} wrong, of {sum(verdicts.values())}"
    )
    reported = {(repo["repo"], f["path"], f["code"]) for repo in census for f in repo["findings"]}
    patterns = judged.get("patterns") or []
    found = [p for p in patterns if (p["repo"], p["path"], p["pattern"]) in reported]
    print(f"answer-prompt patterns: {len(found)} of {len(patterns)} found")
    for p in patterns:
        print(f"  {'found ' if p in found else 'missed'} {p['repo']} {p['path']} {p['pattern']}")


# How many lines outside a labelled prompt's range a finding may stand and still be in it.
LABEL_SLACK = 3
ADVISORY = frozenset({"missing-heading-path", "missing-title", "whole-document-escalation", "context-budget", "unconditional-field"})


def judged_by_labels(census: list[dict], labels: list[dict]) -> tuple[collections.Counter, list[str]]:
    """Each finding's verdict against the files labelled (advisory rules and folded copies aside), and
    one line for each that is not right."""
    prompts = {f["file"]: f.get("prompts") or [] for label in labels for f in label["files"]}
    verdicts, lines = collections.Counter(), []
    for repo in census:
        for finding in _causes(repo["findings"]):
            if finding["name"] in ADVISORY:
                continue
            path = str(Path(repo["root"]) / finding["path"])
            if path not in prompts:
                verdict = "unlabelled"
            else:
                around = [p for p in prompts[path] if p["lines"][0] - LABEL_SLACK <= finding["line"] <= p["lines"][1] + LABEL_SLACK]
                allowed = {rule for p in around for rule in p.get("allow") or []}
                verdict = "right" if any(finding["name"] in (p.get("expect") or []) for p in around) else "debatable" if finding["name"] in allowed else "wrong"
            verdicts[verdict] += 1
            if verdict != "right":
                lines.append(f"  {verdict:10} {repo['repo']} {finding['path']}:{finding['line']} {finding['code']} {finding['message'][:100]}")
    return verdicts, lines


def main_prompts_found(census: list[dict], labels: list[dict]) -> list[tuple[dict, str, bool, bool]]:
    """Each rule expected in a main answer prompt; whether promptlint reports it in its file or a related one, and
    whether it does so there or at a place the labeller's evidence cites for that rule."""
    reported = {(str(Path(repo["root"]) / f["path"]), f["name"], f["line"]) for repo in census for f in repo["findings"]}
    # A related file may be written with its lines and a note, "/repo/path.js:38-39 (default system prompt)", or as a
    # mapping, {file: /repo/path.js, lines: [38, 39], what: ...}.
    related = lambda main: [entry["file"] if isinstance(entry, dict) else re.match(r"[^\s:]+", entry)[0] for entry in main.get("related") or []]  # noqa: E731

    def in_files(main: dict, rule: str) -> bool:
        return any((path, rule) == (where, name) for path in [main["file"], *related(main)] for where, name, _ in reported)

    def at_cited(main: dict, rule: str) -> bool:
        return any(_at(place, rule, reported) for place in (main.get("cited") or {}).get(rule) or [])

    return [
        (main, rule, in_files(main, rule), in_files(main, rule) or at_cited(main, rule))
        for label in labels
        for main in label.get("main_prompts") or []
        for rule in main.get("expect") or []
    ]


def _at(place: str, rule: str, reported: set[tuple[str, str, int]]) -> bool:
    """Whether ``rule`` is reported at a cited place, "/repo/path.py:826-828" (give or take LABEL_SLACK) or "/repo/path.md"."""
    path, _, lines = place.partition(":")
    first, _, last = lines.partition("-")
    return any(where == path and name == rule and (not lines or int(first) - LABEL_SLACK <= line <= int(last) + LABEL_SLACK)
               for where, name, line in reported)


def labelled(census_file: Path, label_files: list[Path]) -> None:
    census = json.loads(census_file.read_text(encoding="utf-8"))
    labels = [yaml.safe_load(f.read_text(encoding="utf-8")) for f in label_files]
    verdicts, lines = judged_by_labels(census, labels)
    judged = verdicts["right"] + verdicts["debatable"] + verdicts["wrong"]
    print(f"findings judged: {verdicts['right']} right, {verdicts['debatable']} debatable, {verdicts['wrong']} wrong of {judged}"
          f" ({verdicts['unlabelled']} in files not labelled)")
    print("\n".join(lines))
    found = main_prompts_found(census, labels)
    print(f"main answer prompts: {sum(hit for _, _, hit, _ in found)} of {len(found)} expected patterns found in their files,"
          f" {sum(cited for *_, cited in found)} counting the places the evidence cites")
    for main, rule, hit, cited in found:
        print(f"  {'found ' if hit else 'cited ' if cited else 'missed'} {main['repo']} {Path(main['file']).name} {rule}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run")
    run_parser.add_argument("folders", nargs="+", type=Path)
    run_parser.add_argument("--out", type=Path, required=True)
    sample_parser = commands.add_parser("sample")
    sample_parser.add_argument("census", type=Path)
    sample_parser.add_argument("--n", type=int, default=60)
    sample_parser.add_argument("--seed", type=int, default=1)
    score_parser = commands.add_parser("score")
    score_parser.add_argument("census", type=Path)
    score_parser.add_argument("judged", type=Path)
    labels_parser = commands.add_parser("labels")
    labels_parser.add_argument("census", type=Path)
    labels_parser.add_argument("labels", nargs="+", type=Path)
    args = parser.parse_args()
    if args.command == "run":
        run(args.folders, args.out)
    elif args.command == "sample":
        sample(args.census, args.n, args.seed)
    elif args.command == "labels":
        labelled(args.census, args.labels)
    else:
        score(args.census, args.judged)


if __name__ == "__main__":
    main()
