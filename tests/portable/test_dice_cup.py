"""bg.dice.cup: the opening roll (standard and the seed-004 house variant) and the cup gate."""

from bg.dice import derive_rolls, verify_transcript
from bg.dice.cup import CHOICE, DONE, EITHER, NEED_THROW, SIDE0, SIDE1, Cup, Opening
from bg.dice.fairness import Fairness

MID = bytes.fromhex("0123456789abcdef")
SEED = bytes(range(32))


def _raises(fn, *args):
    try:
        fn(*args)
    except ValueError:
        return True
    return False


def _cup():
    f = Fairness(MID, SEED)
    f.fix()
    return f, Cup(f)


# Standard opening: one die each, ties re-rolled, the higher plays both -------------------


def test_opening_higher_die_starts_and_plays_both_numbers():
    o = Opening()
    assert o.state == NEED_THROW and o.next_side == EITHER
    o.feed(6, 2)
    assert o.state == DONE and o.starter == SIDE0 and o.dice == (6, 2)
    o = Opening()
    o.feed(1, 4)
    assert o.starter == SIDE1 and o.dice == (1, 4)


def test_opening_ties_are_thrown_again():
    o = Opening()
    o.feed(3, 3)
    assert o.state == NEED_THROW and o.starter == -1
    o.feed(5, 5)
    assert o.state == NEED_THROW
    o.feed(2, 5)
    assert o.state == DONE and o.starter == SIDE1 and o.throws == 3


def test_opening_refuses_throws_when_done_and_bad_faces():
    o = Opening()
    assert _raises(o.feed, 0, 3)
    assert _raises(o.feed, 3, 7)
    o.feed(4, 3)
    assert _raises(o.feed, 1, 2)
    assert _raises(o.keep)  # no choice in the standard rules


# House variant (seed 004) -----------------------------------------------------------------


def test_house_highest_total_starts_and_may_keep():
    o = Opening(house=True)
    assert o.next_side == SIDE0
    o.feed(2, 3)  # side 0: 5
    assert o.state == NEED_THROW and o.next_side == SIDE1
    o.feed(6, 1)  # side 1: 7
    assert o.state == CHOICE and o.starter == SIDE1 and o.dice == (6, 1)
    o.keep()
    assert o.state == DONE and o.dice == (6, 1)


def test_house_reroll_once_and_must_play_the_new_throw():
    o = Opening(house=True)
    o.feed(6, 6)
    o.feed(1, 2)
    assert o.starter == SIDE0 and o.state == CHOICE
    o.reroll()
    assert o.state == NEED_THROW and o.next_side == SIDE0
    o.feed(2, 1)  # worse than 6-6, but it must be played
    assert o.state == DONE and o.dice == (2, 1) and o.starter == SIDE0
    assert _raises(o.reroll)  # only one re-roll
    assert o.throws == 3


def test_house_equal_totals_are_all_thrown_again():
    o = Opening(house=True)
    o.feed(4, 3)
    o.feed(5, 2)  # 7 == 7
    assert o.state == NEED_THROW and o.next_side == SIDE0 and o.starter == -1
    o.feed(1, 1)
    o.feed(1, 2)
    assert o.state == CHOICE and o.starter == SIDE1 and o.dice == (1, 2)


def test_opening_through_the_cup_is_verifiable():
    f, cup = _cup()
    o = Opening()
    while o.state != DONE:
        cup.allow(o.next_side)
        d = cup.press(SIDE1)  # either player may throw the standard opening
        o.feed(d[0], d[1])
    rolls = derive_rolls(MID, SEED, None, f.counter)
    assert rolls[-1] == o.dice and all(a == b for a, b in rolls[:-1])
    ok, idx, _ = verify_transcript(MID, f.commitment, SEED, None, rolls)
    assert ok and idx == -1


def test_house_opening_through_the_cup_uses_each_sides_own_throw():
    f, cup = _cup()
    o = Opening(house=True)
    seen = []
    while o.state != DONE:
        if o.state == CHOICE:
            o.reroll()
            continue
        side = o.next_side
        cup.allow(side)
        assert cup.press(1 - side) is None  # the other player's button does nothing
        d = cup.press(side)
        seen.append((d[0], d[1]))
        o.feed(d[0], d[1])
    assert seen == derive_rolls(MID, SEED, None, f.counter)
    assert o.dice == seen[-1]


# The cup gate ----------------------------------------------------------------------------


def test_cup_closed_until_the_controller_allows():
    f, cup = _cup()
    assert cup.press(SIDE0) is None and cup.press(SIDE1) is None
    assert f.counter == 0


def test_cup_only_the_allowed_side_and_only_once():
    f, cup = _cup()
    cup.allow(SIDE1)
    assert not cup.may_roll(SIDE0) and cup.may_roll(SIDE1)
    assert cup.press(SIDE0) is None
    first = bytes(cup.press(SIDE1))
    assert f.counter == 1
    assert cup.press(SIDE1) is None  # no re-throw, no cocked dice
    assert f.counter == 1
    assert (first[0], first[1]) == derive_rolls(MID, SEED, None, 1)[0]


def test_cup_double_offered_closes_it():
    f, cup = _cup()
    cup.allow(SIDE0)
    cup.close()  # side 0 offers a double instead of rolling
    assert cup.press(SIDE0) is None
    cup.allow(SIDE0)  # taken: side 0 now rolls
    assert cup.press(SIDE0) is not None


def test_cup_refuses_bad_sides_and_a_finished_match():
    f, cup = _cup()
    assert _raises(cup.allow, 3)
    f.end_match()
    assert _raises(cup.allow, SIDE0)


def test_every_counter_value_is_used_once_in_order():
    f, cup = _cup()
    out = []
    for i in range(20):
        cup.allow(i % 2)
        cup.press(1 - i % 2)  # wrong button first: ignored
        d = cup.press(i % 2)
        out.append((d[0], d[1]))
    assert f.counter == 20
    assert out == derive_rolls(MID, SEED, None, 20)
