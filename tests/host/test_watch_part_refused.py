"""A part the board refuses leaves no proof behind. ``gammon watch`` that sees a match between
its commitment and its first throw sends its signed part and keeps the proof first (a host cut
mid-send still has it). When the board answers that it takes no part -- a match with another
board between its MATCH_START and JOINT_START (its parts name the other board's commitment and
come from the two players' hosts), or a window closed by the opening meanwhile -- no journal
will ever hold that part, and a proof kept for it made ``gammon verify`` on that host fail: "the
part of key ... is not in the journal: the board dropped it". The boards are two real
controllers and their hosts (tests/host/test_remote_board_dice.py)."""

import io

import pytest
import test_controller_joint as T
import test_remote_board_dice as RB
from bg import record
from gammon.cli import main
from gammon.commands.library import watch_loop
from gammon.library import Library
from gammon.link import LinkError

pytestmark = pytest.mark.usefixtures("home")


class _Watched(RB.Client):
    """The board as ``gammon watch`` reads it: its journal's bytes, its PLAYER_SEED answer."""

    def list_games(self):
        return [{"id": "00", "finished": False}]

    def fetch_game(self, gid, resume=False, progress=None):
        return b"".join(record.encode(k, f) for k, f in self.board.j)

    def watch(self):
        return iter(())


def test_watch_between_match_start_and_joint_start_keeps_no_proof_and_verify_holds(tmp_path, capsys):
    relay = RB.Relay()
    a, b = RB.Host(relay, 0, T.P0, computer=True), RB.Host(relay, 1, T.P1, computer=True)
    for h in (a, b):
        # ``gammon remote play``'s hello (bit 7: a player at another board), as it says it
        # before and while the match runs
        assert h.client.board.c.hello((1 - h.dice.side) | 0x80, "remote", h.client.board.r.now) is None
    a.client.__class__ = _Watched
    kinds = [k for k, f in a.client.board.j]
    assert record.MATCH_START in kinds and record.JOINT_START not in kinds  # the race's moment
    mid = bytes([f for k, f in a.client.board.j if k == record.MATCH_START][0][0])
    with Library.open() as lib:
        watch_loop(a.client, out=io.StringIO(), clear=False, lib=lib)
        # the board refused the watching host's part: nothing of it journaled, nothing kept
        assert [k for k, f in a.client.board.j if k == record.SEED_PART] == []
        assert lib.part_proofs(mid) == []
    RB._settle((a, b))  # the commitments, then both players' hosts' parts
    parts = [f for k, f in a.client.board.j if k == record.SEED_PART]
    assert len(parts) == 2 and a.ref.refused == [] and b.ref.refused == []
    path = tmp_path / "board0.bin"
    path.write_bytes(a.client.fetch_game("00"))
    capsys.readouterr()
    status = main(["verify", str(path)])
    out = capsys.readouterr().out
    assert "dropped" not in out and "FAIL" not in out, out
    assert status == 3 and "NOT YET" in out, out  # (the seed comes at the match's end)


class _Refusing:
    """A one-board match whose opening came between watch's look and its part."""

    def __init__(self, data):
        self.data = data

    def list_games(self):
        return [{"id": "00", "finished": False}]

    def fetch_game(self, gid, resume=False, progress=None):
        return self.data

    def watch(self):
        return iter(())

    def send_player_seed(self, commitment, seed, proof=b""):
        raise LinkError("wrong state: no match waiting for a seed", 13)


class _Silent(_Refusing):
    """The part went out and no answer came: the board may hold it."""

    def send_player_seed(self, commitment, seed, proof=b""):
        raise LinkError("no answer from the board", None)


def test_a_part_refused_keeps_no_proof_and_one_unanswered_keeps_it():
    mid, com = bytes(range(8)), bytes(range(32, 64))
    data = record.encode(record.MATCH_START, (mid, 0, 1, 1, 0, 0, 0, "A", "B", com, b""))
    with Library.open() as lib:
        watch_loop(_Refusing(data), out=io.StringIO(), clear=False, lib=lib)
        assert lib.part_proofs(mid) == [] and lib.remembered_commitment(mid) == (com, b"")
        watch_loop(_Silent(data), out=io.StringIO(), clear=False, lib=lib)
        assert len(lib.part_proofs(mid)) == 1  # verify then says if the board dropped it
