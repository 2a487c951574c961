"""Records a search tool prints for each item, as real debug dumps write them (a banner around each item,
then "ID:", "Title:", "URL:", "Date:" and "Content:" and the page's text), read by their structure:

- a banner that is the same on every item ("--- ITEM ---") is the wrapper, not the title: each item's
  "Title:" field is (and PL303/PL301 do not take the banner for one document);
- a heading of its own opens a record, below a section heading ("### Search results");
- records are of one kind when they start alike, so a lone section of another kind ("### Site profile")
  is not one of them;
- under a content label, "Label: value" lines followed by prose are the text's own, not trailing fields;
- a URL on a line of its own ("https://...") is no "https" field.

Each case is crossed with banners, field orders and contents; the clean twins are below.
"""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2025-08-01"}, "test")
BANNERS = {"dashes": ("--- ITEM ---", "--- END ITEM ---"), "equals": ("=== RESULT ===", "=== END RESULT ==="), "tildes": ("~~ Hit ~~", "~~ end ~~")}
TITLES = ["Sales assistant, Okayama", "Call centre staff", "Sewing staff (remote)", "Waste collection driver", "Telephone sales"]
# The page's own text, holding lines that look like fields and a URL on a line of its own.
PAGES = {
    "plain": "We are hiring for the new shop.\nTraining is provided for every new starter.",
    "with labelled lines": "We are hiring for the new shop.\nHours: 9:00 to 18:00\nPay: 1,200 an hour\nTraining is provided for every new starter.",
    "with a url": "We are hiring for the new shop.\nhttps://jobs.example.org/apply\nTraining is provided for every new starter.",
}
SITE = "### Site profile\n- Name: Job forest\n- URL: https://jobs.example.org/\n- Purpose: a job search site.\nIts pages are job offers."


def _dump(banner, page, count=5, dates=None, site=True, same_title=False):
    opening, closing = BANNERS[banner]
    items = []
    for n in range(count):
        date = (dates or ["2025-07-01"] * count)[n]
        title = TITLES[0] if same_title else TITLES[n]
        items.append(f"{opening}\nID: {9000 - n}\nTitle: {title}\nURL: https://jobs.example.org/{9000 - n}/\nDate: {date}\n"
                     f"Content:\n{PAGES[page]}\n{closing}")
    head = "You summarise search results for a job site.\n\n" + (SITE + "\n\n" if site else "")
    return head + "### User query\nAny jobs in care?\n\n### Search results (context data)\n" + "\n\n".join(items) + "\n\nAnswer from the results above.\n"


@pytest.mark.parametrize("banner", sorted(BANNERS))
@pytest.mark.parametrize("page", sorted(PAGES))
@pytest.mark.parametrize("site", [True, False])
def test_each_item_is_one_source_titled_by_its_field(banner, page, site):
    text = _dump(banner, page, site=site)
    prompt = segment_text(text)
    assert [s.title for s in prompt.sources] == TITLES
    for source in prompt.sources:
        content = text[source.content.start : source.content.end]
        assert content.startswith("We are hiring") and "Training is provided" in content
        assert [f.label for f in source.fields] == ["id", "title", "url", "date"]  # no "hours", "pay" or "https"
    codes = {f.code for f in lint_text(text, path="dump.txt", config=CONFIG)}
    assert not codes & {"PL303", "PL301", "PL205"}


@pytest.mark.parametrize("banner", sorted(BANNERS))
def test_items_of_one_title_and_other_ids_are_not_one_document(banner):
    text = _dump(banner, "plain", same_title=True)
    prompt = segment_text(text)
    assert len(prompt.sources) == 5 and {s.title for s in prompt.sources} == {TITLES[0]}
    assert "PL301" not in {f.code for f in lint_text(text, path="dump.txt", config=CONFIG)}
    # The twin: one title and no identifier, apart from each other, is one document's chunks, not grouped.
    twin = ("[1] Returns policy\nDamaged goods may be returned.\n\n[2] Shipping guide\nParcels ship in two days.\n\n"
            "[3] Returns policy\nRefunds take five days.\n\nQuestion: How long do refunds take?\n")
    assert "PL301" in {f.code for f in lint_text(twin, path="t.txt", config=CONFIG)}


