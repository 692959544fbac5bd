# pyright: reportOptionalMemberAccess=false, reportOptionalSubscript=false
"""The board's own search for a turn's best play: the computer's play when the board decides
it, the coach, learning mode's verdict (``Opponent.search``, made on first use).

A side the board does not decide needs none of this: a player at another board (their host
decides) or a host deciding for the computer (``gammon play``) leave only the plan on the LEDs
and the wait (``app.opponent``), and this module is not imported until the board must decide
itself (the host went quiet), its player asks the coach, or learning mode judges a play. The
board's heap: its function objects, its state and pubeval's chooser stay out of a two-board
match and out of a hosted one (docs/memory.md).

Thinking in slices: pubeval scores every play of the roll (2,140 on the worst position: ~130
ms estimated on the ESP32), too long to hold the event loop. When the app runs its engine task
(``ctl.sliced``, app.main) the best play of the turn in progress is computed there, a few plays
at a time (``think``), as soon as the turn begins (the computer's turn unless a host decides
it, and each player's turn in learning mode or once the coach was asked); the controller's
calls then find it ready. One not ready yet waits: the computer's play appears, the coach's
shows, the verdict comes once ``think`` has it (``ctl.thought`` calls ``act`` again). Without
the task (tests, tools) every choice is made at once."""

from app import ctl_defs as D
from app import rules


def chooser(strength="pubeval"):
    """A play chooser for ``strength`` (``choose(pos, side, d1, d2) -> steps``) on its own
    generator (tests, tools); the board's ``Search`` makes its own on the recogniser's."""
    if strength != "pubeval":
        raise ValueError("unknown strength %r" % (strength,))
    from bg.engine.pubeval import PubEval

    return PubEval().best


def same_play(start, side, a, b, scratch):
    """True when the plays ``a`` and ``b`` (steps) lead from ``start`` to one position."""
    s1, s2 = scratch
    s1[:] = start
    s2[:] = start
    rules.apply_steps(s1, side, a)
    rules.apply_steps(s2, side, b)
    return s1 == s2


