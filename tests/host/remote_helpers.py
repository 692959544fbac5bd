"""Set-up shared by the tests of ``gammon remote play`` with two real controllers
(tests/host/test_remote_play_restart.py, test_remote_refused_watch.py,
tests/club/test_club_remote_seat_last.py): each board behind a client that answers the link's
requests as the app does, its host's ``remote_player`` (the code ``gammon remote play`` runs)
with its seat on disk, an in-memory relay that answers as the club's does
(tests/host/test_remote_restart.py); what two boards of a match played end to end must agree
on; and the lines ``gammon remote verify`` gives for signed parts
(``tools.sim.remote_match.signature_lines``: tests/host/test_remote_part_proofs.py,
test_remote_transcript_proofs.py)."""

import io

import test_controller_joint as T
import test_remote_board_dice as B
import test_remote_resign as RR
import test_remote_restart as RS
from app import controller as C
from bg import record
from bg.link import decide as D
from gammon import remote
from gammon.club.push import ClubError
from gammon.commands import remote as RC

from tools.sim.remote_match import signature_lines  # noqa: F401 - the proofs tests' lines


class Board(B.Client):
    """A board's link as ``remote_player`` uses it: HELLO and DECIDE, JOINT, PLAYER_SEED,
    the live match's copy and its records as events (``wait_events``: what was journaled
    since the last call, encoded as the board publishes them)."""

    def __init__(self, side, length=3):
        self.board = T.Side(side, True, length)  # (its computer: the other board's player)
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


class RelaySeat:
    """The relay's seat as ``remote_player`` uses it: what this seat sent (``got``), nothing
    from the other; no answer (ClubError) on the tries ``down(n)`` says (n from 1)."""

    def __init__(self, down=lambda n: False):
        self.down = down
        self.got = []
        self.tries = 0

    def send(self, seq, body):
        self.tries += 1
        if self.down(self.tries):
            raise ClubError("cannot reach the club")
        assert seq == len(self.got) + 1, (seq, len(self.got))
        self.got.append(body)
        return seq

    def recv(self, after, wait=0):
        return []


def player(board, relay, side, path):
    """``(player, its output)``: ``remote_player`` for ``board`` playing ``side``, its seat
    in file ``path``."""
    out = io.StringIO()
    p = RC.remote_player(lambda: board, relay.seat(side), 1 - side, out, seat=remote.SeatFile(path))
    p.sleep = lambda s: None
    return p, out


def run(players):
    for _ in range(8):
        for p in players:
            p.run(idle=0.4)


class Opened:
    """Two boards and their hosts through the relay, past the opening (ties throw again):
    ``relay``, ``boards`` (``Board`` per side), ``players``, ``outs`` (their output),
    ``paths`` (their seat files, in ``tmp_path``); a match of ``length`` points."""

    def __init__(self, tmp_path, board_ids=None, length=3):
        self.relay = RS.Relay()
        self.boards = (Board(0, length), Board(1, length))
        if board_ids is not None:
            for b, bid in zip(self.boards, board_ids):
                b.board_id = bid
        self.paths = (tmp_path / "r-0.json", tmp_path / "r-1.json")
        made = [player(b, self.relay, i, self.paths[i]) for i, b in enumerate(self.boards)]
        self.players = tuple(p for p, _ in made)
        self.outs = tuple(out for _, out in made)
        self.run()
        sa, sb = (b.board for b in self.boards)
        for _ in range(12):
            if sa.c.phase != C.OPENING:
                break
            for s in (sa, sb):
                s.r.press(s.c.joint_side, C.ROLL)
            self.run()

    def run(self):
        run(self.players)


def boards_agree(boards, datas, tmp_path):
    """What the two boards of a match played end to end (``tools.sim.remote_match``: the
    two-simulator and browser tests) must agree on, from ``datas``, their journals: the same
    match (its hash, returned), ``gammon remote verify`` passes on the two journals and each
    proves both hosts' signed parts (``remote_match.check_signed``), neither host's referee
    refused a move."""
    from gammon.cli import main

    from tools.sim import remote_match

    hashes = [remote_match.game_hash(d) for d in datas]
    assert hashes[0] == hashes[1]
    paths = []
    for i in (0, 1):
        p = tmp_path / ("board%d.m" % i)
        p.write_bytes(datas[i])
        paths.append(str(p))
    assert main(["remote", "verify", paths[0], paths[1]]) == 0
    remote_match.check_signed(boards, paths)
    for b in boards:
        assert not b.host.brain.referee.refused, b.host.brain.referee.refused
    return hashes[0]
