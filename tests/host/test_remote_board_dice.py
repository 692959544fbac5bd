"""``gammon.remote.BoardDice``: each host carries the joint dice between its board and the other
host, in the order that makes them fair. Two real controllers (tests/ctl/test_controller_joint.py's
boards) stand behind clients that answer the link's JOINT and PLAYER_SEED requests as the app does
(``app.main``: ValueError -> E_STATE); the two hosts' messages go through an in-memory relay that
numbers each seat's messages like the club's. The hosts alone bring both boards to the same
throws of a 1-point match, both journals pass ``gammon remote verify``; a cheating other host's
share (another throw's, a falsified one) is refused by the exchange or named by verify."""

import json

import test_controller_joint as T
from app import controller as C
from bg import link as P
from bg import record
from bg.link import decide as D
from bg.link import joint as LJ
from gammon import remote
from gammon.commands import remote as RC
from gammon.link import LinkError


class Relay:
    """Two seats' numbered messages (JSON on the way, as over HTTP)."""

    def __init__(self):
        self.msgs = ([], [])

    def seat(self, i):
        relay = self

        class Seat:
            def send(self, seq, body):
                assert seq == len(relay.msgs[i]) + 1
                relay.msgs[i].append(json.loads(json.dumps(body)))

            def recv(self, after, wait=0.0):
                return [(n + 1, b) for n, b in enumerate(relay.msgs[1 - i]) if n + 1 > after]

        return Seat()


class Client:
    """The board's side of JOINT and PLAYER_SEED (as ``app.main`` answers them)."""

    def __init__(self, side, computer=False):
        self.board = T.Side(side, computer, 3 if computer else 1)

    def _c(self, f, *a):
        try:
            return f(*a)
        except ValueError as e:
            raise LinkError(str(e), P.E_STATE) from None
        finally:
            self.board.r._drained(None)  # the app journals what the request made at once

    def joint(self, kind, body=b""):
        c = self.board.c
        if kind == LJ.J_START:
            mid, commit = self._c(c.joint_start, body[0], bytes(body[1:33]))
            return bytes([kind]) + mid + commit
        k = int.from_bytes(body[:4], "big")
        if kind == LJ.J_SHARE:
            self._c(c.joint_take, k, bytes(body[4:36]), self.board.r.now)
            return bytes([kind]) + body[:4]
        if kind == LJ.J_ASKED:  # (as ``app.host_side`` answers it)
            from types import SimpleNamespace

            from app.host_side import HostSide

            app = SimpleNamespace(ctl=c, drain=lambda: None, wake=SimpleNamespace(set=lambda: None))
            err = self._c(HostSide(app).joint_take, k, None, self.board.r.now)
            if err is not None:
                raise LinkError(err, P.E_STATE)
            return bytes([kind]) + body[:4]
        mine = c.joint_share(k)
        if mine is None:
            raise LinkError("throw %d is not asked for on this board" % k, P.E_STATE)
        return bytes([kind]) + body[:4] + mine

    def send_player_seed(self, commitment, seed, proof=b""):
        return self._c(self.board.c.contribute, "host", seed, commitment, proof)

    def decide(self, code, payload):
        """DECIDE (as ``bg.link.decide`` and ``app.main`` answer it)."""
        c = self.board.c
        turn = payload[0] | payload[1] << 8
        value = tuple(payload[2:]) if code == D.DEC_PLAY else payload[2] == 1
        err = c.decide(turn, value, self.board.r.now)
        self.board.r._drained(None)
        if err is not None:
            raise LinkError(err, P.E_STATE)


