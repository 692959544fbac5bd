"""The dice LEDs during a turn: a played die dims (``Recognizer.dice_lit``), a doublet dims
one die after two steps and both after four, a lifted checker keeps what was played, and the
painter dims exactly the die it is told to."""

import ctl_helpers as H
from app import controller as C
from bg import leds as L
from bg import recognize as R


def _levels(v, board):
    """Per die, the brightest channel of its lit pips (0: dark)."""
    out = []
    for d in (0, 1):
        m = 0
        for pip in range(7):
            g = v.p.get(board.die_led[7 * d + pip])
            m = max(m, g[0], g[1], g[2])
        out.append(m)
    return out


def _move(r, side, f, t):
    b = 25 if side else 0
    r.pos[b + f - 1] -= 1
    r.pos[b + t - 1] += 1
    r.sense()


def test_played_die_dims_on_the_board():
    board, v = H.view()
    c, r = H.started()
    side = c.side
    H.roll_at(c, bytearray(r.pos), side, 6, 1)
    assert c.phase == C.MOVING
    v.paint(c, r.now)
    full = _levels(v, board)
    assert full[0] and full[0] == full[1]
    _move(r, side, 13, 7)  # the 6: die 0
    assert c.rec.state == R.PARTIAL
    v.paint(c, r.now)
    a, b = _levels(v, board)
    assert b == full[1] and 0 < a < full[0] // 4, (a, b)
    import sys

    if sys.implementation.name == "micropython":  # a frame with a played die allocates nothing
        import gc

        gc.collect()
        before = gc.mem_alloc()  # type: ignore[attr-defined]  # MicroPython's gc
        for k in range(20):
            v.paint(c, r.now + 40 * k)
        assert gc.mem_alloc() - before == 0  # type: ignore[attr-defined]
    r.pos[(25 if side else 0) + 8 - 1] -= 1  # a checker in the hand: still the 6 played
    r.sense()
    assert c.rec.state == R.LIFTED
    v.paint(c, r.now)
    assert _levels(v, board) == [a, b]


def test_doublet_dims_one_die_after_two_steps():
    board, v = H.view()
    c, r = H.started()
    side = c.side
    H.roll_at(c, bytearray(r.pos), side, 6, 6)
    v.paint(c, r.now)
    full = _levels(v, board)
    seen = []
    for f, t in ((24, 18), (24, 18), (13, 7)):
        _move(r, side, f, t)
        v.paint(c, r.now)
        seen.append(_levels(v, board))
    assert seen[0] == full
    assert seen[1][0] == full[0] and 0 < seen[1][1] < full[1] // 4
    assert seen[2] == seen[1]
    _move(r, side, 13, 7)
    assert c.rec.state == R.COMPLETE
    v.paint(c, r.now)
    d = _levels(v, board)
    assert 0 < d[0] < full[0] // 4 and 0 < d[1] < full[1] // 4


def test_painter_dims_the_die_it_is_told():
    from bg import hwdesc

    board = hwdesc.load()
    for lit in (0, 1, 2, 3):
        p = L.Painter(board)
        p.clear()
        p.tick(0)
        p.dice(6, 6, 0, 255, lit)
        for d in (0, 1):
            g = p.get(board.die_led[7 * d])  # pip 0 is lit on a 6
            ref = L.Painter(board)
            ref.clear()
            ref.set(0, L.SIDE_COLOURS[0], 255 if lit >> d & 1 else 255 >> 3)
            assert g == ref.get(0), (lit, d, g)
