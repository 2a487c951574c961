"""Text files: plain text and Markdown prompts, Jinja templates and Prompty files. Each prompt
stands in the file verbatim."""

from __future__ import annotations

import functools
import itertools
import re

import yaml

from ..meaning.lexicon import Lexicon
from ..meaning.vocabulary import normalise_label
from ..model.lines import LinePattern, line_column, line_starts
from ..model.prompt import Syntax
from .document import Document, DocumentKind, Input, Prompt, syntax_error
from .logged import logged_prompts
from .sourcemap import Pieces, Verbatim


def read_text(file: Input) -> Document:
    """A text file holds one prompt, or several one after another (each ending on the line the
    model answers after); a .prompt file that uses Jinja tags is a template; a Markdown page
    that documents a prompt in fenced blocks holds those blocks."""
    raw = file.raw
    syntax = Syntax.JINJA if file.suffix == ".prompt" and ("{%" in raw or "{{" in raw) else Syntax.TEXT
    pieces = (_fenced_prompts(file) if file.suffix == ".md" else []) or _sectioned_prompts(file)
    if not pieces and syntax == Syntax.TEXT:
        if recorded := _recorded_prompts(file):
            return file.document(DocumentKind.TEXT, recorded)
        from .segment import consecutive_prompts

        pieces = _logged_requests(file) or consecutive_prompts(raw)
    if pieces:
        prompts = [Prompt((raw[start:end],), Verbatim(start, end), syntax=Syntax.JINJA if "{%" in raw[start:end] else Syntax.TEXT) for start, end in pieces]
        return file.document(DocumentKind.TEXT, prompts)
    header = (_front_matter_end(raw) or _comment_header_end(raw) or _record_header_end(file)) if syntax == Syntax.TEXT else None
    if header is not None:
        # "# Prompt template for ...\n#\n# Placeholders: ..." documents the template; the prompt follows it,
        # as it follows YAML front matter ("---\nname: synthesis\ndate: 2026-05-03\n---"). A logged record
        # ends where the model's response is logged after it.
        end = _response_start(file, header) or len(raw)
        return file.document(DocumentKind.TEXT, [Prompt((raw[header:end],), Verbatim(header, end))])
    return _template(file, syntax)


def _recorded_prompts(file: Input) -> list[Prompt]:
    """A test's snapshot file (each export one prompt a test rendered), or a saved run's log (a chain's debug trace,
    a client's requests): the prompts it holds, each decoded and placed where it stands; none for any other text."""
    if decoded := _snapshot_exports(file.raw) or logged_prompts(file.raw):
        return [Prompt((text,), Pieces(offsets)) for text, offsets in decoded]
    return _printed_requests(file)


def _printed_requests(file: Input) -> list[Prompt]:
    """The requests a saved log shows whole, each placed at the line that shows it (see jsonfile.shown_requests)."""
    from .jsonfile import shown_requests

    starts = functools.cache(lambda: line_starts(file.raw))  # a log that shows no request needs none
    return shown_requests(file, file.raw, lambda offset: line_column(starts(), offset))


# A Jest or Vitest snapshot file opens so; each export is `exports[`name`] = `value`;`, the value a template literal.
_SNAPSHOT_HEADER = re.compile(r"// (?:Jest|Vitest) Snapshot v\d")
_EXPORT = re.compile(r"^exports\[`(?:[^`\\]|\\.)*`\] = `", re.MULTILINE)


def _snapshot_exports(raw: str) -> list[tuple[str, tuple[int, ...]]]:
    """The values of a snapshot file's exports, each decoded (`\\``, `\\${`, `\\\\`) with the file offset of each of its
    characters and of its end; a string value without the quotes the snapshot writes around it; none for any other file."""
    if not _SNAPSHOT_HEADER.match(raw):
        return []
    exports = []
    for export in _EXPORT.finditer(raw):
        chars: list[str] = []
        offsets: list[int] = []
        at = export.end()
        while at < len(raw) and raw[at] != "`":
            escaped = raw[at] == "\\" and at + 1 < len(raw)
            chars.append(raw[at + 1] if escaped else raw[at])
            offsets.append(at)
            at += 2 if escaped else 1
        text, offsets = "".join(chars), [*offsets, at]
        quoted = text.startswith('\n"') and text.endswith('"\n')
        exports.append((text[2:-2], tuple(offsets[2:-2])) if quoted else (text, tuple(offsets)))
    return [(text, offsets) for text, offsets in exports if text.strip()]


