"""Learning aids from Carlit's rules booklet as pure functions: pip counts, the
number of rolls that hit a blot (the booklet's empty-board table and the real count with the
board's blocking), and the opening book.

Example::

    >>> from bg import aids
    >>> [aids.hit_rolls(d) for d in range(1, 13)]
    [11, 12, 14, 15, 15, 17, 6, 6, 5, 3, 2, 3]
    >>> aids.opening_move(3, 1)
    (8, 5, 6, 5)
"""

from bg.board import pip_count  # noqa: F401  (re-exported: an aid of its own)


def _roll_hits(a, b, dist, blocked):
    """Can a single checker with roll a-b travel exactly ``dist`` pips, landing only on
    open points (``blocked`` bit k set = the point k pips away is closed)?"""
    if a == b:
        for k in range(1, 5):
            if k * a == dist:
                for j in range(1, k):
                    if (blocked >> (j * a)) & 1:
                        return False
                return True
        return False
    if a == dist or b == dist:
        return True
    if a + b == dist:
        return not (blocked >> a) & 1 or not (blocked >> b) & 1
    return False


def hit_rolls(distance, blocked=0):
    """How many of the 36 rolls let one checker hit a blot ``distance`` pips away with
    intermediate points closed as in the bitmask ``blocked`` (bit k = k pips away). With
    ``blocked=0`` this is the booklet's table: 11 12 14 15 15 17 6 6 5 3 2 3 for 1..12."""
    if not 1 <= distance <= 24:
        raise ValueError("distance 1..24")
    n = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if _roll_hits(a, b, distance, blocked):
                n += 1
    return n


def hit_percent(distance, blocked=0):
    """``hit_rolls`` as a rounded percentage of 36 (the booklet's "Häufigkeit in %" line)."""
    return (hit_rolls(distance, blocked) * 100 + 18) // 36


class _Shots:
    def __init__(self, gen):
        self.gen = gen
        self.idx = 0
        self.found = False

    def visit(self, w, st, n):
        if not w[self.idx]:
            self.found = True


def shots(pos, side, point, gen=None):
    """How many of the 36 rolls let ``side`` hit the opponent's checker on ``side``'s point
    ``point`` (1..24) with a legal play, on this board: the real count, with its blocking
    points, the bar rule and everything else. Example: the booklet's table is this count for a
    lone checker against a lone blot."""
    from bg.engine import MoveGen

    if not 1 <= point <= 24:
        raise ValueError("point 1..24")
    oi = (0 if side else 25) + 24 - point
    if pos[oi] != 1:
        raise ValueError("no opponent blot on point %d" % point)
    g = gen or MoveGen()
    s = _Shots(g)
    s.idx = oi
    total = 0
    for a in range(1, 7):
        for b in range(a, 7):
            s.found = False
            g.for_each_end(pos, side, a, b, s.visit)
            if s.found:
                total += 1 if a == b else 2
    return total


# Carlit's recommended opening moves, points nA written as 25 - n; steps in the
# mover's own numbering, in an order the dice allow.
_BOOK = {
    (6, 6): (24, 18, 24, 18, 13, 7, 13, 7),
    (5, 5): (13, 8, 13, 8, 8, 3, 8, 3),
    (4, 4): (24, 20, 24, 20, 13, 9, 13, 9),
    (3, 3): (24, 21, 24, 21, 8, 5, 8, 5),
    (2, 2): (24, 22, 24, 22, 22, 20, 22, 20),
    (1, 1): (8, 7, 8, 7, 6, 5, 6, 5),
    (6, 5): (24, 18, 18, 13),
    (6, 4): (24, 18, 24, 20),
    (6, 3): (24, 18, 24, 21),
    (6, 2): (24, 18, 24, 22),
    (6, 1): (13, 7, 8, 7),
    (5, 4): (13, 8, 24, 20),
    (5, 3): (8, 3, 6, 3),
    (5, 2): (13, 8, 13, 11),
    (5, 1): (24, 23, 23, 18),
    (4, 3): (13, 9, 13, 10),
    (4, 2): (8, 4, 6, 4),
    (4, 1): (13, 9, 24, 23),
    (3, 2): (13, 10, 13, 11),
    (3, 1): (8, 5, 6, 5),
    (2, 1): (24, 22, 22, 21),
}
_ALTERNATIVES = {(2, 1): ((13, 11, 6, 5),)}


def opening_move(d1, d2):
    """The booklet's recommended play (steps) for the roll from the start position."""
    key = (d1, d2) if d1 >= d2 else (d2, d1)
    if key not in _BOOK:
        raise ValueError("dice 1..6")
    return _BOOK[key]


def opening_alternatives(d1, d2):
    """Other plays the booklet also recommends for this roll (2-1: 13/11 6/5)."""
    key = (d1, d2) if d1 >= d2 else (d2, d1)
    return _ALTERNATIVES.get(key, ())


def opening_text(d1, d2):
    """The book play in standard notation, e.g. ``opening_text(6, 5) == '24/13'``."""
    from bg.board import start_position
    from bg.notation import format_play

    return format_play(start_position(), 0, opening_move(d1, d2))
