# pyright: reportOptionalMemberAccess=false, reportOptionalSubscript=false
"""A side whose plays come from elsewhere: the plan on the LEDs and the wait.

``Plan`` plays ``ctl.settings.computer`` (0/1) for a player at another board (HELLO bit 7,
``gammon remote play``; a two-board match, also resumed before their host is back): their host
sends each decision (``decided``), the board shows a play step by step on the LEDs
(``app.view`` paints ``plan``), the local player moves those checkers, and when the recogniser
(``bg.recognize``, the same one as for any play) reads exactly that play the board records it.
A different complete play is refused: its rows to correct show as errors, nothing is
recorded. The side's throws are the board's (``I_ROLL``: the cup, the counter, the journal; in
a two-board match the joint dice). It waits as long as its host takes: the board never decides
for a player at another board (a play it chose would be another match than theirs).

The board's own decisions -- the computer's play (pubeval), its cube policy, a host deciding
for the computer that may go quiet (``gammon play``), the coach and learning mode -- are
``app.opponent.Opponent``, a ``Plan`` that also decides (``_says``). The controller makes a
``Plan`` where nothing is the board's to decide and an ``Opponent`` otherwise
(``Controller._opponent``). The board's heap: in a match with another board its function
objects and its state stay out (docs/memory.md "The side at another board").

Pure: no asyncio, no HAL; the controller calls ``act(ctl, now)`` after every input, and a plan
uses only the controller's public parts (``intent``, ``track``, ``board_matches``, its state).
Every buffer is made once here."""

from app import ctl_defs as D
from app import rules
from bg import recognize as _rec
from bg.board import apply_step
from bg.match import F_RESIGNING
from micropython import const

BRAIN_MS = const(20000)  # a host's decisions are waited for this long after its last request
_NST = const(5)  # a play's stages: the start and after each of up to 4 steps
_TICKS_MASK = const(0x3FFFFFFF)


