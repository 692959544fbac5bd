"""The engine's walk (bg.engine._core._walk: viper on MicroPython, the same source on CPython)
against clumsy callers: positions that are not bytearrays, visitors that stop it half-way."""

from bg import board
from bg import engine as movegen


def _ends(gen, pos, d1, d2):
    out = []

    def visit(w, st, n):
        out.append(bytes(w))

    gen.for_each_end(pos, 0, d1, d2, visit)
    return out


def test_position_as_list_tuple_or_bytes_reads_like_the_bytearray():
    gen = movegen.MoveGen()
    start = board.start_position()
    want = _ends(gen, start, 6, 6)
    assert len(want) > 0
    for other in (list(start), tuple(start), bytes(start)):
        assert _ends(gen, other, 6, 6) == want
    assert gen.max_steps(list(start), 0, 3, 1) == 2


def test_a_list_with_a_value_past_255_is_refused():
    gen = movegen.MoveGen()
    bad = list(board.start_position())
    bad[5] = 300
    try:
        gen.max_steps(bad, 0, 3, 1)
    except ValueError:
        return
    raise AssertionError("a checker count of 300 was accepted")


def test_a_stopped_walk_leaves_nothing_behind():
    gen = movegen.MoveGen()
    start = board.start_position()
    seen = []

    def stop_at_third(w, st, n):
        seen.append(n)
        if len(seen) == 3:
            gen.stop = True

    assert gen.for_each_end(start, 0, 2, 2, stop_at_third) == 3
    assert gen.w == start  # every step unmade on the way out
    assert gen.stop is False
    # the next walk, on the same generator, is complete
    assert len(set(_ends(gen, start, 2, 2))) == len(movegen.MoveGen().plays(start, 0, 2, 2))


def test_bar_entry_with_doubles_and_a_closed_board():
    gen = movegen.MoveGen()
    # side 0: one checker on the bar; side 1 holds its points 1..6 (side 0's 24..19)
    pos = board.from_points({6: 2, 13: 5, 8: 7}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    pos[24] = 1
    assert gen.for_each_end(pos, 0, 4, 4, lambda w, st, n: None) == 0
    assert gen.no_play(pos, 0, 4, 4)
    pos[25 + 3] = 0  # side 1 leaves its 4 point (side 0's 21): 4-4 enters, then moves on
    pos[25 + 12] = 5
    plays = movegen.MoveGen().plays(pos, 0, 4, 4)
    assert plays and all(p[0][:2] == (25, 21) for p in plays)
    assert gen.for_each_end(pos, 0, 4, 4, lambda w, st, n: None) >= len(plays)
