"""Prefixes, hints and forced plays, on top of the
recognition searches of ``MoveGenSearch``: what the LEDs need while a player moves. See
``bg.engine`` for the API."""

from bg.engine._search import MoveGenSearch


class MoveGen(MoveGenSearch):
    """A move generator with its own preallocated buffers (not re-entrant: one call at a
    time per instance). Methods: ``plays``, ``for_each_end`` (or in slices: ``start_ends``,
    ``run_ends``), ``recognize``, ``hints``,
    ``partial_ok``, ``no_play``, ``forced``, ``is_legal``, ``apply``, ``max_steps``; here the
    searches through the prefixes of legal plays. Import it from ``bg.engine``."""

    def max_steps(self, pos, side, d1, d2):
        """How many dice the roll lets ``side`` play (0..4)."""
        self._setup(pos, side, d1, d2)
        return self.maxd

    def plays(self, pos, side, d1, d2):
        """Every distinct legal play as ``(steps, resulting position as bytes)``, in
        generation order; ``[]`` when the turn passes. Host use (allocates the list)."""
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError("dice must be 1..6, got %d-%d" % (d1, d2))
        seen = {}
        out = []

        def visit(w, st, n):
            k = bytes(w)
            if k not in seen:
                seen[k] = 1
                out.append((tuple(st[: 2 * n]), k))

        self.for_each_end(pos, side, d1, d2, visit)
        return out

    def apply(self, pos, side, steps):
        """Apply ``steps`` to ``pos`` in place (hits go to the opponent's bar). Checks only
        that each step has a checker to move and an open landing point."""
        from bg.board import apply_step

        for i in range(0, len(steps), 2):
            apply_step(pos, side, steps[i], steps[i + 1])
        return pos

    def _chain(self, depth, f):
        """Hints: move the lifted checker from ``f`` with the next die, record landings
        from which the play can still be completed, and go on with the same checker."""
        if depth == self.maxd:
            return
        t = self._land(f, self.d[depth])
        if t < 0:
            return
        self._make(depth, f, t)
        if self._complete(depth + 1, 25):
            self.mask |= 1 << t
        if t:
            self._chain(depth + 1, t)
        self._unmake(depth)

    def _prefix(self, depth, hi):
        """Search the prefixes of legal plays for self.tgt (the current position). On a
        match: partial_ok mode (lift == 0) succeeds if the play can be completed; hints mode
        (lift = point) collects the lifted checker's destinations."""
        if self.w == self.tgt:
            if self.lift:
                self._chain(depth, self.lift)
                return False
            return self._complete(depth, 25)
        if depth == self.maxd:
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
            if self._prune(p, t):
                continue
            self._make(depth, p, t)
            self._slack_add(p, t, -1)
            r = self._prefix(nxt, p if self.dbl else 25)
            self._slack_add(p, t, 1)
            self._unmake(depth)
            if r:
                return True
        return False

    def partial_ok(self, start, side, d1, d2, current):
        """True when ``current`` is ``start`` after a prefix (possibly all, possibly none)
        of some legal play's steps, taken in a legal order."""
        self._setup(start, side, d1, d2)
        if self.maxd == 0:
            return self.w == current
        if not self._slack(current):
            return False
        self.tgt = current
        self.lift = 0
        ok = False
        for i in range(self._passes()):
            self._set_pass(i)
            self.passb = False  # prefixes may take any order
            if self._prefix(0, 25):
                ok = True
                break
        self.tgt = self.w
        return ok

    def hints(self, start, side, d1, d2, current, from_point):
        """Bitmask of the points (bit 0 = off, bits 1..24 = the mover's points) where a
        checker lifted from ``from_point`` (25 = bar) may be put down, given the steps already
        taken (``current``): the landing after one or more dice of that checker from which
        the play can still be completed legally. 0 when ``current`` is not a legal prefix."""
        if not 1 <= from_point <= 25:
            raise ValueError("from_point must be 1..25")
        self._setup(start, side, d1, d2)
        if self.maxd == 0 or not self._slack(current):
            return 0
        self.tgt = current
        self.lift = from_point
        self.mask = 0
        for i in range(self._passes()):
            self._set_pass(i)
            self.passb = False
            self._prefix(0, 25)
        self.lift = 0
        self.tgt = self.w
        return self.mask

    def _forced_visit(self, w, st, n):
        if self.nvis == 1:
            for i in range(52):
                self.endb[i] = w[i]
            for i in range(8):
                self.res[i] = st[i]
            self.resn = n
        elif not self.multi and w != self.endb:
            self.multi = True
            self.stop = True  # a second distinct end: not forced, stop walking

    def forced(self, pos, side, d1, d2):
        """The steps of the only play when every legal play ends on the same position;
        ``()`` when there is no legal play (the turn passes); ``None`` when there is a
        choice."""
        self.multi = False
        n = self.for_each_end(pos, side, d1, d2, self._forced_visit)
        if n == 0:
            return ()
        if self.multi:
            return None
        return tuple(self.res[: 2 * self.resn])
