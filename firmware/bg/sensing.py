"""Reed-sensor scanning: debounce, per-row checker counts, fault detection.

The scanner task hands every raw chain read (the bytes ``hal.Sensors.read_into`` filled, wire
levels, see ``hardware/README.md``) to ``Sensing.feed``. Nothing here allocates per scan: all
state lives in bytearrays made at construction.

- **Frame check.** Inputs with a known level (canaries, unfitted inputs) must read that
  level; a frame where they do not is a corrupt read (noise on the chain, a loose cable) and
  is dropped whole (``bad_frames`` counts them, ``bad_run`` counts the current streak), so
  it can never look like a move; the last good state is kept.
- **Debounce.** Per bit: a change counts after ``debounce`` consecutive scans that all show
  the new level (contact bounce and single-scan noise never reach the counts).
- **Counts.** When the debounced state changes, every row (24 board points, bar per side,
  tray per side) is counted: ``count(row)``; ``full(row)`` is true when the count is "N or
  more" (a stack beyond the slots). ``irregular(row)`` flags a closed slot above an open slot,
  which checkers pushed against the rim cannot produce: a misplaced checker or a faulty switch.
  ``seq`` increments and ``changed`` is set at each debounced change.
- **Faults.** ``SelfTest`` (boot) finds broken chains, stuck and dead switches; known-faulty
  switches are then ignored: their slot is inferred from the slot above it (stacking rule:
  closed if the slot above is closed). Where that leaves a doubt ``maybe_one_more(row)`` is
  true (the real count is ``count`` or ``count + 1``), and a faulty top slot lowers the row's
  ``cap`` (the count that means "cap or more"). The recogniser must treat both as
  ambiguity, never guess.

Board numbering: rows 0..23 are board points 1..24 = side 0's point numbers (side 1's point
``q`` is board point ``25 - q``); rows 24/25 the bars of side 0/1; rows 26/27 their trays.

Example::

    >>> from bg import hwdesc, sensing
    >>> b = hwdesc.load()
    >>> s = sensing.Sensing(b)
    >>> counts = bytearray(28); counts[0] = 2            # two checkers on point 1
    >>> raw = b.fill_chain(counts)
    >>> for _ in range(b.debounce_scans): s.feed(raw)
    >>> s.count(0), s.seq
    (2, 1)
"""

from array import array

import micropython
from micropython import const

try:
    from micropython import ptr8  # pyright: ignore[reportAttributeAccessIssue] - CPython: the shim's
except ImportError:
    pass  # MicroPython: viper compiles ptr8(...) as a cast

from bg.hwdesc import NONE, NROWS, ROW_BAR0, ROW_TRAY0, row_name

# fault codes (Sensing.fault_of(bit)): two bits each
OK = const(0)
STUCK = const(1)  # reads closed when no checker can be there
DEAD = const(2)  # never closes although a checker is there
WIRING = const(3)  # an unfitted or tied input reads the wrong level
_FAULT_NAMES = const(("ok", "stuck closed", "dead", "wiring"))


