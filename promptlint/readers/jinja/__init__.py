"""The Jinja front-end: read a prompt template into the same prompt model as the text front-end.

The template is parsed, never rendered. Jinja's lexer gives the tags in order
and its parser gives what each expression means; positions are computed here,
because the lexer's token values drop the whitespace that `{%-`/`-%}` strip and
the final newline. Every slice is checked to join back into the exact source.

The model's text is the template source itself: a sources loop becomes one
repeated source (its body is the wrapper, `{{ doc.content }}` its content, the
other outputs of the loop variable its fields), `{{ question }}` outputs are
the question, and the literal text between tags is the static part.
"""

from __future__ import annotations

from ...meaning.lexicon import Lexicon
from ...meaning.vocabulary import normalise_label
from ...model.prompt import Prompt, Span
from ..expressions import environment
from ..segment import SlotNames, merge_parts, role_messages, text_lines, words
from .tags import Block, Tag, TemplateError, check_syntax, message_blocks, parses, tags, tree
from .origin import Origin, read_template
from .reader import OUTSIDE_ROOT, Reader

# What the engine and the other readers use: the entries, the tags of a template and whether it parses.
__all__ = [
    "OUTSIDE_ROOT", "Block", "Origin", "Tag", "TemplateError", "check_syntax", "environment", "message_blocks", "parses",
    "read_template", "segment_jinja", "segment_origin", "tags", "tree",
]


def segment_jinja(source: str, names: SlotNames = (), includes=None, lexicon: Lexicon | None = None) -> Prompt:
    """The prompt model of a Jinja template; raises TemplateError when it does not parse.

    ``names`` are the template variables the config names; ``includes`` reads the
    files the template includes or imports (see promptlint.readers.includes); ``lexicon`` says what names mean.
    """
    return segment_origin(read_template(source), names, includes, lexicon)


def segment_origin(origin: Origin, names: SlotNames = (), includes=None, lexicon: Lexicon | None = None) -> Prompt:
    """The prompt model of a template already split into tags (see segment_jinja)."""
    source = origin.source
    content_keys = frozenset(normalise_label(name) for name, kind in names if kind == "content")
    reader = Reader(origin, words(names, lexicon), content_keys, includes)
    reader.read()
    lower = reader.lower
    lines = text_lines(source, lower)
    parts = merge_parts(source, sorted(reader.parts, key=lambda p: p.span.start))
    sources = reader.sources
    block = Span(sources[0].span.start, sources[-1].span.end) if sources else None
    return Prompt(
        text=source,
        lower=lower,
        sources=sources,
        parts=parts,
        questions=sorted(reader.questions),
        messages=message_blocks(reader.main.flat) or role_messages(source, lines, reader.vocab),
        sources_block=block,
        rewritten_questions=sorted(reader.rewritten),
        branches=reader.branches,
        locked=sorted(set(reader.locked)),
        refused_includes=sorted(set(reader.refused)),
    )
