"""The controller's vocabulary: action kinds (the ``bg.record`` values), phases, buttons,
``Settings`` and the match ``Clock``: the definitions every ``ctl_*`` module shares, kept apart
from the controller's behaviour."""

from bg import dice
from bg import record as R
from micropython import const

# Action kinds and flags: one vocabulary, ``bg.record``'s (the journal's format), which the
# controller's modules read as ``R.PLAY``, ``R.OPT_JACOBY``, ... The names this module gave
# them (``K_PLAY``, ``OPT_JACOBY``, ``PLAY_ILLEGAL_ACCEPTED``, ... -- the controller's API, for
# its users and tests) are read through ``__getattr__`` below, not stored: a module's dict
# entry costs the board's heap (docs/memory.md). The values are never repeated here.
SRC_HOST = dice.SRC_HOST  # who gave a player-seed contribution (bg.dice)
SRC_BUTTONS = dice.SRC_BUTTONS
OPT_COMPUTER = (R.OPT_COMPUTER0, R.OPT_COMPUTER1)


def __getattr__(name):
    """``K_<kind>`` is ``bg.record.<kind>``; ``I_<intent>`` its index in ``_INTENTS``; the
    flags (``OPT_*``, ``GAME_CRAWFORD``, ``OPEN_*``, ``END_*``) are bg.record's own names;
    ``PLAY_ILLEGAL_ACCEPTED`` is ``bg.record.PLAY_CASUAL_ACCEPTED_ILLEGAL``."""
    if name.startswith("K_"):
        return getattr(R, name[2:])
    if name.startswith("I_") and name[2:] in _INTENTS:
        return _INTENTS.index(name[2:])
    if name == "PLAY_ILLEGAL_ACCEPTED":
        return R.PLAY_CASUAL_ACCEPTED_ILLEGAL
    if name.startswith(("OPT_", "END_", "OPEN_")) or name == "GAME_CRAWFORD":
        return getattr(R, name)
    raise AttributeError(name)


# Buttons
ROLL = const(0)
CUBE = const(1)
PRESS = const(0)
LONG = const(1)

# Intents: what a side asks of the match (``Controller.intent(side, what, arg, now)``). A
# player's press is one (``Controller.button``'s table), so is each decision of the computer
# (``app.opponent``) and of a host deciding for it (DECIDE): each transition is made once, in
# ``Controller.intent``, whoever asks. ``I_<name>`` is the name's index here, read through
# ``__getattr__`` (no dict entry each: docs/memory.md); the controller compares them as its own
# constants, in this order.
_INTENTS = (
    "NEXT",  # idle: a new match (its dice seed); game over: the next game; match over: idle
    "ROLL",  # the opening throw, the turn's throw, the house variant's second throw
    "KEEP",  # house variant: the starter keeps the opening throw
    "CONFIRM",  # record the play the sensors show (the recogniser decides which)
    "PLAY",  # arg = steps: record this play, when the sensors show it
    "CANDIDATE",  # several legal plays read alike: show the next one
    "COACH",  # show (or hide) the coach's best play
    "DOUBLE",
    "TAKE",
    "DROP",
    "BEAVER",
    "RESIGN",  # arg = 1..3 (single, gammon, backgammon): offer, or change the offer
    "WITHDRAW",  # take back an offer to resign the opponent has not answered
    "ACCEPT",  # accept the resignation, or (casual) the illegal play
    "REJECT",  # reject the resignation, or (casual) refuse the illegal play
    "END",  # money play, between games: end the session (the match)
)

# Phases
IDLE = const(0)  # no match: set up the start position, press ROLL to begin
OPENING = const(1)  # press ROLL for the opening throw (house variant: each side in turn)
CHOICE = const(2)  # house variant: the starter keeps (ROLL) or throws again (CUBE)
AWAIT_ROLL = const(3)  # ``side`` may double (CUBE) or roll (ROLL)
MOVING = const(4)  # ``side`` moves checkers; ROLL confirms ("picks up the dice")
DOUBLED = const(5)  # ``side`` offered the cube: opponent takes (ROLL), drops (CUBE), beavers (LONG CUBE)
RESIGNING = const(6)  # ``side`` offers to resign: opponent accepts (ROLL) / rejects (CUBE)
ILLEGAL = const(7)  # casual: ``side`` confirmed an illegal play: opponent accepts (ROLL) / refuses (CUBE)
GAME_OVER = const(8)  # result shown; ROLL starts the next game
MATCH_OVER = const(9)  # result shown; ROLL returns to IDLE

PHASE_NAMES = (
    "idle",
    "opening",
    "choice",
    "await_roll",
    "moving",
    "doubled",
    "resigning",
    "illegal",
    "game_over",
    "match_over",
)

_MAX_CUBE = const(1 << 30)


