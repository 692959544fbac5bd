"""``app.buttons.Gestures``: the board's four buttons turned into presses, long presses and
combos (docs/controller.md), tried the way clumsy hands use them: clicks shorter than a poll,
holds, two buttons, three, all four, a hold across the clock's wrap. Pure (no asyncio, no HAL):
runs on CPython and MicroPython (tests/host/test_controller_mpy.py)."""

from app.buttons import LONG_MS, POLL_MS, REVOKE_MS, Gestures
from app.ctl_defs import LONG, PRESS

ROLES = [("roll", 0), ("cube", 0), ("roll", 1), ("cube", 1)]
_WRAP = 1 << 30  # the ESP32's ticks_ms period


class _Buttons:
    def __init__(self):
        self.down = bytearray(4)
        self.clicks = bytearray(4)

    def is_down(self, i):
        return bool(self.down[i])

    def take(self, i):
        n = self.clicks[i]
        self.clicks[i] = 0
        return n


class _Clock:
    def ticks_diff(self, a, b):  # time.ticks_diff on a 2^30 period
        return ((a - b + _WRAP // 2) % _WRAP) - _WRAP // 2


class _Handler:
    def __init__(self, both_takes=True):
        self.events = []
        self.both_takes = both_takes

    def press(self, i, kind, now):
        self.events.append(("press", i, kind))

    def both(self, role, now):
        self.events.append(("both", role))
        return self.both_takes

    def all_held(self, now):
        self.events.append(("all",))


def _setup(both_takes=True, t0=1000):
    b = _Buttons()
    h = _Handler(both_takes)
    g = Gestures(b, _Clock(), ROLES, h)
    return b, h, g, [t0]


def _run(g, now, ms):
    """Poll every POLL_MS for ``ms`` milliseconds (the button task)."""
    end = now[0] + ms
    while now[0] < end:
        g.poll(now[0] % _WRAP)
        now[0] += POLL_MS


def test_a_short_press_is_one_press_on_release():
    b, h, g, now = _setup()
    b.down[0] = 1
    _run(g, now, 100)
    assert h.events == []  # nothing while it is down
    b.down[0] = 0
    _run(g, now, 100)
    assert h.events == [("press", 0, PRESS)]


def test_a_click_shorter_than_a_poll_still_counts():
    b, h, g, now = _setup()
    b.clicks[2] = 1  # the HAL counted a press that came and went between two polls
    _run(g, now, 30)
    assert h.events == [("press", 2, PRESS)]


def test_a_hold_is_one_long_press_and_no_press_on_release():
    b, h, g, now = _setup()
    b.down[1] = 1
    _run(g, now, LONG_MS - 2 * POLL_MS)
    assert h.events == []
    _run(g, now, 4 * POLL_MS + 2000)  # held well past the long press
    assert h.events == [("press", 1, LONG)]
    b.down[1] = 0
    _run(g, now, 100)
    assert h.events == [("press", 1, LONG)]


def test_both_roll_buttons_held_are_the_combo_not_a_long_press():
    b, h, g, now = _setup()
    b.down[0] = b.down[2] = 1
    _run(g, now, LONG_MS + 200)
    assert h.events == [("both", "roll"), ("both", "roll")]  # each hold asks once, no LONG
    b.down[0] = b.down[2] = 0
    _run(g, now, 100)
    assert ("press", 0, PRESS) not in h.events and ("press", 2, PRESS) not in h.events


def test_a_combo_the_handler_declines_is_a_long_press():
    b, h, g, now = _setup(both_takes=False)  # e.g. both CUBE outside a money session
    b.down[1] = b.down[3] = 1
    _run(g, now, LONG_MS + 200)
    assert ("press", 1, LONG) in h.events and ("press", 3, LONG) in h.events


def test_three_buttons_press_nothing():
    b, h, g, now = _setup()
    b.down[0] = b.down[1] = b.down[2] = 1
    _run(g, now, 200)
    b.down[0] = b.down[1] = b.down[2] = 0
    _run(g, now, 100)
    b.down[0] = b.down[1] = b.down[2] = 1
    _run(g, now, LONG_MS + 500)  # held long, too
    b.down[0] = b.down[1] = b.down[2] = 0
    _run(g, now, 100)
    assert h.events == []


def test_all_four_held_is_the_revoke_gesture_once_per_hold():
    b, h, g, now = _setup()
    for i in range(4):
        b.down[i] = 1
    _run(g, now, REVOKE_MS - 100)
    assert h.events == []
    _run(g, now, 200 + 5000)  # keeps holding: still once
    assert h.events == [("all",)]
    for i in range(4):
        b.down[i] = 0
    _run(g, now, 100)
    assert h.events == [("all",)]  # and no press on release
    for i in range(4):
        b.down[i] = 1
    _run(g, now, REVOKE_MS + 100)
    assert h.events == [("all",), ("all",)]  # a new hold: again


def test_a_hold_across_the_clock_wrap_is_still_long():
    b, h, g, now = _setup(t0=_WRAP - 300)  # ticks wrap 300 ms into the hold
    b.down[0] = 1
    _run(g, now, LONG_MS + 100)
    assert h.events == [("press", 0, LONG)]
