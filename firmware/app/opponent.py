# pyright: reportOptionalMemberAccess=false, reportOptionalSubscript=false
"""The computer opponent and the coach: one player at the board alone.

``Opponent`` plays ``ctl.settings.computer`` (0/1; -1 = nobody) through the controller's own
transitions, and shows plays on the LEDs (``app.view`` paints ``plan``):

- its turn: it throws with the same fair dice (``I_ROLL``: the cup, the counter, the
  journal), picks a play with ``choose(pos, side, d1, d2) -> steps`` (pubeval on the device,
  ``bg.engine.pubeval``), and shows it step by step; the player moves those checkers, and
  when the recogniser (``bg.recognize``, the same one as for any play) reads exactly that
  play the board records it. A different complete play is refused: its rows to correct
  show as errors, nothing is recorded;
- the cube (docs/controller.md "Playing the computer"): it never doubles, never beavers,
  never resigns; it takes when the race allows (its pip count at most 12 % above the
  doubler's), accepts every resignation and refuses a casual illegal play (a player at
  another board, HELLO bit 7, answers and resigns through their host instead);
- the coach (any turn, on request: a long ROLL press of the mover): the best play for the
  roll, the opening book's play (``bg.aids.opening_move``) on the game's first
  roll; in learning mode (``Settings.learn``) after each confirmed play of a player the
  mover's tray LED says whether it was the best (``verdict``).

The board's own search (pubeval, in the app's engine task's slices), the coach and learning
mode's verdict are ``app.search``, made on first use (``search``): a side the board does not
decide -- a player at another board, a host deciding for the computer (``gammon play``) --
needs only the plan on the LEDs and the wait, and the board's heap holds nothing of the search
for it until the board must decide itself (docs/memory.md).

Pure: no asyncio, no HAL; the controller calls ``act(ctl, now)`` after every input, and the
opponent uses only the controller's public parts (``intent``, ``track``, ``board_matches``, its
state). Every buffer is made once here."""

from app import ctl_defs as D
from app import rules
from bg import recognize as _rec
from bg.board import apply_step, pip_count
from bg.match import F_RESIGNING
from micropython import const

VERDICT_MS = const(3000)  # learning mode: how long the tray LED says "best" / "not best"
BRAIN_MS = const(20000)  # a host's decisions are waited for this long after its last request
DECIDE_MS = const(30000)  # ... and at most this long per decision: then the board decides
_TAKE_PCT = const(112)  # takes while its pips are at most 12 % above the doubler's
_NST = const(5)  # a play's stages: the start and after each of up to 4 steps
_TICKS_MASK = const(0x3FFFFFFF)


