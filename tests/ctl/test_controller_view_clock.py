"""The match clock on the LEDs, driven through the controller like players do: while the
delay runs nothing but the steady turn LED; then the mover's reserve as a bar on its home
board that shrinks (yellow under a minute); messages on the points take precedence; a flag
fall shows the loser's home board and turn LED blinking vermillion over the result.

Also run on MicroPython (precompiled, 192k heap: tests/host/test_controller_mpy.py), where
the last test measures that painting clocked frames allocates nothing."""

import gc
import sys

import ctl_helpers as H
from app import controller as C
from bg import leds as L
from bg import recognize as R

_view = H.view
_started = H.started


def _home(board, side):
    """LEDs of ``side``'s own points 1..6."""
    return [board.point_led[q if side == 0 else 25 - q] for q in range(1, 7)]


def _bar(v, board, side):
    """How many of ``side``'s home LEDs are lit, checking they form a bar from the ace."""
    lit = [v.p.get(i) != (0, 0, 0) for i in _home(board, side)]
    n = lit.count(True)
    assert lit == [k < n for k in range(6)], lit
    return n


def _yellowish(rgb):
    # YELLOW (240, 228, 66), not side 1's ORANGE (230, 159, 0) nor side 0's SKY_BLUE
    return rgb[1] > rgb[2] and 10 * rgb[1] > 8 * rgb[0]


def test_reserve_bar_appears_after_the_delay_and_shrinks():
    board, v = _view()
    c, r = _started(length=5, clock_s=120, delay_s=3)
    side = c.side
    assert c.phase == C.MOVING and c.clock.side == side
    t0 = r.now
    v.paint(c, t0 + 1500)  # the delay runs: only the steady turn LED
    assert _bar(v, board, side) == 0
    assert v.p.get(board.turn_led[side]) != (0, 0, 0)
    seen = []
    for spent_s in (10, 30, 50, 70, 90, 110):
        t = t0 + 3000 + spent_s * 1000 + 700  # in the lit half of the ticking second
        v.paint(c, t)
        n = _bar(v, board, side)
        assert c.tick(t) is False  # charging the clock for real shows the same
        v.paint(c, t)
        assert _bar(v, board, side) == n
        assert n == L.clock_segments(c.clock.left[side], 120000)
        first = v.p.get(_home(board, side)[0])
        assert _yellowish(first) == (c.clock.left[side] < 60000), (spent_s, first)
        seen.append(n)
    assert seen == [6, 5, 4, 3, 2, 1]  # 110 s .. 10 s of 120 s, one LED per 20 s
    # the opponent never sees a bar on its side meanwhile
    assert _bar(v, board, 1 - side) == 0


def test_destinations_and_errors_take_precedence_over_the_bar():
    board, v = _view()
    c, r = _started(length=5, clock_s=600, delay_s=0)
    side = c.side
    v.paint(c, r.now + 5000)
    assert _bar(v, board, side) == 6
    r.pos[(25 if side else 0) + 13 - 1] -= 1  # lift a checker from the 13-point
    r.sense()
    assert c.rec.state == R.LIFTED
    mask = c.rec.dest_points()
    v.paint(c, r.now + 700)  # mid-pulse
    for q, led in zip(range(1, 7), _home(board, side)):
        p = q if side == 0 else 25 - q
        assert (v.p.get(led) != (0, 0, 0)) == bool(mask >> (p - 1) & 1), q
    # put it back: the bar returns
    r.pos[(25 if side else 0) + 13 - 1] += 1
    r.sense()
    v.paint(c, r.now + 10)
    assert _bar(v, board, side) == 6


def test_roller_bar_replaces_the_last_move_once_the_delay_is_spent():
    board, v = _view()
    c, r = _started(length=5, clock_s=600, delay_s=4)
    mover = c.side
    r.play_turn()
    assert c.phase == C.AWAIT_ROLL and c.side == 1 - mover and c.clock.side == c.side
    roller = c.side
    v.paint(c, r.now + 1000)  # the roller's delay: the opponent's last move is shown
    lm = L.Painter(board)
    lm.clear()
    lm.last_move(c.last_play[1], c.last_play[0])
    lit_last = [i for i in range(board.nleds) if lm.get(i) != (0, 0, 0)]
    assert lit_last and all(v.p.get(i) != (0, 0, 0) for i in lit_last)
    v.paint(c, r.now + 4000 + 200 * 1000 + 700)  # 400 s of 600 left: 4 LEDs
    assert _bar(v, board, roller) == 4
    home = _home(board, roller)
    assert all(v.p.get(i) == (0, 0, 0) for i in lit_last if i not in home)


def test_flag_fall_shows_over_the_result():
    board, v = _view()
    c, r = _started(length=5, clock_s=2, delay_s=1)
    side = c.side
    t = r.now + 3100
    assert c.tick(t)
    assert c.phase == C.MATCH_OVER and c.mt.result[0] == 1 - side and c.mt.result[3] == C.END_TIME
    t += 300 - t % 300  # the fast blink's lit half
    v.paint(c, t)
    for i in _home(board, side) + [board.turn_led[side]]:
        rgb = v.p.get(i)
        assert rgb[0] > rgb[1] > rgb[2], (i, rgb)  # vermillion
    assert v.p.get(board.turn_led[1 - side]) != (0, 0, 0)  # the winner's turn LED (result)
    v.paint(c, t + 200)  # the dark half: it blinks
    assert all(v.p.get(i) == (0, 0, 0) for i in _home(board, side) + [board.turn_led[side]])


def test_no_clock_no_bar():
    board, v = _view()
    c, r = _started(length=5)
    side = c.side
    v.paint(c, r.now + 600000)
    assert _bar(v, board, side) == 0 and _bar(v, board, 1 - side) == 0


try:
    from unittest import SkipTest  # pytest treats it as a skip
except ImportError:

    class SkipTest(Exception):
        """Skips a test under one interpreter (the MicroPython runner matches the name)."""


def _alloc(v, c, t0, step):
    gc.collect()
    before = gc.mem_alloc()  # type: ignore[attr-defined]  # MicroPython's gc
    t = t0
    for _ in range(50):
        t += step
        v.paint(c, t)
    return gc.mem_alloc() - before  # type: ignore[attr-defined]


def test_clocked_frames_allocate_nothing_on_micropython():
    if sys.implementation.name != "micropython":
        raise SkipTest("gc.mem_alloc: MicroPython only")
    board, v = _view()
    c, r = _started(length=5, clock_s=120, delay_s=0)
    t = r.now + 30000
    v.paint(c, t)  # warm up
    assert L.clock_segments(v.clock_left(c, t), 120000) == 5
    assert _alloc(v, c, t, 40) == 0  # the bar, ticking
    assert _alloc(v, c, t + 60000, 40) == 0  # the yellow bar
    assert c.tick(t + 200000)
    v.paint(c, t + 200000)
    assert _alloc(v, c, t + 200000, 40) == 0  # the flag fall over the result
