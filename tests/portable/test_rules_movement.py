"""Movement rules, one test per rule, from the seed documents (000 = backgammonclub.fr
rules, 002 = Carlit booklet, 003 = Rouge et Noir, 004 = house rules). Runs on CPython and
on MicroPython (tests/mpy_runner.py)."""

from bg import board
from bg import engine as movegen

GEN = movegen.MoveGen()


def opp(points):
    """Side 1's checkers given on side 0's point numbers (25 = side 1's bar)."""
    return {(p if p == 25 else 25 - p): n for p, n in points.items()}


def steps_of(pos, side, d1, d2):
    return sorted(s for s, _ in GEN.plays(pos, side, d1, d2))


def test_start_position_15_checkers_each():
    # seed 000: two on 24, five on 13, three on 8, five on 6, for each player
    pos = board.start_position()
    for side in (0, 1):
        assert board.count(pos, side, 24) == 2 and board.count(pos, side, 13) == 5
        assert board.count(pos, side, 8) == 3 and board.count(pos, side, 6) == 5
        assert board.on_board(pos, side) == 15
        assert board.pip_count(pos, side) == 167
    board.validate(pos)
    # a point of one side is point 25 - p of the other: 24 of side 0 is 1 of side 1
    assert board.opp_count(pos, 0, 1) == 2


def test_movement_goes_from_24_to_1():
    pos = board.start_position()
    for steps, _ in GEN.plays(pos, 0, 6, 5):
        for i in range(0, len(steps), 2):
            assert steps[i] > steps[i + 1]


def test_closed_point_cannot_be_landed_on():
    # seed 000 rule 1: two or more opposing checkers close a point
    pos = board.start_position()  # side 1 holds side 0's 19 (its 6) and 17 (its 8)
    for steps, _ in GEN.plays(pos, 0, 5, 2):
        assert (24, 19) not in [(steps[i], steps[i + 1]) for i in range(0, len(steps), 2)]


def test_sum_of_dice_needs_an_open_intermediate_point():
    # seed 002 "Bänder": from 1A (our 24) with 5-4, 5A (20) and 6A (19) are closed: 10A (15)
    # cannot be reached; with 6-3, 4A (21) is open so 24/21/15 is fine, the other order is
    # blocked by 7A (18)
    pos = board.from_points({24: 1, 6: 14}, opp({20: 2, 19: 2, 18: 2, 9: 9}))
    for steps in steps_of(pos, 0, 5, 4):
        assert 24 not in steps
    plays = steps_of(pos, 0, 6, 3)
    assert (24, 21, 21, 15) in plays
    for steps in plays:
        assert (steps[0], steps[1]) != (24, 18)


def test_doubles_play_four_times():
    # seed 000 rule 3, seed 003: a double is played four times
    pos = board.start_position()
    short = []

    def visit(w, st, n):
        if n != 4:
            short.append(n)

    assert GEN.for_each_end(pos, 0, 3, 3, visit) > 0 and not short
    assert GEN.is_legal(pos, 0, 3, 3, (24, 21, 24, 21, 8, 5, 8, 5))
    assert not GEN.is_legal(pos, 0, 3, 3, (24, 21, 24, 21, 8, 5))


def test_both_dice_must_be_played_when_possible():
    # seed 000 rule 4: with 6-5 from 13 only 13/7/2 uses both dice (8 is closed), so the
    # 6 alone (13/7) is not a legal play
    pos = board.from_points({13: 1, 1: 14}, opp({8: 2, 24: 13}))
    assert steps_of(pos, 0, 6, 5) == [(13, 7, 7, 2)]
    assert not GEN.is_legal(pos, 0, 6, 5, (13, 7))


def test_only_one_die_playable_must_be_the_larger():
    # seed 000/003/004: either die alone can be played but not both: play the larger
    pos = board.from_points({13: 1, 1: 14}, opp({2: 2, 24: 13}))
    assert steps_of(pos, 0, 6, 5) == [(13, 7)]
    assert not GEN.is_legal(pos, 0, 6, 5, (13, 8))


def test_only_the_smaller_die_playable_is_played():
    # the larger die cannot move at all: the smaller one must be played
    pos = board.from_points({13: 1, 1: 14}, opp({7: 2, 2: 2, 24: 11}))
    assert steps_of(pos, 0, 6, 5) == [(13, 8)]


def test_doubles_as_many_as_possible():
    # seed 000: if the four moves cannot all be made, play as many as possible
    pos = board.from_points({20: 1, 6: 14}, opp({8: 2, 24: 13}))
    assert steps_of(pos, 0, 6, 6) == [(20, 14)]
    assert GEN.max_steps(pos, 0, 6, 6) == 1


def test_no_legal_play_passes_the_turn():
    # seed 000: when no die can be used the turn passes
    pos = board.from_points({25: 1, 6: 14}, opp({19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3}))
    for a in range(1, 7):
        for b in range(1, 7):
            assert GEN.no_play(pos, 0, a, b)
            assert GEN.plays(pos, 0, a, b) == []
            assert GEN.forced(pos, 0, a, b) == ()


def test_seed_002_example_6_4_moves():
    # seed 002: "W 6/4 = 1A-7A und 1A-5A", "6-2 und 8-2", "12A-9-3" are all legal openings
    pos = board.start_position()
    for steps in ((24, 18, 24, 20), (8, 2, 6, 2), (13, 9, 9, 3)):
        assert GEN.is_legal(pos, 0, 6, 4, steps), steps


def test_moves_of_the_other_side_mirror():
    # the same rules for side 1 in its own numbering
    pos = board.start_position()
    a = sorted(s for s, _ in GEN.plays(pos, 0, 4, 2))
    b = sorted(s for s, _ in GEN.plays(pos, 1, 4, 2))
    assert a == b and len(a) == 18
