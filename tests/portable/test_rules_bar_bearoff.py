"""Hitting, the bar, entering and bearing off, from the seed documents' own examples."""

from bg import board, notation
from bg import engine as movegen

GEN = movegen.MoveGen()


def opp(points):
    return {(p if p == 25 else 25 - p): n for p, n in points.items()}


def dests(steps):
    return [steps[i] for i in range(1, len(steps), 2)]


def steps_of(pos, side, d1, d2):
    return sorted(s for s, _ in GEN.plays(pos, side, d1, d2))


def test_hitting_a_blot_sends_it_to_the_bar():
    # seed 000 "Frapper": a lone opposing checker is hit and put on the bar
    pos = board.from_points({13: 1, 6: 14}, opp({10: 1, 1: 14}))
    for steps, res in GEN.plays(pos, 0, 3, 1):
        if steps[-1] == 10 or 10 in dests(steps):
            assert res[49] == 1 and board.opp_count(res, 0, 10) == 0
    assert "13/10* 6/5" in [notation.format_play(pos, 0, s) for s, _ in GEN.plays(pos, 0, 3, 1)]


def test_hits_on_an_intermediate_point():
    # seed 002 "Schlagen": with 5-3 from 1A White goes 1A-4A and on to 9A hitting on 9A; a
    # checker moved by both dice may also hit where it touches down in between
    pos = board.from_points({24: 1, 6: 14}, opp({21: 1, 16: 1, 1: 13}))
    texts = [notation.format_play(pos, 0, s) for s, _ in GEN.plays(pos, 0, 5, 3)]
    assert "24/21*/16*" in texts


def test_bar_checkers_enter_first():
    # seed 000/002: with a checker on the bar nothing else moves before it has entered
    pos = board.from_points({25: 1, 13: 14}, opp({1: 15}))
    for steps in steps_of(pos, 0, 6, 5):
        assert steps[0] == 25


def test_entering_on_opponents_home_board():
    # seed 000: 4-3 with the 4 point closed: enter on the 3 point (our 22)
    pos = board.from_points({25: 1, 13: 14}, opp({21: 2, 1: 13}))
    for steps in steps_of(pos, 0, 4, 3):
        assert steps[:2] == (25, 22)


def test_after_entering_the_remaining_die_is_played():
    # seed 000: after the last checker entered, the other die moves any checker
    pos = board.from_points({25: 1, 13: 14}, opp({1: 15}))
    plays = steps_of(pos, 0, 6, 5)
    assert (25, 19, 13, 8) in plays and (25, 20, 13, 7) in plays
    texts = [notation.format_play(pos, 0, s) for s in plays]
    assert "bar/14" in texts  # the entered checker itself may go on


def test_two_on_the_bar_6_3():
    # seed 002 "Einsetzen": two checkers on the bar, 6-3: one enters on 6A (our 19), the
    # other on 3A (our 22); 3A closed: only the 6 enters, the 3 is lost
    pos = board.from_points({25: 2, 13: 13}, opp({1: 15}))
    assert steps_of(pos, 0, 6, 3) == [(25, 19, 25, 22)]
    pos = board.from_points({25: 2, 13: 13}, opp({22: 2, 1: 13}))
    assert steps_of(pos, 0, 6, 3) == [(25, 19)]


def test_two_on_the_bar_6_closed_the_3_still_enters():
    # seed 002 says that with 6A closed neither checker may enter "because the higher die must
    # be played"; the standard rule (seeds 000/003, GNU Backgammon) plays the larger die only
    # when either could be played but not both -- here the 6 cannot be played at all, so the
    # 3 enters. We follow the standard rule (see docs/engine.md).
    pos = board.from_points({25: 2, 13: 13}, opp({19: 2, 1: 13}))
    assert steps_of(pos, 0, 6, 3) == [(25, 22)]


def test_closed_board_no_entry():
    # seed 002 "Geschlossenes Brett": all six home points closed: no roll enters
    pos = board.from_points({25: 1, 6: 14}, opp({19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3}))
    assert all(GEN.no_play(pos, 0, a, b) for a in range(1, 7) for b in range(1, 7))


def test_bear_off_only_with_all_checkers_home():
    # seed 000/002: no bearing off while a checker is outside; once the first die brings
    # the last one home, the second die may bear off
    pos = board.from_points({20: 1, 1: 14}, opp({24: 15}))
    assert [notation.format_play(pos, 0, s) for s in steps_of(pos, 0, 2, 1)] == ["20/17"]
    pos = board.from_points({7: 1, 1: 14}, opp({24: 15}))
    assert steps_of(pos, 0, 6, 6) == [(7, 1, 1, 0, 1, 0, 1, 0)]


def test_bear_off_exact_die_and_highest_point():
    # seed 002 "Ausspielen", Abbildung 3: 6-4 bears off from 6 and 4; 6-5 bears one off the
    # 6 point and must move the other 6 down 5 (6/1): 5 is empty but 6 is higher
    pos = board.from_points({6: 2, 4: 4, 2: 2, 1: 1}, opp({24: 15}))
    assert (6, 0, 4, 0) in steps_of(pos, 0, 6, 4)
    assert steps_of(pos, 0, 6, 5) == [(6, 0, 6, 1)]
    # 5-3: both points empty, higher checkers exist: two checkers move, none comes off
    for steps in steps_of(pos, 0, 5, 3):
        assert 0 not in dests(steps)


def test_bear_off_from_highest_point_with_larger_die():
    # seed 002: the 6s gone, 5-4 bears off two from the 4 point; 6-6 or 5-5 four from 4
    pos = board.from_points({4: 4, 2: 2, 1: 1}, opp({24: 15}))
    assert [notation.format_play(pos, 0, s) for s in steps_of(pos, 0, 5, 4)] == ["4/off(2)"]
    assert [notation.format_play(pos, 0, s) for s in steps_of(pos, 0, 6, 6)] == ["4/off(4)"]
    assert [notation.format_play(pos, 0, s) for s in steps_of(pos, 0, 5, 5)] == ["4/off(4)"]


def test_seed_000_6_5_bears_off_the_two_furthest():
    # seed 000 figure: with 6-5 White bears off its two checkers furthest from home
    pos = board.from_points({6: 1, 5: 1, 3: 3}, opp({24: 15}))
    assert (6, 0, 5, 0) in steps_of(pos, 0, 6, 5)


def test_a_die_may_move_inside_instead_of_bearing_off():
    # seed 000/002: bearing off is not compulsory: "mit einer 5 von 6 auf 1"
    pos = board.from_points({6: 2, 5: 1, 1: 1}, opp({24: 15}))
    plays = steps_of(pos, 0, 5, 1)
    assert any((6, 1) == (s[i], s[i + 1]) for s in plays for i in (0, 2))
    assert any((5, 0) == (s[i], s[i + 1]) for s in plays for i in (0, 2))


def test_hit_during_bear_off_must_come_home_first():
    # seed 000/002/003: a checker hit during the bear-off must come home again first
    pos = board.from_points({25: 1, 6: 4, 5: 5}, opp({24: 15}))
    for steps in steps_of(pos, 0, 6, 5):
        assert steps[:2] in ((25, 19), (25, 20)) and 0 not in dests(steps)


def test_enter_and_leave_the_home_board_with_one_roll():
    # seed 004: a checker may enter and go on out of the opponent's home board in one roll
    pos = board.from_points({25: 1, 6: 14}, opp({1: 15}))
    assert "bar/14" in [notation.format_play(pos, 0, s) for s in steps_of(pos, 0, 6, 5)]
