"""LED frames: GRB layout, brightness cap, current budget, and each message of the language."""

# mpy-heap: 66k
# (make bench heapmargin, 2026-11-27: smallest passing 58k on the 64-bit port; declared +8k)

import gc

from bg import leds
from sensing_helpers import SkipTest, board


def _painter(t=0):
    p = leds.Painter(board())
    p.clear()
    p.tick(t)
    return p


def _lit(p):
    out = []
    for i in range(p.n):
        if p.get(i) != (0, 0, 0):
            out.append(i)
    return out


def _scaled(c, level, cap):
    k = level * cap
    return (c[0] * k // 65025, c[1] * k // 65025, c[2] * k // 65025)


def test_buffer_is_grb_and_capped():
    b = board()
    p = _painter()
    p.set(0, (255, 128, 1))
    cap = b.brightness_cap
    assert p.buf[0] == 128 * cap // 255 and p.buf[1] == cap and p.buf[2] == 1 * cap // 255
    p.set(1, leds.WHITE)
    assert max(p.buf) == cap  # nothing ever exceeds the cap
    assert len(p.buf) == 3 * b.nleds


def test_external_buffer_must_fit():
    b = board()
    buf = bytearray(3 * b.nleds)
    assert leds.Painter(b, buf).buf is buf
    try:
        leds.Painter(b, bytearray(5))
    except ValueError as e:
        assert "3 per LED" in str(e)
    else:
        raise AssertionError("short buffer accepted")


def test_budget_scales_full_white_frame():
    b = board()
    p = _painter()
    for i in range(b.nleds):
        p.set(i, leds.WHITE)
    raw_ma = p.current_ma()
    ma = p.finish()
    assert raw_ma > b.budget_ma  # the cap alone would not be enough for 500 mA USB
    assert p.scaled and ma <= b.budget_ma and ma > b.budget_ma * 9 // 10


def test_small_frame_not_scaled():
    p = _painter()
    p.turn(0)
    before = bytearray(p.buf)
    p.finish()
    assert not p.scaled and p.buf == before


def test_destinations_and_origin():
    b = board()
    p = _painter(700)  # mid-pulse: full level
    p.destinations((1 << 4) | (1 << 7) | (1 << leds.OFF_BIT), side=0, origin=13)
    cap = b.brightness_cap
    lvl = p.slow.level
    assert lvl == 255
    for pt in (5, 8):
        assert p.get(b.point_led[pt]) == _scaled(leds.DEST, lvl, cap)
    assert p.get(b.tray_led[0]) == _scaled(leds.DEST, lvl, cap)
    assert p.get(b.point_led[13]) == _scaled(leds.SIDE_COLOURS[0], leds.DIM, cap)
    assert sorted(_lit(p)) == sorted([b.point_led[5], b.point_led[8], b.tray_led[0], b.point_led[13]])


def test_destination_from_bar_marks_bar():
    b = board()
    p = _painter(700)
    p.destinations(1 << 20, side=1, origin=25)
    assert b.bar_led[1] in _lit(p) and b.point_led[21] in _lit(p)


def test_last_move_in_movers_numbering():
    b = board()
    p = _painter()
    # side 1 played bar/22* 6/off in its own numbering: board points 3 and 19, its bar and tray
    p.last_move((25, 22, 6, 0), side=1)
    cap = b.brightness_cap
    c = leds.SIDE_COLOURS[1]
    assert p.get(b.bar_led[1]) == _scaled(c, leds.DIM, cap)
    assert p.get(b.point_led[19]) == _scaled(c, leds.DIM, cap)
    assert p.get(b.point_led[3]) == _scaled(c, 255, cap)
    assert p.get(b.tray_led[1]) == _scaled(c, 255, cap)
    assert len(_lit(p)) == 4


def test_errors_missing_and_extra_differ_in_colour_and_rhythm():
    b = board()
    on = _painter(0)
    on.errors(missing=1 << 2, extra=(1 << 9) | (1 << 24))
    assert on.get(b.point_led[3]) == _scaled(leds.MISSING, on.slow.level, b.brightness_cap)
    assert on.get(b.point_led[10]) == _scaled(leds.EXTRA, 255, b.brightness_cap)
    assert on.get(b.bar_led[0]) == _scaled(leds.EXTRA, 255, b.brightness_cap)
    off = _painter(200)  # fast blink's dark half
    off.errors(missing=1 << 2, extra=1 << 9)
    assert off.get(b.point_led[10]) == (0, 0, 0)
    assert off.get(b.point_led[3]) != (0, 0, 0)  # the slow pulse never goes dark


def test_setup_guidance_marks_ok_rows():
    b = board()
    p = _painter(0)
    p.setup(missing=1 << 0, extra=1 << 26, ok=(1 << 5) | (1 << 12))
    assert p.get(b.point_led[6]) == _scaled(leds.OK, leds.DIM, b.brightness_cap)
    assert p.get(b.tray_led[0]) == _scaled(leds.EXTRA, 255, b.brightness_cap)
    assert len(_lit(p)) == 4


def test_faults():
    b = board()
    p = _painter(0)
    p.faults((1 << 3) | (1 << 25))
    assert sorted(_lit(p)) == sorted([b.point_led[4], b.bar_led[1]])


def test_turn_indicator():
    b = board()
    p = _painter()
    p.turn(1)
    assert _lit(p) == [b.turn_led[1]]
    p.turn(None)
    assert _lit(p) == []


def test_cube_centred_and_owned():
    b = board()
    p = _painter()
    p.cube(1, None)
    assert _lit(p) == [b.cube_value_led[5]]
    p.cube(4, 0)
    assert sorted(_lit(p)) == sorted([b.cube_value_led[1], b.cube_owner_led[0]])
    assert p.get(b.cube_value_led[1]) == _scaled(leds.SIDE_COLOURS[0], 255, b.brightness_cap)
    p.cube(64, 1)
    assert sorted(_lit(p)) == sorted([b.cube_value_led[5], b.cube_owner_led[1]])


def test_cube_offer_blinks():
    b = board()
    p = _painter(200)
    p.cube(2, 0, offered=True)
    assert b.cube_value_led[0] not in _lit(p)
    p.tick(0)
    p.cube(2, 0, offered=True)
    assert b.cube_value_led[0] in _lit(p)


def test_dice_faces():
    b = board()
    want = {1: [3], 2: [0, 6], 3: [0, 3, 6], 4: [0, 2, 4, 6], 5: [0, 2, 3, 4, 6], 6: [0, 1, 2, 4, 5, 6]}
    for d in range(1, 7):
        p = _painter()
        p.dice(d, 7 - d, side=0)
        lit = _lit(p)
        pips0 = [k for k in range(7) if b.die_led[k] in lit]
        pips1 = [k for k in range(7) if b.die_led[7 + k] in lit]
        assert pips0 == want[d] and pips1 == want[7 - d]
        assert len(pips0) == d and len(pips1) == 7 - d


def test_result_runs_round_the_rim():
    b = board()
    seen = []
    for t in (0, 70, 140):
        p = _painter(t)
        p.result(winner=1, kind=2)
        lit = _lit(p)
        assert b.turn_led[1] in lit
        assert [k for k in range(7) if b.die_led[k] in lit] == [0, 6]  # "2" = gammon
        seen.append(tuple(i for i in lit if i in tuple(b.point_led[1:])))
    assert seen[0] != seen[1] != seen[2]
    p = _painter(700)
    p.result(winner=0, kind=1, match_over=True)
    assert sum(1 for i in _lit(p) if i in tuple(b.point_led[1:])) == 24


def test_no_allocation_per_frame():
    p = _painter()
    buf = p.buf
    play = (24, 18, 13, 9)

    def frames(t0, t1):
        for t in range(t0, t1, 33):
            p.clear()
            p.tick(t)
            p.destinations(0x00F0F0, 0, 13)
            p.last_move(play, 1)
            p.errors(1 << 3, 1 << 9)
            p.turn(0)
            p.cube(8, 1)
            p.dice(6, 5, 0)
            p.finish()

    frames(0, 100)
    if hasattr(gc, "mem_alloc"):  # MicroPython: count heap bytes
        gc.collect()
        gc.disable()
        try:
            a = gc.mem_alloc()
            frames(0, 2000)
            used = gc.mem_alloc() - a
        finally:
            gc.enable()
        assert used == 0, "%d bytes allocated" % used
    else:
        try:
            import tracemalloc
        except ImportError:
            raise SkipTest("no allocation counter") from None
        tracemalloc.start()
        try:
            frames(0, 100)
            base = tracemalloc.get_traced_memory()[0]
            frames(0, 3000)
            grown = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
        assert grown < 512, "memory grows per frame: %d bytes" % grown
    assert p.buf is buf and len(buf) == 3 * p.n


def test_the_animations_timing():
    # one class steps the three: the fast blink (300 ms, half on), the slow pulse (1.4 s
    # between 48 and 255) and the chase round the rim (a point every 70 ms)
    p = leds.Painter(board())
    seen = []
    for t in (0, 149, 150, 299, 300, 700, 1400, 1050, 70 * 23, 70 * 24):
        p.tick(t)
        seen.append((p.fast.level, p.slow.level, p.chase.pos))
    assert [s[0] for s in seen] == [255, 255, 0, 0, 255, 255, 0, 0, 255, 0]
    assert [s[1] for s in seen[5:8]] == [255, 48, 151]  # the top at 700 ms, the bottom at 0/1400
    assert seen[0][1] == 48 and [s[2] for s in seen] == [0, 2, 2, 4, 4, 10, 20, 15, 23, 0]
