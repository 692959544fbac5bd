"""Tesauro's public evaluation function (pubeval): a linear move chooser for the computer
opponent and the coach.

Source of the weights and the encoding: Gerald Tesauro's ``pubeval.c`` (IBM Research, 1993,
"provided as a public service to the backgammon programming community"), as GNU Backgammon
ships it in ``pub_eval.c`` (gnubg's git, e.g. https://git.savannah.gnu.org/cgit/gnubg.git,
file ``pub_eval.c``; the same 2 x 122 numbers). ``_WR`` is the race weight set, ``_WC`` the
contact one, each the published 5-decimal value times 100,000.

Tesauro's encoding, for the side to be scored (the "computer"), location L = its point L:

* for each L in 24..1 five inputs at ``5 * (24 - L)``: +0 opponent blot on L (exactly one),
  +1 one own checker, +2 two or more, +3 exactly three, +4 ``(n - 3) / 2`` for n >= 4;
* input 120: the opponent's checkers on the bar / 2; input 121: own checkers borne off / 15;
* score = W . x with W the race set when the position BEFORE the play is a race (gnubg's
  ``ClassifyPosition <= CLASS_RACE``: no contact, i.e. the two rearmost checkers have passed:
  own rearmost point + opponent's rearmost point (each in its own numbering, bar = 25) <= 24),
  else the contact set; all 15 off scores highest.

Integer fixed point (floats allocate on MicroPython): every term is multiplied by 30 * 100,000
(30 = lcm of the /2 and /15), which makes each one an exact integer: the score here is exactly
3,000,000 times Tesauro's. The per-input factors (the "three checkers" slot holds +2 and +3
together) are precomputed bytes constants (``_RACE``, ``_CONTACT``) read in place: frozen into
the firmware, an int constant outside -8192..8191 is a boxed long int in flash (``mpy-tool``)
and arithmetic on it allocates, while an int read from the bytes is a small int. The largest
possible |partial sum| over any position stays below 2**30 (the 32-bit board model's small-int
range; ``tests/host/test_pubeval_oracle.py`` bounds it over every checker
distribution), so no sum ever allocates.

GNU Backgammon's ``eval.c`` (``FindPubevalMove``) fills Tesauro's "men off" as 15 minus the
mover's checkers on points 1..24, i.e. checkers on the bar count as off; here ``off`` is the
real borne-off count, as Tesauro defines it (``gnubg_nn.pub_eval_score`` agrees: the oracle
test). It never changes a choice: every play of one roll leaves the same number of checkers
on the bar, so the two differ by the same constant on all of them.

Tie-break: the first play reaching the highest score in ``for_each_end``'s canonical order
(larger die first, then smaller; doubles by non-increasing source point) wins -- gnubg keeps
the first best in its own generator's order, so on an exact tie the two may pick different
(equally scored) plays; the oracle test asserts every difference is such a tie.

Example::

    >>> from bg import board
    >>> from bg.engine import pubeval
    >>> pubeval.best(board.start_position(), 0, 3, 1)
    (8, 5, 6, 5)
"""

import sys

import micropython
from micropython import const

WON = const(0x3FFFFFFF)  # all 15 off (Tesauro: 99999999); the largest 31-bit small int
LOW = const(-0x40000000)  # below any score

