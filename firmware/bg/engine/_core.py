"""Core of the move generator: the position buffer, one step (make/unmake), the longest
play, and the depth-first visit of every maximal play. See ``bg.engine`` for the API.

(The generator is layered over four modules -- core, visit, search, hints -- each on top of
the one before; ``bg.engine.MoveGen`` is the whole generator, ``bg.engine.MoveGenVisit`` the
device's, its visit of every play alone.)
"""

import micropython
from micropython import const

try:
    from micropython import ptr8  # pyright: ignore[reportAttributeAccessIssue] - CPython: the shim's
except ImportError:
    pass  # MicroPython: viper compiles ptr8(...) as a cast; there is no such name to import

_NO = const(-1)


def _no_visit(w, st, n):
    """Placeholder visitor between calls."""


class MoveGenCore:
    """Buffers and the depth-first search shared by every query."""

    def __init__(self):
        # the visit's state only: the searches' own (``MoveGenSearch.__init__``) stay off the
        # device's generator, 224 B of the board's heap
        self.w = bytearray(52)  # work position (make/unmake)
        self.st = bytearray(8)  # steps of the current path: from, to, ...
        self.hit = bytearray(4)  # 1 where step k hit a blot
        self.d = bytearray(4)  # die of each depth in the current pass
        self.stk = bytearray(12)  # the visit's stack (bg.engine._visit._walk)
        self.mb = self.ob = self.offi = 0
        self.out = 0  # mover's checkers on points 7..24 and the bar
        self.nd = 0  # dice to play (2 or 4)
        self.dbl = False
        self.maxd = 0  # length of the legal plays for this roll
        self.need = 0  # die a 1-step play must use (0: any)
        self.bmask = 0  # sources legal at start for the 2nd die (order pruning)
        self.passb = False
        self.visit = _no_visit
        self.stop = False  # a visitor may set it to end for_each_end early
        self.nvis = 0
        self.rdepth = -1  # a visit in slices (bg.engine._visit): depth to resume at, -1 fresh
        self.rout = 0  # ... and the mover's checkers outside the home board there
        self.jobs = 0  # _setup()s so far: a visit in slices knows when another query came
        self.sjob = -1  # the visit in slices in progress: its _setup number (-1: none)
        self.pas = 0  # ... and its dice order
        self.side = 0
        self.big = self.small = 0

    def _setup(self, pos, side, d1, d2):
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError("dice must be 1..6, got %d-%d" % (d1, d2))
        if len(pos) != 52:
            raise ValueError("position must be 52 bytes")
        if side != 0 and side != 1:
            raise ValueError("side must be 0 or 1")
        self.side = side
        self.jobs += 1  # any visit in slices in progress is over: its buffers are reused
        self.rdepth = -1
        self.mb = 24 if side else -1  # mover's point p is w[mb + p] (p = 25: bar)
        self.ob = 24 if side else 49  # opponent on our point t is w[ob - t]; its bar w[ob]
        self.offi = 51 if side else 50
        if type(pos) is not bytearray and type(pos) is not bytes:  # (no tuple: no allocation)
            pos = bytes(pos)  # a list or tuple (host callers): the viper load reads a buffer
        self.out = self._load(pos)  # mover's checkers on points 7..24 and the bar
        self.passb = False
        if d1 == d2:
            self.dbl = True
            self.nd = 4
            for k in range(4):
                self.d[k] = d1
        else:
            self.dbl = False
            self.nd = 2
            self.big = d1 if d1 > d2 else d2
            self.small = d2 if d1 > d2 else d1
            self._order(False, self.big, self.small)
        self._find_max()

    def _order(self, passb, first, second):
        self.d[0] = first
        self.d[1] = second
        self.passb = passb
        if passb:
            self.bmask = self._srcmask(second)

    def _find_max(self):
        if self.dbl:
            self.maxd = self._walk(1, 0)
            self.need = 0
            return
        big = self.big
        small = self.small
        a = self._walk(1, 0)  # larger die first
        if a < 2:
            self._order(True, small, big)
            b = self._walk(1, 0)
            self._order(False, big, small)
            if b > a:
                a = b
        self.maxd = a
        self.need = 0
        if a == 1:
            self.need = big if self._land_any(big) else small

    def _land_any(self, d):
        return self._srcmask(d) != 0

    @micropython.viper
    def _load(self, pos) -> int:
        # copy the position into the work buffer; the mover's checkers outside the home board
        w = ptr8(self.w)
        src = ptr8(pos)
        for i in range(52):
            w[i] = src[i]
        mb = int(self.mb)
        out = 0
        for p in range(7, 26):
            out += int(w[mb + p])
        return out

    @micropython.viper
    def _srcmask(self, d: int) -> int:
        # bit p set when the mover's checker on p (25: bar) can move by d (0: none can)
        w = ptr8(self.w)
        mb = int(self.mb)
        ob = int(self.ob)
        out = int(self.out)
        m = 0
        bar = int(w[mb + 25])
        for p in range(1, 26):
            if not w[mb + p]:
                continue
            if p != 25 and bar:
                continue
            t = p - d
            if t > 0:
                if int(w[ob - t]) >= 2:
                    continue
            elif out:
                continue
            elif t < 0:
                q = p + 1
                while q < 7 and not w[mb + q]:
                    q += 1
                if q < 7:
                    continue
            m |= 1 << p
        return m

    def _land(self, p, d):
        """Landing point of the mover's checker on ``p`` moved by ``d`` (0 = off), or -1."""
        w = self.w
        mb = self.mb
        if not w[mb + p]:
            return _NO
        if p != 25 and w[mb + 25]:
            return _NO
        t = p - d
        if t > 0:
            if w[self.ob - t] >= 2:
                return _NO
            return t
        if self.out:
            return _NO
        if t < 0:
            for q in range(p + 1, 7):
                if w[mb + q]:
                    return _NO
        return 0

    def _make(self, k, p, t):
        w = self.w
        mb = self.mb
        w[mb + p] -= 1
        if p > 6 and t <= 6:
            self.out -= 1
        if t:
            ob = self.ob
            if w[ob - t]:
                w[ob - t] = 0
                w[ob] += 1
                self.hit[k] = 1
            else:
                self.hit[k] = 0
            w[mb + t] += 1
        else:
            w[self.offi] += 1
            self.hit[k] = 0
        self.st[2 * k] = p
        self.st[2 * k + 1] = t

    def _unmake(self, k):
        w = self.w
        mb = self.mb
        p = self.st[2 * k]
        t = self.st[2 * k + 1]
        w[mb + p] += 1
        if p > 6 and t <= 6:
            self.out += 1
        if t:
            w[mb + t] -= 1
            if self.hit[k]:
                ob = self.ob
                w[ob] -= 1
                w[ob - t] = 1
        else:
            w[self.offi] -= 1

    @micropython.viper
    def _walk(self, longest: int, lim: int) -> int:
        # One dice order's depth-first walk: with longest=0 the visit of every maximal play
        # (for_each_end, the hot path: the board's recognizer runs it on every change), with
        # longest=1 the length of the longest play (stops at a full one). ``lim`` > 0: pause
        # once ``nvis`` reaches it (a visit in slices): the depth and ``out`` are kept in
        # ``rdepth``/``rout``, everything else is in the buffers, and the next call with
        # ``rdepth`` >= 0 goes on from there; returns -1 when it paused. A loop over an
        # explicit stack (stk: next source point to try and lowest allowed source per depth,
        # and how the step there was made), so a step costs no call; legality and make/unmake
        # are written out here instead of calling _land/_make/_unmake. The viper emitter keeps
        # every index and count a machine integer and reads the buffers through byte pointers
        # (tools/bench/engine.py measures it against the bytecode and gnubg's C generator). On
        # CPython the decorator and ptr8 are the identity (host_tools/shim/micropython.py): the
        # same source runs there.
        wo = self.w
        so = self.st
        w = ptr8(wo)
        st = ptr8(so)
        dd = ptr8(self.d)
        stk = ptr8(self.stk)  # [0:4] next source per depth, [4:8] lowest source, [8:12] flags
        mb = int(self.mb)
        ob = int(self.ob)
        offi = int(self.offi)
        maxd = int(self.maxd)
        if longest:
            maxd = int(self.nd)
        best = 0
        out = int(self.out)
        need = int(self.need)
        prune = 0
        if self.passb:
            prune = int(self.bmask)  # sources the other dice order covers (depth 1 only)
        dbl = 0
        if self.dbl:
            dbl = 1
        visit = self.visit
        stopping = 0
        pause = 0
        depth = int(self.rdepth)
        if depth >= 0:
            out = int(self.rout)  # resumed: the loop's state is where the pause left it
            self.rdepth = -1
        else:
            depth = 0
            stk[0] = 25
            stk[4] = 1
            if w[mb + 25]:
                stk[4] = 25
        while True:
            back = 0
            p = 0
            if depth == maxd and longest:
                best = maxd
                stopping = 1
                back = 1
            elif depth == maxd:
                if depth != 1 or need == 0 or int(dd[0]) == need:
                    nv = int(self.nvis) + 1
                    self.nvis = nv
                    visit(wo, so, depth)
                    if self.stop:
                        stopping = 1
                    elif lim and nv >= lim:
                        pause = 1
                back = 1
            elif stopping:
                back = 1
            else:
                p = int(stk[depth])
                if p < int(stk[4 + depth]):
                    back = 1
            if back:
                if depth == 0:
                    return best
                depth -= 1
                # unmake the step at this depth
                k = 2 * depth
                p = int(st[k])
                t = int(st[k + 1])
                fl = int(stk[8 + depth])
                if t:
                    w[mb + t] = int(w[mb + t]) - 1
                    if fl & 1:
                        w[ob] = int(w[ob]) - 1
                        w[ob - t] = 1
                else:
                    w[offi] = int(w[offi]) - 1
                if fl & 2:
                    out += 1
                w[mb + p] = int(w[mb + p]) + 1
                if pause:
                    self.rdepth = depth
                    self.rout = out
                    return -1
                continue
            stk[depth] = p - 1
            if not w[mb + p]:
                continue
            t = p - int(dd[depth])
            if t > 0:
                if int(w[ob - t]) >= 2:
                    continue
            else:
                if out:
                    continue
                if t < 0:
                    q = p + 1
                    while q < 7 and not w[mb + q]:
                        q += 1
                    if q < 7:
                        continue  # a checker above: no bear-off with a larger die
                t = 0
            if depth == 1 and (prune >> p) & 1:
                if longest:
                    best = maxd  # covered by the other order, which reached depth 2
                    stopping = 1
                continue
            # make
            w[mb + p] = int(w[mb + p]) - 1
            fl = 0
            if p > 6 and t <= 6:
                fl = 2
                out -= 1
            if t:
                if w[ob - t]:
                    w[ob - t] = 0
                    w[ob] = int(w[ob]) + 1
                    fl |= 1
                w[mb + t] = int(w[mb + t]) + 1
            else:
                w[offi] = int(w[offi]) + 1
            k = 2 * depth
            st[k] = p
            st[k + 1] = t
            stk[8 + depth] = fl
            depth += 1
            if depth > best:
                best = depth
            if depth < maxd:
                if dbl:
                    stk[depth] = p
                else:
                    stk[depth] = 25
                stk[4 + depth] = 1
                if w[mb + 25]:
                    stk[4 + depth] = 25

    def _leaf_ok(self, depth):
        return depth != 1 or not self.need or self.d[0] == self.need

    def _passes(self):
        """Number of dice orders to search (1 for doubles, 2 otherwise)."""
        return 1 if self.dbl else 2

    def _set_pass(self, i):
        if self.dbl:
            return
        if i == 0:
            self._order(False, self.big, self.small)
        else:
            self._order(True, self.small, self.big)
