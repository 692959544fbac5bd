"""Two boards, one match: a resignation across the link. Each board plays the other board's
player as its computer, decided by its host (DECIDE, HELLO with bit 7: a player at another
board). A player's offer to resign is journaled once its player confirms it (ROLL), so their
host sees it; the other board takes it as DECIDE RESIGN (journaled at once), its player
accepts or rejects, and that answer comes back as DECIDE CUBE yes/no. Both journals hold the
same records; a rejected offer lets the game go on; an offer or an answer at the wrong time
is refused and changes nothing; the board never answers for the player at the other board.

On MicroPython these also run through tests/host/test_controller_mpy.py (64-bit port and
the board model at 64k). Everything goes in by the controller's one public way
(``Controller.intent``: buttons, the computer's decisions) and ``Controller.decide`` (the
link's DECIDE).
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


class Side:
    """One board and its journal; the other board's player is its computer, whose decisions
    come from this board's host (``remote``: a player far away, HELLO bit 7)."""

    def __init__(self, n, remote=True, length=3):
        seed = lambda mid: Fairness(mid, bytes(23) + bytes([n]) + bytes(mid))  # noqa: E731
        self.c = C.Controller(C.Settings(length=length), rules, seed, H.Ids(), lambda: 1767225600)
        self.j = []
        self.r = H.Robot(self.c, seed=n + 1, drain=lambda k, f: self.j.append((k, f)))
        self.c.opp = O.Opponent(H.first_play)
        self.r.now = 1000
        assert self.c.hello((0x80 if remote else 0) | (1 - n), "remote", self.r.now) is None
        self.r.set_start()
        assert self.r.press(0, C.ROLL) and self.c.phase == C.OPENING

    def shared(self):
        return [(k, tuple(f)) for k, f in self.j if k in SHARED]

    def kinds(self):
        return [k for k, f in self.j]


def _match(remote=True):
    """Two boards through the opening (joint dice, both hosts' parts), a player to move."""
    a, b = Side(0, remote), Side(1, remote)
    H.joint_opening(a, b)
    assert a.c.phase == b.c.phase == C.MOVING and a.c.side == b.c.side
    here, there = (a, b) if a.c.side == 0 else (b, a)
    return here, there


def _decide(s, turn, value):
    """The host's DECIDE on board ``s`` (as the app's link does: its records drained)."""
    return s.r._drained(s.c.decide(turn, value, s.r.now))


def _offer(here, value):
    """``here``'s player (on move) offers to resign ``value`` with the buttons: a long CUBE
    press offers a single, each CUBE press raises it, ROLL confirms it (journaled then)."""
    side = here.c.side
    assert here.r.press(side, C.CUBE, C.LONG) and here.c.phase == C.RESIGNING
    for _ in range(value - 1):
        assert here.r.press(side, C.CUBE)
    assert here.c.resign_value == value and R.RESIGN not in here.kinds()  # not sent yet
    assert here.r.press(side, C.ROLL)
    assert here.j[-1] == (R.RESIGN, (side, value))
    assert not here.r.press(side, C.CUBE) and not here.r.press(side, C.CUBE, C.LONG)  # sent: final


def test_a_resignation_rejected_across_the_link_lets_the_game_go_on():
    here, there = _match()
    side = here.c.side
    k = here.c.throws
    _offer(here, 2)
    # the board never answers for the player at the other board, however long they think
    for dt in (5000, 40000, 90000):
        here.c.tick(here.r.now + dt)
        assert here.c.phase == C.RESIGNING and here.c.opp.waiting
    # the other board's host: DECIDE RESIGN for the remote side, on its turn
    assert _decide(there, k + 1, 2) is not None  # another turn: refused
    assert _decide(there, k, 2) is None
    assert there.c.phase == C.RESIGNING and there.c.side == side and there.c.resign_value == 2
    assert there.j[-1] == (R.RESIGN, (side, 2))  # journaled at once
    assert not there.r.press(side, C.ROLL)  # the remote side's buttons do nothing
    assert there.r.press(1 - side, C.CUBE)  # its player rejects
    assert there.j[-1] == (R.RESIGN_REJECT, (1 - side,)) and there.c.phase == C.MOVING
    # ... which comes back as DECIDE CUBE no
    assert _decide(here, k, False) is None
    assert here.j[-1] == (R.RESIGN_REJECT, (1 - side,))
    assert here.c.phase == C.MOVING and here.c.side == side
    assert here.shared() == there.shared()
    # the game goes on: the player plays, the other board shows it and its player follows
    steps = here.r.play_turn()
    assert _decide(there, k, steps) is None
    plan = there.c.opp.plan
    for i in range(0, len(plan), 2):
        rules._board.apply_step(there.r.pos, side, plan[i], plan[i + 1])
        there.r.sense()
    assert there.c.last_play == here.c.last_play and there.c.mt.pos == here.c.mt.pos
    assert here.shared() == there.shared()


