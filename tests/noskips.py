"""``--no-skips``: a run in which a skipped test (or a module skipped whole, as
``pytest.importorskip`` does) fails the session. CI's framework run (.ci/run) uses it: there a
skip would mean the environment lacks what the tests drive, and must not pass for green."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--no-skips", action="store_true", default=False,
                     help="fail the session when a test or a module is skipped (CI's framework run)")


class Skips:
    def __init__(self):
        self.found: list[str] = []

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.skipped:
            self.found.append(report.nodeid)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.skipped:
            self.found.append(report.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.found and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.found:
            terminalreporter.write_sep("=", "skipped, which --no-skips fails", red=True)
            for nodeid in self.found:
                terminalreporter.write_line(nodeid)


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("no_skips"):
        config.pluginmanager.register(Skips(), "no-skips")
