"""Move recognition that never guesses: which legal play do the reed sensors show?

Input: the position at the turn's start, the side on roll, the dice, and each stable
(debounced) sensor observation: ``counts[28]`` in ``bg.sensing`` row order (rows 0..23 =
board points 1..24, 24/25 = bar of side 0/1, 26/27 = tray of side 0/1), each row read as
"``cap`` or more" when it reaches its cap (the slot count). Reed switches cannot tell
colours; colour comes from the position: only the mover's checkers move, a hit blot goes to
its own bar row, and every candidate the engine generates carries its colours.

Method: one depth-first pass of the engine (``MoveGen.for_each_end``) visits every maximal
legal play without allocating. For each play, every subset of its steps (in play order, as
counts per row) is compared with the observation on the rows it touches; a bitmask of the rows
that differ from the start lets most plays be rejected with one ``&``. The result:

=============  ==========================================================================
``WAITING``    nothing visible moved (the start's reading)
``PARTIAL``    part of a legal play (e.g. one die played); ``pending`` = blots hit but not
               yet on the bar. In both, ``ncand > 0`` means a complete play reads the same
               (hidden in a stack, or a colour-blind hit): confirm asks instead of recording.
               ``used``: the dice the part already played (see below)
``LIFTED``     one checker is off the board (in the hand): ``hints`` = rows where putting
               it down gives a legal (partial or complete) state, take-backs included
               (``forward_hints()`` without them); ``lifted`` = its row
``COMPLETE``   exactly one distinct legal end position reads like this, and nothing
               unfinished does: the confirm press records it
``AMBIGUOUS``  several distinct legal end positions read like this (stacks beyond the slots,
               colour-blind hits): the player picks one (see below)
``ILLEGAL``    no legal state reads like this: ``missing``/``extra`` say which rows differ from
               the last legal state (``ref``), ``irregular`` rows are misplaced checkers
``NO_PLAY``    the roll has no legal play and nothing moved: confirm passes
=============  ==========================================================================

Dice used: ``used`` says which dice the last legal reading (``ref``) has played, for the
dice LEDs: with two different dice a mask (1: ``d1``, 2: ``d2``), with a doublet how many of
the four steps (0..4). Each step's die is the engine's own (``MoveGen.d`` at the step's depth:
a bear-off by a higher die counts that die). When several partial plays read alike (stacks,
colour-blind hits) only what all of them used counts; a complete play has used every die;
``LIFTED``/``ILLEGAL`` keep the last legal reading's. ``dice_lit()`` turns it into the dice
still to play.

Disambiguation: in ``AMBIGUOUS`` the LEDs show candidate ``selected`` (``show(k)``: the rows
of its steps that not every candidate shares); the mover's cube button calls
``next_candidate()``, the roll/confirm button ``confirm()`` records the shown one. A confirm
press in ``WAITING``/``PARTIAL`` with ``ncand > 0`` enters that selection instead of
recording anything. See ``docs/recognition.md``.

Example::

    >>> from bg import board, recognize
    >>> start = board.start_position()
    >>> r = recognize.Recognizer()
    >>> r.begin(start, 0, 6, 1)
    >>> end = board.start_position()
    >>> _ = board.apply_step(end, 0, 13, 7); _ = board.apply_step(end, 0, 8, 7)
    >>> obs = bytearray(28); _ = recognize.observe(end, obs, r.caps)
    >>> r.update(obs) == recognize.COMPLETE, r.confirm()
    (True, (13, 7, 8, 7))
"""

from array import array

import micropython
from micropython import const

try:
    from micropython import ptr8, ptr32  # pyright: ignore[reportAttributeAccessIssue] - CPython: the shim's
except ImportError:
    pass  # MicroPython: viper compiles ptr8(...) / ptr32(...) as casts

from bg.engine import MoveGenVisit  # the visit alone: the searches stay in flash
from bg.hwdesc import NROWS, ROW_BAR0, ROW_TRAY0  # the sensor rows: one layout, bg.hwdesc's

WAITING = const(0)
PARTIAL = const(1)
LIFTED = const(2)
COMPLETE = const(3)
AMBIGUOUS = const(4)
ILLEGAL = const(5)
NO_PLAY = const(6)
STATE_NAMES = ("waiting", "partial", "lifted", "complete", "ambiguous", "illegal", "no play")

