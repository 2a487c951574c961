"""What the structure matrices share: the chunks, the field names no example of the lexicon holds,
the value shapes, and which rule reports a name's concept with a value of a shape."""

from __future__ import annotations

from promptlint.engine.config import build

CONFIG = build({"today": "2026-12-02"}, "test")
METADATA = {"PL102", "PL201", "PL202", "PL203"}

CHUNKS = (
    "Refunds are issued within 14 days of purchase on request.",
    "The Pro plan costs 20 dollars a month and includes five seats.",
    "Annual billing gives two months free on every plan and seat.",
)
QUESTION = "Question: How much is the Pro plan?\n"

# Names no example of the lexicon holds, read by their words; "rank" is both a score's and an ordinal's.
NAMES = {"match": "score", "hit_score": "score", "sim": "score", "rank": "rank", "fetched": "date", "origin_app": "system"}
# The values of the three sources, by shape.
SHAPES = {
    "fraction": ("0.93", "0.81", "0.77"),
    "percent": ("93%", "81%", "77%"),
    "integer": ("1", "2", "3"),
    "date": ("2026-11-20", "2026-11-24", "2026-11-28"),
    "slot": ("{value_1}", "{value_2}", "{value_3}"),
    "name": ("confluence", "notion", "zendesk"),
}
# What reports a name's concept with a value of a shape; a shape not listed is not the concept's.
# PL201 takes any value under a date's name (dates are written in words too: "last week"), with an
# unsafe fix when it cannot read one; the other rules want their concept's shape.
RULES = {
    ("score", "fraction"): "PL102", ("score", "percent"): "PL102", ("score", "integer"): "PL102", ("score", "slot"): "PL102",
    ("rank", "fraction"): "PL102", ("rank", "percent"): "PL102", ("rank", "integer"): "PL203", ("rank", "slot"): "PL203",
    **{("date", shape): "PL201" for shape in SHAPES},
    ("system", "name"): "PL202", ("system", "slot"): "PL202",  # a slot under a system's name prints the system
}
# The cases whose fix is safe and simple: removing each field leaves the bare unit.
SAFE = {key for key in RULES if key[1] in ("fraction", "percent", "integer", "name") and key[0] != "date"} | {("date", "date")}
# The twin's name: a descriptor, which no metadata rule reports.
TWIN = "topic"
