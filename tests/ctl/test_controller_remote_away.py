"""Two boards, one match: a board back from a power cut before the other player's host is.

Its player pressed ROLL, the board's share of that throw went to the other board, and the
power went before the other board's share came: the journal holds no ask (nothing is
journaled until the throw), so the board comes back on roll with the cube open. Only its
host knows the share went (JOINT ASKED, sent before the host's HELLO). Until that host is
back (its HELLO with bit 7, a player at another board), a CUBE press (a double) or a long
CUBE press (an offer to resign) is refused with "remote player not connected" and nothing is
journaled: a double there would be journaled on a turn the other board has thrown, and the
board's own computer would answer the offer for the other player. A take, a roll and a play
are kept (journaled or asked) and go once the host is back; with the host back a double is
taken as before.

On MicroPython these also run through tests/host/test_controller_mpy.py (the 64-bit port and
the board model).
"""

import ctl_helpers as H
from app import controller as C
from app import opponent as O
from app import rules
from bg import record as R
from bg.dice.fairness import Fairness

# the records both boards must hold alike (MATCH_START, the shares and the reveal are each
# board's own)
SHARED = (R.ROLL, R.PLAY, R.DOUBLE, R.TAKE, R.DROP, R.RESIGN, R.RESIGN_ACCEPT, R.RESIGN_REJECT, R.GAME_END)
AWAY = "remote player not connected"


def _controller(n):
    seed = lambda mid: Fairness(mid, bytes(23) + bytes([n]) + bytes(mid))  # noqa: E731
    return C.Controller(C.Settings(length=3), rules, seed, H.Ids(), lambda: 1767225600)


class Side:
    """One board and its journal; the other board's player is its computer, decided by this
    board's host (HELLO bit 7)."""

    def __init__(self, n):
        self.n = n
        self.c = _controller(n)
        self.j = []
        self.r = H.Robot(self.c, seed=n + 1, drain=lambda k, f: self.j.append((k, f)))
        self.c.opp = O.Opponent(H.first_play)
        self.r.now = 1000
        self.hello()
        self.r.set_start()
        assert self.r.press(0, C.ROLL) and self.c.phase == C.OPENING

    def hello(self):
        assert self.c.hello(0x80 | (1 - self.n), "remote", self.r.now) is None

    def power_cut(self):
        """The board starts again from its journal and seed file: a new controller, its
        computer made at boot (``prepare_opponent``), no host yet."""
        seed = self.c.board_seed()
        c2 = _controller(self.n)
        c2.resume(self.j, seed)
        c2.opp = O.Opponent(H.first_play)
        self.c = self.r.c = c2
        self.r.sense()

    def shared(self):
        return [(k, tuple(f)) for k, f in self.j if k in SHARED]


def _match():
    """Two boards through the opening, then one play: a player on roll with the cube open;
    returns (the board of the side on roll, the other board)."""
    a, b = Side(0), Side(1)
    H.joint_opening(a, b)
    here, there = (a, b) if a.c.side == 0 else (b, a)
    k = here.c.throws
    steps = here.r.play_turn()
    assert there.c.decide(k, steps, there.r.now) is None
    plan = there.c.opp.plan
    for i in range(0, len(plan), 2):
        rules._board.apply_step(there.r.pos, here.c.joint_side, plan[i], plan[i + 1])
        there.r.sense()
    assert there.c.mt.pos == here.c.mt.pos and there.c.phase == C.AWAIT_ROLL
    return there, here


