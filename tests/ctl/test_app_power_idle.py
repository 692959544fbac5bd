"""Idle mode, the low-battery warning and the battery gauge at app level (``app.main.App`` with
``app.power``, docs/controller.md "Power"): idle after the quiet time with slower scans and
light sleep, ended by a moved checker; play goes on at LOW; ROLL held alone shows the gauge and
reaches no game."""

from app import controller as C
from app_power_helpers import _DESC, _app, _dir, _idx, _start, _turn
from bg import battery as B


def test_low_battery_warns_but_play_goes_on():
    d = _dir()
    app, hw = _app(d)
    r = _start(app)
    hw.mv = _DESC.battery["low_mv"] - 30
    hw.clock.ms += _DESC.battery["poll_s"] * 1000
    app.power.step(hw.clock.ms)
    assert app.power.level() == B.LOW and not app.power.halted
    _turn(app, r)
    assert app.power.info()[2] & B.F_LOW


def test_idle_mode_slows_the_scan_and_a_moved_checker_ends_it():
    d = _dir()
    app, hw = _app(d)
    r = _start(app)
    fast = app.scanner.period_ms
    for _ in range(_DESC.idle["after_s"] * 10):
        hw.clock.ms += 100
        app.power.step(hw.clock.ms)
    assert app.power.idle and app.scanner.period_ms == 1000 // _DESC.idle["scan_hz"] > fast
    assert app.scanner.nap(50) and hw.naps == 1  # light sleep between idle scans
    _turn(app, r)
    assert not app.power.idle and app.scanner.period_ms == fast
    assert not app.scanner.nap(5) and hw.naps == 1
    # the board's heap: the power state binds the app, not its parts one by one (17 attributes
    # or fewer: one 17-slot dict; docs/memory.md)
    assert len(app.power.__dict__) <= 17, len(app.power.__dict__)


def test_the_gauge_gesture_shows_the_battery_and_reaches_no_game():
    d = _dir()
    app, hw = _app(d, mv=3800)
    _start(app)
    before = (app.ctl.phase, bytes(app.ctl.mt.pos), len(app.ctl.outbox))
    # the player not moving (the mover's long ROLL while it moves is the coach's)
    other = 1 - app.ctl.side if app.ctl.phase == C.MOVING else 1
    app.presses.press(_idx(app, "roll", other), C.LONG, hw.clock.ms)
    assert app.power.showing(hw.clock.ms)
    assert (app.ctl.phase, bytes(app.ctl.mt.pos), len(app.ctl.outbox)) == before
    app.view.paint(app.ctl, hw.clock.ms)
    n = 0
    for q in range(1, 11):
        if app.painter.get(app.painter._step_led(0, q)) != (0, 0, 0):
            n += 1
    assert n >= 1
