"""With nothing on trial (the built-in firmware here) the App lets ``app.update`` go on
MicroPython (~1.1 kB on the 32-bit board model: docs/memory.md): a stand-in keeps the version
for INFO and builds the real ``Trial`` at the first update request. Nothing else changes: the
version, a confirmation with nothing to confirm, the trial's deadline task ending at once."""

import sys

from app_power_helpers import _app, _dir


def test_nothing_on_trial_lets_app_update_go_and_keeps_the_version():
    from bg.update import boot

    app, _ = _app(_dir())
    if sys.implementation.name == "micropython":
        assert "app.update" not in sys.modules
    assert app.trial.version() == boot.BUILTIN
    app.trial.healthy()  # the supervisor's first "all alive": nothing to confirm, no error
    co = app.trial.run()
    try:
        co.send(None)  # the deadline's task: over at once, nothing on trial
        raise AssertionError("the trial's task waited")
    except StopIteration:
        pass


def test_an_update_request_loads_it_again():
    app, _ = _app(_dir())
    # no firmware root on this machine: no updates (as app.update.Trial answers), loaded again
    assert app.trial.updater() is None
    assert "app.update" in sys.modules
    assert app.trial.updater() is None  # built once
    assert app.trial.built is not None and app.trial.built.version() == app.trial.version()