class Host:
    def __init__(self, relay, side, part, computer=False):
        self.client = Client(side, computer)
        seat = relay.seat(side)
        self.n = 0

        def send(body):
            self.n += 1
            seat.send(self.n, body)

        self.seat = seat
        self.dice = remote.BoardDice(side, send, urandom=lambda n: part)
        forward = self.client.decide if computer else (lambda code, payload: None)
        self.ref = remote.Referee(1 - side, forward, dice=self.dice)
        # this board's match as the host folds it (gammon.commands.remote.remote_player's follow)
        self.follow = remote.RecordingFollow(1 - side) if computer else None
        self.fed = self.sent = 0
        ms = [f for k, f in self.client.board.j if k == record.MATCH_START][0]
        self.dice.match(bytes(ms[0]), bytes(ms[9]))

    def _sync(self):
        """The board's new records into the host's folds; its own side's decisions out."""
        f = self.follow
        if f is None:
            return
        j = self.client.board.j
        for k, fl in j[self.fed :]:
            f.feed(k, fl)
            self.ref.feed(k, fl)
        self.fed = len(j)
        for msg in f.outgoing[self.sent :]:
            self.dice.send(msg)
        self.sent = len(f.outgoing)

    def step(self):
        self._sync()
        remote.pump(self.seat, self.ref, say=lambda s: None)
        self._sync()
        self.dice.step(self.client, self.follow)
        self._sync()


def _settle(hosts, n=4):
    for _ in range(n):
        for h in hosts:
            h.step()


def _match(cheat=None):
    relay = Relay()
    a, b = Host(relay, 0, T.P0), Host(relay, 1, T.P1)
    _settle((a, b))
    sa, sb = a.client.board, b.client.board
    assert [k for k, f in sa.j][:4] == [
        record.MATCH_START,
        record.JOINT_START,
        record.SEED_PART,
        record.SEED_PART,
    ]
    while sa.c.phase == C.OPENING:
        for s in (sa, sb):
            s.r.press(s.c.joint_side, C.ROLL)
        _settle((a, b))
    for _ in range(3):
        T._play(sa, sb)
        side = sa.c.side
        k = sa.c.throws
        for s in (sa, sb):
            assert s.r.press(side, C.ROLL)
        if cheat is not None and k == 2:
            cheat(b)
        _settle((a, b))
        assert sa.c.throws == sb.c.throws == k + 1
    T._play(sa, sb)
    side = sa.c.side
    for s in (sa, sb):
        assert s.r.press(side, C.CUBE, C.LONG) and s.r.press(1 - side, C.ROLL)
    return a, b


def test_two_hosts_bring_their_boards_to_the_same_throws_and_both_journals_verify():
    a, b = _match()
    ja, jb = a.client.board.j, b.client.board.j
    assert T._throws(ja) == T._throws(jb)
    assert a.ref.refused == [] and b.ref.refused == []
    da = b"".join(record.encode(k, f) for k, f in ja)
    db = b"".join(record.encode(k, f) for k, f in jb)
    ok, msg = RC.verify(RC.from_journal(da, "a"), RC.from_journal(db, "b"))
    assert ok, msg


def test_a_share_for_another_throw_is_refused_and_never_reaches_the_board():
    def cheat(host):
        # board 1's host sends a share for throw 9 before its board's share of throw 2
        host.dice.send({"kind": "share", "k": 9, "share": "00" * 32})

    a, b = _match(cheat)
    assert any("throw 9" in why for _, why in a.ref.refused)
    assert 9 not in [f[0] for k, f in a.client.board.j if k == record.JOINT_SHARE]


def test_a_falsified_share_is_named_by_verify():
    a, b = _match()
    ja, jb = a.client.board.j, b.client.board.j
    bad = [(k, (f[0], bytes(32)) if k == record.JOINT_SHARE and f[0] == 2 else f) for k, f in ja]
    da = b"".join(record.encode(k, f) for k, f in bad)
    db = b"".join(record.encode(k, f) for k, f in jb)
    ok, msg = RC.verify(RC.from_journal(da, "a"), RC.from_journal(db, "b"))
    assert not ok and "throw 2: board 1 sent a share its seed does not give" in msg, msg