class Sensing:
    """Debounced view of the sensor chain. ``feed(raw)`` once per scan; read ``count(row)``,
    ``full(row)``, ``irregular(row)``, ``seq``; ``take_changed()`` consumes the change flag."""

    def __init__(self, board, debounce=None):
        self.board = board
        n = board.nbytes
        self.nbytes = n
        self.debounce = board.debounce_scans if debounce is None else debounce
        if self.debounce < 1:
            raise ValueError("debounce must be >= 1 scan")
        self.invert = 0xFF if board.active_low else 0
        self.raw = bytearray(n)  # the scanner reads into this (preallocated)
        self.stable = bytearray(n)  # debounced, 1 = closed
        # per switch, the consecutive scans showing its new level (0 to debounce - 1), bit
        # sliced: byte r of plane k (at k * n) holds bit k of register r's eight counts. Three
        # scans need two planes, 60 bytes for 240 switches where a byte a switch took 240;
        # board.json's most, 50, six.
        planes = 0
        while (1 << planes) < self.debounce:
            planes += 1
        self._cnt = bytearray(planes * n)
        self.check_mask = bytearray(board.fixed_mask)
        # two bits a switch, four to a byte: a fault code fits them (the heap margin rule)
        self._fault = bytearray(2 * n)
        self.counts = bytearray(NROWS)
        self.irreg = bytearray(NROWS)
        self.amb = bytearray(NROWS)  # 1: a faulty switch leaves "count or count + 1"
        self.irreg_age = array("H", [0] * NROWS)  # scans a row has been irregular
        self.n_irreg = 0
        self.cap = bytearray(board.row_slots)
        self.seq = 0
        self.changed = False
        self.scans = 0
        self.bad_frames = 0
        self.bad_run = 0  # consecutive corrupt frames: a cable pulled mid-game, show an error
        self.primed = False
        self._recount()
        self.seq = 0  # the first good frame is change 1
        self.changed = False

    # -- the hot path ------------------------------------------------------------------
    def feed(self, raw=None):
        """Take one raw chain read (default: ``self.raw``). Returns True when the debounced
        state changed with this scan. Allocates nothing."""
        if raw is None:
            raw = self.raw
        if type(raw) is not bytearray and type(raw) is not bytes:  # (no tuple: no allocation)
            raw = bytes(raw)  # a list or memoryview (tests, tools): the viper scan reads a buffer
        if len(raw) < self.nbytes:  # the viper scan reads nbytes: never past a short buffer
            raise ValueError("chain frame must be %d bytes, got %d" % (self.nbytes, len(raw)))
        self.scans += 1
        if not self.primed:
            b = self.board
            fm = self.check_mask
            fv = b.fixed_value
            for r in range(self.nbytes):
                if raw[r] & fm[r] != fv[r] & fm[r]:
                    self.bad_frames += 1
                    self.bad_run += 1
                    return False
            self.bad_run = 0
            inv = self.invert
            st = self.stable
            fixed = b.fixed_mask
            # first good frame: take it as is (nothing to debounce against)
            for r in range(self.nbytes):
                st[r] = (raw[r] ^ inv) & ~fixed[r] & 0xFF
            self.primed = True
            self._recount()
            return True
        moved = self._scan(raw)
        if moved < 0:
            self.bad_frames += 1
            self.bad_run += 1
            return False
        self.bad_run = 0
        moved = moved > 0
        if moved:
            self._recount()
        if self.n_irreg:
            ir = self.irreg
            age = self.irreg_age
            for row in range(NROWS):
                if ir[row] and age[row] < 65535:
                    age[row] += 1
        return moved

    @micropython.viper
    def _scan(self, raw) -> int:
        # the scan's debounce, eight switches a byte operation (viper: machine integers): -1
        # for a corrupt frame (a fixed bit at the wrong level), 1 when a bit's new level held
        # for ``debounce`` scans (``stable`` changed), else 0
        rw = ptr8(raw)
        fm = ptr8(self.check_mask)
        fixed = ptr8(self.board.fixed_mask)
        fv = ptr8(self.board.fixed_value)
        st = ptr8(self.stable)
        cnt = ptr8(self._cnt)
        n = int(self.nbytes)
        inv = int(self.invert)
        last = int(self.debounce) - 1  # a count this high: one scan more and the level holds
        top = int(len(self._cnt))  # planes * n
        for r in range(n):
            if (int(rw[r]) & int(fm[r])) != (int(fv[r]) & int(fm[r])):
                return -1
        moved = 0
        for r in range(n):
            v = (int(rw[r]) ^ inv) & ~int(fixed[r]) & 0xFF
            d = v ^ int(st[r])  # switches away from their debounced level
            if d == 0:
                p = 0  # switches counting
                j = r
                while j < top:
                    p |= int(cnt[j])
                    j += n
                if p == 0:
                    continue
            eq = d  # away, and counted ``last`` scans so far: this scan is the ``debounce``th
            j = r
            k = 0
            while j < top:
                if (last >> k) & 1:
                    eq &= int(cnt[j])
                else:
                    eq &= ~int(cnt[j])
                j += n
                k += 1
            if eq:
                st[r] = int(st[r]) ^ eq
                moved = 1
            inc = d & ~eq  # these count one more; every other count goes back to 0
            carry = inc
            j = r
            while j < top:
                c = int(cnt[j]) & inc
                cnt[j] = c ^ carry
                carry &= c
                j += n
        return moved

    def _closed(self, bit):
        return (self.stable[bit >> 3] >> (bit & 7)) & 1

    def _recount(self):
        b = self.board
        rs = b.row_slots
        start = b.row_start
        bits = b.row_bits
        st = self.stable
        fault = self._fault
        nirr = 0
        for row in range(NROWS):
            ns = rs[row]
            k = 0
            above = 0
            gap = 0
            amb = 0
            cand = 0  # the slot just above is faulty, inferred open: one more checker possible
            cap = ns
            capped = False
            s = ns - 1
            while s >= 0:  # top slot down, so a faulty slot can copy the slot above it
                bit = bits[start[row] + s]
                if (fault[bit >> 2] >> ((bit & 3) << 1)) & 3:
                    v = above
                    if not capped:
                        cap = s  # a faulty top: the row reads "s or more" at most
                    nc = 1 if capped and not v else 0
                else:
                    v = (st[bit >> 3] >> (bit & 7)) & 1
                    capped = True
                    nc = 0
                if v:
                    k += 1
                    if cand:
                        amb = 1
                elif k:
                    gap = 1  # open slot below a closed one
                cand = nc
                above = v
                s -= 1
            if cand:
                amb = 1  # faulty slot 0, inferred open: 0 or 1 checker
            self.amb[row] = amb
            self.counts[row] = k
            if not gap:
                self.irreg_age[row] = 0
            self.irreg[row] = gap
            nirr += gap
            self.cap[row] = cap
        self.n_irreg = nirr
        self.seq += 1
        self.changed = True

    # -- reading the state ---------------------------------------------------------------
    def count(self, row):
        """Closed slots of ``row`` (rows 0..23 = board points 1..24, 24/25 bars, 26/27 trays)."""
        return self.counts[row]

    def point(self, p):
        """Count on board point ``p`` (1..24)."""
        return self.counts[p - 1]

    def bar(self, side):
        return self.counts[ROW_BAR0 + side]

    def tray(self, side):
        return self.counts[ROW_TRAY0 + side]

    def borne_off(self, side, on_board=None):
        """Checkers ``side`` has borne off: the tray count when trays are sensed (exact up
        to ``tray_slots``), else derived as ``checkers_per_side - on_board`` where
        ``on_board`` is that side's checkers on points and bar (the recogniser knows it,
        since the sensors cannot tell colours apart)."""
        b = self.board
        if b.tray_slots >= b.checkers_per_side:
            return self.counts[ROW_TRAY0 + side]
        if on_board is None:
            raise ValueError("trays not fully sensed: pass the side's checkers on the board")
        if not 0 <= on_board <= b.checkers_per_side:
            raise ValueError("on_board must be 0..%d" % b.checkers_per_side)
        return b.checkers_per_side - on_board

    def full(self, row):
        """True when the row reads "cap or more" (all trustworthy slots closed)."""
        c = self.cap[row]
        return c > 0 and self.counts[row] >= c

    def maybe_one_more(self, row):
        """True when a known-faulty switch leaves the count uncertain by one (the real
        count is ``count(row)`` or ``count(row) + 1``)."""
        return self.amb[row] == 1

    def irregular(self, row):
        """True when a closed slot sits above an open one (misplaced checker or fault)."""
        return self.irreg[row] == 1

    def irregular_mask(self):
        """Bit ``row`` set for every irregular row (rows 0..27); small int, no allocation."""
        m = 0
        for row in range(NROWS):
            if self.irreg[row]:
                m |= 1 << row
        return m

    def persistent_irregular(self, min_scans):
        """Rows irregular for at least ``min_scans`` scans (bitmask): after a few seconds a
        reading checkers cannot produce is either a checker left mid-point or a switch that
        became faulty mid-game; the controller asks the player (LEDs) and, if the point is
        really as the game says, calls ``SelfTest().expect_row(...)``."""
        m = 0
        for row in range(NROWS):
            if self.irreg[row] and self.irreg_age[row] >= min_scans:
                m |= 1 << row
        return m

    def take_changed(self):
        """Return and clear the change flag."""
        c = self.changed
        self.changed = False
        return c

    def settled(self):
        """True when no bit is waiting for debounce confirmation."""
        for c in self._cnt:
            if c:
                return False
        return True

    # -- faults --------------------------------------------------------------------------
    def fault_of(self, bit):
        """The fault code of chain bit ``bit`` (``OK`` when none is known)."""
        if not 0 <= bit < 8 * self.nbytes:
            raise IndexError("no chain bit %r" % (bit,))
        return (self._fault[bit >> 2] >> ((bit & 3) << 1)) & 3

    def mark_faulty(self, bit, code):
        """Record a faulty switch (``STUCK``/``DEAD``/``WIRING``); it is ignored from now on."""
        if code not in (STUCK, DEAD, WIRING):
            raise ValueError("unknown fault code %r" % (code,))
        if not 0 <= bit < 8 * self.nbytes:
            raise IndexError("no chain bit %r" % (bit,))
        sh = (bit & 3) << 1
        f = self._fault
        f[bit >> 2] = (f[bit >> 2] & ~(3 << sh) & 0xFF) | (code << sh)
        if self.board.bit_row[bit] == NONE:  # a fixed input (canary or unfitted), no slot
            self.check_mask[bit >> 3] &= ~(1 << (bit & 7)) & 0xFF
        self._recount()

    def faults(self):
        """List of ``(bit, code)`` of known faults (allocates; for reports, not per scan)."""
        out = []
        for bit in range(8 * self.nbytes):
            code = self.fault_of(bit)
            if code:
                out.append((bit, code))
        return out

    def fault_rows(self):
        """Bit ``row`` set for every row with a known-faulty switch."""
        m = 0
        b = self.board
        for bit in range(8 * self.nbytes):
            row = b.bit_row[bit]
            if row != NONE and self.fault_of(bit):
                m |= 1 << row
        return m


