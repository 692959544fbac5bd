"""The controller's window on the rules engine (``bg.board``, ``bg.movegen``) and the dice
(``bg.dice_match``, ``bg.dice_cup``): one small module, so the controller reads as the game
and the engine's names live in one place.

Recognition here is the plain version the controller needs until ``bg.recognize`` exists:
every distinct legal play of the turn is made on a scratch position and its colour-blind
sensor view (:func:`counts_of`) is compared with the sensed counts. A reading
that several legal plays produce (stacks beyond the slot count) is returned as several plays,
and the controller never guesses.
"""

from bg import board as _board
from micropython import const

NCHECKERS = const(15)

# Colour-blind sensor view of a position (board numbering = side 0's point numbers)
NLOC = const(28)
L_BAR0 = const(24)
L_BAR1 = const(25)
L_TRAY0 = const(26)
L_TRAY1 = const(27)


def counts_of(pos, out=None, cap=6, tray_cap=15):
    """The colour-blind sensor view of a position: ``out[p-1]`` checkers on board point ``p``
    (capped at ``cap``: a full row of slots reads "cap or more"), then bar 0, bar 1, tray 0,
    tray 1. Side 1's own point ``q`` is board point ``25 - q``.

    >>> c = counts_of(_board.start_position()); c[23], c[5], c[0]   # 24-pt, 6-pt, 1-pt (black's 24)
    (2, 5, 2)
    """
    if out is None:
        out = bytearray(NLOC)
    for p in range(1, 25):
        n = pos[p - 1] + pos[49 - p]
        out[p - 1] = n if n < cap else cap
    b = pos[24]
    out[L_BAR0] = b if b < cap else cap
    b = pos[49]
    out[L_BAR1] = b if b < cap else cap
    out[L_TRAY0] = pos[50] if pos[50] < tray_cap else tray_cap
    out[L_TRAY1] = pos[51] if pos[51] < tray_cap else tray_cap
    return out


def start_position():
    return _board.start_position()


def apply_steps(pos, side, steps):
    """Make the play ``steps`` (flat ``(from, to, ...)``) on ``pos`` in place."""
    for i in range(0, len(steps), 2):
        _board.apply_step(pos, side, steps[i], steps[i + 1])
    return pos


def game_result(pos, side):
    """0 while ``side`` has checkers in play, else 1/2/3 (single/gammon/backgammon)."""
    if pos[50 + side] != NCHECKERS:
        return 0
    return _board.game_result(pos, side)


def _view(pos, cap, out):
    return counts_of(pos, out, cap)


def apply_free(pos, side, steps):
    """Casual mode: make an accepted illegal play (any direction, any distance): each step
    moves one checker; a lone opponent checker where it lands goes to the bar."""
    b = 25 if side else 0
    ob = 24 if side else 49
    for i in range(0, len(steps), 2):
        f, t = steps[i], steps[i + 1]
        if pos[b + f - 1] == 0:
            raise ValueError("no checker of side %d on %d" % (side, f))
        pos[b + f - 1] -= 1
        if t == 0:
            pos[50 + side] += 1
            continue
        if pos[ob - t] == 1:
            pos[ob - t] = 0
            pos[ob] += 1
        pos[b + t - 1] += 1
    return pos


class _Matcher:
    """Visits every legal end position (``bg.movegen.for_each_end``) and keeps the distinct
    ones whose sensor view equals the reading. Preallocated: a visit allocates nothing unless
    it matches."""

    def __init__(self):
        self.view = bytearray(28)
        self.sensed = None
        self.cap = 6
        self.found = []  # [(steps, end position bytes)]

    def visit(self, w, st, n):
        if _view(w, self.cap, self.view) != self.sensed:
            return
        for f in self.found:
            if f[1] == w:
                return
        self.found.append((tuple(st[: 2 * n]), bytes(w)))


_M = _Matcher()


def plays_matching(start, side, d1, d2, sensed, cap=6):
    """The distinct legal plays from ``start`` whose end position reads exactly ``sensed``
    (a list of step tuples; ``[()]`` when the dice cannot be played and the board is
    untouched)."""
    from bg import movegen

    m = _M
    m.sensed = sensed
    m.cap = cap
    m.found = []
    n = movegen.for_each_end(start, side, d1, d2, m.visit)
    m.sensed = None
    if n == 0:
        return [()] if _view(start, cap, m.view) == sensed else []
    out = [f[0] for f in m.found]
    m.found = []
    return out


def steps_between(start, side, sensed, cap=6):
    """Casual mode: some steps that take ``side`` from ``start`` to the sensed reading,
    ignoring the dice (an illegal play the opponent may accept). None when the reading is
    not a position the mover's checkers alone could have produced (the opponent's checkers
    moved, a checker is missing, a stack is unreadable)."""
    before = _view(start, cap, bytearray(len(sensed)))
    if side == 0:
        mine = [start[p - 1] for p in range(1, 25)]
    else:
        mine = [start[49 - p] for p in range(1, 25)]  # side 1's checkers on board point p
    # per board point: change in the mover's checkers (the opponent's can only be hit)
    src = []  # board points the mover left (one entry per checker)
    dst = []
    for p in range(1, 25):
        d = sensed[p - 1] - before[p - 1]
        if d == 0:
            continue
        if before[p - 1] >= cap or sensed[p - 1] >= cap:
            return None
        opp = before[p - 1] - mine[p - 1]
        if d < 0:
            if mine[p - 1] < -d and not (opp == 1 and d == -1):
                return None
            src.extend([p] * (-d))
        else:
            dst.extend([p] * d)
    bar_i = 24 + side
    off_i = 26 + side
    bars = sensed[bar_i] - before[bar_i]
    off = sensed[off_i] - before[off_i]
    if bars < 0:
        src.extend([25 if side == 0 else 0] * (-bars))
    if off > 0:
        dst.extend([0 if side == 0 else 25] * off)
    if len(src) != len(dst) or not src:
        return None
    steps = []
    src.sort(reverse=(side == 0))
    dst.sort(reverse=(side == 0))
    for a, b in zip(src, dst):
        # in the mover's own numbering
        f = a if side == 0 else 25 - a
        t = b if side == 0 else 25 - b
        steps.append(f)
        steps.append(t)
    return tuple(steps)


class Hinter:
    """Where may a lifted checker go? ``bg.recognize.Recognizer`` follows the turn's readings;
    while one checker is in the player's hand, ``mask`` holds its legal destinations as a
    board-point mask (bit ``p - 1``; bit 24 = bear off, as ``bg.leds.Painter.destinations``
    takes it) and ``origin`` the board point it came from (25 = the bar). Optional: the
    device glue creates one; the controller works without it."""

    def __init__(self, cap=6):
        from bg.recognize import Recognizer

        self.r = Recognizer(cap, cap, 15)
        self.mask = 0
        self.origin = 0

    def begin(self, start, side, d1, d2):
        self.r.begin(start, side, d1, d2)
        self.mask = 0
        self.origin = 0

    def update(self, counts):
        from bg.recognize import LIFTED

        r = self.r
        self.mask = 0
        self.origin = 0
        if not r.active or r.update(counts) != LIFTED:
            return
        h = r.hints
        m = h & 0xFFFFFF
        if h >> (L_TRAY0 + r.side) & 1:
            m |= 1 << 24
        self.mask = m
        lr = r.lifted
        if 0 <= lr < 24:
            self.origin = lr + 1
        elif lr in (L_BAR0, L_BAR1):
            self.origin = 25

    def end(self):
        self.r.active = False
        self.mask = 0
        self.origin = 0
