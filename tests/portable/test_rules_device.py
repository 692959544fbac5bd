"""Device-side queries on small positions: recognition, hints, prefixes, forced plays."""

from bg import board
from bg import engine as movegen

GEN = movegen.MoveGen()


def opp(points):
    return {(p if p == 25 else 25 - p): n for p, n in points.items()}


def after(pos, steps):
    w = bytearray(pos)
    GEN.apply(w, 0, steps)
    return w


def test_recognize_finds_the_play():
    start = board.start_position()
    end = after(start, (8, 5, 6, 5))
    assert GEN.recognize(start, 0, 3, 1, end) in ((8, 5, 6, 5), (6, 5, 8, 5))
    assert GEN.recognize(start, 0, 3, 1, after(start, (8, 5, 6, 4))) is None
    assert GEN.recognize(start, 0, 3, 1, start) is None  # must move


def test_recognize_refuses_half_a_play():
    start = board.start_position()
    assert GEN.recognize(start, 0, 6, 5, after(start, (24, 18))) is None


def test_partial_ok_and_hints():
    start = board.start_position()
    half = after(start, (24, 21))
    assert GEN.partial_ok(start, 0, 3, 1, half)
    assert GEN.partial_ok(start, 0, 3, 1, start)
    assert not GEN.partial_ok(start, 0, 3, 1, after(start, (24, 22)))
    # the checker on 21 may go on 1 pip to 20; nothing else of it
    assert GEN.hints(start, 0, 3, 1, half, 21) == 1 << 20
    # from the start a checker of 13 goes to 10 or (both dice) 9; 12 is the opponent's
    # mid-point (its 13), closed
    assert GEN.hints(start, 0, 3, 1, start, 13) == (1 << 10) | (1 << 9)
    # 24 goes to 21, 23 or 20
    assert GEN.hints(start, 0, 3, 1, start, 24) == (1 << 21) | (1 << 23) | (1 << 20)


def test_hints_bear_off_bit_zero():
    pos = board.from_points({6: 1, 5: 1, 3: 3}, opp({24: 15}))
    assert GEN.hints(pos, 0, 6, 5, pos, 6) & 1


def test_forced_and_no_play():
    pos = board.from_points({13: 1, 1: 14}, opp({8: 2, 24: 13}))
    assert GEN.forced(pos, 0, 6, 5) in ((13, 7, 7, 2),)
    assert GEN.forced(board.start_position(), 0, 3, 1) is None
    closed = board.from_points({25: 1, 6: 14}, opp({19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3}))
    assert GEN.no_play(closed, 0, 6, 6) and GEN.forced(closed, 0, 6, 6) == ()
    assert GEN.recognize(closed, 0, 6, 6, closed) == ()


def test_for_each_end_worst_position():
    # the worst case: 1-1, singles on 3 4 6 7 9 10 12 13 15 16 17 19 20 22 23, the
    # opponent's last two checkers on our 24: 2,140 distinct plays, visited once each
    singles = {}
    for p in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 19, 20, 22, 23):
        singles[p] = 1
    pos = board.from_points(singles, opp({24: 2}))
    count = [0]

    def visit(w, st, n):
        count[0] += 1

    assert GEN.for_each_end(pos, 0, 1, 1, visit) == 2140 == count[0]


def test_is_legal_checks_order():
    start = board.start_position()
    assert GEN.is_legal(start, 0, 6, 3, (24, 21, 21, 15))
    assert GEN.is_legal(start, 0, 6, 3, (24, 18, 18, 15))
    assert not GEN.is_legal(start, 0, 6, 3, (24, 18))
    assert not GEN.is_legal(start, 0, 6, 3, (24, 19, 19, 15))
