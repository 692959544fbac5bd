"""A host deciding for the board's computer (``gammon play``; ``Opponent.hello/decided``,
``Controller.decide``; the link's DECIDE request is tests/portable/test_protocol_decide.py).

While a host is there (its last request less than ``BRAIN_MS`` ago) the computer waits at each
of its decision points -- its play, whether to double, whether to take -- for the host's
answer, at most ``DECIDE_MS``; a host gone quiet (the link dropped) or too slow leaves the
decision to the board's own opponent. What the host sends is checked against the match: a
play must be legal for this turn's dice, a cube answer must be the computer's to give; a
refusal changes nothing.

On MicroPython these also run through tests/host/test_controller_mpy.py, on the board model at
the board's 64k."""

import ctl_helpers as H
from app import controller as C
from app import opponent as O
from app import rules
from app import search as S


class _Spy:
    def __init__(self):
        self.asked = 0
        self.last = None

    def __call__(self, pos, side, d1, d2):
        self.asked += 1
        self.last = H.first_play(pos, side, d1, d2)
        return self.last


class _Tape:
    def __init__(self):
        self.records = []

    def __call__(self, k, f):
        self.records.append((k, f))

    def kinds(self):
        return [k for k, _ in self.records]

    def take(self, c):
        """What the controller emitted since the robot's last drain (the app drains at once)."""
        while c.outbox:
            self.records.append(c.outbox.pop(0))
        return self.records


def _hosted(comp=1, seed=7, name="gnubg 2-ply", **kw):
    tape = _Tape()
    c = H.make(computer=comp, length=5, **kw)
    spy = _Spy()
    c.opp = O.Opponent(spy)
    r = H.Robot(c, seed, drain=tape)
    r.now = 1000
    assert c.opp.hello(c, comp, name, r.now) is None
    return c, r, spy, tape


def _start(c, r):
    r.set_start()
    assert r.press(0, C.ROLL)
    while c.phase == C.OPENING:
        assert r.press(0, C.ROLL)


def _follow(c, r):
    """The player moves the computer's checkers as its LEDs say."""
    side = c.side
    plan = c.opp.plan
    for k in range(0, len(plan), 2):
        rules._board.apply_step(r.pos, side, plan[k], plan[k + 1])
        r.sense()
    assert c.phase != C.MOVING or c.side != side
    return plan


def _other_play(c, r):
    """A legal play of the side on roll that is not the generator's first one (the spy's)."""
    first = H.first_play(c.turn_start, c.side, c.dice[0], c.dice[1])
    scratch = (bytearray(52), bytearray(52))
    for seed in range(1, 40):
        r.rng = H.Lcg(seed)
        p = r.pick_play()
        if not S.same_play(c.turn_start, c.side, p, first, scratch):
            return p
    return first


def _to_computer_decision(c, r, comp, want, answer_cube=True):
    """Play on (the player at random, the host answering the computer's turns with its first
    play and no double) until the computer waits in phase ``want``."""
    for _ in range(200):
        o = c.opp
        if c.side == comp and c.phase == want and o.waiting:
            return
        if c.phase == C.MOVING and c.side == comp:
            if o.waiting:
                first = H.first_play(c.turn_start, comp, c.dice[0], c.dice[1])
                assert c.decide(c.throws, first, r.now) is None
            _follow(c, r)
        elif c.phase == C.MOVING:
            r.play_turn()
        elif c.phase == C.AWAIT_ROLL and c.side == comp:
            assert o.waiting and answer_cube
            assert c.decide(c.throws, False, r.now) is None  # roll
        elif c.phase == C.AWAIT_ROLL:
            assert r.press(c.side, C.ROLL)
        else:
            raise AssertionError("phase %d" % c.phase)
    raise AssertionError("the computer never waited in phase %d" % want)


def test_the_computer_waits_for_the_hosts_play_and_plays_it():
    c, r, spy, tape = _hosted()
    _start(c, r)
    _to_computer_decision(c, r, 1, C.MOVING)
    o = c.opp
    assert o.plan is None and spy.asked == 0  # nothing shown, the board's chooser not asked
    play = _other_play(c, r)
    start = bytes(c.turn_start)
    assert c.decide(c.throws, play, r.now) is None
    assert o.plan == play and not o.waiting
    n = len(tape.records)
    _follow(c, r)
    plays = [f for k, f in tape.records[n:] if k == C.K_PLAY]
    assert len(plays) == 1 and plays[0][0] == 1
    f = plays[0]
    assert S.same_play(start, 1, f[1], play, (bytearray(52), bytearray(52)))
    assert spy.asked == 0


