"""The allocation-free visit of every maximal play (``for_each_end``), on top of
``MoveGenCore``: the engine's hot path, kept apart from the searches built on it. See
``bg.engine`` for the API."""

from bg.engine._core import MoveGenCore, _no_visit


class MoveGenVisit(MoveGenCore):
    """Depth-first visit with inlined make/unmake, one loop per dice order."""

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
            self._walk(0)
            if self.stop:
                break
        self.visit = _no_visit
        self.stop = False
        return self.nvis
