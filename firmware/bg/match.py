"""Match and cube logic: match play to N points with the Crawford rule, money play with the
options of seed 001 (Jacoby rule, beavers, automatic doubles with a limit), scoring, the
cube, resignations, and the opening roll (standard rule and the seed-004 house variant).

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

The class knows nothing about checkers; the controller tells it what happened and asks what
is allowed. Errors (a double when the rules forbid it, ...) raise ValueError.
"""

from micropython import const

from bg.record import END_BEAROFF, END_DROP, END_RESIGN  # noqa: F401 - part of this API

SINGLE = const(1)
GAMMON = const(2)
BACKGAMMON = const(3)

MATCH_CUBE_LIMIT = const(64)  # the cube's faces; money play has no upper limit

# how a game ended: the record's vocabulary (bg.record), one copy
END_PLAYED = END_BEAROFF  # the winner bore off all checkers


def opening_standard(die0, die1):
    """Seed 000/002/003 opening: each side rolls one die; equal dice are rolled again; the
    higher die starts and plays both numbers. Returns ``None`` for a tie (roll again), else
    ``(starter, (die_of_starter, die_of_other))``."""
    _check_die(die0)
    _check_die(die1)
    if die0 == die1:
        return None
    if die0 > die1:
        return 0, (die0, die1)
    return 1, (die1, die0)


def opening_house(dice0, dice1):
    """Seed 004 house variant: each side rolls two dice; the higher total starts with its
    own two numbers (it may choose to re-roll instead, see ``house_play_dice``); equal
    totals are rolled again. Returns ``None`` for a tie, else ``(starter, starter's dice)``."""
    for d in dice0:
        _check_die(d)
    for d in dice1:
        _check_die(d)
    t0 = dice0[0] + dice0[1]
    t1 = dice1[0] + dice1[1]
    if t0 == t1:
        return None
    if t0 > t1:
        return 0, (dice0[0], dice0[1])
    return 1, (dice1[0], dice1[1])


def house_play_dice(own_dice, reroll=None):
    """Seed 004: the starter plays the numbers rolled, or chooses to roll again and plays
    the new roll (``reroll``, any roll, doubles included)."""
    if reroll is None:
        return (own_dice[0], own_dice[1])
    _check_die(reroll[0])
    _check_die(reroll[1])
    return (reroll[0], reroll[1])


def _check_die(d):
    if not 1 <= d <= 6:
        raise ValueError("a die shows 1..6, got %r" % (d,))


class Match:
    """One match (``length`` points) or a money session (``length=0``).

    Options (money play only, seed 001): ``jacoby`` (gammons and backgammons count single
    unless a double was offered in the game), ``beavers`` (the doubled side may redouble at
    once and keep the cube), ``auto_doubles`` (how many automatic doubles per game on
    equal opening dice; 0 = off).

    State: ``score`` [side 0, side 1], ``game_no`` (1-based once a game started), ``cube``,
    ``owner`` (-1 centred, 0, 1), ``crawford`` (this game is the Crawford game),
    ``post_crawford``, ``offer`` (side offering a double, or -1), ``resign_offer``/
    ``resign_kind``, ``in_game``, ``winner``/``points``/``end`` of the last game.
    """

    def __init__(self, length=0, jacoby=False, beavers=False, auto_doubles=0):
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
        self._reset_game()
        self.game_no += 1
        self.in_game = True
        self.crawford = False
        if self.length and not self.crawford_done:
            if self.length - 1 in (self.score[0], self.score[1]):
                self.crawford = True
                self.crawford_done = True

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
        if self.length and self.cube >= MATCH_CUBE_LIMIT:
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

    def auto_double(self):
        """Equal opening dice in money play with automatic doubles: the cube doubles and stays
        centred, at most ``auto_doubles`` times per game. Returns True if it doubled."""
        self._need_game()
        if self.length or self.autos >= self.auto_limit:
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
        if not self.length and self.jacoby and not self.offered_in_game:
            return 1  # Jacoby rule: no gammons unless the cube was offered
        return kind

    def game_value(self, kind):
        """Points a win of ``kind`` (1 single, 2 gammon, 3 backgammon) is worth now."""
        if kind not in (SINGLE, GAMMON, BACKGAMMON):
            raise ValueError("kind is 1, 2 or 3")
        return self.cube * self._kind_value(kind)

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
            gs = (2, 4, 3)[self.end]
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
