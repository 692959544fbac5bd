"""``bg.match.Fold``: the one fold of the record over the match rules (the controller's
``Controller.apply`` and the host's model both run it), on both interpreters. Each test feeds
records the way a journal or a radio frame would, including ones that break the rules: a bad
record raises ValueError and changes nothing."""

from bg import board
from bg import record as R
from bg.match import (
    F_AWAIT,
    F_DOUBLED,
    F_ENDED,
    F_GAME_OVER,
    F_MATCH_OVER,
    F_MOVING,
    F_OPENING,
    F_RESIGNING,
    Fold,
    apply_free,
)


def start(length=0, flags=0, auto=0):
    f = Fold()
    f.apply(R.MATCH_START, (b"\x01" * 8, 0, length, flags, auto, 0, 0, "A", "B", bytes(32), b""))
    return f


def snap(f):
    return (f.phase, f.side, f.score[0], f.score[1], f.cube, f.owner, f.offer, f.game_no, bytes(f.pos))


def refused(f, k, fields):
    """``k`` is refused and the fold is exactly as before."""
    before = snap(f)
    try:
        f.apply(k, fields)
    except ValueError as e:
        assert str(e), "an empty message"
        assert snap(f) == before, (k, fields)
        return True
    return False


def opened(f, game=1, dice=(3, 1)):
    """GAME_START and an opening throw won by side 0 (3-1: 8/5 6/5 follows)."""
    f.apply(R.GAME_START, (game, f.score[0], f.score[1], R.GAME_CRAWFORD if f.next_is_crawford() else 0))
    f.apply(R.OPENING, (0, dice))
    assert f.phase == F_MOVING and f.side == 0


def test_a_turn_folds_position_turn_and_dice():
    f = start(3, R.OPT_CRAWFORD)
    opened(f)
    assert (f.dice[0], f.dice[1]) == (3, 1) and f.opening_play
    f.apply(R.PLAY, (0, (8, 5, 6, 5), 0))
    want = board.start_position()
    board.apply_step(want, 0, 8, 5)
    board.apply_step(want, 0, 6, 5)
    assert f.pos == want and f.phase == F_AWAIT and f.side == 1 and not f.opening_play
    f.apply(R.ROLL, (1, 6, 4))
    assert f.phase == F_MOVING and f.side == 1 and (f.dice[0], f.dice[1]) == (6, 4)


def test_records_out_of_turn_or_against_the_rules_change_nothing():
    f = Fold()
    assert refused(f, R.GAME_START, (1, 0, 0, 0))  # no MATCH_START
    f = start(3, R.OPT_CRAWFORD)
    assert refused(f, R.ROLL, (0, 3, 1))  # outside a game
    assert refused(f, R.GAME_START, (2, 0, 0, 0))  # wrong number
    assert refused(f, R.GAME_START, (1, 1, 0, 0))  # wrong score
    assert refused(f, R.GAME_START, (1, 0, 0, R.GAME_CRAWFORD))  # not the Crawford game
    opened(f)
    assert refused(f, R.PLAY, (1, (24, 21, 24, 23), 0))  # the other side
    assert refused(f, R.PLAY, (0, (8, 4, 6, 5), 0))  # not the dice: illegal
    assert refused(f, R.PLAY, (0, (8, 9), R.PLAY_CASUAL_ACCEPTED_ILLEGAL))  # not casual
    assert refused(f, R.DOUBLE, (0, 2))  # after rolling
    f.apply(R.PLAY, (0, (8, 5, 6, 5), 0))
    assert refused(f, R.DOUBLE, (1, 4))  # the cube is at 1
    assert refused(f, R.DOUBLE, (0, 2))  # not on roll
    assert refused(f, R.TAKE, (0,))  # nothing to take
    assert refused(f, R.BEAVER, (0, 4))  # match play: no beavers
    assert refused(f, R.GAME_END, (1, 1, 1, R.END_BEAROFF))  # nobody bore off
    assert refused(f, R.GAME_END, (1, 1, 1, R.END_DROP))  # no drop
    assert refused(f, R.GAME_END, (1, 1, 1, R.END_TIME))  # time: 3 points, not 1
    assert refused(f, R.MATCH_END, (0, 0, 0))  # in the middle of a game
    assert refused(f, R.AUTO_DOUBLE, (2,))  # not an opening tie
    assert refused(f, R.RESIGN_ACCEPT, (0,))  # no resignation
    assert refused(f, 0x7E, ())  # no such record


