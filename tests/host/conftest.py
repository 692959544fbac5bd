"""Fixtures the CPython-only tests share."""

import pytest


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A ``GAMMON_HOME`` of the test's own (the library and its files); CLI test modules use it
    for every test with ``pytestmark = pytest.mark.usefixtures("home")``."""
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    return tmp_path / "home"