def test_a_double_or_an_offer_to_resign_before_the_remote_host_is_back_is_refused():
    mine, theirs = _match()
    side = mine.c.side
    k = mine.c.throws
    assert mine.c.joint_side == side and mine.c.may_double
    assert mine.r.press(side, C.ROLL)  # asked: its share goes to the other board
    share = bytes(mine.c.joint_share(k))
    # the other board: its computer is told that side rolled (DECIDE CUBE no), its share goes
    # out, it throws with this board's
    assert theirs.c.decide(k, False, theirs.r.now) is None
    theirs.c.joint_take(k, share, theirs.r.now)
    theirs.r._drained(None)
    assert theirs.c.phase == C.MOVING and theirs.c.throws == k + 1
    # the power goes on this board before the other board's share came
    n = len(mine.j)
    mine.power_cut()
    assert mine.c.phase == C.AWAIT_ROLL and mine.c.may_double  # nothing on flash says "asked"
    assert mine.c.opp.brain_at < 0  # no HELLO since it started
    # its player presses CUBE before its host is back: refused, shown, nothing journaled
    assert not mine.r.press(side, C.CUBE)
    assert mine.c.message == AWAY and mine.c.phase == C.AWAIT_ROLL
    assert not mine.r.press(side, C.CUBE, C.LONG)  # an offer to resign: the same
    assert mine.c.message == AWAY and mine.c.phase == C.AWAIT_ROLL
    for _ in range(3):
        mine.c.tick(mine.r.now + 30000)
    mine.r._drained(None)
    assert len(mine.j) == n and mine.c.phase == C.AWAIT_ROLL
    # the host is back: JOINT ASKED (the roll again, as its player's intent) before its HELLO
    assert mine.c.side == mine.c.joint_side and mine.c.may_double
    assert mine.r._drained(mine.c.intent(side, C.I_ROLL, None, mine.r.now))
    mine.hello()
    assert not mine.r.press(side, C.CUBE) and mine.c.phase == C.AWAIT_ROLL  # asked: no double
    mine.c.joint_take(k, bytes(theirs.c.joint_share(k)), mine.r.now)
    mine.r._drained(None)
    assert mine.c.phase == C.MOVING and mine.c.throws == k + 1
    assert (mine.c.dice[0], mine.c.dice[1]) == (theirs.c.dice[0], theirs.c.dice[1])
    assert mine.shared() == theirs.shared()
    assert R.DOUBLE not in [kk for kk, f in mine.j] and R.RESIGN not in [kk for kk, f in mine.j]


def test_with_the_host_back_a_double_is_taken_and_an_answer_needs_no_host():
    mine, theirs = _match()
    side = mine.c.side
    k = mine.c.throws
    mine.power_cut()
    assert not mine.r.press(side, C.CUBE) and mine.c.message == AWAY
    mine.hello()  # its host back (nothing was asked: no JOINT ASKED)
    assert mine.r.press(side, C.CUBE) and mine.c.phase == C.DOUBLED
    assert mine.j[-1] == (R.DOUBLE, (side, 2)) and mine.c.message != AWAY
    # the other board takes it as DECIDE CUBE yes, and is cut before its player answers
    assert theirs.c.decide(k, True, theirs.r.now) is None
    theirs.r._drained(None)
    assert theirs.c.phase == C.DOUBLED and theirs.j[-1] == (R.DOUBLE, (side, 2))
    theirs.power_cut()
    assert theirs.c.phase == C.DOUBLED and theirs.c.opp.brain_at < 0
    # its player takes before its host is back: journaled, its host sends it once back
    assert theirs.r.press(1 - side, C.ROLL) and theirs.j[-1] == (R.TAKE, (1 - side,))
    theirs.hello()
    assert mine.c.decide(k, True, mine.r.now) is None
    mine.r._drained(None)
    assert mine.j[-1] == (R.TAKE, (1 - side,)) and mine.c.phase == C.AWAIT_ROLL
    assert mine.shared() == theirs.shared()


def _blinks(s, v, led):
    """The LED ``led`` over a second of frames: lit vermillion at some frame, dark at another."""
    seen = set()
    for t in range(0, 1000, 50):
        v.paint(s.c, s.r.now + t)
        g = v.p.get(led)
        seen.add("dark" if g == (0, 0, 0) else "vermillion" if g[0] > g[1] and g[0] > g[2] else "other")
    return seen == {"dark", "vermillion"}


def test_the_other_players_turn_led_blinks_vermillion_until_their_host_is_back():
    board, v = H.view()
    mine, _theirs = _match()
    led = board.turn_led[1 - mine.c.joint_side]
    assert not _blinks(mine, v, led)  # their host is there
    mine.power_cut()
    assert _blinks(mine, v, led)
    mine.hello()
    assert not _blinks(mine, v, led)
