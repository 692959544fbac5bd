"""The battery on the LEDs (``app.view`` with an ``app.power.Power``, docs/leds.md "Battery"):
the gauge on request on both players' points 1..10, the low warning's periodic bar, the
critical frame that lights nothing but each player's point 1, idle mode's dimming."""

import ctl_helpers as H
from app import power as PW
from bg import battery, leds
from hal import sim
from link_fakes import Clock


def _setup(mv=3800):
    board, v = H.view()
    clock = Clock(5000)
    bat = sim.Battery(mv)
    pw = PW.Power(clock, board, bat, sim.Sleep())
    pw.tick(clock.ticks_ms())  # the first reading
    v.power = pw
    c, r = H.started()
    return board, v, pw, clock, bat, c


def _lit(v, side, q):
    return v.p.get(v.p._step_led(side, q)) != (0, 0, 0)


def _bar(v, side):
    return [q for q in range(1, 11) if _lit(v, side, q)]


def test_gauge_on_request_shows_the_charge_on_both_sides_for_three_seconds():
    board, v, pw, clock, bat, c = _setup(3800)
    now = clock.ticks_ms()
    n = leds.battery_segments(pw.percent())
    assert 0 < n < 10
    v.paint(c, now)
    plain = [_bar(v, 0), _bar(v, 1)]
    pw.show(now)
    v.paint(c, now + 10)
    assert _bar(v, 0) == list(range(1, n + 1)) and _bar(v, 1) == list(range(1, n + 1))
    v.paint(c, now + PW.SHOW_MS)
    assert [_bar(v, 0), _bar(v, 1)] == plain  # gone after 3 s: the game's frame again


def test_low_battery_bar_comes_back_every_half_minute_in_yellow():
    board, v, pw, clock, bat, c = _setup()
    bat.mv = board.battery["low_mv"] - 30
    clock.advance(board.battery["poll_s"] * 1000)
    pw.tick(clock.ticks_ms())
    assert pw.level() == battery.LOW
    seen = []
    for t in range(0, 60000, 500):
        v.paint(c, t)
        seen.append(bool(_bar(v, 0)) and _bar(v, 0) == _bar(v, 1))
    shown = sum(1 for s in seen if s)
    assert 4 <= shown <= 12  # ~2 s of each 30 s, not all the time
    v.paint(c, 100)  # inside a warning window
    rgb = v.p.get(v.p._step_led(0, 1))
    assert rgb[0] > 0 and rgb[1] > 0 and rgb[2] < rgb[1]  # yellow, not green or red


def test_critical_frame_lights_only_point_one_of_each_side():
    board, v, pw, clock, bat, c = _setup()
    bat.mv = board.battery["critical_mv"] - 50
    for _ in range(battery.CONFIRM):
        clock.advance(board.battery["poll_s"] * 1000)
        pw.tick(clock.ticks_ms())
    assert pw.halted
    on = off = 0
    for t in range(0, 1200, 50):  # the fast blink: lit part of the time
        v.paint(c, t)
        lit = [i for i in range(board.nleds) if v.p.get(i) != (0, 0, 0)]
        ends = [v.p._step_led(0, 1), v.p._step_led(1, 1)]
        assert lit == [] or sorted(lit) == sorted(ends), lit
        if lit:
            on += 1
        else:
            off += 1
    assert on and off


def test_idle_mode_dims_the_frame_and_input_restores_it():
    board, v, pw, clock, bat, c = _setup()
    v.paint(c, clock.ticks_ms())
    awake = bytes(v.p.buf)
    assert any(awake)
    clock.advance(board.idle["after_s"] * 1000)
    pw.tick(clock.ticks_ms())
    assert pw.idle
    v.paint(c, clock.ticks_ms())
    lvl = board.idle["leds_level"]
    assert all(v.p.buf[i] <= awake[i] * lvl // 255 + 1 for i in range(len(awake)))
    pw.activity(clock.ticks_ms())
    v.paint(c, clock.ticks_ms())
    assert any(v.p.buf)
