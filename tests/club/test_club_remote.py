"""The club's relay for a match between two boards (gammon.club.remote) and the host's referee
(gammon.remote), on the real PostgreSQL and server processes of the club tests: a whole game's
decisions of one side relayed and forwarded as DECIDE requests; a cheating remote's illegal
play, out-of-turn and wrong-turn messages, replayed and reordered numbers refused and never
forwarded; seats held by their tokens."""

import struct

import pytest
import remote_helpers as RH
from bg import record
from bg.link import decide as D
from club_helpers import played
from gammon import remote
from gammon.club.push import ClubError
from gammon.commands import remote as remote_cmd


def _records(n=7):
    _, data = played(n)
    return list(record.decode_stream(data))


def _room(servers, event):
    a = remote.Relay(servers[0].url, event("home laptop", rate=10_000))
    b = remote.Relay(servers[1].url, event("away laptop", rate=10_000))  # the other process
    room = a.create(0)
    assert b.join(room) == 1 and a.seat == 0
    return a, b


def _decide(kind, fields, turn):
    if kind == record.PLAY:
        return D.DEC_PLAY, struct.pack("<H", turn) + bytes(fields[1])
    yes = kind in (record.DOUBLE, record.TAKE)
    return D.DEC_CUBE, struct.pack("<HB", turn, 1 if yes else 0)


def _refused(fn, *words):
    with pytest.raises(remote.Refused) as e:
        fn()
    for w in words:
        assert w in str(e.value), str(e.value)


def test_a_whole_game_of_one_side_is_relayed_and_forwarded(servers, event):
    recs = _records()
    a, b = _room(servers, event)
    sent = []
    home = remote.Referee(1, lambda code, payload: sent.append((code, payload)))  # side 1 is away
    away = remote.Referee(0, lambda code, payload: pytest.fail("nothing comes from home"))
    seq = 0
    expected = []
    for kind, fields in recs:
        msg = away.outgoing(kind, fields)
        assert home.outgoing(kind, fields) is None or fields[0] == 0
        if msg is not None:
            seq += 1
            assert b.send(seq, msg) == seq
            expected.append(_decide(kind, fields, home.follow.throws))
            assert remote.pump(a, home, wait=5) == 1
            assert sent == expected
        home.feed(kind, fields)
        away.feed(kind, fields)
    plays = sum(1 for k, f in recs if k == record.PLAY and f[0] == 1)
    assert plays >= 3 and len(sent) >= plays and home.refused == []
    assert a.recv(seq) == [] and b.recv(0) == []  # nothing more; home sent nothing


def _at_remote_play(recs):
    """The records before side 1's first play, and that play."""
    i = next(i for i, (k, f) in enumerate(recs) if k == record.PLAY and f[0] == 1 and f[1])
    return recs[:i], recs[i]


def test_a_cheating_remote_is_refused_and_nothing_reaches_the_board(servers, event):
    recs = _records()
    before, (kind, fields) = _at_remote_play(recs)
    sent = []
    home = remote.Referee(1, lambda code, payload: sent.append((code, payload)))
    for k, f in before:
        home.feed(k, f)
    turn = home.follow.throws
    honest = {"kind": "play", "turn": turn, "steps": list(fields[1])}
    # an illegal play: the first checker moved one pip further than the dice say
    bad = list(fields[1])
    bad[1] = max(0, bad[1] - 1)
    _refused(lambda: home.take(1, dict(honest, steps=bad)), "illegal play")
    _refused(lambda: home.take(2, dict(honest, steps=[24, 30])), "0..25")
    _refused(lambda: home.take(3, dict(honest, turn=turn + 1)), "turn %d" % (turn + 1))
    _refused(lambda: home.take(4, {"kind": "cube", "turn": turn, "yes": True}), "cube")
    _refused(lambda: home.take(6, honest), "out of order")  # a gap: number 5 not taken
    _refused(lambda: home.take(5, {"kind": "surrender"}), "unknown message")
    assert sent == [] and len(home.refused) == 6 and home.last_seq == 5
    # the honest play is taken; the same number again (a replaying relay) is refused
    home.take(6, honest)
    assert sent == [_decide(kind, fields, turn)]
    _refused(lambda: home.take(6, honest), "out of order")
    _refused(lambda: home.take(3, honest), "out of order")  # an old number
    # once the board has it, a second play is out of the remote side's turn
    home.feed(kind, fields)
    _refused(lambda: home.take(7, dict(honest, turn=home.follow.throws)), "not the remote side's")
    assert len(sent) == 1

    # through the relay: the pump shows the refusal, forwards nothing for it, and takes the
    # honest play sent under the next number
    a, b = _room(servers, event)
    home2 = remote.Referee(1, lambda code, payload: sent.append((code, payload)))
    for k, f in before:
        home2.feed(k, f)
    b.send(1, dict(honest, steps=bad))
    said = []
    assert remote.pump(a, home2, say=said.append) == 0
    assert len(sent) == 1 and "illegal play" in said[0] and home2.last_seq == 1
    b.send(2, honest)
    assert remote.pump(a, home2, say=said.append) == 1
    assert sent[1:] == [_decide(kind, fields, turn)] and len(said) == 1


