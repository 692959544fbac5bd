"""Helpers for the controller tests (both interpreters): a deterministic controller and a
robot that plays through it the way players do -- move checkers (the sensed counts change),
press buttons -- without ever calling the controller's internals."""

from app import controller as C
from app import rules
from bg import engine as movegen
from bg.dice.fairness import Fairness


class Ids:
    def __init__(self):
        self.n = 0

    def __call__(self):
        self.n += 1
        return bytes([0, 0, 0, 0, 0, 0, 0, self.n & 0xFF])


def seed_for(match_id):
    return bytes(24) + bytes(match_id)


def make(settings=None, **kw):
    s = settings or C.Settings(**kw)
    return C.Controller(s, rules, lambda mid: Fairness(mid, seed_for(mid)), Ids(), lambda: 1767225600)


class Lcg:
    """A tiny deterministic choice source (same on CPython and MicroPython)."""

    def __init__(self, seed=1):
        self.x = seed

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def _count(w, st, n):
    pass


class _Pick:
    """Keeps the steps of the ``k``-th visit of ``movegen.for_each_end``."""

    def __init__(self, k):
        self.k = k
        self.steps = ()

    def visit(self, w, st, n):
        if self.k == 0:
            self.steps = tuple(st[: 2 * n])
        self.k -= 1


class _First:
    def __init__(self):
        self.steps = None

    def visit(self, w, st, n):
        if self.steps is None:
            self.steps = tuple(st[: 2 * n])


def first_play(pos, side, d1, d2):
    """A chooser for the computer (``app.opponent.Opponent(first_play)``) that takes the
    generator's first legal play: each test knows the computer's play (builds no list of
    plays)."""
    f = _First()
    movegen.for_each_end(pos, side, d1, d2, f.visit)
    return f.steps or ()


class Robot:
    """Two players at the physical board: ``pos`` is where the checkers really are."""

    def __init__(self, ctl, seed=1, drain=None):
        self.c = ctl
        self.pos = rules.start_position()
        self.rng = Lcg(seed)
        self.now = 0
        self.view = bytearray(rules.NLOC)
        # ``drain(kind, fields)``, when given, takes every record out of the controller's
        # outbox after each sensor update and press, as the app does (it stores them on
        # flash): a whole game's records left in the list would be ~11 kB of heap.
        self.drain = drain

    def _drained(self, r):
        d = self.drain
        if d is not None:
            ob = self.c.outbox
            while ob:
                k, f = ob.pop(0)
                d(k, f)
        return r

    def sense(self):
        self.now += 40
        self._drained(self.c.board(rules.counts_of(self.pos, self.view, self.c.cap), self.now))

    def press(self, side, role, kind=C.PRESS):
        self.now += 40
        return self._drained(self.c.button(side, role, kind, self.now))

    def set_start(self):
        self.pos = rules.start_position()
        self.sense()

    def pick_play(self):
        """A random legal play, chosen among the generator's visits without building the list
        of every play (on a doubles roll that list is hundreds of tuples: the heap these tests
        run in is the board's, and the board never builds it either)."""
        c = self.c
        d1, d2 = c.dice[0], c.dice[1]
        n = movegen.for_each_end(c.mt.pos, c.side, d1, d2, _count)
        if not n:
            return ()
        pick = _Pick(self.rng.below(n))
        movegen.for_each_end(c.mt.pos, c.side, d1, d2, pick.visit)
        return pick.steps

    def play_turn(self, play=None):
        """Move the checkers of the side on roll and confirm; returns the play made."""
        c = self.c
        if play is None:
            play = self.pick_play()
        side = c.side
        rules.apply_steps(self.pos, side, play)
        self.sense()
        assert self.press(side, C.ROLL), "confirm refused: " + c.message
        if c.phase == C.MOVING and c.choices:
            self.choose(side)
        return play

    def choose(self, side):
        """Several legal plays read the same: cycle with CUBE to ours, confirm with ROLL."""
        c = self.c
        scratch = bytearray(52)
        for _ in range(len(c.choices)):
            scratch[:] = c.turn_start
            rules.apply_steps(scratch, side, c.choices[c.choice])
            if scratch == self.pos:
                break
            assert self.press(side, C.CUBE)
        assert self.press(side, C.ROLL)

    def play_game(self, double_every=0, max_turns=600):
        """From OPENING to GAME_OVER/MATCH_OVER; every ``double_every``-th turn the side on
        roll doubles when it may and the opponent takes."""
        c = self.c
        turns = 0
        self.set_start()
        while c.phase == C.OPENING:  # opening throws (ties throw again)
            assert self.press(0 if c.house_first is None else 1, C.ROLL)
        if c.phase == C.CHOICE:  # house variant: the starter keeps the throw
            assert self.press(c.side, C.ROLL)
        while c.phase not in (C.GAME_OVER, C.MATCH_OVER):
            turns += 1
            assert turns < max_turns
            if c.phase == C.AWAIT_ROLL:
                if double_every and turns % double_every == 0 and c.may_double:
                    side = c.side
                    assert self.press(side, C.CUBE)
                    assert self.press(1 - side, C.ROLL)  # take
                assert self.press(c.side, C.ROLL)
            assert c.phase == C.MOVING, c.phase
            self.play_turn()
        return turns


