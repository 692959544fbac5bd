"""The controller's window on the rules engine (``bg.board``, ``bg.recognize``): one small
module, so the controller reads as the game and the engine's names live in one place.

Which legal play the sensors show is ``bg.recognize.Recognizer``'s job (one copy of that
logic, "recognition that never guesses"); :func:`recognizer` builds the one the controller
follows a turn with. What stays here is what the recogniser does not do: the colour-blind
view of a position (:func:`counts_of`), making a play, and casual mode's accepted illegal
play (:func:`steps_between`, :func:`apply_free`), which by definition is no legal play.
"""

from bg import board as _board
from bg import recognize as _rec
from bg.board import NCHECKERS
from bg.hwdesc import NROWS as NLOC  # the colour-blind sensor rows (bg.hwdesc's layout)
from bg.match import apply_free  # noqa: F401 - casual mode's accepted illegal play (one copy)

_caps_key = [-1]
_caps = bytearray(NLOC)


def recognizer(slots=6, bar_slots=None, tray_slots=15):
    """The turn recogniser the controller uses (``bg.recognize.Recognizer``, strict)."""
    return _rec.Recognizer(slots, slots if bar_slots is None else bar_slots, tray_slots)


def counts_of(pos, out=None, cap=6, tray_cap=15):
    """The colour-blind sensor view of a position (``bg.recognize.observe`` with ``cap``
    slots per point and bar, ``tray_cap`` per tray): ``out[p-1]`` checkers on board point
    ``p`` (a full row reads "cap or more"), then bar 0, bar 1, tray 0, tray 1. Side 1's own
    point ``q`` is board point ``25 - q``.

    >>> c = counts_of(_board.start_position()); c[23], c[5], c[0]   # 24-pt, 6-pt, 1-pt (black's 24)
    (2, 5, 2)
    """
    if out is None:
        out = bytearray(NLOC)
    key = cap * 256 + tray_cap
    if _caps_key[0] != key:
        _rec.make_caps(cap, cap, tray_cap, _caps)
        _caps_key[0] = key
    return _rec.observe(pos, out, _caps)


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


def steps_between(start, side, sensed, cap=6):
    """Casual mode: some steps that take ``side`` from ``start`` to the sensed reading,
    ignoring the dice (an illegal play the opponent may accept). None when the reading is
    not a position the mover's checkers alone could have produced (the opponent's checkers
    moved, a checker is missing, a stack is unreadable)."""
    before = counts_of(start, bytearray(len(sensed)), cap)
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
