"""Terminal drawing of a position (``render_board``), shared by the commands that show boards.

The side on roll is drawn at the bottom, its points 1..12 along the bottom edge from right to
left and 13..24 along the top, as GNU Backgammon draws it. Side 0 is ``O`` and side 1 is ``X``
(gnubg's players 0 and 1).
"""

from bg import board

SYMBOL = ("O", "X")
ROWS = 5


def _cell(n, sym, row):
    """Column text for ``row`` (0 = next to the edge) of a point holding ``n`` checkers."""
    if n > ROWS and row == ROWS - 1:
        return "%2d " % n if n < 100 else "%3d" % n
    return " %s " % sym if n > row else "   "


def render_board(pos, side_on_roll, names=None, on_roll=True):
    """The board as text: 13 lines of board plus a pip-count line. ``names`` optionally
    gives the two sides' names; ``on_roll=False`` draws ``side_on_roll`` at the bottom without
    marking it on roll (before the opening throw nobody is)."""
    bottom = side_on_roll
    top = 1 - side_on_roll
    bb = board.base(bottom)
    tb = board.base(top)
    names = names or ("side 0", "side 1")

    def point(p):
        """(count, symbol) on the bottom player's point p."""
        n = pos[bb + p - 1]
        if n:
            return n, SYMBOL[bottom]
        n = pos[tb + 24 - p]
        return n, SYMBOL[top]

    lines = []
    lines.append(
        " +13-14-15-16-17-18------19-20-21-22-23-24-+     %s: %s  (pips %d, off %d)"
        % (SYMBOL[top], names[top], board.pip_count(pos, top), pos[50 + top])
    )
    for row in range(ROWS):
        left = "".join(_cell(*point(p), row) for p in range(13, 19))
        right = "".join(_cell(*point(p), row) for p in range(19, 25))
        bar = pos[tb + 24]
        mid = " %s " % SYMBOL[top] if bar > row else "   "
        if bar > ROWS and row == ROWS - 1:
            mid = "%2d " % bar
        lines.append(" |%s|%s|%s|" % (left, mid, right))
    lines.append("%s|                  |BAR|                  |" % ("v" if side_on_roll else "^"))
    for row in range(ROWS - 1, -1, -1):
        left = "".join(_cell(*point(p), row) for p in range(12, 6, -1))
        right = "".join(_cell(*point(p), row) for p in range(6, 0, -1))
        bar = pos[bb + 24]
        mid = " %s " % SYMBOL[bottom] if bar > row else "   "
        if bar > ROWS and row == ROWS - 1:
            mid = "%2d " % bar
        lines.append(" |%s|%s|%s|" % (left, mid, right))
    lines.append(
        " +12-11-10--9--8--7-------6--5--4--3--2--1-+     %s: %s  (pips %d, off %d)%s"
        % (
            SYMBOL[bottom],
            names[bottom],
            board.pip_count(pos, bottom),
            pos[50 + bottom],
            "  on roll" if on_roll else "",
        )
    )
    return "\n".join(lines)