# YAML front matter: a mapping between two "---" lines at the top of the file.
_FRONT_MATTER = re.compile(r"---[ \t]*\n(?P<yaml>.*?)\n---[ \t]*(?:\n|$)", re.DOTALL)


def _front_matter_end(raw: str) -> int | None:
    """Where a prompt file's YAML front matter ends: its name, version and notes describe the file, and
    the model gets what follows them."""
    matter = _FRONT_MATTER.match(raw) if raw.startswith("---") else None
    if matter is None or not raw[matter.end() :].strip():
        return None
    try:
        data = yaml.safe_load(matter["yaml"])
    except yaml.YAMLError:
        return None
    return matter.end() if isinstance(data, dict) and data else None


def _comment_header_end(raw: str) -> int | None:
    """Where a template's comment header ends: three or more leading "#" comment lines, one of
    them a bare "#" (no Markdown heading is empty), then a blank line and the prompt."""
    # The lines are found one by one: only the first few are read, and most files have no header.
    at, count, bare = 0, 0, False
    while True:
        end = raw.find("\n", at)
        line = raw[at:] if end < 0 else raw[at:end]
        if not (line.startswith("#") and (line.rstrip() == "#" or line[1:2] in (" ", "\t"))):
            break
        bare = bare or line.rstrip() == "#"
        count += 1
        if end < 0:
            return None  # comments alone: no prompt follows
        at = end + 1
    if count < 3 or not bare or line.strip() or not raw[at:].strip():
        return None
    return at


# A log record's field ("Timestamp: 2025-11-25T02:00", "Strategy: cot"), and a label alone on its line ("Prompt:").
_RECORD_FIELD = re.compile(r"[ \t]*[^\W\d][\w .-]{0,30}:[ \t]+\S.*")
_LABEL_ALONE = re.compile(r"[ \t]*(?P<label>[^\W\d][\w .-]{0,30}):[ \t]*")
_LABEL_ALONE_LINE = re.compile(f"^{_LABEL_ALONE.pattern}$", re.MULTILINE)
# A banner over a record ("PROMPT ENGINEERING LOG", "ENTRY 1:") has a few words at most.
_BANNER_WORDS = 4
# How far into a file a log record's header may run.
_RECORD_LINES = 20


def _record_header_end(file: Input) -> int | None:
    """Where the prompt a log record holds starts: after the record's header, nothing but two or more field
    lines ("Timestamp: ...", "Query: ...") under a banner of a few words or a rule, then a label alone that
    names the prompt ("Prompt:"). What the header says was logged beside the prompt, not sent."""
    at, fields, banners = 0, 0, 0
    for line in file.raw.split("\n", _RECORD_LINES)[:_RECORD_LINES]:
        at += len(line) + 1
        alone = _LABEL_ALONE.fullmatch(line)
        if alone and (fields >= 2 or banners and _RULE.fullmatch(line) is None) and file.lexicon.means(alone["label"], "prompt"):
            return at if file.raw[at:].strip() else None
        if _RECORD_FIELD.fullmatch(line):
            fields += 1
        elif len(line.split()) > _BANNER_WORDS or line.rstrip().endswith((".", "!", "?")):
            return None  # prose: a prompt of its own, not a record's header
        elif _RULE.fullmatch(line):
            banners += 1  # "=====" over and under a record's title ("[2026-03-11T14:29:42] GENERATE")
    return None


def _response_start(file: Input, start: int) -> int | None:
    """Where a logged record's response starts after its prompt: a label alone on its line that names the
    model's output ("RESPONSE:", "Model output:"), with text under it."""
    labels = _response_labels(file.lexicon)
    for line in _LABEL_ALONE_LINE.finditer(file.raw, start):
        if normalise_label(line["label"]) in labels and file.raw[line.end() :].strip():
            return line.start()
    return None


# A marker line of a log: a few words between rules or arrows ("--- PROMPT SENT TO LLM --->", "<--- RAW RESPONSE
# FROM LLM ---", "=== PROMPT ===", "[RESPONSE]"), or alone before a colon ("PROMPT:").
_MARKER = re.compile(r"^[ \t]*(?P<open>[-=<>#*~|]{2,}|\[)?[ \t]*(?P<words>[^\W\d_][^\W_]*(?:[ \t]+[^\W_]+){0,5})[ \t]*(?P<close>:|[-=<>#*~|]{2,}|\])?[ \t]*$", re.MULTILINE)


