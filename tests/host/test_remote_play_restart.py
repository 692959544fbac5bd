"""``gammon remote play``'s player (``remote_player``, the code ``gammon remote play`` runs)
with its seat on disk (``gammon.remote.SeatFile``), killed mid-match and started again: the
new process reads the seat (its numbers, the last remote message taken, the joint dice with
its own part) and the board's own copy of the match, and goes on -- the same throws on both
boards, one part per host, the other host's messages neither replayed nor refused, and
``gammon remote verify`` passes on both journals. Two real controllers (each board's
computer is the other board's player, decided by its host) behind clients that answer the
link's requests as the app does, an in-memory relay that answers as the club's does
(tests/host/test_remote_restart.py)."""

import io

import test_controller_joint as T
import test_remote_board_dice as B
import test_remote_resign as RR
import test_remote_restart as RS
from app import controller as C
from bg import record
from bg.link import decide as D
from gammon import remote
from gammon.commands import remote as RC


class Board(B.Client):
    """A board's link as ``remote_player`` uses it: HELLO and DECIDE, JOINT, PLAYER_SEED,
    the live match's copy and its records as events (``wait_events``: what was journaled
    since the last call, encoded as the board publishes them)."""

    def __init__(self, side):
        B.Client.__init__(self, side, True)
        self.seen = len(self.board.j)

    def decide(self, code, body=b""):
        if code == D.DEC_HELLO:
            err = self.board.c.hello(body[0], bytes(body[1:]).decode(), self.board.r.now)
            if err is not None:
                raise AssertionError(err)
            return
        RR._decide(self.board, code, body)

    def list_games(self):
        return [{"id": "00" * 8, "size": 0, "state": 0, "finished": False}]

    def fetch_game(self, gid, progress=None, resume=True):
        self.seen = len(self.board.j)
        return b"".join(record.encode(k, f) for k, f in self.board.j)

    def watch_on(self, on=True):
        pass

    def wait_events(self, timeout):
        j = self.board.j
        new = [record.encode(k, f) for k, f in j[self.seen :]]
        self.seen = len(j)
        return new

    def close(self):
        pass


def _player(board, relay, side, path):
    out = io.StringIO()
    p = RC.remote_player(lambda: board, relay.seat(side), 1 - side, out, seat=remote.SeatFile(path))
    p.sleep = lambda s: None
    return p, out


def _run(players):
    for _ in range(8):
        for p in players:
            p.run(idle=0.4)


def test_remote_play_killed_mid_match_goes_on_from_its_seat_and_the_board(tmp_path):
    relay = RS.Relay()
    ba, bb = Board(0), Board(1)
    pa, _ = _player(ba, relay, 0, tmp_path / "r-0.json")
    pb, _ = _player(bb, relay, 1, tmp_path / "r-1.json")
    _run((pa, pb))
    sa, sb = ba.board, bb.board
    for _ in range(12):  # the opening (ties throw again)
        if sa.c.phase != C.OPENING:
            break
        for s in (sa, sb):
            s.r.press(s.c.joint_side, C.ROLL)
        _run((pa, pb))
    assert sa.c.phase == sb.c.phase == C.MOVING
    killed = False
    for turn in range(5):
        side = sa.c.side
        here, there = (sa, sb) if side == 0 else (sb, sa)
        steps = here.r.play_turn()
        _run((pa, pb))
        if steps:  # (no legal play: the board passes for the remote side at once)
            assert there.c.opp.plan is not None, turn  # the remote play on its LEDs
            T._follow(there)
            _run((pa, pb))
        assert there.c.last_play == here.c.last_play
        mine = sb if side == 0 else sa  # the board whose player is on roll now
        assert mine.r.press(1 - side, C.ROLL)
        if not killed and turn >= 1:
            # board 0's host dies between its board's commitment and this throw's share
            # (its board asked for the throw or is told the other side rolled) and a new
            # process starts from the seat file and the board
            pa, _ = _player(ba, relay, 0, tmp_path / "r-0.json")
            killed = True
        _run((pa, pb))
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
    _run((pa, pb))
    assert there.c.phase == C.RESIGNING and there.r.press(1 - side, C.ROLL)
    _run((pa, pb))
    assert sa.c.phase == sb.c.phase == C.MATCH_OVER
    da = b"".join(record.encode(k, f) for k, f in sa.j)
    db = b"".join(record.encode(k, f) for k, f in sb.j)
    ok, msg = RC.verify(RC.from_journal(da, "a"), RC.from_journal(db, "b"))
    assert ok, msg
