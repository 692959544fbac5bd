"""The controller through whole turns and games: players move checkers (the sensed counts
change) and press buttons; every test checks what was recorded and what state follows.

On MicroPython these run precompiled at 192k (tests/host/test_controller_mpy.py): the
controller, the engine and the dice do not fit the portable bridge's 64k heap on the 64-bit
unix port, where bytecode lives in the heap (the ESP32 runs it frozen in flash); if this
module ever runs short of heap while importing, it skips with that reason.
"""

try:
    import ctl_helpers as H
    from app import controller as C
    from app import rules
    from bg import board as B

    _LOAD_ERROR = None
except MemoryError as e:  # MicroPython, 64k heap, sources compiled on import
    _LOAD_ERROR = e


class SkipTest(Exception):
    pass


def _need():
    if _LOAD_ERROR is not None:
        raise SkipTest("controller + engine + dice do not compile from source in this heap")


def _started(seed=1, **kw):
    """A controller with the checkers set up and the opening thrown (phase MOVING)."""
    c = H.make(**kw)
    r = H.Robot(c, seed)
    r.set_start()
    assert r.press(0, C.ROLL) and c.phase == C.OPENING
    while c.phase == C.OPENING:
        assert r.press(0 if c.house_first is None else 1, C.ROLL)
    return c, r


def _kinds(c):
    return [k for k, f in c.outbox]


def test_idle_needs_the_start_position():
    _need()
    c = H.make(length=3)
    r = H.Robot(c)
    r.pos = B.from_points({6: 15}, {6: 15})
    r.sense()
    assert not r.press(0, C.ROLL) and c.phase == C.IDLE
    assert c.missing and c.extra  # the LEDs guide towards the start position
    r.set_start()
    assert c.missing == 0 and c.extra == 0
    assert r.press(1, C.ROLL) and c.phase == C.OPENING and c.outbox == []


def test_opening_records_match_game_and_throw():
    _need()
    c, r = _started()
    ks = _kinds(c)
    assert ks[:2] == [C.K_MATCH_START, C.K_GAME_START] and C.K_OPENING in ks
    f = [f for k, f in c.outbox if k == C.K_OPENING][-1]
    d0, d1 = f[1]
    assert d0 != d1 and c.side == (0 if d0 > d1 else 1) and c.phase == C.MOVING
    assert (c.dice[0], c.dice[1]) == (d0, d1)
    ms = c.outbox[0][1]
    assert ms[2] == c.settings.length and len(ms[9]) == 32


def test_a_press_at_the_wrong_time_does_nothing():
    _need()
    c, r = _started()
    n = len(c.outbox)
    other = 1 - c.side
    assert not r.press(other, C.ROLL)  # not the opponent's turn
    assert not r.press(other, C.CUBE)
    assert not r.press(c.side, C.CUBE)  # no double after rolling
    assert len(c.outbox) == n and c.phase == C.MOVING


def test_confirm_records_the_legal_play_and_passes_the_turn():
    _need()
    c, r = _started()
    side = c.side
    play = r.play_turn()
    k, f = c.outbox[-1]
    assert k == C.K_PLAY and f[0] == side and f[2] == 0
    end = B.start_position()
    rules.apply_steps(end, side, play)
    assert c.pos == end and c.phase == C.AWAIT_ROLL and c.side == 1 - side


def test_takeback_is_free_until_confirm():
    _need()
    c, r = _started()
    side = c.side
    ps = [p for p, _ in __import__("bg.movegen").movegen.plays(c.pos, side, c.dice[0], c.dice[1])]
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
    _need()
    c, r = _started()
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


def _illegal_move(c, r):
    side = c.side
    b = 25 if side else 0
    r.pos[b + 6 - 1] -= 1
    r.pos[b + 7 - 1] += 1  # backwards
    r.sense()
    return side


def test_casual_illegal_play_accepted_by_the_opponent_is_flagged():
    _need()
    c, r = _started(casual=True)
    side = _illegal_move(c, r)
    assert r.press(side, C.ROLL) and c.phase == C.ILLEGAL
    assert c.outbox[-1][0] != C.K_PLAY  # nothing recorded until the opponent decides
    assert r.press(1 - side, C.ROLL)  # accepts
    k, f = c.outbox[-1]
    assert k == C.K_PLAY and f[2] == C.PLAY_ILLEGAL_ACCEPTED and f[1] == (6, 7)
    assert c.pos == r.pos and c.phase == C.AWAIT_ROLL and c.side == 1 - side


def test_casual_illegal_play_refused_goes_back_to_moving():
    _need()
    c, r = _started(casual=True)
    side = _illegal_move(c, r)
    assert r.press(side, C.ROLL) and c.phase == C.ILLEGAL
    assert r.press(1 - side, C.CUBE)
    assert c.phase == C.MOVING and c.outbox[-1][0] != C.K_PLAY