def test_a_wrong_decision_is_refused_and_changes_nothing():
    c, r, spy, tape = _hosted()
    _start(c, r)
    _to_computer_decision(c, r, 1, C.MOVING)
    t = c.throws
    d1, d2 = c.dice[0], c.dice[1]
    assert "turn" in c.decide(t - 1, H.first_play(c.turn_start, 1, d1, d2), r.now)
    assert "not a legal play" in c.decide(t, (24, 23), r.now) or d1 == 1 or d2 == 1
    assert "not a legal play" in c.decide(t, (), r.now)  # passing is not legal here
    assert "cube" in c.decide(t, True, r.now)
    assert c.opp.plan is None and c.opp.waiting and c.phase == C.MOVING and c.side == 1
    # the player's turn is never the host's
    play = _other_play(c, r)
    assert c.decide(t, play, r.now) is None
    _follow(c, r)
    assert c.phase == C.AWAIT_ROLL and c.side == 0
    assert "cube" in c.decide(c.throws, True, r.now)  # the player's cube is the player's
    assert r.press(0, C.ROLL)
    assert c.phase == C.MOVING and c.side == 0
    assert "not the computer's play" in c.decide(c.throws, r.pick_play(), r.now)
    assert "cube" in c.decide(c.throws, False, r.now)


def test_a_slow_host_leaves_the_play_to_the_board_after_decide_ms():
    c, r, spy, tape = _hosted()
    _start(c, r)
    _to_computer_decision(c, r, 1, C.MOVING)
    now = r.now
    c.opp.brain_at = now + O.DECIDE_MS - 5000  # the host is still there (a request renews it)
    assert not c.tick(now + O.DECIDE_MS - 100) and c.opp.plan is None and c.opp.waiting
    assert c.tick(now + O.DECIDE_MS)  # waited long enough: the board's own play
    assert spy.asked == 1 and c.opp.plan == spy.last and not c.opp.waiting
    r.now = now + O.DECIDE_MS
    assert "already shows" in c.decide(c.throws, _other_play(c, r), r.now)  # too late: refused
    _follow(c, r)


def test_a_host_gone_quiet_leaves_every_decision_to_the_board():
    c, r, spy, tape = _hosted()
    _start(c, r)
    _to_computer_decision(c, r, 1, C.MOVING)
    # the link dropped: no request for BRAIN_MS
    now = c.opp.brain_at + O.BRAIN_MS
    assert c.tick(now)
    assert spy.asked == 1 and c.opp.plan == spy.last
    r.now = now
    _follow(c, r)
    # from now on the computer plays on its own at once: rolls, plays, never waits
    for _ in range(6):
        if c.phase == C.MOVING and c.side == 1:
            assert c.opp.plan is not None and not c.opp.waiting
            _follow(c, r)
        elif c.phase == C.MOVING:
            r.play_turn()
        elif c.phase == C.AWAIT_ROLL:
            assert c.side == 0 and r.press(0, C.ROLL)
    # the host comes back (a HELLO): the board waits for it again
    assert c.opp.hello(c, 1, "gnubg 2-ply", r.now) is None
    _to_computer_decision(c, r, 1, C.MOVING)


def test_the_host_doubles_and_answers_the_players_double():
    c, r, spy, tape = _hosted()
    _start(c, r)
    _to_computer_decision(c, r, 1, C.AWAIT_ROLL)
    assert c.may_double and c.side == 1
    assert c.decide(c.throws, True, r.now) is None  # double
    assert c.phase == C.DOUBLED and tape.take(c)[-1] == (C.K_DOUBLE, (1, 2))
    assert r.press(0, C.ROLL)  # the player takes
    # the computer cannot double again (the player owns the cube): it rolls at once, waits for
    # its play only
    assert c.phase == C.MOVING and c.side == 1 and c.opp.waiting
    _to_computer_decision(c, r, 1, C.MOVING)
    assert c.decide(c.throws, H.first_play(c.turn_start, 1, c.dice[0], c.dice[1]), r.now) is None
    _follow(c, r)
    # the player redoubles: the computer waits for the host's take or drop
    assert c.phase == C.AWAIT_ROLL and c.side == 0 and c.may_double
    assert r.press(0, C.CUBE)
    assert c.phase == C.DOUBLED and c.opp.waiting
    assert "turn" in c.decide(c.throws + 1, False, r.now)
    assert c.decide(c.throws, False, r.now) is None  # drop
    assert c.phase in (C.GAME_OVER, C.MATCH_OVER) and c.mt.score[0] == 2
    tape.take(c)
    assert C.K_DROP in tape.kinds()


