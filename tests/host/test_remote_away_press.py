"""A board back from a power cut before its host (``gammon remote play``, ``remote_player``).

Its player pressed ROLL and its host sent the board's share of that throw to the other host;
the power went before the other board's share came back. The journal holds no ask, so the
board comes back on roll with the cube open, and only its host knows the roll was asked for
(JOINT ASKED). The board refuses its player's double and offer to resign until that host's
HELLO ("remote player not connected", nothing journaled), and the host, on its new link,
sends JOINT ASKED before its HELLO, so no CUBE press lands between the two. Two real
controllers behind clients that answer the link's requests as the app does, an in-memory
relay that answers as the club's does (tests/host/remote_helpers.py)."""

import remote_helpers as RH
import test_controller_joint as T
from app import controller as C
from app import opponent as O
from bg import record
from bg.link import decide as D
from bg.link import joint as LJ
from gammon.link import LinkError


def test_a_new_link_asks_the_lost_roll_again_before_its_hello(tmp_path):
    o = RH.Opened(tmp_path)  # 3 points: the cube is open
    (ba, bb), (pa, pb) = o.boards, o.players
    sa, sb = ba.board, bb.board
    side = sa.c.side
    here, there = (sa, sb) if side == 0 else (sb, sa)
    if here.r.play_turn():
        o.run()
        T._follow(there)  # the other player moves the checkers their LEDs show
    o.run()
    nxt = 1 - side  # on roll now, at its own board
    mb, mp, theirs = (ba, pa, sb) if nxt == 0 else (bb, pb, sa)
    mine = mb.board
    k = mine.c.throws
    assert mine.c.phase == C.AWAIT_ROLL and mine.c.may_double
    assert mine.r.press(nxt, C.ROLL)
    # only this board's host runs: its share goes to the relay, the other board's does not
    # come back (the other host away from the relay)
    mp.run(idle=0.4)
    assert [m["k"] for m in o.relay.msgs[nxt] if m["kind"] == "share"][-1] == k
    # the power goes on this board: it comes back from its journal, no host yet
    n = len(mine.j)
    c2 = T._board(nxt, 3)
    c2.opp = O.Opponent(T.H.first_play)
    c2.resume(mine.j, mine.c.board_seed())
    mine.c = mine.r.c = c2
    mine.r.sense()
    assert c2.phase == C.AWAIT_ROLL and c2.may_double  # what the journal alone gives
    assert not mine.r.press(nxt, C.CUBE) and c2.message == "remote player not connected"
    assert not mine.r.press(nxt, C.CUBE, C.LONG) and c2.phase == C.AWAIT_ROLL
    assert len(mine.j) == n
    # its host's link died with it: on the new one, JOINT ASKED before its HELLO
    calls = []
    decide, joint = mb.decide, mb.joint

    def logged_decide(code, body=b""):
        calls.append(("decide", code))
        return decide(code, body)

    def logged_joint(kind, body=b""):
        calls.append(("joint", kind))
        return joint(kind, body)

    mb.decide, mb.joint = logged_decide, logged_joint
    mp._dropped(LinkError("the board restarted"))
    assert ("joint", LJ.J_ASKED) in calls and ("decide", D.DEC_HELLO) in calls, calls
    assert calls.index(("joint", LJ.J_ASKED)) < calls.index(("decide", D.DEC_HELLO)), calls
    # asked again: no double any more, and the roll comes with the other board's share
    assert not c2.may_double and not mine.r.press(nxt, C.CUBE)
    o.run()
    assert c2.phase == C.MOVING and c2.throws == theirs.c.throws == k + 1
    assert (c2.dice[0], c2.dice[1]) == (theirs.c.dice[0], theirs.c.dice[1])
    kinds = [kk for kk, f in mine.j]
    assert record.DOUBLE not in kinds and record.RESIGN not in kinds
    assert pa.brain.referee.refused == [] and pb.brain.referee.refused == []
