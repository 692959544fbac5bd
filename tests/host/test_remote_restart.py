"""A host restarted mid-match resumes the joint dice (``gammon.remote.SeatFile``,
``BoardDice.state`` / ``restore``): its seat (every message it sent, numbered, written before
it goes to the relay; the last remote number taken; the exchange with its own random part)
is on disk, written atomically; what it handed to its board is read back from the board's
journal. The host is killed between its board's commitment and its shares -- right after
sending the commitment, once the parts are in, after its board's roll was asked for and
before its share went -- and started again from the file and the board: both boards throw
the same dice and ``gammon remote verify`` passes over both journals. Two real controllers
behind clients answering as the app does (tests/host/test_remote_board_dice.py); the relay
acknowledges a number sent again with the same body and refuses another body (409), as the
club's does."""

import json
import os

import pytest
import test_controller_joint as T
import test_remote_board_dice as B
from app import controller as C
from bg import record
from gammon import remote
from gammon.club.push import ClubError
from gammon.commands import remote as RC


class Relay:
    """Two seats' numbered messages, JSON on the way; the club's answers to a resend."""

    def __init__(self):
        self.msgs = ([], [])
        self.sends = 0

    def seat(self, i):
        relay = self

        class Seat:
            def send(self, seq, body):
                relay.sends += 1
                m = relay.msgs[i]
                body = json.loads(json.dumps(body))
                if seq <= len(m):
                    if m[seq - 1] != body:
                        raise ClubError("message %d replayed with another body" % seq, 409)
                    return seq  # the same again: acknowledged again
                if seq != len(m) + 1:
                    raise ClubError("message %d out of order" % seq, 409)
                m.append(body)
                return seq

            def recv(self, after, wait=0.0):
                return [(n + 1, b) for n, b in enumerate(relay.msgs[1 - i]) if n + 1 > after]

        return Seat()


class Host:
    """One host as ``gammon remote play`` keeps it: its seat on disk, its board's match
    folded from the board's own copy (at a restart: fetched whole), the joint dice."""

    def __init__(self, relay, side, client, path):
        self.client = client
        self.relay = relay.seat(side)
        self.file = remote.SeatFile(path)
        self.dice = remote.BoardDice(side, self._send)  # a random part (os.urandom)
        self.ref = remote.Referee(1 - side, lambda code, payload: None, dice=self.dice)
        self.ref.last_seq = self.file.taken
        self.follow = remote.RecordingFollow(1 - side)
        j = client.board.j
        for k, f in j:
            self.follow.feed(k, f)
            self.ref.feed(k, f)
        self.fed = len(j)
        saved = self.file.data.get("dice")
        if saved is None or not self.dice.restore(saved, self.follow.records):
            ms = self.follow.records[0][1]
            self.dice.match(bytes(ms[0]), bytes(ms[9]))
        self._save()
        self.file.push(self.relay)  # what was written down but perhaps not sent

    def _send(self, body):
        self.file.data["dice"] = self.dice.state()  # the part or share in it, written first
        self.file.post(body)
        self.file.push(self.relay)

    def _save(self):
        self.file.taken = self.ref.last_seq
        self.file.data["dice"] = self.dice.state()
        self.file.save()

    def step(self):
        j = self.client.board.j
        for k, fl in j[self.fed :]:
            self.follow.feed(k, fl)
            self.ref.feed(k, fl)
        self.fed = len(j)
        remote.pump(self.relay, self.ref, say=lambda s: None)
        self.dice.step(self.client, self.follow)
        self._save()


def _settle(hosts, n=4):
    for _ in range(n):
        for h in hosts:
            h.step()