def test_the_host_takes():
    c, r, spy, tape = _hosted(name="gnubg 0-ply")
    _start(c, r)
    _to_computer_decision(c, r, 1, C.AWAIT_ROLL)
    assert c.decide(c.throws, False, r.now) is None  # no double: it rolls
    assert c.phase == C.MOVING and c.side == 1
    _to_computer_decision(c, r, 1, C.MOVING)
    assert c.decide(c.throws, H.first_play(c.turn_start, 1, c.dice[0], c.dice[1]), r.now) is None
    _follow(c, r)
    assert c.phase == C.AWAIT_ROLL and c.side == 0
    assert r.press(0, C.CUBE)
    assert c.decide(c.throws, True, r.now) is None  # take
    assert tape.take(c)[-1] == (C.K_TAKE, (1,)) and c.mt.cube == 2


def test_hello_between_matches_sets_the_side_and_the_name_the_records_give():
    tape = _Tape()
    c = H.make(length=3, names=("ann", "bob"))
    r = H.Robot(c, 3, drain=tape)
    assert c.settings.computer == -1
    assert c.hello(1, "gnubg 1-ply", 10) is None
    assert c.settings.computer == 1 and c.settings.names == ("ann", "gnubg 1-ply")
    assert c.settings.length == 3
    r.set_start()
    assert r.press(0, C.ROLL)
    k, f = tape.records[0]
    assert k == C.K_MATCH_START and f[7] == "ann" and f[8] == "gnubg 1-ply"
    assert f[3] & C.OPT_COMPUTER[1]
    # mid-match the computer's side is the match's: another side is refused, nothing changes
    while c.phase == C.OPENING:
        assert r.press(0, C.ROLL)
    assert "no computer on that side" in c.opp.hello(c, 0, "gnubg 1-ply", 20)
    assert c.settings.computer == 1
    # the same side with another strength: kept for the next match, this one's record stays
    assert c.opp.hello(c, 1, "gnubg 2-ply", 30) is None
    assert c.settings.computer == 1 and c.settings.names[1] == "gnubg 2-ply"


def test_while_a_host_decides_the_board_does_not_search_and_searches_once_it_went_quiet():
    """The app's engine task (``sliced``) searches the computer's best play only when the board
    decides it: while a host is there neither the board's search (``app.search``) nor
    pubeval's chooser is made (1.6 kB of the board's heap in ``gammon play``); once the host
    went quiet the search runs and its play is shown."""
    import sys

    from bg import engine as movegen

    sys.modules.pop("app.search", None)  # (an earlier test may have imported it)
    c = H.make(computer=1, length=5)
    c.sliced = True
    c.opp = o = O.Opponent(gen=getattr(c.rec, "gen", None))
    r = H.Robot(c, 7)
    r.now = 1000
    assert o.hello(c, 1, "gnubg 0-ply", r.now) is None
    _start(c, r)
    _to_computer_decision(c, r, 1, C.MOVING)
    assert o.waiting and not o.wants(c) and o.search is None and o.plan is None
    assert "app.search" not in sys.modules
    assert not c.tick(r.now + O.BRAIN_MS - 1) and o.waiting and not o.wants(c)
    r.now = o.brain_at + O.BRAIN_MS  # the link dropped: no request for BRAIN_MS
    c.tick(r.now)
    assert not o.waiting and o.plan is None and o.wants(c)  # now the board searches
    for _ in range(10000):
        if o.think(c, 64):
            break
    else:
        raise AssertionError("the search never ended")
    assert o.search is not None and "app.search" in sys.modules and c.thought(r.now)
    assert o.showing(c) and movegen.is_legal(c.turn_start, 1, c.dice[0], c.dice[1], o.plan)
    _follow(c, r)
