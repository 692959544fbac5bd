"""A message of the other board that the referee refuses shows in ``gammon watch``: the
player of ``gammon remote play`` (``remote_player``, two real controllers behind the link
fakes of tests/host/test_remote_play_restart.py) refuses a cheating remote's illegal play and
its replayed number's other body, posts them to the board's notes (``gammon.remote_notes``),
and ``watch_loop`` on the same board prints them under the board as they arrive. The notes
file cannot be made to draw on the terminal, and stays bounded."""

import io

import test_remote_play_restart as RP
import test_remote_restart as RS
from app import controller as C
from bg import record
from gammon.commands import library as cmds


class WatchClient:
    """``gammon watch``'s link to board ``board``: its copy of the live match, then one idle
    second (``tick``) after ``meanwhile()`` ran."""

    def __init__(self, board, meanwhile):
        self.board = board
        self.board_id = board.board_id
        self.meanwhile = meanwhile

    def list_games(self):
        return [{"id": "00" * 8, "finished": False}]

    def fetch_game(self, gid, resume=True):
        return b"".join(record.encode(k, f) for k, f in self.board.board.j)

    def watch(self, tick=None):
        self.meanwhile()
        if tick is not None:
            tick()
        return
        yield


def test_a_cheating_remote_play_is_shown_in_watch(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path))
    relay = RS.Relay()
    ba, bb = RP.Board(0), RP.Board(1)
    ba.board_id, bb.board_id = bytes.fromhex("a0a1a2a3a4a5a6a7"), bytes.fromhex("b0b1b2b3b4b5b6b7")
    pa, out_a = RP._player(ba, relay, 0, tmp_path / "r-0.json")
    pb, _ = RP._player(bb, relay, 1, tmp_path / "r-1.json")
    RP._run((pa, pb))
    sa, sb = ba.board, bb.board
    for _ in range(12):  # the opening (ties throw again)
        if sa.c.phase != C.OPENING:
            break
        for s in (sa, sb):
            s.r.press(s.c.joint_side, C.ROLL)
        RP._run((pa, pb))
    assert sa.c.phase == sb.c.phase == C.MOVING
    side = sa.c.side
    # the board whose player is NOT on roll is the one that judges the remote's messages
    judge, judge_board, cheat_seat = (pb, bb, 0) if side == 0 else (pa, ba, 1)
    before = list(judge_board.board.j)

    def cheat():
        # the remote side sends a play of its 6-point back to its 7 (never legal) for this turn
        turn = judge.follow.throws
        relay.msgs[cheat_seat].append({"kind": "play", "turn": turn, "steps": [[6, 7]]})
        RP._run((pa, pb))

    out = io.StringIO()
    cmds.watch_loop(WatchClient(judge_board, cheat), out=out, clear=False)
    shown = [x for x in out.getvalue().splitlines() if x.startswith("refused from the other board: ")]
    assert judge.brain.referee.refused, "the referee took an illegal play"
    assert len(shown) == 1 and "message %d:" % len(relay.msgs[cheat_seat]) in shown[0], out.getvalue()
    assert list(judge_board.board.j) == before  # nothing of it reached the board's journal
