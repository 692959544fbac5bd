"""``bg.engine.pubeval`` on both interpreters: its choice is the first best play of a plain
transcription of Tesauro's input vector, it allocates nothing per visited play (the worst
position's 2,140 plays), its factor tables are the published weights scaled, and 100
computer-vs-computer games (pubeval both sides, seeded dice, ``bg.engine`` apply) finish
with legal positions and no heap growth."""

import gc

from bg import board
from bg import engine as movegen
from bg.engine import pubeval

try:
    from unittest import SkipTest  # pytest treats it as a skip
except ImportError:

    class SkipTest(Exception):
        pass


class Dice:
    """A seeded linear congruential generator (the same numbers on both interpreters)."""

    def __init__(self, seed):
        self.x = seed & 0x7FFFFFFF

    def die(self):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return 1 + (self.x >> 16) % 6


def _published(wt, i):
    """The published weight (x 100,000) behind scaled input ``i`` (undoing ``_scaled``)."""
    if i == 120 or (i < 120 and i % 5 == 4):
        return wt[i] // 15
    if i == 121:
        return wt[i] // 2
    if i % 5 == 3:
        return (wt[i] - wt[i - 1]) // 30
    return wt[i] // 30


def _reference(end, side, race):
    """Tesauro's setx + dot product, with every input x 30 (0/1 -> 30, (n-3)/2 -> 15(n-3),
    bar/2 -> 15 bar, off/15 -> 2 off)."""
    wt = pubeval.RACE if race else pubeval.CONTACT
    mb = 24 if side else -1
    ob = 24 if side else 49
    off = end[51 if side else 50]
    if off == 15:
        return pubeval.WON
    x = [0] * 122
    for j in range(1, 25):
        loc = 25 - j
        n = end[mb + loc] if end[mb + loc] else -end[ob - loc]
        b = 5 * (j - 1)
        if n == -1:
            x[b] = 30
        if n == 1:
            x[b + 1] = 30
        if n >= 2:
            x[b + 2] = 30
        if n == 3:
            x[b + 3] = 30
        if n >= 4:
            x[b + 4] = 15 * (n - 3)
    x[120] = 15 * end[ob]
    x[121] = 2 * off
    s = 0
    for i in range(122):
        s += _published(wt, i) * x[i]
    return s


def _game(pe, gen, dice, check=None):
    """One game, pubeval both sides; returns (winner, turns). ``check(pos, side, d1, d2,
    steps)`` sees every turn."""
    pos = board.start_position()
    d1 = d2 = 0
    while d1 == d2:
        d1 = dice.die()
        d2 = dice.die()
    side = 0 if d1 > d2 else 1
    for turn in range(1, 1000):
        steps = pe.best(pos, side, d1, d2)
        if check is not None:
            check(pos, side, d1, d2, steps)
        gen.apply(pos, side, steps)
        if pos[50 + side] == 15:
            return side, turn
        side = 1 - side
        d1 = dice.die()
        d2 = dice.die()
    raise AssertionError("game did not end")


def _scaled(raw, i):
    """Factor ``i`` from the published weights ``raw`` (x 100,000): 0/1 inputs x30, the
    (n - 3)/2 input x15, bar/2 x15, off/15 x2; the three-checker slot holds +2 and +3."""
    if i == 120 or (i < 120 and i % 5 == 4):
        return 15 * raw[i]
    if i == 121:
        return 2 * raw[i]
    if i % 5 == 3:
        return 30 * (raw[i - 1] + raw[i])
    return 30 * raw[i]


def test_factor_tables_are_the_published_weights_scaled():
    # the two tables are bytes constants read in place; every factor is the one derived from
    # the published digits (_WR, _WC), sign and all, and nothing lies beyond the 122nd
    assert len(pubeval._RACE) == len(pubeval._CONTACT) == 4 * 122
    for wt, raw in ((pubeval.RACE, pubeval._WR), (pubeval.CONTACT, pubeval._WC)):
        assert len(raw) == 122
        for i in range(122):
            assert wt[i] == _scaled(raw, i), (i, wt[i], _scaled(raw, i))
    assert pubeval.RACE[119] == 15 * -1232252 and pubeval.CONTACT[0] == 30 * 25696


