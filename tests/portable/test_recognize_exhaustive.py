"""Recognition never returns COMPLETE for a wrong play: checked against the engine's full list
of distinct plays on random positions reached by play (contact, hits, bar, bear-off, doubles).

For every legal play's end reading: COMPLETE with exactly that end, or (when other legal ends
or unfinished plays read the same) a selection whose candidates are exactly the legal ends
with that reading. For mistaken ends (a legal end plus one wrong hand action): never COMPLETE
unless the sensors truly cannot tell the mistake from a legal end. MicroPython runs a modest
sample (its heap holds the engine's play list only for small positions).
"""

import gc

# everything through the helpers: their source compiles first, while the heap is empty
from recognize_helpers import MICROPYTHON, Lcg, bgboard, movegen, recognize

if MICROPYTHON:
    POSITIONS, MAX_PLAYS, SLOTS = 16, 24, (6,)
else:
    POSITIONS, MAX_PLAYS, SLOTS = 260, 10000, (5, 6)


class _Pick:
    """The k-th end ``for_each_end`` visits, copied out (no play list: small heaps)."""

    def __init__(self):
        self.k = 0
        self.out = bytearray(52)

    def visit(self, w, st, n):
        if self.k == 0:
            for i in range(52):
                self.out[i] = w[i]
        self.k -= 1


def _noop(w, st, n):
    pass


class _Distinct:
    """Distinct end positions through ``for_each_end`` (MicroPython: no host fast path)."""

    def __init__(self):
        self.seen = {}

    def visit(self, w, st, n):
        k = bytes(w)
        if k not in self.seen:
            self.seen[k] = 1


def _ends(start, side, d1, d2):
    if not MICROPYTHON:
        return [e for _, e in movegen.plays(start, side, d1, d2)]
    d = _Distinct()
    movegen.for_each_end(start, side, d1, d2, d.visit)
    return list(d.seen)


def _positions(rng, n):
    """``n`` (position, side, d1, d2, visits) reached by random legal play from the start."""
    out = []
    pick = _Pick()
    while len(out) < n:
        pos = bgboard.start_position()
        side = rng.below(2)
        for ply in range(300):
            d1 = rng.below(6) + 1
            d2 = rng.below(6) + 1
            nv = movegen.for_each_end(pos, side, d1, d2, _noop)
            if ply % 3 == 2:
                out.append((bytes(pos), side, d1, d2, nv))
                if len(out) == n:
                    break
            if nv:
                pick.k = rng.below(nv)
                movegen.for_each_end(pos, side, d1, d2, pick.visit)
                bgboard.copy_into(pos, pick.out)
            if pos[50 + side] == 15:
                break
            side ^= 1
    return out


def _reading(pos, caps, buf):
    return bytes(recognize.observe(pos, buf, caps))


def _mistake(rng, end, side):
    """A legal end spoiled by one wrong hand action, or None if this one cannot be done."""
    bad = bytearray(end)
    b = 25 * side
    o = 25 * (1 - side)
    kind = rng.below(4)
    src = [p for p in range(1, 26) if bad[b + p - 1]]
    if not src:
        return None
    p = src[rng.below(len(src))]
    if kind == 0:  # one checker one pip too far or too short
        q = p - 1 if rng.below(2) or p == 25 else p + 1
        if not 1 <= q <= 24 or bad[o + 25 - q - 1]:
            return None
        bad[b + p - 1] -= 1
        bad[b + q - 1] += 1
    elif kind == 1:  # a checker still in the hand
        bad[b + p - 1] -= 1
    elif kind == 2:  # an opponent's checker nudged
        osrc = [q for q in range(1, 25) if bad[o + q - 1]]
        if not osrc:
            return None
        q = osrc[rng.below(len(osrc))]
        t = q - 1 if q > 1 else q + 1
        if bad[b + 25 - t - 1]:
            return None
        bad[o + q - 1] -= 1
        bad[o + t - 1] += 1
    else:  # a checker borne off that is not allowed to be (or one extra in the tray)
        if p == 25:
            return None
        bad[b + p - 1] -= 1
        bad[50 + side] += 1
    return bad


def _check(slots, positions, rng):
    r = recognize.Recognizer(slots=slots)
    caps = r.caps
    buf = bytearray(28)
    n_complete = n_asked = n_mistakes = n_refused = checked = 0
    for start, side, d1, d2, visits in positions:
        if visits > MAX_PLAYS:
            continue
        gc.collect()
        checked += 1
        start = bytearray(start)
        ends = _ends(start, side, d1, d2)
        r.begin(start, side, d1, d2)
        by_reading = {}
        for end in ends:
            by_reading.setdefault(_reading(end, caps, buf), []).append(end)
        if not ends:
            assert r.state == recognize.NO_PLAY
        for end in ends:
            key = _reading(end, caps, buf)
            st = r.update(key)
            same = by_reading[key]
            assert r.ncand == len(same) or (r.overflow and r.ncand == recognize.MAX_CANDIDATES)
            for k in range(r.ncand):
                assert r.end(k) in same
            if st == recognize.COMPLETE:
                assert len(same) == 1 and r.end(0) == end
                got = bytearray(start)
                movegen.apply(got, side, r.confirm())
                assert bytes(got) == end
                n_complete += 1
            else:
                assert st in (recognize.AMBIGUOUS, recognize.WAITING, recognize.PARTIAL), st
                assert r.confirm() is None or st == recognize.AMBIGUOUS
                n_asked += 1
            bad = _mistake(rng, end, side)
            if bad is None:
                continue
            n_mistakes += 1
            key = _reading(bad, caps, buf)
            st = r.update(key)
            if key in by_reading:  # the sensors cannot see this mistake: it reads legal
                assert r.ncand == len(by_reading[key]) or r.overflow
            else:
                assert st not in (recognize.COMPLETE, recognize.AMBIGUOUS) and r.ncand == 0
                assert r.confirm() is None
                n_refused += 1
    return checked, n_complete, n_asked, n_mistakes, n_refused


def test_every_legal_end_and_mistakes():
    rng = Lcg(20261121)
    positions = _positions(rng, POSITIONS)
    for slots in SLOTS:
        checked, n_complete, n_asked, n_mistakes, n_refused = _check(slots, positions, rng)
        print(
            "slots",
            slots,
            "positions",
            checked,
            "complete",
            n_complete,
            "asked",
            n_asked,
            "mistakes",
            n_mistakes,
            "refused",
            n_refused,
        )
        assert checked >= POSITIONS // 2
        assert n_complete > 4 * checked  # most plays are recognised outright
        assert n_asked < n_complete // 10
        assert n_refused > n_mistakes // 2