def test_double_take_drop_score_the_cube():
    f = start(5, R.OPT_CRAWFORD)
    opened(f)
    f.apply(R.PLAY, (0, (8, 5, 6, 5), 0))
    f.apply(R.DOUBLE, (1, 2))
    assert f.phase == F_DOUBLED and f.offer == 1
    f.apply(R.TAKE, (0,))
    assert f.cube == 2 and f.owner == 0 and f.phase == F_AWAIT and f.side == 1
    assert refused(f, R.DOUBLE, (1, 4))  # side 1 does not own the cube
    f.apply(R.ROLL, (1, 2, 1))
    f.apply(R.PLAY, (1, (6, 4, 4, 3), 0))
    f.apply(R.DOUBLE, (0, 4))
    f.apply(R.DROP, (1,))
    assert f.phase == F_ENDED and f.score == [2, 0]
    assert refused(f, R.GAME_END, (0, 4, 1, R.END_DROP))  # the stake before the double is 2
    f.apply(R.GAME_END, (0, 2, 1, R.END_DROP))
    assert f.phase == F_GAME_OVER and f.result == (0, 2, 1, R.END_DROP) and f.side == -1


def test_the_opening_rules_go_once_the_opening_roll_is_played_and_come_back_for_the_next_game():
    """The game's ``Opening`` is dropped with the opening play; on MicroPython its module
    (``bg.dice.cup``) goes too (0.4 kB not held through the game, docs/memory.md) and the next
    GAME_START imports it again: the next game opens as the first did."""
    import sys

    f = start(5, R.OPT_CRAWFORD)
    for game in (1, 2):
        opened(f, game)
        assert f.opening is not None and "bg.dice.cup" in sys.modules
        f.apply(R.PLAY, (0, (8, 5, 6, 5), 0))
        assert f.opening is None and f.phase == F_AWAIT and not f.opening_play
        assert ("bg.dice.cup" in sys.modules) == (sys.implementation.name != "micropython")
        f.apply(R.DOUBLE, (1, 2))
        f.apply(R.DROP, (0,))
        f.apply(R.GAME_END, (1, 1, 1, R.END_DROP))
    assert f.score == [0, 2] and f.game_no == 2


def test_crawford_game_has_no_cube_and_the_match_ends():
    f = start(2, R.OPT_CRAWFORD)
    opened(f)
    f.apply(R.RESIGN, (0, 1))
    f.apply(R.RESIGN_ACCEPT, (1,))
    f.apply(R.GAME_END, (1, 1, 1, R.END_RESIGN))
    assert f.next_is_crawford()
    assert refused(f, R.GAME_START, (2, 0, 1, 0))  # the Crawford game must say so
    opened(f, 2)
    assert f.crawford
    f.apply(R.PLAY, (0, (8, 5, 6, 5), 0))
    assert refused(f, R.DOUBLE, (1, 2))
    f.apply(R.RESIGN, (1, 2))
    assert f.phase == F_RESIGNING
    f.apply(R.RESIGN_REJECT, (0,))
    assert f.phase == F_AWAIT and f.side == 1
    f.apply(R.RESIGN, (1, 2))
    f.apply(R.RESIGN_ACCEPT, (0,))
    f.apply(R.GAME_END, (0, 2, 2, R.END_RESIGN))
    assert f.score == [2, 1] and f.is_over()
    assert refused(f, R.GAME_START, (3, 2, 1, 0))  # the match is over
    f.apply(R.MATCH_END, (0, 2, 1))
    assert f.phase == F_MATCH_OVER
    assert refused(f, R.GAME_START, (3, 2, 1, 0))