def test_double_take_turns_the_cube():
    _need()
    c, r = _started(length=5)
    r.play_turn()
    roller = c.side
    assert c.may_double and r.press(roller, C.CUBE)
    assert c.phase == C.DOUBLED and c.outbox[-1] == (C.K_DOUBLE, (roller, 2))
    assert not r.press(roller, C.ROLL)  # the doubler cannot roll now
    assert r.press(1 - roller, C.ROLL)  # take
    assert c.cube == 2 and c.owner == 1 - roller and c.phase == C.AWAIT_ROLL and c.side == roller
    assert not c.may_double  # only the owner may redouble
    assert r.press(roller, C.ROLL) and c.phase == C.MOVING


def test_double_drop_gives_the_doubler_the_stake():
    _need()
    c, r = _started(length=5)
    r.play_turn()
    roller = c.side
    r.press(roller, C.CUBE)
    assert r.press(1 - roller, C.CUBE)  # drop
    ks = _kinds(c)
    assert ks[-2:] == [C.K_DROP, C.K_GAME_END]
    assert c.outbox[-1][1] == (roller, 1, 1, C.END_DROP) and c.score[roller] == 1
    assert c.phase == C.GAME_OVER


def test_beaver_in_money_play_only():
    _need()
    c, r = _started(length=0, beaver=True)
    r.play_turn()
    roller = c.side
    r.press(roller, C.CUBE)
    assert r.press(1 - roller, C.CUBE, C.LONG)
    assert c.outbox[-1] == (C.K_BEAVER, (1 - roller, 4)) and c.cube == 4 and c.owner == 1 - roller
    m, r2 = _started(length=5, beaver=True)
    r2.play_turn()
    s = m.side
    r2.press(s, C.CUBE)
    assert not r2.press(1 - s, C.CUBE, C.LONG) and m.phase == C.DOUBLED


def test_resign_cycles_value_and_accept_scores_it():
    _need()
    c, r = _started(length=7)
    side = c.side
    assert r.press(side, C.CUBE, C.LONG) and c.phase == C.RESIGNING and c.resign_value == 1
    assert r.press(side, C.CUBE)  # single -> gammon
    assert c.resign_value == 2
    assert r.press(1 - side, C.ROLL)  # accepted
    ks = _kinds(c)
    assert ks[-3:] == [C.K_RESIGN, C.K_RESIGN_ACCEPT, C.K_GAME_END]
    assert c.outbox[-3][1] == (side, 2) and c.outbox[-1][1] == (1 - side, 2, 2, C.END_RESIGN)


def test_resign_rejected_continues_the_turn():
    _need()
    c, r = _started(length=7)
    side = c.side
    r.press(side, C.CUBE, C.LONG)
    assert r.press(1 - side, C.CUBE)
    assert _kinds(c)[-2:] == [C.K_RESIGN, C.K_RESIGN_REJECT]
    assert c.phase == C.MOVING and c.side == side
    r.play_turn()


def test_crawford_game_has_no_cube_then_post_crawford_does():
    _need()
    c, r = _started(length=2)
    r.play_turn()
    w = c.side
    r.press(w, C.CUBE)
    r.press(1 - w, C.CUBE)  # drop: w leads 1-0, one away from 2
    assert c.phase == C.GAME_OVER and c.score[w] == 1
    assert r.press(0, C.ROLL)
    assert c.outbox[-1] == (C.K_GAME_START, (2, c.score[0], c.score[1], C.GAME_CRAWFORD)) and c.crawford_game
    r.set_start()
    while c.phase == C.OPENING:
        r.press(0, C.ROLL)
    r.play_turn()
    assert not c.may_double and not r.press(c.side, C.CUBE)
    # the leader resigns a single on its turn: 1-1, the next game is post-Crawford
    while c.side != w or c.phase != C.MOVING:
        if c.phase == C.AWAIT_ROLL:
            r.press(c.side, C.ROLL)
        else:
            r.play_turn()
    assert r.press(w, C.CUBE, C.LONG) and r.press(1 - w, C.ROLL)
    assert c.score == [1, 1] and c.phase == C.GAME_OVER
    assert r.press(0, C.ROLL)
    assert c.outbox[-1][1][3] == 0 and not c.crawford_game
    r.set_start()
    while c.phase == C.OPENING:
        r.press(0, C.ROLL)
    r.play_turn()
    assert c.may_double and r.press(c.side, C.CUBE) and c.phase == C.DOUBLED


