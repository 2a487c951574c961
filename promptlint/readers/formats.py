"""The input formats, in one table: each one's name, the suffixes it is known by, and its reader.

Everything that depends on the kind of a file derives from FORMATS: the types
`file-types` accepts in config, the files a folder walk takes by default, and the
reader that turns a file's text into its prompts. Adding a format is one entry here
and its reader.

A reader gets the decoded text (document.Input: no BOM, LF newlines, with the lexicon that
says which strings are prompts) and returns the file's
Document: its prompts, and a PL900 finding for what does not parse. A reader that
already knows the structure (a JSON request body knows its document blocks) hands
it over with the prompt's texts, so the segmenter does not have to guess it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from .codefile import read_javascript, read_python
from .document import Document, Input
from .jsonfile import read_json, read_jsonl
from .notebook import read_notebook
from .textfile import read_jinja, read_prompty, read_text
from .yamlfile import read_yaml

Reader = Callable[[Input], Document]


@dataclass(frozen=True)
class Format:
    name: str  # the file type `file-types` names
    suffixes: tuple[str, ...]  # lower case; the first is what `file-types` reads a file as
    read: Reader
    # The files of this format a folder walk takes wherever they are (prompt and template
    # files by suffix, or by their known names; code for the templates it holds). Its other files are taken only in
    # a prompt folder: elsewhere a .txt, .md, .json or .yaml is docs, data or config.
    anywhere: tuple[str, ...] = ()
    # Source code, read for the templates it holds: most files hold none, so a walk skips
    # one without any quietly (a file named on the command line still gets a notice).
    code: bool = False


# JavaScript and TypeScript, modules and JSX included: one reader for them all (see jssource).
JAVASCRIPT = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")

FORMATS = (
    Format("text", (".txt", ".md", ".prompt", ".hbs", ".handlebars", ".mustache"), read_text, ("*.prompt", "*.hbs", "*.handlebars", "*.mustache")),
    Format("jinja", (".j2", ".jinja", ".jinja2"), read_jinja, ("*.j2", "*.jinja", "*.jinja2")),
    # A Hugging Face tokenizer or processor config holds the model's chat template.
    Format("json", (".json",), read_json, ("tokenizer_config.json", "chat_template.json")),
    Format("jsonl", (".jsonl", ".ndjson"), read_jsonl),
    Format("prompty", (".prompty",), read_prompty, ("*.prompty",)),
    Format("python", (".py",), read_python, ("*.py",), code=True),
    Format("javascript", JAVASCRIPT, read_javascript, tuple(f"*{suffix}" for suffix in JAVASCRIPT), code=True),
    Format("yaml", (".yaml", ".yml"), read_yaml, ("*.prompt.yml", "*.prompt.yaml")),
    # A Jupyter notebook: its code cells, read as Python (see notebook). Taken when named, or in a prompt folder.
    Format("notebook", (".ipynb",), read_notebook, code=True),
)
_BY_SUFFIX = {suffix: f for f in FORMATS for suffix in f.suffixes}
# What `file-types` can say a file is, and the suffix that reads a file as that.
FILE_TYPES = {f.name: f.suffixes[0] for f in FORMATS}
# The files a folder walk lints unless the config says otherwise: those taken anywhere,
# and the rest of each format's files inside a prompt folder.
PROMPT_FOLDERS = ("prompts", "prompt", "templates")
ANYWHERE = tuple(glob for f in FORMATS for glob in f.anywhere)
IN_PROMPT_FOLDERS = tuple(f"*{suffix}" for f in FORMATS for suffix in f.suffixes if f"*{suffix}" not in f.anywhere)
DEFAULT_INCLUDE = ANYWHERE + tuple(f"**/{folder}/**/{glob}" for folder in PROMPT_FOLDERS for glob in IN_PROMPT_FOLDERS)


def for_suffix(suffix: str) -> Format:
    """The format a suffix reads as; a file of any other suffix is read as text."""
    return _BY_SUFFIX.get(suffix, FORMATS[0])


def for_text(suffix: str, text: str) -> Format:
    """The format a text reads as: by its suffix; a text with none (standard input given no
    name) by what it is: a JSON document or JSON Lines of objects when it parses as one, else text.
    A `.txt` file that is one JSON document whole (a request body or a set of prompts saved as
    text) is read as JSON too: its keys say which string is which prompt."""
    if suffix and suffix != ".txt":
        return for_suffix(suffix)
    if text.lstrip().startswith(("{", "[")):
        try:
            json.loads(text)
            return _BY_SUFFIX[".json"]
        except ValueError:
            pass
        if suffix:
            return for_suffix(suffix)
        lines = [line for line in text.splitlines() if line.strip()]
        if all(line.lstrip().startswith("{") and _parses(line) for line in lines):
            return _BY_SUFFIX[".jsonl"]
    return FORMATS[0]


def _parses(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True
