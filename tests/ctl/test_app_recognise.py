"""The app's recognition task (``app.engine_task.EngineTask``): a stable reading reaches the
controller only after the recogniser's search, which runs in slices of at most ``slice_us``
(chunks of ``CHUNK_PLAYS`` plays, ``CHUNK_DOUBLE`` on a double) with a yield between them, so
the worst position (1-1, 2,140 plays) never holds the event loop at once (docs/performance.md).
Tried the way a hurried player does it: a confirm press half-way through a search, a checker
moved again before the answer.

The real ``App`` over the small HAL of ``app_power_helpers``; on CPython the MicroPython
asyncio names the app uses (``sleep_ms``, ``wait_for_ms``) are mapped onto asyncio's own."""

import asyncio

from app import controller as C
from app import engine_task
from app_power_helpers import _app, _dir, _press, _sense, _start
from bg import board as B
from bg import engine as movegen
from bg import recognize as R

if not hasattr(asyncio, "sleep_ms"):  # CPython

    def _sleep_ms(ms):
        return asyncio.sleep(ms / 1000)

    def _wait_for_ms(aw, ms):
        return asyncio.wait_for(aw, ms / 1000)

    asyncio.sleep_ms = _sleep_ms  # pyright: ignore[reportAttributeAccessIssue]
    asyncio.wait_for_ms = _wait_for_ms  # pyright: ignore[reportAttributeAccessIssue]


def _worst():
    pts = {}
    for p in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 19, 20, 22, 23):
        pts[p] = 1
    return B.from_points(pts, {1: 2})


def _at(c, pos, side, d1, d2):
    """The game at ``pos``, ``side`` to play ``d1 d2`` (as ctl_helpers.roll_at: the fold;
    ctl_helpers itself is not loaded, its code would cost the board model's heap ~6k)."""
    from bg import match as M

    c.mt.pos[:] = pos
    mt = c.mt
    mt.phase = M.F_AWAIT
    mt.side = side
    mt.turn = side
    mt.rolled = False
    c.apply(C.K_ROLL, (side, d1, d2))


def _kth_end(pos, side, d1, d2, k):
    out = bytearray(52)
    box = [k]

    def visit(w, st, n):
        if box[0] == 0:
            out[:] = w
        box[0] -= 1

    movegen.for_each_end(pos, side, d1, d2, visit)
    return out


def _worst_turn():
    app, hw = _app(_dir())
    _start(app)
    c = app.ctl
    worst = _worst()
    _at(c, worst, 0, 1, 1)
    _sense(app, worst)  # no task yet: delivered at once (the turn's start)
    assert c.phase == C.MOVING and c.side == 0 and tuple(c.dice) == (1, 1)
    return app, c, worst


async def _run(app, body):
    """Run ``body(ticks)`` beside the recognition task and a ticker that counts how often the
    loop got back to other tasks (the scan task's place)."""
    ticks = [0]
    stop = [False]

    async def ticker():
        while not stop[0]:
            ticks[0] += 1
            await asyncio.sleep_ms(0)

    task = asyncio.create_task(app.engine.run())
    t2 = asyncio.create_task(ticker())
    await asyncio.sleep_ms(0)
    assert app.engine.ev is not None  # the task runs: readings go through it
    try:
        return await body(ticks)
    finally:
        stop[0] = True
        app.running = False
        app.engine.ev.set()
        await asyncio.sleep_ms(0)
        task.cancel()
        t2.cancel()
        await asyncio.sleep_ms(0)


async def _until(pred, ticks, most=10000):
    # (the worst position's double: 2,140 plays one at a time, twice when a hit is counted again)
    while not pred():
        most -= 1
        assert most > 0, "the recognition task never delivered"
        await asyncio.sleep_ms(0)


