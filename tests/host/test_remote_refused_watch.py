"""A message of the other board that the referee refuses shows in ``gammon watch``: the
player of ``gammon remote play`` (``remote_player``, two real controllers behind the link
fakes of tests/host/remote_helpers.py) refuses a cheating remote's illegal play and
its replayed number's other body, posts them to the board's notes (``gammon.remote_notes``),
and ``watch_loop`` on the same board prints them under the board as they arrive. The notes
file cannot be made to draw on the terminal, and stays bounded."""

import io

import remote_helpers as RH
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
    o = RH.Opened(tmp_path, (bytes.fromhex("a0a1a2a3a4a5a6a7"), bytes.fromhex("b0b1b2b3b4b5b6b7")))
    relay, (ba, bb), (pa, pb) = o.relay, o.boards, o.players
    sa, sb = ba.board, bb.board
    assert sa.c.phase == sb.c.phase == C.MOVING
    side = sa.c.side
    # the board whose player is NOT on roll is the one that judges the remote's messages
    judge, judge_board, cheat_seat = (pb, bb, 0) if side == 0 else (pa, ba, 1)
    before = list(judge_board.board.j)

    def cheat():
        # the remote side sends a play of its 6-point back to its 7 (never legal) for this turn
        turn = judge.follow.throws
        relay.msgs[cheat_seat].append({"kind": "play", "turn": turn, "steps": [[6, 7]]})
        o.run()

    out = io.StringIO()
    cmds.watch_loop(WatchClient(judge_board, cheat), out=out, clear=False)
    shown = [x for x in out.getvalue().splitlines() if x.startswith("refused from the other board: ")]
    assert judge.brain.referee.refused, "the referee took an illegal play"
    assert len(shown) == 1 and "message %d:" % len(relay.msgs[cheat_seat]) in shown[0], out.getvalue()
    assert list(judge_board.board.j) == before  # nothing of it reached the board's journal
