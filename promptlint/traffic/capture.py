"""``with promptlint.capture() as captured:``: the requests sent meanwhile, and their findings.

A request is kept when its body is a request shape the JSON reader knows (chat, messages,
Responses, Converse, Cohere, Gemini, a completion), the same reading ``promptlint audit``
gives a log's record; anything else (an embedding, a file upload, a health check) is
dropped. While requests are being sent only the body is kept, in a list: reading and
linting wait until ``requests`` or ``findings`` is asked for, so capture adds almost
nothing to the time of a request. A body sent many times is read and linted once.

The documents a framework's retriever returns meanwhile (``retrievers``) are kept too, by
label: a request is read with those retrieved before it under the same label (the same
test), so that its sources are the documents, found in its text, and not guesses.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..engine.config import Config
from ..engine.config import load as load_config
from ..engine.lint import check_document
from ..meaning.lexicon import Lexicon
from ..model.findings import Finding
from ..readers import document as documents
from ..readers.formats import FILE_TYPES
from ..readers.retrieved import Retrieved
from . import intercept, retrievers

NAME = "request"  # what the findings of a body are placed in, before a request's number names it
RECENT = 100  # the documents retrieved last before a request, of those sent under its label, looked for in it


def read_body(body: bytes, lexicon: Lexicon | None = None, retrieved: tuple[Retrieved, ...] = ()) -> documents.Document | None:
    """The body read as a request (with the config's words, and the documents retrieved before it),
    or None when it is not a shape the readers know."""
    try:
        doc = documents.parse(body, NAME, FILE_TYPES["json"], lexicon)
    except documents.UnreadableFile:
        return None
    if not doc.prompts or doc.errors:
        return None
    return replace(doc, prompts=tuple(replace(p, retrieved=retrieved) for p in doc.prompts)) if retrieved else doc


@dataclass(frozen=True)
class Request:
    """A model request as it was sent: its body's bytes, never its headers."""

    body: bytes
    endpoint: str  # the host and path it went to, without the query string
    label: str  # who sent it: under pytest, the test's node id
    findings: tuple[Finding, ...]  # placed in the body, their path naming the request


class Capture:
    """Requests sent through httpx clients while it is entered, and the documents retrievers returned
    meanwhile (each request's sources are found among those retrieved before it); see the module's docstring.

    ``config`` decides the rules, as for ``check``; by default, the config of the current folder.
    ``label``, while set, is recorded with each request sent (the plugin sets a test's node id).
    """

    def __init__(self, config: Config | None = None):
        self._config = config
        self.label = ""
        self._sent: list[tuple[bytes, str, str, int]] = []  # body, endpoint, label, documents retrieved before it
        self._retrieved: list[tuple[str, Retrieved]] = []  # by label
        self._read = 0  # how many of _sent are read into _requests
        self._requests: list[Request] = []
        self._bodies: dict[tuple[bytes, tuple[Retrieved, ...]], tuple[Finding, ...] | None] = {}

    @property
    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(None)
        return self._config

    def __enter__(self) -> Capture:
        intercept.listen(self._take)
        retrievers.listen(self._take_documents)
        return self

    def __exit__(self, *exc_info) -> None:
        intercept.stop(self._take)
        retrievers.stop(self._take_documents)

    def _take(self, body: bytes, endpoint: str) -> None:
        self._sent.append((body, endpoint, self.label, len(self._retrieved)))

    def _take_documents(self, found: list[Retrieved]) -> None:
        self._retrieved.extend((self.label, document) for document in found)

    @property
    def requests(self) -> list[Request]:
        """The model requests sent so far, in the order they were sent."""
        sent, self._read = self._sent[self._read :], len(self._sent)
        for body, endpoint, label, before in sent:
            retrieved = tuple(document for by, document in self._retrieved[:before] if by == label)[-RECENT:]
            findings = self._findings(body, retrieved)
            if findings is not None:
                number = len(self._requests) + 1
                placed = tuple(replace(f, path=f"{NAME} {number}") for f in findings)
                self._requests.append(Request(body, endpoint, label, placed))
        return list(self._requests)

    @property
    def findings(self) -> list[Finding]:
        """The findings of every request, request by request."""
        return [finding for request in self.requests for finding in request.findings]

    def _findings(self, body: bytes, retrieved: tuple[Retrieved, ...]) -> tuple[Finding, ...] | None:
        key = (body, retrieved)
        if key not in self._bodies:
            doc = read_body(body, self.config.lexicon, retrieved)
            self._bodies[key] = None if doc is None else tuple(check_document(doc, self.config).findings)
        return self._bodies[key]


def capture(config: Config | None = None) -> Capture:
    """A context that captures the model requests sent through httpx while it is entered."""
    return Capture(config)
