"""Match and cube logic: match play to N points with the Crawford rule, money play with the
options of money play (Jacoby rule, beavers, automatic doubles with a limit), scoring, the
cube, resignations, and the opening roll (folded by ``bg.dice.cup.Opening``, the one copy of its
rules: the standard rule and the house variant, each side throwing two dice).

Example::

    >>> from bg.match import Match, GAMMON
    >>> m = Match(length=5)
    >>> m.new_game(); m.double(0); m.take()
    >>> m.cube, m.owner
    (2, 1)
    >>> m.end_game(0, GAMMON)
    4
    >>> m.score
    [4, 0]

``Match`` knows nothing about checkers: it is told what happened and asked what is allowed.
``Fold`` is the one fold of the record over the rules: ``apply(kind, fields)`` takes one
``bg.record`` action (as ``bg.record`` decodes it) and moves the match on -- scores, cube,
Crawford, whose turn, the position, how each game ended -- or raises ValueError naming what
is wrong and changes nothing it has not checked. The device's controller
(``app.controller.Controller.apply``) and the host's model (``gammon.model``) both fold through it,
so a rule is changed here and every consumer follows. Errors (a double when the rules forbid
it, ...) raise ValueError.
"""

from micropython import const

from bg import board as _board
from bg import record as _R
from bg.record import END_BEAROFF, END_DROP, END_RESIGN, END_TIME  # noqa: F401 - part of this API

SINGLE = const(1)
GAMMON = const(2)
BACKGAMMON = const(3)

_MATCH_CUBE_LIMIT = const(64)  # the cube's faces; money play has no upper limit

# how a game ended: the record's vocabulary (bg.record), one copy
END_PLAYED = END_BEAROFF  # the winner bore off all checkers


