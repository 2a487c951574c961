"""PL402 counts only what no other rule reports: a field the lexicon says is a score or a
date is PL102's or PL201's, however its key is spelt."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

# The fetch dates below are judged against a fixed day, whatever the clock says.
CONFIG = build({"today": "2026-12-02"}, "test")
TEXTS = ["Damaged goods may be returned within 30 days of delivery with proof of purchase.", "We ship within 2 days."]


def _tool_result(extra: dict) -> str:
    results = [{"title": title, **extra, "text": text} for title, text in zip(["Returns Policy", "Shipping FAQ"], TEXTS)]
    messages = [
        {"role": "system", "content": "Answer from the search results."},
        {"role": "user", "content": "Can I return damaged goods?"},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(results)},
    ]
    return json.dumps({"messages": messages})


# Keys whose words the lexicon reads as a date or a score, none of them in a rule's word list.
REPORTED = [
    {"retrieval_timestamp": "2026-11-30T10:22:03Z", "crawl_time": "2026-11-29T08:00:00Z"},
    {"fetchedOn": "2026-11-30T10:22:03Z", "rerankerConfidence": 0.8123},
    {"indexed_at": "2026-11-30T10:22:03Z", "hybrid_similarity": 0.4412},
]


@pytest.mark.parametrize("extra", REPORTED, ids=lambda e: "+".join(e))
def test_fields_another_rule_reports_are_not_counted_again(extra):
    codes = {f.code for f in lint_text(_tool_result(extra), path="tool.json", config=CONFIG)}
    assert "PL402" not in codes and codes & {"PL102", "PL201"}


def test_a_wrapper_heavy_with_fields_no_rule_reports_is_flagged():
    extra = {"internal_routing_label": "knowledge-base-eu-west-primary-replica", "pipeline_stage_name": "hybrid-retrieval-after-dedup-v2"}
    assert [f.code for f in lint_text(_tool_result(extra), path="tool.json", config=CONFIG)] == ["PL402"]


# --- PL402 measures only a wrapper a renderer certainly repeats around retrieved text.

CONTENTS = ["Damaged goods may be returned within 30 days of delivery with proof of purchase and the original box.",
            "Orders ship within two business days of payment, except on public holidays and during stock counts."]
TITLES = ["Returns Policy", "Shipping FAQ"]
# Field names no rule reports and the lexicon's examples do not hold, with slug-shaped values.
FIELD_SETS = [
    {"internal_routing_label": "knowledge-base-eu-west-primary-replica", "pipeline_stage_name": "hybrid-retrieval-after-dedup-v2"},
    {"shard_identifier": "tenant-0042-partition-07-replica-b", "ingest_batch_name": "nightly-confluence-sync-batch-2291"},
]


def _xml(n, fields, content):
    tags = "".join(f"<{k}>{v}</{k}>\n" for k, v in fields.items())
    return f'<document index="{n}">\n<source>{TITLES[n - 1]}</source>\n{tags}<document_content>\n{content}\n</document_content>\n</document>\n'


def _xml_prompt(units):
    return "Answer from the sources and cite them as [n].\n\n<documents>\n" + "".join(units) + "</documents>\n\nQuestion: Can I return damaged goods?\n"


def _json_prompt(units):
    results = [{"title": TITLES[n - 1], **fields, "text": content} for n, (fields, content) in enumerate(units, 1)]
    return _tool_result_of(results)


def _tool_result_of(results):
    messages = [
        {"role": "system", "content": "Answer from the search results."},
        {"role": "user", "content": "Can I return damaged goods?"},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(results)},
    ]
    return json.dumps({"messages": messages})


FORMS = {
    "xml": (lambda units: _xml_prompt([_xml(n, f, c) for n, (f, c) in enumerate(units, 1)]), "t.txt"),
    "json": (_json_prompt, "tool.json"),
}


def _pl402(text, path):
    return [f for f in lint_text(text, path=path, config=CONFIG) if f.code == "PL402"]


def _wrappers_over_budget(text, path):
    """How many sources are read with a wrapper over the budget, whether or not PL402 may measure them."""
    from promptlint.engine.lint import segment_document
    from promptlint.meaning import tokens
    from promptlint.readers import document
    from promptlint.rules.wrapper_overhead import _wrapper

    prompts = segment_document(document.parse_text(text, path, "." + path.rsplit(".", 1)[1], CONFIG.lexicon), CONFIG)
    return sum(tokens.count(_wrapper(p, s, CONFIG.lexicon)) > 25 for p in prompts for s in p.sources)


@pytest.mark.parametrize("fields", FIELD_SETS, ids=lambda f: next(iter(f)))
@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_repeated_heavy_wrapper_fires_and_a_lone_or_unlike_one_does_not(form, fields):
    build_prompt, path = FORMS[form]
    repeated = build_prompt([(fields, CONTENTS[0]), (fields, CONTENTS[1])])
    # One renderer wraps both: one finding, at the first, that counts them.
    found = _pl402(repeated, path)
    assert len(found) == 1 and found[0].message.startswith("2 of 2 sources have a wrapper over the budget of 25 tokens")
    # Twins: one source alone, and two sources whose wrappers share no skeleton; each is read with a heavy wrapper.
    other = FIELD_SETS[1 - FIELD_SETS.index(fields)]
    for twin in (build_prompt([(fields, CONTENTS[0])]), build_prompt([(fields, CONTENTS[0]), (other, CONTENTS[1])])):
        assert _wrappers_over_budget(twin, path) >= 1
        assert _pl402(twin, path) == []


LABELS = ["1. **Assessment and breakdown**:", "EXTRACTED_CONTENT:", "Example Chat History:"]
SENTENCES = {"main_concepts": "cloud computing, provider comparison, pricing tiers and regional availability of services",
             "expected_output": "a comparative table across every provider with a short verdict for each row of it"}


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_label_under_longer_values_is_no_source_content(form, label):
    """An output format or a plan read as sources: the "content" is a label, the values are the text."""
    build_prompt, path = FORMS[form]
    text = build_prompt([(SENTENCES, label), (SENTENCES, label)])
    # In XML the reader already takes the longest text for the content, whatever its element
    # (tests/readers/test_xml_structure.py): no heavy wrapper is read there to begin with.
    assert _wrappers_over_budget(text, path) == (0 if form == "xml" else 2)
    assert _pl402(text, path) == []
    # The twin: real chunk text under the same fields is a source, and its wrapper is measured.
    assert len(_pl402(build_prompt([(SENTENCES, CONTENTS[0]), (SENTENCES, CONTENTS[1])]), path)) == 1


@pytest.mark.parametrize("roles", [("user", "assistant"), ("human", "ai"), ("user", "ai")])
@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_turns_of_an_example_chat_are_no_wrapper(form, roles):
    build_prompt, path = FORMS[form]
    turns = {roles[0]: "Can-I-return-damaged-goods-bought-in-the-winter-sale", roles[1]: "yes-within-thirty-days-with-proof-of-purchase"}
    text = build_prompt([(turns, CONTENTS[0]), (turns, CONTENTS[1])])
    assert _wrappers_over_budget(text, path) == 2
    assert _pl402(text, path) == []
    named = {"requester_handle": turns[roles[0]], "responder_handle": turns[roles[1]]}
    assert len(_pl402(build_prompt([(named, CONTENTS[0]), (named, CONTENTS[1])]), path)) == 1


# A clean prompt in the canonical layout: each header longer than the budget in bytes, so the cheap bound does not clear it.
CANONICAL = (
    "Answer from the sources below and cite each claim as [n].\n\n"
    "[1] Warranty Terms and Conditions — Limits > Eligibility\n" + CONTENTS[0] + "\n\n"
    "[2] Shipping and Delivery FAQ — Escalation > Definitions\n" + CONTENTS[1] + "\n\n"
    "Question: Can I return damaged goods?\n"
)


def test_a_wrapper_written_as_the_canonical_header_is_not_counted(tmp_path):
    """It costs what the canonical header costs, never more: a clean check of it loads no tokenizer."""
    from promptlint.engine.lint import segment_document
    from promptlint.meaning import tokens
    from promptlint.readers import document
    from promptlint.rules.wrapper_overhead import _wrapper

    prompts = segment_document(document.parse_text(CANONICAL, "t.txt", ".txt", CONFIG.lexicon), CONFIG)
    wrappers = [_wrapper(p, s, CONFIG.lexicon) for p in prompts for s in p.sources]
    assert len(wrappers) == 2 and all(tokens.at_most(w) > 25 for w in wrappers)  # the shortcut is what clears them
    code = (
        "import sys\nfrom promptlint.engine.config import build\nfrom promptlint.engine.lint import lint_text\n"
        f"print(lint_text({CANONICAL!r}, path='t.txt', config=build({{}}, 'test')), 'tiktoken' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stdout, done.stderr) == (0, "[] False\n", "")


# Sources whose wrapper grows by one metadata line at a time, over the budget by a little, then by a lot.
EXTRA_LINES = ["Page: 10{n}", "Page: 10{n}\nAuthor: Ministry of Health, region {n}",
               "Page: 10{n}\nAuthor: Ministry of Health, region {n}\nCategory: clinical guidelines, diabetes, volume {n}\n"
               "Tags: diabetes, hba1c, monitoring, targets, guidelines, part {n}"]


def _groundmd(extra):
    blocks = [f"[Source {n}]\nFile: ncg_kenya_diabetes_guidelines_who_202{n}.pdf\n{extra.format(n=n)}\nContent: HbA1c monitoring should be done every 3 to 6 months, chapter {n}."
              for n in (1, 2, 3)]
    return "Answer from the context.\n\nContext:\n" + "\n\n".join(blocks) + "\n\nQuestion: What are the HbA1c targets?\n"


@pytest.mark.parametrize("extra", EXTRA_LINES)
@pytest.mark.parametrize("min_saving", [0, 10, 40])
def test_a_wrapper_is_reported_only_when_rewriting_it_saves_enough(extra, min_saving):
    config = build({"today": "2026-12-02", "rules": {"wrapper-overhead": {"min-saving": min_saving}}}, "test")
    found = [f for f in lint_text(_groundmd(extra), path="t.txt", config=config) if f.code == "PL402"]
    plain = [f for f in lint_text(_groundmd(extra), path="t.txt", config=build({"today": "2026-12-02", "rules": {"wrapper-overhead": {"min-saving": 0}}}, "test")) if f.code == "PL402"]
    # The generated sources' wrappers are alike: each saves a third of what the one finding reports, and the option
    # keeps the finding when that saves enough.
    assert len(plain) == 1 and plain[0].tokens % 3 == 0
    assert [(f.line, f.tokens) for f in found] == ([(plain[0].line, plain[0].tokens)] if plain[0].tokens // 3 >= min_saving else [])


def test_the_saving_threshold_is_reached_both_ways():
    """The generated wrappers reach both sides of the default: one saves fewer than 10 tokens, one more."""
    zero = build({"today": "2026-12-02", "rules": {"wrapper-overhead": {"min-saving": 0}}}, "test")
    savings = {f.tokens // 3 for extra in EXTRA_LINES for f in lint_text(_groundmd(extra), path="t.txt", config=zero) if f.code == "PL402"}
    assert min(savings) < 10 <= max(savings)


# A header line alone that names its source: the document's title and outline as written, in any
# language, with at most a field another rule reports. The twin puts labelled fields no rule reports
# on lines of their own, a renderer's wrapper, which is measured as before.
NAMED = {
    "vietnamese": ("Bộ Luật Dân Sự – Điều 466 (Nghĩa vụ trả nợ của bên vay), Khoản {n}", "Chương XVI Điều 466 quy định nghĩa vụ trả nợ của bên vay."),
    "english": ("Consolidated Consumer Credit Regulations – Part IV (Obligations of borrowers and lenders), Section {n}, Subsection (b)",
                "A borrower who fails to repay on the due date owes interest on the overdue amount."),
}
LABELLED = "Author: Legal Department\nDepartment: Compliance and Risk\nCategory: Consumer lending regulation\nLanguage: English\nAudience: Internal staff only\n"


def _legal(header: str, text: str, lines: str = "") -> str:
    blocks = "\n\n".join(f"[{n}] {header.format(n=n)} (similarity: 0.6{n})\n{lines}{text}" for n in (1, 2, 3))
    return f"Answer only from the context.\n\nCONTEXT:\n{blocks}\n\nQuestion: what interest is owed?\n"


@pytest.mark.parametrize("language", sorted(NAMED))
def test_a_header_line_that_only_names_its_source_is_no_wrapper_overhead(language):
    codes = [f.code for f in lint_text(_legal(*NAMED[language]), path="p.txt", config=CONFIG)]
    assert "PL402" not in codes and codes.count("PL102") == 3


@pytest.mark.parametrize("language", sorted(NAMED))
def test_labelled_fields_no_rule_reports_are_measured_beside_it(language):
    found = [f for f in lint_text(_legal(*NAMED[language], lines=LABELLED), path="p.txt", config=CONFIG) if f.code == "PL402"]
    assert [(f.line, f.message.split(" sources ")[0]) for f in found] == [(4, "3 of 3")]
