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
from micropython import const


def __getattr__(name):
    """The controller's vocabulary (``app.ctl_defs``: ``C.MOVING``, ``C.PRESS``,
    ``C.Settings``, ...) is part of its API: read through to ``app.ctl_defs``, not copied into
    this module's dict (a dict entry per name; docs/memory.md)."""
    return getattr(D, name)


# the intents (``ctl_defs._INTENTS``' order: a public ``I_<name>`` is its index there)
_I_NEXT = const(0)
_I_ROLL = const(1)
_I_KEEP = const(2)
_I_CONFIRM = const(3)
_I_PLAY = const(4)
_I_CANDIDATE = const(5)
_I_COACH = const(6)
_I_DOUBLE = const(7)
_I_TAKE = const(8)
_I_DROP = const(9)
_I_BEAVER = const(10)
_I_RESIGN = const(11)
_I_WITHDRAW = const(12)
_I_ACCEPT = const(13)
_I_REJECT = const(14)
_I_END = const(15)
_ANY = const(3)  # in ``_BUTTONS``: either kind of press, or either side
# The buttons: 5 bytes a row -- phase, button (ROLL 0, CUBE 1), kind (PRESS 0, LONG 1, any 3),
# whose press (1: the side the phase names -- on roll, doubling, resigning, moving; 2: its
# opponent; 3: either), intent (``ctl_defs.I_*``). The first row that fits is the press's
# intent; none: the press is ignored. (One bytes constant: it stays in flash, not the heap.)
_BUTTONS = (
    b"\x00\x00\x03\x03\x00"  # idle, ROLL any, either: I_NEXT
    b"\x01\x00\x03\x03\x01"  # opening, ROLL any, either: I_ROLL
    b"\x02\x00\x03\x01\x02"  # choice, ROLL any, its side: I_KEEP
    b"\x02\x01\x03\x01\x01"  # choice, CUBE any, its side: I_ROLL
    b"\x03\x00\x00\x01\x01"  # await_roll, ROLL press, its side: I_ROLL
    b"\x03\x01\x00\x01\x07"  # await_roll, CUBE press, its side: I_DOUBLE
    b"\x03\x01\x01\x01\x0b"  # await_roll, CUBE long, its side: I_RESIGN
    b"\x04\x00\x00\x01\x03"  # moving, ROLL press, its side: I_CONFIRM
    b"\x04\x01\x00\x01\x05"  # moving, CUBE press, its side: I_CANDIDATE
    b"\x04\x00\x01\x01\x06"  # moving, ROLL long, its side: I_COACH
    b"\x04\x01\x01\x01\x0b"  # moving, CUBE long, its side: I_RESIGN
    b"\x05\x00\x03\x02\x08"  # doubled, ROLL any, the other: I_TAKE
    b"\x05\x01\x00\x02\x09"  # doubled, CUBE press, the other: I_DROP
    b"\x05\x01\x01\x02\x0a"  # doubled, CUBE long, the other: I_BEAVER
    b"\x06\x01\x00\x01\x0b"  # resigning, CUBE press, its side: I_RESIGN
    b"\x06\x01\x01\x01\x0c"  # resigning, CUBE long, its side: I_WITHDRAW
    b"\x06\x00\x03\x01\x0b"  # resigning, ROLL any, its side: I_RESIGN (sent to the other board)
    b"\x06\x00\x03\x02\x0d"  # resigning, ROLL any, the other: I_ACCEPT
    b"\x06\x01\x03\x02\x0e"  # resigning, CUBE any, the other: I_REJECT
    b"\x07\x00\x03\x02\x0d"  # illegal, ROLL any, the other: I_ACCEPT
    b"\x07\x01\x03\x02\x0e"  # illegal, CUBE any, the other: I_REJECT
    b"\x08\x00\x03\x03\x00"  # game_over, ROLL any, either: I_NEXT
    b"\x09\x00\x03\x03\x00"  # match_over, ROLL any, either: I_NEXT
)


