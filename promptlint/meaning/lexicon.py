"""Meaning from words: which concept a field label, a key or a variable name stands for.

One lexicon answers for readers and rules alike. It is built once per config from
the word lists in the top-level rules/ folder (``lexicon.yaml`` says which list
belongs to which concept) plus the user's extensions (``extend-labels`` of a rule
whose list it is), so a word added in one place reaches every reader and rule.

A name is read as words: ``rerankerScore``, ``@search.rerankerScore``,
``meta['published_at']``, ``doc.get("chunk_no")`` and ``Published At`` all split
into lower-case words with simple plurals made singular. A name is a concept when
its words are one of the concept's phrases, or when its last word says so alone
(``vector_distance``: "distance") or with a qualifier (``crawled_on``: "on" after
"crawled"; ``chunk_no``: "no" after "chunk"). Phrases win over those word rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ..model.prompt import Source
from . import vocabulary

# A word: a run of letters (any script: "puntuación" is one word) or of digits; camelCase starts a word at each capital.
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[^\W\d_A-Z]+|[A-Z]+|\d+|[^\W\d_]+")
# The lines a chunk covers, after a file's name (its extension just before): ":10-42", "#L10-L20", " (lines 10-42)".
_LINE_LOCATOR = re.compile(r"(?P<file>.*\.[A-Za-z][A-Za-z0-9]{0,7})(?:[:#]L?\d+(?:\s*[-\u2013]\s*L?\d+)?|,?\s+\(?lines?\s+\d+(?:\s*[-\u2013]\s*\d+)?\)?)\s*", re.I)
# How a key chain separates its keys: `a.b`, `a['b']`, `a.get("b")`, `a[0]`.
_KEY_SEPARATOR = re.compile(r"""\.get\(\s*|\[\s*|['"]\s*\]|\s*\)|['"]|\.""")


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("xes", "ches", "shes", "sses")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def split(name: str) -> tuple[str, ...]:
    """The words of a name, lower case and singular: "chunkIndices" -> ("chunk", "index")."""
    return tuple(_singular(w.lower()) for w in _WORD.findall(name))


def keys(name: str) -> list[str]:
    """The keys of a chain, first to last: "doc.meta['published_at']" -> ["doc", "meta", "published_at"]."""
    if name.startswith("@"):  # "@search.rerankerScore" is one key
        return [name]
    return [k for k in _KEY_SEPARATOR.split(name) if k.strip()]


# Past this many words a label is a phrase of prose ("applicants need a credit score"), not a name.
MAX_NAME_WORDS = 3


@dataclass(frozen=True)
class Concept:
    phrases: frozenset[str]  # whole names, as joined words
    listed: tuple[str, ...] = ()  # the same, in the order the word lists give them
    heads: frozenset[str] = frozenset()
    qualified: frozenset[str] = frozenset()
    qualifiers: frozenset[str] = frozenset()
    trailing: frozenset[str] = frozenset()  # qualifiers that may follow the qualified word
    written: frozenset[str] = frozenset()  # words after a name that say how its value is written ("created_at_formatted")
    leads: frozenset[str] = frozenset()
    reported: bool = False
    names_only: bool = False  # read only by ``mentions``, ``names`` and ``phrases``, never when a label is looked up
    # When listed, the only words that may stand beside a head or a lead: any other word makes the
    # name a domain quantity ("risk score", "due date"), not the concept ("rerank score", "updated date").
    modifiers: frozenset[str] | None = None

    def by_words(self, words: tuple[str, ...]) -> bool:
        if len(words) > 1 and words[-1] in self.written:
            return self._written_for_a_reader(words)
        if not words or len(words) > MAX_NAME_WORDS:
            return False
        last = words[-1]
        if last in self.heads and self._modified(words[:-1]) or (len(words) > 1 and words[0] in self.leads and self._modified(words[1:])):
            return True
        if last in self.qualified and any(w in self.qualifiers for w in words[:-1]):
            return True
        # Code names put a qualifier that describes after as often (`text_clean`, `content_raw`); a noun after
        # makes another name (`text_source` is a source of text). Nothing else may follow.
        if len(words) > 1 and words[0] in self.qualified and all(w in self.trailing for w in words[1:]):
            return True
        return vocabulary.IDEOGRAPHIC.search(last) is not None and self._by_compound(last)

    def _written_for_a_reader(self, words: tuple[str, ...]) -> bool:
        """`last_updated_formatted` is the date "last updated", written for a reader: the name without the words
        that say how its value is written, as a phrase or by its words."""
        bare = words[:-1]
        return " ".join(bare) in self.phrases or self.by_words(bare)

    def _modified(self, others: tuple[str, ...]) -> bool:
        """Whether the words beside a head or a lead keep the name the concept: any words, unless the
        concept lists its modifiers; then only those, its own words, and numbers ("score_2")."""
        if self.modifiers is None:
            return True
        own = self.modifiers | self.heads | self.leads | self.qualifiers | self.qualified
        return all(w in own or w.isdigit() for w in others)

    def _by_compound(self, word: str) -> bool:
        """Chinese, Japanese and Korean write a name as one run with its head last (相关性分数 is
        relevance + score, 片段序号 chunk + number): the run ends in a head, or in a qualified
        word with a qualifier before it."""
        if any(word.endswith(head) and vocabulary.IDEOGRAPHIC.search(head) for head in self.heads):
            return True
        return any(
            word.endswith(q) and vocabulary.IDEOGRAPHIC.search(q) and any(x in word[: -len(q)] for x in self.qualifiers if vocabulary.IDEOGRAPHIC.search(x))
            for q in self.qualified
        )


# A web address in a field's value, without the quotes around it.
_ADDRESS = re.compile(r"https?://[^\s\"'<>()]+")


def _listed(phrases) -> tuple[str, ...]:
    return tuple(dict.fromkeys(" ".join(split(p)) for p in phrases))


def _words_of(phrases) -> frozenset[str]:
    return frozenset(_listed(phrases))


class Lexicon:
    """Concepts by name; ``concepts("published_at")`` -> {"date"}."""

    def __init__(self, concepts: dict[str, Concept], generic: frozenset[str], added: dict[tuple[str, str], tuple[str, ...]]):
        self._concepts = concepts
        self._generic = generic
        self._added = added  # (file, key) -> the words the user's `extend-<key>` adds to that list
        self._seen: dict[str, frozenset[str]] = {}  # a prompt asks about the same labels again and again
        self._lists: dict[tuple[str, str], tuple[str, ...]] = {}  # and every rule for its lists, on every prompt
        # Every phrase a label is looked up by: most names are none, found with one look.
        self._phrases = frozenset(p for c in concepts.values() if not c.names_only for p in c.phrases)

    def concepts(self, name: str) -> frozenset[str]:
        found = self._seen.get(name)
        if found is None:
            found = self._seen[name] = self._lookup(name)
        return found

    def _lookup(self, name: str) -> frozenset[str]:
        candidates = _readings(name, self._generic)
        for words in candidates:
            joined = " ".join(words)
            if joined in self._phrases:
                return frozenset(n for n, c in self._concepts.items() if not c.names_only and joined in c.phrases)
        if all(len(words) > MAX_NAME_WORDS for words in candidates):
            return frozenset()  # no concept reads a name of more words by its words (Concept.by_words)
        return frozenset(n for n, c in self._concepts.items() if not c.names_only and any(c.by_words(w) for w in candidates))

    def words(self, file: str, key: str) -> tuple[str, ...]:
        """A word list of rules/<file>.yaml with the words the user added to it: a rule and a
        reader that read the same list read the same words."""
        found = self._lists.get((file, key))
        if found is None:
            found = self._lists[file, key] = (*vocabulary.load(file).get(key, []), *self._added.get((file, key), ()))
        return found

    def means(self, name: str, concept: str) -> bool:
        return concept in self.concepts(name)

    def qualified(self, name: str, concept: str) -> bool:
        """Whether a domain word qualifies the name out of the concept: it ends in the concept's head
        or opens with its lead, yet does not mean it ("risk score", "due date", "date of birth")."""
        found, words = self._concepts[concept], split(name)
        return bool(words) and (words[-1] in found.heads or words[0] in found.leads) and not self.means(name, concept)

    def mentions(self, name: str, concept: str) -> bool:
        """Whether a name means the concept, or any of its words is one of the concept's heads
        however long the name: code names a variable for all it holds (`RAG_PROMPT_TEMPLATE_V2`)."""
        found = self._concepts[concept]
        words = split(name)
        return self.means(name, concept) or " ".join(words) in found.phrases or any(word in found.heads for word in words)

    def names(self, name: str, concept: str) -> bool:
        """Whether a name is the concept by its words, for a concept read only where a rule asks (names-only):
        `answer_instructions` is guidance, `instructions` alone is not."""
        found = self._concepts[concept]
        return any(" ".join(words) in found.phrases or found.by_words(words) for words in _readings(name, self._generic))

    def document_of(self, source: Source) -> str | None:
        """Which document a chunk came from: a field that names it, else its title. A file's name followed by
        the lines the chunk covers (`src/io.hpp:3093-3130`, `guide.md#L10-L20`, `app.py (lines 10-42)`) names
        the file: each chunk of it gives other lines."""
        named = next((f.value for f in source.fields if self.means(f.label, "document")), None)
        found = named if named is not None else source.title or self._address(source)
        if not found:
            return None
        # The locator ends in a digit or a closing parenthesis: any other title is read as it is, unscanned.
        located = _LINE_LOCATOR.fullmatch(found) if found.rstrip()[-1:].isdigit() or found.rstrip().endswith(")") else None
        return (located["file"] if located else found).strip().lower()

    def _address(self, source: Source) -> str | None:
        """With no title, the address a source was fetched from names its document: a field named for one, or an
        item whose value is one (`(from "https://.../streaming-data", similarity: 69.6%)`): each chunk of a page
        gives the page's address."""
        for field in source.fields:
            address = _ADDRESS.search(field.value)
            if address and (self.means(field.label, "url") or not field.label or address.group().strip("\"'") == field.value.strip("\"'")):
                return address.group()
        return None

    def reported(self, name: str) -> bool:
        """Whether a metadata rule reports a field of this name (a score, a date, a system, an ordinal, derived text)."""
        return any(self._concepts[c].reported for c in self.concepts(name))

    def phrases(self, concept: str) -> tuple[str, ...]:
        """The concept's whole names, as joined words, in the order its word lists give them:
        for a reader that prefers the first found (a source element's title attribute) or
        reads a name by its ending (a slot that names a source)."""
        return self._concepts[concept].listed

    def item_label(self, item: str | None, key: str) -> str:
        """An item's key as a label, read with the item's name when the key alone is an identifier:
        `chunk.id` is a chunk id (an ordinal), while `doc.id` stays an id (a citation key). A key that
        names its own owner (`chunk.doc_id`, the id of the chunk's document) is read alone."""
        if item and len(split(key)) == 1 and self.means(key, "key"):
            qualified = f"{item}_{key}"
            if self.means(qualified, "ordinal"):
                return qualified
        return key

    def is_generic(self, name: str) -> bool:
        """Whether the name says nothing of what it holds: a listed word, or a single letter (a loop's
        `s`, `d`), which says less than any label written beside it."""
        words = " ".join(split(name))
        return len(words) == 1 or words in self._generic


def _readings(name: str, generic: frozenset[str]) -> list[tuple[str, ...]]:
    """The words a name is looked up by: its last key that is not generic, then the whole name,
    each also without its numbers."""
    chain = keys(name)
    # Each key split once: a name that is one key (most are) is split once in all.
    split_keys = {k: split(k) for k in chain}
    meaningful = [k for k in chain if " ".join(split_keys[k]) not in generic] or chain
    candidates = []
    for words in (split_keys[meaningful[-1]] if meaningful else (), _whole(name, chain, split_keys)):
        # A numbered slot ("score_2", "doc1_title") means what its words without the number mean.
        for variant in (words, tuple(w for w in words if not w.isdigit())):
            if variant and variant not in candidates:
                candidates.append(variant)
    return candidates


def _whole(name: str, chain: list[str], split_keys: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The words of the whole name: its keys' words, one after the other, since what separates the
    keys holds no word (brackets, quotes, dots and spaces), but for ".get(", which holds one. (A
    header line asked about whole, "[1] Returns Policy (score: 0.61)", is the keys "1] Returns
    Policy (score: 0" and "61", and would be split again.)"""
    if ".get(" in name:
        return split(name)
    return tuple(word for key in chain for word in split_keys[key])


# The concepts whose fields the segmenter reads as a source's metadata.
FIELD_CONCEPTS = frozenset({"score", "date", "system", "ordinal", "derived", "title", "heading", "warning", "url", "author", "descriptor"})


def is_field(lexicon: Lexicon, label: str) -> bool:
    return bool(lexicon.concepts(label) & FIELD_CONCEPTS)


def build(options: dict[str, dict] | None = None, names: dict[str, list[str]] | None = None) -> Lexicon:
    """The lexicon of the shipped word lists plus the ``extend-<key>`` options of the rules that
    own them, and ``names`` the config adds to a concept directly (``{"prompt": ["persona"]}``)."""
    options = dict(options or {})
    options["lexicon"] = {f"extend-{concept}": words for concept, words in (names or {}).items()}
    extensions = tuple(
        sorted((name, key, tuple(words)) for name, values in options.items() for key, words in values.items() if key.startswith("extend-") and words)
    )
    return _build(extensions)


# What a concept of rules/lexicon.yaml may say; a misspelt key fails loudly instead of being dropped.
CONCEPT_KEYS = frozenset({"phrases", "heads", "qualified", "qualifiers", "trailing", "written", "leads", "modifiers", "reported", "names-only"})


@cache
def _build(extensions: tuple[tuple[str, str, tuple[str, ...]], ...]) -> Lexicon:
    added = {(name, key[len("extend-") :]): words for name, key, words in extensions}
    data = vocabulary.load("lexicon")
    concepts = {}
    for concept, spec in data.items():
        if concept == "generic":
            continue
        unknown = sorted(set(spec) - CONCEPT_KEYS)
        if unknown:
            raise ValueError(f"rules/lexicon.yaml: {concept}: unknown key '{unknown[0]}' (expected one of: {', '.join(sorted(CONCEPT_KEYS))})")
        phrases: list[str] = []
        for entry in spec.get("phrases", []):
            file, _, key = entry.partition(".")
            if key and vocabulary.exists(file):
                phrases.extend(vocabulary.load(file)[key])
                phrases.extend(added.get((file, key), ()))
            else:
                phrases.append(entry)
        phrases.extend(added.get(("lexicon", concept), ()))
        listed = _listed(phrases)
        concepts[concept] = Concept(
            phrases=frozenset(listed),
            listed=listed,
            heads=_words_of(spec.get("heads", [])),
            qualified=_words_of(spec.get("qualified", [])),
            qualifiers=_words_of(spec.get("qualifiers", [])),
            trailing=_words_of(spec.get("trailing", [])),
            written=_words_of(spec.get("written", [])),
            leads=_words_of(spec.get("leads", [])),
            modifiers=_words_of(spec["modifiers"]) if "modifiers" in spec else None,
            reported=bool(spec.get("reported", False)),
            names_only=bool(spec.get("names-only", False)),
        )
    return Lexicon(concepts, _words_of(data.get("generic", [])), added)


def shipped() -> Lexicon:
    """The lexicon without user extensions."""
    return _build(())
