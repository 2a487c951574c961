"""A blind sample of real prompts, as issue 28 measures promptlint: drawn and labelled by others, frozen, scored once.

    python bench/blind.py brief DIR --set a --owners "a digit, a or b"   # a sampler's brief, from bench/blind-brief.md
    python bench/blind.py freeze DIR                                     # check every set's hash, merge the manifests
    python bench/blind.py score DIR [--promptlint BIN]                   # precision and recall, with each file's misses

A sample lives in a folder of its own, outside the project (its files are other people's): each sampler (a helper
given a brief) saves its files under DIR/files/, labels them by reading only in DIR/manifest-SET.yaml, and freezes
both with `sha256sum manifest-SET.yaml files/NNSET-* > HASH-SET.txt`. `freeze` refuses a sample whose hashes do not
match, whose files or repositories repeat, or whose repository is listed in DIR/EXCLUDE.txt (an owner or owner/name a
line), and writes DIR/files/manifest.yaml. `score` judges as ../shared/tools/corpus_score.py does: `expect` must fire,
`allow` and `advisory` may, any other rule that fires is false; the advisory rules are never counted.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import yaml

PROMPTLINT = str(Path(sys.executable).with_name("promptlint"))
BRIEF = Path(__file__).with_name("blind-brief.md")
PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared"
ADVISORY = frozenset({"missing-heading-path", "missing-title", "whole-document-escalation", "context-budget", "unconditional-field"})


def brief(folder: Path, name: str, owners: str) -> str:
    """The brief of one sampler: the template with the sample's folder and number (`blind68` numbers its files 68),
    the set's name, its share of owners, and where the project and the chapter are."""
    filled = {"{DIR}": str(folder), "{NN}": folder.name.removeprefix("blind"), "{SET}": name, "{OWNERS}": owners,
              "{PROJECT}": str(PROJECT), "{SHARED}": str(SHARED)}
    text = BRIEF.read_text(encoding="utf-8")
    for placeholder, value in filled.items():
        text = text.replace(placeholder, value)
    return text


def freeze(folder: Path) -> list[dict]:
    """The sample's items, every set's hash checked; a list of the problems found instead, as SystemExit."""
    problems, items = [], []
    for manifest in sorted(folder.glob("manifest-*.yaml")):
        name = manifest.stem.removeprefix("manifest-")
        problems += _hash_problems(folder, folder / f"HASH-{name}.txt")
        items += yaml.safe_load(manifest.read_text(encoding="utf-8"))["items"]
    if not items:
        problems.append(f"{folder}: no manifest-*.yaml")
    problems += _repeats(items, "file") + _repeats([{"repo": i["repo"].lower()} for i in items], "repo")
    problems += [f"{folder / 'files' / i['file']}: missing" for i in items if not (folder / "files" / i["file"]).is_file()]
    excluded = _excluded(folder)
    problems += [f"{i['file']}: {i['repo']} is excluded" for i in items if {i["repo"].lower(), i["repo"].split("/")[0].lower()} & excluded]
    if problems:
        raise SystemExit("\n".join(problems))
    (folder / "files" / "manifest.yaml").write_text(yaml.safe_dump({"items": items}, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return items


def _hash_problems(folder: Path, hashes: Path) -> list[str]:
    if not hashes.is_file():
        return [f"{hashes}: missing: the set's labels are not frozen"]
    problems = []
    for line in hashes.read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        path = folder / name
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            problems.append(f"{path}: changed after its labels were frozen ({hashes.name})")
    return problems


def _repeats(items: list[dict], key: str) -> list[str]:
    counts = collections.Counter(i[key] for i in items)
    return [f"{value}: {count} times (one {key} a file)" for value, count in counts.items() if count > 1]


def _excluded(folder: Path) -> set[str]:
    listed = folder / "EXCLUDE.txt"
    return {line.strip().lower() for line in listed.read_text(encoding="utf-8").splitlines() if line.strip()} if listed.is_file() else set()


def score(folder: Path, promptlint: str = PROMPTLINT) -> tuple[int, int, int]:
    """Found, false and missed over the frozen sample, each file's misses and false findings printed."""
    items = yaml.safe_load((folder / "files" / "manifest.yaml").read_text(encoding="utf-8"))["items"]
    paths = [str(folder / "files" / i["file"]) for i in items]
    done = subprocess.run([promptlint, "check", "--no-cache", "--exit-zero", "--output-format", "json", *paths], capture_output=True, text=True)
    fired = collections.defaultdict(set)
    for finding in json.loads(done.stdout or "[]"):
        fired[Path(finding["path"]).name].add(finding["name"])
    totals = [0, 0, 0]
    for item in items:
        wanted = set(item.get("expect") or [])
        may = wanted | set(item.get("allow") or []) | set(item.get("advisory") or [])
        got = fired[item["file"]] - ADVISORY
        found, false, missed = got & wanted, got - may, wanted - got
        totals = [totals[0] + len(found), totals[1] + len(false), totals[2] + len(missed)]
        if false or missed:
            print(f"  {item['file']}: missed {sorted(missed)} false {sorted(false)}")
    found, false, missed = totals
    precision = found / (found + false) if found + false else 1.0
    recall = found / (found + missed) if found + missed else 1.0
    print(f"{folder.name}: precision {precision:.2f}, recall {recall:.2f} (found {found}, false {false}, missed {missed}) over {_kinds(items)}")
    return found, false, missed


def _kinds(items: list[dict]) -> str:
    kinds = collections.Counter(i.get("kind") for i in items)
    return f"{len(items)} files ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items(), key=str))})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("brief")
    write.add_argument("folder", type=Path)
    write.add_argument("--set", required=True)
    write.add_argument("--owners", required=True, help='the owners the set draws from, in words ("c, d, e or f")')
    commands.add_parser("freeze").add_argument("folder", type=Path)
    judge = commands.add_parser("score")
    judge.add_argument("folder", type=Path)
    judge.add_argument("--promptlint", default=PROMPTLINT)
    args = parser.parse_args()
    if args.command == "brief":
        print(brief(args.folder.resolve(), args.set, args.owners), end="")
    elif args.command == "freeze":
        print(f"{_kinds(freeze(args.folder))} frozen; {args.folder / 'files' / 'manifest.yaml'} written")
    else:
        score(args.folder, args.promptlint)


if __name__ == "__main__":
    main()
