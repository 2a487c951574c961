"""promptlint: a static analyzer for RAG prompts, as a library.

    import promptlint

    findings = promptlint.lint_text(text, path="prompt.txt")
    fixed = promptlint.fix_text(text, path="prompt.txt")
    findings = promptlint.lint_paths(["prompts/"])
    with promptlint.capture() as captured:  # the model requests sent meanwhile
        ...
    captured.findings

Every name below is imported on first use, so ``import promptlint`` loads
neither the rules, their word lists nor the tokenizer; a tool that imports the
package only to call one function, or not at all, pays for nothing else.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

# The name it is installed under (`pip install promptlint-rag`): `promptlint` on the package
# index is another project. The import name and the command are `promptlint`.
DISTRIBUTION = "promptlint-rag"

if TYPE_CHECKING:
    from .canonical.render import Chunk, build_prompt, order_sources, render_source
    from .engine.config import Config, ConfigError
    from .engine.config import build as build_config
    from .engine.lint import fix_text, lint_text
    from .model.findings import Applicability, Edit, Finding, Fix, Severity
    from .readers.document import UnreadableFile
    from .traffic.capture import capture
    from .traffic.hook import sample_requests

_LAZY = {
    "lint_text": "promptlint.engine.lint",
    "fix_text": "promptlint.engine.lint",
    "Finding": "promptlint.model.findings",
    "Fix": "promptlint.model.findings",
    "Edit": "promptlint.model.findings",
    "Applicability": "promptlint.model.findings",
    "Severity": "promptlint.model.findings",
    "UnreadableFile": "promptlint.readers.document",
    "Chunk": "promptlint.canonical.render",
    "render_source": "promptlint.canonical.render",
    "order_sources": "promptlint.canonical.render",
    "build_prompt": "promptlint.canonical.render",
    "ConfigError": "promptlint.engine.config",
    # The settings a config file would give, from a mapping: build_config({"select": ["PL1"]}, "mine").
    "build_config": "promptlint.engine.config:build",
    # The model requests sent through httpx meanwhile, and their findings (docs/pytest-capture.md).
    "capture": "promptlint.traffic.capture",
    # The production hook: a sample of those requests, to JSONL logs for `promptlint audit`.
    "sample_requests": "promptlint.traffic.hook",
}

__all__ = [*_LAZY, "lint_paths"]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'promptlint' has no attribute {name!r}")
    module, _, attribute = _LAZY[name].partition(":")
    value = getattr(importlib.import_module(module), attribute or name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def lint_paths(paths: Iterable[str | PathLike[str]], *, config: Config | None = None) -> list[Finding]:
    """Findings for files, and for folders searched for prompt files, as ``promptlint check`` finds them.

    Without ``config`` each file gets the config of its folder (the nearest
    ``.promptlint.yaml``, ``.promptlint.yml`` or ``pyproject.toml`` with
    ``[tool.promptlint]``) and folders are walked by its include and exclude, as
    on the command line; with one, that config is used for every file, as with
    ``--config``. Findings come file by file in the order of the walk, each
    file's by position, with ``Finding.path`` naming the file.

    A file or folder that cannot be read (missing, binary, not UTF-8, no permission) raises
    ``UnreadableFile`` naming it, and a bad config raises
    ``promptlint.engine.config.ConfigError``: the command line reports both as errors
    (exit 2), not as findings. A file that reads but does not parse (bad JSON) is
    a PL900 finding.
    """
    from .engine import files
    from .engine.config import Resolver
    from .engine.lint import check_document
    from .readers import document

    resolver = Resolver() if config is None else None
    wants = resolver.wants if resolver else config.wants
    findings: list[Finding] = []
    def unreadable(exc: OSError):
        raise document.UnreadableFile(f"{exc.filename}: cannot read: {exc.strerror or exc}")

    for path in files.expand([Path(p) for p in paths], wants, unreadable):
        file_config = resolver.for_folder(path.parent) if resolver else config
        findings.extend(check_document(document.read(path, suffix=file_config.suffix_for(path), lexicon=file_config.lexicon), file_config).findings)
    return findings