def test_a_worst_position_play_is_recognised_in_slices_and_recorded():
    app, c, worst = _worst_turn()
    app.engine.slice_us = 0  # a yield after every chunk (the ESP32's case; a desktop is ~50x faster)
    end = _kth_end(worst, 0, 1, 1, 0)

    async def body(ticks):
        _sense(app, end)
        assert not c.rec.busy  # not yet taken: the scanner's callback only signals
        await _until(lambda: app.engine.busy, ticks)
        assert c.rec.busy  # taken: the search runs in slices
        t0 = ticks[0]
        await _until(lambda: not app.engine.busy, ticks)
        # 2,140 plays of a double, its dear plays taken CHUNK_DOUBLE at a time (not
        # CHUNK_PLAYS: four of them held the loop ~19 ms on the chip): the loop ran between
        assert engine_task.CHUNK_DOUBLE < engine_task.CHUNK_PLAYS
        assert app.engine.slices >= 2140 // engine_task.CHUNK_DOUBLE - 1
        assert ticks[0] - t0 >= app.engine.slices
        assert c.rec.state == R.COMPLETE and c.sensed == app.engine.reading

    asyncio.run(_run(app, body))
    _press(app, "roll", 0)  # confirm: the play recorded
    assert c.phase == C.AWAIT_ROLL and c.side == 1
    assert bytes(c.mt.pos) == bytes(end)


def test_a_confirm_half_way_through_a_search_waits_for_its_answer():
    app, c, worst = _worst_turn()
    app.engine.slice_us = 0
    end = _kth_end(worst, 0, 1, 1, 3)

    async def body(ticks):
        _sense(app, end)
        await _until(lambda: app.engine.busy, ticks)
        await asyncio.sleep_ms(0)
        assert app.engine.busy and c.rec.busy  # mid-search
        _press(app, "roll", 0)  # the hurried player confirms now: the press sees the board as it is
        assert not app.engine.busy and c.phase == C.AWAIT_ROLL
        await asyncio.sleep_ms(0)
        await asyncio.sleep_ms(0)

    asyncio.run(_run(app, body))
    assert bytes(c.mt.pos) == bytes(end)
    assert c.phase == C.AWAIT_ROLL and c.message == ""  # delivered once, nothing redone after


def test_a_checker_moved_again_before_the_answer_is_followed():
    app, c, worst = _worst_turn()
    app.engine.slice_us = 0
    first = _kth_end(worst, 0, 1, 1, 0)
    second = _kth_end(worst, 0, 1, 1, 7)

    async def body(ticks):
        _sense(app, first)
        await _until(lambda: app.engine.busy, ticks)
        _sense(app, second)  # a hand moved again before the first answer
        await _until(lambda: not app.engine.busy and not app.engine.fresh, ticks)
        await asyncio.sleep_ms(0)
        assert not app.engine.busy and not app.engine.fresh
        assert c.rec.state == R.COMPLETE and c.rec.end(0) == bytes(second)

    asyncio.run(_run(app, body))
    _press(app, "roll", 0)
    assert bytes(c.mt.pos) == bytes(second)


def test_with_the_default_slice_the_answer_is_the_same():
    app, c, worst = _worst_turn()
    end = _kth_end(worst, 0, 1, 1, 11)

    async def body(ticks):
        _sense(app, end)
        await _until(lambda: not app.engine.fresh and not app.engine.busy, ticks)
        assert c.rec.state == R.COMPLETE and c.rec.end(0) == bytes(end)

    asyncio.run(_run(app, body))


# -- the best play of a turn, thought in the same task (app.opponent: think) ------------------


def _pub(pos, side, d1, d2):
    from bg.engine.pubeval import PubEval

    return PubEval().best(pos, side, d1, d2)