class Controller(Turns):
    """One board's match state machine.

    ``rules``: the engine adapter (``app.rules``). ``dice_factory(match_id)``: a new
    ``bg.dice.fairness.Fairness`` (board seed from the HAL's random source). ``new_match_id()``:
    8 bytes. ``unix_time()``: wall clock seconds. All injected, so tests are deterministic."""

    # the computer opponent and coach (app.opponent), made on first use (``_opponent``); the
    # layers below never see it: what they need of it is passed down
    opp = None
    _acting = False  # the computer is deciding: its intents do not call it again

    def _new_match_state(self):
        Turns._new_match_state(self)
        if self.opp is not None:
            self.opp.new_match()  # its turn keys (``throws``) start over

    def track(self, now):
        st = Turns.track(self, now)
        o = self.opp
        # an illegal reading (only then is ``illegal_since`` set) that shows the computer's plan
        if self.illegal_since is not None and o is not None and o.blot_first(self):
            self.illegal_since = None  # a hand mid-hit on the computer's plan, not an illegal play
            self.errors_now = False
        return st

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
        self.track(now)
        self._computer(now)  # the computer's decisions, the coach (app.opponent)
        self._update_marks()
        self._run_clock(now)

    def button(self, side, role, kind=D.PRESS, now=0):
        """A button event: the intent ``_BUTTONS`` gives the press in this phase (docs/
        controller.md has the table). Returns True when it did something; a press at the
        wrong time is ignored (the cup stays closed, nothing is thrown or recorded)."""
        if side not in (0, 1):
            raise ValueError("side must be 0 or 1")
        self.mix(now)
        ph = self.phase
        if side == self.settings.computer and ph not in (D.IDLE, D.OPENING, D.GAME_OVER, D.MATCH_OVER):
            return False  # the computer's buttons: it decides itself (app.opponent)
        t = _BUTTONS
        who = 1 if side == self.side else 2
        for i in range(0, len(t), 5):
            if t[i] == ph and t[i + 1] == role and t[i + 2] in (kind, _ANY) and t[i + 3] in (who, _ANY):
                what = t[i + 4]
                arg = None
                # offered as a single; each CUBE press raises it (to 3, then 1), ROLL confirms it
                if what == _I_RESIGN:
                    arg = 1 if ph != D.RESIGNING else self.resign_value % 3 + 1 if role else self.resign_value
                if self.intent(side, what, arg, now):
                    return True
                break
        if self.settings.computer >= 0 and ph == D.OPENING and self.mt.game_no:
            # the house opening's first press started the match but was not the player's
            # throw: the computer throws its half (app.opponent)
            if self._computer(now):
                self._update_marks()
                self._run_clock(now)
                return True
        return False

    def intent(self, side, what, arg=None, now=0):
        """``side`` asks for ``what`` (``ctl_defs.I_*``; ``arg``: a play's steps for
        ``I_PLAY``, 1-3 for ``I_RESIGN``): the one way into the match for a player's button,
        the computer and a host deciding for it. The transition happens when the rules and
        the phase give it to ``side`` now; returns True then, False otherwise (nothing
        changes). The computer then takes its own decisions (``app.opponent``)."""
        self.clock.charge(now)
        if not self._intent(side, what, arg, now):
            return False
        if not self._acting:  # (the computer's own intents: its decisions go on in ``act``)
            self.track(now)
            self._computer(now)
            self._update_marks()
            self._run_clock(now)
        return True

    def _intent(self, side, what, arg, now):
        ph = self.phase
        mine = side == self.side
        if what == _I_NEXT:
            if ph == D.IDLE and self.board_matches():
                self._prepare_match()
            elif ph == D.GAME_OVER:
                self._start_game()
            elif ph == D.MATCH_OVER:
                self.settings = self.config  # the next match is played as the device is set
                self.fair = None
                self.cup = None
                self._new_match_state()
            else:
                return False
            return True
        if what == _I_ROLL:
            if ph == D.OPENING and self.board_matches():
                if not self.mt.game_no:
                    self._start_match(self.opp is not None and self.opp.remote)
                return self._opening_throw(side)
            if ph == D.CHOICE and mine:
                return self._reroll(side)
            if ph == D.AWAIT_ROLL and mine and self.board_matches():
                return self._roll()  # False: a two-board roll already asked for, waiting
            return False
        if what == _I_KEEP:
            if ph == D.CHOICE and mine:
                self._begin_moving(side, self.dice)  # kept: its PLAY records the choice
                return True
            return False
        if what == _I_DOUBLE:
            if mine and self.may_double and self.board_matches():
                self.message = ""
                self._emit(R.DOUBLE, (side, 2 * self.mt.cube))
                return True
            if mine and ph == D.AWAIT_ROLL:  # the roller's refused press says why
                self.message = self._no_double()
            return False
        if what == _I_TAKE or what == _I_DROP or what == _I_BEAVER:
            if ph != D.DOUBLED or mine:
                return False
            if what == _I_TAKE:
                self._emit(R.TAKE, (side,))
            elif what == _I_DROP:
                self._emit(R.DROP, (side,))
                self._end_decided()
            elif self.mt.can_beaver():
                self._emit(R.BEAVER, (side, 4 * self.mt.cube))
            else:
                return False
            return True
        if what == _I_RESIGN:
            if arg not in (1, 2, 3):
                raise ValueError("resign: 1 (single), 2 (gammon) or 3 (backgammon)")
            if (ph == D.AWAIT_ROLL or ph == D.MOVING) and mine:
                self._offer_resign(side, arg)
                if side == self.settings.computer:
                    self._record_resign()  # a host's (the board's own computer never resigns)
            elif ph == D.RESIGNING and mine and not self._resign_recorded():
                if arg != self.resign_value:
                    self.resign_value = arg
                elif self.opp is not None and self.opp.remote:
                    # the offer to a player at another board, confirmed: journaled (their host
                    # sees it and asks them); from now on it is only answered
                    self._record_resign()
                else:
                    return False
            else:
                return False
            return True
        if what == _I_WITHDRAW:
            if ph == D.RESIGNING and mine and not self._resign_recorded():
                self.phase = self._prev_phase  # withdrawn before the opponent answered
                return True
            return False
        if what == _I_ACCEPT or what == _I_REJECT:
            yes = what == _I_ACCEPT
            if mine:
                return False
            if ph == D.RESIGNING:
                self._record_resign()  # (already journaled when resumed after a power cut)
                self._emit(R.RESIGN_ACCEPT if yes else R.RESIGN_REJECT, (side,))
                if yes:
                    self._end_decided()
                return True
            if ph == D.ILLEGAL:
                mover = self.side
                if yes:  # casual play: the opponent accepts the play as it stands
                    self._emit(R.PLAY, (mover, self.pending_play, R.PLAY_CASUAL_ACCEPTED_ILLEGAL))
                    self._after_play(mover)
                else:
                    self.phase = D.MOVING  # the opponent insists on a legal play
                    self.message = "illegal play refused"
                return True
            return False
        if ph == D.MOVING and mine:
            if what == _I_CONFIRM:
                return self._confirm(now)
            if what == _I_PLAY:
                return self._play_shown(arg)
            if what == _I_CANDIDATE:  # several legal plays read the same: show the next
                if self.rec.state != R_AMBIGUOUS:
                    return False
                self.rec.next_candidate()
                self.selecting = True
                return True
            if what == _I_COACH:
                return self._opponent().coach(self)  # the coach: show (or hide) the best play
        if what == _I_END:
            return self._end_session()
        if what < _I_NEXT or what > _I_END:
            raise ValueError("unknown intent %r" % (what,))
        return False

    def _no_double(self):
        """Why the roller may not double now (``bg.match``'s rules, in the order they bind)."""
        mt = self.mt
        if mt.crawford:
            return "no doubling in the Crawford game"
        if mt.owner >= 0 and mt.owner != self.side:
            return "no double: the opponent owns the cube"
        if mt.can_double(self.side):
            return "no double: put the checkers back as they were"
        return "no double: the cube is at its highest"

    def _computer(self, now):
        """Let the computer (and the coach, learning mode) take its decisions after an input:
        its intents do not call it again."""
        if self.settings.computer < 0 and not self.learn and self.opp is None:
            return False
        self._acting = True
        try:
            return self._opponent().act(self, now)
        finally:
            self._acting = False

    def hello(self, side, name, now):
        """A host will decide for the computer (link request DECIDE, ``Opponent.hello``): None,
        or why not."""
        return self._opponent().hello(self, side, name, now)

    def thought(self, now):
        """The app's engine task computed a best play (``Opponent.think``): the computer
        plays it, the coach shows it, learning mode judges with it. False without an
        opponent."""
        if self.opp is None:
            return False
        self._computer(now)
        self._update_marks()
        self._run_clock(now)
        return True

    def decide(self, turn, value, now):
        """A host's decision for the computer (link request DECIDE, ``Opponent.decided``):
        None when taken (and acted on at once), else why not."""
        err = self._opponent().decided(self, turn, value, now)
        if err is None:
            self._computer(now)
            self._update_marks()
        return err

    def contribute(self, name, part, commitment=None, proof=b""):
        """A host's 16-byte player seed, between the commitment and the first throw: journal
        SEED_PART naming the host (its name cut to 16 bytes of UTF-8). ``commitment``: the
        one the host saw (this match's; in a match with another board, the other board's).
        ``proof``: the host's (opaque, at most bg.record.MAX_PROOF bytes), journaled with the part.
        Returns the match id. ValueError when no match is waiting for player seeds; nothing
        is changed then."""
        f = self.fair
        if f is None or self.phase != D.OPENING or self.mt.game_no or not f.open:
            raise ValueError("no match is waiting for player seeds")
        if self.joint_side >= 0 and len(self.seed_parts) >= 2:
            raise ValueError("both hosts' parts are in")  # side 0's host's, then side 1's
        o = self.opp
        if self.joint_side >= 0 or o is not None and o.remote:
            # a match with another board: a part names the other board's commitment (the
            # host that sends it knows both, parts come only after both commitments). A
            # host's automatic seed names this board's: refused, before JOINT_START (the
            # other commitment could no longer come in) as after (it would be taken as a
            # side's part and the boards' dice would differ)
            if self.joint_side < 0:
                raise ValueError("a match with another board: its commitment comes first")
            if commitment is not None and bytes(commitment) != self.joint_commit:
                raise ValueError("a match with another board: a part names the other board's commitment")
        elif commitment is not None and bytes(commitment) != f.commitment:
            raise ValueError("not this match's commitment")
        b = name.encode()
        if len(b) > 16:
            n = 16
            while b[n] & 0xC0 == 0x80:  # not inside a UTF-8 sequence
                n -= 1
            name = str(b[:n], "utf-8")
        rec = (D.SRC_HOST, name, bytes(part), bytes(proof)) if proof else (D.SRC_HOST, name, bytes(part))
        R.check_seed_part(rec)  # before anything changes
        f.contribute(D.SRC_HOST, part)
        self._emit(R.SEED_PART, rec)
        return f.match_id

    def joint_take(self, k, share, now=0):
        """The other board's share of throw ``k`` (from its host): journaled (JOINT_SHARE)
        and, when the throw waits for it, thrown at once. Only the throw due (the journal's
        count), once: an old, a future or a second share for it is a ValueError, nothing is
        journaled. (Whether the share is the one the other board's seed gives is known only
        at its reveal: ``bg.dice.joint.verify_joint``.)"""
        if self.joint_side < 0 or self.phase == D.IDLE or self.phase == D.MATCH_OVER:
            raise ValueError("no match with another board is on")
        if len(self.seed_parts) < 2:
            raise ValueError("no share before both hosts' parts")
        if not isinstance(share, (bytes, bytearray)) or len(share) != 32:
            raise ValueError("a share is 32 bytes")
        if k != self.throws:
            raise ValueError("a share for throw %d; throw %d is due" % (k, self.throws))
        o = self.joint_other
        if o is not None and o[0] == k:
            raise ValueError("throw %d's share is already taken" % k)
        self._emit(R.JOINT_SHARE, (k, bytes(share)))
        if self.joint_due and self.joint is not None:
            if self.phase == D.OPENING:
                self._opening_throw(2)
            elif self.phase == D.AWAIT_ROLL:
                self._roll()
            self.track(now)
            self._computer(now)
            self._update_marks()
            self._run_clock(now)
        return True

    def prepare_opponent(self):
        """Make the computer opponent and its chooser now (the app's boot, while the heap is
        whole) instead of at its first move; not for a player at another board (their host
        decides: ``Opponent.far``) unless learning mode judges this board's player."""
        o = self._opponent()
        if self.learn or not o.far(self):
            o._pubeval()

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
            self._computer(now)
            if not o.waiting:  # it decided (or the moment passed)
                self._update_marks()
                return True
        out = self.clock.charge(now)
        if out >= 0 and self.phase not in (D.IDLE, D.GAME_OVER, D.MATCH_OVER):
            self.flagged = out
            self._end_game(1 - out, 1, R.END_TIME)
            self._update_marks()
            return True
        return False

    def mix(self, ticks):
        """Button timing (microseconds) for the player seed, until the first throw."""
        if self.fair is not None and not self.fair.fixed:
            self.fair.mix_timing(ticks)