_LOWK = b"\x00\x00\x01\x00\x02\x00\x00\x00\x03"  # lowest set bit (1, 2, 4, 8) -> step index
MAX_CANDIDATES = const(16)

# The recogniser's per-row tables read outside its innermost loop, 28 bytes each, at these
# offsets of one buffer (``_t``): one object instead of seven keeps 192 bytes of the board's
# heap (a bytearray's header and its rounding to 16-byte blocks, and seven attributes). The
# three that ``_subset`` reads for every row of every subset (``mov``, ``opp``, ``obs``) stay
# apart: native code adds an offset with a call, on each read of its innermost loop.
_MOVB = const(0)  # mover's checkers per row at the start
_OPPB = const(28)  # opponent's checkers per row at the start
_BASE = const(56)  # the start's reading
_REF = const(84)  # the last reading in a legal state
_EP = const(112)  # reading of an end position (checked by the engine's end)
# a candidate's end position rebuilt from its steps (52 bytes, ``_end_of``), or while asking
# whether a partial reading is a candidate's, its checkers per row (``_same_as_candidate``)
_END = const(140)
_CM = const(140)  # the mover's checkers per row
_CO = const(168)  # the opponent's
_DCAPS = const(196)  # the caps when update() is given none
_ROWS = const(224)  # the mover's point 0..25 -> its sensor row (row_of), 26 bytes
_CH = const(250)  # candidate k's digest of its end position at _CH + k
_CSTEP = const(266)  # candidate k's steps at _CSTEP + 8k .. + 8 (unused pairs 0)
_NT = const(394)
# the word tables of ``_visit`` (``_w``, 32-bit: bitmasks of 28 rows): each step's rows, and per
# subset of a play's steps the rows touched, the rows landed on, the sources that need a
# checker back
_TM = const(0)
_U = const(4)
_LD = const(20)
_ND = const(36)
_NW = const(52)


def row_of(side, point):
    """Sensor row of ``side``'s own ``point`` (1..24; 25 = its bar; 0 = its tray)."""
    if point == 25:
        return ROW_BAR0 + side
    if point == 0:
        return ROW_TRAY0 + side
    return point - 1 if side == 0 else 24 - point


def observe(pos, out, caps, at=0):
    """Fill ``out[at:at + 28]`` with what ideal sensors read for ``pos``: each row's checker
    count, capped at ``caps[row]`` (a cap of 0 = row not sensed, read 0). Returns ``out``."""
    for r in range(24):
        v = pos[r] + pos[48 - r]
        c = caps[r]
        out[at + r] = v if v < c else c
    for r, i in ((24, 24), (25, 49), (26, 50), (27, 51)):
        v = pos[i]
        c = caps[r]
        out[at + r] = v if v < c else c
    return out


def make_caps(slots=6, bar_slots=6, tray_slots=15, out=None):
    """Per-row caps as ``bg.sensing`` reports them (``Sensing.cap``)."""
    if out is None:
        out = bytearray(NROWS)
    for r in range(24):
        out[r] = slots
    out[24] = out[25] = bar_slots
    out[26] = out[27] = tray_slots
    return out