# fmt: off
_WR = (
    0, -17160, 27010, 29906, -8471, 0, -140375, -105121,
    7217, -1351, 0, -129506, -216183, 13246, -103508, 0,
    -229847, -234631, 17253, 8302, 0, -127266, -287401, -7456,
    -34240, 0, -134640, -246556, -13022, -1591, 0, 27448,
    60015, 48302, 25236, 0, 39521, 68178, 5281, 9266,
    0, 24855, -6844, -37646, 5685, 0, 17405, 430,
    74427, 576, 0, 12392, 31202, -91035, -16270, 0,
    1418, -10839, -2781, -88035, 0, 107274, 200366, 116242,
    22520, 0, 85631, 106349, 149549, 18966, 0, 37183,
    -50352, -14818, 12039, 0, 13681, 13978, 111245, -12707,
    0, -22082, 20178, -6285, -52728, 0, -13597, -19412,
    -9308, -126062, 0, 305454, 516874, 150680, 535000, 0,
    219605, 385390, 88296, 230052, 0, 92321, 108744, -11696,
    -78560, 0, -9795, -83050, -109167, -494251, 0, -100316,
    -366465, -256906, -967677, 0, -277982, -726713, -340177, -1232252,
    0, 342040,
)
_WC = (
    25696, -66937, -166135, -202487, -253398, -16092, -111725, -106654,
    -92830, -199558, -110388, -80802, 9856, -62086, -127999, -59220,
    -73667, 89032, -38933, -159847, -150197, -60966, 156166, -47389,
    -180390, -83425, -97741, -141371, 24500, 10970, -136476, -105572,
    115420, 11069, -38319, -74816, -59244, 81116, -39511, 11424,
    -73169, -56074, 109792, 15977, 13786, -118435, -43363, 106169,
    -21329, 4798, -94373, -22982, 122737, -13099, -6295, -75882,
    -13658, 178389, 30416, 36797, -69851, 13003, 123070, 40868,
    -21081, -64073, 31061, 159554, 65718, 25429, -80789, 8240,
    178964, 54304, 41174, -106161, 7851, 201451, 49786, 91936,
    -90750, 5941, 183120, 58722, 128777, -83711, -33248, 264983,
    52698, 82132, -58897, -118223, 335809, 62017, 57353, -7276,
    -36214, 437655, 45481, 21746, 10504, -61977, 354001, 4612,
    -18108, 63211, -87046, 247673, -48016, -127157, 86505, -111342,
    124612, -82385, -277082, 123606, -159529, 10438, -130206, -411520,
    562596, -275800,
)
# fmt: on


