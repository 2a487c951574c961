"""Findings are what they were, byte for byte: a speed-up must not change one.

The sets: the labelled corpus in ../shared/corpus, every fixture, a small corpus and a
realistic request log generated as bench/run.py generates its inputs. Each file's
findings are linted as `check --no-cache --jobs 1` lints them (every rule selected, a
fixed day), and kept in tests/snapshots/findings/ as one line per finding (where, the
rule, its token cost, its fix) and a digest of every field of them all (the message,
the spans, the context, the fix's edits and regions), so a change to any of them shows
as a diff of the file it is in. The audit's report is kept whole.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import pytest

from conftest import ROOT
from promptlint.audit import run as audit_run
from promptlint.engine import parallel
from promptlint.engine.config import build
from promptlint.output.auditreport import as_data

SNAPSHOTS = ROOT / "tests" / "snapshots" / "findings"
CORPUS = ROOT.parent / "shared" / "corpus"
CONFIG = build({"today": "2026-12-02", "select": ["PL"]}, "findings")


def _bench_corpus():
    spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "bench" / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line(finding) -> str:
    fix = f" fix {finding.fix.applicability.name.lower()} of {len(finding.fix.edits)}" if finding.fix else ""
    return f"{finding.line}:{finding.column} {finding.code} {finding.tokens}{fix}"


def _findings(root: Path, files: list[Path]) -> dict:
    """Each file's findings, named from ``root``, as `check` finds them in one process."""
    checked = parallel.check_files([(path, CONFIG) for path in files], None, None, 1)
    out = {}
    for path, result in zip(files, checked):
        findings = [repr(finding).replace(str(root), "<root>") for finding in result.findings]
        name = str(path.relative_to(root))
        out[name] = {"digest": hashlib.sha256("\n".join(findings).encode("utf-8")).hexdigest()[:16], "findings": [_line(f) for f in result.findings], "unreadable": result.unreadable.replace(str(root), "<root>")}
    assert len(out) == len(files)  # every file was linted
    return out


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not beside this checkout")
def test_the_corpus_findings_are_unchanged(snapshots):
    files = sorted(p for p in CORPUS.iterdir() if p.is_file() and p.name != "manifest.yaml")
    assert len(files) >= 100
    snapshots.check(SNAPSHOTS / "corpus.snap.yaml", _findings(CORPUS, files))


def test_the_fixture_findings_are_unchanged(snapshots):
    files = sorted(p for p in (ROOT / "fixtures").rglob("*") if p.is_file())
    assert len(files) >= 200
    snapshots.check(SNAPSHOTS / "fixtures.snap.yaml", _findings(ROOT / "fixtures", files))


def test_the_bench_corpus_findings_are_unchanged(tmp_path, snapshots):
    files = _bench_corpus().make(tmp_path, 60, seed=11)
    found = _findings(tmp_path, files)
    # It reaches what it guards: most files have findings, of several rules.
    assert sum(bool(f["findings"]) for f in found.values()) >= 30
    assert len({line.split()[1] for f in found.values() for line in f["findings"]}) >= 8
    snapshots.check(SNAPSHOTS / "bench-corpus.snap.yaml", found)


def _log(tmp_path: Path) -> Path:
    import random

    corpus, r = _bench_corpus(), random.Random(5)
    log = tmp_path / "log.jsonl"
    log.write_text("".join(corpus.rag_request(r, n % 4 == 0) for n in range(80)), encoding="utf-8")
    return log


def test_the_audit_report_is_unchanged(tmp_path, snapshots):
    log = _log(tmp_path)
    tally = audit_run.audit([log], CONFIG, jobs=1)
    report = as_data(tally, ["log.jsonl"])
    assert report["prompts"] == 80 and len(report["rules"]) >= 5
    snapshots.check(SNAPSHOTS / "audit.snap.yaml", report)
