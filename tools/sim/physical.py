"""The physical board of the simulator: where the checkers are, and the reed-switch chain
bits that arrangement produces -- exactly as ``hardware/board.json`` wires them.

Locations (the same order as the controller's colour-blind counts)::

    0..23  board points 1..24 (side 0's numbering)
    24, 25 bar rows of side 0 and side 1
    26, 27 bear-off trays of side 0 and side 1

A location holds a stack of colours (0 white, 1 black) in the order they were put down:
checkers close slots from the rim outwards, so ``k`` checkers close slots ``0..min(k, N)-1``
and a checker beyond the slot count closes nothing new (hardware/README.md, stacking rule).
Lifting always takes the last checker put down; a checker in the hand closes no slot.

CPython, stdlib only (the server and the demo use it; so do the tests).
"""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOARD_JSON = ROOT / "hardware" / "board.json"
NLOC = 28
BAR0, BAR1, TRAY0, TRAY1 = 24, 25, 26, 27


def load_board(path=BOARD_JSON):
    with open(path) as f:
        return json.load(f)


def loc_of(kind, index):
    """Location number of a board.json ``(kind, index)``; None for LEDs without one."""
    if kind == "point":
        return index - 1
    if kind == "bar":
        return BAR0 + index
    if kind == "tray":
        return TRAY0 + index
    return None


class Chain:
    """Maps per-location checker counts to the raw 74HC165 chain bytes."""

    def __init__(self, board=None):
        board = board or load_board()
        s = board["sensors"]
        self.active_low = s.get("active_low", True)
        self.nslots = {"point": s["slots_per_point"], "bar": s["bar_slots"], "tray": s["tray_slots"]}
        self.registers = s["registers"]
        self.nbytes = len(self.registers)

    def slots(self, loc):
        if loc < 24:
            return self.nslots["point"]
        if loc < 26:
            return self.nslots["bar"]
        return self.nslots["tray"]

    def bits(self, counts):
        """The chain bytes for ``counts`` (28 checker counts)."""
        if len(counts) != NLOC:
            raise ValueError("need %d location counts, got %d" % (NLOC, len(counts)))
        out = bytearray(self.nbytes)
        for r, reg in enumerate(self.registers):
            loc = loc_of(reg["kind"], reg["index"])
            n = self.nslots[reg["kind"]]
            base = reg.get("slot_base", 0)
            byte = 0
            for s in range(8):
                slot = base + s
                closed = slot < n and slot < counts[loc]
                tied = reg.get("tied", {}).get(str(s))
                if tied is not None:
                    closed = tied == "closed"
                level = (not closed) if self.active_low else closed
                if level:
                    byte |= 1 << s
            out[r] = byte
        return bytes(out)


START = {24: 2, 13: 5, 8: 3, 6: 5}  # each side's own numbering


class Physical:
    """Checkers as a hand places them. ``locs[i]`` is the stack on location ``i`` (colours,
    bottom first); ``hand`` the colours currently lifted."""

    def __init__(self):
        self.locs = [[] for _ in range(NLOC)]
        self.hand = []

    def counts(self):
        return [len(s) for s in self.locs]

    def set_start(self):
        """Put all 30 checkers on the start position (what players do before a game)."""
        self.locs = [[] for _ in range(NLOC)]
        self.hand = []
        for p, n in START.items():
            self.locs[p - 1].extend([0] * n)  # white on its own points
            self.locs[25 - p - 1].extend([1] * n)  # black: its point q is board point 25 - q

    def lift(self, loc):
        if not self.locs[loc]:
            raise ValueError("no checker on location %d" % loc)
        c = self.locs[loc].pop()
        self.hand.append(c)
        return c

    def drop(self, loc, colour=None):
        if not self.hand:
            raise ValueError("no checker in hand")
        if colour is None:
            c = self.hand.pop()
        else:
            self.hand.remove(colour)
            c = colour
        self.locs[loc].append(c)

    def move(self, a, b):
        """Lift the top checker of ``a`` and drop it on ``b``."""
        self.drop(b, self.lift(a))

    def to_json(self):
        return {"locs": self.locs, "hand": self.hand}

    def from_json(self, obj):
        locs = obj.get("locs")
        if not isinstance(locs, list) or len(locs) != NLOC:
            raise ValueError("physical state needs %d locations" % NLOC)
        clean = []
        total = [0, 0]
        for s in locs:
            if not isinstance(s, list) or any(c not in (0, 1) for c in s):
                raise ValueError("a location is a list of colours 0/1")
            for c in s:
                total[c] += 1
            clean.append(list(s))
        hand = obj.get("hand", [])
        if not isinstance(hand, list) or any(c not in (0, 1) for c in hand):
            raise ValueError("hand is a list of colours 0/1")
        for c in hand:
            total[c] += 1
        if total[0] > 15 or total[1] > 15:
            raise ValueError("at most 15 checkers per colour")
        self.locs = clean
        self.hand = list(hand)