class Recognizer:
    """Recognise the play on the board during one turn. Build once (all buffers here);
    ``begin()`` at each turn, ``update()`` at each stable sensor change, then ``confirm()``.
    """

    # a reading that is both one complete play and part of another (colour-blind sensors: a
    # hit on one point reads like a hit on another) is asked, not recorded; ``strict=False``
    # records the complete play
    strict = True

    def __init__(self, slots=6, bar_slots=6, tray_slots=15, gen=None, strict=True):
        self.caps = make_caps(slots, bar_slots, tray_slots)
        self.gen = gen if gen is not None else MoveGenVisit()
        if not strict:
            self.strict = False  # else the class's: the instance's dict stays at 37 slots
        self.start = bytearray(52)
        self._t = bytearray(_NT)  # the tables (_MOVB, _OPPB, ... _CSTEP)
        for r in range(NROWS):
            self._t[_DCAPS + r] = self.caps[r]
        self.mov = bytearray(NROWS)  # scratch: a subset of a play applied
        self.opp = bytearray(NROWS)
        self.obs = bytearray(NROWS)  # the reading being recognised
        self._fr = bytearray(4)  # rows of the current play's steps
        self._tr = bytearray(4)
        self._dk = bytearray(4)  # die of the current play's steps (the engine's, per depth)
        self._hr = bytearray(4)  # rows hit by the subset being checked
        self._w = array("I", bytes(4 * _NW))  # the word tables (_TM, _U, _LD, _ND)
        self._job = 0  # the engine's search for the reading fed: 0 none, 1 first pass, 2 second
        # candidates k = 0..ncand-1: steps at _t[_CSTEP + 8k:...+ 8] (unused pairs 0: a step's
        # source is never 0), a one-byte digest of the end position at _t[_CH + k]. Their end
        # positions (52 bytes each: 848 of the board's heap for 16) are not kept: ``_end_of``
        # rebuilds one from the start and its steps, to tell a new end from a kept one on a
        # digest match.
        self._cb = self._visit  # bound once: no allocation per visited play
        self._steps = self._fr
        self.side = 0
        self.d1 = self.d2 = 0
        self.nomove = False
        self.active = False
        self.used = 0  # dice played by the last legal reading (module doc: "Dice used")
        self._reset_result()
        self.state = WAITING

    def _reset_result(self):
        self.ncand = 0  # distinct complete candidates stored
        self.overflow = 0  # complete candidates beyond MAX_CANDIDATES (never recorded)
        self.npartial = 0
        self._pu = 0  # dice used by every partial play matched so far
        self.waiting = False
        self.pending = 0  # rows whose blot was hit but is not on the bar yet
        self.hints = 0  # rows where a lifted checker may be put down
        self.lifted = -1  # row a lifted checker came from (-1: unknown)
        self.missing = 0  # ILLEGAL: rows reading fewer checkers than ``ref``
        self.extra = 0  # ILLEGAL: rows reading more checkers than ``ref``
        self.irregular = 0
        self.selected = 0
        self._asking = False
        self._m = 0

    # ------------------------------------------------------------------ turn set-up
    def begin(self, start, side, d1, d2, defer=False):
        """Start recognising a turn: ``start`` (52-byte position, copied), ``side`` on roll
        (0/1) and the dice. The board must read like ``start`` when this is called. With
        ``defer`` the start's own recognition (a search only when a play can hide in a stack)
        may be left to ``work``, as ``feed`` does."""
        if len(start) != 52:
            raise ValueError("position must be 52 bytes")
        if side not in (0, 1):
            raise ValueError("side must be 0 or 1")
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError("dice must be 1..6, got %d-%d" % (d1, d2))
        st = self.start
        for i in range(52):
            st[i] = start[i]
        self.side = side
        self.d1 = d1
        self.d2 = d2
        t = self._t
        for p in range(26):
            t[_ROWS + p] = row_of(side, p)
        for r in range(NROWS):
            t[_MOVB + r] = 0
            t[_OPPB + r] = 0
        for x in (0, 1):
            dst = _MOVB if x == side else _OPPB
            b = 25 * x
            for p in range(1, 26):
                r = row_of(x, p)
                t[dst + r] = start[b + p - 1]
            t[dst + ROW_TRAY0 + x] = start[50 + x]
        self.nomove = self.gen.no_play(start, side, d1, d2)
        self.active = True
        self.used = 0
        self._set_caps(None)
        self._reset_result()
        self._obs_from_base()
        for r in range(NROWS):
            t[_REF + r] = t[_BASE + r]
        if self._classify_start() and not defer:
            self.work(0)

    def _set_caps(self, caps):
        c = self.caps
        changed = False
        for r in range(NROWS):
            v = self._t[_DCAPS + r] if caps is None else caps[r]
            if c[r] != v:
                c[r] = v
                changed = True
        if changed or caps is None:
            t = self._t
            for r in range(NROWS):
                v = t[_MOVB + r] + t[_OPPB + r]
                cr = c[r]
                t[_BASE + r] = v if v < cr else cr
        return changed

    def _obs_from_base(self):
        t = self._t
        o = self.obs
        for r in range(NROWS):
            o[r] = t[_BASE + r]

    # ------------------------------------------------------------------ recognition
    def update(self, counts, caps=None, irregular=0):
        """Recognise a stable reading: ``counts`` (28 rows, ``Sensing.counts``), optional
        per-row ``caps`` (``Sensing.cap``; default: the slot counts given at construction),
        ``irregular`` (``Sensing.irregular_mask()``: rows with a closed slot above an open
        one). Returns the new state. Calling it again with the same reading changes nothing
        (a selection in progress is kept). ``feed`` + ``work(0)``: see ``feed`` to recognise
        in slices."""
        if self.feed(counts, caps, irregular):
            self.work(0)
        return self.state

    def feed(self, counts, caps=None, irregular=0):
        """Take a stable reading (as ``update``) but leave the engine's search to ``work``:
        True when there is work to do (``busy``; ``state`` and the results are the previous
        reading's until ``work`` returns True), False when the state is final already.

        An event loop calls ``work(n)`` with a yield between calls, so that the worst
        position's 2,140 plays never hold the loop at once; a new reading meanwhile is simply
        fed (the unfinished search is dropped). ``update`` with the reading being worked on
        finishes the work."""
        if not self.active:
            raise ValueError("begin() a turn first")
        if len(counts) < NROWS:
            raise ValueError("counts must have 28 rows")
        same = not self._set_caps(caps)
        o = self.obs
        c = self.caps
        for r in range(NROWS):
            v = counts[r]
            if c[r] and v > c[r]:
                raise ValueError("row %d reads %d checkers, more than its cap %d" % (r, v, c[r]))
            if o[r] != v:
                o[r] = v
                same = False
        if same and irregular == self.irregular:
            return self._job != 0
        self._reset_result()
        if irregular:
            self._job = 0
            self.irregular = irregular
            self._illegal()
            return False
        return self._classify_start()

    @property
    def busy(self):
        """True while a reading is fed but not yet recognised (``work`` has more to do)."""
        return self._job != 0

    def work(self, n=0):
        """Go on recognising the reading given to ``feed``: up to ``n`` more plays of the
        engine's visit (0: to the end). Returns True when ``state`` is final. Allocates
        nothing."""
        while self._job:
            gen = self.gen
            try:
                done = gen.run_ends(n)
            except RuntimeError:
                # the generator answered another query meanwhile: its walk is gone, start over
                self._reset_result()
                self._classify_start()
                if n:
                    return self._job == 0
                continue
            if not done:
                return False
            if self._job == 1 and self.ncand and self.npartial:
                # both a complete play and part of one read like this: count again, keeping
                # only the unfinished states whose checkers (colours included) differ from
                # every candidate's: only those make a confirm press ambiguous (rare: a hit)
                self._job = 2
                self.npartial = 0
                self._pu = 0
                self.pending = 0
                gen.start_ends(self.start, self.side, self.d1, self.d2, self._cb)
                if n:
                    return False
                continue
            self._job = 0
            self._finish()
        return True

    def _classify_start(self):
        """Set up the recognition of ``obs``: True when the engine's search is needed (the
        job for ``work``), else the state is final."""
        t = self._t
        o = self.obs
        c = self.caps
        m = 0
        for r in range(NROWS):
            if c[r] and o[r] != t[_BASE + r]:
                m |= 1 << r
        self._m = m
        self.waiting = m == 0
        self._job = 0
        if m == 0 and not self._hideable():
            pass  # the start's reading, and no play can hide in a stack: nothing to search
        elif not self.nomove:
            self._job = 1
            self.gen.start_ends(self.start, self.side, self.d1, self.d2, self._cb)
            return True
        self._finish()
        return False

    def _finish(self):
        """The state from the search's counts (``ncand``, ``npartial``, ``hints``...)."""
        t = self._t
        o = self.obs
        m = self._m
        if m and not (m & (m - 1)):
            # the start itself, one checker short on one row: a checker lifted at the start
            r = 0
            while not (m >> r) & 1:
                r += 1
            if o[r] + 1 == t[_BASE + r]:
                self.hints |= m
        if self.ncand == 0:
            if self.waiting:
                self.state = NO_PLAY if self.nomove else WAITING
            elif self.npartial:
                self.state = PARTIAL
            elif self.hints:
                self.state = LIFTED
                self._find_lifted()
                return
            else:
                self._illegal()
                return
        elif (
            self.ncand == 1 and not self.overflow and not self.waiting and not (self.npartial and self.strict)
        ):
            self.state = COMPLETE
        elif self.waiting or (self.npartial and self.strict):
            # it may be unfinished: show it as such; confirm() asks which play it was
            self.state = WAITING if self.waiting else PARTIAL
        else:
            self.state = AMBIGUOUS
        st = self.state
        if st == PARTIAL:
            self.used = self._pu
        elif st == COMPLETE or st == AMBIGUOUS:
            self.used = 4 if self.d1 == self.d2 else 3
        else:
            self.used = 0
        for r in range(NROWS):
            t[_REF + r] = o[r]

    def _hideable(self):
        """True when some play might read exactly like the start: every play takes a checker
        off some row for good, so that row must read "cap or more" before and after."""
        c = self.caps
        t = self._t
        for r in range(NROWS):
            if c[r] and t[_MOVB + r] > c[r]:
                return True
        return False

    def _find_lifted(self):
        """The row one checker came from, relative to the last legal reading (-1 if the
        difference is not exactly one checker less on one row)."""
        t = self._t
        o = self.obs
        row = -1
        for r in range(NROWS):
            if o[r] != t[_REF + r]:
                if row >= 0 or o[r] + 1 != t[_REF + r]:
                    self.lifted = -1
                    return
                row = r
        self.lifted = row
        if row >= 0:
            self.hints &= ~(1 << row)

    def _illegal(self):
        self.state = ILLEGAL
        t = self._t
        o = self.obs
        miss = 0
        ext = 0
        for r in range(NROWS):
            if not self.caps[r]:
                continue
            if o[r] < t[_REF + r]:
                miss |= 1 << r
            elif o[r] > t[_REF + r]:
                ext |= 1 << r
        self.missing = miss
        self.extra = ext

    @micropython.viper
    def _visit(self, endpos, steps, n: int):
        """One maximal legal play: test every subset of its steps against the reading."""
        # viper (the per-play hot path of a recognition: the worst position has 2,140 plays):
        # rows and masks are machine integers, the buffers byte or word pointers; the subsets
        # that pass these cheap tests go to _subset. On CPython the casts are the identity.
        st = ptr8(steps)
        fr = ptr8(self._fr)
        tr = ptr8(self._tr)
        w = ptr32(self._w)
        dk = ptr8(self._dk)
        gd = ptr8(self.gen.d)
        tb = ptr8(self._t)
        caps = ptr8(self.caps)
        m = int(self._m)
        obar = int(ROW_BAR0) + 1 - int(self.side)
        t_all = 0
        fb = 0  # steps whose source row would visibly lose a checker
        for k in range(n):
            rf = int(tb[_ROWS + int(st[2 * k])])
            rt = int(tb[_ROWS + int(st[2 * k + 1])])
            fr[k] = rf
            tr[k] = rt
            dk[k] = gd[k]
            x = (1 << rf) | (1 << rt)
            if rt < 24 and int(tb[_OPPB + rt]) == 1:
                x |= 1 << obar
            w[_TM + k] = x
            t_all |= x
            if not (m >> rf) & 1 and int(tb[_MOVB + rf]) + int(tb[_OPPB + rf]) <= int(caps[rf]):
                fb |= 1 << k
        self._steps = steps
        out = m & ~t_all
        if not out & (out - 1):  # else two rows differ that this play never touches
            full = (1 << n) - 1
            # per subset, built from the subset without its lowest step: rows touched, rows
            # landed on, and source rows that must get a checker back (else they read one
            # short); cheap necessary conditions before the real count check
            lowk = ptr8(_LOWK)
            for sub in range(1, full + 1):
                low = sub & (0 - sub)
                k = int(lowk[low])
                prev = sub ^ low
                u = int(w[_U + prev]) | int(w[_TM + k])
                w[_U + sub] = u
                d = int(w[_LD + prev]) | (1 << int(tr[k]))
                w[_LD + sub] = d
                e = int(w[_ND + prev])
                if (fb >> k) & 1:
                    e |= 1 << int(fr[k])
                w[_ND + sub] = e
                if e & ~d:
                    continue
                out = m & ~u
                if out & (out - 1):
                    continue
                isfull = 0
                if sub == full:
                    isfull = 1
                self._subset(sub, n, isfull, endpos)
        if n == 2 and int(self.d1) != int(self.d2) and st[2] == st[1] and st[3]:
            # one checker moved by both dice: the engine visits one order of the chain; the
            # hand may use the other die first (13/12/6 for 13/7/6), a different half-way point
            f = int(st[0])
            mid = f - (int(st[2]) - int(st[3]))
            rm = int(tb[_ROWS + mid])
            if int(tb[_OPPB + rm]) == 0:
                tr[0] = rm
                dk[0] = gd[1]
                out = m & ~((1 << int(fr[0])) | (1 << rm))
                if not out & (out - 1):
                    self._subset(1, 1, 0, endpos)

    @micropython.native
    def _subset(self, sub, n, full, endpos):
        side = self.side
        fr = self._fr
        tr = self._tr
        mov = self.mov
        opp = self.opp
        tb = self._t
        hr = self._hr
        obar = ROW_BAR0 + 1 - side
        touched = 0
        nh = 0
        ok = True
        for k in range(n):
            if not (sub >> k) & 1:
                continue
            f = fr[k]
            t = tr[k]
            bit = 1 << f
            if not touched & bit:
                mov[f] = tb[_MOVB + f]
                opp[f] = tb[_OPPB + f]
                touched |= bit
            bit = 1 << t
            if not touched & bit:
                mov[t] = tb[_MOVB + t]
                opp[t] = tb[_OPPB + t]
                touched |= bit
            if mov[f] == 0:
                ok = False  # no checker of the mover there in this order of hands
                break
            mov[f] -= 1
            if t < 24:
                ot = opp[t]
                if ot >= 2:
                    ok = False
                    break
                if ot == 1:
                    opp[t] = 0
                    bit = 1 << obar
                    if not touched & bit:
                        mov[obar] = tb[_MOVB + obar]
                        opp[obar] = tb[_OPPB + obar]
                        touched |= bit
                    opp[obar] += 1
                    hr[nh] = t
                    nh += 1
            mov[t] += 1
        if not ok:
            return
        # rows that differ from the start but this subset leaves alone
        out = self._m & ~touched
        if out & (out - 1):
            return
        obs = self.obs
        caps = self.caps
        nv = 1 << nh  # variant v: hits in v are pending (blot still on its point)
        for v in range(nv):
            miss = -1  # the one row reading one checker less than this state (a lifted one)
            bad = False
            if out:
                r = 0
                while not (out >> r) & 1:
                    r += 1
                miss = r
                if obs[r] + 1 != tb[_BASE + r]:
                    continue
            r = 0
            tt = touched
            while tt:
                if tt & 1:
                    x = mov[r] + opp[r]
                    if v:
                        for j in range(nh):
                            if (v >> j) & 1:
                                if hr[j] == r:
                                    x += 1
                                elif r == obar:
                                    x -= 1
                    c = caps[r]
                    if c:
                        if x > c:
                            x = c
                        if x != obs[r]:
                            if miss < 0 and x == obs[r] + 1:
                                miss = r
                            else:
                                bad = True
                                break
                tt >>= 1
                r += 1
            if bad:
                continue
            if miss >= 0:
                self.hints |= 1 << miss
                continue
            if full and not v:
                if self._job != 2:
                    self._candidate(endpos, n)
                continue
            if self._job == 2 and self._same_as_candidate(touched, nh, v):
                continue  # the very checkers of a complete candidate: nothing else to ask
            # the dice this part used: only what every partial reading alike used counts
            u = 0
            dk = self._dk
            for k in range(n):
                if (sub >> k) & 1:
                    if self.d1 == self.d2:
                        u += 1
                    else:
                        u |= 1 if dk[k] == self.d1 else 2
            if self.npartial == 0:
                self._pu = u
            elif self.d1 == self.d2:
                if u < self._pu:
                    self._pu = u
            else:
                self._pu &= u
            self.npartial += 1
            for j in range(nh):
                if (v >> j) & 1:
                    self.pending |= 1 << hr[j]

    def _same_as_candidate(self, touched, nh, v):
        """True when the subset just matched (with hits ``v`` pending) puts every checker,
        colours included, where some complete candidate does: then recording that candidate
        records exactly what is on the board. Each candidate's checkers are counted on the
        rows its steps touch (as ``_subset`` counts a subset's); the other rows hold the
        start's."""
        mov = self.mov
        opp = self.opp
        t = self._t
        hr = self._hr
        obar = ROW_BAR0 + 1 - self.side
        for k in range(self.ncand):
            ck = 0  # rows candidate k's steps touch: its counts at t[_CM + r], t[_CO + r]
            for i in range(_CSTEP + 8 * k, _CSTEP + 8 * k + 8, 2):
                f = t[i]
                if not f:
                    break
                rf = t[_ROWS + f]
                rq = t[_ROWS + t[i + 1]]
                if not (ck >> rf) & 1:
                    t[_CM + rf] = t[_MOVB + rf]
                    t[_CO + rf] = t[_OPPB + rf]
                    ck |= 1 << rf
                if not (ck >> rq) & 1:
                    t[_CM + rq] = t[_MOVB + rq]
                    t[_CO + rq] = t[_OPPB + rq]
                    ck |= 1 << rq
                t[_CM + rf] -= 1
                if rq < 24 and t[_CO + rq] == 1:  # a hit: the blot goes to its bar
                    if not (ck >> obar) & 1:
                        t[_CM + obar] = t[_MOVB + obar]
                        t[_CO + obar] = t[_OPPB + obar]
                        ck |= 1 << obar
                    t[_CO + rq] = 0
                    t[_CO + obar] += 1
                t[_CM + rq] += 1
            same = True
            m = touched | ck
            r = 0
            while m:
                if m & 1:
                    if (touched >> r) & 1:
                        a = mov[r]
                        b = opp[r]
                        for j in range(nh):
                            if (v >> j) & 1:
                                if hr[j] == r:
                                    b += 1
                                elif r == obar:
                                    b -= 1
                    else:
                        a = t[_MOVB + r]
                        b = t[_OPPB + r]
                    if (ck >> r) & 1:
                        if a != t[_CM + r] or b != t[_CO + r]:
                            same = False
                            break
                    elif a != t[_MOVB + r] or b != t[_OPPB + r]:
                        same = False
                        break
                m >>= 1
                r += 1
            if same:
                return True
        return False

    def _candidate(self, endpos, n):
        """A complete legal play reads like the observation: keep it if its end is new."""
        t = observe(endpos, self._t, self.caps, _EP)
        c = self.caps
        for r in range(NROWS):
            if c[r] and t[_EP + r] != self.obs[r]:
                return  # defensive: the engine's own end must read the same, or nothing counts
        h = 0
        for i in range(52):
            h = (h * 31 + endpos[i]) & 0xFF
        for k in range(self.ncand):
            if t[_CH + k] == h:
                e = self._end_of(k)
                i = 0
                while i < 52 and t[e + i] == endpos[i]:
                    i += 1
                if i == 52:
                    return  # the same end position by other steps
        k = self.ncand
        if k >= MAX_CANDIDATES:
            self.overflow += 1  # counted once per play visit; only "more than we keep" matters
            return
        st = self._steps
        for i in range(8):
            t[_CSTEP + 8 * k + i] = st[i] if i < 2 * n else 0
        t[_CH + k] = h
        self.ncand = k + 1

    def _end_of(self, k):
        """Candidate ``k``'s end position rebuilt in ``_t[_END:_END + 52]`` (the start, its
        steps made in order as the engine made them); returns ``_END``. Allocates nothing."""
        t = self._t
        st = self.start
        for i in range(52):
            t[_END + i] = st[i]
        side = self.side
        b = _END - 1 + (25 if side else 0)  # the mover's point p at t[b + p]
        ob = _END + (24 if side else 49)  # the opponent on our point q at t[ob - q], its bar t[ob]
        for i in range(_CSTEP + 8 * k, _CSTEP + 8 * k + 8, 2):
            f = t[i]
            if not f:
                break
            q = t[i + 1]
            t[b + f] -= 1
            if q:
                if t[ob - q] == 1:  # a hit: the blot goes to its bar
                    t[ob - q] = 0
                    t[ob] += 1
                t[b + q] += 1
            else:
                t[_END + 50 + side] += 1
        return _END

    def _nsteps(self, k):
        cs = self._t
        n = 0
        while n < 4 and cs[_CSTEP + 8 * k + 2 * n]:
            n += 1
        return n

    # ------------------------------------------------------------------ player actions
    def confirm(self):
        """The roll/confirm press. Returns the play to record (flat steps tuple; ``()`` to
        pass in ``NO_PLAY``), or None when nothing can be recorded: then the state says why
        (``ILLEGAL``, ``PARTIAL``...). In ``WAITING``/``PARTIAL`` with a complete play hidden
        by a stack, the press enters ``AMBIGUOUS`` to let the player pick it."""
        s = self.state
        if s == NO_PLAY:
            return ()
        if s == COMPLETE:
            return self.steps(0)
        if s == AMBIGUOUS and self.ncand and not self.overflow:
            return self.steps(self.selected)
        if s in (WAITING, PARTIAL) and self.ncand:
            self.state = AMBIGUOUS
            self.selected = 0
            self._asking = True
        return None

    def cancel(self):
        """Leave a selection entered by ``confirm()`` (back to waiting/partial)."""
        if self._asking:
            self._asking = False
            self.state = WAITING if self.waiting else PARTIAL

    def next_candidate(self):
        """The cube button in ``AMBIGUOUS``: show the next candidate. Returns its index."""
        if self.state == AMBIGUOUS and self.ncand:
            self.selected = (self.selected + 1) % self.ncand
        return self.selected

    def steps(self, k):
        """Steps of candidate ``k`` as a flat tuple (allocates; for recording)."""
        if not 0 <= k < self.ncand:
            raise ValueError("no candidate %d" % k)
        return tuple(self._t[_CSTEP + 8 * k : _CSTEP + 8 * k + 2 * self._nsteps(k)])

    def end(self, k):
        """End position of candidate ``k`` as ``bytes`` (allocates; tests and the host)."""
        if not 0 <= k < self.ncand:
            raise ValueError("no candidate %d" % k)
        e = self._end_of(k)
        return bytes(self._t[e : e + 52])

    def show(self, k):
        """``(from_rows, to_rows)`` bitmasks of candidate ``k``'s steps that not every
        candidate shares: what the LEDs blink so the player can tell the candidates apart."""
        if not 0 <= k < self.ncand:
            raise ValueError("no candidate %d" % k)
        side = self.side
        cs = self._t
        src = 0
        dst = 0
        for i in range(self._nsteps(k)):
            f = cs[_CSTEP + 8 * k + 2 * i]
            t = cs[_CSTEP + 8 * k + 2 * i + 1]
            shared = self.ncand > 1  # a lone candidate shows all its steps
            for j in range(self.ncand):
                if j != k and self._count_step(j, f, t) < self._count_step(k, f, t):
                    shared = False
                    break
            if not shared:
                src |= 1 << row_of(side, f)
                dst |= 1 << row_of(side, t)
        return src, dst

    def _count_step(self, k, f, t):
        cs = self._t
        c = 0
        for i in range(self._nsteps(k)):
            if cs[_CSTEP + 8 * k + 2 * i] == f and cs[_CSTEP + 8 * k + 2 * i + 1] == t:
                c += 1
        return c

    def dest_points(self, take_backs=False):
        """``forward_hints()`` (or all ``hints`` with ``take_backs``) as ``bg.leds``
        destination masks want them: bit ``p - 1`` for board point ``p``, bit 24 for bearing
        off (the mover's tray)."""
        h = self.hints if take_backs else self.forward_hints()
        m = h & 0xFFFFFF
        if (h >> (ROW_TRAY0 + self.side)) & 1:
            m |= 1 << 24
        return m

    def forward_hints(self):
        """``hints`` without the take-backs: only rows ahead of the lifted checker in the
        mover's direction (and its tray), i.e. where a die can still carry it. All of
        ``hints`` if the origin is unknown."""
        r = self.lifted
        h = self.hints
        if r < 0:
            return h
        side = self.side
        tray = ROW_TRAY0 + side
        if r == ROW_BAR0 + side:
            return h & ~(1 << (ROW_BAR0 + 1 - side)) & ~(1 << r)
        if r >= 24:
            return 0  # an opponent's bar or a tray: no die moves it
        if side == 0:
            ahead = (1 << r) - 1  # rows below: lower board points
        else:
            ahead = ((1 << 24) - 1) & ~((1 << (r + 1)) - 1)  # higher board points
        return h & (ahead | (1 << tray))

    def dice_lit(self):
        """The dice still to play as a mask of the two dice (bit 0: die ``d1``, bit 1: die
        ``d2``; the dice LEDs dim the others). A doublet's four steps are two per die: die
        ``d2`` goes dim once two are played, both once four are. Ints only: no allocation."""
        u = self.used
        if self.d1 == self.d2:
            return 3 if u < 2 else (1 if u < 4 else 0)
        return 3 & ~u

    def lifted_point(self):
        """Board point (1..24) the lifted checker came from, 25 for a bar, 0 if unknown."""
        r = self.lifted
        if 0 <= r < 24:
            return r + 1
        if r in (ROW_BAR0, ROW_BAR0 + 1):
            return 25
        return 0

    def diff_start(self):
        """``(missing, extra)`` row bitmasks of the reading against the turn's start (what
        to move to put everything back)."""
        miss = 0
        ext = 0
        for r in range(NROWS):
            if not self.caps[r]:
                continue
            if self.obs[r] < self._t[_BASE + r]:
                miss |= 1 << r
            elif self.obs[r] > self._t[_BASE + r]:
                ext |= 1 << r
        return miss, ext
