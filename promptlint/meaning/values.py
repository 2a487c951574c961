"""What a field's value is by its shape: a number (a percentage read as a fraction), a
calendar date, or an id a store assigned. The lexicon says what a label means; these say what a value looks like,
which is evidence of its own (a fraction on every source is a score)."""

from __future__ import annotations

import datetime
import re

# A decimal comma, as most of Europe writes one ("0,91"), is a decimal point; three digits after a comma after a
# whole number ("1,234") are thousands.
_NUMBER = re.compile(r"[-+]?(?:\d+,\d+|\d+(?:\.\d*)?|\.\d+)(?:\s*%)?")


def number(value: str) -> float | None:
    """The leading number of a field value; a percentage reads as a fraction."""
    match = _NUMBER.match(value.strip())
    if not match:
        return None
    text = match.group(0)
    whole, comma, rest = text.partition(",")
    if comma:
        digits = len(rest.rstrip("% \t"))
        text = whole + rest if digits == 3 and whole.lstrip("-+") != "0" else f"{whole}.{rest}"
    if text.endswith("%"):
        return float(text[:-1].strip()) / 100
    return float(text)


_MONTHS = "january february march april may june july august september october november december".split()
_MONTH = r"(?P<month>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_FORMS = [
    re.compile(r"(?P<year>\d{4})[-/.](?P<mon>\d{1,2})[-/.](?P<day>\d{1,2})"),
    re.compile(_MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})"),
    re.compile(r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(?P<year>\d{4})"),
    re.compile(r"(?P<mon>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{4})"),
    # Day first with dashes or dots, as most of the world writes it: 16-03-2023, 16.03.2023.
    re.compile(r"(?<![\d.-])(?P<day>\d{1,2})[-.](?P<mon>\d{1,2})[-.](?P<year>\d{4})"),
    re.compile(_MONTH + r"\s+(?P<year>\d{4})"),
]


# A time of day after a date: " 10:49", "T17:54:02.000Z".
_TIME_OF_DAY = re.compile(r"(?:[ t]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?")


def opening_date(value: str) -> int:
    """How many characters a date, and its time of day, take at the opening of a value ("2023-04-10: ...",
    "15-10-2025 10:49 | ..."); 0 when the value opens with none. A month and a year alone open too many titles."""
    lowered = value.lower()
    for form in _DATE_FORMS[:-1]:
        found = form.match(lowered)
        if found and parse_date(found[0]) is not None:
            return _TIME_OF_DAY.match(lowered, found.end()).end()
    return 0


# What parts the items of a value: "2026-06-23, post_deploy_monitor".
_ITEM_BREAK = re.compile(r"[ \t]*[,;|]")


# A word that may name a date before it, with no colon: "updated 2026-11-20", "last updated 2025-10-15"; at most this many.
_DATE_WORD = re.compile(r"[^\W\d_]+[ \t]+")
_DATE_WORDS = 2


def is_date(value: str) -> bool:
    """Whether a value is a date (a time of day after it aside), alone, after a word or two that name it, or as
    the first of its items: "2025-10-15 13:36", "updated 2026-11-20", "March 2024", "2026-06-23, post_deploy_monitor";
    not a title that holds one ("Outlook of the market (last updated 2025-10-15)")."""
    value = value.strip().lower()
    for _ in range(_DATE_WORDS + 1):
        length = opening_date(value)
        if length:
            return length == len(value) or _ITEM_BREAK.match(value, length) is not None
        if _DATE_FORMS[-1].fullmatch(value):
            return True
        word = _DATE_WORD.match(value)
        if word is None:
            return False
        value = value[word.end() :]
    return False


def parse_date(value: str) -> datetime.date | None:
    """A calendar date written in one of the usual ways, or None."""
    lowered = value.lower()
    for form in _DATE_FORMS:
        match = form.search(lowered)
        if not match:
            continue
        parts = match.groupdict()
        if parts.get("month"):
            month = next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(parts["month"][:3]))
        else:
            month = int(parts["mon"])
        try:
            return datetime.date(int(parts["year"]), month, int(parts.get("day") or 1))
        except ValueError:
            return None
    return None


# A store's id, one token that no writer would choose: a UUID, a hash (in hex, or a 64-bit number written out,
# "746894995501337991": no page, year or count runs to sixteen digits), or a name with a zero-padded or
# "::"-joined index ("large_pdf_page_003_001", "res-0000", "doc::c00007").
_UUID = re.compile(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}")
_HASH = re.compile(r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{8,64}|[1-9]\d{15,19}")
_INDEXED = re.compile(r"(?=.*[^\W\d])[\w.:#-]*?(?:(?<![\d.])0\d{2,}(?![\d.])|::c?\d+)[\w.:#-]*")


def machine_id(value: str) -> bool:
    """Whether a value is an id a store assigned to a chunk or a record, not a name or a number a writer chose."""
    value = value.strip().lower()
    if not value or len(value) > 80 or parse_date(value) is not None:
        return False
    return any(form.fullmatch(value) for form in (_UUID, _HASH, _INDEXED))


def renderer_count(values: list[str]) -> bool:
    """Whether values are a renderer's count of the items it shows: whole numbers from 1 (or 0) up, one by one, in order."""
    if not values or not all(v.strip().isdigit() for v in values):
        return False
    first = int(values[0])
    return first in (0, 1) and [int(v) for v in values] == list(range(first, first + len(values)))


def hashed_id(value: str) -> bool:
    """Whether a value is an id a store made up by hashing or at random (a UUID, a hash): a writer's code with an
    index in it ("NIC-POLICY-AL-003") is not."""
    value = value.strip().lower()
    return any(form.fullmatch(value) for form in (_UUID, _HASH))


# What a language writes for no value: Python's None, JSON's null, JavaScript's undefined.
_NULLS = frozenset({"none", "null", "nil", "undefined"})


def is_null(value: str) -> bool:
    """Whether a value says there is none: empty, or a language's word for no value (`'guard_summary': None`)."""
    return value.strip().lower() in _NULLS or not value.strip()
