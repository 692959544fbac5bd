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
3,000,000 times Tesauro's. ``_scaled`` builds the per-input factors once at import (the
"three checkers" slot holds +2 and +3 together) as an ``array('i')`` on the heap (488 bytes
each on the board): frozen into the firmware, an int constant outside -8192..8191 is a boxed long int in
flash (``mpy-tool``), and arithmetic on it allocates; computed ints are small ints. The
largest possible |partial sum| over any position stays below 2**30 (the 32-bit board model's
small-int range; ``tests/host/test_pubeval_oracle.py`` bounds it over every checker
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

from array import array

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


def _scaled(raw):
    """Per-input integer factors, 30x the published weights (x 100,000): 0/1 inputs x30,
    the (n - 3)/2 input x15 per checker above three, the bar/2 input x15 per checker, the
    off/15 input x2 per checker; slot +3 holds 30 * (w[+2] + w[+3]) (three checkers). An
    ``array('i')`` made in one allocation of 488 bytes (``range`` has a length: no list,
    no tuple copy), filled in place: the board loads it mid-match on a fragmented heap."""
    out = array("i", range(122))
    for i in range(120):
        k = i % 5
        if k == 4:
            out[i] = 15 * raw[i]
        elif k == 3:
            out[i] = 30 * (raw[i - 1] + raw[i])
        else:
            out[i] = 30 * raw[i]
    out[120] = 15 * raw[120]
    out[121] = 2 * raw[121]
    return out


RACE = _scaled(_WR)
CONTACT = _scaled(_WC)
_WR = _WC = None


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


def best(pos, side, d1, d2):
    """``PubEval().best`` on one shared instance (its own ``MoveGen``)."""
    global _PE
    if _PE is None:
        _PE = PubEval()
    return _PE.best(pos, side, d1, d2)
