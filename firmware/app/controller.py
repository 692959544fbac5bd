"""The game controller: a whole match as a pure state machine.

Everything the board decides happens in :class:`Controller`; it never sleeps, reads a pin or
touches the flash. Three inputs drive it:

- ``board(counts, now, caps, irregular)`` -- a stable reading of the reed sensors as
  colour-blind counts (28 rows, see :func:`app.rules.counts_of`), from the scanner after
  debounce; during a turn ``bg.recognize.Recognizer`` follows it and decides which legal play
  it shows (never guessing);
- ``button(side, role, kind, now)`` -- a press (``PRESS``) or a long press (``LONG``) of a
  side's ``ROLL`` (roll/confirm) or ``CUBE`` button;
- ``tick(now)`` -- time passing (the match clock).

Every decision the players confirm becomes an *action* ``(kind, fields)`` -- exactly the
record kinds and field tuples of ``bg.record`` -- appended to ``outbox`` and folded into the
controller's own state by :meth:`Controller.apply`, the same function that replays the
journal at boot: a resumed match is exactly the state its actions describe. The async glue
(``app.main``) drains ``outbox`` into the journal.

Example (deterministic dice; the checkers on the start position)::

    c = Controller(Settings(length=3), rules, dice_factory, new_match_id)
    c.board(rules.counts_of(rules.start_position()), 0)
    c.button(0, ROLL)          # IDLE -> OPENING: the dice seed is drawn, MATCH_START (commitment)
    c.contribute("laptop", s)  # a host's 16-byte seed (link): SEED_PART
    c.button(0, ROLL)          # GAME_START, OPENING (no buttons' SEED_PART after a host's part)
    c.phase == MOVING

Buttons: docs/controller.md has the full table.
"""

from app import ctl_defs as D
from app.ctl_turns import Turns
from bg import record as R
from bg.recognize import AMBIGUOUS as R_AMBIGUOUS


def __getattr__(name):
    """The controller's vocabulary (``app.ctl_defs``: ``C.MOVING``, ``C.PRESS``,
    ``C.Settings``, ...) is part of its API: read through to ``app.ctl_defs``, not copied into
    this module's dict (a dict entry per name; docs/memory.md)."""
    return getattr(D, name)


