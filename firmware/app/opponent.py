# pyright: reportOptionalMemberAccess=false, reportOptionalSubscript=false
"""The computer opponent and the coach: one player at the board alone.

``Opponent`` is a ``app.plan.Plan`` (the plan on the LEDs, the wait for a host, the side's
throws and answers through the controller's own transitions) whose decisions the board may
take itself (``_says``): ``ctl.settings.computer`` (0/1; -1 = nobody) is the computer

- its turn: when no host decides it, it picks a play with ``choose(pos, side, d1, d2) ->
  steps`` (pubeval on the device, ``bg.engine.pubeval``) and shows it as a plan;
- the cube (docs/controller.md "Playing the computer"): it never doubles, never beavers,
  never resigns; it takes when the race allows (its pip count at most 12 % above the
  doubler's), accepts every resignation and refuses a casual illegal play (a player at
  another board, HELLO bit 7, answers and resigns through their host instead);
- a host deciding for it (``gammon play``, link request DECIDE) is waited for at most
  ``DECIDE_MS`` per decision, and not at all once it went quiet for ``BRAIN_MS``: then the
  board decides;
- the coach (any turn, on request: a long ROLL press of the mover): the best play for the
  roll, the opening book's play (``bg.aids.opening_move``) on the game's first
  roll; in learning mode (``Settings.learn``) after each confirmed play of a player the
  mover's tray LED says whether it was the best (``verdict``).

The board's own search (pubeval, in the app's engine task's slices), the coach and learning
mode's verdict are ``app.search``, made on first use (``search``): a host deciding for the
computer (``gammon play``) needs only the plan on the LEDs and the wait until it goes quiet,
and the board's heap holds nothing of the search for it until the board must decide itself.
A player at another board needs none of this module: the controller makes a ``Plan`` for them
(docs/memory.md), and this ``Opponent`` only once the coach is asked or learning mode judges.

Pure: no asyncio, no HAL; the opponent uses only the controller's public parts."""

from app import ctl_defs as D
from app.plan import BRAIN_MS, Plan
from bg.board import pip_count
from micropython import const

VERDICT_MS = const(3000)  # learning mode: how long the tray LED says "best" / "not best"
DECIDE_MS = const(30000)  # ... and at most this long per decision: then the board decides
_TAKE_PCT = const(112)  # takes while its pips are at most 12 % above the doubler's
_TICKS_MASK = const(0x3FFFFFFF)
# what a ``Plan`` holds that the ``Opponent`` taking over its side keeps (``was``)
_KEPT = ("plan", "plan_side", "stage", "nstages", "_stages", "hits", "wrong", "missing", "extra",
         "_turn_key", "_pos", "brain_at", "_host", "waiting", "remote", "_resign")  # fmt: skip


class Opponent(Plan):
    """The computer's side and the coach for one controller (``ctl.opp``)."""

    OWN = True  # the board may decide this side's plays
    search = None  # app.search.Search: the board's own best play, the coach, learning mode
    verdict = None  # learning mode: (side, best?, ticks, the best play) after a play

    def __init__(self, choose=None, gen=None, was=None):
        Plan.__init__(self, gen)
        if was is not None:  # the plan and the wait of a ``Plan`` whose side this takes over
            for n in _KEPT:
                setattr(self, n, getattr(was, n))
        self._choose = choose  # a test's or a tool's chooser (None: pubeval), for the search
        # the decision point being waited for from a host (``_wait_key``) since ``_wait_at``
        self._wait_key = -1
        self._wait_at = 0
        # the turn the board decides itself although a host said HELLO (it went quiet, or
        # let a decision pass): only then is the search run for the computer's side
        self._own_key = -1

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

    def new_match(self):
        """A new match: nothing known about the last match's turns (its best plays, plan,
        coach, verdict) may answer for the new one's."""
        Plan.new_match(self)
        self._own_key = -1
        self.verdict = None
        if self.search is not None:
            self.search.new_match()

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
        return Plan.act(self, ctl, now)

    def verdict_on(self, now):
        """The learning-mode verdict to show at ``now`` ((side, best?)), or None."""
        v = self.verdict
        if v is None:
            return None
        if ((now - v[2]) & _TICKS_MASK) >= VERDICT_MS:  # ticks_diff, wrap-safe
            self.verdict = None
            return None
        return v

    def _says(self, ctl, now):
        """The computer's decision at this point of the turn: the host's (steps of a play,
        1/0 for a cube question), None while it is awaited (a host deciding, for at most
        ``DECIDE_MS``) or the engine task is thinking; the board's own when no host decides
        (none said HELLO, or it went quiet for ``BRAIN_MS``, or let ``DECIDE_MS`` pass)."""
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
            return self._own(ctl)
        point = key * 16 + ph
        if self._wait_key != point:
            self._wait_key = point
            self._wait_at = now
        if not self.remote and ctl.joint_side < 0 and ((now - self._wait_at) & _TICKS_MASK) >= DECIDE_MS:
            self.waiting = False
            return self._own(ctl)
        self.waiting = True
        return None

    def _own(self, ctl):
        """The board's own decision (the cube policy; the search's play, None while the engine
        task thinks)."""
        ph = ctl.phase
        comp = ctl.settings.computer
        if ph == D.MOVING:
            self._own_key = ctl.throws  # (the host, if any, did not decide this turn)
            d = ctl.dice
            return self._search().turn_best(ctl, ctl.throws, ctl.side, d[0], d[1], ctl.turn_start, False)
        if ph == D.DOUBLED:
            return 1 if self.takes(ctl.mt.pos, comp) else 0
        return 1 if ph == D.RESIGNING else 0  # it accepts every resignation, never doubles

    def takes(self, pos, me):
        """The cube policy's take: ``me``'s pip count at most ``_TAKE_PCT`` % of the doubler's."""
        return pip_count(pos, me) * 100 <= pip_count(pos, 1 - me) * _TAKE_PCT