class Match:
    """One match (``length`` points) or a money session (``length=0``).

    Options: ``crawford`` (match play: no cube in the game after a side reached match point;
    on by default); money play only: ``jacoby`` (gammons and backgammons count
    single if no double was offered in the game; automatic doubles are no offer),
    ``beavers`` (the doubled side may redouble at once and keep the cube), ``auto_doubles``
    (how many automatic doubles per game on equal opening dice; 0 = off).

    State: ``score`` [side 0, side 1], ``game_no`` (1-based once a game started), ``cube``,
    ``owner`` (-1 centred, 0, 1), ``crawford`` (this game is the Crawford game),
    ``post_crawford``, ``offer`` (side offering a double, or -1), ``resign_offer``/
    ``resign_kind``, ``in_game``, ``winner``/``points``/``end`` of the last game.
    """

    def __init__(self, length=0, jacoby=False, beavers=False, auto_doubles=0, crawford=True):
        if length < 0 or length > 32767:
            raise ValueError("match length 0..32767 (0 = money play)")
        if length and (jacoby or beavers or auto_doubles):
            raise ValueError("Jacoby, beavers and automatic doubles are money-play options")
        if auto_doubles < 0:
            raise ValueError("automatic doubles limit must be >= 0")
        self.length = length
        self.jacoby = jacoby
        self.beavers = beavers
        self.auto_limit = auto_doubles
        self.crawford_rule = crawford  # match play: the Crawford rule is on (MATCH_START option)
        self.score = [0, 0]
        self.game_no = 0
        self.crawford = False
        self.crawford_done = False
        self.in_game = False
        self._reset_game()
        self.winner = -1
        self.points = 0
        self.end = END_PLAYED

    def _reset_game(self):
        self.cube = 1
        self.owner = -1
        self.offer = -1
        self.beavered = False
        self.offered_in_game = False
        self.autos = 0
        self.turn = -1
        self.rolled = False
        self.resign_offer = -1
        self.resign_kind = 0

    @property
    def post_crawford(self):
        return self.crawford_done and not self.crawford

    # ------------------------------------------------------------ games and turns
    def new_game(self):
        """Start the next game: cube centred at 1; decides whether it is the Crawford game
        (the first game after a side reached match point)."""
        if self.is_over():
            raise ValueError("the match is over")
        if self.in_game:
            raise ValueError("a game is in progress")
        crawford = self.next_is_crawford()
        self._reset_game()
        self.game_no += 1
        self.in_game = True
        self.crawford = crawford
        if crawford:
            self.crawford_done = True

    def next_is_crawford(self):
        """True when the next game is the Crawford game: match play with the Crawford rule,
        a side one point from the match, and no Crawford game played yet."""
        if not self.length or not self.crawford_rule or self.crawford_done:
            return False
        return self.length - 1 in (self.score[0], self.score[1])

    def start_turn(self, side):
        """``side`` is on roll and has not rolled yet (the moment a double may be offered)."""
        self._need_game()
        if self.offer >= 0 or self.resign_offer >= 0:
            raise ValueError("a decision is pending")
        self.turn = side
        self.rolled = False

    def rolled_dice(self):
        """The side on roll has rolled: no more doubling this turn."""
        self.rolled = True

    def _need_game(self):
        if not self.in_game:
            raise ValueError("no game in progress")

    # ------------------------------------------------------------ the cube
    def can_double(self, side):
        """True when ``side`` may offer a double now: a game is on, it is ``side``'s turn
        before rolling (when turns are tracked), nothing pending, not the Crawford game,
        ``side`` owns the cube or it is centred, and (match play) the cube is below 64."""
        if not self.in_game or self.offer >= 0 or self.resign_offer >= 0:
            return False
        if self.turn >= 0 and (self.turn != side or self.rolled):
            return False
        if self.crawford:
            return False
        if self.owner >= 0 and self.owner != side:
            return False
        if self.length and self.cube >= _MATCH_CUBE_LIMIT:
            return False
        return True

    def double(self, side):
        """``side`` offers a double (the opponent must take, drop, or beaver)."""
        if not self.can_double(side):
            raise ValueError("side %d may not double now" % side)
        self.offer = side
        self.beavered = False
        self.offered_in_game = True

    def can_beaver(self):
        return self.offer >= 0 and not self.beavered and self.beavers and not self.length

    def beaver(self):
        """The doubled side redoubles at once and keeps the cube (money play with beavers):
        the cube goes to twice the offered value, owned by the beaverer, and the original
        doubler must now take or drop."""
        if not self.can_beaver():
            raise ValueError("no beaver possible now")
        taker = 1 - self.offer
        self.cube *= 2
        self.owner = taker
        self.offer = taker
        self.beavered = True

    def take(self):
        """The offered double is accepted: the cube doubles; the taker owns it (after a
        beaver the beaverer keeps it)."""
        if self.offer < 0:
            raise ValueError("no double to take")
        self.cube *= 2
        self.owner = self.offer if self.beavered else 1 - self.offer
        self.offer = -1
        self.beavered = False

    def drop(self):
        """The offered double is refused: the offering side wins the value at stake before
        the double. Returns the points scored."""
        if self.offer < 0:
            raise ValueError("no double to drop")
        winner = self.offer
        self.offer = -1
        return self._finish(winner, self.cube, END_DROP)

    def may_auto_double(self):
        """True when equal opening dice now double the cube (money play with automatic
        doubles, fewer than ``auto_doubles`` of them this game)."""
        return self.in_game and not self.length and self.autos < self.auto_limit

    def auto_double(self):
        """Equal opening dice in money play with automatic doubles: the cube doubles and stays
        centred, at most ``auto_doubles`` times per game. Returns True if it doubled."""
        self._need_game()
        if not self.may_auto_double():
            return False
        self.autos += 1
        self.cube *= 2
        return True

    # ------------------------------------------------------------ resignations
    def resign(self, side, kind):
        """``side`` offers to resign a single (1), gammon (2) or backgammon (3)."""
        self._need_game()
        if kind not in (SINGLE, GAMMON, BACKGAMMON):
            raise ValueError("resign single (1), gammon (2) or backgammon (3)")
        if self.offer >= 0:
            raise ValueError("a double is pending")
        self.resign_offer = side
        self.resign_kind = kind

    def accept_resign(self):
        """The opponent accepts the resignation: it wins ``kind`` x cube (Jacoby applies).
        Returns the points scored."""
        if self.resign_offer < 0:
            raise ValueError("no resignation offered")
        winner = 1 - self.resign_offer
        kind = self.resign_kind
        self.resign_offer = -1
        return self._finish(winner, self.cube * self._kind_value(kind), END_RESIGN)

    def reject_resign(self):
        if self.resign_offer < 0:
            raise ValueError("no resignation offered")
        self.resign_offer = -1
        self.resign_kind = 0

    # ------------------------------------------------------------ scoring
    def _kind_value(self, kind):
        if self.jacoby_applies():
            return 1
        return kind

    def jacoby_applies(self):
        """The Jacoby rule (money play with the option): gammons and backgammons
        count as a single if neither player offered a double during the game (automatic
        doubles are no offer). The one copy of the rule: the controller, the host's model and
        the exports all score through ``game_value``. (The controller used to test "cube
        centred" instead; no reachable state tells them apart -- an offer is taken, beavered
        or dropped, and a drop scores a single anyway -- but there is one rule now.)"""
        return not self.length and self.jacoby and not self.offered_in_game

    def game_value(self, kind):
        """Points a win of ``kind`` (1 single, 2 gammon, 3 backgammon) is worth now."""
        if kind not in (SINGLE, GAMMON, BACKGAMMON):
            raise ValueError("kind is 1, 2 or 3")
        return self.cube * self._kind_value(kind)

    def time_points(self, winner):
        """A flag fall on the match clock: match play, the winner gets what it needs to win the
        match (at least 1); money play, the game at the current stake."""
        if self.length:
            need = self.length - self.score[winner]
            return need if need > 1 else 1
        return self.cube

    def end_game(self, winner, kind):
        """``winner`` bore off all checkers; ``kind`` from ``bg.board.game_result``.
        Returns the points scored (kind x cube, Jacoby applied)."""
        self._need_game()
        return self._finish(winner, self.game_value(kind), END_PLAYED)

    def _finish(self, winner, points, how):
        self._need_game()
        if winner not in (0, 1):
            raise ValueError("winner is side 0 or 1")
        self.score[winner] += points
        self.winner = winner
        self.points = points
        self.end = how
        self.in_game = False
        return points

    def is_over(self):
        """True when a side has reached the match length (never in money play)."""
        return bool(self.length) and (self.score[0] >= self.length or self.score[1] >= self.length)

    def match_winner(self):
        if not self.is_over():
            return -1
        return 0 if self.score[0] >= self.length else 1

    def match_id_fields(self, dice_owner, dice=(0, 0)):
        """Keyword arguments for ``bg.ids.match_id`` describing the current state."""
        gs = 1 if self.in_game else (2 if self.game_no else 0)
        if not self.in_game and self.game_no:
            gs = (2, 4, 3, 3)[self.end]  # bear-off, drop, resign, time (a resignation)
        turn = dice_owner
        if self.offer >= 0:
            turn = 1 - self.offer
        elif self.resign_offer >= 0:
            turn = 1 - self.resign_offer
        return {
            "cube_value": self.cube,
            "cube_owner": self.owner,
            "dice_owner": dice_owner,
            "crawford": self.crawford,
            "game_state": gs,
            "turn": turn,
            "doubled": self.offer >= 0,
            "resign": self.resign_kind if self.resign_offer >= 0 else 0,
            "dice": dice,
            "length": self.length,
            "score": (self.score[0], self.score[1]),
            "jacoby": self.jacoby,
        }


