"""End of game, scoring, cube, match and money options, opening roll -- one test per rule
from the seeds (000 rules and match/cube, 001 money options, 002 Carlit, 004 house rules)."""

from bg import board
from bg.dice.cup import CHOICE, DONE, NEED_THROW, Opening
from bg.match import BACKGAMMON, GAMMON, SINGLE, Match


def opp(points):
    return {(p if p == 25 else 25 - p): n for p, n in points.items()}


def raises(fn, *args):
    try:
        fn(*args)
    except ValueError:
        return True
    return False


def test_single_game_when_loser_bore_off():
    pos = board.from_points({}, opp({20: 3}))  # side 1 bore off 12
    assert board.game_result(pos, 0) == SINGLE


def test_gammon_when_loser_bore_off_none():
    pos = board.from_points({}, opp({12: 15}))
    assert board.game_result(pos, 0) == GAMMON


def test_backgammon_with_checker_in_winners_home():
    # seed 000: no checker off and one in the winner's home board (our 1..6) or on the bar
    pos = board.from_points({}, opp({12: 14, 3: 1}))
    assert board.game_result(pos, 0) == BACKGAMMON


def test_backgammon_with_checker_on_the_bar():
    pos = board.from_points({}, opp({12: 14, 25: 1}))
    assert board.game_result(pos, 0) == BACKGAMMON


def test_game_result_needs_a_finished_winner():
    assert raises(board.game_result, board.start_position(), 0)


def test_points_are_kind_times_cube():
    # seed 000: a gammon loses twice the cube, a backgammon three times
    m = Match(length=0)
    m.new_game()
    m.double(0)
    m.take()
    m.start_turn(1)
    m.double(1)
    m.take()
    assert m.cube == 4 and m.owner == 0
    assert m.end_game(0, BACKGAMMON) == 12 and m.score == [12, 0]


def test_double_only_before_rolling():
    # seed 000: a double is offered at the start of one's own turn, before rolling
    m = Match(length=7)
    m.new_game()
    m.start_turn(0)
    assert m.can_double(0) and not m.can_double(1)
    m.rolled_dice()
    assert not m.can_double(0)
    assert raises(m.double, 0)


def test_drop_loses_the_value_before_the_double():
    # seed 000: refusing a redouble loses the points at stake before it
    m = Match(length=0)
    m.new_game()
    m.double(0)
    m.take()  # cube 2, owned by side 1
    m.start_turn(1)
    m.double(1)
    assert m.drop() == 2 and m.score == [0, 2] and not m.in_game


def test_taker_owns_cube_and_only_owner_redoubles():
    m = Match(length=0)
    m.new_game()
    m.double(0)
    m.take()
    assert m.owner == 1
    m.start_turn(0)
    assert not m.can_double(0)
    m.rolled_dice()
    m.start_turn(1)
    assert m.can_double(1)


def test_match_cube_stops_at_64_money_has_no_limit():
    # seed 000: the cube shows 2..64; "no limit to the number of redoubles" in money play
    m = Match(length=25)
    m.new_game()
    side = 0
    while m.can_double(side):
        m.double(side)
        m.take()
        side = 1 - side
    assert m.cube == 64
    money = Match(length=0)
    money.new_game()
    side = 0
    for _ in range(8):
        money.double(side)
        money.take()
        side = 1 - side
    assert money.cube == 256


def test_crawford_game_has_no_cube():
    # seed 000: when a player is one point from winning, the next game only has no cube
    m = Match(length=5)
    m.new_game()
    m.end_game(0, GAMMON)
    m.new_game()
    m.end_game(0, SINGLE)
    m.new_game()
    m.end_game(0, SINGLE)  # 4-0 in a 5-point match: match point
    m.new_game()
    assert m.crawford and not m.can_double(0) and not m.can_double(1)
    m.end_game(1, SINGLE)
    m.new_game()  # post-Crawford: the cube is back
    assert not m.crawford and m.post_crawford and m.can_double(1)


def test_match_ends_at_length():
    m = Match(length=3)
    m.new_game()
    m.end_game(1, BACKGAMMON)
    assert m.is_over() and m.match_winner() == 1
    assert raises(m.new_game)


def test_jacoby_rule_gammons_count_single_without_a_double():
    # seed 001: gammons and backgammons count one point if nobody offered a double
    m = Match(length=0, jacoby=True)
    m.new_game()
    assert m.end_game(0, GAMMON) == 1
    m.new_game()
    m.double(1)
    m.take()
    assert m.end_game(0, GAMMON) == 4


def test_beaver_redoubles_and_keeps_the_cube():
    # seed 001: the doubled player may redouble at once keeping the cube; the first doubler
    # then takes or drops as with a normal double
    m = Match(length=0, beavers=True)
    m.new_game()
    m.double(0)
    m.beaver()
    assert m.cube == 2 and m.owner == 1 and m.offer == 1
    m.take()
    assert m.cube == 4 and m.owner == 1
    m2 = Match(length=0, beavers=True)
    m2.new_game()
    m2.double(0)
    m2.beaver()
    assert m2.drop() == 2 and m2.winner == 1


def test_no_beaver_without_the_option():
    m = Match(length=0)
    m.new_game()
    m.double(0)
    assert raises(m.beaver)


def test_automatic_doubles_with_a_limit():
    # seed 001: equal opening dice double the stake, cube stays in the middle; usually
    # limited to one per game
    m = Match(length=0, auto_doubles=1)
    m.new_game()
    o = Opening()
    o.feed(4, 4)
    assert o.state == NEED_THROW and m.auto_double()
    assert m.cube == 2 and m.owner == -1
    assert not m.auto_double() and m.cube == 2
    off = Match(length=0)
    off.new_game()
    assert not off.auto_double()


def test_money_options_not_in_match_play():
    assert raises(Match, 7, True)


def test_resignation_values():
    # single, gammon or backgammon value, times the cube
    m = Match(length=0)
    m.new_game()
    m.double(0)
    m.take()
    m.resign(0, GAMMON)
    assert m.accept_resign() == 4 and m.score == [0, 4]
    m.new_game()
    m.resign(1, SINGLE)
    m.reject_resign()
    assert m.in_game
    assert raises(m.resign, 1, 4)


def test_opening_roll_standard():
    # seeds 000/002/003: one die each (side 0's first), ties thrown again, the higher die
    # starts and plays both numbers (the firmware's one copy of the rule: bg.dice.cup)
    o = Opening()
    o.feed(3, 3)
    assert o.state == NEED_THROW and o.starter == -1
    o.feed(2, 6)
    assert o.state == DONE and o.starter == 1 and o.dice == (2, 6) and o.throws == 2
    o = Opening()
    o.feed(5, 1)
    assert o.starter == 0 and o.dice == (5, 1)
    assert raises(Opening().feed, 0, 3) and raises(o.feed, 2, 3)  # no throw after the start


def test_opening_roll_house_variant():
    # seed 004: the highest total starts; it plays its numbers or may roll again and play
    # the new roll; equal totals are rolled again
    o = Opening(house=True)
    o.feed(3, 4)
    o.feed(5, 2)
    assert o.state == NEED_THROW and o.next_side == 0
    o.feed(6, 5)
    o.feed(2, 2)
    assert o.state == CHOICE and o.starter == 0 and o.dice == (6, 5)
    o.keep()
    assert o.state == DONE and o.dice == (6, 5)
    o = Opening(house=True)
    o.feed(6, 5)
    o.feed(2, 2)
    o.reroll()
    assert o.next_side == 0
    o.feed(3, 3)
    assert o.state == DONE and o.dice == (3, 3) and raises(o.reroll)
