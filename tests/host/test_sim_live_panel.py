"""The panel while a hand moves checkers, before the confirm (``tools/sim/status.live``): the
pips as the checkers lie (checked against ``bg.board.pip_count`` of the position the steps
make) and which dice they used so far -- the firmware recogniser's ``used`` (the status line's
``du``, the one the LED dice dim by), never a guess of the panel's own: a bear-off with a
higher die names that die, a reading that is no part of a play names none even when its pips
are a die's; nothing outside a turn."""

import random

from bg import board as B
from bg import engine as movegen
from bg import recognize

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


def _used(start, side, d1, d2, now):
    """The firmware recogniser's ``used`` for the reading of ``now`` in the turn from ``start``."""
    rec = recognize.Recognizer()
    rec.begin(start, side, d1, d2)
    obs = bytearray(28)
    recognize.observe(now, obs, rec.caps)
    rec.update(obs)
    return rec.used


def _st(pos, side, d1, d2, phase=MOVING, now=None):
    """The firmware's status line for the turn from ``pos``, ``du`` the recogniser's for ``now``."""
    du = _used(pos, side, d1, d2, now) if now is not None else 0
    return {"ph": phase, "s": side, "d": [d1, d2], "pos": bytes(pos).hex(), "pip": [0, 0], "du": du}


def _live(pos, side, d1, d2, now):
    return words.live(_st(pos, side, d1, d2, now=now), _locs(now))


def test_one_die_then_both():
    start = B.start_position()
    now = bytearray(start)
    assert _live(start, 0, 6, 1, now) == {}  # nothing moved yet
    B.apply_step(now, 0, 13, 7)
    got = _live(start, 0, 6, 1, now)
    assert got == {
        "dice": "6-1: 6 played, 1 to play",
        "pips": "white 161 (was 167), black 167",
    }
    B.apply_step(now, 0, 8, 7)
    assert _live(start, 0, 6, 1, now)["dice"] == "6-1: both played"
    # the dice in the other order: the recogniser's d1 is the status line's first die
    now = bytearray(start)
    B.apply_step(now, 0, 8, 7)
    assert _live(start, 0, 6, 1, now)["dice"] == "6-1: 1 played, 6 to play"
    assert _live(start, 0, 1, 6, now)["dice"] == "1-6: 1 played, 6 to play"
    # outside a turn: the firmware's confirmed figures only
    assert words.live(_st(start, 0, 6, 1, words.PHASES.index("await_roll")), _locs(now)) == {}


def test_one_checker_moved_by_both_dice_in_either_order():
    start = B.start_position()
    for hops in ((13, 11, 11, 5), (13, 7, 7, 5)):
        now = bytearray(start)
        B.apply_step(now, 0, hops[0], hops[1])
        first = hops[0] - hops[1]
        assert _live(start, 0, 6, 2, now)["dice"] == "6-2: %d played, %d to play" % (first, 8 - first)
        B.apply_step(now, 0, hops[2], hops[3])
        assert _live(start, 0, 6, 2, now)["dice"] == "6-2: both played"


def test_a_bear_off_with_a_higher_die_names_that_die():
    # white bears off from its 5 point with the 6 (5 pips moved: no die's pips), the 2 to play
    pos = B.from_points({5: 2, 3: 1}, {24: 2})
    now = bytearray(pos)
    B.apply_step(now, 0, 5, 0)
    assert _used(pos, 0, 6, 2, now) == 1  # the recogniser's word: die d1, the 6
    got = _live(pos, 0, 6, 2, now)
    assert got["dice"] == "6-2: 6 played, 2 to play", got
    assert got["pips"] == "white 8 (was 13), black 48"


def test_a_reading_that_is_no_part_of_a_play_names_no_die_even_with_a_dies_pips():
    start = B.start_position()
    now = bytearray(start)
    B.apply_step(now, 0, 13, 9)  # 4 pips with 6-1
    assert "dice" not in _live(start, 0, 6, 1, now)
    # 7 pips with 5-2 from the 24 point: both hops land on black's points, so it is no play;
    # the pips moved are both dice's, the recogniser names none
    now = bytearray(start)
    now[B.idx(0, 24)] -= 1
    now[B.idx(0, 17)] += 1
    assert "dice" not in _live(start, 0, 5, 2, now)
    # a checker 7 points forwards and another one backwards: 6 pips, the 6's, but no play
    now = bytearray(start)
    B.apply_step(now, 0, 13, 6)
    now[B.idx(0, 8)] -= 1
    now[B.idx(0, 9)] += 1
    assert "dice" not in _live(start, 0, 6, 1, now)


def test_a_doublet_counts_its_dice_and_a_hit_moves_the_opponents_pips():
    pos = B.from_points({13: 5, 8: 3, 6: 5, 24: 2}, {4: 1, 13: 5, 8: 3, 6: 4, 24: 2})
    before = [B.pip_count(pos, 0), B.pip_count(pos, 1)]
    now = bytearray(pos)
    B.apply_step(now, 0, 24, 21)  # hits black's blot on its 4 point: it goes to its bar
    got = _live(pos, 0, 3, 3, now)
    assert got["dice"] == "3-3: one played, three to play"
    want = (before[0] - 3, before[0], before[1] + 21, before[1])
    assert got["pips"] == "white %d (was %d), black %d (was %d)" % want
    for f, t in ((21, 18), (8, 5), (8, 5)):
        B.apply_step(now, 0, f, t)
    assert _live(pos, 0, 3, 3, now)["dice"] == "3-3: all four played"


def test_random_plays_the_panel_says_the_recognisers_dice_and_the_engines_pips():
    rng = random.Random(5)
    named = 0
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
        used = _used(pos, side, d1, d2, now)
        got = words.live(_st(pos, side, d1, d2, now=now), _locs(now)).get("dice")
        assert words.live_pips(_locs(now)) == [B.pip_count(now, 0), B.pip_count(now, 1)]
        # the dice row says what the recogniser says, die by die
        if d1 == d2:
            want = (None, "one played", "two played", "three played", "all four played")[used]
        else:
            want = (None, "%d played, %d to" % (d1, d2), "%d played, %d to" % (d2, d1), "both played")[used]
        if want is None:
            assert got is None, (got, used)
        else:
            named += 1
            assert got.startswith("%d-%d: " % (d1, d2)) and want in got, (got, used, steps[: 2 * n])
    assert named > 150, named  # most partial plays read as one
