"""``gammon remote play``'s player (``remote_player``, the code ``gammon remote play`` runs)
with its seat on disk (``gammon.remote.SeatFile``), killed mid-match and started again: the
new process reads the seat (its numbers, the last remote message taken, the joint dice with
its own part) and the board's own copy of the match, and goes on -- the same throws on both
boards, one part per host, the other host's messages neither replayed nor refused, and
``gammon remote verify`` passes on both journals. Two real controllers (each board's
computer is the other board's player, decided by its host) behind clients that answer the
link's requests as the app does, an in-memory relay that answers as the club's does
(tests/host/remote_helpers.py)."""

import remote_helpers as RH
import test_controller_joint as T
from app import controller as C
from bg import record
from gammon.commands import remote as RC


def test_remote_play_killed_mid_match_goes_on_from_its_seat_and_the_board(tmp_path):
    o = RH.Opened(tmp_path)  # both hosts through the opening
    relay, (ba, bb), (pa, pb) = o.relay, o.boards, o.players
    sa, sb = ba.board, bb.board
    assert sa.c.phase == sb.c.phase == C.MOVING
    killed = False
    for turn in range(5):
        side = sa.c.side
        here, there = (sa, sb) if side == 0 else (sb, sa)
        steps = here.r.play_turn()
        RH.run((pa, pb))
        if steps:  # (no legal play: the board passes for the remote side at once)
            assert there.c.opp.plan is not None, turn  # the remote play on its LEDs
            T._follow(there)
            RH.run((pa, pb))
        assert there.c.last_play == here.c.last_play
        mine = sb if side == 0 else sa  # the board whose player is on roll now
        assert mine.r.press(1 - side, C.ROLL)
        if not killed and turn >= 1:
            # board 0's host dies between its board's commitment and this throw's share
            # (its board asked for the throw or is told the other side rolled) and a new
            # process starts from the seat file and the board
            pa, _ = RH.player(ba, relay, 0, o.paths[0])
            killed = True
        RH.run((pa, pb))
        assert sa.c.throws == sb.c.throws and (sa.c.dice[0], sa.c.dice[1]) == (sb.c.dice[0], sb.c.dice[1])
    assert killed and T._throws(sa.j) == T._throws(sb.j)
    assert pa.brain.referee.refused == [] and pb.brain.referee.refused == []
    assert [m["kind"] for m in relay.msgs[0]].count("part") == 1
    parts = [[f[2] for k, f in s.j if k == record.SEED_PART] for s in (sa, sb)]
    assert parts[0] == parts[1] and len(parts[0]) == 2
    # the match ends by a resignation across the link, and both journals prove the dice
    side = sa.c.side
    here, there = (sa, sb) if side == 0 else (sb, sa)
    assert here.r.press(side, C.CUBE, C.LONG) and here.r.press(side, C.CUBE) and here.r.press(side, C.CUBE)
    assert here.r.press(side, C.ROLL)  # a backgammon, sent
    RH.run((pa, pb))
    assert there.c.phase == C.RESIGNING and there.r.press(1 - side, C.ROLL)
    RH.run((pa, pb))
    assert sa.c.phase == sb.c.phase == C.MATCH_OVER
    da = b"".join(record.encode(k, f) for k, f in sa.j)
    db = b"".join(record.encode(k, f) for k, f in sb.j)
    ok, msg = RC.verify(RC.from_journal(da, "a"), RC.from_journal(db, "b"))
    assert ok, msg