def view():
    """The board description and a View painting into a fresh frame (loaded on demand: the
    view is not needed by the 64k controller-unit tests)."""
    from app.view import View
    from bg import hwdesc, leds

    board = hwdesc.load()
    return board, View(leds.Painter(board))


def started(**kw):
    """A controller past the opening throw (phase MOVING), with a robot at the start
    position."""
    c = make(**kw)
    r = Robot(c, 1)
    r.set_start()
    assert r.press(0, C.ROLL) and c.phase == C.OPENING
    while c.phase == C.OPENING:  # ties throw again; in the house variant side 1 throws second
        assert r.press(0 if c.house_first is None else 1, C.ROLL)
    return c, r


def roll_at(c, pos, side, d1, d2):
    """Put the game at ``pos`` with ``side`` on roll and fold its ROLL of ``d1 d2``: a test's
    shortcut to a position (the fold, ``bg.match.Fold``, takes a ROLL only from the side on
    roll before it rolled)."""
    from bg import match as M

    c.mt.pos[:] = pos
    mt = c.mt
    mt.phase = M.F_AWAIT
    mt.side = side
    mt.turn = side
    mt.rolled = False
    c.apply(C.K_ROLL, (side, d1, d2))


def kinds(c):
    """The kinds of the records in the controller's outbox, in order."""
    return [k for k, f in c.outbox]


def illegal_move(c, r):
    """The side on roll moves a checker from its 6-point back to its 7-point (never legal)."""
    side = c.side
    b = 25 if side else 0
    r.pos[b + 6 - 1] -= 1
    r.pos[b + 7 - 1] += 1
    r.sense()
    return side


HOST_PARTS = (bytes(range(16)), bytes(range(16, 32)))  # each side's host's part of the seed


def joint_start(a, b):
    """Two boards of one remote match (``a`` plays side 0, ``b`` side 1; ``.c`` each one's
    controller) commit to each other's dice and take both hosts' parts, as their hosts set
    them up."""
    a.c.joint_start(0, b.c.fair.commitment)
    b.c.joint_start(1, a.c.fair.commitment)
    for s in (a, b):
        s.c.contribute("host 0", HOST_PARTS[0])
        s.c.contribute("host 1", HOST_PARTS[1])


def joint_exchange(a, b):
    """Both hosts hand each board's share of the throw due on the other board across, once
    asked for (``.r`` each board's robot: the app passes its ticks, then senses)."""
    for s, o in ((a, b), (b, a)):
        k = o.c.throws
        mine = s.c.joint_share(k)
        if mine is not None and o.c.throws == k and (o.c.joint.other or (-1,))[0] != k:
            o.c.joint_take(k, mine, o.r.now)
            o.r.sense()


def joint_opening(a, b):
    """Two boards of one remote match set up (``joint_start``) and through the opening: both
    players press ROLL until a player is to move on both boards (robots ``.r``)."""
    joint_start(a, b)
    for s in (a, b):
        s.r.sense()
    while a.c.phase == C.OPENING or b.c.phase == C.OPENING:
        for s in (a, b):
            s.r.press(s.c.joint_side, C.ROLL)
        joint_exchange(a, b)
        joint_exchange(a, b)
