"""The production hook: a sample of the model requests an application sends, to JSONL logs.

    hook = promptlint.sample_requests("logs/requests.jsonl", rate=0.01)

A request is sampled on its way out at ``rate``, and its body queued; everything else
happens on a thread of the hook's own: reading the body (only a request shape the readers
know is kept, as in ``capture``), writing it a line at a time, and rotating the log when
it reaches ``max_bytes`` (``requests.jsonl`` becomes ``requests.1.jsonl``, that one
``requests.2.jsonl``, up to ``backups``), so ``promptlint audit logs/`` reads them all. The
hook never raises into the application nor makes it wait: a full queue drops the request,
and the hook's own errors (a full disk, a folder that went away) are counted in ``errors``
and swallowed. ``close()`` (also run at exit) writes what is queued and stops.
"""

from __future__ import annotations

import atexit
import queue
import random
import threading
from pathlib import Path

from . import intercept, logfile
from .capture import read_body

QUEUED = 1000  # requests waiting to be written, at most


class Hook:
    def __init__(self, path: str | Path, *, rate: float = 0.01, max_bytes: int = 64 << 20, backups: int = 5):
        if not 0 <= rate <= 1:
            raise ValueError("the sample rate must be between 0 and 1")
        self.path = Path(path)
        self.rate = rate
        self.max_bytes = max_bytes
        self.backups = backups
        self.sampled = self.written = self.skipped = self.dropped = self.errors = 0
        self._queue: queue.Queue[bytes | None] = queue.Queue(QUEUED)
        self._thread = threading.Thread(target=self._write_all, name="promptlint-hook", daemon=True)
        self._closed = False

    def start(self) -> Hook:
        """Start sampling; a hook already started (as ``sample_requests`` returns it) goes on."""
        if self._thread.ident is not None:
            return self
        self._thread.start()
        intercept.listen(self._take)
        atexit.register(self.close)
        return self

    def close(self, timeout: float = 5.0) -> None:
        """Stop sampling, and write what is queued (waiting ``timeout`` seconds at most)."""
        if self._closed:
            return
        self._closed = True
        intercept.stop(self._take)
        atexit.unregister(self.close)
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            self.errors += 1
        if self._thread.is_alive():
            self._thread.join(timeout)

    def __enter__(self) -> Hook:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _take(self, body: bytes, endpoint: str) -> None:
        if random.random() >= self.rate:
            return
        self.sampled += 1
        try:
            self._queue.put_nowait(body)
        except queue.Full:
            self.dropped += 1

    def _write_all(self) -> None:
        while (body := self._queue.get()) is not None:
            try:
                self._write(body)
            except Exception:
                self.errors += 1

    def _write(self, body: bytes) -> None:
        if read_body(body) is None:
            self.skipped += 1
            return
        text = logfile.line(body)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size + len(text) > self.max_bytes:
            self._rotate()
        with open(self.path, "ab") as out:
            out.write(text)
        self.written += 1

    def _rotate(self) -> None:
        """Each older log one number up (the oldest dropped), the current one the first."""
        for number in range(self.backups, 0, -1):
            older = self._numbered(number - 1) if number > 1 else self.path
            if older.exists():
                older.replace(self._numbered(number))
        self.path.unlink(missing_ok=True)  # with no backups kept

    def _numbered(self, number: int) -> Path:
        return self.path.with_name(f"{self.path.stem}.{number}{self.path.suffix}")


def sample_requests(path: str | Path, *, rate: float = 0.01, max_bytes: int = 64 << 20, backups: int = 5) -> Hook:
    """Start sampling the model requests sent through httpx into JSONL logs at ``path``; see ``Hook``."""
    return Hook(path, rate=rate, max_bytes=max_bytes, backups=backups).start()
