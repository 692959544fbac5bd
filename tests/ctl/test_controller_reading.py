"""The controller reading the board through ``bg.recognize``: ambiguous readings resolved
by the mover, a lifted checker's destinations, an illegal reading shown only once it
lasted, a hit in progress, a casual unfinished play.

On MicroPython these also run through tests/host/test_controller_mpy.py: on the pip 64-bit unix
port precompiled at 192k, on the board model (32-bit, firmware frozen) at the board's 64k.
"""

import ctl_helpers as H
from app import controller as C
from app import rules
from bg import board as B


def test_ambiguous_reading_is_resolved_by_the_mover():
    # the sensors are colour-blind: from this position 21/16 15/11 and 15/10 21/17 (5-4, each
    # hitting one blot) read exactly alike. The board never guesses: CUBE shows the next
    # candidate, ROLL records the one shown.
    pos = B.from_points(
        {1: 9, 15: 2, 18: 1, 20: 2, 21: 1},
        {8: 1, 9: 1, 14: 1, 15: 1, 17: 1, 18: 2, 20: 1, 21: 2, 22: 3, 23: 2},
    )
    for want in ((21, 16, 15, 11), (15, 10, 21, 17)):
        c, r = H.started(length=0)
        H.roll_at(c, pos, 0, 5, 4)
        r.pos = bytearray(pos)
        rules.apply_steps(r.pos, 0, want)
        r.sense()
        n = len(c.outbox)
        assert r.press(0, C.ROLL) and len(c.outbox) == n  # nothing recorded yet
        assert c.phase == C.MOVING and len(c.choices) == 2
        r.choose(0)
        k, f = c.outbox[-1]
        assert k == C.K_PLAY and c.mt.pos == r.pos and c.choices is None


def test_a_lifted_checker_shows_its_legal_destinations():
    from bg import recognize as R

    c, r = H.started()
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
    c, r = H.started()
    side = c.side
    H.illegal_move(c, r)  # at r.now
    t = r.now
    assert c.missing and c.extra  # known at once...
    assert not c.show_errors(t + 100)  # ...but not shown while a hand may be mid-move
    assert c.show_errors(t + 600)
    r.pos = B.start_position()  # corrected within the half second: never shown
    r.sense()
    assert not c.show_errors(r.now + 1000) and c.missing == 0 and c.extra == 0
    H.illegal_move(c, r)
    assert not r.press(side, C.ROLL)  # a refused confirm shows it at once
    assert c.show_errors(r.now) and c.message == "illegal play"


def test_a_hit_in_progress_is_not_illegal():
    # 2-1: white plays 6/5* (black's blot on its 20-point) and 8/6. Mid-hit, the blot still
    # stands on 5 next to the hitter: part of a legal play with a pending blot, not an error.
    c, r = H.started(length=0)
    pos = B.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {20: 1, 18: 4, 16: 3, 11: 5, 2: 2})
    H.roll_at(c, pos, 0, 2, 1)
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
    assert c.mt.pos == r.pos


def test_casual_unfinished_play_may_be_accepted():
    c, r = H.started(casual=True)
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
