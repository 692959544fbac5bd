"""A scripted table for the recognition tests (portable: CPython and MicroPython).

``Table`` is the physical board: a position with colours (what the hands do), read slot by slot
(stacking rule: ``k`` checkers close slots ``0..min(k, N)-1``; faults and noise act on single
slots), debounced, and every debounced change handed to the ``Recognizer`` as the firmware's
scanner task does.

Under CPython the slots go through the real chain model (``hwdesc.Board.fill_chain`` /
``set_slot``) and the real debouncer (``bg.sensing.Sensing``). The MicroPython unix port runs
the firmware as ``.mpy`` loaded into its 64k heap (on the ESP32 it is frozen in flash), and
the engine, the recogniser, ``hwdesc`` and ``sensing`` together need ~44k of bytecode, so there
``RowSensing`` below (the same debounce rule and count semantics, per row) stands in for the
last two; ``tests/portable/test_sensing_*`` cover the real ones on both interpreters.
"""

import gc
import sys

from bg import board as bgboard
from bg import engine as movegen
from bg import recognize
from bg.recognize import Recognizer, observe

__all__ = ("recognize", "bgboard", "movegen", "Table", "Lcg", "position", "MICROPYTHON", "SkipTest")

try:
    from unittest import SkipTest  # noqa: F401 - pytest treats it as a skip
except ImportError:

    class SkipTest(Exception):
        """Skips a test under MicroPython (the runner matches the class name)."""


MICROPYTHON = sys.implementation.name == "micropython"
DEBOUNCE = 3  # hardware/board.json firmware.debounce_scans (CPython reads the file)
_UNCAPPED = bytearray(b"\xff" * 28)


class Lcg:
    """Deterministic pseudo-random numbers, identical on both interpreters."""

    def __init__(self, seed):
        self.x = seed & 0x7FFFFFFF

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def position(side0, side1, bar0=0, bar1=0, off0=None, off1=None):
    """A position from ``{point: count}`` dicts in each side's own numbering; borne-off
    counts default to whatever makes 15."""
    pos = bgboard.new_position()
    for p in side0:
        pos[p - 1] = side0[p]
    for p in side1:
        pos[25 + p - 1] = side1[p]
    pos[24] = bar0
    pos[49] = bar1
    pos[50] = 15 - sum(pos[0:25]) if off0 is None else off0
    pos[51] = 15 - sum(pos[25:50]) if off1 is None else off1
    return pos


class Table:
    """The physical board during one turn of ``side`` with dice ``d1``-``d2``."""

    def __init__(self, start, side, d1, d2, slots=6, strict=True, bar_slots=6, tray_slots=15):
        gc.collect()  # the last table's buffers: free them before this one's (64k heap)
        self.caps = bytearray(28)
        for r in range(28):
            self.caps[r] = slots if r < 24 else (bar_slots if r < 26 else tray_slots)
        if MICROPYTHON:
            from recognize_rows import RowSensing

            self.b = None
            self.s = RowSensing(self.caps, DEBOUNCE)
            self.debounce = DEBOUNCE
        else:
            from bg import hwdesc, sensing

            self.b = hwdesc.load()
            self.s = sensing.Sensing(self.b)
            self.debounce = self.b.debounce_scans
            self.raw = bytearray(self.b.nbytes)
        self.own_caps = self.b is None or slots != self.b.slots_per_point
        self.r = Recognizer(slots, bar_slots, tray_slots, strict=strict)
        self.pos = bytearray(start)
        self.side = side
        self.hand = 0
        self.counts = bytearray(28)
        self.masks = [0] * 28
        self.fault = None  # (row, slot, closed): a switch stuck at a level
        self.noise = None  # Lcg: flip one random bit in a quarter of the scans
        self.noisy_scans = 0
        self.states = []  # every state the recogniser reported, in order
        self.scan(self.debounce)
        self.r.begin(start, side, d1, d2)
        self.states.append(self.r.state)

    # -- the sensors -----------------------------------------------------------------
    def _frame(self):
        c = observe(self.pos, self.counts, _UNCAPPED)
        masks = self.masks
        for r in range(28):
            k = c[r] if c[r] < self.caps[r] else self.caps[r]
            masks[r] = (1 << k) - 1
        if self.fault is not None:
            row, slot, closed = self.fault
            if closed:
                masks[row] |= 1 << slot
            else:
                masks[row] &= ~(1 << slot)
        noisy = self.noise is not None and self.noise.below(4) == 0
        if noisy:
            self.noisy_scans += 1
        if self.b is None:
            if noisy:
                r = self.noise.below(28)
                masks[r] ^= 1 << self.noise.below(self.caps[r] or 1)
            return masks
        raw = self.b.idle_chain(self.raw)
        for r in range(28):
            m = masks[r]
            s = 0
            while m:
                if m & 1:
                    self.b.set_slot(raw, r, s, True)
                m >>= 1
                s += 1
        if noisy:  # any bit of the chain: slots, canaries, unfitted inputs
            i = self.noise.below(len(raw))
            raw[i] ^= 1 << self.noise.below(8)
        return raw

    def scan(self, n=1):
        """``n`` scans; each debounced change is handed to the recogniser."""
        for _ in range(n):
            if self.s.feed(self._frame()) and self.r.active:
                caps = self.caps if self.own_caps else self.s.cap
                st = self.r.update(self.s.counts, caps, self.s.irregular_mask())
                self.states.append(st)
        return self.r.state

    def settle(self):
        """Hands off: scan until the debounced state is stable."""
        return self.scan(3 * self.debounce + 2)

    # -- the hands (own numbering of ``side``; 25 = bar, 0 = tray) ------------------------
    def _idx(self, side, p):
        if p == 0:
            return 50 + side
        return (25 if side else 0) + p - 1

    def lift(self, side, p, scans=None):
        i = self._idx(side, p)
        if self.pos[i] == 0:
            raise ValueError("no checker of side %d on %d" % (side, p))
        self.pos[i] -= 1
        self.hand += 1
        self.scan(self.debounce + 1 if scans is None else scans)

    def put(self, side, p, scans=None):
        self.pos[self._idx(side, p)] += 1
        self.hand -= 1
        self.scan(self.debounce + 1 if scans is None else scans)

    def move(self, f, t, dwell=None):
        """The mover's checker from ``f`` to ``t``, put down on every point in between
        for ``dwell`` scans (a slide; 0 = lifted straight over). Hits are the player's
        job (``hit``)."""
        side = self.side
        self.lift(side, f)
        if dwell:
            q = f - 1
            while q > t and q >= 1:
                self.put(side, q, dwell)
                self.lift(side, q, dwell)
                q -= 1
        self.put(side, t)

    def hit(self, t):
        """The blot on the mover's point ``t`` goes to its bar (after the mover's checker
        was put there)."""
        o = 1 - self.side
        self.lift(o, 25 - t)
        self.put(o, 25)

    def end_of(self, steps):
        end = bytearray(self.r.start)
        movegen.apply(end, self.side, steps)
        return end