class Settings:
    """Match settings. ``length`` 0 = money play. ``auto_doubles`` is the automatic-double
    limit (money play; 0 = off). ``clock_s``/``delay_s``: reserve per player and delay per
    move, seconds (0 = no clock). ``casual``: the opponent may accept an illegal play (the
    casual rule). ``house``: the house opening (highest total starts, one re-roll).
    ``computer``: the side the board's computer plays (-1: none; ``app.opponent``), at
    ``strength`` (its name in the records: MATCH_START's flag ``OPT_COMPUTER0/1`` and the
    side's name). ``learn``: learning mode (the coach judges each play; a device setting,
    not journaled)."""

    def __init__(
        self,
        length=0,
        crawford=True,
        jacoby=False,
        beaver=False,
        auto_doubles=0,
        casual=False,
        clock_s=0,
        delay_s=0,
        house=False,
        names=("white", "black"),
        computer=-1,
        strength="pubeval",
        learn=False,
    ):
        if not 0 <= length <= 255:
            raise ValueError("match length must be 0 (money) .. 255")
        if not 0 <= clock_s <= 65535 or not 0 <= delay_s <= 255:
            raise ValueError("clock reserve 0..65535 s, delay 0..255 s")
        if not 0 <= auto_doubles <= 6:
            raise ValueError("automatic doubles limit must be 0..6")
        self.length = length
        self.crawford = crawford
        self.jacoby = jacoby
        self.beaver = beaver
        self.auto_doubles = auto_doubles
        self.casual = casual
        self.clock_s = clock_s
        self.delay_s = delay_s
        self.house = house
        if computer not in (-1, 0, 1):
            raise ValueError("computer: side 0 or 1, or -1 (none)")
        self.computer = computer
        self.strength = strength
        self.learn = learn
        if computer >= 0:  # the records name the computer's side by its strength
            names = (strength, names[1]) if computer == 0 else (names[0], strength)
        self.names = (names[0], names[1])

    def flags(self):
        f = 0
        if self.crawford:
            f |= R.OPT_CRAWFORD
        if self.jacoby:
            f |= R.OPT_JACOBY
        if self.beaver:
            f |= R.OPT_BEAVER
        if self.casual:
            f |= R.OPT_CASUAL
        if self.house:
            f |= R.OPT_HOUSE_OPENING
        if self.clock_s:
            f |= R.OPT_CLOCK
        if self.computer >= 0:
            f |= OPT_COMPUTER[self.computer]
        return f

    @classmethod
    def from_record(cls, f):
        """Settings from MATCH_START fields."""
        fl = f[3]
        comp = 0 if fl & OPT_COMPUTER[0] else (1 if fl & OPT_COMPUTER[1] else -1)
        return cls(
            f[2],
            bool(fl & R.OPT_CRAWFORD),
            bool(fl & R.OPT_JACOBY),
            bool(fl & R.OPT_BEAVER),
            f[4],
            bool(fl & R.OPT_CASUAL),
            f[5],
            f[6],
            bool(fl & R.OPT_HOUSE_OPENING),
            (f[7], f[8]),
            comp,
            f[7 + comp] if comp >= 0 else "pubeval",
        )


def ticks_since(now, t):
    """``now - t`` in milliseconds of the HAL's ``ticks_ms`` (``time.ticks_diff``): on the board
    the ticks wrap at 2^30 (12.4 days), and every time the controller compares is such a tick."""
    return ((now - t + 0x20000000) & 0x3FFFFFFF) - 0x20000000


class Clock:
    """The match clock: a reserve per player plus a delay per move (the first ``delay_ms``
    each time a player's clock starts are free). Only the player the board is waiting on is
    ever charged (``run(side)``); ``run(-1)`` stops both."""

    def __init__(self, reserve_ms, delay_ms):
        self.enabled = reserve_ms > 0
        self.left = [reserve_ms, reserve_ms]
        self.used = [0, 0]
        self.delay_ms = delay_ms
        self.side = -1
        self._since = 0
        self._delay_left = 0

    def run(self, side, now):
        self.charge(now)
        if side != self.side:
            self.side = side
            self._delay_left = self.delay_ms
        self._since = now

    def remaining(self, now):
        """The reserve (ms) the running side would have at ``now`` once its delay is used up,
        without charging it; -1 while the delay runs or when no clock runs. Ints only: the
        LED view calls it every frame."""
        s = self.side
        if not self.enabled or s < 0:
            return -1
        dt = ticks_since(now, self._since)
        if dt < self._delay_left:
            return -1
        dt -= self._delay_left
        have = self.left[s]
        return have - dt if have > dt else 0

    def charge(self, now):
        """Charge the running side up to ``now``; returns the side that ran out, or -1."""
        s = self.side
        dt = ticks_since(now, self._since)
        self._since = now
        if not self.enabled or s < 0 or dt <= 0:
            return -1
        free = dt if dt < self._delay_left else self._delay_left
        self._delay_left -= free
        dt -= free
        if dt:
            self.used[s] += dt
            self.left[s] = self.left[s] - dt if self.left[s] > dt else 0
        return s if self.left[s] == 0 else -1
