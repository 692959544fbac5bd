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
(``app.main``) drains ``outbox`` into the journal. The match rules (cube, Jacoby, beavers,
automatic doubles, Crawford, scores, the position, what a game is worth) are
``bg.match.Fold``'s (``ctl.mt``), the one fold the host's model runs too: the controller adds
only its own phases and asks the fold what is allowed; no rule is repeated here.

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
from app.rules import NLOC
from bg import forget
from bg import match as _match
from bg import recognize as _rec
from bg import record as R
from bg.match import F_AWAIT, F_CHOICE, F_ENDED, F_GAME_OVER, F_MOVING, F_RESIGNING
from bg.recognize import AMBIGUOUS as R_AMBIGUOUS
from bg.recognize import COMPLETE as R_COMPLETE
from bg.recognize import ILLEGAL as R_ILLEGAL
from bg.recognize import LIFTED as R_LIFTED
from micropython import const


def __getattr__(name):
    """The controller's vocabulary (``app.ctl_defs``: ``C.MOVING``, ``C.PRESS``,
    ``C.Settings``, ...) is part of its API: read through to ``app.ctl_defs``, not copied into
    this module's dict (a dict entry per name; docs/memory.md)."""
    return getattr(D, name)


_ILLEGAL_SHOW_MS = const(500)  # an illegal reading is shown only once it lasted this long (a hand
# carrying a hit blot to the bar passes through illegal readings)

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


def _press_intent(phase, role, kind, who):
    """The intent of a press (``_BUTTONS``' first row that fits), -1 for none. ``who``: 1 when
    the side the phase names pressed, 2 when its opponent did."""
    t = _BUTTONS
    for i in range(0, len(t), 5):
        if t[i] == phase and t[i + 1] == role and t[i + 2] in (kind, _ANY) and t[i + 3] in (who, _ANY):
            return t[i + 4]
    return -1


def _no_double(mt, side):
    """Why ``side``, on roll, may not double now (the fold ``mt``'s rules, in the order they
    bind)."""
    if mt.crawford:
        return "no doubling in the Crawford game"
    if mt.owner >= 0 and mt.owner != side:
        return "no double: the opponent owns the cube"
    if mt.can_double(side):
        return "no double: put the checkers back as they were"
    return "no double: the cube is at its highest"


def _cut_utf8(s, n):
    """``s`` cut to at most ``n`` bytes of UTF-8, never inside a character."""
    b = s.encode()
    if len(b) <= n:
        return s
    while b[n] & 0xC0 == 0x80:  # a continuation byte: the cut would split its character
        n -= 1
    return str(b[:n], "utf-8")


