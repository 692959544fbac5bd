"""The joint dice between two hosts through the club's real relay (gammon.remote.DiceExchange,
each board played by bg.dice.joint.JointDice): commitments, then parts, then each throw's
shares, then the seeds; both transcripts pass ``gammon remote verify``. A cheating other host
is refused: a part before the commitments, its own commitment echoed, a second commitment, a
share for another throw, a seed its commitment does not bind; a share it falsified (which no
host can check before the reveal) makes verify fail naming that board."""

import hashlib
import json

import pytest
from bg.dice import commitment, joint
from gammon import remote
from gammon.cli import main

N = 12


class _Host:
    """One board (its seed stays on it: JointDice) and its host's exchange over its seat."""

    def __init__(self, relay, side, name):
        self.relay = relay
        self.seed = hashlib.sha256(name.encode()).digest()
        self.mid = hashlib.sha256(b"id" + name.encode()).digest()[:8]
        self.commit = commitment(self.mid, self.seed)
        self.ex = remote.DiceExchange(side, self.mid, self.commit)
        self.seq = 0
        self.got = 0
        self.board = None

    def send(self, body):
        self.seq += 1
        self.relay.send(self.seq, body)

    def take_next(self):
        (seq, body), *_ = self.relay.recv(self.got, wait=5)
        self.got = seq
        return self.ex.take(body)


def _room(servers, event):
    a = remote.Relay(servers[0].url, event("home", rate=10_000))
    b = remote.Relay(servers[1].url, event("away", rate=10_000))
    b.join(a.create(0))
    return _Host(a, 0, "home"), _Host(b, 1, "away")


def _start(h0, h1):
    for h in (h0, h1):
        h.send(h.ex.commit_message())
    for h in (h0, h1):
        h.take_next()
    for h, part in ((h0, bytes(16)), (h1, bytes(range(16)))):
        h.send(h.ex.part_message(part))
    for h in (h0, h1):
        h.take_next()
        h.board = joint.JointDice(h.ex.side, h.commit, h.seed, h.ex.other_commit, h.ex.player_seed())


def _throws(h0, h1, n, falsify=None):
    for k in range(n):
        for h in (h0, h1):
            s = h.board.share()
            if h is h1 and k == falsify:
                s = bytes(32)
            h.send(h.ex.share_message(k, s))
        for h in (h0, h1):
            h.ex.thrown(h.board.throw(h.take_next()))


def _verify(tmp_path, capsys, h0, h1):
    for h in (h0, h1):
        h.send({"kind": "reveal", "seed": h.seed.hex()})
    paths = []
    for h in (h0, h1):
        h.take_next()
        p = tmp_path / ("side%d.json" % h.ex.side)
        p.write_text(json.dumps(h.ex.transcript(h.seed)))
        paths.append(str(p))
    rc = main(["remote", "verify"] + paths)
    return rc, capsys.readouterr().out


def test_two_hosts_make_fair_joint_dice_through_the_relay_and_both_transcripts_verify(
    servers, event, tmp_path, capsys
):
    h0, h1 = _room(servers, event)
    _start(h0, h1)
    _throws(h0, h1, N)
    assert h0.ex.throws == h1.ex.throws and len(h0.ex.throws) == N
    rc, out = _verify(tmp_path, capsys, h0, h1)
    assert rc == 0 and "PASS" in out and ("all %d throws" % N) in out, out


def test_a_falsified_share_makes_verify_name_the_board(servers, event, tmp_path, capsys):
    h0, h1 = _room(servers, event)
    _start(h0, h1)
    _throws(h0, h1, 6, falsify=3)
    rc, out = _verify(tmp_path, capsys, h0, h1)
    assert rc == 1 and "throw 3: board 1 sent a share its seed does not give" in out, out


def _refused(ex, body, words):
    with pytest.raises(remote.Refused) as e:
        ex.take(body)
    assert words in str(e.value), str(e.value)


def test_a_cheating_other_host_is_refused_out_of_order():
    home = remote.DiceExchange(0, bytes(8), commitment(bytes(8), bytes(32)))
    theirs = commitment(bytes([1] * 8), bytes([1] * 32))
    _refused(home, {"kind": "part", "part": bytes(16).hex()}, "before both commitments")
    _refused(home, {"kind": "share", "k": 0, "share": bytes(32).hex()}, "throw 0 is due")
    own = {"kind": "commit", "match_id": bytes(8).hex(), "commitment": home.own_commit.hex()}
    _refused(home, own, "this board's own commitment")
    _refused(home, {"kind": "commit", "match_id": "zz", "commitment": theirs.hex()}, "match_id must be 8")
    with pytest.raises(ValueError):
        home.part_message(bytes(16))  # this host sends no part before it has both commitments
    home.take({"kind": "commit", "match_id": bytes([1] * 8).hex(), "commitment": theirs.hex()})
    _refused(home, dict(own, commitment=bytes(32).hex()), "second commitment")
    home.part_message(bytes(16))
    home.take({"kind": "part", "part": bytes(range(16)).hex()})
    _refused(home, {"kind": "part", "part": bytes(16).hex()}, "second one")
    _refused(home, {"kind": "share", "k": 1, "share": bytes(32).hex()}, "throw 0 is due")
    _refused(home, {"kind": "share", "k": 0, "share": bytes(31).hex()}, "share must be 32")
    assert home.take({"kind": "share", "k": 0, "share": bytes(32).hex()}) == bytes(32)
    _refused(home, {"kind": "share", "k": 0, "share": bytes(32).hex()}, "throw 1 is due")  # replayed
    _refused(home, {"kind": "reveal", "seed": bytes(32).hex()}, "does not match its commitment")
    home.take({"kind": "reveal", "seed": bytes([1] * 32).hex()})
    _refused(home, {"kind": "roll"}, "unknown dice message")


def test_dice_messages_in_the_remote_stream_go_to_the_exchange_never_to_the_board():
    sent = []
    ex = remote.DiceExchange(0, bytes(8), commitment(bytes(8), bytes(32)))
    ref = remote.Referee(1, lambda code, payload: sent.append(code), dice=ex)
    theirs = commitment(bytes([1] * 8), bytes([1] * 32))
    msg = {"kind": "commit", "match_id": bytes([1] * 8).hex(), "commitment": theirs.hex()}
    assert ref.take(1, msg) is None
    assert ex.other_commit == theirs
    with pytest.raises(remote.Refused):
        ref.take(2, {"kind": "share", "k": 5, "share": bytes(32).hex()})
    assert sent == [] and ref.last_seq == 2 and ref.refused[-1][0] == 2
    bare = remote.Referee(1, lambda code, payload: sent.append(code))
    with pytest.raises(remote.Refused) as e:
        bare.take(1, {"kind": "commit"})
    assert "no joint dice" in str(e.value) and sent == []
