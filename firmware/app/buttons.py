"""Button gestures: the board's four buttons (ROLL and CUBE on each side) turned into the
gestures of docs/controller.md, the way micropython-async's ``Pushbutton`` turns one pin into
press / long press events -- here for a set of buttons whose combinations mean something.

- a press shorter than ``LONG_MS``: ``handler.press(i, PRESS, now)`` when it is released (a
  click shorter than the poll period still counts: the HAL counts it);
- a press held ``LONG_MS``: once per hold, ``handler.both(role, now)`` when the other side's
  button of the same role is held as well (both ROLL: the link's pairing window; both CUBE:
  end a money session) -- when ``both`` returns False the hold is an ordinary
  ``handler.press(i, LONG, now)``;
- all four held ``REVOKE_MS``: ``handler.all_held(now)``, once per hold. Three or more buttons
  down at once press nothing, long or short (they are that gesture, or a hand on the board).

``poll(now)`` reads the HAL (``is_down(i)``, ``take(i)``: presses counted since the last call)
and decides; the button task calls it every ``POLL_MS``. Nothing is allocated after the first
poll. ``roles`` lists ``(role, side)`` per button index (``hwdesc`` rows: "roll"/"cube", 0/1).

Example::

    class Handler:
        def press(self, i, kind, now): print("button", i, kind)
        def both(self, role, now): return False
        def all_held(self, now): print("revoke")

    g = Gestures(hw.buttons, hw.clock, [("roll", 0), ("cube", 0), ("roll", 1), ("cube", 1)], Handler())
    while True:
        g.poll(hw.clock.ticks_ms())
        await asyncio.sleep_ms(POLL_MS)
"""

from app.ctl_defs import LONG, PRESS
from micropython import const

LONG_MS = const(800)
REVOKE_MS = const(3000)  # all four buttons held this long: unpair every host
POLL_MS = const(10)


class Gestures:
    """The gesture state of a set of buttons; ``poll(now)`` calls the handler."""

    def __init__(self, buttons, clock, roles, handler):
        self.buttons = buttons
        self.clock = clock
        self.roles = roles
        self.handler = handler
        n = len(roles)
        self._was = bytearray(n)  # down at the last poll
        self._fired = bytearray(n)  # this hold already gave its long press (or is a combo)
        self._since = [0] * n  # ticks the button went down
        self._all_since = None  # ticks all four went down; False once the gesture fired

    def partner(self, i):
        """The index of the other side's button with the same role as button ``i``."""
        role, side = self.roles[i]
        return self.roles.index((role, 1 - side))

    def poll(self, now):
        b = self.buttons
        h = self.handler
        n = len(self.roles)
        was = self._was
        fired = self._fired
        since = self._since
        clock = self.clock  # clock.ticks_diff(...) calls allocate nothing (a bound method would)
        downs = 0
        for i in range(n):
            if b.is_down(i):
                downs += 1
        for i in range(n):
            presses = b.take(i)
            down = 1 if b.is_down(i) else 0
            if down and not was[i]:
                since[i] = now
                fired[i] = 0
            if down and downs >= 3:
                fired[i] = 1  # part of the revoke-all gesture
            if down and not fired[i] and clock.ticks_diff(now, since[i]) >= LONG_MS:
                fired[i] = 1
                if not (b.is_down(self.partner(i)) and h.both(self.roles[i][0], now)):
                    h.press(i, LONG, now)
            elif was[i] and not down:
                if not fired[i]:
                    h.press(i, PRESS, now)
            elif presses and not down and not was[i]:
                h.press(i, PRESS, now)  # a click shorter than the poll period
            was[i] = down
        if downs < n or n < 4:
            self._all_since = None
        elif self._all_since is None:
            self._all_since = now
        elif self._all_since is not False and clock.ticks_diff(now, self._all_since) >= REVOKE_MS:
            self._all_since = False  # once per hold
            h.all_held(now)