def apply_free(pos, side, steps):
    """Casual mode (friendly games): make a play the opponent accepted although illegal (any
    direction, any distance) on ``pos`` in place: each step moves one checker of ``side``
    (``from``/``to`` in its own numbering, 25 = bar, 0 = off); a lone opponent checker where
    it lands goes to the bar. ValueError (nothing half-made is left to trust) when a step
    starts where ``side`` has no checker or lands on a point the opponent holds."""
    b = 25 if side else 0
    ob = 24 if side else 49
    for i in range(0, len(steps), 2):
        f, t = steps[i], steps[i + 1]
        if not (0 < f <= 25 and 0 <= t <= 24):
            raise ValueError("bad step %d/%d" % (f, t))
        if pos[b + f - 1] == 0:
            raise ValueError("no checker of side %d on %d" % (side, f))
        if t and pos[ob - t] >= 2:
            raise ValueError("point %d is closed" % t)
        pos[b + f - 1] -= 1
        if t == 0:
            pos[50 + side] += 1
            continue
        if pos[ob - t] == 1:
            pos[ob - t] = 0
            pos[ob] += 1
        pos[b + t - 1] += 1
    return pos


# Where a fold stands between two records
_F_NONE = const(0)  # no MATCH_START yet
_F_MATCH = const(1)  # the match started, its first game not yet
F_OPENING = const(2)  # GAME_START: opening throws (ties throw again)
F_CHOICE = const(3)  # house variant: the starter keeps the throw or throws once more
F_AWAIT = const(4)  # ``side`` may double or roll
F_MOVING = const(5)  # ``side`` plays ``dice``
F_DOUBLED = const(6)  # ``offer`` doubled: the other side takes, drops or beavers
F_RESIGNING = const(7)  # ``resign_offer`` offered to resign: accepted or rejected next
F_ENDED = const(8)  # a drop or an accepted resignation: its GAME_END follows
F_GAME_OVER = const(9)
F_MATCH_OVER = const(10)


