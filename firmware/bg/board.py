"""Positions as ``bytearray(52)`` (see docs/architecture.md and docs/engine.md).

Layout::

    pos[0:24]   side 0's checkers on its points 1..24 (index p-1), side 0's own numbering
    pos[24]     side 0's bar
    pos[25:49]  side 1's checkers on its points 1..24 (index 25+p-1), side 1's own numbering
    pos[49]     side 1's bar
    pos[50]     side 0's borne-off checkers;  pos[51] side 1's

Point ``p`` of one side is point ``25 - p`` of the other. The side on roll is game state,
not part of the position.

Example::

    >>> pos = set_start(new_position())
    >>> pip_count(pos, 0)
    167
"""

from micropython import const

NCHECKERS = const(15)
BAR = const(25)  # "point" number of the bar in a step (from = 25)
OFF = const(0)  # "point" number of bearing off in a step (to = 0)
POS_LEN = const(52)

# (point, count) of the start position, in each side's own numbering
_START = ((24, 2), (13, 5), (8, 3), (6, 5))


def base(side):
    """Index of side's point 1 in a position (its bar is ``base + 24``)."""
    return 25 if side else 0


def idx(side, point):
    """Index of ``point`` (1..24, or 25 = bar) of ``side`` in a position."""
    return (25 if side else 0) + point - 1


def new_position():
    """An empty position (no checker anywhere): ``bytearray(52)``."""
    return bytearray(POS_LEN)


def clear(pos):
    for i in range(POS_LEN):
        pos[i] = 0


def set_start(pos):
    """Set ``pos`` in place to the start position (2 on 24, 5 on 13, 3 on 8, 5 on 6 each)."""
    clear(pos)
    for side in (0, 1):
        b = base(side)
        for p, n in _START:
            pos[b + p - 1] = n
    return pos


def start_position():
    return set_start(new_position())


def copy_into(dst, src):
    """Copy the 52 bytes of ``src`` into ``dst`` without allocating."""
    for i in range(POS_LEN):
        dst[i] = src[i]
    return dst


def count(pos, side, point):
    """Checkers of ``side`` on its ``point`` (1..24, 25 = bar, 0 = borne off)."""
    if point == 0:
        return pos[50 + side]
    return pos[(25 if side else 0) + point - 1]


def opp_count(pos, side, point):
    """Checkers of the opponent of ``side`` on ``side``'s point ``point`` (1..24)."""
    return pos[(0 if side else 25) + 24 - point]


def on_board(pos, side):
    """Checkers of ``side`` on points and bar (not borne off)."""
    b = base(side)
    n = 0
    for i in range(b, b + 25):
        n += pos[i]
    return n


def pip_count(pos, side):
    """Pips ``side`` needs to bear everything off (bar counts 25)."""
    b = base(side)
    n = 0
    for p in range(1, 26):
        n += p * pos[b + p - 1]
    return n


def all_home(pos, side):
    """True when every checker of ``side`` still in play is on its points 1..6."""
    b = base(side)
    for i in range(b + 6, b + 25):
        if pos[i]:
            return False
    return True


def validate(pos):
    """Raise ``ValueError`` with a short reason unless ``pos`` is a legal position:
    52 bytes, 15 checkers per side, no point held by both sides."""
    if len(pos) != POS_LEN:
        raise ValueError("position must be 52 bytes, got %d" % len(pos))
    for side in (0, 1):
        n = on_board(pos, side) + pos[50 + side]
        if n != NCHECKERS:
            raise ValueError("side %d has %d checkers, not 15" % (side, n))
    for p in range(1, 25):
        if pos[p - 1] and pos[25 + 24 - p]:
            raise ValueError("point %d (side 0) holds checkers of both sides" % p)
    if pos[50] == NCHECKERS and pos[51] == NCHECKERS:
        raise ValueError("both sides have borne off every checker")
    return pos


def swap_sides(pos, out=None):
    """The same position with the sides' roles exchanged (side 0's checkers become side
    1's). ``out`` may be given to avoid allocating (it must not be ``pos``)."""
    if out is None:
        out = bytearray(POS_LEN)
    for i in range(25):
        a = pos[i]
        out[i] = pos[25 + i]
        out[25 + i] = a
    a = pos[50]
    out[50] = pos[51]
    out[51] = a
    return out