def test_choice_is_the_first_best_of_tesauros_vector():
    gen = movegen.MoveGen()
    pe = pubeval.PubEval(gen)
    seen = [0, 0]  # race, contact positions with a choice

    top = [0]

    def visit(w, st, n):
        r = _reference(w, side_race[0], side_race[1])
        if r > top[0]:
            top[0] = r

    side_race = [0, False]

    def check(pos, side, d1, d2, steps):
        # every play's reference score through the visit (a list of all plays would not fit
        # the board's 64k on the biggest rolls)
        race = pubeval.is_race(pos, side)
        side_race[0] = side
        side_race[1] = race
        top[0] = pubeval.LOW
        n = gen.for_each_end(pos, side, d1, d2, visit)
        if not n:
            assert steps == ()
            return
        mine = gen.apply(bytearray(pos), side, steps)
        assert _reference(mine, side, race) == top[0] == pe.score(mine, side, race), steps
        if n > 1:
            seen[0 if race else 1] += 1

    dice = Dice(2026)
    for _g in range(3):
        _game(pe, gen, dice, check)
    assert seen[0] > 10 and seen[1] > 50, seen


def test_opening_and_last_checkers():
    pe = pubeval.PubEval()
    start = board.start_position()
    assert pe.best(start, 0, 3, 1) == (8, 5, 6, 5)  # gnubg's pub_best_move: 8/5 6/5
    assert pe.best(start, 1, 6, 5) == (24, 18, 18, 13)  # 24/13
    # the turn passes: both on the bar against a closed board
    closed = board.from_points({25: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 3})
    assert pe.best(closed, 0, 6, 6) == ()
    assert pubeval.best(closed, 0, 6, 6) == ()
    # two left: 6-5 bears both off, whatever the order
    last = board.from_points({1: 1, 2: 1}, {12: 2})
    s = pe.best(last, 0, 6, 5)
    assert sorted((s[0], s[2])) == [1, 2] and s[1] == s[3] == 0


def _worst():
    singles = {}
    for p in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 19, 20, 22, 23):
        singles[p] = 1
    return board.from_points(singles, {1: 2})


def test_no_allocation_per_visited_play():
    if not hasattr(gc, "mem_alloc"):
        raise SkipTest("needs MicroPython's gc.mem_alloc")
    gen = movegen.MoveGen()
    pe = pubeval.PubEval(gen)
    pos = _worst()
    few = board.from_points({6: 2, 25: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2})  # 6-6: enter 4
    used = []
    for p in (pos, few, pos):
        pe.best(p, 0, 6, 6)  # warm: nothing lazily made during the measured call
        gc.collect()
        gc.disable()
        try:
            before = gc.mem_alloc()
            steps = pe.best(p, 0, 1, 1) if p is pos else pe.best(p, 0, 6, 6)
            used.append(gc.mem_alloc() - before)
        finally:
            gc.enable()
        assert len(steps) == 8
        assert gen.nvis >= (2140 if p is pos else 1)
    # the result only (a slice and a tuple), the same for 1 or 2,140 visited plays
    assert used[0] == used[1] == used[2] and used[0] <= 256, used


def test_100_games_end_without_heap_growth():
    gen = movegen.MoveGen()
    pe = pubeval.PubEval(gen)
    dice = Dice(20261123)
    mem = hasattr(gc, "mem_alloc")
    _game(pe, gen, dice)  # warm
    gc.collect()
    before = gc.mem_alloc() if mem else 0
    wins = [0, 0]
    turns = 0
    for _g in range(100):
        w, t = _game(pe, gen, dice)
        wins[w] += 1
        turns += t
    gc.collect()
    grown = (gc.mem_alloc() - before) if mem else 0
    assert wins[0] + wins[1] == 100 and wins[0] > 20 and wins[1] > 20, wins
    assert 100 * 30 < turns < 100 * 200, turns
    assert grown <= 256, grown
