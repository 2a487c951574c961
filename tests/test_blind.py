"""bench/blind.py: a blind sample is frozen only as its samplers hashed it, and scored as the corpus is."""

from __future__ import annotations

import hashlib
import importlib.util

import pytest
import yaml

from conftest import ROOT

SPEC = importlib.util.spec_from_file_location("bench_blind", ROOT / "bench" / "blind.py")
blind = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(blind)

# A prompt that shows a retrieval score on each source, and a clean one.
SCORED = "Answer from the sources.\n\n[1] Returns (score: 0.91)\nItems may be returned within 30 days.\n\n[2] Shipping (score: 0.42)\nDelivery takes 3-5 days.\n\nQuestion: How long do returns take?\n"
CLEAN = "Answer from the sources.\n\n[1] Returns\nItems may be returned within 30 days.\n\n[2] Shipping\nDelivery takes 3-5 days.\n\nQuestion: How long do returns take?\n"


def _set(folder, name, file, text, repo, expect):
    (folder / "files").mkdir(parents=True, exist_ok=True)
    (folder / "files" / file).write_text(text, encoding="utf-8")
    item = {"file": file, "repo": repo, "path": "prompt.txt", "kind": "assembled", "expect": expect, "allow": [], "advisory": ["missing-title"]}
    manifest = folder / f"manifest-{name}.yaml"
    manifest.write_text(yaml.safe_dump({"items": [item]}), encoding="utf-8")
    lines = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(folder)}" for p in (manifest, folder / "files" / file)]
    (folder / f"HASH-{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def sample(tmp_path):
    folder = tmp_path / "blind99"
    _set(folder, "a", "99a-owner-scored.txt", SCORED, "aowner/rag", ["retrieval-score"])
    _set(folder, "c", "99c-owner-clean.txt", CLEAN, "cowner/rag", ["cache-boundary"])
    return folder


def test_the_sets_are_merged_as_their_samplers_froze_them(sample):
    items = blind.freeze(sample)
    assert [i["file"] for i in items] == ["99a-owner-scored.txt", "99c-owner-clean.txt"]
    assert yaml.safe_load((sample / "files" / "manifest.yaml").read_text(encoding="utf-8"))["items"] == items


def test_a_label_changed_after_the_hash_refuses_the_sample(sample):
    (sample / "manifest-c.yaml").write_text((sample / "manifest-c.yaml").read_text(encoding="utf-8").replace("cache-boundary", "retrieval-score"), encoding="utf-8")
    with pytest.raises(SystemExit, match="manifest-c.yaml: changed after its labels were frozen"):
        blind.freeze(sample)
    assert not (sample / "files" / "manifest.yaml").exists()


def test_an_excluded_or_repeated_repository_refuses_the_sample(sample):
    (sample / "EXCLUDE.txt").write_text("AOwner\n", encoding="utf-8")
    _set(sample, "g", "99g-owner-again.txt", CLEAN, "COwner/RAG", [])
    with pytest.raises(SystemExit) as refused:
        blind.freeze(sample)
    assert str(refused.value).splitlines() == ["cowner/rag: 2 times (one repo a file)", "99a-owner-scored.txt: aowner/rag is excluded"]


def test_the_score_counts_what_fired_against_the_labels(sample, capsys):
    blind.freeze(sample)
    assert blind.score(sample) == (1, 0, 1)
    assert capsys.readouterr().out.splitlines() == [
        "  99c-owner-clean.txt: missed ['cache-boundary'] false []",
        "blind99: precision 1.00, recall 0.50 (found 1, false 0, missed 1) over 2 files (2 assembled)",
    ]


def test_a_brief_names_the_set_its_owners_and_where_to_write(tmp_path):
    text = blind.brief(tmp_path / "blind99", "m", "m, n or o")
    assert "set m" in text.splitlines()[0] and "owner name starts with m, n or o" in text
    assert f"{tmp_path / 'blind99'}/files/` named `99m-<owner>" in text and "{" + "PROJECT}" not in text