class Opponent:
    """The computer's side and the coach for one controller (``ctl.opp``)."""

    search = None  # app.search.Search: the board's own best play, the coach, learning mode
    verdict = None  # learning mode: (side, best?, ticks, the best play) after a play
    _resign = -1  # a host's offer to resign for the computer (turn * 4 + value), -1: none

    def __init__(self, choose=None, strength="pubeval", gen=None):
        self._choose = choose  # a test's or a tool's chooser (None: pubeval), for the search
        self.strength = strength
        self._gen = gen  # the move generator the search and ``decided`` share (None: their own)
        self.plan = None  # steps shown on the LEDs (the computer's play or the coach's)
        self.plan_side = -1
        self.coaching = False  # the plan is the coach's (shown, never enforced)
        self.stage = 0  # how many steps of the plan the board shows done
        self.nstages = 0
        self._stages = [bytearray(rules.NLOC) for _ in range(_NST)]
        self.hits = bytearray(4)  # step k hits a blot
        self.wrong = False  # a complete play that is not the computer's is on the board
        self.missing = 0  # its rows to correct (against the computer's play)
        self.extra = 0
        self._turn_key = -1  # the planned turn (``ctl.throws``: each turn has its own throw)
        self._pos = bytearray(52)
        # a host deciding for the computer (``gammon play``, link request DECIDE): ticks of
        # its last request (-1: none), its decision ``_host``: (turn ``ctl.throws``, phase,
        # a play's steps or 1/0 for a cube question), the decision point being waited for
        # (``_wait_key``) since ``_wait_at``
        self.brain_at = -1
        self._host = None
        self._wait_key = -1
        self._wait_at = 0
        # the turn the board decides itself although a host said HELLO (it went quiet, or
        # let a decision pass): only then is the search run for the computer's side
        self._own_key = -1
        self.waiting = False  # the board waits for the host (the controller's tick asks again)
        # a player at another board decides (HELLO's bit 7, ``gammon remote play``): the board
        # never decides for them (it waits as long as it takes), answers a resignation only as
        # they do, and journals its own player's offer to resign once confirmed (their host
        # must see it)
        self.remote = False

    def far(self, ctl):
        """The computer's side is a player at another board (HELLO bit 7, or a two-board
        match: also resumed, before their host is back). Only their host decides for it, so
        nothing of the board's search (``app.search``, pubeval's chooser) is loaded for that
        side; this board's player may still ask the coach."""
        return self.remote or ctl.joint_side >= 0

    def own(self, ctl, key):
        """True when the board itself decides the computer's turn ``key``: nobody at another
        board plays it, and no host said HELLO or this turn is left to the board."""
        return not self.far(ctl) and (self.brain_at < 0 or self._own_key == key)

    def _search(self):
        """The board's search (``app.search``), made on first use."""
        s = self.search
        if s is None:
            from app.search import Search

            s = self.search = Search(self, self._choose, self._gen)
        return s

    def prepare(self, ctl):
        """Make the board's chooser now (the app's boot, while the heap is whole: pubeval's
        tables) where the board will search: the computer's side is not another board's
        player's, or learning mode judges this board's player."""
        if ctl.learn or not self.far(ctl):
            self._search().pubeval()

    def wants(self, ctl):
        """True when ``think`` has work (the app's engine task asks after every input)."""
        s = self.search
        if s is None:
            # (made here only for a computer's turn the board decides itself: its search)
            if ctl.phase != D.MOVING or ctl.side != ctl.settings.computer or not self.own(ctl, ctl.throws):
                return False
            s = self._search()
        return s.wanted(ctl) >= 0

    def think(self, ctl, n):
        """Score up to ``n`` more plays of the turn whose best play is wanted; True when it is
        known (or nothing is wanted). The engine task calls it with a yield between calls, then
        ``ctl.thought(now)``."""
        s = self.search
        return True if s is None else s.think(ctl, n)

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

    def final(self):
        return self._stages[self.nstages - 1]

    def blot_first(self, ctl):
        """The board reads the computer's plan at its stage with the next step's hit blot
        already on its bar -- what the LEDs ask for first (docs/leds.md): a hand mid-hit, not
        an illegal play. Allocates nothing."""
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
        the last match's turns (its best plays, plan, coach, verdict) may answer for them."""
        self.clear()
        self._turn_key = self._own_key = -1
        self.verdict = None
        if self.search is not None:
            self.search.new_match()

    def showing(self, ctl):
        """True while the LEDs should show the plan for the turn in progress."""
        return self.plan is not None and ctl.phase == D.MOVING and ctl.side == self.plan_side

    # -- the coach ---------------------------------------------------------------------------

    def coach(self, ctl):
        """The mover asked for the best play (long ROLL press): show it, or hide it again."""
        if ctl.phase != D.MOVING or ctl.side == ctl.settings.computer:
            return False
        return self._search().coach(ctl)

    # -- the computer's side ----------------------------------------------------------------

    def act(self, ctl, now):
        """After any input: judge a player's new play (learning mode) and follow the coach
        (the search, once made), then let the computer take every decision that is its own.
        Returns True when it did something."""
        s = self.search
        if s is None and ctl.learn:
            s = self._search()
        if s is not None:
            s.seen(ctl, now)
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

    def verdict_on(self, now):
        """The learning-mode verdict to show at ``now`` ((side, best?)), or None."""
        v = self.verdict
        if v is None:
            return None
        if ((now - v[2]) & _TICKS_MASK) >= VERDICT_MS:  # ticks_diff, wrap-safe
            self.verdict = None
            return None
        return v

    def _step(self, ctl, comp, now):
        """The computer's next decision, if one is its own now: an intent for the controller
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
                c = self._host_says(ctl, now)
                if c is None:
                    return False  # the host is deciding whether to double
                if c == 1:  # (-1: the board's own policy never doubles)
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
            c = self._host_says(ctl, now)
            if c is None:
                return False  # the host is deciding whether to take
            take = c == 1 or (c == -1 and self.takes(ctl.mt.pos, comp))
            return ctl.intent(comp, D.I_TAKE if take else D.I_DROP, None, now)
        if ph == D.RESIGNING and side != comp:
            if self.remote and ctl.mt.phase != F_RESIGNING:
                return False  # the player has not sent the offer yet (ROLL): nobody to wait for
            c = self._host_says(ctl, now) if self.remote else -1
            if c is None:
                return False  # the player at the other board is deciding
            return ctl.intent(comp, D.I_REJECT if c == 0 else D.I_ACCEPT, None, now)
        if ph == D.ILLEGAL and side != comp:
            return ctl.intent(comp, D.I_REJECT, None, now)  # it insists on a legal play
        return False

    # -- a host deciding for the computer (``gammon play``, docs/controller.md) ---------------

    def _host_says(self, ctl, now):
        """The host's decision at this point of the turn (steps of a play, 1/0 for a cube
        question), None while it is awaited (a host deciding, for at most ``DECIDE_MS``), -1
        when the board decides itself (no host, or it went quiet for ``BRAIN_MS``)."""
        key = ctl.throws
        ph = ctl.phase
        h = self._host
        if h is not None and h[0] == key and h[1] == ph:
            self.waiting = False
            return h[2]
        quiet = self.brain_at < 0 or ((now - self.brain_at) & _TICKS_MASK) >= BRAIN_MS
        if quiet and ctl.joint_side < 0:
            # (a player at another board in a two-board match: only they can decide, and the
            # throws need their board's shares anyway -- also after a power cut, before their
            # host is back: a play the board chose would be another match than theirs)
            self.remote = False
            self.waiting = False
            return -1
        point = key * 16 + ph
        if self._wait_key != point:
            self._wait_key = point
            self._wait_at = now
        if not self.remote and ctl.joint_side < 0 and ((now - self._wait_at) & _TICKS_MASK) >= DECIDE_MS:
            self.waiting = False
            return -1
        self.waiting = True
        return None

    def hello(self, ctl, side, name, now):
        """A host will decide for the computer, playing ``side`` as ``name`` (its strength,
        the name the records give a match that starts from now on; bit 7 of ``side``: a player
        at another board). None, or why not."""
        remote = side > 1
        side &= 1
        comp = ctl.settings.computer
        if side != comp:
            if ctl.mt.game_no or ctl.phase not in (D.IDLE, D.MATCH_OVER):
                return "the match in progress has no computer on that side"
        if name != self.strength or side != comp:
            o = ctl.settings
            names = list(o.names)
            if comp >= 0:
                names[comp] = ("white", "black")[comp]  # the computer's old side: a player again
            ctl.settings = ctl.config = type(o)(
                o.length, o.crawford, o.jacoby, o.beaver, o.auto_doubles, o.casual, o.clock_s,
                o.delay_s, o.house, names, side, name, o.learn,
            )  # fmt: skip
            self.strength = name
        self.brain_at = now
        self.remote = remote
        return None

    def decided(self, ctl, turn, value, now):
        """The host's decision for turn ``turn`` (``ctl.throws``): a play (steps, checked
        legal here) on the computer's turn, or a cube answer (True: double / take). None when
        taken, else why not (nothing changes). An int 1..3 (not a bool): the computer resigns
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

    def takes(self, pos, me):
        """The cube policy's take: ``me``'s pip count at most ``_TAKE_PCT`` % of the doubler's."""
        return pip_count(pos, me) * 100 <= pip_count(pos, 1 - me) * _TAKE_PCT

    def _move(self, ctl, now):
        if self.plan is None or self.coaching or self._turn_key != ctl.throws:
            d = ctl.dice
            h = self._host_says(ctl, now)
            if h is None:
                return False  # the host is choosing the play
            if isinstance(h, tuple):
                steps = h
            else:
                self._own_key = ctl.throws  # (the host, if any, did not decide this turn)
                steps = self._search().turn_best(ctl, ctl.throws, ctl.side, d[0], d[1], ctl.turn_start, False)
            if steps is None:
                return False  # the engine task is thinking (think): ctl.thought comes back here
            self._turn_key = ctl.throws
            self.show(ctl, tuple(steps), False)
            if not steps:
                self.clear()
                return ctl.intent(ctl.side, D.I_PLAY, (), now)  # no legal move: it passes
        if not ctl.sensed_valid:
            return False
        self.follow(ctl)
        st = ctl.track(now)
        self.wrong = False
        self.missing = self.extra = 0
        if ctl.sensed == self.final():
            plan = self.plan
            if ctl.intent(ctl.side, D.I_PLAY, plan, now):  # the board reads the computer's play
                self.clear()
                return True
        if st == _rec.COMPLETE or st == _rec.AMBIGUOUS:
            self._refuse(ctl)  # a whole play, not the computer's: show what to correct
        return False

    def _refuse(self, ctl):
        f = self.final()
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
