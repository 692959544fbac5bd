"""A resignation across the link, host to host: two real controllers behind clients that
answer DECIDE as the app does, two hosts (``gammon.remote``: the referee, the recording
follow, the joint dice) through an in-memory numbered relay (tests/host/
test_remote_board_dice.py). A player's offer to resign (confirmed on their board, so
journaled) goes to the other host as ``{"kind": "resign"}``, reaches the other board as
DECIDE RESIGN, its player rejects (the game goes on) or accepts (the game ends alike on both
boards), and the answer comes back as ``{"kind": "answer"}`` (DECIDE CUBE). A cheating other
host's offer or answer at the wrong time is refused by the referee and never reaches the
board; both journals hold the same records."""

import struct

import test_controller_joint as T
import test_remote_board_dice as B
from app import controller as C
from bg import link as P
from bg import record
from bg.link import decide as D
from gammon import remote
from gammon.link import LinkError

SHARED = (
    record.ROLL,
    record.PLAY,
    record.RESIGN,
    record.RESIGN_ACCEPT,
    record.RESIGN_REJECT,
    record.GAME_END,
)


def _decide(board, code, payload):
    """DECIDE on ``board`` as ``bg.link.decide`` and ``app.main`` answer it, RESIGN included."""
    if code != D.DEC_RESIGN:
        turn = payload[0] | payload[1] << 8
        value = tuple(payload[2:]) if code == D.DEC_PLAY else payload[2] == 1
    else:
        turn, value = struct.unpack("<HB", payload)
    err = board.c.decide(turn, value, board.r.now)
    board.r._drained(None)
    if err is not None:
        raise LinkError(err, P.E_STATE)


class Host(B.Host):
    """``B.Host`` whose board's computer is the other board's player, the HELLO said as
    ``gammon remote play`` says it (bit 7: a player at the other board decides)."""

    def __init__(self, relay, side, part):
        B.Host.__init__(self, relay, side, part, True)
        board = self.client.board
        assert board.c.hello(0x80 | (1 - side), "remote", board.r.now) is None
        self.ref.forward = lambda code, payload: _decide(board, code, payload)


def _two():
    relay = B.Relay()
    a, b = Host(relay, 0, T.P0), Host(relay, 1, T.P1)
    B._settle((a, b))
    sa, sb = a.client.board, b.client.board
    while sa.c.phase == C.OPENING or sb.c.phase == C.OPENING:
        for s in (sa, sb):
            s.r.press(s.c.joint_side, C.ROLL)
        B._settle((a, b))
    assert sa.c.phase == sb.c.phase == C.MOVING and sa.c.side == sb.c.side
    return a, b


def _shared(board):
    return [(k, tuple(f)) for k, f in board.j if k in SHARED]


def _boards(a, b):
    sa, sb = a.client.board, b.client.board
    side = sa.c.side
    here, there = (sa, sb) if side == 0 else (sb, sa)
    return side, here, there


def test_an_offer_rejected_and_one_accepted_travel_and_both_journals_agree():
    a, b = _two()
    side, here, there = _boards(a, b)
    # a gammon offered on ``here``: the long CUBE press, a CUBE press raises, ROLL sends
    assert here.r.press(side, C.CUBE, C.LONG) and here.r.press(side, C.CUBE)
    B._settle((a, b))
    assert there.c.phase == C.MOVING  # not confirmed: nothing went
    assert here.r.press(side, C.ROLL)
    B._settle((a, b))
    assert there.c.phase == C.RESIGNING and there.c.side == side and there.c.resign_value == 2
    assert there.j[-1] == (record.RESIGN, (side, 2))
    assert there.r.press(1 - side, C.CUBE)  # rejected by the player at the other board
    B._settle((a, b))
    assert here.c.phase == C.MOVING and here.j[-1] == (record.RESIGN_REJECT, (1 - side,))
    assert _shared(here) == _shared(there)
    # the game goes on: the play reaches the other board
    here.r.play_turn()
    B._settle((a, b))
    T._follow(there)
    assert there.c.mt.pos == here.c.mt.pos
    B._settle((a, b))
    # the other player, on roll now on their own board, resigns a single: accepted
    nxt = 1 - side
    mine = there  # the board of side ``nxt``'s player
    assert mine.c.phase == C.AWAIT_ROLL and mine.c.side == nxt
    assert mine.r.press(nxt, C.CUBE, C.LONG) and mine.r.press(nxt, C.ROLL)
    B._settle((a, b))
    assert here.c.phase == C.RESIGNING and here.c.side == nxt
    assert here.r.press(side, C.ROLL)  # accepted
    B._settle((a, b))
    for s in (here, there):
        assert s.c.phase in (C.GAME_OVER, C.MATCH_OVER) and s.c.mt.score[side] == 1
    assert _shared(here) == _shared(there)
    ends = [k for k, f in _shared(here) if k != record.ROLL][-6:]
    assert ends == [
        record.RESIGN,
        record.RESIGN_REJECT,
        record.PLAY,
        record.RESIGN,
        record.RESIGN_ACCEPT,
        record.GAME_END,
    ]
    assert a.ref.refused == [] and b.ref.refused == []