def apply_step(pos, side, frm, to):
    """Move one checker of ``side`` from ``frm`` (25 = bar) to ``to`` (0 = off) in place,
    sending a lone opponent checker on ``to`` to the bar. Returns 1 if it hit, else 0.
    Raises ValueError when there is no checker to move or ``to`` is closed."""
    b = 25 if side else 0
    ob = 24 if side else 49  # opponent's checkers on our point t are at ob - t; its bar at ob
    if not (0 < frm <= 25) or not (0 <= to < frm) or frm - to > 24:
        raise ValueError("bad step %d/%d" % (frm, to))
    if pos[b + frm - 1] == 0:
        raise ValueError("no checker of side %d on %s" % (side, "bar" if frm == 25 else frm))
    hit = 0
    if to:
        o = pos[ob - to]
        if o >= 2:
            raise ValueError("point %d is closed" % to)
        if o == 1:
            pos[ob - to] = 0
            pos[ob] += 1
            hit = 1
    pos[b + frm - 1] -= 1
    if to:
        pos[b + to - 1] += 1
    else:
        pos[50 + side] += 1
    return hit


def game_result(pos, winner):
    """Kind of win for ``winner`` (who has borne off all 15): 1 single, 2 gammon (loser bore
    off none), 3 backgammon (loser bore off none and has a checker on the bar or in the
    winner's home board). Raises ValueError if ``winner`` has not finished."""
    if pos[50 + winner] != NCHECKERS:
        raise ValueError("side %d has not borne off all checkers" % winner)
    loser = 1 - winner
    if pos[50 + loser]:
        return 1
    lb = base(loser)
    # the winner's home board is the loser's points 19..24; bar is index lb + 24
    for i in range(lb + 18, lb + 25):
        if pos[i]:
            return 3
    return 2


def derive_off(pos, what):
    """Set both borne-off counts from the checkers on the board (15 minus them); ``what`` names
    the source in the error when a side has more than 15 checkers."""
    for side in (0, 1):
        n = on_board(pos, side)
        if n > NCHECKERS:
            raise ValueError("%s gives side %d %d checkers" % (what, side, n))
        pos[50 + side] = NCHECKERS - n


def from_gnubg(anboard, side_on_roll, pos=None):
    """Build a position from gnubg's ``anBoard`` (``[half of the opponent, half of the
    player on roll]``, each 25 counts: points 1..24 then the bar, in that player's own
    numbering). Borne-off counts are derived (15 minus checkers on the board)."""
    if pos is None:
        pos = bytearray(POS_LEN)
    if len(anboard) != 2:
        raise ValueError("gnubg board needs two halves")
    for k in (0, 1):
        half = anboard[k]
        if len(half) != 25:
            raise ValueError("gnubg board half needs 25 entries")
        side = side_on_roll if k == 1 else 1 - side_on_roll
        b = base(side)
        n = 0
        for i in range(25):
            v = half[i]
            if v < 0 or v > NCHECKERS:
                raise ValueError("bad checker count %r" % (v,))
            pos[b + i] = v
            n += v
        if n > NCHECKERS:
            raise ValueError("side %d has %d checkers" % (side, n))
        pos[50 + side] = NCHECKERS - n
    return pos


def to_gnubg(pos, side_on_roll):
    """gnubg's ``anBoard`` for ``side_on_roll`` on roll: ``([25 ints], [25 ints])`` with the
    opponent's half first."""
    o = base(1 - side_on_roll)
    m = base(side_on_roll)
    return ([pos[o + i] for i in range(25)], [pos[m + i] for i in range(25)])


def from_points(side0, side1, pos=None):
    """Build a position from two dicts ``{point: count}`` in each side's own numbering
    (25 = bar); the rest is borne off. Handy for tests:
    ``from_points({6: 2, 25: 1}, {24: 2})``."""
    if pos is None:
        pos = bytearray(POS_LEN)
    else:
        clear(pos)
    for side, pts in ((0, side0), (1, side1)):
        b = base(side)
        n = 0
        for p in pts:
            if not 1 <= p <= 25:
                raise ValueError("bad point %r" % (p,))
            pos[b + p - 1] = pts[p]
            n += pts[p]
        if n > NCHECKERS:
            raise ValueError("side %d has %d checkers" % (side, n))
        pos[50 + side] = NCHECKERS - n
    return validate(pos)
