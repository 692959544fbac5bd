"""``gammon watch`` in a match with another board (``gammon.watch_view``): the side played at
the other board is named "(remote)" in every line, and the screen says whom the board waits
for ("waiting for ... (remote) to play 31", to take, to answer a resignation) or what the
remote player offers. The journals are two real controllers' in a match their hosts carry
through a relay (tests/host/test_remote_resign.py), fed as ``gammon watch`` feeds them."""

import test_controller_joint as T
import test_remote_board_dice as B
import test_remote_resign as RR
from app import controller as C
from bg import record
from gammon import model
from gammon.watch_view import event_lines, screen, waiting_line


def _watch(j):
    """Lines and the replay of a board's journal ``j``, as ``gammon watch`` folds it."""
    r = model._Replay()
    lines = []
    for k, f in j:
        if k == record.MATCH_START:
            r = model._Replay()
        before = len(r.g.actions) if r.g is not None and k != record.GAME_START else 0
        r.feed(k, f)
        lines += event_lines(r, k, f, before)
    return lines, r


def test_watch_names_the_remote_side_and_says_whom_the_board_waits_for():
    a, b = RR._two()
    side, here, there = RR._boards(a, b)
    lines, r = _watch(there.j)
    assert any("a match with another board" in x and "(remote)" in x for x in lines), lines
    d = there.c.dice
    w = "waiting for %s (remote) to play %d%d" % (r.m.names[side], d[0], d[1])
    assert waiting_line(r) == w and w in screen(r)
    _, r = _watch(here.j)
    assert waiting_line(r) == ""  # here, its own player is to move
    # the play reaches the other board; its player moves the checkers
    here.r.play_turn()
    B._settle((a, b))
    T._follow(there)
    B._settle((a, b))
    lines, r = _watch(there.j)
    plays = [x for x in lines if " plays " in x and "(remote)" in x]
    assert plays and plays[-1].startswith(r.m.names[side] + " (remote) plays "), lines
    # the next player (on ``there``) resigns a gammon: on ``here`` the offer is the remote's
    nxt = 1 - side
    assert there.c.phase == C.AWAIT_ROLL and there.c.side == nxt
    _, r = _watch(here.j)
    assert waiting_line(r) == "waiting for %s (remote) to roll or double" % r.m.names[nxt]
    assert there.r.press(nxt, C.CUBE, C.LONG) and there.r.press(nxt, C.CUBE) and there.r.press(nxt, C.ROLL)
    B._settle((a, b))
    lines, r = _watch(here.j)
    assert waiting_line(r) == "%s (remote) offers to resign: ROLL accepts, CUBE rejects" % r.m.names[nxt]
    lines, r = _watch(there.j)
    assert waiting_line(r) == "waiting for %s (remote) to accept or reject the resignation" % r.m.names[side]
    assert here.r.press(side, C.CUBE)  # rejected
    B._settle((a, b))
    lines, r = _watch(there.j)
    assert any("(remote)" in x and "reject" in x.lower() for x in lines), lines