def test_a_cheating_host_offer_or_answer_at_the_wrong_time_is_refused_and_never_journaled():
    a, b = _two()
    side, here, there = _boards(a, b)
    cheat, victim = (b, a) if side == 0 else (a, b)  # the host of the side not on move
    k = here.c.throws
    n = len(victim.client.board.j)
    cheat.dice.send({"kind": "resign", "turn": k, "value": 1})  # not its side's turn
    cheat.dice.send({"kind": "answer", "turn": k, "yes": True})  # nobody offered
    cheat.dice.send({"kind": "resign", "turn": k, "value": 4})  # no such resignation
    cheat.dice.send({"kind": "answer", "turn": k, "yes": 1})  # not a yes or no
    remote.pump(victim.seat, victim.ref, say=lambda s: None)
    whys = [why for _, why in victim.ref.refused]
    assert len(whys) == 4, whys
    assert "not the remote side's turn" in whys[0]
    assert "offers no resignation" in whys[1]
    assert "1 (single)" in whys[2] and "yes or no" in whys[3]
    assert len(victim.client.board.j) == n and victim.client.board.c.phase == C.MOVING
    # the board checks again what a referee let through (a host with no referee)
    try:
        _decide(victim.client.board, D.DEC_RESIGN, struct.pack("<HB", k, 1))
        raise AssertionError("the board took an offer out of turn")
    except LinkError as e:
        assert "only on its turn" in str(e)
    assert len(victim.client.board.j) == n


def test_gammon_play_hands_the_board_a_remote_resignation_and_its_answer():
    """``gammon play``'s Player with the remote player as its brain: the other host's offer
    becomes DECIDE RESIGN on the board (its player then answers), and says so in words; the
    answer to this board's offer becomes DECIDE CUBE."""
    import io

    from gammon.commands import play

    a, b = _two()
    side, here, there = _boards(a, b)
    k = here.c.throws

    class Brain:
        name = "remote"
        remote = True

        def __init__(self, side):
            self.side = side
            self.queue = []

        def decide(self, follow):
            return self.queue.pop(0) if self.queue else None

    class Client:
        def __init__(self, board):
            self.board = board
            self.calls = []

        def decide(self, code, body=b""):
            self.calls.append((code, bytes(body)))
            _decide(self.board, code, body)

    def player(board, remote_side):
        out = io.StringIO()
        p = play.Player(lambda: None, Brain(remote_side), out)
        p.client = Client(board)
        f = remote.RecordingFollow(remote_side)
        for kk, ff in board.j:
            f.feed(kk, ff)
        p.follow = f
        return p, out

    p, out = player(there, side)  # on ``there`` the remote side is ``side``
    p.brain.queue.append((remote.RESIGN, k, 2))
    p._act()
    assert p.client.calls == [(D.DEC_RESIGN, struct.pack("<HB", k, 2))]
    assert there.c.phase == C.RESIGNING and there.j[-1] == (record.RESIGN, (side, 2))
    assert "resigns (a gammon)" in out.getvalue(), out.getvalue()
    assert there.r.press(1 - side, C.ROLL)  # accepted on ``there``
    # on ``here`` (whose player offered: confirmed with ROLL) the answer is DECIDE CUBE yes
    assert here.r.press(side, C.CUBE, C.LONG) and here.r.press(side, C.CUBE) and here.r.press(side, C.ROLL)
    q, out = player(here, 1 - side)
    q.brain.queue.append((remote.CUBE, k, True))
    q._act()
    assert q.client.calls == [(D.DEC_CUBE, struct.pack("<HB", k, 1))]
    assert "accepts the resignation" in out.getvalue(), out.getvalue()
    assert here.c.phase in (C.GAME_OVER, C.MATCH_OVER) and _shared(here) == _shared(there)
