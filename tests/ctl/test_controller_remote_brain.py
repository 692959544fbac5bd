"""Two boards, one match: the side a player at another board decides (HELLO bit 7, a
two-board match) has no brain on this board. The board never loads the computer's move
evaluator (``bg.engine.pubeval``: two weight tables the board model's heap may not have mid-
match) for that side -- neither as the engine task's work (``Opponent.wants``/``think``) nor
at the app's boot after a power cut (``Controller.prepare_opponent``) -- while a match
against the computer does load it. And a board only ever records the play the other board's
host sent, also when it was rebuilt from its journal between taking that play and reading
it on its checkers.

On MicroPython these also run through tests/host/test_controller_mpy.py (64-bit port and
the board model). Everything goes in by ``Controller.intent`` (buttons, the computer's
decisions), ``Controller.decide`` (the link's DECIDE) and the engine task's calls.
"""

import sys

import ctl_helpers as H
from app import controller as C
from app import rules
from bg import record as R
from bg.dice.fairness import Fairness

PUBEVAL = "bg.engine.pubeval"
SEARCH = "app.search"  # the board's own search, the coach, learning mode (Opponent.search)
OPPONENT = "app.opponent"  # the board's own decisions (a player at another board's: app.plan)
SHARED = (R.ROLL, R.PLAY, R.DOUBLE, R.TAKE, R.DROP, R.GAME_END)


def _forget_pubeval():
    """Drop the evaluator and the board's search from the module table (an earlier test may
    have loaded them)."""
    for name in (PUBEVAL, SEARCH, OPPONENT):
        if name in sys.modules:
            del sys.modules[name]


def _think(c, now):
    """What the app's engine task does after an input (app.engine_task: ``Opponent.wants``,
    ``think`` in chunks, then ``Controller.thought``)."""
    o = c.opp
    while o is not None and o.wants(c):
        while not o.think(c, 64):
            pass
        c.thought(now)


def _seed(n):
    return lambda mid: Fairness(mid, bytes(23) + bytes([n]) + bytes(mid))


def _controller(n):
    return C.Controller(C.Settings(length=3), rules, _seed(n), H.Ids(), lambda: 1767225600)


class Side:
    """One board with the app's own opponent (made by the controller on HELLO, no test
    chooser) and the engine task's slicing on; the other board's player is its computer."""

    def __init__(self, n):
        self.n = n
        self.c = _controller(n)
        self.c.sliced = True
        self.j = []
        self.r = H.Robot(self.c, seed=n + 1, drain=lambda k, f: self.j.append((k, f)))
        self.r.now = 1000
        assert self.c.hello(0x80 | (1 - n), "remote", self.r.now) is None
        self.r.set_start()
        assert self.r.press(0, C.ROLL) and self.c.phase == C.OPENING

    def sense(self):
        self.r.sense()
        _think(self.c, self.r.now)

    def shared(self):
        return [(k, tuple(f)) for k, f in self.j if k in SHARED]

    def resume(self):
        """A power cut (or the watchdog): the board rebuilt from its journal, the app's boot
        (``prepare_opponent``), its host's HELLO again."""
        seed = self.c.board_seed()
        c2 = _controller(self.n)
        c2.resume(self.j, seed)
        c2.sliced = True
        self.c = self.r.c = c2
        c2.prepare_opponent()
        assert c2.hello(0x80 | (1 - self.n), "remote", self.r.now) is None
        self.sense()


def _exchange(a, b):
    """Each board's share of the throw due to the other (the hosts relay them)."""
    for s, o in ((a, b), (b, a)):
        k = o.c.throws
        mine = s.c.joint_share(k)
        if mine is not None and (o.c.joint.other or (-1,))[0] != k:
            o.c.joint_take(k, mine, o.r.now)
            o.sense()


def _match():
    a, b = Side(0), Side(1)
    H.joint_start(a, b)
    for s in (a, b):
        s.sense()
    while a.c.phase == C.OPENING or b.c.phase == C.OPENING:
        for s in (a, b):
            s.r.press(s.c.joint_side, C.ROLL)
            _think(s.c, s.r.now)
        for _ in range(2):
            _exchange(a, b)
    assert a.c.phase == b.c.phase == C.MOVING and a.c.side == b.c.side
    return (a, b) if a.c.side == 0 else (b, a)


def _relay(here, there, cut=False):
    """``here``'s player plays; its host sends the play to ``there`` (DECIDE), whose player
    follows the LEDs; ``cut``: ``there`` is rebuilt from its journal after taking the play,
    before its checkers show it (its host sends the play again, as a host that saw no record
    does)."""
    side = here.c.side
    k = here.c.throws
    here.r.play_turn()
    _think(here.c, here.r.now)
    sent = here.c.last_play[1]
    assert there.r._drained(there.c.decide(k, sent, there.r.now)) is None
    if cut:
        there.resume()
        assert there.r._drained(there.c.decide(k, sent, there.r.now)) is None
    plan = there.c.opp.plan
    assert plan is not None
    rules.apply_steps(there.r.pos, side, plan)
    there.sense()
    assert there.c.last_play == here.c.last_play, (there.c.last_play, here.c.last_play)
    assert there.shared() == here.shared()


