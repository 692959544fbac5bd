"""The opening roll: who starts with which numbers.

Its rules, apart from ``bg.dice`` (the derivation the host verifies). Every throw still comes
from one :class:`bg.dice.fairness.Fairness` stream, in counter order, so the opening is verified
exactly like the other throws. When a throw may happen is the controller's (``app.controller``:
its ``_throw`` is the only caller of ``Fairness.roll``, reached only when the rules let the
presser roll).
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
