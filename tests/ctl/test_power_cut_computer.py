"""A power cut at every record boundary of whole matches against the computer: the board
resumes to the state the live board was in, and writes the records the live board wrote.

The journal stores the controller's records one durable write at a time (a roll waits for its
play, but a brown-out stores it alone: both boundaries are real; MATCH_END and SEED_REVEAL are
one write that closes the match, so there is nothing to resume after them). Each match is
played once, by a player at random against the computer (pubeval, or a host deciding for it
through DECIDE, as ``gammon play`` does), doubling, resigning, taking and dropping; after
every input that wrote records, each boundary it crossed is cut: a new board resumes from the
journal's bytes up to there (``bg.record``'s encoding, as on flash), reads the checkers where
they stood, and must reach the live board's state with exactly the live board's remaining
records of that input. A cut where the resumed board differs or raises (a reset loop on the
device: the watchdog boots into the same replay) fails.

On MicroPython these also run through tests/host/test_controller_mpy.py, on the board model at
the board's 64k: the journal is kept as its encoded bytes, not as tuples."""

import gc
import sys

import ctl_helpers as H
from app import controller as C
from app import rules
from bg import record as R
from bg.board import pip_count

_HOST = "gnubg 2-ply"
_MPY = sys.implementation.name == "micropython"


def _state(c):
    """What a resumed board must have back: the match, the turn, the computer's plan."""
    o = c.opp
    return (
        c.phase,
        c.side,
        bytes(c.dice),
        bytes(c.mt.pos),
        c.mt.cube,
        c.mt.owner,
        tuple(c.mt.score),
        c.mt.game_no,
        c.throws,
        c.resign_value,
        c.mt.crawford,
        c.match_id,
        None if o is None or o.plan is None else tuple(o.plan),
        o is not None and o.waiting,
    )


class _Journal:
    """The live board's records as the journal encodes them, and the power cuts."""

    def __init__(self, host):
        self.tape = bytearray()
        self.ends = []  # end offset of each record in ``tape``
        self.kinds = bytearray()
        self.host = host
        self.seed = None
        self.cuts = 0
        self.total = 0  # records written, all matches
        self.base = 0  # ``total`` before this match's MATCH_START
        self.seen = set()

    def __call__(self, k, f):  # the robot's drain: the app stores each record at once
        if k == R.MATCH_START:
            self.tape = bytearray()  # a new match file
            self.ends = []
            self.kinds = bytearray()
            self.base = self.total
            self.seed = H.seed_for(f[0])  # the secret seed the journal keeps with the match
        self.tape.extend(R.encode(k, f))
        self.ends.append(len(self.tape))
        self.kinds.append(k)
        self.total += 1
        self.seen.add(k)

    def cut_each(self, live, pos, before, now, press=None):
        """Cut the power at each boundary the last input crossed (records since ``total``
        was ``before``) and check the resumed board. ``press``: the input was this press
        (side, role, kind); a board resumed before its last records may wait for it again
        (nothing on the board moved: the player presses once more)."""
        for i in range(max(before - self.base, 0) + 1, len(self.ends) + 1):
            if self.kinds[i - 1] in (R.MATCH_END, R.SEED_REVEAL):
                continue  # the match file is closed: the board boots idle
            self._check(live, pos, i, now, press)

    def _check(self, live, pos, i, now, press):
        end = self.ends[i - 1]
        d = H.make()  # a fresh boot: settings come from the journal's MATCH_START
        try:
            d.resume(R.Decoder(bytes(self.tape[:end])), self.seed)
            if self.host:
                d.prepare_opponent()
                assert d.opp.hello(d, 1, _HOST, now) is None  # the host comes back
            d.board(rules.counts_of(pos, bytearray(rules.NLOC), d.cap), now)
            if press is not None and not d.outbox and end != self.ends[-1]:
                assert d.button(press[0], press[1], press[2], now), "the press again was refused"
        except ValueError as e:
            raise AssertionError("cut after record %d (%s): %s" % (i, R.name(self.kinds[i - 1]), e)) from None
        out = bytearray()
        for k, f in d.outbox:
            out.extend(R.encode(k, f))
        want = self.tape[end : self.ends[-1]]
        assert out == want, "cut after record %d (%s): wrote %r, the live board %r" % (
            i,
            R.name(self.kinds[i - 1]),
            [R.name(k) for k, _ in d.outbox],
            [R.name(k) for k in self.kinds[i:]],
        )
        got, exp = _state(d), _state(live)
        assert got == exp, "cut after record %d (%s): %r, live %r" % (i, R.name(self.kinds[i - 1]), got, exp)
        self.cuts += 1
        if _MPY:
            d = None
            gc.collect()  # the board's heap holds one resumed board at a time


