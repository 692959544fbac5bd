"""The allocation-free visit of every maximal play (``for_each_end``), on top of
``MoveGenCore``: the engine's hot path, kept apart from the searches built on it. See
``bg.engine`` for the API."""

import micropython

from bg.engine._core import MoveGenCore, _no_visit


class MoveGenVisit(MoveGenCore):
    """Depth-first visit with inlined make/unmake."""

    @micropython.native
    def _visit(self, depth, hi):
        # the hot path of for_each_end (the board's recognizer runs it on every change):
        # one step's legality and make/unmake are written out here instead of calling
        # _land/_make/_unmake, which saves three calls per tried step on MicroPython; the
        # native emitter makes it ~25 % faster again (tools/bench_engine.py); elsewhere it
        # did not pay (attribute-bound code)
        if depth == self.maxd:
            if self._leaf_ok(depth):
                self.nvis += 1
                self.visit(self.w, self.st, depth)
            return
        w = self.w
        mb = self.mb
        ob = self.ob
        st = self.st
        if self.stop:
            return
        d = self.d[depth]
        lo = 25 if w[mb + 25] else 1
        nxt = depth + 1
        prune = self.bmask if self.passb and depth == 1 else 0
        dbl = self.dbl
        k = 2 * depth
        for p in range(hi, lo - 1, -1):
            if not w[mb + p]:
                continue
            t = p - d
            if t > 0:
                if w[ob - t] >= 2:
                    continue
            else:
                if self.out:
                    continue
                if t < 0:
                    q = p + 1
                    while q < 7 and not w[mb + q]:
                        q += 1
                    if q < 7:
                        continue  # a checker above: no bear-off with a larger die
                t = 0
            if (prune >> p) & 1:
                continue
            # make
            w[mb + p] -= 1
            far = p > 6 and t <= 6
            if far:
                self.out -= 1
            hit = 0
            if t:
                if w[ob - t]:
                    w[ob - t] = 0
                    w[ob] += 1
                    hit = 1
                w[mb + t] += 1
            else:
                w[self.offi] += 1
            st[k] = p
            st[k + 1] = t
            self._visit(nxt, p if dbl else 25)
            # unmake
            if t:
                w[mb + t] -= 1
                if hit:
                    w[ob] -= 1
                    w[ob - t] = 1
            else:
                w[self.offi] -= 1
            if far:
                self.out += 1
            w[mb + p] += 1
            if self.stop:
                return

    def for_each_end(self, pos, side, d1, d2, visit):
        """Call ``visit(endpos, steps_buf, nsteps)`` for every maximal legal play (the same
        end position may come more than once). ``endpos`` and ``steps_buf`` are this
        generator's buffers: read them, do not keep them. Nothing is called when there is no
        legal play. The visitor may set ``self.stop = True`` to end the walk early. Returns the
        number of calls."""
        self._setup(pos, side, d1, d2)
        self.nvis = 0
        self.stop = False
        if self.maxd == 0:
            return 0
        self.visit = visit
        for i in range(self._passes()):
            self._set_pass(i)
            self._visit(0, 25)
            if self.stop:
                break
        self.visit = _no_visit
        self.stop = False
        return self.nvis
