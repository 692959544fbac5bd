"""The battery at app level (``app.main.App`` with ``app.power``, docs/controller.md "Power"): a
match interrupted by the critical level closes the journal cleanly -- the roll waiting for its
play is stored, nothing more is written, input is refused -- and resumes with nothing confirmed
lost, both after the cell dies (a new App boots from the journal) and after a charge (the same
App plays on). The real App, controller, journal policy and journal on a directory; the
simulator's HAL. (Idle mode, the low warning and the gauge: test_app_power_idle.)"""

import gc

from app import controller as C
from app import rules
from app_power_helpers import (
    _DESC,
    _app,
    _confirmed,
    _critical,
    _dir,
    _journal_bytes,
    _pick,
    _press,
    _sense,
    _start,
    _turn,
)


def _halted_mid_turn(d):
    """Three turns, a roll waiting for its play, then the critical level; the players try to
    go on. Returns what must come back: (dice, side, position, kinds of the confirmed
    actions). This App's frame ends here: nothing of it stays alive when the next one boots."""
    app, hw = _app(d)
    seen = _confirmed(app)
    r = _start(app)
    for _ in range(3):
        _turn(app, r)
    # the roll of this turn waits in RAM for its play (one TURN record): the critical level
    # must store it before it stops writing
    assert app.recorder.pending_roll is not None
    dice, side, pos = tuple(app.ctl.dice[:2]), app.ctl.side, bytes(app.ctl.mt.pos)
    _critical(app, hw)
    assert app.recorder.closed and app.recorder.pending_roll is None
    size = _journal_bytes(d)
    # the players go on regardless: a play, a confirm -- nothing is taken, nothing written
    rules.apply_steps(r, side, _pick(app.ctl))
    _sense(app, r)
    _press(app, "roll", side)
    assert app.ctl.phase == C.MOVING and bytes(app.ctl.mt.pos) == pos
    assert _journal_bytes(d) == size
    # the LEDs: only the empty-battery sign
    app.view.paint(app.ctl, hw.clock.ms)
    lit = [i for i in range(_DESC.nleds) if app.painter.get(i) != (0, 0, 0)]
    assert len(lit) <= 2
    return dice, side, pos, [k for k, _f in seen]


def test_critical_battery_mid_match_resumes_after_the_cell_dies_with_nothing_lost():
    d = _dir()
    dice, side, pos, seen = _halted_mid_turn(d)
    gc.collect()  # the cell dies; charged, the board boots from the journal
    logs = []
    again, _ = _app(d, log=logs.append)
    c = again.ctl
    assert c.phase == C.MOVING and c.side == side and tuple(c.dice[:2]) == dice
    assert bytes(c.mt.pos) == pos
    # every action the board confirmed before the halt came back from the journal (the
    # waiting roll included: it was stored alone at the halt); the state above is theirs
    assert seen.count(C.K_ROLL) == 3 and seen[-1] == C.K_ROLL  # the last one waited for its play
    assert "resumed match: %d actions, phase moving" % len(seen) in logs, logs


def _charged_and_played_on(d):
    """Halt at the critical level, charge, play two more turns; the state to resume (this
    App's frame ends here: nothing of it stays on the stack when the next one boots)."""
    app, hw = _app(d)
    r = _start(app)
    _turn(app, r)
    _critical(app, hw)
    hw.mv = _DESC.battery["low_mv"] + _DESC.battery["hysteresis_mv"] + 200  # USB plugged in
    hw.clock.ms += _DESC.battery["poll_s"] * 1000
    app.power.step(hw.clock.ms)
    assert not app.power.halted and not app.recorder.closed
    _turn(app, r)
    _turn(app, r)
    return bytes(app.ctl.mt.pos), app.ctl.side, tuple(app.ctl.dice[:2]), bytearray(r)


def test_a_charge_ends_the_halt_and_the_match_plays_on_in_the_same_journal():
    d = _dir()
    pos, side, dice, where = _charged_and_played_on(d)
    gc.collect()  # the cell dies: the board's heap holds one App
    again, _ = _app(d)
    assert bytes(again.ctl.mt.pos) == pos and again.ctl.side == side
    # the last roll waited in RAM for its play (journal policy): the same press throws it again
    assert again.ctl.phase == C.AWAIT_ROLL
    _sense(again, where)  # the checkers where the players left them
    _press(again, "roll", side)
    assert again.ctl.phase == C.MOVING and tuple(again.ctl.dice[:2]) == dice
