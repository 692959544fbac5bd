"""The controller through whole games and matches: the Crawford rule, Jacoby, a game played
to the end with its dice verified against the revealed seed, replay after a power cut, the
match clock.

On MicroPython these also run through tests/host/test_controller_mpy.py: on the pip 64-bit unix
port precompiled at 192k, on the board model (32-bit, firmware frozen) at the board's 64k.
"""

import ctl_helpers as H
from app import controller as C


def test_crawford_game_has_no_cube_then_post_crawford_does():
    c, r = H.started(length=2)
    r.play_turn()
    w = c.side
    r.press(w, C.CUBE)
    r.press(1 - w, C.CUBE)  # drop: w leads 1-0, one away from 2
    assert c.phase == C.GAME_OVER and c.mt.score[w] == 1
    assert r.press(0, C.ROLL)
    sc = c.mt.score
    assert c.outbox[-1] == (C.K_GAME_START, (2, sc[0], sc[1], C.GAME_CRAWFORD)) and c.mt.crawford
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
    assert c.mt.score == [1, 1] and c.phase == C.GAME_OVER
    assert r.press(0, C.ROLL)
    assert c.outbox[-1][1][3] == 0 and not c.mt.crawford
    r.set_start()
    while c.phase == C.OPENING:
        r.press(0, C.ROLL)
    r.play_turn()
    assert c.may_double and r.press(c.side, C.CUBE) and c.phase == C.DOUBLED


def test_jacoby_counts_gammons_only_with_the_cube_turned():
    c, r = H.started(length=0, jacoby=True)
    assert c.mt.game_value(2) == 1 and c.mt.game_value(3) == 1
    r.play_turn()
    d = c.side
    assert r.press(d, C.CUBE) and r.press(1 - d, C.ROLL)  # doubled and taken
    assert c.mt.owner == 1 - d and c.mt.game_value(2) == 4
    m, _ = H.started(length=5, jacoby=True)  # Jacoby is a money-play rule
    assert m.mt.game_value(2) == 2


class _Tape:
    """What this test keeps of a game's records as the robot drains them: every kind, every
    throw (2 bytes each), the match start and the last three records."""

    def __init__(self):
        self.kinds = bytearray()
        self.throws = bytearray()
        self.start = None
        self.last = []
        self.parts = []  # SEED_PART (source, part)

    def __call__(self, k, f):
        self.kinds.append(k)
        if k == C.K_MATCH_START:
            self.start = f
        elif k == C.K_SEED_PART:
            self.parts.append((f[0], f[2]))
        elif k == C.K_OPENING:
            self.throws.extend(bytes(f[1]))
        elif k == C.K_ROLL:
            self.throws.extend(bytes((f[1], f[2])))
        self.last.append((k, f))
        if len(self.last) > 3:
            self.last.pop(0)

    def rolls(self):
        t = self.throws
        return (t[i : i + 2] for i in range(0, len(t), 2))


def test_game_to_the_end_scores_and_match_end_reveals_the_seed():
    from bg import dice

    c = H.make(length=1)
    tape = _Tape()
    r = H.Robot(c, 5, drain=tape)
    r.set_start()
    r.press(0, C.ROLL)
    r.play_game()
    assert c.phase == C.MATCH_OVER and not c.outbox
    assert list(tape.kinds[-3:]) == [C.K_GAME_END, C.K_MATCH_END, C.K_SEED_REVEAL]
    assert tape.kinds[0] == C.K_MATCH_START and len(tape.kinds) > 50
    w, pts, kind, reason = tape.last[0][1]
    assert reason == C.END_BEAROFF and pts == kind and c.mt.score[w] == pts
    ms = tape.start
    assert len(tape.throws) > 40
    # the opening press's timing is the one contribution; MATCH_START carries no seed
    assert [s for s, _ in tape.parts] == [C.SRC_BUTTONS] and ms[10] == b""
    m = dice.SeedMixer()
    for s, p in tape.parts:
        m.add(s, p)
    ps = m.digest()
    ok, _, msg = dice.verify_transcript(ms[0], ms[9], tape.last[-1][1][0], ps, tape.rolls())
    assert ok, msg
    # the check can fail: one throw changed and it names it
    tape.throws[7] = tape.throws[7] % 6 + 1
    ok, idx, msg = dice.verify_transcript(ms[0], ms[9], tape.last[-1][1][0], ps, tape.rolls())
    assert not ok and idx == 3, msg