def test_the_relay_keeps_each_seat_in_order_and_refuses_replays(servers, event):
    a, b = _room(servers, event)
    msg = {"kind": "play", "turn": 3, "steps": [13, 10]}
    assert b.send(1, msg) == 1
    assert b.send(1, msg) == 1  # the answer was lost: acknowledged again, stored once
    with pytest.raises(ClubError) as e:
        b.send(1, dict(msg, steps=[13, 9]))  # the same number, other contents: a replay
    assert e.value.status == 409 and "replay" in str(e.value) and e.value.body["next"] == 2
    with pytest.raises(ClubError) as e:
        b.send(3, msg)  # a gap
    assert e.value.status == 409 and e.value.body["next"] == 2
    assert b.send(2, dict(msg, turn=5)) == 2
    assert a.recv(0) == [(1, msg), (2, dict(msg, turn=5))]
    assert a.recv(1) == [(2, dict(msg, turn=5))] and b.recv(0) == []  # a seat's own are not echoed
    assert a.send(1, {"kind": "cube", "turn": 4, "yes": False}) == 1  # each seat its own numbers
    assert b.recv(0) == [(1, {"kind": "cube", "turn": 4, "yes": False})]


def test_seats_belong_to_their_tokens(servers, event):
    a, b = _room(servers, event)
    c = remote.Relay(servers[0].url, event("stranger", rate=10_000))
    with pytest.raises(ClubError) as e:
        c.join(a.room)
    assert e.value.status == 409
    c.room = a.room
    for fn in (lambda: c.send(1, {"x": 1}), lambda: c.recv(0)):
        with pytest.raises(ClubError) as e:
            fn()
        assert e.value.status == 403
    assert a.join(a.room) == 0 and b.join(a.room) == 1  # joining again keeps one's seat
    c.room = "no-such-room"
    with pytest.raises(ClubError) as e:
        c.recv(0)
    assert e.value.status == 404
    bad = remote.Relay(servers[0].url, "gct_not_a_token")
    with pytest.raises(ClubError) as e:
        bad.create(0)
    assert e.value.status == 401


def test_a_recv_waits_for_the_next_message(servers, event):
    import threading
    import time

    a, b = _room(servers, event)
    t = threading.Timer(0.5, lambda: b.send(1, {"kind": "cube", "turn": 0, "yes": True}))
    t0 = time.monotonic()
    t.start()
    got = a.recv(0, wait=10)
    t.join()
    assert got == [(1, {"kind": "cube", "turn": 0, "yes": True})]
    assert time.monotonic() - t0 < 5  # answered when the message came, not at the time-out


def test_gammon_remote_open_and_join_take_the_two_seats(servers, event, tmp_path, monkeypatch, capsys):
    from gammon.cli import main

    seats = []
    for name, argv in (("home", ["remote", "open", "--side", "1"]), ("away", None)):
        monkeypatch.setenv("GAMMON_HOME", str(tmp_path / name))
        assert main(["club", "join", servers[0].url, event(name, rate=10_000)]) == 0
        capsys.readouterr()
        assert main(argv or ["remote", "join", seats[0][0]]) == 0
        line = capsys.readouterr().out
        room = line.split()[1].rstrip(",:")
        seats.append((room, int(line.split("side ")[1][0])))
    assert seats[0][0] == seats[1][0] and [s for _r, s in seats] == [1, 0]
    assert main(["remote", "join", "no-such-room"]) == 2
    assert "no such room" in capsys.readouterr().err


class _Board:
    """A link Client as the Player sees it: the live match's first records stored, the rest
    published one per wait; ``lose`` publishes a lost-events marker at that event."""

    def __init__(self, recs, n_stored, lose=None):
        self.recs = recs
        self.n = n_stored
        self.lose = lose
        self.decisions = []
        self.fetches = 0

    def watch_on(self, on=True):
        pass

    def list_games(self):
        return [{"id": "0011223344556677", "size": 0, "state": 0, "finished": False}]

    def fetch_game(self, gid, progress=None, resume=True):
        self.fetches += 1
        return b"".join(self.recs[: self.n])

    def wait_events(self, timeout):
        if self.n >= len(self.recs):
            return []
        self.n += 1
        if self.n == self.lose:
            return [None]  # the link lost events: the Player fetches the match again
        return [self.recs[self.n - 1]]

    def decide(self, code, body):
        self.decisions.append((code, body))

    def close(self):
        pass


def test_decisions_journaled_while_the_relay_or_the_link_was_down_go_later_in_order_once():
    import io

    recs, _data = played(9)
    # white (side 0) is this board's player; its decisions, as the other board must get them
    f = remote.RecordingFollow(1)
    for k, fl in record.decode_stream(b"".join(recs)):
        f.feed(k, fl)
    want = list(f.outgoing)
    assert len(want) >= 3
    n0 = next(i for i, r in enumerate(recs) if r[:1] == bytes([record.GAME_START])) + 1
    relay = RH.RelaySeat(lambda t: 2 <= t <= 6)  # the second to the sixth try get no answer
    board = _Board(recs, n0, lose=n0 + 6)
    out = io.StringIO()
    p = remote_cmd.remote_player(lambda: board, relay, 1, out)
    p.sleep = lambda s: None
    assert p.run(matches=1, idle=5) == 1
    assert relay.got == want, out.getvalue()  # every one, in order, none twice
    assert "sending again later" in out.getvalue()
    # at the start, and after the lost events: two looks each (before and after the watch
    # turns on, ``gammon.live_copy.settled``), nothing journaled in between
    assert board.fetches == 4
    # the HELLO (bit 7: a player at another board decides): nothing came from away
    assert board.decisions == [(D.DEC_HELLO, b"\x81remote")]