# --- PL302: sources whose dates are in order, in an assembled prompt.
NEWEST_FIRST = ["2025-07-31", "2025-07-29", "2025-07-29", "2025-07-07", "2025-05-16"]
UNSORTED = ["2025-07-07", "2025-07-31", "2025-05-16", "2025-07-29", "2025-07-29"]


@pytest.mark.parametrize("banner", sorted(BANNERS))
@pytest.mark.parametrize("order", ["newest first", "oldest first"])
def test_sources_in_the_order_of_their_dates_are_chronological(banner, order):
    dates = NEWEST_FIRST if order == "newest first" else NEWEST_FIRST[::-1]
    text = _dump(banner, "plain", dates=dates)
    found = [(f.line, f.message) for f in lint_text(text, path="dump.txt", config=CONFIG) if f.code == "PL302"]
    assert found == [(text[: text.index(BANNERS[banner][0])].count("\n") + 1,
                      "The 5 sources are in the order of their dates; chronological order ignores relevance (0.87 vs 0.91 for rank order)")]


@pytest.mark.parametrize("banner", sorted(BANNERS))
@pytest.mark.parametrize("dates, count", [
    (UNSORTED, 5),                                                          # not in order
    (NEWEST_FIRST[:4], 4),                                                  # too few to tell from chance
    (["2025-07-31", "2025-07-31", "2025-07-31", "2025-05-16", "2025-05-16"], 5),  # two dates only
    (NEWEST_FIRST[:4] + ["not dated"], 5),                                   # one source with no date
])
def test_dates_that_do_not_show_a_sort_are_not_reported(banner, dates, count):
    text = _dump(banner, "plain", count=count, dates=dates)
    assert "PL302" not in {f.code for f in lint_text(text, path="dump.txt", config=CONFIG)}


def test_a_title_slot_shared_by_a_templates_sources_stays_their_title():
    """The clean twin of the constant banner: "Title: {title}" prints each source's own title."""
    text = "Answer from the articles.\n\n[1] Title: {title}\nURL: {url}\nContent: {text}\n\n[2] Title: {title}\nURL: {url}\nContent: {text}\n\nQuestion: {question}\n"
    assert [s.title for s in segment_text(text).sources] == ["{title}", "{title}"]


BRACKETED = ("Answer the question from the context.\n\nContext:\n\n[Source: returns.pdf]\nItems can be returned within 30 days of "
             "delivery with a receipt.\n\n[Source: shipping.pdf]\nShipping takes five business days for standard orders.\n\n"
             "[Source: warranty.pdf]\nThe warranty covers manufacturing defects for one year.\n\nQuestion: How long do I have to return an item?\n")


def test_a_field_in_brackets_on_a_line_of_its_own_heads_a_record_as_a_field_does():
    # "[SOURCE: 746894995501337991]" (blind89s SapientSapiens), "[Nguồn: KTLT_C02.2_Ham_Coban.pdf]" (blind89a Azerath404).
    prompt = segment_text(BRACKETED)
    assert [[(f.label, f.value) for f in s.fields] for s in prompt.sources] == [[("source", "returns.pdf")], [("source", "shipping.pdf")], [("source", "warranty.pdf")]]
    assert [prompt.text[s.content.start : s.content.end] for s in prompt.sources][1] == "Shipping takes five business days for standard orders."
    # The twin: a note in brackets inside a chunk's prose, once, heads nothing.
    noted = "Answer from the context.\n\nContext:\nItems can be returned within 30 days.\n[Note: EU orders only]\nShipping takes five days.\n\nQuestion: Can I return it?\n"
    assert segment_text(noted).sources == []
