"""The board's side of the host link: ``app.wiring.Wiring`` made on first need, and what a host
may ask of the match through it -- DECIDE for the board's computer (``gammon play``), JOINT for
a match with another board (``gammon remote play``), PLAYER_SEED (a host's dice part), the
pairing value on the LEDs; and the link's part in idle mode (``app.power``).

Every answer goes through the controller's public methods; what they journal is stored and
shown at once (``drain``, ``wake``). Nothing here allocates until a transport is wanted: the
simulator without a link port spends no heap on the link.
"""

from micropython import const

# The modules loaded with a host connected in a remote match: 60 on the board model (booted
# 49, the link up 56, paired and logged in 59, the match's dice 60); room up to 72
_MODULES = const(72)


def room_for_modules(total):
    """Make ``sys.modules`` hold ``total`` modules without growing, now: the link's modules
    are imported while a host is connected, mid-match, and the import that fills the table
    grows it then -- on the board model a 584-byte block (59 -> 73 entries), which a heap
    fragmented by pairing, the watch and a remote match did not have: the buttons task died of
    it at the match's first press (80k). Grown here, when the link is made at boot, while the
    heap is whole: 112 bytes more from the start. A dict never shrinks: the keys go again, the
    room stays. MicroPython only (CPython's dict has the memory)."""
    import sys

    if sys.implementation.name != "micropython":
        return
    m = sys.modules
    keys = ["\0room%d" % i for i in range(total - len(m))]
    for k in keys:
        m[k] = sys  # (any module: the entry goes again at once)
    for k in keys:
        del m[k]


class HostSide:
    """``app``: ``app.main.App`` (its ``hw``, ``ctl``, ``recorder``, ``view``, ``power``,
    ``wake``, ``drain()``, ``log``)."""

    def __init__(self, app):
        self.app = app
        self.link_port = 0  # simulator: the link on a local TCP port
        self.ble = None  # True/False; None: when the bluetooth module exists
        self.serial = None  # True/False; None: on the USB serial port without BLE
        self.wiring = None  # app.wiring.Wiring, made when a transport is wanted

    def links(self, ble=None, serial=None):
        """Which link transports to run besides ``link_port``: each True, False or None
        ("auto": see ``app.wiring.Wiring``)."""
        self.ble = ble
        self.serial = serial

    @property
    def hub(self):
        """The link's ``Hub`` (None until a transport or a combo needs it)."""
        w = self.wiring
        return w.hub if w is not None else None

    def coroutines(self):
        """The host link's coroutines (docs/protocol.md), maybe none: ``app.wiring.Wiring`` over
        the journal on every transport wanted."""
        wanted = self.link_port or self.ble is not False or self.serial
        if self.app.recorder.journal is None or not wanted:
            return []  # no transport wanted (the simulator without --link-port): no heap spent
        return self.make_wiring().coroutines(self.link_port, self.ble, self.serial)

    def make_wiring(self):
        if self.wiring is None:
            room_for_modules(_MODULES)
            from app.wiring import Wiring

            app = self.app
            self.wiring = Wiring(
                hw=app.hw,
                recorder=app.recorder,
                show_code=self._show_code,
                contribute=self._player_seed,
                log=self._log,
                trial=app.trial,
                battery=app.power.info,
                brain=self,
            )
        return self.wiring

    def _log(self, m):
        self.app.log(m)  # looked up at each call: the console may be swapped (tests)

    def get_hub(self):
        """The hub, built on first use (a socket connection, the pairing combo); None without
        a journal (nothing to serve)."""
        if self.app.recorder.journal is None:
            return self.hub
        return self.make_wiring().get_hub()

    # idle mode (app.power): a session keeps the board awake; advertising slows down

    def connected(self):
        hub = self.hub
        return hub is not None and bool(hub.board.sessions)

    def advertise(self, ms):
        ble = self.wiring.ble if self.wiring is not None else None
        if ble is not None:
            ble.advertise_every(ms)

    # the link's requests

    def _player_seed(self, name, commitment, part, proof=b""):
        """A host's dice contribution (PLAYER_SEED) and its proof: journaled and published at once."""
        try:
            mid = self.app.ctl.contribute(name, part, commitment, proof)
        except ValueError:
            return None
        self._decided(None)
        return mid

    def _show_code(self, code):
        """The link's pairing value on the LED dice (``View.show_code``, docs/leds.md)."""
        app = self.app
        app.view.show_code(code, app.hw.clock.ticks_ms())
        app.wake.set()

    # ``Board.brain``: a host deciding for the computer (DECIDE: ``gammon play``; app.opponent)
    def brain_hello(self, side, name, now):
        return self._decided(self.app.ctl.hello(side, name, now))

    def brain_play(self, turn, steps, now):
        return self._decided(self.app.ctl.decide(turn, steps, now))

    def brain_cube(self, turn, yes, now):
        return self._decided(self.app.ctl.decide(turn, yes, now))

    def brain_resign(self, turn, value, now):
        return self._decided(self.app.ctl.decide(turn, value, now))

    # a match with another board (JOINT: ``gammon remote play``; bg.dice.joint)
    def joint_start(self, side, commitment):
        try:
            r = self.app.ctl.joint_start(side, commitment)
        except ValueError as e:
            return str(e)
        self._decided(None)
        return r

    def joint_take(self, k, share, now):
        """The other board's share of throw ``k`` (JOINT SHARE). ``share`` None: JOINT ASKED --
        this board's own share of throw ``k`` went to the other board (its host says so), so
        its player had pressed ROLL, and a power cut since lost that (the journal holds no
        ask): the roll again, as the player's intent, so the turn cannot become a double now.
        (One method for both: a method more is a function object and a class dict slot more
        on the heap, for a request made once after a power cut.) None, or why not."""
        c = self.app.ctl
        if share is None:
            from app import ctl_defs as D

            # its player's roll waiting, not asked yet, a double still open (else nothing to
            # close), the checkers as the turn began; one short reason for all: a string
            # constant is heap on the board
            if (
                c.side == c.joint_side
                and k == c.throws
                and c.may_double
                and c.intent(c.side, D.I_ROLL, None, now)
            ):
                return self._decided(None)
            return "no roll to ask"
        try:
            c.joint_take(k, share, now)
        except ValueError as e:
            return str(e)
        return self._decided(None)

    def joint_share(self, k):
        return self.app.ctl.joint_share(k)

    def _decided(self, err):
        if err is None:
            self.app.drain()
            self.app.wake.set()
        return err
