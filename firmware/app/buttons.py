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

``Presses`` is the board's handler: what the gestures do -- a press or a long press to the
controller as ``Controller.button``'s table says, the battery gauge, the link's pairing
confirmation and window, ending a money session, unpairing every host; and the roll animation a
throw starts (cosmetic: without heap for it the dice just appear). One module with the gestures:
a module of its own kept a module object and a dict more (64 B; docs/memory.md).

Allocation: a press allocates nothing but the records it journals; a throw's animation its
task (``app.dice_anim``, imported for the throw and forgotten at once: between throws nothing
of it is kept; docs/memory.md).
"""

from app import ctl_defs as D
from app.ctl_defs import LONG, PRESS
from app.engine_task import _ticks_us
from bg import forget
from bg import record as R
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


class Presses:
    """``app``: ``app.main.App`` (its ``ctl``, ``engine``, ``host``, ``power``, ``view``,
    ``recorder``, ``wake``, ``drain()``, ``log``)."""

    def __init__(self, app):
        self.app = app
        self.animate = True  # the roll animation (needs the asyncio loop running)
        self.anim = None  # the animation's task while it runs (``app.dice_anim``)

    def press(self, i, kind, now):
        """Button ``i`` pressed (``PRESS``) or held (``LONG``)."""
        app = self.app
        role, side = app.buttons.roles[i]
        app.engine.settle()  # a press refers to the board as it is now
        # ROLL held alone: the battery gauge (docs/controller.md) -- except the mover's while it
        # moves, which asks the coach (app.opponent); halted: nothing reaches the game
        ctl = app.ctl
        coach = ctl.phase == D.MOVING and side == ctl.side
        if app.power.input(now, kind == D.LONG and role == "roll" and not coach):
            app.wake.set()
            return
        hub = app.host.hub
        if kind == D.PRESS and hub is not None and hub.board.awaiting_button():
            # a pairing value is shown: ROLL confirms it, CUBE refuses it; the game sees neither
            if role == "roll" and hub.confirm_pairing():
                app.log("pairing confirmed")
            elif role == "cube" and hub.reject_pairing():
                app.log("pairing refused")
            app.wake.set()
            return
        if ctl.button(side, D.ROLL if role == "roll" else D.CUBE, kind, now):
            thrown = False
            for a in ctl.outbox:
                if a[0] == R.ROLL or a[0] == R.OPENING:
                    thrown = True
            app.drain()
            if ctl.selecting and app.recorder.verbose:
                r = ctl.rec
                app.log("CHOICE %d %d %s" % (r.selected, r.ncand, r.steps(r.selected)))
            if self.animate and thrown and ctl.phase == D.MOVING and ctl.dice[0]:
                self._animate()
        ctl.mix(_ticks_us())
        app.engine.kick()
        app.wake.set()

    def both(self, role, now):
        """Both buttons of ``role`` held long: ROLL opens the link's pairing window, CUBE ends
        a money session (False: not now, the hold is an ordinary long press)."""
        app = self.app
        if role == "roll":
            host = app.host
            hub = host.get_hub() if host.wiring is not None else None  # no transport: no pairing
            if hub is not None:
                hub.open_pairing()
                app.log("pairing window open")
            return True
        if app.ctl.intent(0, D.I_END, None, now):
            app.drain()
            app.wake.set()
            return True
        return False

    def all_held(self, now):
        """All four buttons held: the revoke-all gesture. The link forgets every paired host
        (on flash), closes the pairing window and ends every session; the LEDs say so."""
        app = self.app
        hub = app.host.get_hub()
        if hub is not None:
            hub.revoke_all()
        app.view.show_revoked(now)
        app.log("link: every host unpaired" if hub is not None else "link: none (nothing to unpair)")
        app.wake.set()

    def _animate(self):
        """The roll animation of the throw on the dice (``app.dice_anim``): its module is
        forgotten at once, its task holds what it needs until it settles (``_frame``)."""
        d = self.app.ctl.dice
        try:
            from app import dice_anim

            self.anim = dice_anim.start(self._frame, d[0], d[1], self.anim)
        except MemoryError:
            self.anim = None  # cosmetic: the dice just appear
            self.app.view.anim = None
        forget("app.dice_anim")

    def _frame(self, a, b, dim):
        if not dim:
            # settled: its task goes (a replaced one's last frame comes after the next task
            # began; that one then runs on unheld and still ends last: the throws' frames are
            # equally long)
            self.anim = None
        self.app.view.show_dice(a, b, dim)
        self.app.wake.set()