# The factor tables, 30x the published weights above (x 100,000), as little-endian int32:
# 0/1 inputs x30, the (n - 3)/2 input x15 per checker above three, the bar/2 input x15 per
# checker, the off/15 input x2 per checker; slot +3 holds 30 * (w[+2] + w[+3]) (three
# checkers). Bytes constants: frozen into the firmware they stay in flash and ``_view``
# reads them in place, so the tables cost the heap two small view objects instead of two
# 488-byte arrays. ``tests/portable/test_pubeval_play.py`` derives them from ``_WR`` and
# ``_WC`` on both interpreters: the digits above stay the one source.
_RACE = (
    b"\x00\x00\x00\x00\x10\x25\xf8\xff\x3c\x5d\x0c\x00\xd8\x0d\x1a\x00\xa7\x0f\xfe\xff\x00\x00\x00\x00"
    b"\xce\xbd\xbf\xff\x22\xe1\xcf\xff\xe0\x2e\xd3\xff\xd7\xb0\xff\xff\x00\x00\x00\x00\x84\xb7\xc4\xff"
    b"\x0e\x0a\x9d\xff\x52\x1a\xa3\xff\x14\x4f\xe8\xff\x00\x00\x00\x00\xce\xc8\x96\xff\x2e\x98\x94\xff"
    b"\x04\x7e\x9c\xff\x72\xe6\x01\x00\x00\x00\x00\x00\x04\xbe\xc5\xff\x32\x70\x7c\xff\x72\x06\x79\xff"
    b"\xc0\x29\xf8\xff\x00\x00\x00\x00\xe0\x5d\xc2\xff\xb8\x22\x8f\xff\xb4\x2c\x89\xff\xc7\xa2\xff\xff"
    b"\x00\x00\x00\x00\x90\x90\x0c\x00\x02\x79\x1b\x00\x66\x95\x31\x00\xac\xc6\x05\x00\x00\x00\x00\x00"
    b"\x5e\x17\x12\x00\x9c\x35\x1f\x00\x7a\xa0\x21\x00\xee\x1e\x02\x00\x00\x00\x00\x00\xb2\x60\x0b\x00"
    b"\xf8\xdd\xfc\xff\x54\xa2\xeb\xff\x1b\x4d\x01\x00\x00\x00\x00\x00\xa6\xf7\x07\x00\x64\x32\x00\x00"
    b"\x4e\x44\x22\x00\xc0\x21\x00\x00\x00\x00\x00\x00\x30\xac\x05\x00\x7c\x48\x0e\x00\x52\x9c\xe4\xff"
    b"\xae\x46\xfc\xff\x00\x00\x00\x00\x2c\xa6\x00\x00\xce\x09\xfb\xff\xe8\xc3\xf9\xff\xb3\xd9\xeb\xff"
    b"\x00\x00\x00\x00\x2c\x1b\x31\x00\x64\xb8\x5b\x00\x80\xee\x90\x00\x88\x27\x05\x00\x00\x00\x00\x00"
    b"\xe2\x32\x27\x00\xc6\xae\x30\x00\x0c\x24\x75\x00\x4a\x57\x04\x00\x00\x00\x00\x00\x62\x05\x11\x00"
    b"\x60\xf3\xe8\xff\xe4\x2a\xe2\xff\x69\xc1\x02\x00\x00\x00\x00\x00\x3e\x43\x06\x00\x0c\x66\x06\x00"
    b"\x92\x52\x39\x00\x73\x17\xfd\xff\x00\x00\x00\x00\x44\xe4\xf5\xff\x9c\x3c\x09\x00\x16\x5c\x06\x00"
    b"\x78\xee\xf3\xff\x00\x00\x00\x00\x9a\xc6\xf9\xff\x28\x1d\xf7\xff\x60\xda\xf2\xff\x8e\x25\xe3\xff"
    b"\x00\x00\x00\x00\x64\xd3\x8b\x00\x2c\x9b\xec\x00\xfc\x94\x31\x01\xa8\x73\x7a\x00\x00\x00\x00\x00"
    b"\xf6\x86\x64\x00\xe4\x6a\xb0\x00\x14\xd6\xd8\x00\x9c\xa7\x34\x00\x00\x00\x00\x00\xde\x42\x2a\x00"
    b"\x70\xc7\x31\x00\xd0\x6c\x2c\x00\xe0\x04\xee\xff\x00\x00\x00\x00\x26\x84\xfb\xff\x94\xfb\xd9\xff"
    b"\x92\x02\xa8\xff\xfb\xdf\x8e\xff\x00\x00\x00\x00\x38\x14\xd2\xff\xe2\x3e\x58\xff\xb6\xa4\xe2\xfe"
    b"\x2d\x84\x22\xff\x00\x00\x00\x00\xfc\xbf\x80\xff\x52\x56\xb3\xfe\xd4\x9d\x17\xfe\xbc\xf5\xe5\xfe"
    b"\x00\x00\x00\x00\x30\x70\x0a\x00"
)
_CONTACT = (
    b"\x40\xc3\x0b\x00\xd2\x5b\xe1\xff\x0e\xf3\xb3\xff\x1c\x42\x57\xff\x76\x00\xc6\xff\x38\xa2\xf8\xff"
    b"\x3a\xdb\xcc\xff\x7c\x2d\xcf\xff\xf8\xae\xa4\xff\x26\x53\xd2\xff\xe8\x77\xcd\xff\x04\x03\xdb\xff"
    b"\x00\x83\x04\x00\x4c\x17\xe8\xff\x0f\xb4\xe2\xff\x28\xe4\xe4\xff\x26\x47\xde\xff\x70\xc1\x28\x00"
    b"\xfa\xee\x16\x00\xf7\x69\xdb\xff\xca\x3e\xbb\xff\x8c\x17\xe4\xff\xb4\x7c\x47\x00\x4e\xcb\x31\x00"
    b"\x46\xb6\xd6\xff\xa2\xcf\xd9\xff\xfa\x41\xd3\xff\x16\x49\xbf\xff\x2e\x80\xca\xff\xc6\x82\x02\x00"
    b"\xb8\x86\xc1\xff\x48\xac\xcf\xff\xc8\xd5\x34\x00\xee\xe6\x39\x00\xbf\x3a\xf7\xff\x80\xc0\xdd\xff"
    b"\x58\xe1\xe4\xff\xc8\x21\x25\x00\x96\x0b\x13\x00\x60\x9d\x02\x00\x82\x81\xde\xff\xd4\x54\xe6\xff"
    b"\x40\x42\x32\x00\x8e\x92\x39\x00\xc6\x27\x03\x00\xe6\xc8\xc9\xff\x66\x26\xec\xff\xae\x99\x30\x00"
    b"\x30\xd6\x26\x00\x22\x19\x01\x00\xaa\xcc\xd4\xff\xcc\x7a\xf5\xff\x3e\x2f\x38\x00\x34\x30\x32\x00"
    b"\x27\x8f\xfe\xff\x94\x43\xdd\xff\x74\xbf\xf9\xff\xf6\xa8\x51\x00\x56\x95\x5f\x00\x13\x6c\x08\x00"
    b"\x56\x06\xe0\xff\xca\xf3\x05\x00\x44\x56\x38\x00\x7c\x0b\x4b\x00\xc9\x2c\xfb\xff\x72\xab\xe2\xff"
    b"\xf6\x37\x0e\x00\xbc\x09\x49\x00\x10\x1f\x67\x00\xfb\xd1\x05\x00\x8a\x04\xdb\xff\xa0\xc5\x03\x00"
    b"\x58\xec\x51\x00\x18\xc8\x6a\x00\x8a\x6c\x09\x00\x42\x67\xcf\xff\x0a\x98\x03\x00\x8a\x37\x5c\x00"
    b"\xd6\x01\x73\x00\xe0\x0a\x15\x00\x3c\x75\xd6\xff\x36\xb8\x02\x00\x60\xd3\x53\x00\xdc\xb4\x6e\x00"
    b"\x87\x79\x1d\x00\x1e\xae\xd9\xff\xc0\xc7\xf0\xff\xb2\x4c\x79\x00\x3e\x6c\x91\x00\x6c\xcc\x12\x00"
    b"\x02\x0a\xe5\xff\xbe\xe1\xc9\xff\x9e\xb8\x99\x00\x3c\x1c\xb6\x00\x87\x20\x0d\x00\x58\xab\xfc\xff"
    b"\x2c\x6c\xef\xff\xb2\x57\xc8\x00\x80\x29\xdd\x00\x2e\xfa\x04\x00\xf0\xce\x04\x00\x12\xa1\xe3\xff"
    b"\x7e\x0c\xa2\x00\xf6\x28\xa4\x00\xfc\xda\xfb\xff\x8a\xef\x1c\x00\x4c\x27\xd8\xff\x2e\x60\x71\x00"
    b"\x4e\x65\x5b\x00\x65\xe5\xe2\xff\x4e\x99\x27\x00\x1c\x08\xcd\xff\xf8\x0a\x39\x00\x7a\x54\x13\x00"
    b"\xba\x94\xc0\xff\x14\x95\x38\x00\x32\xf9\xb6\xff\x34\xc7\x04\x00\xb0\x2c\xc9\xff\x80\xcf\xa1\xff"
    b"\x9c\xc4\x80\x00\x50\x95\xf7\xff"
)


