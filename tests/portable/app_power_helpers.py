"""Helpers for the app-level battery tests (tests/ctl/test_app_power*.py): the real
``app.main.App`` over the simulator's HAL with the journal on a directory, fed sensor readings
and button presses the way the scanner and the gesture task hand them over."""

import os

from app import controller as C
from app import main, rules
from bg import battery as B
from bg import engine as movegen
from bg import hwdesc

_DESC = hwdesc.load()
_N = [0]


def _dir():
    _N[0] += 1
    d = "/tmp/sg_test_app_power_%d_%d" % (os.getpid() if hasattr(os, "getpid") else 0, _N[0])
    for sub in ("", "/journal"):
        try:
            os.mkdir(d + sub)
        except OSError:
            pass
    for name in os.listdir(d + "/journal"):
        os.remove(d + "/journal/" + name)
    return d


class _Clock:
    def __init__(self):
        self.ms = 5000

    def ticks_ms(self):
        return self.ms

    def ticks_diff(self, a, b):
        return a - b

    def unix_time(self):
        return 1767225600

    def set_unix_time(self, t):
        pass


class _Hw:
    """The HAL parts the App uses, small (``hal.sim`` whole would cost the 64k heap ~4 kB):
    an empty board on the sensors, buttons never down (the tests call the App's handlers),
    the journal on directory ``d``, a cell at ``mv`` and a sleep that only counts."""

    def __init__(self, d, mv, clock):
        self.clock = clock
        self.root = d
        self.mv = mv
        self.reads = self.naps = 0
        self.leds = self
        self.buf = bytearray(3 * _DESC.nleds)
        self.sensors = self.buttons = self.storage = self.battery = self.sleep = self.random = self
        self._idle = _DESC.idle_chain()
        self.radio = None

    def read_into(self, buf):  # Sensors
        buf[: len(self._idle)] = self._idle

    def take(self, i):  # Buttons
        return 0

    def is_down(self, i):
        return False

    def ok(self):  # Storage
        return True

    def read_mv(self):  # Battery
        self.reads += 1
        return self.mv

    def nap(self, ms):  # Sleep
        self.naps += 1

    def urandom(self, n):  # Random: deterministic dice for the test
        return bytes((i * 7 + 3) & 0xFF for i in range(n))

    def ready(self):
        return True

    def show(self):  # Leds
        pass


def _app(d, mv=3900, clock=None, log=None):
    hw = _Hw(d, mv, clock or _Clock())
    app = main.App(hw, _DESC, main.settings_from({"length": 3}), log or (lambda m: None))
    app.presses.animate = False
    app.boot()
    app.power.step(hw.clock.ms)  # the first battery reading
    return app, hw


def _idx(app, role, side):
    return app.buttons.roles.index((role, side))


def _sense(app, pos):
    """The players moved checkers to ``pos``: the scanner's stable reading, as the app gets it."""
    app.hw.clock.ms += 40
    app.sensing.counts[:] = rules.counts_of(pos, bytearray(rules.NLOC), app.ctl.cap)
    app.engine.on_board(app.hw.clock.ms)


def _press(app, role, side):
    app.hw.clock.ms += 40
    app.presses.press(_idx(app, role, side), C.PRESS, app.hw.clock.ms)


def _pick(c):
    """The first legal play the generator visits (which one the players make does not matter
    here; ctl_helpers' robot is not loaded: the board's 64k holds the App and its journal)."""
    box = [None]

    def visit(w, st, n):
        if box[0] is None:
            box[0] = tuple(st[: 2 * n])

    movegen.for_each_end(c.mt.pos, c.side, c.dice[0], c.dice[1], visit)
    return box[0] or ()


def _start(app):
    """Start a match and throw the opening; returns where the checkers are (the players'
    board, kept by the test)."""
    pos = rules.start_position()
    _sense(app, pos)
    _press(app, "roll", 0)  # MATCH_START
    while app.ctl.phase == C.OPENING:
        _press(app, "roll", 0)
    assert app.ctl.phase == C.MOVING
    return pos


def _turn(app, pos):
    """The side on roll moves its checkers on ``pos`` and confirms, then the other side rolls."""
    c = app.ctl
    side = c.side
    rules.apply_steps(pos, side, _pick(c))
    _sense(app, pos)
    _press(app, "roll", side)
    assert c.phase == C.AWAIT_ROLL, c.phase
    _press(app, "roll", c.side)
    assert c.phase == C.MOVING


def _confirmed(app):
    out = []
    app.recorder.watchers.append(lambda k, f: out.append((k, f)))
    return out


def _critical(app, hw):
    hw.mv = _DESC.battery["critical_mv"] - 40
    for _ in range(B.CONFIRM):
        hw.clock.ms += _DESC.battery["poll_s"] * 1000
        app.power.step(hw.clock.ms)
    assert app.power.halted


def _journal_bytes(d):
    total = 0
    for name in os.listdir(d + "/journal"):
        total += os.stat(d + "/journal/" + name)[6]
    return total