# What a marker line opens or ends with, found first: most lines are no marker, and this test is cheap.
_MARKER_LINE = LinePattern(r"[ \t]*(?:[-=<>#*~|]{2}|\[)[^\n]{0,80}$|[^\n:]{1,60}:[ \t]*$")


def _logged_requests(file: Input) -> list[tuple[int, int]]:
    """Where the prompts of a log of several requests stand: the same marker line over each prompt sent ("---
    PROMPT SENT TO LLM --->"), twice or more, and, where the log keeps it, another over the model's response
    ("<--- RAW RESPONSE FROM LLM ---"). Each prompt runs to the next marker, less the banner of the next record
    ("=====", "TIMESTAMP: ...", "=====") over it. What the log writes between them was never sent. A text whose
    lines before the first marker hold a template's slots is a template, its markers its own section labels."""
    markers = _markers(file)
    prompts = [m for m in markers if m[0] == "prompt"]
    if len(prompts) < 2 or len({words for _, words, _, _ in prompts}) > 1:
        return []
    from .segment.vocab import holds_slot

    if holds_slot(file.raw[: markers[0][2]]):
        return []  # a template's slots before the first marker: the markers are its own sections ("Instructions:")
    pieces = []
    for (kind, _, _, marker_end), following in zip(markers, [*markers[1:], None]):
        start = marker_end + 1  # the line after the marker
        end = _before_the_banner(file.raw, start, following[2] if following else len(file.raw))
        if kind == "prompt" and file.raw[start:end].strip():
            pieces.append((start, end))
    return pieces


def _markers(file: Input) -> list[tuple[str, str, int, int]]:
    """The marker lines of a log that name a prompt or a response, each as (which, its words, its span)."""
    responses = _response_labels(file.lexicon)
    markers = []
    for start, line in _MARKER_LINE.finditer(file.raw):
        marker = _MARKER.fullmatch(file.raw, start, line.end())
        if marker is None or not (marker["open"] or marker["close"]):
            continue
        words = normalise_label(marker["words"]).split()
        prefixes = [" ".join(words[:n]) for n in range(1, len(words) + 1)]
        named = {"response" for p in prefixes if p in responses} | {"prompt" for p in prefixes if file.lexicon.means(p, "prompt")}
        if len(named) == 1:
            markers.append((named.pop(), " ".join(words), marker.start(), marker.end()))
    return markers


def _before_the_banner(raw: str, start: int, end: int) -> int:
    """Where a logged prompt ends before the next record's banner: the first rule of the lines that end it, when
    they are only rules, a record's fields and blank lines ("Question: ..." above them stays the prompt's)."""
    lines = raw[start:end].split("\n")
    cut = len(lines)
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        if _RULE.fullmatch(line):
            cut = index
        elif line.strip() and not _RECORD_FIELD.fullmatch(line):
            break
    return start + sum(len(line) + 1 for line in lines[:cut]) if cut < len(lines) else end


def _response_labels(lexicon: Lexicon) -> set[str]:
    """The labels (normalised) a log writes over what the model gave back (`response-labels`)."""
    return {normalise_label(label) for label in lexicon.words("segment", "response-labels")}


# A section's title over a rule of "=" or "-" ("1. SYSTEM PROMPT TEMPLATE" then "====="): a heading of a few words.
_RULE = re.compile(r"[ \t]*(?P<mark>=|-)(?P=mark){2,}[ \t]*")
_HEADING_WORDS = 12
_BANNER_RULE = 10
# What a title says beside its name: its number ("1."), a note in parentheses, a subtitle after a colon.
_TITLE_EXTRAS = re.compile(r"^\s*\d+[.)]\s*|\s*\([^)]*\)|:.*$")


