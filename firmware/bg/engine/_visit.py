"""The allocation-free visit of every maximal play (``for_each_end``, or in slices with
``start_ends``/``run_ends``), on top of ``MoveGenCore``: the engine's hot path, kept apart from
the searches built on it. See ``bg.engine`` for the API."""

from bg.engine._core import MoveGenCore, _no_visit


class MoveGenVisit(MoveGenCore):
    """Depth-first visit with inlined make/unmake, one loop per dice order: the device's
    generator (its recogniser, the computer's chooser, the check of a play another board or
    a host sends, the journal's packer). ``bg.engine.MoveGen`` adds the searches and hints on
    top."""

    def no_play(self, pos, side, d1, d2):
        """True when ``side`` cannot move at all with this roll (the turn passes)."""
        self._setup(pos, side, d1, d2)
        return self.maxd == 0

    def is_legal(self, pos, side, d1, d2, steps):
        """True when ``steps`` (flat tuple) is a legal play for this roll, in this order."""
        if len(steps) % 2:
            return False
        self._setup(pos, side, d1, d2)
        n = len(steps) // 2
        if n != self.maxd:
            return False
        # try every assignment of the dice to the steps (at most 2 orders)
        for i in range(self._passes()):
            self._set_pass(i)
            self.passb = False
            if self._follow(0, steps):
                return True
        return False

    def _follow(self, k, steps):
        if 2 * k == len(steps):
            return self._leaf_ok(k)
        p = steps[2 * k]
        t = steps[2 * k + 1]
        if not (1 <= p <= 25):
            return False
        ok = False
        land = self._land(p, self.d[k])
        if land >= 0 and land == t:
            self._make(k, p, t)
            ok = self._follow(k + 1, steps)
            self._unmake(k)
        return ok

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
            self._walk(0, 0)
            if self.stop:
                break
        self.visit = _no_visit
        self.stop = False
        return self.nvis

    def start_ends(self, pos, side, d1, d2, visit):
        """Begin the visit of ``for_each_end`` in slices, so that a caller on an event loop
        can let other tasks run between them: ``run_ends(n)`` visits up to ``n`` more plays.
        The same plays reach ``visit`` in the same order as ``for_each_end`` gives them.
        Any other query on this generator in between (``for_each_end``, ``no_play``...) ends
        the sliced visit: ``run_ends`` then raises ``RuntimeError``.

        >>> from bg.board import start_position
        >>> g = MoveGenVisit(); seen = []
        >>> g.start_ends(start_position(), 0, 1, 1, lambda e, s, n: seen.append(1))
        >>> g.run_ends(5), len(seen), g.run_ends(0), g.nvis == len(seen)
        (False, 5, True, True)
        """
        self._setup(pos, side, d1, d2)
        self.nvis = 0
        self.stop = False
        self.pas = 0
        self.sjob = self.jobs
        if self.maxd == 0:
            self.sjob = -1  # nothing to visit: run_ends is done at once
            return
        self.visit = visit
        self._set_pass(0)

    def run_ends(self, n):
        """Go on with the visit begun by ``start_ends`` for up to ``n`` more plays (0: to the
        end). Returns True when the visit is over (every play visited, or the visitor set
        ``stop``); allocates nothing."""
        if self.sjob < 0:
            return True
        if self.sjob != self.jobs:
            self.sjob = -1
            raise RuntimeError("the visit in slices was ended by another query")
        lim = self.nvis + n if n > 0 else 0
        while True:
            if self._walk(0, lim) < 0:
                return False  # paused after ``n`` plays: the state is in the buffers
            self.pas += 1
            if self.stop or self.pas >= self._passes():
                break
            self._set_pass(self.pas)
        self.sjob = -1
        self.visit = _no_visit
        self.stop = False
        return True
