"""What the buttons' gestures do (the handler of ``app.buttons.Gestures``): a press or a long
press to the controller as ``Controller.button``'s table says, the battery gauge, the link's
pairing confirmation and window, ending a money session, unpairing every host; and the roll
animation a throw starts (cosmetic: without heap for it the dice just appear).

Allocation: a press allocates nothing but the records it journals; a throw's animation its
task (``app.dice_anim``, imported for the throw and forgotten at once: between throws nothing
of it is kept; docs/memory.md).
"""

from app import ctl_defs as D
from app.engine_task import _ticks_us
from bg import record as R


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
        D.forget("app.dice_anim")

    def _frame(self, a, b, dim):
        if not dim:
            # settled: its task goes (a replaced one's last frame comes after the next task
            # began; that one then runs on unheld and still ends last: the throws' frames are
            # equally long)
            self.anim = None
        self.app.view.show_dice(a, b, dim)
        self.app.wake.set()
