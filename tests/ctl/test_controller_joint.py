"""Two boards, one match: each controller's throws come from both boards' shares
(``bg.dice.joint``). Two controllers play side 0 and side 1 of one match, their hosts
played by the test (each board's commitment, both parts, each share handed across); both
journals hold the same throws and ``verify_joint`` proves them from the journals alone. A
share out of order, twice, too early or from a copied commitment is refused and never
journaled; a roll asked for cannot become a double; a power cut resumes the same dice.

On MicroPython these also run through tests/host/test_controller_mpy.py (64-bit port and
the board model at 64k).
"""

import sys

import ctl_helpers as H
from app import controller as C
from app import rules
from bg import record as R
from bg.dice.fairness import Fairness
from bg.dice.joint_verify import Board, verify_joint

P0, P1 = H.HOST_PARTS


def _board(n, length=1):
    """A board whose dice seed differs from the other's (byte 23: the board's number)."""
    seed = lambda mid: Fairness(mid, bytes(23) + bytes([n]) + bytes(mid))  # noqa: E731
    return C.Controller(C.Settings(length=length), rules, seed, H.Ids(), lambda: 1767225600)


class Side:
    """One board, its journal (the records drained as the app does) and its robot."""

    def __init__(self, n, computer=False, length=1):
        self.c = _board(n, length)
        self.j = []
        self.r = H.Robot(self.c, seed=n + 1, drain=lambda k, f: self.j.append((k, f)))
        if computer:  # the other board's side is this board's computer, decided by its host
            from app import opponent as O

            self.c.opp = O.Opponent(H.first_play)
            self.r.now = 1000
            assert self.c.hello(1 - n, "remote", self.r.now) is None
        self.r.set_start()
        assert self.r.press(0, C.ROLL) and self.c.phase == C.OPENING

    def kinds(self):
        return [k for k, f in self.j]


def _joined():
    a, b = Side(0), Side(1)
    assert a.c.joint_start(0, b.c.fair.commitment)[1] == a.c.fair.commitment
    b.c.joint_start(1, a.c.fair.commitment)
    for s in (a, b):
        s.c.contribute("host 0", P0)
        s.c.contribute("host 1", P1)
        s.r.sense()
    return a, b


def _throw(first, second, side=-1):
    """``first``'s player asks for the throw, then ``second``'s (``side``: who presses, the
    side on roll; -1 the opening, side 0's player on board 0...): each board's share goes
    across once asked for, the throw happens on both."""
    k = first.c.throws
    for s in (first, second):
        who = side if side >= 0 else (0 if s.c.joint_side == 0 else 1)
        assert s.r.press(who, C.ROLL)
        other = second if s is first else first
        mine = s.c.joint_share(k)
        assert mine is not None and len(mine) == 32
        other.c.joint_take(k, mine)
        other.r.sense()
        s.r.sense()
    assert first.c.throws == second.c.throws == k + 1
    return first.c.dice[0], first.c.dice[1]


def _throws(j):
    out = []
    for k, f in j:
        if k == R.OPENING:
            out.append(f[1])
        elif k == R.ROLL:
            out.append((f[1], f[2]))
    return out


def _transcript(j, theirs):
    """A board's side of ``verify_joint`` from its journal alone; ``theirs``: the other
    board's journal, whose JOINT_SHARE records are this board's shares as it received them."""
    ms = [f for k, f in j if k == R.MATCH_START][0]
    seed = [f[0] for k, f in j if k == R.SEED_REVEAL][0]
    shares = [f[1] for k, f in theirs if k == R.JOINT_SHARE]
    return Board(ms[0], ms[9], seed, _throws(j), shares)


def _play(a, b):
    """The side on roll plays a turn on its board; the other board's player moves the same
    checkers and confirms them (the remote play, shown on the LEDs)."""
    side = a.c.side
    steps = a.r.play_turn()
    b.r.play_turn(steps)
    assert b.c.last_play[0] == side and b.c.mt.pos == a.c.mt.pos