def test_a_resignation_accepted_across_the_link_ends_the_game_alike_on_both_boards():
    here, there = _match()
    side = here.c.side
    k = here.c.throws
    # through the one public way: a backgammon offered, then confirmed as it stands
    assert here.r._drained(here.c.intent(side, C.I_RESIGN, 3, here.r.now))
    assert R.RESIGN not in here.kinds()
    assert here.r._drained(here.c.intent(side, C.I_RESIGN, 3, here.r.now))
    assert here.j[-1] == (R.RESIGN, (side, 3))
    # an answer from the other board before its offer reached there is no answer here
    assert _decide(there, k, True) is not None
    assert _decide(there, k, 3) is None
    assert there.r.press(1 - side, C.ROLL)  # its player accepts
    assert there.c.phase in (C.GAME_OVER, C.MATCH_OVER)
    assert _decide(here, k, True) is None
    assert here.c.phase == there.c.phase and here.c.mt.score == there.c.mt.score
    assert here.c.mt.score[1 - side] == 3  # a backgammon at cube 1
    assert here.shared() == there.shared()
    got = [k2 for k2, f in here.j if k2 in (R.RESIGN, R.RESIGN_ACCEPT, R.GAME_END)]
    assert got == [R.RESIGN, R.RESIGN_ACCEPT, R.GAME_END]


def test_offers_and_answers_at_the_wrong_time_are_refused_and_change_nothing():
    here, there = _match()
    side = here.c.side
    k = here.c.throws
    n = len(there.j)
    # the remote side resigns when it is not its turn: on ``here`` the computer is 1 - side
    assert _decide(here, k, 1) is not None
    # an answer while nobody offers
    assert _decide(there, k, True) is not None
    assert _decide(here, k, False) is not None
    # the player not on move cannot offer; the offer withdrawn before confirming sends nothing
    assert not there.r.press(1 - side, C.CUBE, C.LONG)
    assert here.r.press(side, C.CUBE, C.LONG) and here.r.press(side, C.CUBE, C.LONG)
    assert here.c.phase == C.MOVING and R.RESIGN not in here.kinds()
    # a value outside 1..3 is a programming error, not an offer
    try:
        here.r._drained(here.c.intent(side, C.I_RESIGN, 4, here.r.now))
        raise AssertionError("resigned 4")
    except ValueError:
        pass
    assert len(there.j) == n and there.c.phase == C.MOVING
    assert here.shared() == there.shared()


def test_a_local_computer_and_a_host_engine_still_accept_at_once():
    """Without bit 7 (``gammon play``: an engine decides) nothing changes for the player: the
    offer is not journaled until answered, and the computer accepts it at once."""
    here, _there = _match(remote=False)
    side = here.c.side
    assert here.r.press(side, C.CUBE, C.LONG)
    assert here.c.phase in (C.GAME_OVER, C.MATCH_OVER)
    assert [k for k in here.kinds() if k in (R.RESIGN, R.RESIGN_ACCEPT)] == [R.RESIGN, R.RESIGN_ACCEPT]


def test_a_power_cut_after_the_offer_resumes_it_on_both_boards():
    here, there = _match()
    side = here.c.side
    k = here.c.throws
    _offer(here, 1)
    assert _decide(there, k, 1) is None
    for s in (here, there):
        seed = s.c.board_seed()
        n = s.c.joint_side
        c2 = C.Controller(
            C.Settings(length=3),
            rules,
            lambda mid, n=n: Fairness(mid, bytes(23) + bytes([n]) + bytes(mid)),
            H.Ids(),
            lambda: 1767225600,
        )
        c2.resume(s.j, seed)
        assert c2.phase == C.RESIGNING and c2.side == side and c2.resign_value == 1
        s.c = s.r.c = c2
        c2.opp = O.Opponent(H.first_play)
        assert c2.hello(0x80 | (1 - n), "remote", s.r.now) is None
        s.r.sense()
    assert here.c.phase == C.RESIGNING  # still waiting for the other board's player
    assert there.r.press(1 - side, C.ROLL)
    assert _decide(here, k, True) is None
    assert here.shared() == there.shared() and here.c.mt.score == there.c.mt.score


def test_without_another_board_a_quiet_remote_host_hands_the_decisions_back():
    """The flag of a player at another board lasts while their host speaks: in a match with
    no other board (the remote session over) the board decides itself again once the host is
    quiet for ``BRAIN_MS``, as for any host."""
    c, r = H.started(computer=0)
    c.opp = O.Opponent(H.first_play)
    r.now += 40
    assert c.hello(0x80, "remote", r.now) is None and c.opp.remote
    me = c.side
    assert me == 1  # (this opening's throw gives the player the first move)
    assert r.press(me, C.CUBE, C.LONG) and r.press(me, C.ROLL)
    assert c.phase == C.RESIGNING and c.opp.waiting  # their host answers, not the board
    c.tick(r.now + O.BRAIN_MS - 100)
    assert c.phase == C.RESIGNING
    r._drained(c.tick(r.now + O.BRAIN_MS + 100))
    assert c.phase in (C.GAME_OVER, C.MATCH_OVER) and not c.opp.remote
