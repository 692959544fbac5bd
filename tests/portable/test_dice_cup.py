"""bg.dice.cup: the opening roll (standard and the seed-004 house variant), fed from one stream.

When a throw may happen is the controller's: tests/ctl/test_controller_turns.py tries presses at
the wrong time, by the wrong player, twice, during a double and after the match."""

from bg.dice import derive_rolls, verify_transcript
from bg.dice.cup import CHOICE, DONE, EITHER, NEED_THROW, SIDE0, SIDE1, Opening
from bg.dice.fairness import Fairness

MID = bytes.fromhex("0123456789abcdef")
SEED = bytes(range(32))


def _raises(fn, *args):
    try:
        fn(*args)
    except ValueError:
        return True
    return False


def _fair():
    f = Fairness(MID, SEED)
    f.fix()
    return f


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


def test_opening_from_the_stream_is_verifiable():
    f = _fair()
    o = Opening()
    while o.state != DONE:
        d = f.roll()  # either player may throw the standard opening
        o.feed(d[0], d[1])
    rolls = derive_rolls(MID, SEED, None, f.counter)
    assert rolls[-1] == o.dice and all(a == b for a, b in rolls[:-1])
    ok, idx, _ = verify_transcript(MID, f.commitment, SEED, None, rolls)
    assert ok and idx == -1


def test_house_opening_from_the_stream_uses_each_sides_own_throw():
    f = _fair()
    o = Opening(house=True)
    seen = []
    while o.state != DONE:
        if o.state == CHOICE:
            o.reroll()
            continue
        d = f.roll()
        seen.append((d[0], d[1]))
        o.feed(d[0], d[1])
    assert seen == derive_rolls(MID, SEED, None, f.counter)
    assert o.dice == seen[-1]


def test_every_counter_value_is_used_once_in_order_and_none_after_the_match():
    f = _fair()
    out = []
    for _ in range(20):
        d = f.roll()
        out.append((d[0], d[1]))
    assert f.counter == 20
    assert out == derive_rolls(MID, SEED, None, 20)
    f.end_match()
    assert _raises(f.roll) and f.counter == 20
