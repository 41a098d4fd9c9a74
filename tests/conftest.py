"""Tests run from the repository root (AppTest resolves page paths against it)."""

from __future__ import annotations

import pytest

from tests.apptest_helpers import ROOT


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch):
    monkeypatch.chdir(ROOT)