class Controller:
    """One board's match state machine.

    ``rules``: the engine adapter (``app.rules``). ``dice_factory(match_id)``: a new
    ``bg.dice.fairness.Fairness`` (board seed from the HAL's random source). ``new_match_id()``:
    8 bytes. ``unix_time()``: wall clock seconds. All injected, so tests are deterministic.

    Its parts, in this order: the state; the inputs (``board``, ``button``, ``intent``,
    ``tick``, the hosts'); the fold (``apply``, ``resume``); the turn's reading (the
    recogniser, the LEDs' marks); the transitions a granted intent makes, as ``bg.record``
    actions (``_emit``); two boards' joint dice; the computer opponent."""

    # the computer opponent and coach (app.opponent), made on first use (``_opponent``)
    opp = None
    _acting = False  # the computer is deciding: its intents do not call it again
    # A match between two boards (JOINT_START; bg.dice.joint, docs/remote.md): its state is one
    # object, made by JOINT_START (a class default until then). The board's heap: the
    # instance keeps 47 attributes or fewer also in such a match (the opponent's two with
    # it), one 47-slot dict: a 48th grows it to 59 slots, a 472-byte block to find mid-match
    # (docs/memory.md); and this class stays within its 59 slots.
    joint = None  # bg.dice.joint.JointMatch: the other board's commitment and share, the dice

    def __init__(self, settings, rules, dice_factory, new_match_id, unix_time=None, cap=6, recognizer=None):
        self.settings = settings  # the match's (a resumed match's from its MATCH_START)
        # the device's settings: every new match starts with them, whatever the last match
        # (resumed from the journal) was played with
        self.config = settings
        self.rules = rules
        self._env = (dice_factory, new_match_id, unix_time)  # one attribute, not three (heap)
        self.cap = cap
        self.outbox = []
        self.sensed = bytearray(NLOC)
        self.sensed_valid = False
        # the turn's recogniser (bg.recognize): the one place that decides which legal play
        # the sensors show; its default caps are the board's slot counts
        self.rec = recognizer if recognizer is not None else rules.recognizer(cap)
        self.caps = bytearray(self.rec.caps)  # per-row caps of the latest reading
        self.irregular = 0  # rows with a closed slot above an open one (bg.sensing)
        self.rec_turn = False  # rec.begin() done for the turn in progress (else its state is stale)
        self.selecting = False  # the mover asked to pick among candidates (confirm/cube)
        self.illegal_since = None  # ticks when the reading became ILLEGAL (None: it is not)
        self.errors_now = False  # a refused confirm: show what is wrong at once
        self.missing = 0  # row masks for the LEDs (bit r = row r)
        self.extra = 0
        self._expect = bytearray(NLOC)
        self._illegal_counts = bytearray(NLOC)
        self.turn_start = bytearray(52)
        self.fair = None
        self.message = ""
        self.flagged = -1
        # the app's engine task runs the long searches in slices (recognition, best plays:
        # app.main); False: every search at once (tests, tools)
        self.sliced = False
        self.learn = settings.learn  # learning mode: a device setting, not the match's
        self._new_match_state()

    def _new_match_state(self):
        # the match rules and the position: bg.match's fold (check=False: only plays the
        # recogniser found legal are recorded here, and the boot replay stays fast). Its
        # names are the one way to read them (``ctl.mt.pos``, ``.cube``, ``.owner``, ``.score``,
        # ``.game_no``, ``.crawford``, ``.result``, ``.opening``), as on the host (gammon.model)
        self.mt = _match.Fold(False)
        self.phase = D.IDLE
        self.side = -1
        self.dice = bytearray(2)
        self.resign_value = 0
        self.match_id = None
        self.commitment = None
        self.player_seed = None
        self.seed_parts = []  # (source, part) of the SEED_PART records (a power cut resumes them)
        self.throws = 0
        self.pending_play = None
        self.last_play = None  # (side, steps) of the last recorded play
        self.house_first = None  # house variant: side 0's throw until side 1 throws
        self.rolled = 0  # ticks of the last throw (dice animation)
        self._prev_phase = D.IDLE
        self.clock = D.Clock(self.settings.clock_s * 1000, self.settings.delay_s * 1000)
        self.joint_side = -1  # the side this board plays, -1: a one-board match
        if self.joint is not None:  # after a match between two boards: its dice module goes
            self.joint = None  # too (0.7 kB on the board), imported again by the next JOINT_START
            forget("bg.dice.joint")
        if self.opp is not None:
            self.opp.new_match()  # its turn keys (``throws``) start over

    # The inputs: a reading, a press, an intent, time passing, the hosts' requests.

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
        wrong time is ignored (nothing is thrown or recorded: ``_throw``)."""
        if side not in (0, 1):
            raise ValueError("side must be 0 or 1")
        self.mix(now)
        ph = self.phase
        if side == self.settings.computer and ph not in (D.IDLE, D.OPENING, D.GAME_OVER, D.MATCH_OVER):
            return False  # the computer's buttons: it decides itself (app.opponent)
        what = _press_intent(ph, role, kind, 1 if side == self.side else 2)
        if what >= 0:
            arg = None
            # offered as a single; each CUBE press raises it (to 3, then 1), ROLL confirms it
            if what == _I_RESIGN:
                arg = 1 if ph != D.RESIGNING else self.resign_value % 3 + 1 if role else self.resign_value
            if self.intent(side, what, arg, now):
                return True
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
                self._new_match_state()
            else:
                return False
            return True
        if what == _I_ROLL:
            if ph == D.OPENING and self.board_matches():
                if not self.mt.game_no:
                    self._start_match()
                return self._opening_throw(side)
            if ph == D.CHOICE and mine:  # house variant: the starter throws once more (and plays it)
                if side != self.side:
                    return False
                d = self._throw()
                assert d is not None  # (as in ``_opening_throw``)
                self._emit(R.OPENING, (R.OPEN_HOUSE | R.OPEN_REROLL, (d[0], d[1])))
                return True
            if ph == D.AWAIT_ROLL and mine and self.board_matches():
                return self._roll()  # False: a two-board roll already asked for, waiting
            return False
        if what == _I_KEEP:
            if ph == D.CHOICE and mine:
                self._begin_moving(side, self.dice)  # kept: its PLAY records the choice
                return True
            return False
        if (what == _I_DOUBLE or what == _I_RESIGN) and mine and 1 - side == self.settings.computer:
            o = self.opp
            if self.joint_side == side and (o is None or o.brain_at < 0):
                # a match with another board, its player this board's computer, their host
                # not back since this board started: whether its player's roll was asked for
                # before a power cut (its share gone, the other board thrown) only that host
                # knows and tells (JOINT ASKED, before its HELLO). A double now could be
                # another match than the other board's, and the board's own computer would
                # answer an offer to resign for that player: refused, nothing journaled. A
                # take, a drop, an answer, a roll and a play are kept and go once it is back
                self.message = "remote player not connected"
                return False
        if what == _I_DOUBLE:
            if mine and self.may_double and self.board_matches():
                self.message = ""
                self._emit(R.DOUBLE, (side, 2 * self.mt.cube))
                return True
            if mine and ph == D.AWAIT_ROLL:  # the roller's refused press says why
                self.message = _no_double(self.mt, side)
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
                self._prev_phase = self.phase
                self.phase = D.RESIGNING
                self.side = side
                self.resign_value = arg
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
                # the coach: show (or hide) the best play (own: an ``Opponent``)
                return self._opponent().coach(self)  # pyright: ignore[reportAttributeAccessIssue]
        if what == _I_END:
            # money play has no natural end: the players end the session (both CUBE buttons
            # held, app.buttons) between games
            if self.phase == D.GAME_OVER and not self.settings.length:
                self._end_match(0 if self.mt.score[0] >= self.mt.score[1] else 1)
                return True
            return False
        if what < _I_NEXT or what > _I_END:
            raise ValueError("unknown intent %r" % (what,))
        return False

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
            j = self.joint
            assert j is not None  # (made with joint_side)
            if commitment is not None and bytes(commitment) != j.commit:
                raise ValueError("a match with another board: a part names the other board's commitment")
        elif commitment is not None and bytes(commitment) != f.commitment:
            raise ValueError("not this match's commitment")
        name = _cut_utf8(name, 16)
        rec = (D.SRC_HOST, name, bytes(part), bytes(proof)) if proof else (D.SRC_HOST, name, bytes(part))
        R.check_seed_part(rec)  # before anything changes
        f.contribute(D.SRC_HOST, part)
        self._emit(R.SEED_PART, rec)
        return f.match_id

    def hello(self, side, name, now):
        """A host will decide for the computer (link request DECIDE, ``Plan.hello``): None,
        or why not. A player at another board (bit 7 of ``side``) gets a ``Plan``."""
        return self._opponent(self.learn or side < 2 and self.joint_side < 0).hello(self, side, name, now)

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
        err = self._opponent(False).decided(self, turn, value, now)
        if err is None:
            self._computer(now)
            self._update_marks()
        return err

    def prepare_opponent(self):
        """Make the computer opponent and its chooser now (the app's boot, while the heap is
        whole) instead of at its first move; not for a player at another board (their host
        decides: ``Opponent.prepare``) unless learning mode judges this board's player."""
        if self.learn or self.joint_side < 0:
            self._opponent().prepare(self)  # pyright: ignore[reportAttributeAccessIssue] (an Opponent)

    # The fold: one action into the state, the same function for live play (``_emit``) and for
    # a journal's replay after a power cut (``resume``).

    def apply(self, k, f):
        """Fold one action (a ``bg.record`` kind and field tuple) into the state. Replaying
        a journal is ``for k, f in actions: c.apply(k, f)``; ``outbox`` is not touched. The
        rules are ``bg.match.Fold.apply``'s (ValueError, nothing changed, when the action
        breaks them); what follows is the controller's phase."""
        if k == R.MATCH_START:
            s = D.Settings.from_record(f)
            # a match played as the device is set shares its settings (one object less kept)
            self.settings = self.config if s.__dict__ == self.config.__dict__ else s
            self._new_match_state()
        mt = self.mt
        mt.apply(k, f)
        if k == R.MATCH_START:
            self.match_id = bytes(f[0])
            self.commitment = bytes(f[9])
            self.player_seed = bytes(f[10])
            self.phase = D.OPENING  # the first GAME_START follows the player seed
        elif k == R.SEED_PART:
            self.seed_parts.append((f[0], f[2]))
        elif k == R.GAME_START:
            self.side = -1
            self.dice[0] = self.dice[1] = 0
            self.last_play = None
            self.house_first = None
            self.phase = D.OPENING
        elif k == R.OPENING:
            self.throws += 1 if len(f[1]) == 2 else 2
            if self.joint is not None:
                self.joint.due = False
            self.house_first = None
            d = f[1]
            self.dice[0] = d[-2]
            self.dice[1] = d[-1]
            if mt.phase == F_MOVING:
                self._begin_moving(mt.side, mt.dice)
            elif mt.phase == F_CHOICE:
                self.phase = D.CHOICE
                self.side = mt.side
                self.dice[:] = mt.dice
        elif k == R.ROLL:
            self.throws += 1
            if self.joint is not None:
                self.joint.due = False
            self._begin_moving(f[0], mt.dice)
        elif k == R.PLAY:
            self.last_play = (f[0], f[1])
            self.pending_play = None
            self.phase = D.AWAIT_ROLL
            self.side = mt.side
            self.dice[0] = self.dice[1] = 0
        elif k == R.DOUBLE:
            self.side = f[0]
            self.phase = D.DOUBLED
        elif k == R.TAKE or k == R.BEAVER:
            self.phase = D.AWAIT_ROLL  # the doubler (self.side) rolls
        elif k == R.RESIGN:
            self.resign_value = f[1]
        elif k == R.RESIGN_REJECT:
            if self.phase == D.RESIGNING:
                self.phase = self._prev_phase
                self.side = 1 - f[0]
        elif k == R.GAME_END:
            self.phase = D.GAME_OVER
            self.dice[0] = self.dice[1] = 0
        elif k == R.MATCH_END:
            self.phase = D.MATCH_OVER
        elif k == R.CLOCK:
            self.clock.used[f[0]] = f[1]
            self.clock.left[f[0]] = f[2]
        elif k == R.JOINT_START:
            from bg.dice.joint import JointMatch

            self.joint_side = f[0]
            self.joint = JointMatch(bytes(f[1]))
        elif k == R.JOINT_SHARE:
            j = self.joint
            assert j is not None  # (bg.match's fold checks that JOINT_START came first)
            j.other = (f[0], bytes(f[1]))

    def resume(self, actions, board_seed=None):
        """Replay a journal's actions after a power cut (any iterable of ``(kind, fields)``,
        consumed one at a time). ``board_seed``: the match's secret dice seed (32 bytes, from
        the journal) so the next throw is the one the journal expects. Then what a power cut
        between two records of one press left open: a drop or an accepted resignation without
        its GAME_END gets it now (the fold already scored it), so does the play that bore off
        the last checker; a GAME_END that decided the match gets its MATCH_END; a RESIGN
        without its answer is offered again to the opponent."""
        for k, f in actions:
            self.apply(k, f)
        if self.match_id is not None and self.phase != D.MATCH_OVER and board_seed is not None:
            from bg.dice.fairness import Fairness

            fair = Fairness(self.match_id, board_seed, self.player_seed, self.throws, False, self.seed_parts)
            if fair.commitment != self.commitment:
                raise ValueError("dice seed does not match the journal's commitment")
            if self.mt.game_no:
                fair.fix()  # the first game starts on the fixed seed: cut before its throw
            self.fair = fair
        self.track(0)
        self._update_marks()
        self._joint_dice()
        mt = self.mt
        lp = self.last_play
        if mt.phase == F_ENDED:
            self._end_decided()
        elif mt.phase == F_AWAIT and lp is not None and self.rules.game_result(mt.pos, lp[0]):
            self._after_play(lp[0])
        elif mt.phase == F_GAME_OVER:
            self._end_match(-1)
        elif mt.phase == F_RESIGNING:
            self._prev_phase = self.phase
            self.phase = D.RESIGNING
            self.side = mt.resign_offer
            self.resign_value = mt.resign_kind

    def board_seed(self):
        """The current match's secret dice seed (32 bytes) for the journal, or None (a two-board
        match keeps it without its ``Fairness``: ``_joint_dice``)."""
        if self.fair is None:
            j = self.joint
            return None if j is None else j.seed
        from bg.dice.fairness import unpack_secret

        return unpack_secret(self.fair.secret())[1]

    # The turn's reading: the recogniser follows the sensors; the LEDs' marks.

    def expected(self):
        """The counts the physical board should read when it is at rest now."""
        return _rec.observe(self.mt.pos, self._expect, self.caps)

    def board_matches(self):
        return self.sensed_valid and self.sensed == self.expected()

    def recognise(self, counts, caps=None, irregular=0):
        """Hand a reading to the recogniser ahead of ``board()``, the search left in slices to
        ``rec.work(n)`` (the app's recognition task: docs/performance.md). True when there
        is work; ``board()`` with the same reading then finds the answer ready."""
        if self.phase not in (D.MOVING, D.ILLEGAL):
            return False
        return self._rec_begun(True).feed(counts, self.caps if caps is None else caps, irregular)

    def _rec_begun(self, defer):
        """The recogniser, begun for the turn in progress (lazily: a journal replay folds many
        turns); ``defer``: its first search left to the engine task."""
        rec = self.rec
        if not self.rec_turn:
            rec.begin(self.turn_start, self.side, self.dice[0], self.dice[1], defer)
            self.rec_turn = True
        return rec

    def track(self, now):
        """While the mover moves: let the recogniser follow the latest reading (begun for the
        turn if it was not). Returns the recogniser's state (-1 outside a turn or before any
        reading)."""
        if self.phase not in (D.MOVING, D.ILLEGAL) or not self.sensed_valid:
            return -1
        st = self._rec_begun(False).update(self.sensed, self.caps, self.irregular)
        if st != R_AMBIGUOUS:
            self.selecting = False
        o = self.opp
        # an illegal reading that shows the computer's plan is a hand mid-hit on it, not an
        # illegal play
        if st == R_ILLEGAL and (o is None or not o.blot_first(self)):
            if self.illegal_since is None:
                self.illegal_since = now
        else:
            self.illegal_since = None
            self.errors_now = False
        return st

    def show_errors(self, now):
        """True when the LEDs should show what is wrong: the reading has been illegal for
        ``_ILLEGAL_SHOW_MS`` (a hand mid-move passes through illegal readings), or the mover
        pressed confirm on it."""
        if self.illegal_since is None:
            return False
        return self.errors_now or D.ticks_since(now, self.illegal_since) >= _ILLEGAL_SHOW_MS

    @property
    def choices(self):
        """While the mover picks among legal plays reading alike: their steps (allocates;
        for logs and tests), else None. The LEDs show ``rec.show(choice)``."""
        if not self.selecting:
            return None
        r = self.rec
        return [r.steps(k) for k in range(r.ncand)]

    @property
    def choice(self):
        return self.rec.selected

    def clock_side(self):
        """Whom the board is waiting on (the only side a clock may charge), or -1."""
        ph = self.phase
        if ph == D.AWAIT_ROLL:
            # a board out of place after a confirmed play is nobody's decision
            return self.side if self.board_matches() else -1
        if ph in (D.MOVING, D.CHOICE):
            return self.side
        if ph in (D.DOUBLED, D.RESIGNING, D.ILLEGAL):
            return 1 - self.side
        return -1

    def _run_clock(self, now):
        if self.clock.enabled:
            self.clock.run(self.clock_side(), now)

    def _update_marks(self):
        """Row masks for the LEDs: where a checker is missing / extra. During a turn: the
        recogniser's (against the last legal reading) while the reading is illegal; in
        casual mode's ``illegal`` phase the rows of the play against the turn's start;
        otherwise against what the board should show now (setup guidance)."""
        self.missing = self.extra = 0
        if not self.sensed_valid:
            return
        ph = self.phase
        if ph == D.MOVING:
            r = self.rec
            if self.rec_turn and r.state == R_ILLEGAL:
                self.missing = r.missing
                self.extra = r.extra | r.irregular
            return
        if ph == D.ILLEGAL:
            ref = _rec.observe(self.turn_start, self._expect, self.caps)
        else:
            ref = self.expected()
        m = e = 0
        for i in range(NLOC):
            d = self.sensed[i] - ref[i]
            if d < 0:
                m |= 1 << i
            elif d > 0:
                e |= 1 << i
        self.missing = m
        self.extra = e

    # The transitions a granted intent makes: ``bg.record`` actions, emitted and folded.

    def _emit(self, kind, fields):
        self.outbox.append((kind, fields))
        self.apply(kind, fields)

    @property
    def may_double(self):
        """The side on roll may offer the cube now: before rolling, as ``bg.match``'s rules allow
        (cube centred or its own, not in the Crawford game, match play up to the 64 of the
        physical cube), and not once a two-board roll was asked for: its share is out."""
        return self.phase == D.AWAIT_ROLL and not self.joint_due and self.mt.can_double(self.side)

    def _prepare_match(self):
        """ROLL in IDLE: draw the dice seed and journal MATCH_START with its commitment at
        once, before any player entropy is taken: hosts may then contribute seeds
        (``contribute``) and button timing is mixed in until the opening throw."""
        dice_factory, new_match_id, unix_time = self._env
        fair = dice_factory(new_match_id())
        s = self.settings
        t = unix_time() if unix_time else 0
        self._emit(
            R.MATCH_START,
            (
                fair.match_id,
                t,
                s.length,
                s.flags(),
                s.auto_doubles,
                s.clock_s,
                s.delay_s,
                s.names[0],
                s.names[1],
                fair.commitment,
                b"",  # the player seed comes from the SEED_PART records that follow
            ),
        )
        self.fair = fair  # apply(MATCH_START) reset the match state

    def _start_match(self):
        """The opening press of a match: button timing is the last contribution, the player
        seed is fixed, the first game starts (its opening throw follows). A two-board match
        starts only on both hosts' parts: the other board cannot know this one's presses; so
        does a match against a player at another board before its host brought their
        board's commitment (JOINT_START; the opponent knows: ``Opponent.remote``): started
        alone, its dice would be this board's."""
        o = self.opp
        if (self.joint_side >= 0 or o is not None and o.remote) and len(self.seed_parts) < 2:
            self.message = "waiting for the other board"
            return
        fair = self.fair
        assert fair is not None  # drawn by the match's first press (``_prepare_match``)
        d = fair.close_timing()
        if d is not None:
            self._emit(R.SEED_PART, (D.SRC_BUTTONS, "", d))
        fair.fix()
        self._joint_dice()
        self._start_game()

    def _start_game(self):
        crawford = self.mt.next_is_crawford()
        self._emit(
            R.GAME_START,
            (self.mt.game_no + 1, self.mt.score[0], self.mt.score[1], R.GAME_CRAWFORD if crawford else 0),
        )

    def _throw(self):
        """The only way to a throw: ``_intent`` calls it only when the rules let the presser
        roll (the phase, their turn, no double pending, the board as recorded), once per turn
        (the phase moves on with the throw's record); the stream's counter only moves forward,
        so a throw is never taken back or thrown again, and none comes after the match's end
        (``Fairness.roll`` raises)."""
        if self.joint_side >= 0:
            return self._joint_throw()  # None: waiting for the other board's share
        fair = self.fair
        assert fair is not None  # fixed by the match's opening press (``_start_match``)
        return fair.roll()

    def _opening_throw(self, side):
        if not self.mt.game_no:
            return False  # ``_start_match`` waits for the other board: nothing is thrown
        if not self.settings.house:
            was = self.joint_due
            d = self._throw()  # whoever presses throws both dice
            if d is None:
                return self.joint_due and not was  # asked for now: waiting for the other's share
            self._emit(R.OPENING, (0, (d[0], d[1])))
            if d[0] == d[1] and self.mt.may_auto_double():
                self._emit(R.AUTO_DOUBLE, (2 * self.mt.cube,))
            return True
        want = 0 if self.house_first is None else 1
        if side != want:
            return False
        d = self._throw()
        assert d is not None  # the house opening is one board's (``joint_start`` refuses it)
        if want == 0:
            # side 0's two dice wait (unjournaled: after a power cut the same throw comes
            # again, the counter is derived from the journal) for side 1's throw
            self.house_first = (d[0], d[1])
            self.dice[0], self.dice[1] = d[0], d[1]
            self.throws += 1
            return True
        a = self.house_first
        assert a is not None  # want == 1
        self.throws -= 1  # the pair's record counts both throws
        self._emit(R.OPENING, (R.OPEN_HOUSE, (a[0], a[1], d[0], d[1])))
        return True

    def _roll(self):
        """The side on roll throws; False when nothing changed (a two-board roll asked for
        already, still waiting for the other board's share: ``joint_take`` throws)."""
        was = self.joint_due
        d = self._throw()
        if d is None:
            return not was
        self._emit(R.ROLL, (self.side, d[0], d[1]))
        return True

    def _begin_moving(self, side, dice):
        self.phase = D.MOVING
        self.side = side
        self.dice[0] = dice[0]
        self.dice[1] = dice[1]
        self.turn_start[:] = self.mt.pos
        self.pending_play = None
        self.rec_turn = False  # begun lazily (_track): a journal replay folds many turns
        self.selecting = False
        self.illegal_since = None
        self.errors_now = False
        self.message = ""

    def _confirm(self, now=0):
        """ROLL while moving: ask the recogniser (``bg.recognize``) for the play the sensors
        show. Exactly one legal play reads like this: record it. Several read alike (stacks
        beyond the slots, colour-blind hits): the first press only shows candidate 0 (CUBE
        shows the next), a second press records the one shown -- the board never guesses.
        Anything else is refused and the LEDs say what is wrong; in casual mode the opponent
        may accept the play as it stands (the casual rule)."""
        st = self.track(now)
        if st < 0:
            return False
        rec = self.rec
        if st == R_AMBIGUOUS and not self.selecting:
            self.selecting = True  # show the candidates; nothing recorded on this press
            self.message = "ambiguous: %d legal plays read the same" % rec.ncand
            return True
        steps = rec.confirm()
        if steps is not None:
            return self._record_play(steps)
        if rec.state == R_AMBIGUOUS:  # a play hidden in a stack: confirm again to record it
            self.selecting = True
            self.message = "confirm the play shown (%d candidate%s)" % (
                rec.ncand,
                "" if rec.ncand == 1 else "s",
            )
            return True
        if st == R_ILLEGAL:
            self.message = "illegal play"
            self.errors_now = True
        elif rec.overflow:
            self.message = "too many plays read alike: enter it on the host"
        else:
            self.message = "play not finished"
        if self.settings.casual and st != R_LIFTED:
            steps = self.rules.steps_between(self.turn_start, self.side, self.sensed, self.cap)
            if steps is not None:
                self.message = "illegal play"
                self.pending_play = steps
                self._illegal_counts[:] = self.sensed
                self.phase = D.ILLEGAL
                return True
        self._update_marks()
        return False

    def _record_play(self, steps):
        self.message = ""
        self.selecting = False
        self._emit(R.PLAY, (self.side, steps, 0))
        if self.clock.enabled:  # the mover's time, so a resumed match keeps it
            s = self.side
            self._emit(R.CLOCK, (s, self.clock.used[s], self.clock.left[s]))
        self._after_play(1 - self.side)
        return True

    def _play_shown(self, steps):
        """Record ``steps`` when the sensors show that play: the recogniser's play, or one of
        the legal plays reading alike (a pass only when no play is legal). What is recorded
        is ``steps`` as given, not the recogniser's way to write the same play: the play a
        host sent (checked legal: ``Opponent.decided``) is the other board's record, and a
        board rebuilt from its journal may list the candidates in another order."""
        rec = self._rec_begun(False)
        if not steps:
            return rec.nomove and self._record_play(())
        st = rec.state
        if st != R_COMPLETE and st != R_AMBIGUOUS and rec.ncand:
            rec.confirm()  # a play hidden in a stack: let the recogniser list the candidates
        if rec.state != R_COMPLETE and rec.state != R_AMBIGUOUS:
            return False
        end = bytearray(self.turn_start)  # (once a turn: the play's end, to compare)
        self.rules.apply_steps(end, self.side, steps)
        for k in range(rec.ncand):
            if rec.end(k) == end:
                return self._record_play(tuple(steps))
        return False

    def _after_play(self, mover):
        """After a recorded play: the game is over when the mover bore off all 15."""
        r = self.rules.game_result(self.mt.pos, mover)
        if r:
            self._end_game(mover, r, R.END_BEAROFF)

    def _end_decided(self):
        """After a DROP or an accepted resignation: the game's end the fold decided."""
        p = self.mt.pending
        assert p is not None
        self._end_game(p[0], p[2], p[3])

    def _end_game(self, winner, kind, reason):
        """GAME_END for the points the fold gives: a drop's or an accepted resignation's
        (decided when folded), a flag fall's (it loses the match; money play: the game at the
        current stake), a bear-off's (``kind`` 1-3 at the cube, Jacoby)."""
        mt = self.mt
        if reason == R.END_TIME:
            points = mt.time_points(winner)
        elif reason == R.END_BEAROFF:
            points = mt.game_value(kind)
        else:
            p = mt.pending
            assert p is not None  # a drop or an accepted resignation was folded
            points = p[1]
        self._emit(R.GAME_END, (winner, points, kind, reason))
        self._end_match(-1)

    def _end_match(self, winner):
        """MATCH_END and the seed's reveal, won by ``winner``; -1: after a GAME_END, when that
        game decided the match (a flag fall, or the score reached the length), else nothing."""
        if winner < 0:
            mt = self.mt
            res = mt.result
            if res is None or not (res[3] == R.END_TIME or mt.is_over()):
                return
            winner = res[0] if res[3] == R.END_TIME else mt.match_winner()
        self._emit(R.MATCH_END, (winner, self.mt.score[0], self.mt.score[1]))
        f = self.fair
        j = self.joint
        if f is not None:
            f.end_match()
            self._emit(R.SEED_REVEAL, (f.reveal(),))
            self.fair = None  # revealed: nothing more comes from it (as in ``_joint_dice``)
            forget("bg.dice.fairness")
        elif j is not None and j.seed is not None:
            self._emit(R.SEED_REVEAL, (j.seed,))  # a two-board match's (``_joint_dice``)

    def _resign_recorded(self):
        """The offer in RESIGNING is already journaled (resumed after a power cut): it can no
        longer be changed or withdrawn, only answered."""
        return self.mt.phase == F_RESIGNING

    def _record_resign(self):
        if not self._resign_recorded():
            self._emit(R.RESIGN, (self.side, self.resign_value))

    # Two boards, one match: throws from both boards' shares (bg.dice.joint, docs/remote.md).

    def joint_start(self, side, other):
        """This match is played with another board: this board plays ``side``, ``other`` is
        the other board's commitment (from its host). Only right after MATCH_START, before any
        player seed part (both commitments are fixed before anything that decides a throw),
        with the standard opening (each throw is both boards'). Journals JOINT_START; returns
        ``(match id, commitment)`` of this board. ValueError otherwise; nothing changes."""
        f = self.fair
        if f is None or self.phase != D.OPENING or self.mt.game_no or not f.open or self.seed_parts:
            raise ValueError("no match is waiting for its dice")
        if self.joint_side >= 0:
            raise ValueError("the other board's commitment is already taken")
        if side != 0 and side != 1:
            raise ValueError("side must be 0 or 1")
        if self.settings.house:
            raise ValueError("two boards play the standard opening")
        from bg.dice.joint import joint_id

        joint_id(f.commitment, other)  # a copied commitment, a wrong length: ValueError
        self._emit(R.JOINT_START, (side, bytes(other)))
        return f.match_id, f.commitment

    def joint_take(self, k, share, now=0):
        """The other board's share of throw ``k`` (from its host): journaled (JOINT_SHARE)
        and, when the throw waits for it, thrown at once. Only the throw due (the journal's
        count), once: an old, a future or a second share for it is a ValueError, nothing is
        journaled. (Whether the share is the one the other board's seed gives is known only
        at its reveal: ``bg.dice.joint_verify.verify_joint``.)"""
        if self.joint_side < 0 or self.phase == D.IDLE or self.phase == D.MATCH_OVER:
            raise ValueError("no match with another board is on")
        if len(self.seed_parts) < 2:
            raise ValueError("no share before both hosts' parts")
        if not isinstance(share, (bytes, bytearray)) or len(share) != 32:
            raise ValueError("a share is 32 bytes")
        if k != self.throws:
            raise ValueError("a share for throw %d; throw %d is due" % (k, self.throws))
        j = self.joint
        assert j is not None  # (made with joint_side)
        o = j.other
        if o is not None and o[0] == k:
            raise ValueError("throw %d's share is already taken" % k)
        self._emit(R.JOINT_SHARE, (k, bytes(share)))
        if j.due and j.dice is not None:
            if self.phase == D.OPENING:
                self._opening_throw(2)
            elif self.phase == D.AWAIT_ROLL:
                self._roll()
            self.track(now)
            self._computer(now)
            self._update_marks()
            self._run_clock(now)
        return True

    def _joint_dice(self):
        j = self.joint
        if j is not None and self.fair is not None and self.fair.fixed:
            from bg.dice.joint import JointDice

            f = self.fair
            # the board seed's key pads are its own dice stream's (``Fairness.pads``): one copy
            # in the heap (``JointDice`` 544 -> 224 B on the board model), no unpacked seed
            j.dice = JointDice(
                self.joint_side, f.commitment, None, j.commit, f.player_seed, self.throws, pads=f.pads
            )
            # the throws are both boards' now: of this board's stream only the seed's reveal at
            # the match's end is left (``_end_match``). The ``Fairness`` goes, and its module
            # (1.2 kB of module and 0.7 kB of object on the board model, docs/memory.md),
            # imported again by the next match or a resume (a match resumed over has none)
            j.seed = self.board_seed()
            self.fair = None
            forget("bg.dice.fairness")

    @property
    def joint_due(self):
        """A throw of a match between two boards was asked for and waits for the other board's
        share (``_joint_throw``)."""
        j = self.joint
        return j is not None and j.due

    def joint_share(self, k):
        """This board's share of throw ``k`` for the other board, or None: only once that
        throw was asked for here (a roll pressed or decided; before that it would tell the
        other side the throw while its player may still double) or thrown."""
        j = self.joint
        if j is None or j.dice is None or k < 0 or k > (self.throws if j.due else self.throws - 1):
            return None
        return j.dice.share_of(k)

    def _joint_throw(self):
        j = self.joint
        jd = None if j is None else j.dice
        if j is None or jd is None:
            return None  # the match has not started: both hosts' parts are not in
        k = self.throws
        j.due = True  # asked for: this board's share of throw k may go out
        o = j.other
        if o is None or o[0] != k:
            return None
        jd.counter = k
        return jd.throw(o[1])

    # The computer opponent and coach (``app.opponent``).

    def _computer(self, now):
        """Let the computer (and the coach, learning mode) take its decisions after an input:
        its intents do not call it again."""
        if self.settings.computer < 0 and not self.learn and self.opp is None:
            return False
        o = self.opp
        self._acting = True
        try:
            return self._opponent(self.learn or not (self.joint_side >= 0 or o is not None and o.remote)).act(
                self, now
            )
        finally:
            self._acting = False

    def _opponent(self, own=True):
        """The side the board does not play itself (``opp``), made on first use: a ``Plan``
        (``app.plan``: the plan on the LEDs and the wait) for a player at another board while
        nothing of theirs is the board's to decide (``own`` False), else the ``Opponent``
        (``app.opponent``: the computer, the coach, learning mode), which takes over a
        ``Plan``'s side where the board must decide after all. The board's heap: a two-board
        match holds no ``Opponent`` (docs/memory.md)."""
        o = self.opp
        if o is None or own and not o.OWN:
            gen = getattr(self.rec, "gen", None)
            if own:
                from app.opponent import Opponent

                o = Opponent(None, gen, o)
            else:
                from app.plan import Plan

                o = Plan(gen)
            self.opp = o
        return o
