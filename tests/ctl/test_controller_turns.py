"""The controller through a turn and the cube: players move checkers (the sensed counts
change) and press buttons; every test checks what was recorded and what state follows.
Setting up, the opening throw, confirming, taking back, illegal and casual plays, doubles,
beavers, resignations, automatic doubles, the house opening.

On MicroPython these also run through tests/host/test_controller_mpy.py: on the pip 64-bit unix
port precompiled at 192k, on the board model (32-bit, firmware frozen) at the board's 64k.
"""

import ctl_helpers as H
from app import controller as C
from app import rules
from bg import board as B
from bg.dice.fairness import Fairness


def test_idle_needs_the_start_position():
    c = H.make(length=3)
    r = H.Robot(c)
    r.pos = B.from_points({6: 15}, {6: 15})
    r.sense()
    assert not r.press(0, C.ROLL) and c.phase == C.IDLE
    assert c.missing and c.extra  # the LEDs guide towards the start position
    r.set_start()
    assert c.missing == 0 and c.extra == 0
    # the commitment is journaled at once, before any player entropy: no seed in it
    assert r.press(1, C.ROLL) and c.phase == C.OPENING and H.kinds(c) == [C.K_MATCH_START]
    assert c.outbox[0][1][9] == c.fair.commitment and c.outbox[0][1][10] == b""


def test_a_match_played_as_the_device_is_set_shares_its_settings():
    # the board's heap: one Settings object, not a copy of the device's kept for each match
    c = H.make(length=3, jacoby=True)
    r = H.Robot(c)
    r.set_start()
    assert r.press(0, C.ROLL) and c.phase == C.OPENING
    assert c.settings is c.config and c.settings.length == 3 and c.settings.jacoby
    # a journaled match under other settings keeps its own; the device's stay as they are
    d = H.make(length=5)
    d.apply(*c.outbox[0])
    assert d.settings is not d.config and d.settings.length == 3 and d.settings.jacoby
    assert d.config.length == 5 and not d.config.jacoby


def test_opening_records_match_game_and_throw():
    c, r = H.started()
    ks = H.kinds(c)
    assert ks[:3] == [C.K_MATCH_START, C.K_SEED_PART, C.K_GAME_START] and C.K_OPENING in ks
    f = [f for k, f in c.outbox if k == C.K_OPENING][-1]
    d0, d1 = f[1]
    assert d0 != d1 and c.side == (0 if d0 > d1 else 1) and c.phase == C.MOVING
    assert (c.dice[0], c.dice[1]) == (d0, d1)
    ms = c.outbox[0][1]
    assert ms[2] == c.settings.length and len(ms[9]) == 32


def test_a_press_at_the_wrong_time_does_nothing():
    # the controller is the only gate to a throw (``_throw``): the stream's counter says none
    c, r = H.started()
    n, t = len(c.outbox), c.fair.counter
    other = 1 - c.side
    assert not r.press(other, C.ROLL)  # not the opponent's turn
    assert not r.press(c.side, C.ROLL)  # thrown already this turn
    assert not r.press(other, C.CUBE)
    assert not r.press(c.side, C.CUBE)  # no double after rolling
    assert len(c.outbox) == n and c.phase == C.MOVING and c.fair.counter == t
    r.play_turn()
    assert c.phase == C.AWAIT_ROLL and not r.press(1 - c.side, C.ROLL)  # the wrong player
    assert r.press(c.side, C.ROLL) and c.fair.counter == t + 1
    assert not r.press(c.side, C.ROLL) and c.fair.counter == t + 1  # once per turn


def test_confirm_records_the_legal_play_and_passes_the_turn():
    c, r = H.started()
    side = c.side
    play = r.play_turn()
    k, f = c.outbox[-1]
    assert k == C.K_PLAY and f[0] == side and f[2] == 0
    end = B.start_position()
    rules.apply_steps(end, side, play)
    assert c.mt.pos == end and c.phase == C.AWAIT_ROLL and c.side == 1 - side


def test_takeback_is_free_until_confirm():
    c, r = H.started()
    side = c.side
    ps = [p for p, _ in __import__("bg.engine").engine.plays(c.mt.pos, side, c.dice[0], c.dice[1])]
    first, second = ps[0], ps[-1]
    rules.apply_steps(r.pos, side, first)  # move one way...
    r.sense()
    r.pos = B.start_position()  # ...take it all back...
    r.sense()
    rules.apply_steps(r.pos, side, second)  # ...and play something else
    r.sense()
    assert r.press(side, C.ROLL)
    k, f = c.outbox[-1]
    assert k == C.K_PLAY and rules.apply_steps(B.start_position(), side, f[1]) == r.pos
    assert len([a for a in c.outbox if a[0] == C.K_PLAY]) == 1


def test_illegal_play_is_refused_and_never_recorded():
    c, r = H.started()
    side = c.side
    n = len(c.outbox)
    r.pos[(25 if side else 0) + 6 - 1] -= 1  # 6 -> 7: backwards, never legal
    r.pos[(25 if side else 0) + 7 - 1] += 1
    r.sense()
    assert not r.press(side, C.ROLL)
    assert len(c.outbox) == n and c.phase == C.MOVING and c.message == "illegal play"
    assert c.missing or c.extra  # the rows that differ from the turn's start
    r.pos = B.start_position()  # the player corrects it
    r.sense()
    assert c.missing == 0 and c.extra == 0
    r.play_turn()
    assert c.outbox[-1][0] == C.K_PLAY


