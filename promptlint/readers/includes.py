"""Read the templates a template includes or imports, never outside the project root.

A name in `{% include "x" %}`, `{% import "x" as m %}` or `{% from "x" import m %}`
is looked up as a Jinja file-system loader would see it from the template's own
folder, then from the project root. A name that leads outside the root, by `..`,
an absolute path or a symbolic link, is not read: the Jinja front-end reports it
(PL902). A name not found, or a file that is not UTF-8 or does not parse, is
skipped: the application's loader may know where it is, and the file is linted on
its own when it is among the files checked.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .jinja import OUTSIDE_ROOT, Origin, TemplateError, read_template

# The largest included file read; past it the include is skipped like a missing one.
MAX_BYTES = 5_000_000


def project_root(path: Path, config_folder: Path) -> Path:
    """The root a template's includes must stay in: its config's folder, or its own folder when outside it."""
    path = Path(os.path.abspath(path))
    return config_folder if path.is_relative_to(config_folder) else path.parent


class Includes:
    """The included templates of one linted file, each read and parsed once."""

    def __init__(self, template: Path, root: Path):
        self.template = Path(os.path.realpath(template))
        self.folder = Path(os.path.abspath(template)).parent
        self.root = Path(os.path.realpath(root))
        self._read: dict[Path, Origin | None] = {}
        # Every file looked for -> a digest of its bytes, "" when it was not there: for the results cache.
        self.digests: dict[str, str] = {}

    def load(self, name: str) -> Origin | str | None:
        """The template ``name`` names; ``OUTSIDE_ROOT`` when it leads out of the root; None when not found."""
        for base in dict.fromkeys((self.folder, self.root)):
            try:
                target = Path(os.path.realpath(base / name))
            except (OSError, ValueError):  # a NUL in the name
                return None
            if not target.is_relative_to(self.root):
                return OUTSIDE_ROOT
            if target == self.template:
                return None  # including itself, the template would render without end
            if target.is_file():
                return self._origin(target, name)
            self.digests.setdefault(str(target), "")  # created later, it would change the findings
        return None

    def _origin(self, target: Path, name: str) -> Origin | None:
        if target not in self._read:
            self._read[target] = None
            try:
                if target.stat().st_size <= MAX_BYTES:
                    data = target.read_bytes()
                    self.digests[str(target)] = hashlib.sha256(data).hexdigest()
                    self._read[target] = read_template(data.decode("utf-8"), name)
            except (OSError, UnicodeDecodeError, TemplateError):
                pass
        return self._read[target]