def _through_the_opening():
    """Two hosts (players at other boards) joined by the relay, both boards past the opening:
    the hosts, then their boards."""
    relay = Relay()
    a, b = Host(relay, 0, T.P0, True), Host(relay, 1, T.P1, True)
    _settle((a, b))
    sa, sb = a.client.board, b.client.board
    while sa.c.phase == C.OPENING or sb.c.phase == C.OPENING:
        for s in (sa, sb):
            s.r.press(s.c.joint_side, C.ROLL)
        _settle((a, b))
    return a, b, sa, sb


def test_each_boards_computer_is_the_other_player_and_the_hosts_carry_plays_and_dice():
    """As ``gammon remote play`` runs it (3 points: the cube can turn): on each board the
    other side is the computer whose plays come from the other host (DECIDE), and the other
    board's share of a throw its side could have doubled before tells this board's computer
    it rolled. The players press only
    for their own side and move the remote side's checkers as the LEDs show them."""
    a, b, sa, sb = _through_the_opening()
    for _ in range(5):
        assert sa.c.phase == sb.c.phase == C.MOVING and sa.c.side == sb.c.side
        assert (sa.c.dice[0], sa.c.dice[1]) == (sb.c.dice[0], sb.c.dice[1])
        side = sa.c.side
        here, there = (sa, sb) if side == 0 else (sb, sa)
        here.r.play_turn()
        _settle((a, b))
        assert there.c.opp.plan is not None  # the remote play on its LEDs
        T._follow(there)
        assert there.c.mt.pos == here.c.mt.pos
        _settle((a, b))
        mine = sb if side == 0 else sa  # the board whose player is on roll now
        assert mine.r.press(1 - side, C.ROLL)
        _settle((a, b))
    assert T._throws(sa.j) == T._throws(sb.j) and len(T._throws(sa.j)) >= 6
    assert a.ref.refused == [] and b.ref.refused == []
    assert a.dice.rolled > 0 and b.dice.rolled > 0  # each computer was told "rolled" by a share


def test_a_power_cut_after_the_roll_press_and_before_the_other_share_cannot_become_a_double():
    """The player on roll pressed ROLL, the board's share went to the other board, which threw;
    then the power went before the other board's share came back. The journal holds no ask:
    the board came back waiting for the press, where CUBE would double a turn the other board
    has thrown. Its host, which sent the share, says so once it has the board's copy again
    (JOINT ASKED): the board takes the roll again and throws the same dice as the other."""
    from app import opponent as O

    a, b, sa, sb = _through_the_opening()
    side = sa.c.side
    here, there = (sa, sb) if side == 0 else (sb, sa)
    here.r.play_turn()
    _settle((a, b))
    T._follow(there)
    _settle((a, b))
    nxt = 1 - side  # on roll now, at its own board
    mine, theirs = (a, b) if nxt == 0 else (b, a)
    sm = mine.client.board
    k = sm.c.throws
    assert sm.c.may_double and sm.r.press(nxt, C.ROLL)
    mine.step()  # this board's share to the relay
    theirs.step()  # the other board takes it, is told its computer rolled, throws
    st = theirs.client.board
    assert st.c.throws == k + 1 and st.c.phase == C.MOVING
    # the power goes on this board before the other board's share comes back
    c2 = T._board(nxt, 3)
    c2.opp = O.Opponent(T.H.first_play)
    c2.resume(sm.j, sm.c.board_seed())
    assert c2.hello(1 - nxt, "remote", sm.r.now) is None
    sm.c = sm.r.c = c2
    sm.r.sense()
    assert c2.phase == C.AWAIT_ROLL and c2.may_double  # what the journal alone gives
    mine.dice.board_has(sm.j)  # the host's copy fetched again (``remote_player._adopt``)
    _settle((a, b))
    assert c2.throws == k + 1 and c2.phase == C.MOVING and not c2.may_double
    assert (c2.dice[0], c2.dice[1]) == (st.c.dice[0], st.c.dice[1])
    assert not sm.r.press(nxt, C.CUBE) and record.DOUBLE not in [kk for kk, f in sm.j[-3:]]
    assert a.ref.refused == [] and b.ref.refused == []