class Plan:
    """The side at another board for one controller (``ctl.opp``)."""

    OWN = False  # the board decides none of this side's plays (``Opponent``: True)
    verdict = None  # learning mode's (``Opponent``): never here
    _resign = -1  # a host's offer to resign for its side (turn * 4 + value), -1: none

    def __init__(self, gen=None):
        self._gen = gen  # the move generator that checks a host's play (None: bg.engine's)
        self.plan = None  # steps shown on the LEDs (the other side's play or the coach's)
        self.plan_side = -1
        self.coaching = False  # the plan is the coach's (shown, never enforced: ``Opponent``)
        self.stage = 0  # how many steps of the plan the board shows done
        self.nstages = 0
        self._stages = [bytearray(rules.NLOC) for _ in range(_NST)]
        self.hits = bytearray(4)  # step k hits a blot
        self.wrong = False  # a complete play that is not the one shown is on the board
        self.missing = 0  # its rows to correct (against the play shown)
        self.extra = 0
        self._turn_key = -1  # the planned turn (``ctl.throws``: each turn has its own throw)
        self._pos = bytearray(52)
        # a host deciding for this side (link request DECIDE): ticks of its last request (-1:
        # none), its decision ``_host``: (turn ``ctl.throws``, phase, a play's steps or 1/0
        # for a cube question)
        self.brain_at = -1
        self._host = None
        self.waiting = False  # the board waits for the host (the controller's tick asks again)
        # a player at another board decides (HELLO's bit 7, ``gammon remote play``): the board
        # answers a resignation only as they do, and journals its own player's offer to resign
        # once confirmed (their host must see it)
        self.remote = False

    def far(self, ctl):
        """The side is a player at another board (HELLO bit 7, or a two-board match: also
        resumed, before their host is back). Only their host decides for it."""
        return self.remote or ctl.joint_side >= 0

    def wants(self, ctl):
        """True when the board's search has work (the app's engine task asks after every
        input): never for a side whose plays come from elsewhere."""
        return False

    # -- the plan on the LEDs ---------------------------------------------------------------

    def show(self, ctl, steps, coaching):
        """Show ``steps`` on the LEDs for the turn in progress (the coach's: ``coaching``)."""
        self.plan = steps
        self.plan_side = ctl.side
        self.coaching = coaching
        p = self._pos
        p[:] = ctl.turn_start
        caps = ctl.caps
        _rec.observe(p, self._stages[0], caps)
        n = len(steps) // 2
        for k in range(n):
            self.hits[k] = apply_step(p, ctl.side, steps[2 * k], steps[2 * k + 1])
            _rec.observe(p, self._stages[k + 1], caps)
        self.nstages = n + 1
        self.stage = 0
        self.wrong = False
        self.follow(ctl)

    def follow(self, ctl):
        """Which stage of the plan the board reads (the last one reached stays until the
        reading is another stage: a checker in the hand reads as no stage at all)."""
        s = ctl.sensed
        for k in range(self.nstages - 1, -1, -1):
            if s == self._stages[k]:
                self.stage = k
                return k
        return -1

    def blot_first(self, ctl):
        """The board reads the plan at its stage with the next step's hit blot already on its
        bar -- what the LEDs ask for first (docs/leds.md): a hand mid-hit, not an illegal
        play. Allocates nothing."""
        k = self.stage
        if self.coaching or not self.showing(ctl) or k >= self.nstages - 1 or not self.hits[k]:
            return False
        side = self.plan_side
        bar = _rec.ROW_BAR0 + 1 - side
        blot = _rec.row_of(side, self.plan[2 * k + 1])
        s = ctl.sensed
        want = self._stages[k]
        for r in range(len(want)):
            if s[r] - want[r] != (1 if r == bar else -1 if r == blot else 0):
                return False
        return True

    def stage_counts(self, k):
        """What the sensors read after ``k`` steps of the plan."""
        return self._stages[k]

    def clear(self):
        self.plan = None
        self.coaching = False
        self.wrong = False
        self.missing = self.extra = 0

    def new_match(self):
        """A new match: its turns count from 1 again (``ctl.throws``), so nothing known about
        the last match's turns (the plan) may answer for them."""
        self.clear()
        self._turn_key = -1

    def showing(self, ctl):
        """True while the LEDs should show the plan for the turn in progress."""
        return self.plan is not None and ctl.phase == D.MOVING and ctl.side == self.plan_side

    # -- the side's decisions ---------------------------------------------------------------

    def act(self, ctl, now):
        """After any input: take every decision of the side that is known now. Returns True
        when it did something."""
        comp = ctl.settings.computer
        self.waiting = False  # (set again by a decision point still waiting for the host)
        if comp < 0:
            return False
        did = False
        for _ in range(8):  # a few decisions in a row at most (take, roll, pass...)
            if not self._step(ctl, comp, now):
                break
            did = True
        return did

    def _step(self, ctl, comp, now):
        """The side's next decision, if one is due now: an intent for the controller
        (``Controller.intent``, the same transitions as a player's press)."""
        ph = ctl.phase
        side = ctl.side
        r = self._resign
        if r >= 0 and side == comp and (ph == D.AWAIT_ROLL or ph == D.MOVING):
            self._resign = -1
            if r >> 2 == ctl.throws:  # the host's offer to resign, for this turn
                self.clear()
                return ctl.intent(comp, D.I_RESIGN, r & 3, now)
        if ph == D.AWAIT_ROLL and side == comp:
            if not ctl.board_matches():
                return False  # the player still sets the last play right: wait
            if ctl.may_double:
                c = self._says(ctl, now)
                if c is None:
                    return False  # the host is deciding whether to double
                if c == 1:
                    self.clear()
                    return ctl.intent(comp, D.I_DOUBLE, None, now)
            self.clear()
            return ctl.intent(comp, D.I_ROLL, None, now)  # the cup, the counter, the journal
        if ph == D.MOVING and side == comp:
            return self._move(ctl, now)
        if ph == D.CHOICE and side == comp:
            return ctl.intent(comp, D.I_KEEP, None, now)  # house opening: it keeps its throw
        if ph == D.OPENING and ctl.mt.game_no and ctl.settings.house:
            want = 0 if ctl.house_first is None else 1
            if want == comp and ctl.mt.opening.state == 0:
                return ctl.intent(comp, D.I_ROLL, None, now)
            return False
        if ph == D.DOUBLED and side != comp:
            c = self._says(ctl, now)
            if c is None:
                return False  # the host is deciding whether to take
            return ctl.intent(comp, D.I_TAKE if c == 1 else D.I_DROP, None, now)
        if ph == D.RESIGNING and side != comp:
            if not self.remote:
                return ctl.intent(comp, D.I_ACCEPT, None, now)  # the computer accepts every one
            if ctl.mt.phase != F_RESIGNING:
                return False  # the player has not sent the offer yet (ROLL): nobody to wait for
            c = self._says(ctl, now)
            if c is None:
                return False  # the player at the other board is deciding
            return ctl.intent(comp, D.I_REJECT if c == 0 else D.I_ACCEPT, None, now)
        if ph == D.ILLEGAL and side != comp:
            return ctl.intent(comp, D.I_REJECT, None, now)  # it insists on a legal play
        return False

    def _says(self, ctl, now):
        """The side's decision at this point of the turn (steps of a play, 1/0 for a cube
        question), None while its host is awaited: in a two-board match as long as it takes.
        Outside one, a host quiet for ``BRAIN_MS`` no longer plays the side (``remote``
        False): the controller's next tick gives it to the board (``Opponent``)."""
        h = self._host
        if h is not None and h[0] == ctl.throws and h[1] == ctl.phase:
            self.waiting = False
            return h[2]
        if ctl.joint_side < 0 and (self.brain_at < 0 or ((now - self.brain_at) & _TICKS_MASK) >= BRAIN_MS):
            self.remote = False
        self.waiting = True
        return None

    # -- a host deciding for the side (link request DECIDE, docs/controller.md) ------------

    def hello(self, ctl, side, name, now):
        """A host will decide for the computer's side, playing ``side`` as ``name`` (its
        strength, the name the records give a match that starts from now on; bit 7 of
        ``side``: a player at another board). None, or why not."""
        remote = side > 1
        side &= 1
        o = ctl.settings
        comp = o.computer
        if side != comp:
            if ctl.mt.game_no or ctl.phase not in (D.IDLE, D.MATCH_OVER):
                return "the match in progress has no computer on that side"
        if name != o.strength or side != comp:
            names = list(o.names)
            if comp >= 0:
                names[comp] = ("white", "black")[comp]  # the computer's old side: a player again
            ctl.settings = ctl.config = type(o)(
                o.length, o.crawford, o.jacoby, o.beaver, o.auto_doubles, o.casual, o.clock_s,
                o.delay_s, o.house, names, side, name, o.learn,
            )  # fmt: skip
        self.brain_at = now
        self.remote = remote
        return None

    def decided(self, ctl, turn, value, now):
        """The host's decision for turn ``turn`` (``ctl.throws``): a play (steps, checked
        legal here) on the side's turn, or a cube answer (True: double / take). None when
        taken, else why not (nothing changes). An int 1..3 (not a bool): the side resigns
        that value on its turn; a bool while the player offers to resign: accept / reject."""
        if self.brain_at < 0:
            return "no HELLO from this host"
        self.brain_at = now
        comp = ctl.settings.computer
        ph = ctl.phase
        if turn != ctl.throws:
            return "turn %d is not the board's turn %d" % (turn, ctl.throws)
        if isinstance(value, tuple):
            if ph != D.MOVING or ctl.side != comp:
                return "not the computer's play"
            if self._turn_key == turn and self.plan is not None and not self.coaching:
                return "the board already shows its own play"
            d = ctl.dice
            gen = self._gen
            if gen is None:
                from bg import engine as gen
            if not gen.is_legal(ctl.turn_start, comp, d[0], d[1], value):
                return "not a legal play for %d-%d" % (d[0], d[1])
        elif not isinstance(value, bool):
            if not (ph == D.AWAIT_ROLL or ph == D.MOVING) or ctl.side != comp:
                return "the computer may resign only on its turn"
            self._resign = turn * 4 + value
            return None
        elif ph == D.RESIGNING and ctl.side != comp:
            if ctl.mt.phase != F_RESIGNING:
                return "the offer to resign is not confirmed yet"
            value = 1 if value else 0
        elif not (ph == D.AWAIT_ROLL and ctl.side == comp and ctl.may_double) and not (
            ph == D.DOUBLED and ctl.side != comp
        ):
            return "no cube decision is the computer's now"
        else:
            value = 1 if value else 0
        self._host = (turn, ph, value)
        return None

    def _move(self, ctl, now):
        if self.plan is None or self.coaching or self._turn_key != ctl.throws:
            steps = self._says(ctl, now)
            if steps is None:
                return False  # the host is choosing the play (or the engine task thinking)
            self._turn_key = ctl.throws
            self.show(ctl, tuple(steps), False)  # pyright: ignore[reportArgumentType] (a play at MOVING)
            if not steps:
                self.clear()
                return ctl.intent(ctl.side, D.I_PLAY, (), now)  # no legal move: it passes
        if not ctl.sensed_valid:
            return False
        self.follow(ctl)
        st = ctl.track(now)
        self.wrong = False
        self.missing = self.extra = 0
        if ctl.sensed == self._stages[self.nstages - 1]:
            if ctl.intent(ctl.side, D.I_PLAY, self.plan, now):  # the board reads the play shown
                self.clear()
                return True
        if st == _rec.COMPLETE or st == _rec.AMBIGUOUS:
            self._refuse(ctl)  # a whole play, not the one shown: show what to correct
        return False

    def _refuse(self, ctl):
        f = self._stages[self.nstages - 1]
        s = ctl.sensed
        m = e = 0
        for i in range(rules.NLOC):
            if s[i] < f[i]:
                m |= 1 << i
            elif s[i] > f[i]:
                e |= 1 << i
        self.wrong = True
        self.missing = m
        self.extra = e
        ctl.message = "not the computer's play"
