"""The controller's state and its fold: ``State.apply(kind, fields)`` folds one confirmed
action (a ``bg.record`` kind and field tuple) into the match state -- the same function for
live play and for replaying the journal after a power cut. The match rules (cube, Jacoby,
beavers, automatic doubles, scores, Crawford, the position) are ``bg.match.Fold``'s, the one
fold the host's model runs too; this module keeps the controller's own phases and inputs.
``app.controller.Controller`` adds the inputs (sensors, buttons, time) on top."""

from app import ctl_defs as D
from app.rules import NLOC
from bg import match as _match
from bg import recognize as _rec
from bg import record as R
from micropython import const

_ILLEGAL_SHOW_MS = const(500)  # an illegal reading is shown only once it lasted this long (a hand
# carrying a hit blot to the bar passes through illegal readings)


class State:
    """Match state (see ``app.controller.Controller`` for the constructor's arguments)."""

    def __init__(self, settings, rules, dice_factory, new_match_id, unix_time=None, cap=6, recognizer=None):
        self.settings = settings  # the match's (a resumed match's from its MATCH_START)
        # the device's settings: every new match starts with them, whatever the last match
        # (resumed from the journal) was played with
        self.config = settings
        self.rules = rules
        self._dice_factory = dice_factory
        self._new_match_id = new_match_id
        self._unix_time = unix_time
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
        self.cup = None
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

    def expected(self):
        """The counts the physical board should read when it is at rest now."""
        return _rec.observe(self.mt.pos, self._expect, self.caps)

    def board_matches(self):
        return self.sensed_valid and self.sensed == self.expected()

    def apply(self, k, f):
        """Fold one action (a ``bg.record`` kind and field tuple) into the state. Replaying
        a journal is ``for k, f in actions: c.apply(k, f)``; ``outbox`` is not touched. The
        rules are ``bg.match.Fold.apply``'s (ValueError, nothing changed, when the action
        breaks them); what follows is the controller's phase."""
        if k == R.MATCH_START:
            self.settings = D.Settings.from_record(f)
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
            self.house_first = None
            d = f[1]
            self.dice[0] = d[-2]
            self.dice[1] = d[-1]
            if mt.phase == _match.F_MOVING:
                self._begin_moving(mt.side, mt.dice)
            elif mt.phase == _match.F_CHOICE:
                self.phase = D.CHOICE
                self.side = mt.side
                self.dice[:] = mt.dice
        elif k == R.ROLL:
            self.throws += 1
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

    def resume(self, actions, board_seed=None):
        """Replay a journal's actions after a power cut (any iterable of ``(kind, fields)``,
        consumed one at a time). ``board_seed``: the match's secret dice seed (32 bytes, from
        the journal) so the next throw is the one the journal expects."""
        for k, f in actions:
            self.apply(k, f)
        if self.match_id is not None and self.phase != D.MATCH_OVER and board_seed is not None:
            from bg.dice.cup import Cup
            from bg.dice.fairness import Fairness

            fair = Fairness(self.match_id, board_seed, self.player_seed, self.throws, False, self.seed_parts)
            if fair.commitment != self.commitment:
                raise ValueError("dice seed does not match the journal's commitment")
            if self.mt.game_no:
                fair.fix()  # the first game starts on the fixed seed: cut before its throw
            self.fair = fair
            self.cup = Cup(fair)
        self.track(0)
        self._update_marks()

    def board_seed(self):
        """The current match's secret dice seed (32 bytes) for the journal, or None."""
        if self.fair is None:
            return None
        from bg.dice.fairness import unpack_secret

        return unpack_secret(self.fair.secret())[1]

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
        if st != _rec.AMBIGUOUS:
            self.selecting = False
        if st == _rec.ILLEGAL:
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
            if self.rec_turn and r.state == _rec.ILLEGAL:
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