class Search:
    """The best play of a turn for one ``Opponent`` (``opp``): its chooser (``choose``: a
    test's or a tool's; None: pubeval on the recogniser's generator ``gen``), the coach,
    learning mode's judge. It shows plans and verdicts through the opponent's public parts."""

    def __init__(self, opp, choose=None, gen=None):
        self.opp = opp
        self._choose = choose
        self._gen = gen  # the move generator the chooser shares (None: its own)
        self._pe = None  # the device's chooser (bg.engine.pubeval.PubEval) once made
        self.known = -1  # the turn (ctl.throws) whose best play ``_ans`` is
        self._ans = ()
        self._job_key = -1  # the turn whose best play ``think`` is computing (-1: none)
        self._coach_wait = -1  # the turn whose coach was asked before its best play was known
        self._judge_wait = False  # a verdict waits for the engine task's best play
        self._seen = None  # the last play judged (ctl.last_play)
        self._judge = None  # (side, d1, d2, start, opening, turn) of the player's turn in progress
        self._judge_turn = -1
        self._scratch = None  # learning mode's two positions (made by its first verdict)

    def choose(self, pos, side, d1, d2):
        f = self._choose
        if f is None:
            f = self.pubeval().best
        return f(pos, side, d1, d2)

    def pubeval(self):
        """The device's chooser (``bg.engine.pubeval.PubEval`` on the shared generator), made
        on first use. It is pubeval whatever the strength's name: a name a host gave
        (``hello``: "gnubg 2-ply") is the host's, and the board decides with its own when the
        host is not there."""
        if self._pe is None:
            from bg.engine.pubeval import PubEval

            self._pe = PubEval(self._gen)
            self._choose = self._pe.best
        return self._pe

    def best(self, pos, side, d1, d2, opening):
        """The coach's play: the book's on the game's first roll, else the chooser's."""
        if opening:
            from bg.aids import opening_move

            return opening_move(d1, d2)
        return self.choose(pos, side, d1, d2)

    def new_match(self):
        """A new match: its turns count from 1 again (``ctl.throws``)."""
        self.known = self._job_key = self._coach_wait = self._judge_turn = -1
        self._judge = None
        self._judge_wait = False

    # -- thinking in slices (the app's engine task) ----------------------------------------

    def _sliceable(self):
        return self._choose is None or self._pe is not None

    def turn_best(self, ctl, key, side, d1, d2, start, opening):
        """The best play of turn ``key``: at once when known (the book's, or ``think``
        computed it), else None when the engine task will compute it (``ctl.sliced``),
        else computed now."""
        if opening:
            return self.best(start, side, d1, d2, True)
        if self.known == key:
            return self._ans
        if ctl.sliced and self._sliceable():
            return None
        return self.choose(start, side, d1, d2)

    def wanted(self, ctl):
        """The turn (``ctl.throws``) whose best play is wanted and not known: a verdict
        waiting for it (``_judge``), else the turn in progress when it is the computer's, or a
        player's in learning mode or once the coach was asked; -1 for none. Allocates nothing
        (the engine task asks after every input, ``think`` at every chunk)."""
        if not ctl.sliced or not self._sliceable():
            return -1
        j = self._judge
        if self._judge_wait and j is not None and self.known != j[5]:
            return j[5]
        if ctl.phase != D.MOVING:
            return -1
        key = ctl.throws
        if self.known == key:
            return -1
        comp = ctl.settings.computer
        if ctl.side != comp and not ctl.learn and self._coach_wait != key:
            return -1
        if ctl.side == comp and not self.opp.own(ctl, key):
            return -1  # their host decides: no search for that side until the board must decide
        if self._job_key != key and ctl.side != comp and self._opening(ctl):
            return -1  # a player's opening: the book's play, no search (the computer searches)
        return key

    def think(self, ctl, n):
        """Score up to ``n`` more plays of the wanted turn's (``wanted``); True when its best
        play is known (or nothing is wanted)."""
        key = self.wanted(ctl)
        if key < 0:
            self._job_key = -1
            return True
        pe = self.pubeval()
        if self._job_key != key:
            j = self._judge
            if self._judge_wait and j is not None and j[5] == key:
                pe.start(j[3], j[0], j[1], j[2])  # the judged turn's start and dice
            else:
                d = ctl.dice
                pe.start(ctl.turn_start, ctl.side, d[0], d[1])
            self._job_key = key
        try:
            done = pe.run(n)
        except RuntimeError:  # the recogniser used the shared generator meanwhile: again
            self._job_key = -1
            return False
        if done:
            self._ans = pe.steps()
            self.known = key
            self._job_key = -1
        return done

    # -- the coach and learning mode (a player's turn) ---------------------------------------

    def coach(self, ctl):
        """The mover asked for the best play (long ROLL press): show it, or hide it again."""
        o = self.opp
        if self._judge_turn != ctl.throws:
            self._new_turn(ctl)  # asked before this turn was seen (the coach made on first use)
        if o.plan is not None and o.coaching or self._coach_wait == ctl.throws:
            o.clear()
            self._coach_wait = -1
            return True
        d = ctl.dice
        steps = self.turn_best(ctl, ctl.throws, ctl.side, d[0], d[1], ctl.turn_start, self._opening(ctl))
        if steps is None:
            self._coach_wait = ctl.throws  # shown as soon as the engine task has it (seen)
            return True
        o.show(ctl, steps, True)
        return True

    def _new_turn(self, ctl):
        """A new turn of a player: what learning mode will judge; last turn's coach goes."""
        self._judge_turn = ctl.throws
        self._judge_wait = False  # (a verdict still waiting for the last turn is dropped)
        d = ctl.dice
        self._judge = (ctl.side, d[0], d[1], bytes(ctl.turn_start), self._opening(ctl), ctl.throws)
        if self.opp.coaching:
            self.opp.clear()

    def _opening(self, ctl):
        return ctl.last_play is None and ctl.turn_start == rules.start_position()

    def seen(self, ctl, now):
        """After any input (``Opponent.act``): judge a player's new play (learning mode), and
        follow the coach on a player's turn."""
        if ctl.last_play is not self._seen:
            self._seen = ctl.last_play
            self._judged(ctl, now)
        elif self._judge_wait:
            self._judged(ctl, now)  # a verdict waiting for the engine task's best play
        if ctl.phase == D.MOVING and ctl.side != ctl.settings.computer:
            o = self.opp
            if self._judge_turn != ctl.throws:  # a new turn (no allocation on every reading)
                self._new_turn(ctl)
            elif o.coaching and o.plan is not None:
                o.follow(ctl)
            elif self._coach_wait == ctl.throws and self.known == ctl.throws:
                self._coach_wait = -1
                o.show(ctl, self._ans, True)  # the coach asked before it was known

    def _judged(self, ctl, now):
        self._judge_wait = False
        lp = ctl.last_play
        j = self._judge
        if lp is None or j is None or not ctl.learn or lp[0] == ctl.settings.computer:
            return
        side, d1, d2, start, opening, key = j
        if side != lp[0]:
            return
        best = self.turn_best(ctl, key, side, d1, d2, start, opening)
        if best is None:
            self._judge_wait = True  # judged once the engine task knows it (seen asks again)
            return
        sc = self._scratch
        if sc is None:
            sc = self._scratch = (bytearray(52), bytearray(52))
        ok = same_play(start, lp[0], lp[1], best, sc)
        if opening and not ok:
            from bg.aids import opening_alternatives

            for alt in opening_alternatives(d1, d2):
                ok = ok or same_play(start, lp[0], lp[1], alt, sc)
        self.opp.verdict = (lp[0], ok, now, best)
        self._judge = None
