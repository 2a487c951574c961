"""``--no-skips`` (tests/noskips.py), run on small suites by pytester: a skip fails the session,
whether a test's or a whole module's, and a run without one passes as before."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

PASSING = "def test_passes():\n    pass\n"


@pytest.mark.parametrize(("source", "outcomes"), [
    ("import pytest\n\ndef test_skips():\n    pytest.skip('no framework')\n", {"skipped": 1}),
    ("import pytest\n\npytest.importorskip('no_such_framework')\n\ndef test_never_runs():\n    pass\n", {"skipped": 1}),
], ids=["a test", "a module"])
def test_a_skip_fails_the_session(pytester, source, outcomes):
    pytester.makepyfile(test_skipping=source, test_passing=PASSING)
    result = pytester.runpytest("-p", "noskips", "--no-skips")
    result.assert_outcomes(passed=1, **outcomes)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*skipped, which --no-skips fails*", "test_skipping.py*"])


def test_a_skip_passes_without_the_option_and_a_run_without_skips_passes_with_it(pytester):
    pytester.makepyfile(test_skipping="import pytest\n\ndef test_skips():\n    pytest.skip('no framework')\n")
    assert pytester.runpytest("-p", "noskips").ret == pytest.ExitCode.OK
    pytester.makepyfile(test_skipping=PASSING)
    result = pytester.runpytest("-p", "noskips", "--no-skips")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
