"""The panel while a hand moves checkers, before the confirm (``tools/sim/status.live``): the
pips as the checkers lie (checked against ``bg.board.pip_count`` of the position the steps
make) and which dice they used so far; nothing outside a turn or for a reading that is no
part of a play."""

import random

from bg import board as B
from bg import engine as movegen

from tools.sim import status as words
from tools.sim.physical import Physical

MOVING = words.PHASES.index("moving")


def _locs(pos):
    """The page's stacks for a bg.board position (white = colour 0 on its own points)."""
    ph = Physical()
    for p in range(1, 25):
        ph.locs[p - 1] += [0] * B.count(pos, 0, p)
        ph.locs[24 - p] += [1] * B.count(pos, 1, p)
    ph.locs[24] += [0] * B.count(pos, 0, 25)
    ph.locs[25] += [1] * B.count(pos, 1, 25)
    return ph.locs


def _st(pos, side, d1, d2, phase=MOVING):
    return {"ph": phase, "s": side, "d": [d1, d2], "pos": bytes(pos).hex(), "pip": [0, 0]}


def test_one_die_then_both():
    start = B.start_position()
    st = _st(start, 0, 6, 1)
    now = bytearray(start)
    assert words.live(st, _locs(now)) == {}  # nothing moved yet
    B.apply_step(now, 0, 13, 7)
    got = words.live(st, _locs(now))
    assert got == {
        "dice": "6-1: 6 played, 1 to play",
        "pips": "white 161 (was 167), black 167",
    }
    B.apply_step(now, 0, 8, 7)
    assert words.live(st, _locs(now))["dice"] == "6-1: both played"
    # outside a turn: the firmware's confirmed figures only
    assert words.live(_st(start, 0, 6, 1, words.PHASES.index("await_roll")), _locs(now)) == {}


def test_a_doublet_counts_its_dice_and_a_hit_moves_the_opponents_pips():
    pos = B.from_points({13: 5, 8: 3, 6: 5, 24: 2}, {4: 1, 13: 5, 8: 3, 6: 4, 24: 2})
    st = _st(pos, 0, 3, 3)
    before = [B.pip_count(pos, 0), B.pip_count(pos, 1)]
    now = bytearray(pos)
    B.apply_step(now, 0, 24, 21)  # hits black's blot on its 4 point: it goes to its bar
    got = words.live(st, _locs(now))
    assert got["dice"] == "3-3: one played, three to play"
    want = (before[0] - 3, before[0], before[1] + 21, before[1])
    assert got["pips"] == "white %d (was %d), black %d (was %d)" % want
    for f, t in ((21, 18), (8, 5), (8, 5)):
        B.apply_step(now, 0, f, t)
    assert words.live(st, _locs(now))["dice"] == "3-3: all four played"


def test_random_plays_pips_equal_the_engines_count():
    rng = random.Random(5)
    for _ in range(200):
        pos = B.start_position()
        side = 0
        for _turn in range(rng.randrange(1, 30)):  # somewhere in a random game
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            plays = movegen.plays(pos, side, d1, d2)
            if plays:
                steps = rng.choice(plays)[0]
                for i in range(0, len(steps), 2):
                    B.apply_step(pos, side, steps[i], steps[i + 1])
            side = 1 - side
            if pos[50] == 15 or pos[51] == 15:
                break
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        plays = movegen.plays(pos, side, d1, d2)
        if not plays:
            continue
        steps = rng.choice(plays)[0]
        now = bytearray(pos)
        n = rng.randrange(1, len(steps) // 2 + 1)  # part of the play, as a hand has done
        for i in range(0, 2 * n, 2):
            B.apply_step(now, side, steps[i], steps[i + 1])
        got = words.live(_st(pos, side, d1, d2), _locs(now))
        assert words.live_pips(_locs(now)) == [B.pip_count(now, 0), B.pip_count(now, 1)]
        used = [steps[i] - steps[i + 1] for i in range(0, 2 * n, 2)]
        offs = [steps[i + 1] == 0 for i in range(0, 2 * n, 2)]
        if "dice" in got:  # named only when the pips moved are the dice's
            assert sum(used) in (d1, d2, d1 + d2) or d1 == d2, (got, used)
        elif not any(offs):  # no bear-off: the pips moved always name the dice used
            raise AssertionError((pos.hex(), side, d1, d2, steps[: 2 * n], got))


def test_a_reading_that_is_no_part_of_a_play_names_no_die():
    start = B.start_position()
    now = bytearray(start)
    B.apply_step(now, 0, 13, 9)  # 4 pips with 6-1
    assert "dice" not in words.live(_st(start, 0, 6, 1), _locs(now))