def test_two_boards_throw_the_same_dice_and_the_journals_prove_them():
    a, b = _joined()
    assert R.JOINT_START in a.kinds() and a.kinds().index(R.JOINT_START) < a.kinds().index(R.SEED_PART)
    assert a.c.joint_share(0) is None  # nobody asked for the opening throw yet
    while a.c.phase == C.OPENING:
        d = _throw(a, b)
        assert (b.c.dice[0], b.c.dice[1]) == d
    for _ in range(4):
        assert a.c.phase == b.c.phase == C.MOVING and a.c.side == b.c.side
        _play(a, b)
        side = a.c.side
        first, second = (a, b) if side == 0 else (b, a)
        _throw(first, second, side)
        assert (a.c.dice[0], a.c.dice[1]) == (b.c.dice[0], b.c.dice[1])
    assert _throws(a.j) == _throws(b.j) and len(_throws(a.j)) >= 5
    # of the board's own dice stream only the joint dice's key pads and the seed to reveal
    # stay: its ``Fairness`` (and module) went once the throws were both boards'
    for s in (a, b):
        assert s.c.fair is None and len(s.c.joint.seed) == 32 and s.c.board_seed() == s.c.joint.seed
    # each journal holds the other board's shares, one per throw, in throw order
    assert [f[0] for k, f in a.j if k == R.JOINT_SHARE] == list(range(a.c.throws))
    # the match ends (a resignation after this turn): both seeds revealed
    _play(a, b)
    side = a.c.side
    for s in (a, b):
        assert s.r.press(side, C.CUBE, C.LONG) and s.r.press(1 - side, C.ROLL)
        assert s.c.phase == C.MATCH_OVER and s.kinds()[-1] == R.SEED_REVEAL
    ok, i, msg = verify_joint(_transcript(a.j, b.j), _transcript(b.j, a.j), _mixed())
    assert ok, msg
    # a share board 1 sent that its seed does not give: named
    t1 = _transcript(b.j, a.j)
    t1.shares[2] = bytes(32)
    ok, i, msg = verify_joint(_transcript(a.j, b.j), t1, _mixed())
    assert not ok and i == 2 and "board 1 sent a share" in msg


def _mixed():
    from bg.dice import SeedMixer

    m = SeedMixer()
    m.add(1, P0)
    m.add(1, P1)
    return m.digest()


def test_a_share_out_of_order_twice_or_too_early_is_refused_and_never_journaled():
    a, b = Side(0), Side(1)
    a.c.joint_start(0, b.c.fair.commitment)
    try:
        a.c.joint_take(0, bytes(32))  # before both hosts' parts
        raise AssertionError("a share before the parts taken")
    except ValueError:
        pass
    a.c.contribute("host 0", P0)
    assert not a.r.press(0, C.ROLL) and a.c.mt.game_no == 0  # one part: the match waits
    a.c.contribute("host 1", P1)
    try:
        a.c.contribute("host 2", P1)
        raise AssertionError("a third part taken")
    except ValueError:
        pass
    n = len(a.j)
    for k, share in ((1, bytes(32)), (0, bytes(31)), (0, "x" * 32)):
        try:
            a.c.joint_take(k, share)
            raise AssertionError("share %r for throw %d taken" % (share, k))
        except ValueError:
            pass
    a.c.joint_take(0, bytes([7]) * 32)
    try:
        a.c.joint_take(0, bytes([7]) * 32)  # replayed
        raise AssertionError("a second share for throw 0 taken")
    except ValueError:
        pass
    a.r.sense()
    ks = [k for k, f in a.j[n:]]
    assert ks.count(R.JOINT_SHARE) == 1 and R.OPENING not in ks  # nobody asked yet: no throw
    assert a.r.press(0, C.ROLL) and a.c.throws == 1  # asked: thrown from the share taken


def test_the_other_boards_commitment_only_first_and_not_a_copy():
    a, b = Side(0), Side(1)
    for side, commit in ((0, a.c.fair.commitment), (2, b.c.fair.commitment), (0, bytes(31))):
        try:
            a.c.joint_start(side, commit)
            raise AssertionError("joint start %d taken" % side)
        except ValueError:
            pass
    a.c.contribute("host 0", P0)
    try:
        a.c.joint_start(0, b.c.fair.commitment)  # after a part: the dice are already steered
        raise AssertionError("a commitment after a part taken")
    except ValueError:
        pass
    assert R.JOINT_START not in a.kinds()
    h = Side(2)
    h.c.settings.house = True
    try:
        h.c.joint_start(0, b.c.fair.commitment)
        raise AssertionError("a house opening with two boards")
    except ValueError:
        pass


def test_a_roll_asked_for_cannot_become_a_double_and_a_power_cut_resumes_the_dice():
    a, b = _joined()
    while a.c.phase == C.OPENING:
        _throw(a, b)
    _play(a, b)
    side = a.c.side
    s = a if side == 0 else b
    o = b if s is a else a
    k = s.c.throws
    assert s.r.press(side, C.ROLL) and s.c.phase == C.AWAIT_ROLL  # waiting for the other's share
    assert not s.r.press(side, C.CUBE) and s.c.phase == C.AWAIT_ROLL  # its share is out: no double
    mine = bytes(s.c.joint_share(k))
    # the power goes: the board resumes from its journal and its seed file
    seed = s.c.board_seed()
    c2 = _board(s.c.joint_side)
    c2.resume(s.j, seed)
    assert c2.joint_share(k) is None  # the roll must be asked for again
    s.c = c2
    s.r.c = c2
    s.r.sense()
    assert s.r.press(side, C.ROLL) and bytes(c2.joint_share(k)) == mine
    o.r.press(side, C.ROLL)
    c2.joint_take(k, o.c.joint_share(k))
    o.c.joint_take(k, mine)
    assert c2.throws == o.c.throws == k + 1 and (c2.dice[0], c2.dice[1]) == (o.c.dice[0], o.c.dice[1])


