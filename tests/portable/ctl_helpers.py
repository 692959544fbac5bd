"""Helpers for the controller tests (both interpreters): a deterministic controller and a
robot that plays through it the way players do -- move checkers (the sensed counts change),
press buttons -- without ever calling the controller's internals."""

from app import controller as C
from app import rules
from bg import movegen
from bg.dice_match import Fairness


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


class Robot:
    """Two players at the physical board: ``pos`` is where the checkers really are."""

    def __init__(self, ctl, seed=1):
        self.c = ctl
        self.pos = rules.start_position()
        self.rng = Lcg(seed)
        self.now = 0
        self.view = bytearray(rules.NLOC)

    def sense(self):
        self.now += 40
        self.c.board(rules.counts_of(self.pos, self.view, self.c.cap), self.now)

    def press(self, side, role, kind=C.PRESS):
        self.now += 40
        return self.c.button(side, role, kind, self.now)

    def set_start(self):
        self.pos = rules.start_position()
        self.sense()

    def pick_play(self):
        c = self.c
        ps = movegen.plays(c.pos, c.side, c.dice[0], c.dice[1])
        if not ps:
            return ()
        return ps[self.rng.below(len(ps))][0]

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
    """A controller past the opening roll, with a robot for side 1 at the start position."""
    c = make(**kw)
    r = Robot(c, 1)
    r.set_start()
    r.press(0, C.ROLL)
    while c.phase == C.OPENING:
        r.press(0, C.ROLL)
    return c, r
