"""A source's lines labelled in German, Portuguese, Spanish or French ("Titel:", "Fonte:", "Inhalt:") are read as
the English labels are: its title, where it came from, its text; and a score written with a decimal comma
("score de pertinence : 0,91") is one number. Each prompt has its twin without the fields, which is clean."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-07"}, "test")
TEXTS = ("Returns are accepted within thirty days of delivery when the item is unused.",
         "Shipping is paid by the buyer unless the item arrives damaged or faulty.")
TITLES = ("Retouren", "Versand")
WRITTEN = {
    "German": ("Quelle {n}\nTitel: {title}\nRelevanz: 0.9{n}\nQuelle: Confluence\nInhalt: {text}\n", ["PL102", "PL202"] * 2,
               "Quelle {n}\nTitel: {title}\nInhalt: {text}\n"),
    "Portuguese": ("### Trecho {n} \u2014 {title}\nFonte: SharePoint\nConte\u00fado: {text}\n", ["PL202"] * 2,
                   "### Trecho {n} \u2014 {title}\nConte\u00fado: {text}\n"),
    "French, a decimal comma": ("- [{n}] {title} (score de pertinence : 0,9{n}) : {text}\n", ["PL102"] * 2, "- [{n}] {title} : {text}\n"),
}


def _prompt(written: str) -> str:
    sources = "\n".join(written.format(n=n, title=title, text=text) for n, (title, text) in enumerate(zip(TITLES, TEXTS), 1))
    return f"Answer only from the sources below.\n\n{sources}\nQuestion: How long do I have to return an item?\n"


@pytest.mark.parametrize("language", sorted(WRITTEN))
def test_labels_in_other_languages_are_read_as_their_english_ones(language):
    written, codes, clean = WRITTEN[language]
    assert [f.code for f in lint_text(_prompt(written), path="p.txt", config=CONFIG)] == codes
    assert fix_text(_prompt(written), path="p.txt", config=CONFIG, unsafe=True) == _prompt(clean)
    assert lint_text(_prompt(clean), path="p.txt", config=CONFIG) == []