def test_jacoby_counts_gammons_only_with_the_cube_turned():
    _need()
    c, r = _started(length=0, jacoby=True)
    assert c._points(2) == 1 and c._points(3) == 1
    c.owner, c.cube = 1, 2
    assert c._points(2) == 4
    m, _ = _started(length=5, jacoby=True)  # Jacoby is a money-play rule
    assert m._points(2) == 2


def test_auto_double_on_an_opening_tie():
    _need()
    for seed in range(1, 60):
        c = H.make(length=0, auto_doubles=1)
        c._new_match_id = lambda s=seed: bytes([s]) * 8
        r = H.Robot(c)
        r.set_start()
        r.press(0, C.ROLL)
        r.press(0, C.ROLL)
        if c.phase == C.OPENING:  # a tie: the cube went to 2, the next tie does not double again
            assert c.outbox[-1] == (C.K_AUTO_DOUBLE, (2,)) and c.cube == 2
            while c.phase == C.OPENING:
                r.press(0, C.ROLL)
            assert c.cube == 2 and _kinds(c).count(C.K_AUTO_DOUBLE) == 1
            return
    raise AssertionError("no opening tie in 59 matches")


def test_house_opening_starter_may_reroll_once():
    _need()
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


def test_game_to_the_end_scores_and_match_end_reveals_the_seed():
    _need()
    from bg import dice

    c = H.make(length=1)
    r = H.Robot(c, 5)
    r.set_start()
    r.press(0, C.ROLL)
    r.play_game()
    assert c.phase == C.MATCH_OVER
    ks = _kinds(c)
    assert ks[-3:] == [C.K_GAME_END, C.K_MATCH_END, C.K_SEED_REVEAL]
    w, pts, kind, reason = c.outbox[-3][1]
    assert reason == C.END_BEAROFF and pts == kind and c.score[w] == pts
    ms = c.outbox[0][1]
    throws = []
    for k, f in c.outbox:
        if k == C.K_OPENING:
            throws.append(tuple(f[1]))
        elif k == C.K_ROLL:
            throws.append((f[1], f[2]))
    ok, _, msg = dice.verify_transcript(ms[0], ms[9], c.outbox[-1][1][0], ms[10], throws)
    assert ok, msg


def test_replay_rebuilds_the_state_and_the_next_throw():
    _need()
    c, r = _started(length=5)
    for _ in range(6):
        if c.phase == C.AWAIT_ROLL:
            r.press(c.side, C.ROLL)
        r.play_turn()
    seed = c.board_seed()
    d = H.make()
    d.resume(iter(c.outbox), seed)
    assert (d.pos, d.phase, d.side, d.score) == (c.pos, c.phase, c.side, c.score)
    assert (d.cube, d.throws) == (c.cube, c.throws)
    r.press(c.side, C.ROLL)
    d.board(r.c.sensed, 0)
    d.button(d.side, C.ROLL)
    assert c.outbox[-1] == d.outbox[-1]  # the same throw after the power cut


def test_clock_flag_fall_loses_the_match():
    _need()
    c, r = _started(length=5, clock_s=2, delay_s=1)
    side = c.side
    assert not c.tick(r.now + 500)
    assert c.tick(r.now + 3100)
    k, f = c.outbox[-3]
    assert k == C.K_GAME_END and f[0] == 1 - side and f[3] == C.END_TIME and f[1] == 5
    assert c.phase == C.MATCH_OVER


def test_clock_never_charges_while_waiting_on_the_opponent():
    _need()
    c, r = _started(length=5, clock_s=60)
    side = c.side
    r.play_turn()  # the opponent's clock starts
    t = r.now
    c.tick(t + 5000)
    kept = c.clock.left[side]
    assert kept == 60000 - (t - 0) or kept <= 60000
    assert c.clock.left[1 - side] <= 55000
    # a checker knocked out of place: nobody's decision, nobody charged
    r.pos[(25 if side else 0) + 6 - 1] -= 1
    r.sense()
    before = c.clock.left[1 - side]
    c.tick(r.now + 20000)
    assert c.clock.left[1 - side] == before and c.clock.left[side] == kept


