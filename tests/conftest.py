"""Tests run from the repository root (AppTest resolves page paths against it)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.apptest_helpers import ROOT


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch):
    monkeypatch.chdir(ROOT)


# Where the suite's time goes, per file (setup + call + teardown, summed over both workers):
# printed after `--durations`' slowest tests, to show which files to trim when CI grows.
_SECONDS_PER_FILE: Counter[str] = Counter()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _SECONDS_PER_FILE[report.nodeid.split("::", 1)[0]] += report.duration


def pytest_terminal_summary(terminalreporter) -> None:
    if len(_SECONDS_PER_FILE) < 2:
        return
    terminalreporter.write_sep("=", "slowest files (seconds of test time, both workers)")
    for path, seconds in _SECONDS_PER_FILE.most_common(15):
        terminalreporter.write_line(f"{seconds:8.1f}  {path}")
