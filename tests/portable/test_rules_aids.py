"""Learning aids of seed 002: hit table, shots with real blocking, opening book, pips."""

from bg import aids, board
from bg import engine as movegen

SEED_TABLE = (11, 12, 14, 15, 15, 17, 6, 6, 5, 3, 2, 3)
SEED_PERCENT = (31, 33, 39, 42, 42, 47, 17, 17, 14, 8, 6, 8)


def test_empty_board_hit_table_of_the_seed():
    assert tuple(aids.hit_rolls(d) for d in range(1, 13)) == SEED_TABLE
    assert tuple(aids.hit_percent(d) for d in range(1, 13)) == SEED_PERCENT


def test_shots_on_an_empty_board_equal_the_table():
    # a lone checker on our 24 against a lone blot d pips away, nothing in between
    got = []
    for d in range(1, 13):
        pos = board.from_points({24: 1}, {d + 1: 1})
        got.append(aids.shots(pos, 0, 24 - d))
    assert tuple(got) == SEED_TABLE


def test_shots_with_blocking_points():
    # the blot 8 away (empty board: 6 rolls); points 4 and 6 pips away closed: 4-4 and 2-2
    # fail, 6-2 still hits through the open 2-away point, 5-3 as before
    pos = board.from_points({24: 1}, {9: 1, 5: 2, 7: 2})
    assert aids.shots(pos, 0, 16) == 4
    assert aids.hit_rolls(8, (1 << 4) | (1 << 6)) == 4


def test_opening_book_is_legal_and_reads_as_the_seed():
    gen = movegen.MoveGen()
    start = board.start_position()
    for a in range(1, 7):
        for b in range(1, a + 1):
            assert gen.is_legal(start, 0, a, b, aids.opening_move(a, b)), (a, b)
            for alt in aids.opening_alternatives(a, b):
                assert gen.is_legal(start, 0, a, b, alt)
    assert aids.opening_text(6, 5) == "24/13"  # 1A-7A-12A
    assert aids.opening_text(3, 1) == "8/5 6/5"
    assert aids.opening_text(1, 2) == "24/21"  # 1A-3A-4A
    assert aids.opening_text(5, 5) == "13/3(2)"  # 2 x 12A-8-3


def test_pip_count():
    assert aids.pip_count(board.start_position(), 1) == 167
    assert aids.pip_count(board.from_points({25: 1, 1: 14}, {1: 15}), 0) == 39