def _view(b):
    """``b``'s 122 int32 as an indexable sequence without copying them (MicroPython:
    a ``uctypes`` array over the bytes, each item read as a small int); elsewhere an
    ``array('i')``."""
    try:
        import uctypes
    except ImportError:
        import sys
        from array import array

        a = array("i", b)
        if sys.byteorder != "little":
            a.byteswap()
        return a
    return uctypes.struct(
        uctypes.addressof(b), {"w": (uctypes.ARRAY | 0, uctypes.INT32 | 122)}, uctypes.LITTLE_ENDIAN
    ).w


# The bytes stay bound: the views hold only their address (collected, an unfrozen copy's
# memory would be reused under them).
RACE = _view(_RACE)
CONTACT = _view(_CONTACT)


def is_race(pos, side):
    """gnubg's race test for ``side`` on roll: no checker of one side is still behind a
    checker of the other (rearmost points, each side's own numbering, sum <= 24)."""
    mb = 24 if side else -1
    ob = -1 if side else 24
    own = 25
    while own and not pos[mb + own]:
        own -= 1
    opp = 25
    while opp and not pos[ob + opp]:
        opp -= 1
    return own + opp <= 24


@micropython.native  # about twice as fast on the unix port (same small ints, no allocation)
def evaluate(w, side, wt):
    """Tesauro's score x 3,000,000 of position ``w`` for ``side`` with the factor table
    ``wt`` (``RACE`` or ``CONTACT``). Allocates nothing (small ints only)."""
    off = w[51 if side else 50]
    if off >= 15:
        return WON
    mb = 24 if side else -1
    ob = 24 if side else 49
    s = wt[120] * w[ob] + wt[121] * off
    i = 115  # inputs of location 1
    for p in range(1, 25):
        n = w[mb + p]
        if n:
            if n == 1:
                s += wt[i + 1]
            elif n == 2:
                s += wt[i + 2]
            elif n == 3:
                s += wt[i + 3]
            else:
                s += wt[i + 2] + wt[i + 4] * (n - 3)
        elif w[ob - p] == 1:
            s += wt[i]
        i -= 5
    return s


