"""The host's automatic player seed (``gammon watch`` and ``gammon sync`` send one as soon as
they see a live ``MATCH_START``, ``gammon.sync.offer_seed``) in a match with another board:
it would come before the other board's commitment (the board then refuses JOINT_START) or,
after it, be taken as a side's part (the two boards' dice would differ). The board refuses a
part that does not name the other board's commitment, so the automatic seed is refused at
either moment, remembered as not sent, and the two hosts' own exchange (``BoardDice``) brings
both boards to the same throws, which both journals prove. Two real controllers behind
clients answering as the app does (tests/host/test_remote_board_dice.py), a real library."""

import pytest
import test_controller_joint as joint_tests
import test_remote_board_dice as remote_board_dice
import test_remote_resign as RR
from app import controller as C
from bg import record
from gammon import sync
from gammon.commands import remote as RC
from gammon.library import Library


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))


def _ms(board):
    f = [f for k, f in board.j if k == record.MATCH_START][0]
    return bytes(f[0]), bytes(f[9]), record.encode(record.MATCH_START, f)


def _offer(host, lib, data):
    said = []
    sync.offer_seed(host.client, lib, data, "board", said.append)
    return said


def test_the_automatic_seed_is_refused_before_and_after_the_other_commitment():
    relay = remote_board_dice.Relay()
    a, b = RR.Host(relay, 0, joint_tests.P0), RR.Host(relay, 1, joint_tests.P1)
    sa, sb = a.client.board, b.client.board
    mid, com, data = _ms(sa)
    with Library.open() as lib:
        # the watch saw MATCH_START before this host's remote play brought the other board's
        # commitment: its seed is refused (nothing journaled), remembered as not sent
        assert _offer(a, lib, data) == []
        assert lib.remembered_commitment(mid) == (com, b"")
        assert [k for k, f in sa.j] == [record.MATCH_START]
        a.step()  # the exchange begins: JOINT_START on board 0
        assert [k for k, f in sa.j] == [record.MATCH_START, record.JOINT_START]
        # ... and a watch still working from the MATCH_START alone sends it again: refused
        assert _offer(a, lib, data) == []
        assert [k for k, f in sa.j] == [record.MATCH_START, record.JOINT_START]
        # a part naming this board's own commitment is no part of the match either way
        try:
            sa.c.contribute("host", bytes(16), com)
            raise AssertionError("a part naming this board's commitment was taken")
        except ValueError as e:
            assert "other board's commitment" in str(e)
    remote_board_dice._settle((a, b))
    for s in (sa, sb):
        assert [k for k, f in s.j][:4] == [
            record.MATCH_START,
            record.JOINT_START,
            record.SEED_PART,
            record.SEED_PART,
        ]
        assert [f[2] for k, f in s.j if k == record.SEED_PART] == [joint_tests.P0, joint_tests.P1]
    # the match plays on with the same throws on both boards; a resignation ends it and both
    # journals prove the dice
    while sa.c.phase == C.OPENING or sb.c.phase == C.OPENING:
        for s in (sa, sb):
            s.r.press(s.c.joint_side, C.ROLL)
        remote_board_dice._settle((a, b))
    assert (sa.c.dice[0], sa.c.dice[1]) == (sb.c.dice[0], sb.c.dice[1])
    side = sa.c.side
    here, there = (sa, sb) if side == 0 else (sb, sa)
    for _ in range(3):
        assert here.c.phase == C.MOVING and here.c.side == side
        ok = here.r.press(side, C.CUBE, C.LONG) and here.r.press(side, C.CUBE)
        assert ok and here.r.press(side, C.CUBE) and here.r.press(side, C.ROLL)  # a backgammon
        remote_board_dice._settle((a, b))
        assert there.r.press(1 - side, C.ROLL)  # accepted
        remote_board_dice._settle((a, b))
        if here.c.phase == C.MATCH_OVER:
            break
    assert here.c.phase == there.c.phase == C.MATCH_OVER
    da = b"".join(record.encode(k, f) for k, f in sa.j)
    db = b"".join(record.encode(k, f) for k, f in sb.j)
    ok, msg = RC.verify(RC.from_journal(da, "a"), RC.from_journal(db, "b"))
    assert ok, msg


def test_a_board_alone_still_takes_the_automatic_seed():
    s = joint_tests.Side(0)
    mid, com, data = _ms(s)

    class Client:
        def send_player_seed(self, commitment, seed, proof=b""):
            return s.c.contribute("laptop", seed, commitment, proof)

    with Library.open() as lib:
        said = []
        sync.offer_seed(Client(), lib, data, "board", said.append)
        assert said and lib.remembered_commitment(mid)[1] != b""
    s.r._drained(None)
    assert [k for k, f in s.j] == [record.MATCH_START, record.SEED_PART]