def _sectioned_prompts(file: Input) -> list[tuple[int, int]]:
    """Where the prompts of a text that documents them stand: when two or more sections are titled by a
    heading over a rule ("1. SYSTEM PROMPT (LLM)" then "=====", "3. CONFIGURATION PARAMETERS" ...), the
    sections whose titles name a prompt are the prompts, and the rest (settings, notes on a run, the log's
    own header) is none. When the sections that name no prompt hold slots and a prompt's section holds none
    ("System prompt", then "Context" over `{context}`), the headings are one prompt's own parts."""
    raw = file.raw
    sections = _titled_sections(raw, file.lexicon) if "==" in raw or "--" in raw else []
    named = [_ruled_prompt(file, start, end) for prompt, _, start, end in sections if prompt and raw[start:end].strip()]
    others = [(title, start, end) for prompt, title, start, end in sections if not prompt]
    if not named or not others:
        return []
    from .segment.sources import names_the_context
    from .segment.vocab import holds_slot, words

    if any(holds_slot(raw[start:end]) for _, start, end in others) and not any(holds_slot(raw[start:end]) for start, end in named):
        return []
    # A section titled for the retrieved context ("RETRIEVED KNOWLEDGE", "SOURCES") is a part of the prompt beside
    # it ("ANALYSIS INSTRUCTIONS"): the titles are one prompt's, as it was sent.
    vocab = words(lexicon=file.lexicon)
    if any(names_the_context(normalise_label(_TITLE_EXTRAS.sub("", title)), vocab) for title, _, _ in others):
        return []
    return named


def _titled_sections(raw: str, lexicon: Lexicon) -> list[tuple[bool, str, int, int]]:
    """Each section under a heading (see _is_heading), when there are two or more: whether its title
    names a prompt, the title, and its span, up to the rule over the next title."""
    lines = raw.split("\n")
    starts = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
    headings = [i for i in range(len(lines) - 1) if _is_heading(lines, i)]
    if len(headings) < 2:
        return []
    sections = []
    for index, end_line in zip(headings, [*headings[1:], len(lines)]):
        if _RULE.fullmatch(lines[end_line - 1]) and end_line - 1 > index + 1:
            end_line -= 1  # the rule over the next title
        # Named by its last word: "User prompt template" is a prompt, a "PROMPT LOG" or "Prompt design rationale" is none.
        words = re.findall(r"[^\W\d_]+", _TITLE_EXTRAS.sub("", lines[index]))
        sections.append((bool(words) and lexicon.means(words[-1], "prompt"), lines[index], starts[index + 2], min(starts[end_line], len(raw))))
    return sections


# A label alone that announces the prompt under it ("Full Prompt Sent to LLM:"), then a rule that opens it.
_ANNOUNCED = re.compile(r"^[ \t]*(?P<label>[^\W\d][\w .-]{0,40}):[ \t]*\n[ \t]*-{3,}[ \t]*\n", re.MULTILINE)
_CLOSING_RULE = re.compile(r"^[ \t]*-{3,}[ \t]*$", re.MULTILINE)


def _ruled_prompt(file: Input, start: int, end: int) -> tuple[int, int]:
    """A section's prompt: the block between two rules under a label that announces it (a worked example's
    "Question: ...", then "Full Prompt Sent to LLM:" and the prompt between "---" lines), else the section."""
    for label in _ANNOUNCED.finditer(file.raw, start, end):
        if any(file.lexicon.means(word, "prompt") for word in label["label"].split()):
            closing = _CLOSING_RULE.search(file.raw, label.end(), end)
            return label.end(), closing.start() if closing else end
    return start, end


def _is_heading(lines: list[str], index: int) -> bool:
    """A title over a rule as long as a banner ("=====" under it, ten marks or more, or as long as the title):
    a short "---" is a separator, as prompts write between their parts."""
    title, rule = lines[index].strip(), lines[index + 1].strip()
    return (bool(title) and _RULE.fullmatch(rule) is not None and len(rule) >= min(_BANNER_RULE, len(title)) and _RULE.fullmatch(title) is None
            and len(title.split()) <= _HEADING_WORDS and not title.endswith((".", ",", ";", ":")))


