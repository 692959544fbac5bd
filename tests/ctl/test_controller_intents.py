"""``Controller.intent(side, what, arg, now)``: the one way into the match for a button press,
the computer and a host deciding for it. An intent that is not the side's to ask now is
refused and changes nothing; a play is recorded only when the sensors show it; a whole game
played through intents alone journals what the same presses journal.

On MicroPython these also run through tests/host/test_controller_mpy.py, on the board model at
the board's 64k."""

import ctl_helpers as H
from app import controller as C
from app import rules


def _snapshot(c):
    mt = c.mt
    return (c.phase, c.side, bytes(c.dice), bytes(mt.pos), mt.cube, mt.owner, tuple(mt.score), len(c.outbox))


def _refused(c, side, what, arg=None):
    before = _snapshot(c)
    assert not c.intent(side, what, arg), (side, what)
    assert _snapshot(c) == before, (side, what)


def test_an_intent_out_of_turn_is_refused_and_changes_nothing():
    c, r = H.started(length=5)
    s = c.side  # moving
    for what in (C.I_NEXT, C.I_KEEP, C.I_DOUBLE, C.I_TAKE, C.I_DROP, C.I_BEAVER, C.I_ACCEPT, C.I_REJECT):
        _refused(c, s, what)
        _refused(c, 1 - s, what)
    for what in (C.I_ROLL, C.I_CONFIRM, C.I_CANDIDATE, C.I_WITHDRAW, C.I_END):
        _refused(c, 1 - s, what)
    _refused(c, 1 - s, C.I_RESIGN, 1)  # not the mover's opponent's to offer
    _refused(c, s, C.I_PLAY, (24, 23))  # the board does not show it (nor is it legal)
    _refused(c, s, C.I_CANDIDATE)  # no plays reading alike
    r.play_turn()
    o = c.side  # await_roll
    _refused(c, 1 - o, C.I_ROLL)
    _refused(c, 1 - o, C.I_DOUBLE)
    _refused(c, o, C.I_TAKE)
    assert c.intent(o, C.I_DOUBLE)
    _refused(c, o, C.I_TAKE)  # the doubler cannot take its own cube
    _refused(c, o, C.I_DROP)
    _refused(c, 1 - o, C.I_BEAVER)  # match play: no beavers
    assert c.intent(1 - o, C.I_TAKE) and c.mt.cube == 2 and c.mt.owner == 1 - o


def test_bad_arguments_are_errors():
    c, r = H.started(length=5)
    for bad in (0, 4, None):
        try:
            c.intent(c.side, C.I_RESIGN, bad)
        except ValueError as e:
            assert "resign" in str(e)
        else:
            raise AssertionError("resign %r accepted" % (bad,))
    try:
        c.intent(c.side, 99)
    except ValueError as e:
        assert "intent" in str(e)
    else:
        raise AssertionError("an unknown intent accepted")
    assert c.phase == C.MOVING and c.resign_value == 0


def test_a_play_is_recorded_only_when_the_board_shows_it():
    c, r = H.started(length=5)
    s = c.side
    play = r.pick_play()
    n = len(c.outbox)
    assert not c.intent(s, C.I_PLAY, play) and len(c.outbox) == n  # the checkers have not moved
    rules.apply_steps(r.pos, s, play)
    r.sense()
    assert c.intent(s, C.I_PLAY, play)
    k, f = c.outbox[-1]
    assert k == C.K_PLAY and f[0] == s and c.phase == C.AWAIT_ROLL and c.side == 1 - s