class _Player(H.Robot):
    """The player at the board: every input that writes records is cut at each boundary."""

    def __init__(self, c, seed, journal):
        H.Robot.__init__(self, c, seed, drain=journal)
        self.j = journal
        self.pressed = None

    def press(self, side, role, kind=C.PRESS):
        self.pressed = (side, role, kind)
        try:
            return H.Robot.press(self, side, role, kind)
        finally:
            self.pressed = None

    def _drained(self, r):
        before = self.j.total
        H.Robot._drained(self, r)
        if self.j.total != before:
            self.j.cut_each(self.c, self.pos, before, self.now, self.pressed)
        return r

    def host_decides(self, value):
        c = self.c
        before = self.j.total
        assert c.decide(c.throws, value, self.now) is None
        H.Robot._drained(self, True)
        self.j.cut_each(c, self.pos, before, self.now)


def _follow(c, r):
    """The player moves the computer's checkers as its LEDs say."""
    plan = c.opp.plan
    side = c.side
    for k in range(0, len(plan), 2):
        rules._board.apply_step(r.pos, side, plan[k], plan[k + 1])
        r.sense()
        if c.phase != C.MOVING or c.side != side:
            break


def _play_match(seed, host, length=3):
    """One whole match, the player (side 0) at random against the computer (side 1)."""
    j = _Journal(host)
    c = H.make(computer=1, length=length)
    r = _Player(c, seed, j)
    rng = H.Lcg(seed * 7 + 1)
    if host:
        c.prepare_opponent()
        assert c.opp.hello(c, 1, _HOST, r.now) is None
    r.set_start()
    assert r.press(0, C.ROLL)  # MATCH_START
    for _ in range(3000):
        ph = c.phase
        o = c.opp
        if ph == C.MATCH_OVER:
            return j.cuts, j.seen
        if ph == C.GAME_OVER:
            r.set_start()
            assert r.press(0, C.ROLL)
        elif ph == C.OPENING:
            r.set_start()
            assert r.press(0, C.ROLL)
        elif host and o.waiting and ph == C.MOVING:
            # the host's play: the generator's first one (the board's own chooser is pubeval)
            r.host_decides(H.first_play(c.turn_start, 1, c.dice[0], c.dice[1]))
        elif host and o.waiting:
            # a cube question: the host doubles now and then, takes or drops at random
            r.host_decides(rng.below(5) == 0 if ph == C.AWAIT_ROLL else rng.below(2) == 0)
        elif ph == C.MOVING and c.side == 1:
            _follow(c, r)
        elif ph == C.DOUBLED:  # the computer doubled (a host's decision): take or drop
            assert c.side == 1
            assert r.press(0, C.ROLL if rng.below(2) else C.CUBE)
        elif ph in (C.AWAIT_ROLL, C.MOVING):
            assert c.side == 0, (ph, c.side)
            ahead = pip_count(c.mt.pos, 0) * 100 < pip_count(c.mt.pos, 1) * 80
            if rng.below(40) == 0:
                assert r.press(0, C.CUBE, C.LONG)  # a resignation offered (the computer accepts)
            elif ph == C.AWAIT_ROLL and c.may_double and (ahead or rng.below(6) == 0):
                assert r.press(0, C.CUBE)  # the computer takes, or drops a lost race
            elif ph == C.AWAIT_ROLL:
                assert r.press(0, C.ROLL)
            else:
                r.play_turn()
        else:
            raise AssertionError("phase %s" % C.PHASE_NAMES[ph])
    raise AssertionError("the match did not end")


def test_a_cut_between_the_players_resignation_and_the_computers_acceptance_resumes():
    # the computer accepts at once: RESIGN, RESIGN_ACCEPT and GAME_END come from one press
    j = _Journal(False)
    c = H.make(computer=1, length=3)
    r = H.Robot(c, 3, drain=j)
    r.set_start()
    assert r.press(0, C.ROLL)
    while c.phase == C.OPENING:
        assert r.press(0, C.ROLL)
    while not (c.phase == C.AWAIT_ROLL and c.side == 0):
        if c.phase == C.MOVING and c.side == 1:
            _follow(c, r)
        elif c.phase == C.MOVING:
            r.play_turn()
    n = j.total
    assert r.press(0, C.CUBE, C.LONG)
    assert [R.name(k) for k in j.kinds[n:]] == ["RESIGN", "RESIGN_ACCEPT", "GAME_END"]
    j.cut_each(
        c, r.pos, n, r.now, (0, C.CUBE, C.LONG)
    )  # the resumed board asks the computer again: it accepts
    assert j.cuts == 3 and c.phase == C.GAME_OVER and c.mt.score[1] == 1


def test_power_cut_at_every_boundary_of_whole_matches_against_pubeval():
    kinds = set()
    cuts = 0
    for seed in (1, 2):
        n, seen = _play_match(seed, False)
        cuts += n
        kinds |= seen
    for k in (R.RESIGN, R.RESIGN_ACCEPT, R.DOUBLE, R.TAKE, R.GAME_END, R.ROLL, R.PLAY):
        assert k in kinds, R.name(k)
    assert cuts > 100


def test_power_cut_at_every_boundary_of_a_match_the_host_decides():
    n, seen = _play_match(5, True)
    for k in (R.DOUBLE, R.TAKE, R.DROP, R.GAME_END, R.PLAY):
        assert k in seen, R.name(k)
    assert n > 50
