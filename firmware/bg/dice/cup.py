"""The opening roll and the cup: when a throw may happen, and who starts with which numbers.

The rules of when to throw, apart from ``bg.dice`` (the derivation the host verifies). Every
throw still comes from one :class:`bg.dice.fairness.Fairness` stream, in counter order, so the
opening is verified exactly like the other throws.
"""

from micropython import const

SIDE0 = const(0)
SIDE1 = const(1)
EITHER = const(2)  # the standard opening throw, which either player may start

# Opening roll ---------------------------------------------------------------------------

# Opening states: what the controller does next.
NEED_THROW = const(0)  # open the cup for ``next_side`` and feed the throw
CHOICE = const(1)  # house variant: the starter keeps (keep()) or re-rolls (reroll()) once
DONE = const(2)  # ``starter`` plays ``dice``


class Opening:
    """Who starts and with which numbers. Pure rules: throws come in through ``feed(d1, d2)``
    (each one throw of the stream, in counter order), so the opening is verifiable like any
    other throw.

    Standard rules: one throw gives side 0's die (``d1``) and side 1's die (``d2``); equal
    dice are thrown again; the higher die starts and plays both numbers.

    House variant: side 0 throws two dice, then side 1; the higher total starts;
    equal totals are all thrown again; the starter may choose ONE re-roll and must then
    play the new throw.

    >>> o = Opening()
    >>> o.feed(3, 5); (o.state == DONE, o.starter, o.dice)
    (True, 1, (3, 5))
    """

    def __init__(self, house=False):
        self.house = house
        self.state = NEED_THROW
        self.next_side = SIDE0 if house else EITHER
        self.starter = -1
        self.dice = None
        self.throws = 0
        self._first = None
        self._rerolling = False

    def feed(self, d1, d2):
        if self.state != NEED_THROW:
            raise ValueError("no opening throw expected now")
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError("die faces are 1..6")
        self.throws += 1
        if not self.house:
            if d1 != d2:
                self.starter = SIDE0 if d1 > d2 else SIDE1
                self.dice = (d1, d2)
                self.state = DONE
                self.next_side = -1
            return
        if self._rerolling:
            self.dice = (d1, d2)
            self.state = DONE
            self.next_side = -1
            return
        if self._first is None:
            self._first = (d1, d2)
            self.next_side = SIDE1
            return
        t0 = self._first[0] + self._first[1]
        t1 = d1 + d2
        if t0 == t1:
            self._first = None
            self.next_side = SIDE0
            return
        if t0 > t1:
            self.starter, self.dice = SIDE0, self._first
        else:
            self.starter, self.dice = SIDE1, (d1, d2)
        self.state = CHOICE
        self.next_side = -1

    def keep(self):
        """House variant: the starter plays the dice thrown."""
        if self.state != CHOICE:
            raise ValueError("no re-roll choice now")
        self.state = DONE

    def reroll(self):
        """House variant: the starter throws once more and must play that throw."""
        if self.state != CHOICE:
            raise ValueError("no re-roll choice now")
        self._rerolling = True
        self.state = NEED_THROW
        self.next_side = self.starter


# The cup ---------------------------------------------------------------------------------


class Cup:
    """The only way to a throw: the controller ``allow(side)``s exactly when the rules let
    ``side`` roll (its opponent has confirmed the previous turn, no double is pending);
    ``close()`` on a double offer, a take-back window, the end of a game. ``press(side)``
    returns the throw, or None when that press is not allowed -- a button press at the wrong
    time does nothing. Each allow() permits exactly one throw: nothing is re-thrown.

    >>> from bg.dice.fairness import Fairness
    >>> f = Fairness(bytes(8), bytes(32)); ps = f.fix()
    >>> cup = Cup(f); cup.press(0) is None
    True
    >>> cup.allow(0); cup.press(1) is None, len(cup.press(0)), cup.press(0) is None
    (True, 2, True)
    """

    def __init__(self, fairness):
        self.fairness = fairness
        self.side = -1

    def allow(self, side):
        if side not in (SIDE0, SIDE1, EITHER):
            raise ValueError("side must be 0, 1 or EITHER")
        if self.fairness.over:
            raise ValueError("the match is over")
        self.side = side

    def close(self):
        self.side = -1

    def may_roll(self, side):
        s = self.side
        return s >= 0 and (s == side or s == EITHER)

    def press(self, side):
        if not self.may_roll(side):
            return None
        self.side = -1
        return self.fairness.roll()