def test_a_resignation_through_intents_raises_withdraws_and_is_accepted():
    c, r = H.started(length=5)
    s = c.side
    assert c.intent(s, C.I_RESIGN, 1) and c.phase == C.RESIGNING
    assert c.intent(s, C.I_RESIGN, 3) and c.resign_value == 3  # raised before an answer
    assert c.intent(s, C.I_WITHDRAW) and c.phase == C.MOVING  # and taken back
    assert c.intent(s, C.I_RESIGN, 2)
    _refused(c, s, C.I_ACCEPT)  # the offerer cannot accept its own offer
    assert c.intent(1 - s, C.I_ACCEPT)
    kinds = H.kinds(c)[-3:]
    assert kinds == [C.K_RESIGN, C.K_RESIGN_ACCEPT, C.K_GAME_END]
    assert c.outbox[-1][1] == (1 - s, 2, 2, C.END_RESIGN) and c.mt.score[1 - s] == 2


def _as_press(q, side, what):
    """An intent at a press's moment, its timing mixed into the player seed as a press's is."""
    q.now += 40
    q.c.mix(q.now)
    return q.c.intent(side, what, None, q.now)


def test_a_game_through_intents_journals_what_the_presses_journal():
    by_press, r = H.started(length=3)
    by_intent = H.make(length=3)
    q = H.Robot(by_intent, 1)
    q.set_start()
    assert _as_press(q, 0, C.I_NEXT)
    while by_intent.phase == C.OPENING:
        assert _as_press(q, 0, C.I_ROLL)
    turns = 0
    while by_press.phase == C.MOVING and turns < 12:
        turns += 1
        s = by_press.side
        play = r.play_turn()
        rules.apply_steps(q.pos, s, play)
        q.sense()
        assert _as_press(q, s, C.I_CONFIRM)
        if by_press.phase == C.AWAIT_ROLL:
            assert r.press(by_press.side, C.ROLL)
            assert _as_press(q, by_intent.side, C.I_ROLL)
    assert turns == 12 and len(by_press.outbox) > 20 and by_press.outbox == by_intent.outbox


def test_the_button_table_names_phases_buttons_and_intents_that_exist():
    from app import controller as M

    t = M._BUTTONS
    assert len(t) % 5 == 0
    rows = [tuple(t[i : i + 5]) for i in range(0, len(t), 5)]
    for ph, b, k, who, what in rows:
        assert 0 <= ph < len(C.PHASE_NAMES) and b in (C.ROLL, C.CUBE) and k in (C.PRESS, C.LONG, 3)
        assert who in (1, 2, 3) and C.I_NEXT <= what <= C.I_END
    assert (C.AWAIT_ROLL, C.CUBE, C.PRESS, 1, C.I_DOUBLE) in rows
    assert (C.DOUBLED, C.CUBE, C.LONG, 2, C.I_BEAVER) in rows
    assert (C.RESIGNING, C.CUBE, C.LONG, 1, C.I_WITHDRAW) in rows
    assert len(set(r[:4] for r in rows)) == len(rows)  # one intent per press and phase


def test_a_refused_double_says_why():
    c, r = H.started(length=5)
    r.play_turn()
    o = c.side
    assert c.intent(o, C.I_DOUBLE) and c.intent(1 - o, C.I_TAKE)
    _refused(c, o, C.I_DOUBLE)  # the doubler rolls now; the cube is the taker's
    assert c.message == "no double: the opponent owns the cube"
    assert r.press(o, C.ROLL)
    r.play_turn()
    assert c.side == 1 - o and c.phase == C.AWAIT_ROLL and c.mt.owner == 1 - o
    # the owner may double, but not while a checker is out of place
    moved = bytearray(c.sensed)
    i = next(i for i in range(len(moved)) if moved[i])
    j = next(j for j in range(len(moved)) if not moved[j])
    moved[i] -= 1
    moved[j] += 1
    c.board(moved)
    _refused(c, 1 - o, C.I_DOUBLE)
    assert c.message == "no double: put the checkers back as they were"
    r.sense()
    assert c.intent(1 - o, C.I_DOUBLE) and c.message == "" and c.phase == C.DOUBLED
    assert c.outbox[-1] == (C.K_DOUBLE, (1 - o, 4))  # a redouble to 4