def _turn(a, b, cut=False):
    here, there = (a, b) if a.c.side == a.c.joint_side else (b, a)
    assert there.c.side == here.c.side and there.c.phase == C.MOVING
    _relay(here, there, cut)
    for s in (a, b):
        if s.c.phase != C.AWAIT_ROLL:
            continue
        if s.c.side == s.c.joint_side:
            s.r.press(s.c.side, C.ROLL)
        elif s.c.may_double:  # the other board's host: no double (then the board rolls)
            assert s.r._drained(s.c.decide(s.c.throws, False, s.r.now)) is None
        _think(s.c, s.r.now)
    for _ in range(2):
        _exchange(a, b)


def test_a_two_board_match_never_loads_the_computers_evaluator():
    _forget_pubeval()
    a, b = _match()
    for i in range(6):
        if a.c.phase != C.MOVING:
            break
        _turn(a, b)
        if i == 2:
            for s in (a, b):
                s.resume()  # the boot's prepare_opponent too
        assert PUBEVAL not in sys.modules
    assert i >= 3


def test_the_other_boards_side_is_a_plan_and_a_wait_until_the_coach_is_asked():
    """The side the other board's player decides needs only the plan on the LEDs and the wait
    (``app.plan``): neither the board's own decisions (``app.opponent``) nor its search
    (``app.search``: its code, its state, pubeval) are imported for it, also resumed; this
    board's player asking the coach makes both, the ``Opponent`` taking over the side."""
    _forget_pubeval()
    a, b = _match()
    for i in range(4):
        if a.c.phase != C.MOVING:
            break
        _turn(a, b, cut=i == 1)
        for s in (a, b):
            assert not s.c.opp.OWN and s.c.opp.plan is None and s.c.opp.remote
        assert OPPONENT not in sys.modules and SEARCH not in sys.modules and PUBEVAL not in sys.modules
    assert i >= 2
    s = a if a.c.side == a.c.joint_side else b
    assert s.c.phase == C.MOVING and s.r.press(s.c.side, C.ROLL, C.LONG)  # the coach
    _think(s.c, s.r.now)
    o = s.c.opp
    assert o.OWN and o.search is not None and o.coaching and SEARCH in sys.modules
    assert o.remote and o.brain_at >= 0  # the side is still the other board's player's, and waited for
    assert not o.own(s.c, s.c.throws + 1)


def test_a_two_board_match_keeps_the_controllers_dict_size():
    """Its throws are both boards' shares (``bg.dice.joint``), also when rebuilt from its
    journal. The match's state is one object (``Controller.joint``): the controller keeps 47
    attributes or fewer, the opponent's with them -- one 47-slot dict on MicroPython, which a
    48th would grow mid-match to 59 slots, a 472-byte block on the board (docs/memory.md)."""
    a, b = _match()
    for i in range(4):
        if a.c.phase != C.MOVING:
            break
        _turn(a, b)
        if i == 1:
            for s in (a, b):
                s.resume()
        for s in (a, b):
            assert s.c.opp is not None and s.c.joint.dice is not None
            assert len(s.c.__dict__) <= 47, sorted(s.c.__dict__)
    assert i >= 2 and a.shared() == b.shared()


def test_a_match_against_the_computer_loads_it():
    """The contrast (the check above can fail): the same engine-task calls in a match
    against the computer load the evaluator on its turn."""
    _forget_pubeval()
    c, r = H.started(computer=1)
    c.sliced = True
    for _ in range(4):
        if c.side == 1:
            break
        r.play_turn()
        if c.phase == C.AWAIT_ROLL and c.side == 0:
            r.press(0, C.ROLL)
    _think(c, r.now)
    assert c.side == 1 and PUBEVAL in sys.modules


def test_a_board_rebuilt_between_the_hosts_play_and_its_checkers_records_that_play():
    a, b = _match()
    played = 0
    while played < 6 and a.c.phase == C.MOVING:
        _turn(a, b, cut=True)
        played += 1
    assert played >= 4 and a.shared() == b.shared()


def test_the_board_records_the_hosts_play_as_sent_not_its_own_way_to_write_it():
    """A play the other board's host sent in another order of its steps (the same play):
    the board records it as sent, so both journals hold the same PLAY record."""
    a, b = _match()
    here, there = (a, b) if a.c.side == a.c.joint_side else (b, a)
    side = here.c.side
    k = here.c.throws
    here.r.play_turn()
    sent = here.c.last_play[1]
    assert len(sent) == 4  # (no opening doublet: two steps)
    alt = sent[2:] + sent[:2]
    assert alt != sent
    d = there.c.dice
    from bg import engine

    assert engine.is_legal(there.c.turn_start, side, d[0], d[1], alt)
    assert there.r._drained(there.c.decide(k, alt, there.r.now)) is None
    rules.apply_steps(there.r.pos, side, there.c.opp.plan)
    there.sense()
    assert there.c.last_play == (side, alt)
    assert there.j[-1] == (R.PLAY, (side, alt, 0))
