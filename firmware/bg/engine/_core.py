"""Core of the move generator: the position buffer, one step (make/unmake), the longest
play, and the depth-first visit of every maximal play. See ``bg.engine`` for the API.

(The generator is layered over four modules -- core, visit, search, hints -- each on top of
the one before; ``bg.engine.MoveGen`` is the class to use.)
"""

from micropython import const

_NO = const(-1)


def _no_visit(w, st, n):
    """Placeholder visitor between calls."""


class MoveGenCore:
    """Buffers and the depth-first search shared by every query."""

    def __init__(self):
        self.w = bytearray(52)  # work position (make/unmake)
        self.st = bytearray(8)  # steps of the current path: from, to, ...
        self.hit = bytearray(4)  # 1 where step k hit a blot
        self.d = bytearray(4)  # die of each depth in the current pass
        self.sl = bytearray(26)  # recognition slack per point (see _slack)
        self.res = bytearray(8)  # steps of the play found by a search
        self.endb = bytearray(52)  # first end position seen (forced())
        self.tgt = self.w
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
        self.resn = 0
        self.mask = 0
        self.lift = 0
        self.side = 0
        self.multi = False
        self.big = self.small = 0

    def _setup(self, pos, side, d1, d2):
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError("dice must be 1..6, got %d-%d" % (d1, d2))
        if len(pos) != 52:
            raise ValueError("position must be 52 bytes")
        if side != 0 and side != 1:
            raise ValueError("side must be 0 or 1")
        w = self.w
        for i in range(52):
            w[i] = pos[i]
        self.side = side
        self.mb = mb = 24 if side else -1  # mover's point p is w[mb + p] (p = 25: bar)
        self.ob = 24 if side else 49  # opponent on our point t is w[ob - t]; its bar w[ob]
        self.offi = 51 if side else 50
        out = 0
        for p in range(7, 26):
            out += w[mb + p]
        self.out = out
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
            m = 0
            for p in range(1, 26):
                if self._land(p, second) >= 0:
                    m |= 1 << p
            self.bmask = m

    def _find_max(self):
        if self.dbl:
            self.maxd = self._max(0, 25)
            self.need = 0
            return
        big = self.big
        small = self.small
        a = self._max(0, 25)  # larger die first
        if a < 2:
            self._order(True, small, big)
            b = self._max(0, 25)
            self._order(False, big, small)
            if b > a:
                a = b
        self.maxd = a
        self.need = 0
        if a == 1:
            self.need = big if self._land_any(big) else small

    def _land_any(self, d):
        for p in range(1, 26):
            if self._land(p, d) >= 0:
                return True
        return False

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

    def _max(self, depth, hi):
        """Longest play reachable from here (stops early at a full play)."""
        nd = self.nd
        if depth == nd:
            return depth
        d = self.d[depth]
        best = depth
        lo = 25 if self.w[self.mb + 25] else 1
        nxt = depth + 1
        w = self.w
        mb = self.mb
        for p in range(hi, lo - 1, -1):
            if not w[mb + p]:
                continue  # most points are empty: skip the call
            t = self._land(p, d)
            if t < 0:
                continue
            if self.passb and depth == 1 and (self.bmask >> p) & 1:
                return nd  # covered by the other order, which reached depth 2
            self._make(depth, p, t)
            r = self._max(nxt, p if self.dbl else 25)
            self._unmake(depth)
            if r > best:
                best = r
                if r == nd:
                    return r
        return best

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
