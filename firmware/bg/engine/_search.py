"""Recognition (searches towards a given end position that stop early and allocate nothing
per visited play), on top of ``MoveGenVisit``. See ``bg.engine`` for the API."""

from bg.engine._visit import MoveGenVisit


class MoveGenSearch(MoveGenVisit):
    """Searches towards a given position."""

    def __init__(self):
        MoveGenVisit.__init__(self)
        self.sl = bytearray(26)  # recognition slack per point (see _slack)
        self.res = bytearray(8)  # steps of the play found by a search
        self.resn = 0
        self.endb = bytearray(52)  # first end position seen (forced())
        self.tgt = self.w
        self.mask = 0
        self.lift = 0
        self.multi = False

    def _slack(self, target):
        """sl[q] = (mover's checkers on points >= q now) - (same in target), q = 1..25.
        Checkers only move down, so a step p -> t is possible towards ``target`` only
        while every sl[q], t < q <= p, stays >= 1. False if already impossible."""
        w = self.w
        mb = self.mb
        cw = 0
        ct = 0
        for q in range(25, 0, -1):
            cw += w[mb + q]
            ct += target[mb + q]
            if ct > cw:
                return False
            self.sl[q] = cw - ct
        return True

    def _prune(self, p, t):
        """True when step p -> t cannot lead to self.tgt."""
        sl = self.sl
        for q in range(t + 1, p + 1):
            if not sl[q]:
                return True
        if t:
            o = self.ob - t
            if self.w[o] and self.tgt[o]:
                return True  # that blot is still there in the target: no hit allowed
        return False

    def _slack_add(self, p, t, v):
        sl = self.sl
        for q in range(t + 1, p + 1):
            sl[q] += v

    def _find(self, depth, hi):
        """Depth-first search for a legal play ending on self.tgt; steps go to self.res."""
        if depth == self.maxd:
            if self._leaf_ok(depth) and self.w == self.tgt:
                for i in range(8):
                    self.res[i] = self.st[i]
                self.resn = depth
                return True
            return False
        d = self.d[depth]
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
                continue
            if self._prune(p, t):
                continue
            self._make(depth, p, t)
            self._slack_add(p, t, -1)
            r = self._find(nxt, p if self.dbl else 25)
            self._slack_add(p, t, 1)
            self._unmake(depth)
            if r:
                return True
        return False

    def _complete(self, depth, hi):
        """True when some legal continuation from here reaches a full legal play."""
        if depth == self.maxd:
            return self._leaf_ok(depth)
        d = self.d[depth]
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
            self._make(depth, p, t)
            r = self._complete(nxt, p if self.dbl else 25)
            self._unmake(depth)
            if r:
                return True
        return False

    def recognize(self, start, side, d1, d2, end):
        """Steps of a legal play from ``start`` to ``end`` (``()`` if the turn passes and
        ``end == start``), or ``None`` when ``end`` is not reachable by a legal play."""
        self._setup(start, side, d1, d2)
        if self.maxd == 0:
            return () if self.w == end else None
        if not self._slack(end):
            return None
        self.tgt = end
        found = False
        for i in range(self._passes()):
            self._set_pass(i)
            if self._find(0, 25):
                found = True
                break
        self.tgt = self.w
        if not found:
            return None
        return tuple(self.res[: 2 * self.resn])