def _check(pos, side):
    if len(pos) != 52:
        raise ValueError("position must be 52 bytes")
    if side != 0 and side != 1:
        raise ValueError("side must be 0 or 1")


class PubEval:
    """Chooses plays by pubeval. ``gen``: a ``bg.engine.MoveGen`` to share (not re-entrant:
    one call at a time), else its own. ``top`` holds the last ``best``'s score."""

    def __init__(self, gen=None):
        if gen is None:
            from bg.engine import MoveGen

            gen = MoveGen()
        self.gen = gen
        self.bst = bytearray(8)  # steps of the best play so far
        self.bn = 0
        self.top = LOW
        self.side = 0
        self.wt = CONTACT
        self._v = self._visit  # bound once: no allocation per call of best()

    def _visit(self, w, st, n):
        s = evaluate(w, self.side, self.wt)
        if s > self.top:
            self.top = s
            b = self.bst
            for i in range(2 * n):
                b[i] = st[i]
            self.bn = n

    def best(self, pos, side, d1, d2):
        """The chosen play for ``side`` rolling ``d1``-``d2``: flat steps ``(from1, to1,
        ...)`` in the mover's numbering as ``bg.engine.plays`` gives them; ``()`` when the
        turn passes."""
        self.start(pos, side, d1, d2)
        self.run(0)
        return self.steps()

    def start(self, pos, side, d1, d2):
        """Begin ``best`` in slices: ``run(n)`` scores up to ``n`` more plays, ``steps()``
        then gives the same choice ``best`` gives (the same visit, in the same order). Any
        other query on the shared generator in between ends it (``run`` raises
        ``RuntimeError``: start again)."""
        _check(pos, side)
        self.side = side
        self.wt = RACE if is_race(pos, side) else CONTACT
        self.top = LOW
        self.bn = 0
        self.gen.start_ends(pos, side, d1, d2, self._v)

    def run(self, n):
        """Score up to ``n`` more plays (0: all that remain); True when the choice is made."""
        return self.gen.run_ends(n)

    def steps(self):
        """The choice of the last ``best``, or of ``start`` once ``run`` returned True."""
        return tuple(self.bst[: 2 * self.bn])

    def score(self, pos, side, race=None):
        """The integer evaluation (Tesauro's x 3,000,000) of ``pos`` -- a position after a
        play -- for ``side``. ``race``: which weight set; by default the one ``is_race``
        picks for ``pos`` itself (``best`` uses the position before the play)."""
        _check(pos, side)
        if race is None:
            race = is_race(pos, side)
        return evaluate(pos, side, RACE if race else CONTACT)


_PE = None


def _pe():
    global _PE
    if _PE is None:
        _PE = PubEval()
    return _PE


def best(pos, side, d1, d2):
    """``PubEval().best`` on one shared instance (its own ``MoveGen``; one per thread on
    CPython: ``bg.engine.per_thread``)."""
    return _pe().best(pos, side, d1, d2)


if sys.implementation.name != "micropython":
    from bg.engine import per_thread

    _pe = per_thread(PubEval)