def describe(board, bit, code):
    """``"point 7 slot 2: stuck closed"`` for a fault report."""
    row = board.bit_row[bit]
    if row != NONE:
        k = board.row_start[row]
        s = 0
        while board.row_bits[k + s] != bit:  # the bit's slot (the board keeps no bit_slot table)
            s += 1
        where = row_name(row) + " slot %d" % s
    else:
        where = "register %d input %d" % (bit >> 3, bit & 7)
    return where + ": " + _FAULT_NAMES[code]


class SelfTest:
    """Boot self-test. ``run(sensing, raw)`` checks one raw frame (call it with a few frames
    taken at boot) and records what it finds in ``sensing`` (``mark_faulty``):

    1. **Chain**: canaries and unfitted inputs must read their fixed level. If the closed
       canary reads open, or every input reads the same level, the chain is broken
       (``chain_ok`` False; nothing else can be trusted).
    2. **Impossible rows**: in a row, checkers fill slots from the rim, so the closed slots
       must be a prefix. A row that is not a prefix is explained with the fewest faulty
       switches: either the closed slots above the first open slot are stuck, or the open
       slots below the highest closed slot are dead. A tie is left ``ambiguous`` (the row is
       shown as an error; the player clears it and the test runs again).
    3. ``expect(sensing, counts)`` after the player confirmed a known arrangement (start
       position, resumed position, or an empty board): a fitted slot that should be closed
       but reads open is dead, one that should be open but reads closed is stuck.

    ``found`` lists ``(bit, code)`` found by this test; ``ambiguous`` is a row bitmask.
    """

    def __init__(self):
        self.chain_ok = True
        self.found = []
        self.ambiguous = 0

    def _add(self, sensing, bit, code):
        if sensing.fault_of(bit) != code:
            sensing.mark_faulty(bit, code)
            self.found.append((bit, code))

    def run(self, sensing, raw):
        b = sensing.board
        inv = sensing.invert
        n = b.nbytes
        allsame = True
        for r in range(n):
            if raw[r] != raw[0]:
                allsame = False
        closed_canary_ok = True
        fv = b.fixed_value
        for bit in range(b.nbits):
            if b.bit_row[bit] != NONE:
                continue  # a slot
            # a fixed input: a canary tied closed (its wire level is the active one), or one
            # tied open or not fitted (both read open)
            v = ((raw[bit >> 3] ^ inv) >> (bit & 7)) & 1  # 1 = reads closed
            want = ((fv[bit >> 3] ^ inv) >> (bit & 7)) & 1
            if v != want:
                if want:
                    closed_canary_ok = False
                else:
                    self._add(sensing, bit, WIRING)
        self.chain_ok = closed_canary_ok and not allsame
        if not self.chain_ok:
            return self
        rs = b.row_slots
        start = b.row_start
        bits = b.row_bits
        self.ambiguous = 0
        for row in range(NROWS):
            ns = rs[row]
            top = -1  # highest closed slot
            first_open = ns
            for s in range(ns):
                bit = bits[start[row] + s]
                v = ((raw[bit >> 3] ^ inv) >> (bit & 7)) & 1
                if v:
                    top = s
                elif first_open == ns:
                    first_open = s
            if top < first_open:
                continue  # a prefix: consistent
            stuck = 0
            dead = 0
            for s in range(ns):
                bit = bits[start[row] + s]
                v = ((raw[bit >> 3] ^ inv) >> (bit & 7)) & 1
                if s > first_open and v:
                    stuck += 1
                if s < top and not v:
                    dead += 1
            if stuck == dead:
                self.ambiguous |= 1 << row
                continue
            for s in range(ns):
                bit = bits[start[row] + s]
                v = ((raw[bit >> 3] ^ inv) >> (bit & 7)) & 1
                if stuck < dead and s > first_open and v:
                    self._add(sensing, bit, STUCK)
                elif dead < stuck and s < top and not v:
                    self._add(sensing, bit, DEAD)
        return self

    def expect(self, sensing, counts, raw=None):
        """Compare a confirmed arrangement (``counts[row]``) with the switches' levels."""
        for row in range(NROWS):
            self.expect_row(sensing, row, counts[row], raw)
        return self

    def expect_row(self, sensing, row, k, raw=None):
        """One row is confirmed to hold ``k`` checkers: mismatching switches are faulty."""
        b = sensing.board
        inv = sensing.invert
        rs = b.row_slots
        start = b.row_start
        bits = b.row_bits
        for s in range(rs[row]):
            bit = bits[start[row] + s]
            if raw is None:
                v = sensing._closed(bit)
            else:
                v = ((raw[bit >> 3] ^ inv) >> (bit & 7)) & 1
            if s < k and not v:
                self._add(sensing, bit, DEAD)
            elif s >= k and v:
                self._add(sensing, bit, STUCK)
        return self

    def report(self, board):
        """Human lines for a log or the host tool."""
        lines = []
        if not self.chain_ok:
            lines.append("sensor chain broken (canary or data line): check the ribbon cable")
        for bit, code in self.found:
            lines.append(describe(board, bit, code))
        for row in range(NROWS):
            if self.ambiguous >> row & 1:
                lines.append(row_name(row) + ": impossible reading, clear the point and retest")
        return lines