def test_ambiguous_reading_is_resolved_by_the_mover():
    _need()
    # the sensors are colour-blind: from this position 21/16 15/11 and 15/10 21/17 (5-4, each
    # hitting one blot) read exactly alike. The board never guesses: CUBE shows the next
    # candidate, ROLL records the one shown.
    pos = bytearray(
        [
            9,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            2,
            0,
            0,
            1,
            0,
            2,
            1,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            1,
            1,
            0,
            0,
            0,
            0,
            1,
            1,
            0,
            1,
            2,
            0,
            1,
            2,
            3,
            2,
            0,
            0,
            0,
            0,
        ]
    )
    for want in ((21, 16, 15, 11), (15, 10, 21, 17)):
        c, r = _started(length=0)
        c.pos[:] = pos
        c.apply(C.K_ROLL, (0, 5, 4))
        r.pos = bytearray(pos)
        rules.apply_steps(r.pos, 0, want)
        r.sense()
        n = len(c.outbox)
        assert r.press(0, C.ROLL) and len(c.outbox) == n  # nothing recorded yet
        assert c.phase == C.MOVING and len(c.choices) == 2
        r.choose(0)
        k, f = c.outbox[-1]
        assert k == C.K_PLAY and c.pos == r.pos and c.choices is None


def test_a_lifted_checker_shows_its_legal_destinations():
    _need()
    from bg import recognize as R

    c, r = _started()
    side = c.side
    own13 = (25 if side else 0) + 13 - 1
    r.pos[own13] -= 1  # the 13-point checker is in the hand
    r.sense()
    board13 = 13 if side == 0 else 12
    assert c.rec.state == R.LIFTED and c.rec.lifted_point() == board13
    mask = c.rec.dest_points()
    assert mask
    for d in (c.dice[0], c.dice[1]):
        to = 13 - d  # in the mover's numbering
        bp = to if side == 0 else 25 - to
        blocked = B.opp_count(c.turn_start, side, to) >= 2  # e.g. 13/12 onto the opponent's mid-point
        assert (mask >> (bp - 1) & 1) == (0 if blocked else 1), (d, bin(mask))
    assert not r.press(side, C.ROLL)  # a checker in the hand is no play
    assert c.message == "play not finished" and c.phase == C.MOVING
    r.pos[own13] += 1  # put back: no hint
    r.sense()
    assert c.rec.state == R.WAITING and c.rec.dest_points() == 0


def test_an_illegal_reading_is_shown_only_once_it_lasted():
    _need()
    c, r = _started()
    side = c.side
    _illegal_move(c, r)  # at r.now
    t = r.now
    assert c.missing and c.extra  # known at once...
    assert not c.show_errors(t + 100)  # ...but not shown while a hand may be mid-move
    assert c.show_errors(t + 600)
    r.pos = B.start_position()  # corrected within the half second: never shown
    r.sense()
    assert not c.show_errors(r.now + 1000) and c.missing == 0 and c.extra == 0
    _illegal_move(c, r)
    assert not r.press(side, C.ROLL)  # a refused confirm shows it at once
    assert c.show_errors(r.now) and c.message == "illegal play"


def test_a_hit_in_progress_is_not_illegal():
    _need()
    # 2-1: white plays 6/5* (black's blot on its 20-point) and 8/6. Mid-hit, the blot still
    # stands on 5 next to the hitter: part of a legal play with a pending blot, not an error.
    c, r = _started(length=0)
    pos = B.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {20: 1, 18: 4, 16: 3, 11: 5, 2: 2})
    c.pos[:] = pos
    c.apply(C.K_ROLL, (0, 2, 1))
    r.pos = bytearray(pos)
    r.pos[5] -= 1
    r.pos[4] += 1  # white on 5, black's blot not yet on the bar
    r.sense()
    assert c.rec.pending and c.missing == 0 and c.extra == 0 and not c.show_errors(r.now + 5000)
    r.pos[25 + 20 - 1] -= 1
    r.pos[49] += 1  # the blot goes to the bar
    r.sense()
    assert not c.rec.pending
    n = len(c.outbox)
    assert not r.press(0, C.ROLL) and c.message == "play not finished" and len(c.outbox) == n
    rules.apply_steps(r.pos, 0, (8, 6))
    r.sense()
    assert r.press(0, C.ROLL)
    k, f = c.outbox[-1]
    assert k == C.K_PLAY and f[2] == 0 and sorted(f[1]) == [5, 6, 6, 8]
    assert c.pos == r.pos


def test_casual_unfinished_play_may_be_accepted():
    _need()
    c, r = _started(casual=True)
    side = c.side
    b = 25 if side else 0
    d = max(c.dice[0], c.dice[1])
    # only the larger die played, from the 13-point (open at 13 - d for every opening roll)
    if B.opp_count(c.turn_start, side, 13 - d) >= 2:
        return
    r.pos[b + 13 - 1] -= 1
    r.pos[b + 13 - d - 1] += 1
    r.sense()
    assert r.press(side, C.ROLL) and c.phase == C.ILLEGAL  # not a legal play: the opponent judges
    assert r.press(1 - side, C.ROLL)
    k, f = c.outbox[-1]
    assert k == C.K_PLAY and f[1] == (13, 13 - d) and f[2] == C.PLAY_ILLEGAL_ACCEPTED