class Controller(Turns):
    """One board's match state machine.

    ``rules``: the engine adapter (``app.rules``). ``dice_factory(match_id)``: a new
    ``bg.dice.fairness.Fairness`` (board seed from the HAL's random source). ``new_match_id()``:
    8 bytes. ``unix_time()``: wall clock seconds. All injected, so tests are deterministic."""

    def board(self, counts, now=0, caps=None, irregular=0):
        """A stable sensor reading: 28 colour-blind row counts (``bg.sensing`` order), and
        optionally the per-row caps (``Sensing.cap``) and the irregular rows
        (``Sensing.irregular_mask()``). During a turn the recogniser (``bg.recognize``)
        follows it; nothing is ever recorded from a reading alone."""
        self.sensed[:] = counts
        if caps is not None:
            self.caps[:] = caps
        self.irregular = irregular
        self.sensed_valid = True
        if self.phase == D.MOVING:
            self.message = ""  # the player is correcting: free until confirmed
        elif self.phase == D.ILLEGAL and self.sensed != self._illegal_counts:
            self.phase = D.MOVING  # the mover changed the board again: nothing was accepted
            self.message = ""
        self._track(now)
        if self.settings.computer >= 0 or self.learn or self.opp is not None:
            self._opponent().act(self, now)  # the computer's decisions, the coach (app.opponent)
        self._update_marks()
        self._run_clock(now)

    def button(self, side, role, kind=D.PRESS, now=0):
        """A button event. Returns True when it did something; a press at the wrong time is
        ignored (the cup stays closed, nothing is thrown or recorded)."""
        if side not in (0, 1):
            raise ValueError("side must be 0 or 1")
        self.mix(now)
        self.clock.charge(now)
        ph = self.phase
        done = False
        mine = side == self.side
        if side == self.settings.computer and ph not in (D.IDLE, D.OPENING, D.GAME_OVER, D.MATCH_OVER):
            return False  # the computer's buttons: it decides itself (app.opponent)
        if ph == D.IDLE:
            if role == D.ROLL and self.board_matches():
                self._prepare_match()
                done = True
        elif ph == D.OPENING:
            if role == D.ROLL and self.board_matches():
                if not self.game_no:
                    self._start_match()
                done = self._opening_throw(side)
        elif ph == D.CHOICE:
            if mine and role == D.ROLL:
                self._begin_moving(self.side, self.dice)  # kept: its PLAY records the choice
                done = True
            elif mine and role == D.CUBE:
                done = self._reroll(side)
        elif ph == D.AWAIT_ROLL:
            if mine and kind == D.PRESS and role == D.ROLL and self.board_matches():
                self._roll()
                done = True
            elif mine and kind == D.PRESS and role == D.CUBE and self.may_double and self.board_matches():
                self._emit(R.DOUBLE, (side, 2 * self.cube))
                done = True
            elif mine and kind == D.LONG and role == D.CUBE:
                self._offer_resign(side)
                done = True
        elif ph == D.MOVING:
            if mine and kind == D.PRESS and role == D.ROLL:
                done = self._confirm(now)
            elif mine and kind == D.PRESS and role == D.CUBE and self.rec.state == R_AMBIGUOUS:
                done = self.next_choice()
            elif mine and kind == D.LONG and role == D.ROLL:
                done = self._opponent().coach(self)  # the coach: show (or hide) the best play
            elif mine and kind == D.LONG and role == D.CUBE:
                self._offer_resign(side)
                done = True
        elif ph == D.DOUBLED:
            if not mine and role == D.ROLL:
                self._emit(R.TAKE, (side,))
                done = True
            elif not mine and role == D.CUBE and kind == D.LONG and self._may_beaver():
                self._emit(R.BEAVER, (side, 4 * self.cube))
                done = True
            elif not mine and role == D.CUBE and kind == D.PRESS:
                self._emit(R.DROP, (side,))
                self._end_decided()
                done = True
        elif ph == D.RESIGNING:
            if mine and role == D.CUBE and kind == D.PRESS and not self._resign_recorded():
                self.resign_value = self.resign_value % 3 + 1  # single -> gammon -> backgammon
                done = True
            elif mine and role == D.CUBE and kind == D.LONG and not self._resign_recorded():
                self.phase = self._prev_phase  # withdrawn before the opponent answered
                done = True
            elif not mine and role == D.ROLL:
                self._record_resign()
                self._emit(R.RESIGN_ACCEPT, (side,))
                self._end_decided()
                done = True
            elif not mine and role == D.CUBE:
                self._record_resign()
                self._emit(R.RESIGN_REJECT, (side,))
                done = True
        elif ph == D.ILLEGAL:
            if not mine and role == D.ROLL:
                # seed 000: the opponent accepts the play as it stands
                self._emit(R.PLAY, (self.side, self.pending_play, R.PLAY_CASUAL_ACCEPTED_ILLEGAL))
                self._after_play(1 - side)
                done = True
            elif not mine and role == D.CUBE:
                self.phase = D.MOVING  # the opponent insists on a legal play
                self.message = "illegal play refused"
                done = True
        elif ph == D.GAME_OVER:
            if role == D.ROLL:
                self._start_game()
                done = True
        elif ph == D.MATCH_OVER:
            if role == D.ROLL:
                self.fair = None
                self.cup = None
                self._new_match_state()
                done = True
        if not done and self.settings.computer >= 0 and ph == D.OPENING and self.game_no:
            # the house opening's first press started the match but was not the player's
            # throw: the computer throws its half (app.opponent)
            done = self._opponent().act(self, now)
        elif done:
            self._track(now)
            if self.settings.computer >= 0 or self.learn or self.opp is not None:
                self._opponent().act(self, now)
        if done:
            self._update_marks()
            self._run_clock(now)
        return done

    def thought(self, now):
        """The app's engine task computed a best play (``Opponent.think``): the computer
        plays it, the coach shows it, learning mode judges with it. False without an
        opponent."""
        if self.opp is None:
            return False
        self.opp.act(self, now)
        self._update_marks()
        self._run_clock(now)
        return True

    def decide(self, turn, value, now):
        """A host's decision for the computer (link request DECIDE, ``Opponent.decided``):
        None when taken (and acted on at once), else why not."""
        o = self._opponent()
        err = o.decided(self, turn, value, now)
        if err is None:
            o.act(self, now)
            self._update_marks()
        return err

    def prepare_opponent(self):
        """Make the computer opponent and its chooser now (the app's boot, while the heap is
        whole) instead of at its first move."""
        self._opponent()._pubeval()

    def _opponent(self):
        """The computer opponent and coach (``app.opponent``), made on first use."""
        if self.opp is None:
            from app.opponent import Opponent

            self.opp = Opponent(strength=self.settings.strength, gen=getattr(self.rec, "gen", None))
        return self.opp

    def tick(self, now):
        """Time passes: charge the running clock; a flag fall loses the match; the computer
        stops waiting for a host gone quiet (``Opponent.waiting``)."""
        o = self.opp
        if o is not None and o.waiting:
            o.act(self, now)
            if not o.waiting:  # it decided (or the moment passed)
                self._update_marks()
                return True
        out = self.clock.charge(now)
        if out >= 0 and self.phase not in (D.IDLE, D.GAME_OVER, D.MATCH_OVER):
            self.flagged = out
            self._end_game(1 - out, 1, 1, R.END_TIME)
            self._update_marks()
            return True
        return False

    def mix(self, ticks):
        """Button timing (microseconds) for the player seed, until the first throw."""
        if self.fair is not None and not self.fair.fixed:
            self.fair.mix_timing(ticks)
