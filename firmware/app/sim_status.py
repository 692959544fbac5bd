"""The simulator's status line: the controller's own state, for the page's status panel.

Only the simulator (``hal.sim`` with a server) loads this module. ``Status.poll(ctl, now)``
runs from the 10 Hz clock task; it compares the few fields the page shows with the last
ones sent (no allocation while nothing changed) and, when one changed, sends one JSON line
``{"t": "st", ...}`` over the sim bus, at the pace of a human's actions: the keys whose value
changed since the line before (the first line after a start has them all; the server keeps
the whole status), tens of bytes where the whole status is ~400 -- on the board model a
line must find its blocks in the board's fragmented heap. The keys (docs/simulator.md,
"Status panel")::

    ph  phase (app.ctl_defs.PHASE_NAMES index)   s    side the board waits on (-1: either)
    d   the dice [d1, d2] (0 0: none)            c/o  cube value, owner (-1: centred)
    sc  score [side 0, side 1]                   len  match length (0: money)
    cr  1 in the Crawford game                   pip  pip counts [side 0, side 1]
    pos the confirmed position (hex, bg.board layout)
    lp  [side, steps] of the last play (null)    m    the controller's message ("illegal play")
    err [missing, extra] row masks while an illegal reading is shown (null)
    res [winner, points, kind] of the last game (null)
    md  1 when the roller may double now (``bg.match``'s rules: the page offers CUBE only then)
    cp  the side the computer plays (-1)          pl   [steps, 1 if the coach's] on the LEDs
    lv  learning mode's verdict on the last play: [side, 1 if the best, play, best play]
    rm  1 when the computer's side is a player at another board (``gammon remote``)
    wt  1 while the board waits for its host's decision (that player's, or an engine's)
    du  the dice the mover's checkers used so far (``bg.recognize``'s ``used``, the one the
        LED dice dim by: a mask of d1 1, d2 2, or a doublet's steps 0..4; 0 outside a turn)
"""

try:
    from binascii import hexlify
except ImportError:  # pragma: no cover
    from ubinascii import hexlify

from app import ctl_defs as _D
from bg import board as _board
from micropython import const

_N = const(19)  # fields compared: see _fields
# the line's keys, in the order ``_values`` fills them
_KEYS = (
    "ph", "s", "d", "c", "o", "sc", "len", "cr", "pip", "pos", "lp",
    "m", "err", "res", "md", "cp", "pl", "lv", "rm", "wt", "du",
)  # fmt: skip
_NK = const(21)
_RETRY_POLLS = const(10)  # after a MemoryError: try again 10 polls (1 s) later


class Status:
    def __init__(self, send):
        self._send = send  # callable(obj): one JSON line to the server
        self._last = [None] * _N
        self._now = [None] * _N
        self._wait = 0  # polls to skip after a line did not fit the heap
        self._vals = [None] * _NK  # the keys' values now (``_values``)
        self._sent = None  # their values in the last line sent (None: no line yet)

    def _fields(self, ctl, now, out):
        out[0] = ctl.phase
        out[1] = ctl.side
        out[2] = ctl.dice[0]
        out[3] = ctl.dice[1]
        out[4] = ctl.mt.cube
        out[5] = ctl.mt.owner
        out[6] = ctl.mt.score[0]
        out[7] = ctl.mt.score[1]
        out[8] = ctl.last_play  # compared by identity: a new play is a new tuple
        out[9] = ctl.message
        out[10] = ctl.show_errors(now)
        out[11] = ctl.missing  # row masks: 28 bits, a small int on the 32-bit board too
        out[12] = ctl.extra
        out[13] = ctl.mt.result
        o = ctl.opp  # the computer's or the coach's play on the LEDs (app.opponent)
        out[14] = o.plan if o is not None and o.showing(ctl) else None
        out[15] = o.verdict if o is not None else None  # learning mode's (a new one: a new tuple)
        out[16] = o is not None and o.remote
        out[17] = o is not None and o.waiting
        out[18] = self._used(ctl)

    def _used(self, ctl):
        """The recogniser's dice used in this turn (as ``app.view`` dims the LED dice), or 0
        outside a turn (its ``used`` is a stale turn's until ``rec.begin``)."""
        return ctl.rec.used if ctl.phase == _D.MOVING and ctl.rec_turn else 0

    def poll(self, ctl, now):
        """Send the status when a field the page shows changed; returns True if it did.
        A line that does not fit the heap (the board model's 64k while a host pairs) is
        dropped and tried again a second later: the game never pays for the page."""
        if self._wait:
            self._wait -= 1
            return False
        cur = self._now
        last = self._last
        self._fields(ctl, now, cur)
        same = True
        for i in range(_N):
            if cur[i] is not last[i] and cur[i] != last[i]:
                same = False
                break
        if same:
            return False
        try:
            self._send(self.line(ctl, now))
        except MemoryError:
            self._wait = _RETRY_POLLS
            return False
        for i in range(_N):
            last[i] = cur[i]
        sent = self._sent
        if sent is None:
            sent = self._sent = [None] * _NK
        vals = self._vals
        for i in range(_NK):
            sent[i] = vals[i]
        return True

    def line(self, ctl, now):
        """The status line: a dict of the keys whose value changed since the last line sent,
        all of them before the first (allocates: only when something changed)."""
        vals = self._vals
        self._values(ctl, now, vals)
        sent = self._sent
        out: dict = {"t": "st"}
        for i in range(_NK):
            v = vals[i]
            if sent is None or v != sent[i]:
                out[_KEYS[i]] = v
        return out

    def _values(self, ctl, now, out):
        pos = ctl.mt.pos
        lp = ctl.last_play
        res = ctl.mt.result
        o = ctl.opp
        out[0] = ctl.phase
        out[1] = ctl.side
        out[2] = [ctl.dice[0], ctl.dice[1]]
        out[3] = ctl.mt.cube
        out[4] = ctl.mt.owner
        out[5] = [ctl.mt.score[0], ctl.mt.score[1]]
        out[6] = ctl.settings.length
        out[7] = 1 if ctl.mt.crawford else 0
        out[8] = [_board.pip_count(pos, 0), _board.pip_count(pos, 1)]
        out[9] = hexlify(pos).decode()
        out[10] = [lp[0], list(lp[1])] if lp else None
        out[11] = ctl.message
        out[12] = [ctl.missing, ctl.extra] if ctl.show_errors(now) else None
        out[13] = [res[0], res[1], res[2]] if res else None
        out[14] = 1 if ctl.may_double else 0
        out[15] = ctl.settings.computer
        out[16] = self._plan(ctl)
        out[17] = self._verdict(ctl)
        out[18] = 1 if o is not None and o.remote else 0
        out[19] = 1 if o is not None and o.waiting else 0
        out[20] = self._used(ctl)

    def _verdict(self, ctl):
        """Learning mode's verdict on the last play: [side, 1 if it was the best, the play,
        the best play], or None."""
        o = ctl.opp
        v = None if o is None else o.verdict
        lp = ctl.last_play
        if v is None or lp is None or lp[0] != v[0]:
            return None
        return [v[0], 1 if v[1] else 0, list(lp[1]), list(v[3])]

    def _plan(self, ctl):
        """The play the LEDs show (``app.opponent``): [steps, 1 if the coach's], or None."""
        o = ctl.opp
        if o is None or not o.showing(ctl):
            return None
        return [list(o.plan), 1 if o.coaching else 0]