def _forget_cup():
    """MicroPython only: CPython has the memory, and a host folds many games (``bg.forget``)."""
    import sys

    if sys.implementation.name == "micropython":
        from bg import forget

        forget("bg.dice.cup")


class Fold(Match):
    """The record folded over the rules: ``apply(kind, fields)`` per ``bg.record`` action.

    State beyond ``Match``'s: ``phase`` (F_*), ``side`` (on roll / moving, -1 between
    games), ``dice`` (bytearray: the numbers being played, 0 0 when none), ``pos`` (the
    position, ``bg.board`` layout), ``opening`` (the game's ``bg.dice.cup.Opening``, None once
    its opening roll is played), ``opening_play`` (the play in progress is the opening
    roll's), ``result`` ((winner, points, kind, reason) of the last game, None during one),
    ``names``/``house``/``casual`` (from MATCH_START). ``check`` (default True): every play is checked with
    ``bg.engine`` (the host); the device's controller records only plays its recogniser
    found legal and folds without the check."""

    def __init__(self, check=True):
        Match.__init__(self)
        self.check = check
        self.phase = _F_NONE
        self.side = -1
        self.dice = bytearray(2)
        self.pos = _board.start_position()
        self._work = bytearray(len(self.pos))  # a play is made here first (no allocation)
        self.opening = None
        self.opening_play = False
        self.result = None
        self.pending = None  # (winner, points, kind, reason) a drop/resignation decided
        self._before_resign = _F_NONE
        self.names = ("", "")
        self.house = False
        self.casual = False

    def play_text(self, pos, side, steps):
        """How an illegal play is named in the error (the host overrides: gnubg notation)."""
        return repr(steps)

    def apply(self, k, f):
        """Fold one action; ValueError (a short message) when it breaks the rules or comes
        out of order."""
        ph = self.phase
        if k == _R.MATCH_START:
            if ph not in (_F_NONE, F_MATCH_OVER):
                raise ValueError("MATCH_START inside a match")
            fl = f[3]
            money = not f[2]
            Match.__init__(
                self,
                f[2],
                money and bool(fl & _R.OPT_JACOBY),
                money and bool(fl & _R.OPT_BEAVER),
                f[4] if money else 0,
                bool(fl & _R.OPT_CRAWFORD),
            )
            self.names = (f[7], f[8])
            self.house = bool(fl & _R.OPT_HOUSE_OPENING)
            self.casual = bool(fl & _R.OPT_CASUAL)
            self.phase = _F_MATCH
            self.side = -1
            self.result = None
            self.opening = None
            return
        if ph == _F_NONE:
            raise ValueError("a match must begin with MATCH_START, got %s" % _R.name(k))
        if k == _R.CLOCK or k == _R.SEED_REVEAL:
            return  # the clock and the seed are the controller's/the dice's, not the rules'
        if ph == F_MATCH_OVER:
            raise ValueError("%s after MATCH_END" % _R.name(k))
        if k == _R.SEED_PART or k == _R.JOINT_START:
            if self.game_no:
                raise ValueError("%s after the first game started" % _R.name(k))
        elif k == _R.JOINT_SHARE:
            return  # the dice's (bg.dice.joint), not the rules': the throw's own record follows
        elif k == _R.GAME_START:
            self._game_start(f)
        elif k == _R.MATCH_END:
            if ph not in (_F_MATCH, F_GAME_OVER):
                raise ValueError("MATCH_END in the middle of a game")
            if f[1] != self.score[0] or f[2] != self.score[1]:
                raise ValueError(
                    "MATCH_END score %d-%d, expected %d-%d" % (f[1], f[2], self.score[0], self.score[1])
                )
            self.phase = F_MATCH_OVER
        elif ph in (_F_MATCH, F_GAME_OVER):
            raise ValueError("%s outside a game" % _R.name(k))
        elif k == _R.OPENING:
            self._opening(f)
        elif k == _R.AUTO_DOUBLE:
            if ph != F_OPENING:
                raise ValueError("AUTO_DOUBLE is only for a tied opening roll")
            before = self.cube
            if not self.auto_double():
                raise ValueError(
                    "AUTO_DOUBLE not allowed (match play, or over the limit of %d)" % self.auto_limit
                )
            if f[0] != self.cube:
                self.cube = before
                self.autos -= 1
                raise ValueError("AUTO_DOUBLE to %d with the cube at %d" % (f[0], before))
        elif k == _R.ROLL:
            if ph != F_AWAIT or f[0] != self.side:
                raise ValueError("ROLL by side %d out of turn" % f[0])
            self.rolled_dice()
            self.dice[0] = f[1]
            self.dice[1] = f[2]
            self.phase = F_MOVING
            self.opening_play = False
        elif k == _R.PLAY:
            self._play(f)
        elif k == _R.DOUBLE:
            self._double(f)
        elif k == _R.TAKE or k == _R.BEAVER or k == _R.DROP:
            self._answer(k, f)
        elif k == _R.RESIGN:
            if ph not in (F_AWAIT, F_MOVING, F_CHOICE):
                raise ValueError("RESIGN at the wrong time")
            self.resign(f[0], f[1])
            self._before_resign = ph
            self.phase = F_RESIGNING
        elif k == _R.RESIGN_ACCEPT or k == _R.RESIGN_REJECT:
            if ph != F_RESIGNING or f[0] != 1 - self.resign_offer:
                raise ValueError("resignation answered without an offer")
            if k == _R.RESIGN_ACCEPT:
                kind = self.resign_kind
                points = self.accept_resign()
                self.pending = (f[0], points, kind, END_RESIGN)
                self.phase = F_ENDED
            else:
                self.reject_resign()
                self.phase = self._before_resign
        elif k == _R.GAME_END:
            self._game_end(f)
        else:
            raise ValueError("unexpected %s" % _R.name(k))

    def _game_start(self, f):
        no, s0, s1, flags = f
        if self.phase not in (_F_MATCH, F_GAME_OVER):
            raise ValueError("GAME_START before the previous game ended")
        if s0 != self.score[0] or s1 != self.score[1]:
            raise ValueError(
                "GAME_START score %d-%d, expected %d-%d" % (s0, s1, self.score[0], self.score[1])
            )
        if no != self.game_no + 1:
            raise ValueError("GAME_START number %d, expected %d" % (no, self.game_no + 1))
        crawford = bool(flags & _R.GAME_CRAWFORD)
        if crawford != self.next_is_crawford():
            raise ValueError(
                "GAME_START %s the Crawford game, but the score says it %s"
                % ("marks" if crawford else "does not mark", "is not" if crawford else "is")
            )
        self.new_game()
        _board.set_start(self.pos)
        from bg.dice.cup import Opening

        self.opening = Opening(self.house)
        self.phase = F_OPENING
        self.side = -1
        self.dice[0] = self.dice[1] = 0
        self.result = None
        self.pending = None

    def _opening(self, f):
        flags, dice = f
        o = self.opening
        assert o is not None  # GAME_START made it; the phase says a game is on
        ph = self.phase
        if ph == F_CHOICE and flags & _R.OPEN_REROLL:
            o.reroll()
            o.feed(dice[0], dice[1])
        elif ph == F_OPENING and not flags & _R.OPEN_REROLL:
            if bool(flags & _R.OPEN_HOUSE) != self.house or len(dice) != (4 if self.house else 2):
                raise ValueError("OPENING does not match the match's opening rule")
            o.feed(dice[0], dice[1])
            if self.house:
                o.feed(dice[2], dice[3])
        else:
            raise ValueError("unexpected OPENING")
        d = o.dice
        if d is not None and (o.state == 2 or o.state == 1):  # bg.dice.cup DONE / CHOICE
            self.side = o.starter
            self.dice[0] = d[0]
            self.dice[1] = d[1]
            self.phase = F_MOVING if o.state == 2 else F_CHOICE
            self.opening_play = True
            self.start_turn(o.starter)
            self.rolled_dice()

    def _play(self, f):
        side, steps, flags = f
        if self.phase not in (F_MOVING, F_CHOICE) or side != self.side:
            raise ValueError("PLAY by side %d out of turn" % side)
        pos = self.pos
        if flags & _R.PLAY_CASUAL_ACCEPTED_ILLEGAL:
            if not self.casual:
                raise ValueError("an illegal play accepted, but the match is not casual")
            work = self._work  # made on a copy: a refused play leaves the position alone
            work[:] = pos
            try:
                apply_free(work, side, steps)
            except ValueError as e:
                raise ValueError("impossible play %r: %s" % (steps, e)) from None
            pos[:] = work
        else:
            d1, d2 = self.dice[0], self.dice[1]
            if self.check:
                from bg import engine

                if not engine.is_legal(pos, side, d1, d2, steps):
                    raise ValueError(
                        "illegal play %r with %d%d by %s in game %d"
                        % (
                            self.play_text(pos, side, steps) or "(no move)",
                            d1,
                            d2,
                            self.names[side] or "side %d" % side,
                            self.game_no,
                        )
                    )
            work = self._work
            work[:] = pos
            for i in range(0, len(steps), 2):
                _board.apply_step(work, side, steps[i], steps[i + 1])
            pos[:] = work
        o = self.opening
        if o is not None:
            if self.phase == F_CHOICE:
                o.keep()
            # the opening is played: its rules (``bg.dice.cup``) are not needed until the next
            # game's GAME_START imports them again (~0.4 kB held through the game on the board,
            # docs/memory.md)
            self.opening = None
            _forget_cup()
        self.opening_play = False
        self.side = 1 - side
        self.dice[0] = self.dice[1] = 0
        self.phase = F_AWAIT
        if pos[50 + side] != _board.NCHECKERS:
            self.start_turn(self.side)

    def _double(self, f):
        side, value = f
        if self.phase != F_AWAIT or side != self.side:
            raise ValueError("DOUBLE by side %d out of turn" % side)
        if not self.can_double(side):
            if self.crawford:
                why = "no doubling in the Crawford game"
            elif self.owner not in (-1, side):
                why = "side %d does not own the cube" % side
            else:
                why = "the cube is at its limit"
            raise ValueError("DOUBLE not allowed: " + why)
        if value != 2 * self.cube:
            raise ValueError("DOUBLE to %d with the cube at %d" % (value, self.cube))
        self.double(side)
        self.phase = F_DOUBLED

    def _answer(self, k, f):
        side = f[0]
        if self.phase != F_DOUBLED or side != 1 - self.offer:
            raise ValueError("%s without a double to answer" % _R.name(k))
        if k == _R.TAKE:
            self.take()
        elif k == _R.BEAVER:
            if not self.can_beaver():
                raise ValueError("BEAVER when beavers are not allowed")
            if f[1] != 4 * self.cube:
                raise ValueError("BEAVER to %d with the cube at %d" % (f[1], self.cube))
            self.beaver()
            self.take()  # the record's BEAVER is the redouble and its acceptance in one action
        else:
            winner = self.offer
            points = self.drop()
            self.pending = (winner, points, SINGLE, END_DROP)
            self.phase = F_ENDED
            return
        self.phase = F_AWAIT

    def _game_end(self, f):
        winner, points, kind, reason = f
        ph = self.phase
        if reason == END_BEAROFF:
            if ph != F_AWAIT or winner not in (0, 1) or self.pos[50 + winner] != _board.NCHECKERS:
                raise ValueError("GAME_END by bear-off, but side %d has not borne off all checkers" % winner)
            k = _board.game_result(self.pos, winner)
            exp = (winner, self.game_value(k), k)
            if (winner, points, kind) != exp:
                raise ValueError(
                    "GAME_END %r does not match the final position (expected %r)"
                    % ((winner, points, kind), exp)
                )
            self.end_game(winner, k)
        elif reason == END_DROP or reason == END_RESIGN:
            if ph != F_ENDED:
                raise ValueError(
                    "GAME_END by %s without one" % ("drop" if reason == END_DROP else "resignation")
                )
            if (winner, points, kind, reason) != self.pending:
                raise ValueError("GAME_END %r, expected %r" % ((winner, points, kind, reason), self.pending))
        elif reason == END_TIME:
            if ph == F_ENDED or winner not in (0, 1):
                raise ValueError("GAME_END by time after the game was decided")
            if points != self.time_points(winner):
                raise ValueError(
                    "GAME_END by time for %d points, expected %d" % (points, self.time_points(winner))
                )
            self.offer = -1
            self.resign_offer = -1
            self._finish(winner, points, END_TIME)
        else:
            raise ValueError("unknown GAME_END reason %d" % reason)
        self.result = (winner, points, kind, reason)
        self.pending = None
        self.side = -1
        self.dice[0] = self.dice[1] = 0
        self.phase = F_GAME_OVER
