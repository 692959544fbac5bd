"""``app.host_side.HostSide.coroutines`` (``app.wiring.Wiring``): which link transports the board
serves (docs/controller.md):
the simulator's socket, BLE when the radio exists, and the USB serial link behind its flag
("auto": on when there is no BLE). Runs the real ``App`` on CPython with a small stand-in
for the HAL parts it touches (no pins are used: nothing is started)."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


class _Leds:
    def __init__(self, n):
        self.buf = bytearray(3 * n)


class _Clock:
    def ticks_ms(self):
        return 0

    def ticks_diff(self, a, b):
        return a - b

    def unix_time(self):
        return 1767225600


class _Random:
    def urandom(self, n):
        return os.urandom(n)


class _Storage:
    def __init__(self, root):
        self.root = root

    def ok(self):
        return True


class _Hw:
    def __init__(self, board, root):
        self.leds = _Leds(board.nleds)
        self.clock = _Clock()
        self.random = _Random()
        self.storage = _Storage(root)
        self.buttons = None  # not polled here


@pytest.fixture
def app(tmp_path):
    from app import main
    from bg import hwdesc
    from bg.journal import Journal

    board = hwdesc.load(str(ROOT / "hardware" / "board.json"))
    a = main.App(_Hw(board, str(tmp_path)), board, main.settings_from(None))
    a.recorder.journal = Journal(str(tmp_path))
    a.recorder.journal.open()
    return a


def _names(coros):
    out = []
    for co in coros:
        out.append(co.cr_code.co_filename.rsplit("/", 1)[-1] + ":" + co.cr_code.co_name)
        co.close()
    return out


def test_serial_link_is_on_by_default_without_ble(app, monkeypatch):
    monkeypatch.setitem(sys.modules, "bluetooth", None)  # no radio (CPython, unix port)
    app.host.links()
    assert _names(app.host.coroutines()) == ["serial_link.py:serve"]
    assert app.host.hub is not None


def test_flags_turn_transports_off_and_the_simulator_uses_its_socket(app, monkeypatch):
    monkeypatch.setitem(sys.modules, "bluetooth", None)
    app.host.links(False, False)
    assert app.host.coroutines() == [] and app.host.hub is None  # nothing wanted: no hub, no heap spent
    app.host.link_port = 7607
    app.host.links(False, None)  # the simulator: socket only (serial "auto" stays off beside it)
    assert _names(app.host.coroutines()) == ["sock_link.py:serve"]
    app.host.links(False, True)
    assert _names(app.host.coroutines()) == ["sock_link.py:serve", "serial_link.py:serve"]


def test_ble_when_the_radio_exists_and_serial_then_stays_off(app, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "fakes"))  # this test's radio only
    import asyncio

    import bluetooth  # the fake, written to MicroPython's documented API

    monkeypatch.setitem(sys.modules, "bluetooth", bluetooth)
    monkeypatch.delitem(sys.modules, "app.ble", raising=False)
    # MicroPython's IRQ-safe flag; only constructed here, never awaited
    monkeypatch.setattr(asyncio, "ThreadSafeFlag", asyncio.Event, raising=False)
    app.host.links()
    assert _names(app.host.coroutines()) == ["ble.py:serve"]  # the radio seats its own links
    app.host.links(None, True)
    assert _names(app.host.coroutines()) == ["ble.py:serve", "serial_link.py:serve"]


def test_published_records_are_the_confirmed_actions(app, monkeypatch):
    monkeypatch.setitem(sys.modules, "bluetooth", None)
    from bg import record

    app.host.links(False, True)
    _names(app.host.coroutines())
    got = []
    app.host.hub.publish = got.append
    app.ctl.outbox.append((record.ROLL, (0, 3, 1)))
    app.drain()
    assert [list(record.decode_stream(r)) for r in got] == [[(record.ROLL, (0, 3, 1))]]


def test_a_roll_press_confirms_a_shown_pairing_value_and_does_not_roll(app, monkeypatch):
    monkeypatch.setitem(sys.modules, "bluetooth", None)
    from bg import link as P
    from bg.link.host import HostEnd
    from bg.link.session import Session
    from link_fakes import Rand

    app.host.links(False, True)
    _names(app.host.coroutines())
    logs = []
    app.log = logs.append
    board = app.host.hub.board
    board.open_pairing(60000)
    roll = [b[1] for b in app.board.buttons].index("roll")
    s = Session(board, 185)
    h = HostEnd(Rand(b"app"))
    s.feed(h.pair_start(b"HOST0001", "laptop"))
    ch = h.feed(s.pump())[0][1]
    s.feed(h.pair_confirm(ch))
    assert s.pump() is None and h.value in logs[-2] and "'laptop'" in logs[-1]
    from app.ctl_defs import PRESS

    calls = []
    real = app.ctl.button
    app.ctl.button = lambda *a: calls.append(a) or real(*a)
    app.presses.press(roll, PRESS, 0)
    assert board.hosts and board.hosts[0][0] == b"HOST0001"  # confirmed by the press
    assert "pairing confirmed" in logs
    assert calls == []  # the game never saw that press
    r = h.feed(s.pump())
    assert r[0][0] == P.RSP | P.REQ_PAIR_CONFIRM and h.pair_finish(r[0][1]) == board.hosts[0][1]
    # with nothing shown, the same press is the game's again
    app.presses.press(roll, PRESS, 0)
    assert len(calls) == 1 and logs.count("pairing confirmed") == 1


def test_a_cube_press_refuses_a_shown_pairing_value(app, monkeypatch):
    monkeypatch.setitem(sys.modules, "bluetooth", None)
    from app.ctl_defs import PRESS
    from bg import link as P
    from bg.link.host import HostEnd
    from bg.link.session import Session
    from link_fakes import Rand

    app.host.links(False, True)
    _names(app.host.coroutines())
    logs = []
    app.log = logs.append
    board = app.host.hub.board
    board.open_pairing(60000)
    cube = [b[1] for b in app.board.buttons].index("cube")
    s = Session(board, 185)
    h = HostEnd(Rand(b"app"))
    s.feed(h.pair_start(b"HOST0001", "laptop"))
    s.feed(h.pair_confirm(h.feed(s.pump())[0][1]))
    calls = []
    real = app.ctl.button
    app.ctl.button = lambda *a: calls.append(a) or real(*a)
    app.presses.press(cube, PRESS, 0)
    assert calls == [] and "pairing refused" in logs and board.hosts == []
    r = h.feed(s.pump())
    assert r[0][0] == P.ERROR and P.parse_error(r[0][1])[0] == P.E_DENIED
