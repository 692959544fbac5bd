"""One gesture, two meanings (docs/controller.md): a long ROLL press of the mover while it moves
asks the coach (``app.opponent``); any other long ROLL press shows the battery gauge
(``app.power``). The real ``App`` on CPython with the stand-in HAL of test_controller_links."""

import ctl_helpers as H
from app import controller as C
from test_controller_links import app  # noqa: F401 - the App fixture


def _moving(app):  # noqa: F811
    app.presses.animate = False  # no asyncio loop here
    r = H.Robot(app.ctl)
    r.set_start()
    assert r.press(0, C.ROLL)
    while app.ctl.phase == C.OPENING:
        r.press(0, C.ROLL)
    assert app.ctl.phase == C.MOVING
    return app.ctl.side


def _button(app, role, side):  # noqa: F811
    return [(b[1], b[2]) for b in app.board.buttons].index((role, side))


def test_the_movers_long_roll_is_the_coach_the_others_the_gauge(app):  # noqa: F811
    mover = _moving(app)
    now = app.ctl.now if hasattr(app.ctl, "now") else 10_000
    app.presses.press(_button(app, "roll", mover), C.LONG, now)
    assert app.power.shown_at is None  # no gauge: the coach took it
    assert app.ctl.opp is not None and app.ctl.opp.plan is not None  # the best play is shown
    app.presses.press(_button(app, "roll", 1 - mover), C.LONG, now + 100)
    assert app.power.shown_at is not None  # the other player's long ROLL: the gauge


def test_a_long_roll_outside_a_turn_is_the_gauge(app):  # noqa: F811
    assert app.ctl.phase == C.IDLE
    app.presses.press(_button(app, "roll", 0), C.LONG, 5000)
    assert app.power.shown_at is not None
    assert app.ctl.opp is None  # nothing reached the game
