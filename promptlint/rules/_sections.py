"""The sections of a prompt under headings marked as such ("-----Entities(KG)-----", "## Relationships",
"=== Sources ==="), as a knowledge graph's retrieval writes its summaries beside its chunks, and the records a
section lists: read here once for the rules that look into a graph's summaries (PL104, PL201)."""

from __future__ import annotations

import csv
import functools
import json
from dataclasses import dataclass

from ..model.lines import LinePattern
from ..model.prompt import Prompt, Span

# A section's heading alone on its line, marked as one: "-----Entities(KG)-----", "## Relationships", "=== Sources ===".
_SECTION = LinePattern(r"[ \t]*(?:-{3,}|={3,}|#{1,6}[ \t]+)[ \t]*(?P<name>[^\W\d_][\w ]*?)[ \t]*(?:\([^()\n]*\))?[ \t]*(?:-{3,}|={3,})?[ \t]*:?[ \t]*$")


@dataclass(frozen=True)
class Section:
    name: str  # in lower case, its spaces single: "entities", "document chunks"
    heading: Span  # the name as the heading writes it
    body: Span  # from the heading's line to the next section's, or to the end


def sections(prompt: Prompt) -> tuple[Section, ...]:
    return _sections(prompt.text)


# Read once a prompt: PL104 and PL201 both look at its sections.
@functools.lru_cache(maxsize=4)
def _sections(text: str) -> tuple[Section, ...]:
    found = [(m.span("name"), start, " ".join(m["name"].lower().split())) for start, m in _SECTION.finditer(text)]
    ends = [start for _, start, _ in found[1:]] + [len(text)]
    return tuple(Section(name, Span(*span), Span(start, end)) for (span, start, name), end in zip(found, ends))


def records(text: str, body: Span) -> list[dict[str, str]]:
    """The records a section lists, each a mapping of its fields: a JSON array of objects, one JSON object a line,
    or a CSV table under its header row (LightRAG has written all three); none for a section of prose."""
    lines = [line.strip() for line in text[body.start : body.end].splitlines()[1:]]
    lines = [line for line in lines if line and not line.startswith("```")]
    if not lines:
        return []
    if lines[0].startswith("["):
        try:
            value, _ = json.JSONDecoder().raw_decode("\n".join(lines))
        except ValueError:
            return []
        items = value if isinstance(value, list) else []
    elif lines[0].startswith("{"):
        items = []
        for line in lines:
            try:
                items.append(json.loads(line))
            except ValueError:
                return []
    elif lines[0].count(",") >= 2:
        items = list(csv.DictReader(lines))
    else:
        return []
    return [{str(k): str(v) for k, v in item.items()} for item in items] if all(isinstance(i, dict) for i in items) else []