@pytest.mark.parametrize("kill_at", ["commit", "parts", "share"])
def test_a_host_killed_between_commitment_and_share_resumes_the_same_throws(tmp_path, kill_at):
    relay = Relay()
    ca, cb = B.Client(0), B.Client(1)
    pa, pb = tmp_path / "room-0.json", tmp_path / "room-1.json"
    a = Host(relay, 0, ca, pa)
    if kill_at == "commit":  # its commitment went, nothing else: killed, started again
        assert [m["kind"] for m in relay.msgs[0]] == ["commit"]
        a = Host(relay, 0, ca, pa)
    b = Host(relay, 1, cb, pb)
    _settle((a, b))
    sa, sb = ca.board, cb.board
    parts = [f[2] for k, f in sa.j if k == record.SEED_PART]
    assert len(parts) == 2 and parts == [f[2] for k, f in sb.j if k == record.SEED_PART]
    if kill_at == "parts":
        a = Host(relay, 0, ca, pa)
        _settle((a, b))
        assert [f[2] for k, f in sa.j if k == record.SEED_PART] == parts  # no third part
    killed = False
    for _ in range(12):  # (ties throw again)
        if sa.c.phase != C.OPENING:
            break
        for s in (sa, sb):
            s.r.press(s.c.joint_side, C.ROLL)
        _settle((a, b))
    assert sa.c.phase == sb.c.phase == C.MOVING
    for _ in range(4):
        T._play(sa, sb)
        side = sa.c.side
        k = sa.c.throws
        for s in (sa, sb):
            assert s.r.press(side, C.ROLL)
        if kill_at == "share" and not killed:
            # board 0's roll is asked for, its share readable and not sent yet: killed here,
            # and the other host's share of that throw arrives while it is down
            assert sa.c.joint_share(k) is not None
            assert not any(m.get("kind") == "share" and m.get("k") == k for m in relay.msgs[0])
            b.step()
            a = Host(relay, 0, ca, pa)
            killed = True
        _settle((a, b))
        assert sa.c.throws == sb.c.throws == k + 1
        assert (sa.c.dice[0], sa.c.dice[1]) == (sb.c.dice[0], sb.c.dice[1])
    T._play(sa, sb)
    side = sa.c.side
    for s in (sa, sb):
        assert s.r.press(side, C.CUBE, C.LONG) and s.r.press(1 - side, C.ROLL)
        assert s.c.phase == C.MATCH_OVER
    assert T._throws(sa.j) == T._throws(sb.j)
    assert a.ref.refused == [] and b.ref.refused == []
    # each seat's numbers are one stream: no number sent twice with two bodies (the relay
    # would have raised), every message once
    assert [m["kind"] for m in relay.msgs[0]].count("part") == 1
    da = b"".join(record.encode(k, f) for k, f in sa.j)
    db = b"".join(record.encode(k, f) for k, f in sb.j)
    ok, msg = RC.verify(RC.from_journal(da, "a"), RC.from_journal(db, "b"))
    assert ok, msg


def test_the_seat_is_written_before_the_message_goes_and_atomically(tmp_path):
    path = tmp_path / "r-0.json"
    f = remote.SeatFile(path)

    class Down:
        def send(self, seq, body):
            raise ClubError("no route to the club")

    assert f.post({"kind": "commit"}) == 1
    assert json.loads(path.read_text())["sent"] == [{"kind": "commit"}]  # before any send
    err = f.push(Down())
    assert err is not None and f.acked == 0  # kept for the next push
    g = remote.SeatFile(path)  # a restarted host
    assert g.sent == [{"kind": "commit"}] and g.acked == 0
    relay = Relay()
    assert g.push(relay.seat(0)) is None and relay.msgs[0] == [{"kind": "commit"}]
    assert remote.SeatFile(path).acked == 1
    assert not os.path.exists(str(path.with_suffix(".tmp")))
    # a damaged file is a clear error, and nothing is overwritten
    path.write_text("{not json")
    with pytest.raises(remote.UserError, match="not a readable remote seat"):
        remote.SeatFile(path)
    assert path.read_text() == "{not json"
    with pytest.raises(remote.UserError, match="a room is"):
        remote.SeatFile.for_room("../etc", 0)