def test_casual_illegal_play_accepted_by_the_opponent_is_flagged():
    c, r = H.started(casual=True)
    side = H.illegal_move(c, r)
    assert r.press(side, C.ROLL) and c.phase == C.ILLEGAL
    assert c.outbox[-1][0] != C.K_PLAY  # nothing recorded until the opponent decides
    assert r.press(1 - side, C.ROLL)  # accepts
    k, f = c.outbox[-1]
    assert k == C.K_PLAY and f[2] == C.PLAY_ILLEGAL_ACCEPTED and f[1] == (6, 7)
    assert c.mt.pos == r.pos and c.phase == C.AWAIT_ROLL and c.side == 1 - side


def test_casual_illegal_play_refused_goes_back_to_moving():
    c, r = H.started(casual=True)
    side = H.illegal_move(c, r)
    assert r.press(side, C.ROLL) and c.phase == C.ILLEGAL
    assert r.press(1 - side, C.CUBE)
    assert c.phase == C.MOVING and c.outbox[-1][0] != C.K_PLAY


def test_double_take_turns_the_cube():
    c, r = H.started(length=5)
    r.play_turn()
    roller = c.side
    assert c.may_double and r.press(roller, C.CUBE)
    assert c.phase == C.DOUBLED and c.outbox[-1] == (C.K_DOUBLE, (roller, 2))
    t = c.fair.counter
    assert not r.press(roller, C.ROLL) and c.fair.counter == t  # the doubler cannot roll now
    assert r.press(1 - roller, C.ROLL)  # take
    assert c.mt.cube == 2 and c.mt.owner == 1 - roller and c.phase == C.AWAIT_ROLL and c.side == roller
    assert not c.may_double  # only the owner may redouble
    assert r.press(roller, C.ROLL) and c.phase == C.MOVING


def test_double_drop_gives_the_doubler_the_stake():
    c, r = H.started(length=5)
    r.play_turn()
    roller = c.side
    r.press(roller, C.CUBE)
    assert r.press(1 - roller, C.CUBE)  # drop
    ks = H.kinds(c)
    assert ks[-2:] == [C.K_DROP, C.K_GAME_END]
    assert c.outbox[-1][1] == (roller, 1, 1, C.END_DROP) and c.mt.score[roller] == 1
    assert c.phase == C.GAME_OVER


def test_beaver_in_money_play_only():
    c, r = H.started(length=0, beaver=True)
    r.play_turn()
    roller = c.side
    r.press(roller, C.CUBE)
    assert r.press(1 - roller, C.CUBE, C.LONG)
    assert c.outbox[-1] == (C.K_BEAVER, (1 - roller, 4)) and c.mt.cube == 4 and c.mt.owner == 1 - roller
    m, r2 = H.started(length=5, beaver=True)
    r2.play_turn()
    s = m.side
    r2.press(s, C.CUBE)
    assert not r2.press(1 - s, C.CUBE, C.LONG) and m.phase == C.DOUBLED


def test_resign_cycles_value_and_accept_scores_it():
    c, r = H.started(length=7)
    side = c.side
    assert r.press(side, C.CUBE, C.LONG) and c.phase == C.RESIGNING and c.resign_value == 1
    assert r.press(side, C.CUBE)  # single -> gammon
    assert c.resign_value == 2
    assert r.press(1 - side, C.ROLL)  # accepted
    ks = H.kinds(c)
    assert ks[-3:] == [C.K_RESIGN, C.K_RESIGN_ACCEPT, C.K_GAME_END]
    assert c.outbox[-3][1] == (side, 2) and c.outbox[-1][1] == (1 - side, 2, 2, C.END_RESIGN)


def test_resign_rejected_continues_the_turn():
    c, r = H.started(length=7)
    side = c.side
    r.press(side, C.CUBE, C.LONG)
    assert r.press(1 - side, C.CUBE)
    assert H.kinds(c)[-2:] == [C.K_RESIGN, C.K_RESIGN_REJECT]
    assert c.phase == C.MOVING and c.side == side
    r.play_turn()


def test_auto_double_on_an_opening_tie():
    for seed in range(1, 60):
        c = C.Controller(
            C.Settings(length=0, auto_doubles=1),
            rules,
            lambda mid: Fairness(mid, H.seed_for(mid)),
            lambda s=seed: bytes([s]) * 8,  # match ids that vary the dice seed
            lambda: 1767225600,
        )
        r = H.Robot(c)
        r.set_start()
        r.press(0, C.ROLL)
        r.press(0, C.ROLL)
        if c.phase == C.OPENING:  # a tie: the cube went to 2, the next tie does not double again
            assert c.outbox[-1] == (C.K_AUTO_DOUBLE, (2,)) and c.mt.cube == 2
            while c.phase == C.OPENING:
                r.press(0, C.ROLL)
            assert c.mt.cube == 2 and H.kinds(c).count(C.K_AUTO_DOUBLE) == 1
            return
    raise AssertionError("no opening tie in 59 matches")


def test_house_opening_starter_may_reroll_once():
    c = H.make(length=3, house=True)
    r = H.Robot(c)
    r.set_start()
    r.press(0, C.ROLL)
    assert not r.press(1, C.ROLL)  # side 0 throws first
    while c.phase == C.OPENING:
        assert r.press(0 if c.house_first is None else 1, C.ROLL)
    assert c.phase == C.CHOICE
    starter = c.side
    assert r.press(starter, C.CUBE)  # throw again, must play that
    f = c.outbox[-1]
    assert f[0] == C.K_OPENING and f[1][0] == C.OPEN_HOUSE | C.OPEN_REROLL
    assert c.phase == C.MOVING and c.side == starter and (c.dice[0], c.dice[1]) == f[1][1]
