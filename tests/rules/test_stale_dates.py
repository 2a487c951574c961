"""PL201 when every date on the sources has gone stale: a renderer that prints a date on every
source still does, whatever the clock says when the prompt is read (a logged prompt a year on);
only dates written as stale notes, the recommended form, are left alone. Generated over label
forms and ages, each with a twin in the recommended form."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02"}, "test")
HEADERS = {
    "line": "[{n}] {title}\nDate: {date}\n",
    "inline": "[{n}] {title} (updated {date})\n",
    "published": "[{n}] {title} (published: {date})\n",
}
DATES = {"a year and a half old": ["2025-06-22", "2025-05-02", "2025-04-30"], "ten years old": ["2016-01-04", "2015-11-30", "2015-03-08"]}
TITLES = ["Returns Policy", "Shipping FAQ", "Warranty Terms"]


def _prompt(header: str, dates: list[str]) -> str:
    blocks = "\n".join(header.format(n=n, title=title, date=date) + f"Text of {title.lower()}.\n" for n, (title, date) in enumerate(zip(TITLES, dates), 1))
    return f"Answer from the sources and cite them as [n].\n\n{blocks}\nQuestion: How long do I have?\n"


@pytest.mark.parametrize("header", sorted(HEADERS))
@pytest.mark.parametrize("age", sorted(DATES))
def test_a_date_on_every_source_is_reported_when_all_have_gone_stale(header, age):
    text = _prompt(HEADERS[header], DATES[age])
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL201"] == ["PL201"] * 3
    # The fix keeps each date, as the stale note it now is; unsafe, as the renderer may show dates only when stale.
    assert fix_text(text, path="p.txt", config=CONFIG) == text
    fixed = fix_text(text, path="p.txt", config=CONFIG, unsafe=True)
    assert [f"(last updated {date})" in fixed for date in DATES[age]] == [True] * 3


@pytest.mark.parametrize("age", sorted(DATES))
def test_stale_notes_on_every_source_are_the_recommended_form(age):
    text = _prompt("[{n}] {title} (last updated {date})\n", DATES[age])
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL201"] == []


# Mixed ages: one fresh date, two stale. The safe fix removes the fresh one and writes the stale ones as
# "(last updated ...)" only when the label says the date is an update; a filing or publication date so
# rewritten would say something the source did not (blind53a anthcon: "Filed: 2024-02-02").
MIXED = ["2026-10-01", "2024-02-02", "2023-01-31"]


@pytest.mark.parametrize(("label", "safe"), [("Updated", True), ("Last modified", True), ("Filed", False), ("Published", False), ("Created", False)])
def test_a_stale_date_becomes_an_update_note_only_when_it_is_one(label, safe):
    text = _prompt(f"[{{n}}] {{title}} | {label}: {{date}}\n", MIXED)
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL201"] == ["PL201"] * 3
    rewritten = text.replace(f" | {label}: 2026-10-01", "").replace(f" | {label}: 2024-02-02", " (last updated 2024-02-02)")
    rewritten = rewritten.replace(f" | {label}: 2023-01-31", " (last updated 2023-01-31)")
    assert fix_text(text, path="p.txt", config=CONFIG) == (rewritten if safe else text)
    assert fix_text(text, path="p.txt", config=CONFIG, unsafe=True) == rewritten


def _xml(tag: str, dates: list[str]) -> str:
    documents = "".join(f'<document index="{n}">\n<source>{title}</source>\n<{tag}>{date}</{tag}>\n<document_content>\nText of {title.lower()}.\n</document_content>\n</document>\n'
                        for n, (title, date) in enumerate(zip(TITLES, dates), 1))
    return f"Answer from the sources and cite them as [n].\n\n<documents>\n{documents}</documents>\n\nQuestion: How long do I have?\n"


@pytest.mark.parametrize("age", sorted(DATES))
def test_a_stale_date_in_an_element_is_kept_as_a_note_and_the_fix_settles(age):
    """In XML the note is written inside the element; `<last_updated>` with the date alone says the same already.
    Before, the fix wrote the note again on every pass and never settled (a generated case of test_properties)."""
    assert [f.code for f in lint_text(_xml("last_updated", DATES[age]), path="p.txt", config=CONFIG) if f.code == "PL201"] == []
    text = _xml("published", DATES[age])
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL201"] == ["PL201"] * 3
    fixed = fix_text(text, path="p.txt", config=CONFIG, unsafe=True)
    assert fixed == text.replace("<published>", "<published>last updated ")
    assert fix_text(fixed, path="p.txt", config=CONFIG, unsafe=True) == fixed
    assert [f.code for f in lint_text(fixed, path="p.txt", config=CONFIG) if f.code == "PL201"] == []


@pytest.mark.parametrize("label", ["Effective Date", "As of", "Year"])
def test_a_date_the_document_may_state_is_reported_but_never_removed_by_a_safe_fix(label):
    # A policy's "Effective Date: January 27, 2026" (a governance document on the mirrors) is the policy's own fact.
    dates = ["2026-06-01", "2026-07-15", "2026-09-30"] if label != "Year" else ["2026", "2025", "2026"]
    text = _prompt(f"[{{n}}] {{title}}\n{label}: {{date}}\n", dates)
    assert [f.code for f in lint_text(text, path="p.txt", config=CONFIG) if f.code == "PL201"] == ["PL201"] * 3
    assert fix_text(text, path="p.txt", config=CONFIG) == text
    # The twin: a date the source was updated on is its metadata, and the safe fix removes it.
    updated = _prompt("[{n}] {title}\nUpdated: {date}\n", ["2026-06-01", "2026-07-15", "2026-09-30"])
    assert "Updated:" not in fix_text(updated, path="p.txt", config=CONFIG)