def _follow(s):
    """The player moves the remote side's checkers as the LEDs show them."""
    c = s.c
    side = c.side
    plan = c.opp.plan
    for k in range(0, len(plan), 2):
        rules._board.apply_step(s.r.pos, side, plan[k], plan[k + 1])
        s.r.sense()


def test_each_board_plays_the_other_side_as_a_host_decided_computer():
    """As in a real remote match (3 points: the cube can turn): each board's computer is the
    other board's player. Its play comes from its host (the other board's record) and the
    player moves those checkers; it rolls when its host says the other player rolled."""
    a, b = Side(0, True, 3), Side(1, True, 3)
    H.joint_opening(a, b)
    told = 0
    for _ in range(6):
        assert a.c.phase == b.c.phase == C.MOVING and a.c.side == b.c.side
        assert (a.c.dice[0], a.c.dice[1]) == (b.c.dice[0], b.c.dice[1])
        side = a.c.side
        here, there = (a, b) if side == 0 else (b, a)
        k = here.c.throws
        steps = here.r.play_turn()
        assert there.c.decide(k, steps, there.r.now) is None  # the host's DECIDE PLAY
        _follow(there)
        assert there.c.mt.pos == here.c.mt.pos and there.c.last_play[0] == side
        # the next side: its own board's player presses ROLL (a second press changes
        # nothing); on the other board its computer waits for its host's "rolled" (it might
        # have doubled), sent when the first board's share comes out (gammon.remote.BoardDice)
        nxt = 1 - side
        mine, theirs = (a, b) if nxt == 0 else (b, a)
        assert mine.c.joint_share(k) is None  # nobody asked on this board yet
        assert mine.r.press(nxt, C.ROLL) and mine.c.joint_share(k) is not None
        assert not mine.r.press(nxt, C.ROLL)  # already asked: nothing changes
        assert not mine.r.press(nxt, C.CUBE) and mine.c.phase == C.AWAIT_ROLL  # nor a double now
        if theirs.c.joint_share(k) is None:
            assert theirs.c.may_double and theirs.c.decide(k, False, theirs.r.now) is None
            told += 1
        assert theirs.c.joint_share(k) is not None and theirs.c.phase == C.AWAIT_ROLL
        H.joint_exchange(a, b)
        H.joint_exchange(a, b)
    assert _throws(a.j) == _throws(b.j) and told == 6


def test_after_a_joint_match_the_next_is_one_boards_and_keeps_no_joint_state():
    # what only a joint match sets is one object from its JOINT_START, the class's default
    # until then: a one-board match keeps 47 attributes or fewer, one 47-slot dict (the
    # board's heap; docs/memory.md)
    one = Side(0)
    while one.c.phase == C.OPENING:
        assert one.r.press(0, C.ROLL)
    for _ in range(3):
        one.r.play_turn()
        assert one.r.press(one.c.side, C.ROLL) and one.c.phase == C.MOVING
    assert one.c.joint_side == -1 and one.c.joint is None
    assert "joint" not in one.c.__dict__
    assert len(one.c.__dict__) <= 47, len(one.c.__dict__)
    a, b = _joined()
    while a.c.phase == C.OPENING:
        _throw(a, b)
    _play(a, b)
    side = a.c.side
    assert a.r.press(side, C.CUBE, C.LONG) and a.r.press(1 - side, C.ROLL)
    assert a.c.phase == C.MATCH_OVER and a.c.joint_side == 0 and a.c.joint is not None
    assert a.r.press(0, C.ROLL) and a.c.phase == C.IDLE
    assert a.c.joint_side == -1 and a.c.joint is None and not a.c.joint_due
    assert "bg.dice.joint" not in sys.modules  # dropped with the match (imported by the next)
    # the next match is one board's: its throws need no other board's share
    a.r.set_start()
    assert a.r.press(0, C.ROLL) and a.c.phase == C.OPENING
    while a.c.phase == C.OPENING:
        assert a.r.press(0, C.ROLL)
    assert a.c.phase == C.MOVING and a.c.joint_share(a.c.throws - 1) is None
