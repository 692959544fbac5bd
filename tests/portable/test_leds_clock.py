"""The match clock on the LEDs: the reserve as a bar on the home board of the side the clock
charges (``leds.clock_bar``), yellow under a minute, and the flag fall (``leds.flag_fall``)."""

import gc
import sys

from bg import leds
from sensing_helpers import SkipTest, board


def _painter(t=0):
    p = leds.Painter(board())
    p.clear()
    p.tick(t)
    return p


def _home_leds(side):
    """LED indices of ``side``'s own points 1..6 (board points 1..6 / 24..19)."""
    pl = board().point_led
    return [pl[q if side == 0 else 25 - q] for q in range(1, 7)]


def _lit_home(p, side):
    return [p.get(i) != (0, 0, 0) for i in _home_leds(side)]


def test_segments_round_up_so_any_time_left_shows():
    total = 600000  # 10 minutes
    assert leds.clock_segments(total, total) == 6
    assert leds.clock_segments(total + 5, total) == 6  # never more than the six points
    assert leds.clock_segments(total - 1, total) == 6
    assert leds.clock_segments(total * 5 // 6, total) == 5
    assert leds.clock_segments(total * 5 // 6 + 1, total) == 6
    assert leds.clock_segments(total // 6, total) == 1
    assert leds.clock_segments(1, total) == 1
    assert leds.clock_segments(0, total) == 0
    assert leds.clock_segments(-3, total) == 0
    assert leds.clock_segments(5000, 0) == 0  # no clock
    # the largest reserve the settings allow (65535 s) stays exact
    big = 65535 * 1000
    assert leds.clock_segments(big // 2, big) == 3 and leds.clock_segments(big, big) == 6


def test_bar_counts_from_the_ace_point_in_the_movers_colour():
    total = 600000
    for side in (0, 1):
        for n in range(1, 7):
            left = total * n // 6 - 250  # ... and in the lit half of its second
            p = _painter()
            assert leds.clock_bar(p, side, left, total) == n
            assert _lit_home(p, side) == [q < n for q in range(6)], (side, n)
            full = p.get(_home_leds(side)[0])
            want = leds.SIDE_COLOURS[side]
            # the mover's colour (hue: the order of its channels), never the warning yellow
            assert (full[0] > full[2]) == (want[0] > want[2]), (side, full)
            # nothing else on the board is touched
            others = [i for i in range(p.n) if i not in _home_leds(side) and p.get(i) != (0, 0, 0)]
            assert others == []


def test_last_segment_ticks_with_the_reserves_seconds():
    side = 0
    total = 600000
    led = _home_leds(side)[3]  # 4th segment
    on = _painter()
    leds.clock_bar(on, side, 350700, total)  # 4 segments, .7 of a second: bright half
    off = _painter()
    leds.clock_bar(off, side, 350200, total)  # .2 of a second: dim half
    assert sum(on.get(led)) > sum(off.get(led)) > 0  # dim, never dark: the count stays readable
    assert on.get(_home_leds(side)[2]) == off.get(_home_leds(side)[2])  # the others steady


def test_warning_colour_under_a_minute():
    total = 300000
    p = _painter()
    assert leds.clock_bar(p, 0, 59700, total) == 2
    warn = p.get(_home_leds(0)[0])
    assert warn[0] > warn[2] and warn[1] > warn[2]  # yellow: R, G >> B
    q = _painter()
    leds.clock_bar(q, 0, 60700, total)
    normal = q.get(_home_leds(0)[0])
    assert normal != warn and normal[2] > normal[0]  # sky blue above a minute


def test_spent_reserve_is_dark_and_flag_fall_blinks_vermillion():
    b = board()
    p = _painter()
    assert leds.clock_bar(p, 1, 0, 60000) == 0
    assert _lit_home(p, 1) == [False] * 6
    on = _painter(0)  # the fast blink's lit half
    leds.flag_fall(on, 1)
    off = _painter(200)
    leds.flag_fall(off, 1)
    for i in _home_leds(1) + [b.turn_led[1]]:
        r, g, bl = on.get(i)
        assert r > g > bl, (i, on.get(i))  # vermillion
        assert off.get(i) == (0, 0, 0)
    assert _lit_home(on, 0) == [False] * 6 and on.get(b.turn_led[0]) == (0, 0, 0)


def test_painting_the_clock_allocates_nothing():
    if sys.implementation.name != "micropython":
        raise SkipTest("gc.mem_alloc: MicroPython only")
    p = _painter()
    # warm up (first calls may intern or cache)
    leds.clock_bar(p, 0, 300000, 600000)
    leds.flag_fall(p, 1)
    gc.collect()
    before = gc.mem_alloc()
    t = 0
    for k in range(200):
        t += 40
        p.tick(t)
        leds.clock_bar(p, k & 1, 600000 - 997 * k, 600000)
        leds.clock_bar(p, 0, 59000 - 200 * k, 600000)
        leds.flag_fall(p, k & 1)
    after = gc.mem_alloc()
    assert after - before == 0, after - before