def test_the_computers_play_on_the_worst_position_is_thought_in_slices():
    app, c, worst = _worst_turn()
    app.engine.slice_us = 0
    want = _pub(worst, 0, 1, 1)

    async def body(ticks):
        c.settings.computer = 0  # the board plays side 0 from here (its turn is in progress)
        _sense(app, worst)  # any input: the controller asks the computer, which is not ready
        await _until(lambda: c.opp is not None and c.opp.plan is not None, ticks)
        assert c.opp.plan == want and not c.opp.coaching
        assert app.engine.slices >= 2140 // engine_task.CHUNK_PLAYS - 1  # the loop ran between the chunks
        assert c.phase == C.MOVING and not c.outbox  # shown, nothing recorded yet

    asyncio.run(_run(app, body))


def test_the_coach_asked_before_the_best_play_is_known_shows_it_when_it_is():
    app, c, worst = _worst_turn()
    app.engine.slice_us = 0
    want = _pub(worst, 0, 1, 1)

    async def body(ticks):
        assert c.button(0, C.ROLL, C.LONG, app.hw.clock.ms)  # the coach, asked at once
        o = c.opp
        assert o.plan is None and o.wants(c)  # not known yet: the engine task thinks
        app.engine.kick()
        await _until(lambda: o.plan is not None, ticks)
        assert o.plan == want and o.coaching
        assert app.engine.slices >= 100
        assert c.button(0, C.ROLL, C.LONG, app.hw.clock.ms)  # asked again: hidden
        assert o.plan is None and not o.wants(c)

    asyncio.run(_run(app, body))


def test_learning_mode_thinks_while_the_player_moves_and_judges_at_once():
    app, c, worst = _worst_turn()
    c.learn = True
    want = _pub(worst, 0, 1, 1)
    end = bytearray(worst)
    B.apply_step(end, 0, want[0], want[1])  # the player makes the best play
    for i in range(2, len(want), 2):
        B.apply_step(end, 0, want[i], want[i + 1])

    async def body(ticks):
        _sense(app, worst)  # the turn is seen: its best play is wanted for the verdict
        await _until(lambda: c.opp is not None and c.opp.search and c.opp.search.known == c.throws, ticks)
        _sense(app, end)
        await _until(
            lambda: not app.engine.busy and not app.engine.fresh and c.rec.state == R.COMPLETE, ticks
        )
        _press(app, "roll", 0)  # confirm: judged at once, the best play known
        v = c.opp.verdict
        assert v is not None and v[0] == 0 and v[1] is True

    asyncio.run(_run(app, body))


def test_a_verdict_waits_for_the_best_play_when_the_player_is_quicker():
    app, c, worst = _worst_turn()
    c.learn = True
    app.engine.slice_us = 0
    end = _kth_end(worst, 0, 1, 1, 5)  # not the best play

    async def body(ticks):
        _sense(app, end)
        await _until(
            lambda: not app.engine.busy and not app.engine.fresh and c.rec.state == R.COMPLETE, ticks
        )
        assert c.opp is not None and c.opp.search.known != c.throws  # still thinking
        _press(app, "roll", 0)  # confirmed before the best play is known
        o = c.opp
        assert c.phase == C.AWAIT_ROLL and o.verdict is None and o.wants(c)
        app.engine.kick()
        await _until(lambda: o.verdict is not None, ticks)
        assert o.verdict[0] == 0 and o.verdict[1] is False
        assert not o.wants(c)

    asyncio.run(_run(app, body))


def test_a_board_halted_by_a_flat_battery_does_not_think_for_the_computer():
    app, c, worst = _worst_turn()
    app.engine.slice_us = 0
    o = c._opponent()
    c.settings.computer = 0  # the computer's turn is in progress

    async def body(ticks):
        app.power.halted = True  # as the critical battery level does (app.power): the journal closed
        app.engine.kick()
        for _ in range(200):
            await asyncio.sleep_ms(0)
        # nothing thought, nothing done
        assert o.plan is None and (o.search is None or o.search.known != c.throws) and not c.outbox
        app.power.halted = False  # charged again
        app.engine.kick()
        await _until(lambda: o.plan is not None, ticks)
        assert o.plan == _pub(worst, 0, 1, 1)

    asyncio.run(_run(app, body))
