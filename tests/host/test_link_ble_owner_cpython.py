"""The BLE owner-precedence attacks of tests/mpy/test_link_ble_owner.py on CPython too: the same
``app.ble`` and ``app.link`` code over the same fake ``bluetooth`` radio (MicroPython's
``ThreadSafeFlag`` stood in for by an ``asyncio.Event``, ``time.ticks_ms`` and
``asyncio.sleep_ms`` by their CPython equivalents: the simulation steps the tasks itself on the
board's virtual clock)."""

import asyncio
import importlib
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ATTACKS = (
    "test_three_strangers_reconnecting_every_2ms",
    "test_one_stranger_reconnecting_every_50ms",
    "test_idle_strangers_holding_every_connection",
    "test_garbage_writers_and_half_open_frames",
    "test_a_logged_in_host_is_never_pushed_out_and_a_passkey_waits_only_so_long",
)


_MODULES = ("bluetooth", "app.ble", "ble_central", "ble_crowd", "test_link_ble_owner")


@pytest.fixture(scope="module")
def owner_module():
    with pytest.MonkeyPatch.context() as mp:
        # the fake radio and the MicroPython-only module under test, for this module only (the
        # fake bluetooth on every test's path would give the app a radio everywhere)
        for sub in ("tests/fakes", "tests/mpy"):
            mp.syspath_prepend(str(ROOT / sub))
        mp.setattr(asyncio, "ThreadSafeFlag", asyncio.Event, raising=False)
        mp.setattr(asyncio, "sleep_ms", lambda ms: asyncio.sleep(ms / 1000), raising=False)
        mp.setattr(time, "ticks_ms", lambda: int(time.monotonic() * 1000), raising=False)
        mp.setattr(time, "ticks_diff", lambda a, b: a - b, raising=False)
        for name in _MODULES:
            sys.modules.pop(name, None)
        import app

        if hasattr(app, "ble"):  # an app.ble bound to another bluetooth module
            mp.delattr(app, "ble")
        yield importlib.import_module("test_link_ble_owner")
        for name in _MODULES:
            sys.modules.pop(name, None)
        if hasattr(app, "ble"):
            delattr(app, "ble")


@pytest.mark.parametrize("attack", ATTACKS)
def test_the_owner_gets_through_over_ble_on_cpython(owner_module, attack, capsys):
    getattr(owner_module, attack)()
    out = capsys.readouterr().out
    if attack.startswith("test_a_logged"):
        return  # no crowd: its asserts are the test's own
    assert "owner %d/%d" % (owner_module.REQUESTS, owner_module.REQUESTS) in out, out