def test_replay_rebuilds_the_state_and_the_next_throw():
    c, r = H.started(length=5)
    for _ in range(6):
        if c.phase == C.AWAIT_ROLL:
            r.press(c.side, C.ROLL)
        r.play_turn()
    seed = c.board_seed()
    d = H.make()
    d.resume(iter(c.outbox), seed)
    assert (d.mt.pos, d.phase, d.side, d.mt.score) == (c.mt.pos, c.phase, c.side, c.mt.score)
    assert (d.mt.cube, d.throws) == (c.mt.cube, c.throws)
    r.press(c.side, C.ROLL)
    d.board(r.c.sensed, 0)
    d.button(d.side, C.ROLL)
    assert c.outbox[-1] == d.outbox[-1]  # the same throw after the power cut


def test_clock_flag_fall_loses_the_match():
    c, r = H.started(length=5, clock_s=2, delay_s=1)
    side = c.side
    assert not c.tick(r.now + 500)
    assert c.tick(r.now + 3100)
    k, f = c.outbox[-3]
    assert k == C.K_GAME_END and f[0] == 1 - side and f[3] == C.END_TIME and f[1] == 5
    assert c.phase == C.MATCH_OVER


def test_clock_never_charges_while_waiting_on_the_opponent():
    c, r = H.started(length=5, clock_s=60)
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


def test_power_cut_between_a_drop_and_its_game_end_finishes_the_game():
    # the app journals one record at a time: the power may go after DROP, before GAME_END
    c, r = H.started(length=3)
    r.play_turn()
    d = c.side
    assert r.press(d, C.CUBE) and r.press(1 - d, C.CUBE)  # doubled, dropped
    cut = H.kinds(c).index(C.K_DROP) + 1
    e = H.make()
    e.resume(iter(c.outbox[:cut]), c.board_seed())
    assert e.outbox == c.outbox[cut:]  # the GAME_END the live board wrote
    assert e.phase == C.GAME_OVER and e.mt.score == c.mt.score and c.mt.score[d] == 1


def test_power_cut_between_a_resignation_and_its_answer_asks_the_opponent_again():
    c, r = H.started(length=3)
    s = c.side
    assert r.press(s, C.CUBE, C.LONG) and r.press(s, C.CUBE)  # a gammon offered
    assert r.press(1 - s, C.ROLL)  # accepted
    cut = H.kinds(c).index(C.K_RESIGN) + 1
    e = H.make()
    e.resume(iter(c.outbox[:cut]), c.board_seed())
    assert e.phase == C.RESIGNING and e.side == s and e.resign_value == 2
    assert not e.button(s, C.CUBE) and e.resign_value == 2  # the journaled offer stands
    assert not e.button(s, C.CUBE, C.LONG) and e.phase == C.RESIGNING  # and is not withdrawn
    assert e.button(1 - s, C.ROLL)
    assert e.outbox == c.outbox[cut:] and e.mt.score == c.mt.score  # answered as the live board did


def test_a_match_lets_its_dice_go_once_revealed():
    """After the seed's reveal nothing more comes from the match's dice stream: the controller
    lets its ``Fairness`` go, and its module (docs/memory.md: 1.9 kB of the board's heap), as a
    match resumed over never had one; the next match draws a new one."""
    import sys

    c, r = H.started(length=5, clock_s=2, delay_s=1)
    assert c.fair is not None and c.board_seed() is not None
    assert c.tick(r.now + 3100) and c.phase == C.MATCH_OVER  # a flag fall ends the match
    k, f = c.outbox[-1]
    assert k == C.K_SEED_REVEAL and len(f[0]) == 32
    assert c.fair is None and c.board_seed() is None and "bg.dice.fairness" not in sys.modules
    r.press(0, C.ROLL)  # match over -> idle
    assert r.press(0, C.ROLL) and c.phase == C.OPENING and c.fair is not None  # a new match's
