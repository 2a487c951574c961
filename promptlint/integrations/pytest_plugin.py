"""``pytest --promptlint``: lint the model requests a test suite sends.

Registered by entry point (``pytest11``), so it loads with every pytest run: until
``--promptlint`` is given it only adds its options, and imports nothing of promptlint.
Turned on, it captures the requests every test sends through httpx (``traffic.capture``),
names each by the test that sent it, and at the end writes a ``promptlint`` section into
the terminal summary: each finding once, with its token cost, how many requests it
appeared in, and which tests sent them. It never changes a test's outcome;
``--promptlint-fail`` turns findings into a failing exit status for the session, as
pytest-cov's ``--cov-fail-under`` does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SECTION = "promptlint"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(SECTION, "lint the model requests the tests send")
    group.addoption("--promptlint", action="store_true", help="capture the model requests the tests send and lint them")
    group.addoption("--promptlint-fail", action="store_true", help="exit non-zero when a captured request has a finding")
    group.addoption("--promptlint-log", metavar="PATH", help="write the captured requests as JSONL, for promptlint audit")
    group.addoption("--promptlint-select", metavar="CODES", help="comma-separated rule codes, names or prefixes to check (over the config's)")
    group.addoption("--promptlint-ignore", metavar="CODES", help="comma-separated rule codes, names or prefixes to skip (added to the config's)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("promptlint"):
        config.pluginmanager.register(Session(config), f"{SECTION}-session")


def _codes(value: str | None) -> list[str]:
    return [code.strip() for code in (value or "").split(",") if code.strip()]


class Session:
    """The capture of one test session, and what it found."""

    def __init__(self, config: pytest.Config):
        from ..engine.config import ConfigError, Resolver
        from ..traffic.capture import Capture

        try:
            resolver = Resolver(select=_codes(config.getoption("promptlint_select")), ignore=_codes(config.getoption("promptlint_ignore")))
            lint_config = resolver.for_folder(Path(config.rootpath))
        except ConfigError as exc:
            raise pytest.UsageError(f"promptlint: {exc}") from None
        self.fail = config.getoption("promptlint_fail")
        log = config.getoption("promptlint_log")
        self.log = Path(log) if log else None
        self.capture = Capture(lint_config)
        self.lines: list[str] = []
        self.capture.__enter__()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem):
        self.capture.label = item.nodeid
        try:
            return (yield)
        finally:
            self.capture.label = ""

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.capture.__exit__(None, None, None)
        try:
            requests = self.capture.requests
        except Exception as exc:  # a bug of ours must not turn the session into an internal error
            self.lines = [f"the captured requests could not be linted: {exc!r}"]
            return
        self.lines = summary(requests)
        if self.log is not None:
            from ..traffic import logfile

            try:
                logfile.write(self.log, (request.body for request in requests))
                self.lines.append(f"{len(requests)} requests written to {self.log}")
            except (OSError, ValueError) as exc:
                self.lines.append(f"the log could not be written: {exc}")
        if self.fail and any(request.findings for request in requests) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            self.lines.append("FAIL: the captured requests have findings (--promptlint-fail)")

    def pytest_terminal_summary(self, terminalreporter) -> None:
        terminalreporter.write_sep("=", SECTION)
        for text in self.lines:
            terminalreporter.write_line(text)


def summary(requests) -> list[str]:
    """The section's lines: each finding once, the costliest first, then how much was found."""
    seen: dict[tuple[str, str, str], list] = {}  # (code, name, message) -> [tokens, requests, tests]
    for request in requests:
        found: dict[tuple[str, str, str], int] = {}
        for f in request.findings:
            found[f.code, f.name, f.message] = max(found.get((f.code, f.name, f.message), 0), f.tokens)
        for key, tokens in found.items():
            entry = seen.setdefault(key, [0, 0, {}])
            entry[0] = max(entry[0], tokens)
            entry[1] += 1
            entry[2].setdefault(request.label or "(outside a test)", None)
    lines = []
    for (code, name, message), (tokens, count, tests) in sorted(seen.items(), key=lambda item: (-item[1][0], item[0])):
        cost = f", {tokens} tokens" if tokens else ""
        lines.append(f"{code} {name}: {message} ({count} request{'s' * (count != 1)}{cost})")
        lines.extend(f"    {test}" for test in tests)
    affected = sum(bool(request.findings) for request in requests)
    lines.append(f"{len(seen)} finding{'s' * (len(seen) != 1)} in {affected} of {len(requests)} model requests captured")
    return lines
