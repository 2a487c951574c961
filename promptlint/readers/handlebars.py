"""Handlebars and Mustache templates, read as the Jinja templates they mean.

A section that iterates (`{{#each results}}`, or a Mustache `{{#results}}` outside any loop)
is a `{% for %}` loop whose bare names are fields of the item; `{{#if}}`, `{{#unless}}`, an
inverted `{{^x}}` and a Mustache section inside a loop are conditions; `{{else}}` is
`{% else %}`; a helper call (`{{formatDate updated}}`) is a filter on its argument, which
the Jinja reader reads through. Comments and partials render nothing here.

The translation keeps, for each of its characters, the offset in the original text it
stands for, so that findings land where the template is written. Nothing is written back
through it: the text the rules read is not the file's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# One tag: "{{name}}", "{{{raw}}}", "{{~#each xs~}}", "{{!-- note --}}". The body is what the tag says.
_TAG = re.compile(r"\{\{(?P<triple>\{)?~?\s*(?P<body>!--.*?--|[^{}]*?)\s*~?\}\}(?(triple)\})", re.S)
# Block tags: what makes a text a Handlebars or Mustache template rather than text with slots.
_BLOCK = re.compile(r"\{\{~?\s*[#^]\s*[\w@.]")
_EACH_ALIAS = re.compile(r"(?P<expr>.+?)\s+as\s+\|\s*(?P<item>\w+)(?:\s+\w+)?\s*\|$")
_WORD = re.compile(r"\"[^\"]*\"|'[^']*'|\S+")
_JINJA_SYNTAX = re.compile(r"\{[%#{]")  # in literal text, what Jinja would read as a tag
_ITEM = "this"  # the loop variable of a translated loop: `{{ this.title }}`


@dataclass(frozen=True)
class Translation:
    text: str  # the Jinja template
    positions: tuple[int, ...]  # for each character of ``text``, and its end, the offset in the original


@dataclass
class _Scope:
    kind: str  # "for" or "if"
    item: str | None  # inside a loop, the name its bare names are fields of
    value: str | None = None  # what `{{this}}` / `{{.}}` prints inside: a loop's item, a Mustache section's value


@dataclass
class _Writer:
    source: str
    pieces: list[str] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)

    def copy(self, start: int, end: int) -> None:
        self.pieces.append(self.source[start:end])
        self.positions.extend(range(start, end))

    def write(self, text: str, start: int, end: int) -> None:
        """``text`` in place of the tag at ``start:end``: its characters point into the tag."""
        self.pieces.append(text)
        self.positions.extend(min(start + i, end - 1) for i in range(len(text)))


def is_template(text: str) -> bool:
    """Whether a text uses Handlebars or Mustache blocks (`{{#each}}`, `{{#if}}`, `{{^x}}`)."""
    return "{{" in text and _BLOCK.search(text) is not None


def translate(text: str) -> Translation | None:
    """The Jinja template ``text`` means, or None when its blocks do not nest or its literal text
    would read as Jinja syntax (then the text is read as it is)."""
    writer, scopes, at = _Writer(text), [], 0
    for tag in _TAG.finditer(text):
        if _JINJA_SYNTAX.search(text, at, tag.start()):
            return None
        writer.copy(at, tag.start())
        at = tag.end()
        jinja = _tag(tag["body"], scopes)
        if jinja is None:
            return None
        writer.write(jinja, tag.start(), tag.end())
    writer.copy(at, len(text))
    if scopes or _JINJA_SYNTAX.search(text, at):
        return None
    return Translation("".join(writer.pieces), (*writer.positions, len(text)))


def _tag(body: str, scopes: list[_Scope]) -> str | None:
    """The Jinja for one tag's body, opening or closing ``scopes``; None for a block that does not nest."""
    item = next((s.item for s in reversed(scopes) if s.item), None)
    value = next((s.value for s in reversed(scopes) if s.value), None)
    if body in ("this", "."):
        return "{{ " + (value or _ITEM) + " }}"
    if body.startswith(("!", ">")):
        return ""  # a comment or a partial: nothing this text holds
    if body.startswith("/"):
        return f"{{% end{scopes.pop().kind} %}}" if scopes else None
    if body == "else" or body == "^":
        return "{% else %}" if scopes else None
    if body.startswith("else if "):
        return f"{{% elif {_expression(body[8:], item)} %}}" if scopes else None
    if body.startswith("^"):
        scopes.append(_Scope("if", None))
        return f"{{% if not {_expression(body[1:], item)} %}}"
    if body.startswith("#"):
        return _open(body[1:].strip(), scopes, item)
    return "{{ " + _expression(body.lstrip("&").strip(), item) + " }}"


def _open(body: str, scopes: list[_Scope], item: str | None) -> str:
    helper, _, rest = body.partition(" ")
    rest = rest.strip()
    if helper == "each":
        alias = _EACH_ALIAS.match(rest)
        name = alias["item"] if alias else _ITEM
        scopes.append(_Scope("for", name, name))
        return f"{{% for {name} in {_expression(alias['expr'] if alias else rest, item)} %}}"
    if helper in ("if", "unless", "with"):
        scopes.append(_Scope("if", None))
        return f"{{% if {'not ' if helper == 'unless' else ''}{_expression(rest, item)} %}}"
    if item is not None or rest:
        # A section inside a loop tests a field of the item (and `{{.}}` in it prints that field);
        # a block helper ("{{#ifEquals a b}}") tests its arguments.
        tested = _expression(body, item)
        scopes.append(_Scope("if", None, None if rest else tested))
        return f"{{% if {tested} %}}"
    scopes.append(_Scope("for", _ITEM, _ITEM))
    return f"{{% for {_ITEM} in {_expression(helper, None)} %}}"


def _expression(body: str, item: str | None) -> str:
    """A mustache expression as Jinja: a name, or a helper applied to its first argument (a filter)."""
    words = [w for w in _WORD.findall(body) if "=" not in w or w[0] in "\"'"]  # hash arguments say how, not what
    if not words:
        return "none"
    if len(words) == 1:
        return _name(words[0], item)
    return f"{_name(words[1], item)} | {_name(words[0], None)}"


def _name(word: str, item: str | None) -> str:
    if word[0] in "\"'" or word[0].isdigit():
        return word
    if word in ("this", "."):
        return item or _ITEM
    if word.startswith("@"):
        return "loop.index0" if word in ("@index", "@key") else "loop.first" if word == "@first" else "loop.last" if word == "@last" else word[1:].replace("root.", "", 1)
    if item and item != _ITEM and (word == item or word.startswith(item + ".")):
        return word  # `{{doc.title}}` in `{{#each docs as |doc|}}`: the loop's own name
    word = word.removeprefix("this.").removeprefix("./")
    while word.startswith("../"):
        word, item = word[3:], None  # a name of the scope around the loop
    word = re.sub(r"[^\w.]", "_", word)
    return f"{item}.{word}" if item else word
