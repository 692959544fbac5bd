"""The controller's transitions: what a confirmed press does to the match (throws, plays,
cube, resignations, game and match ends). ``app.controller.Controller`` decides *when*
(buttons, sensors); this module decides *what*, emitting ``bg.record`` actions folded by
``app.ctl_state.State.apply``. What the rules allow and what a game is worth (cube, Jacoby,
beavers, automatic doubles, Crawford, scores, the match's end) is asked of ``bg.match``
through the state's fold (``self.mt``): no rule is repeated here."""

from app import ctl_defs as D
from app.ctl_state import State
from bg import record as R
from bg.match import F_AWAIT, F_ENDED, F_GAME_OVER, F_RESIGNING
from bg.recognize import AMBIGUOUS as R_AMBIGUOUS
from bg.recognize import COMPLETE as R_COMPLETE
from bg.recognize import ILLEGAL as R_ILLEGAL
from bg.recognize import LIFTED as R_LIFTED


class Turns(State):
    """Transitions on top of the state fold."""

    def _emit(self, kind, fields):
        self.outbox.append((kind, fields))
        self.apply(kind, fields)

    def _new_match_state(self):
        State._new_match_state(self)
        # a match between two boards (JOINT_START; bg.dice.joint, docs/remote.md)
        self.joint_side = -1  # the side this board plays, -1: a one-board match
        self.joint_commit = None  # the other board's commitment
        self.joint_other = None  # (k, share): the other board's share of throw k, taken
        self.joint_due = False  # a throw was asked for and waits for that share
        self.joint = None  # bg.dice.joint.JointDice, made when the player seed is fixed

    @property
    def may_double(self):
        """The side on roll may offer the cube now: before rolling, as ``bg.match``'s rules allow
        (cube centred or its own, not in the Crawford game, match play up to the 64 of the
        physical cube), and not once a two-board roll was asked for: its share is out."""
        return self.phase == D.AWAIT_ROLL and not self.joint_due and self.mt.can_double(self.side)

    def apply(self, k, f):
        State.apply(self, k, f)
        if k == R.JOINT_START:
            self.joint_side = f[0]
            self.joint_commit = bytes(f[1])
        elif k == R.JOINT_SHARE:
            self.joint_other = (f[0], bytes(f[1]))
        elif k == R.OPENING or k == R.ROLL:
            self.joint_due = False

    def _prepare_match(self):
        """ROLL in IDLE: draw the dice seed and journal MATCH_START with its commitment at
        once, before any player entropy is taken: hosts may then contribute seeds
        (``contribute``) and button timing is mixed in until the opening throw."""
        fair = self._dice_factory(self._new_match_id())
        s = self.settings
        t = self._unix_time() if self._unix_time else 0
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
        self.cup = None

    def _start_match(self, remote):
        """The opening press of a match: button timing is the last contribution, the player
        seed is fixed, the first game starts (its opening throw follows). A two-board match
        starts only on both hosts' parts: the other board cannot know this one's presses; so
        does a match against a player at another board before its host brought their
        board's commitment (JOINT_START): started alone, its dice would be this board's
        (``remote``: the other side is such a player; the controller's opponent knows)."""
        if (self.joint_side >= 0 or remote) and len(self.seed_parts) < 2:
            self.message = "waiting for the other board"
            return
        d = self.fair.close_timing()
        if d is not None:
            self._emit(R.SEED_PART, (D.SRC_BUTTONS, "", d))
        self.fair.fix()
        from bg.dice.cup import Cup

        self.cup = Cup(self.fair)
        self._joint_dice()
        self._start_game()

    # two boards, one match: throws from both boards' shares (bg.dice.joint, docs/remote.md)

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

    def _joint_dice(self):
        if self.joint_side >= 0 and self.fair is not None and self.fair.fixed:
            from bg.dice.joint import JointDice

            f = self.fair
            seed = self.board_seed()
            self.joint = JointDice(
                self.joint_side, f.commitment, seed, self.joint_commit, f.player_seed, self.throws
            )

    def joint_share(self, k):
        """This board's share of throw ``k`` for the other board, or None: only once that
        throw was asked for here (a roll pressed or decided; before that it would tell the
        other side the throw while its player may still double) or thrown."""
        jd = self.joint
        top = self.throws if self.joint_due else self.throws - 1
        if jd is None or k < 0 or k > top:
            return None
        return jd.share_of(k)

    def _joint_throw(self):
        jd = self.joint
        if jd is None:
            return None  # the match has not started: both hosts' parts are not in
        k = self.throws
        self.joint_due = True  # asked for: this board's share of throw k may go out
        o = self.joint_other
        if o is None or o[0] != k:
            return None
        jd.counter = k
        return jd.throw(o[1])

    def _start_game(self):
        crawford = self.mt.next_is_crawford()
        self._emit(
            R.GAME_START,
            (self.mt.game_no + 1, self.mt.score[0], self.mt.score[1], R.GAME_CRAWFORD if crawford else 0),
        )

    def _throw(self, side):
        if self.joint_side >= 0:
            return self._joint_throw()  # None: waiting for the other board's share
        cup = self.cup
        assert cup is not None  # the cup exists from the opening press to the match's end
        cup.allow(side)
        d = cup.press(side)
        assert d is not None  # allowed just before
        return d

    def _opening_throw(self, side):
        if not self.mt.game_no:
            return False  # ``_start_match`` waits for the other board: nothing is thrown
        if not self.settings.house:
            was = self.joint_due
            d = self._throw(2)  # EITHER: whoever presses throws both dice
            if d is None:
                return self.joint_due and not was  # asked for now: waiting for the other's share
            self._emit(R.OPENING, (0, (d[0], d[1])))
            if d[0] == d[1] and self.mt.may_auto_double():
                self._emit(R.AUTO_DOUBLE, (2 * self.mt.cube,))
            return True
        want = 0 if self.house_first is None else 1
        if side != want:
            return False
        d = self._throw(side)
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

    def _reroll(self, side):
        """House variant, CHOICE: the starter throws once more (and must play that throw)."""
        if side != self.side:
            return False
        d = self._throw(side)
        assert d is not None  # (as in ``_opening_throw``)
        self._emit(R.OPENING, (R.OPEN_HOUSE | R.OPEN_REROLL, (d[0], d[1])))
        return True

    def _roll(self):
        """The side on roll throws; False when nothing changed (a two-board roll asked for
        already, still waiting for the other board's share: ``joint_take`` throws)."""
        was = self.joint_due
        d = self._throw(self.side)
        if d is None:
            return not was
        self._emit(R.ROLL, (self.side, d[0], d[1]))
        return True

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
        if self.fair is not None:
            self.fair.end_match()
            self._emit(R.SEED_REVEAL, (self.fair.reveal(),))

    def resume(self, actions, board_seed=None):
        """``State.resume``, then what a power cut between two records of one press left
        open: a drop or an accepted resignation without its GAME_END gets it now (the fold
        already scored it), so does the play that bore off the last checker; a GAME_END that
        decided the match gets its MATCH_END; a RESIGN without its answer is offered again
        to the opponent."""
        State.resume(self, actions, board_seed)
        self._joint_dice()
        mt = self.mt
        lp = self.last_play
        if mt.phase == F_ENDED:
            self._end_decided()
        elif mt.phase == F_AWAIT and lp is not None and self.rules.game_result(self.mt.pos, lp[0]):
            self._after_play(lp[0])
        elif mt.phase == F_GAME_OVER:
            self._end_match(-1)
        elif mt.phase == F_RESIGNING:
            self._prev_phase = self.phase
            self.phase = D.RESIGNING
            self.side = mt.resign_offer
            self.resign_value = mt.resign_kind

    def _resign_recorded(self):
        """The offer in RESIGNING is already journaled (resumed after a power cut): it can no
        longer be changed or withdrawn, only answered."""
        return self.mt.phase == F_RESIGNING

    def _record_resign(self):
        if not self._resign_recorded():
            self._emit(R.RESIGN, (self.side, self.resign_value))

    def _offer_resign(self, side, value):
        self._prev_phase = self.phase
        self.phase = D.RESIGNING
        self.side = side
        self.resign_value = value

    def _end_session(self):
        """Money play has no natural end: the players end the session (both CUBE buttons
        held, see app.main) between games."""
        if self.phase == D.GAME_OVER and not self.settings.length:
            self._end_match(0 if self.mt.score[0] >= self.mt.score[1] else 1)
            return True
        return False