_FENCE = re.compile(r"^(?P<fence>```|~~~)[ \t]*(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
# An indented code block (four spaces or a tab on every line, after a blank line): how a notebook converted to
# Markdown prints a cell's output, a logged prompt among them.
_INDENTED = re.compile(r"(?:\A|(?<=\n\n))(?P<body>(?: {4}|\t)[ \t]*\S[^\n]*(?:\n|\Z)(?:(?:[ \t]*\n)*(?: {4}|\t)[ \t]*\S[^\n]*(?:\n|\Z))*)")
# A prompt quoted as code quotes it: `Prompt: """` at a line's end, the closing quotes on a line of their own.
_QUOTED = re.compile(r"(?P<fence>\"\"\"|''')[ \t]*\n(?P<body>.*?)\n[ \t]*(?P=fence)", re.DOTALL)


def _fenced_prompts(file: Input) -> list[tuple[int, int]]:
    """Where the prompts of a Markdown page stand when the page documents them: the fenced (or
    triple-quoted) blocks that read as prompts, when the prose around them does not. The prose
    (a rationale, a changelog, the results of a run) is then no part of any prompt."""
    from .segment import is_prompt_text, shows_sources, words

    raw = file.raw
    if not any(fence in raw for fence in ("```", "~~~", '"""', "'''", "\n\n    ", "\n\n\t")):
        return []
    vocab = words(lexicon=file.lexicon)
    blocks, prose = _blocks(raw, vocab.code_languages)
    # A block with a context slot, or an assembled prompt whose sources are written out.
    inside = [m for m in blocks if is_prompt_text(m["body"], vocab) or shows_sources(m["body"], file.lexicon)]
    if not inside or is_prompt_text(prose, vocab):
        return []
    return [(m.start("body"), m.end("body")) for m in inside]


def _blocks(raw: str, code_languages: frozenset[str]) -> tuple[list[re.Match[str]], str]:
    """A Markdown page's blocks that may hold a prompt, in order, and its prose: what no block holds."""
    fences = list(_FENCE.finditer(raw))
    # A block of program code ("```python") is code: a prompt in it is a string it writes ('prompt = """...""""),
    # never the code around that string. Quotes inside any other fenced block are that block's text; so are its
    # indented lines.
    texts = [f for f in fences if (f["info"].lower().split() or [""])[0] not in code_languages]
    quoted = [*(q for q in _QUOTED.finditer(raw) if not _inside(q, texts)), *(i for i in _INDENTED.finditer(raw) if not _inside(i, fences))]
    # A string inside a block of code stands in that block.
    shown = sorted([*fences, *(q for q in quoted if not _inside(q, fences))], key=lambda m: m.start())
    prose = "".join(raw[start:end] for start, end in zip([0] + [m.end() for m in shown], [m.start() for m in shown] + [len(raw)]))
    return sorted([*texts, *quoted], key=lambda m: m.start()), prose


def _inside(block: re.Match[str], fences: list[re.Match[str]]) -> bool:
    return any(f.start() < block.end() and block.start() < f.end() for f in fences)


def read_jinja(file: Input) -> Document:
    return _template(file, Syntax.JINJA)


def _template(file: Input, syntax: Syntax) -> Document:
    if syntax == Syntax.JINJA:
        from .jinja import TemplateError, check_syntax

        try:
            check_syntax(file.raw)
        except TemplateError as exc:
            return file.document(DocumentKind.TEXT, errors=[syntax_error(file.display, f"invalid Jinja: {exc.message}", exc.line, exc.column)])
    return file.document(DocumentKind.TEXT, [Prompt((file.raw,), Verbatim(0, len(file.raw)), syntax=syntax)])


def read_prompty(file: Input) -> Document:
    """A .prompty file: YAML front matter between --- lines, then a Jinja body, or a Mustache one."""
    from .jinja import TemplateError, check_syntax

    raw = file.raw
    match = re.match(r"---[ \t]*\n(.*?\n)---[ \t]*\n", raw, re.DOTALL)
    head = match.group(0) if match else ""
    if match:
        try:
            yaml.safe_load(match.group(1))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line, column = (mark.line + 2, mark.column + 1) if mark else (1, 1)
            error = syntax_error(file.display, f"invalid front matter: {getattr(exc, 'problem', None) or exc}", line, column)
            return file.document(DocumentKind.TEXT, errors=[error])
    body = raw[len(head) :]
    try:
        check_syntax(body)
    except TemplateError as exc:
        from . import handlebars

        if handlebars.is_template(body):
            # Prompty renders Mustache too ("{{#documents}} ... {{/documents}}"): read as such, it is no broken Jinja.
            return file.document(DocumentKind.TEXT, [Prompt((body,), Verbatim(len(head), len(raw)), syntax=Syntax.TEXT)])
        error = syntax_error(file.display, f"invalid Jinja: {exc.message}", exc.line + head.count("\n"), exc.column)
        return file.document(DocumentKind.TEXT, errors=[error])
    return file.document(DocumentKind.TEXT, [Prompt((body,), Verbatim(len(head), len(raw)), syntax=Syntax.JINJA)])