def test_no_crawford_rule_means_no_crawford_game():
    f = start(2, 0)
    opened(f)
    f.apply(R.RESIGN, (0, 1))
    f.apply(R.RESIGN_ACCEPT, (1,))
    f.apply(R.GAME_END, (1, 1, 1, R.END_RESIGN))
    assert not f.next_is_crawford()
    assert refused(f, R.GAME_START, (2, 0, 1, R.GAME_CRAWFORD))
    opened(f, 2)
    f.apply(R.PLAY, (0, (8, 5, 6, 5), 0))
    f.apply(R.DOUBLE, (1, 2))


def test_money_jacoby_beaver_and_automatic_doubles():
    f = start(0, R.OPT_JACOBY | R.OPT_BEAVER, 1)
    f.apply(R.GAME_START, (1, 0, 0, 0))
    f.apply(R.OPENING, (0, (4, 4)))
    assert f.phase == F_OPENING
    assert refused(f, R.AUTO_DOUBLE, (4,))  # the cube goes to 2
    f.apply(R.AUTO_DOUBLE, (2,))
    f.apply(R.OPENING, (0, (5, 5)))
    assert refused(f, R.AUTO_DOUBLE, (4,))  # over the limit of 1
    assert f.cube == 2 and f.owner == -1
    f.apply(R.OPENING, (0, (3, 1)))
    # Jacoby: the cube was never offered, a gammon resigned counts single (at the cube's 2)
    assert f.game_value(2) == 2
    f.apply(R.RESIGN, (0, 2))
    f.apply(R.RESIGN_ACCEPT, (1,))
    assert refused(f, R.GAME_END, (1, 4, 2, R.END_RESIGN))
    f.apply(R.GAME_END, (1, 2, 2, R.END_RESIGN))
    opened(f, 2)
    f.apply(R.PLAY, (0, (8, 5, 6, 5), 0))
    f.apply(R.DOUBLE, (1, 2))
    assert refused(f, R.BEAVER, (0, 2))  # a beaver doubles the offered cube
    f.apply(R.BEAVER, (0, 4))
    assert f.cube == 4 and f.owner == 0 and f.phase == F_AWAIT and f.side == 1
    assert f.game_value(2) == 8  # offered: gammons count
    f.apply(R.ROLL, (1, 1, 2))
    f.apply(R.PLAY, (1, (24, 23, 24, 22), 0))
    # a flag fall: money play scores the game at the current stake
    assert refused(f, R.GAME_END, (0, 1, 1, R.END_TIME))
    f.apply(R.GAME_END, (0, 4, 1, R.END_TIME))
    assert f.score == [4, 2]
    f.apply(R.MATCH_END, (0, 4, 2))


def test_casual_accepted_illegal_play_is_folded_like_the_board_makes_it():
    f = start(0, R.OPT_CASUAL)
    opened(f)
    f.apply(R.PLAY, (0, (6, 7), R.PLAY_CASUAL_ACCEPTED_ILLEGAL))  # backwards: no die says so
    assert f.pos[6 - 1] == 4 and f.pos[7 - 1] == 1 and f.side == 1
    f.apply(R.ROLL, (1, 2, 1))
    assert refused(f, R.PLAY, (1, (3, 4), R.PLAY_CASUAL_ACCEPTED_ILLEGAL))  # no checker there
    assert refused(f, R.PLAY, (1, (24, 19), R.PLAY_CASUAL_ACCEPTED_ILLEGAL))  # onto the 6-point
    assert refused(f, R.PLAY, (1, (24, 30), R.PLAY_CASUAL_ACCEPTED_ILLEGAL))  # off the board


def test_apply_free_hits_a_blot_and_refuses_a_closed_point():
    pos = board.from_points({6: 1, 8: 1}, {7: 1, 12: 2})  # white's 18 and 13
    apply_free(pos, 0, (6, 18))  # white lands on black's lone checker: it goes to the bar
    assert pos[18 - 1] == 1 and pos[49] == 1
    try:
        apply_free(pos, 0, (8, 13))
    except ValueError:
        return
    raise AssertionError("a closed point was landed on")
