"""Recognition in slices (``Recognizer.feed`` + ``work(n)``, on the engine's
``start_ends``/``run_ends``) gives exactly what ``update`` gives, whatever the slice size, a
new reading half-way, or another query on the same generator between slices.

The app's recognition task (app.main) runs it this way so the worst position (1-1, 2,140 plays)
never holds the event loop at once: docs/performance.md.
"""

import gc

from recognize_helpers import Lcg, bgboard, movegen, position, recognize

# readings: the start, a finished play, a lifted checker, half a play, a mistake


def _worst():
    return position(
        {3: 1, 4: 1, 6: 1, 7: 1, 9: 1, 10: 1, 12: 1, 13: 1, 15: 1, 16: 1, 17: 1, 19: 1, 20: 1, 22: 1, 23: 1},
        {1: 2},
    )


class _Pick:
    """The ``k``-th end the engine visits and its steps, copied out (no list: small heaps)."""

    def __init__(self):
        self.k = 0
        self.end = bytearray(52)
        self.steps = bytearray(8)
        self.n = 0

    def visit(self, w, st, n):
        if self.k == 0:
            for i in range(52):
                self.end[i] = w[i]
            for i in range(8):
                self.steps[i] = st[i]
            self.n = n
        self.k -= 1


class _Trace:
    """A running hash of every end and steps visited, in order (no list: small heaps)."""

    def __init__(self):
        self.h = 0
        self.n = 0

    def visit(self, w, st, n):
        h = self.h
        for i in range(52):
            h = (h * 33 + w[i]) & 0xFFFFFFF
        for i in range(2 * n):
            h = (h * 33 + st[i] + 7) & 0xFFFFFFF
        self.h = h
        self.n += 1


def _nth(start, side, d1, d2, k):
    p = _Pick()
    p.k = k
    movegen.for_each_end(start, side, d1, d2, p.visit)
    return p


def _fields(r):
    return (
        r.state,
        r.ncand,
        r.overflow,
        r.npartial,
        r.pending,
        r.hints,
        r.lifted,
        r.missing,
        r.extra,
        tuple(r.end(k) for k in range(r.ncand)),
        bytes(r._t[84:112]),  # the last reading in a legal state (bg.recognize's _REF table)
    )


def _readings(start, side, d1, d2, rng, k):
    """``k`` readings of this turn: ends of legal plays, ends with one checker lifted back
    off, a first step only, and the start."""
    nv = movegen.for_each_end(start, side, d1, d2, _Trace().visit)
    caps = recognize.make_caps()
    out = [recognize.observe(start, bytearray(28), caps)]
    for _ in range(k):
        if not nv:
            break
        p = _nth(start, side, d1, d2, rng.below(nv))
        obs = recognize.observe(p.end, bytearray(28), caps)
        kind = rng.below(3)
        if kind == 1:  # a checker of the play still in the hand: one row reads one short
            rows = [x for x in range(28) if obs[x]]
            obs[rows[rng.below(len(rows))]] -= 1
        elif kind == 2:  # the first step only
            half = bytearray(start)
            bgboard.apply_step(half, side, p.steps[0], p.steps[1])
            obs = recognize.observe(half, bytearray(28), caps)
        out.append(obs)
    return out


def _positions(rng, n):
    out = [(_worst(), 0, 1, 1)]
    while len(out) < n:
        pos = bgboard.start_position()
        side = rng.below(2)
        for ply in range(200):
            d1 = rng.below(6) + 1
            d2 = rng.below(6) + 1
            if ply % 5 == 4:
                out.append((bytearray(pos), side, d1, d2))
                if len(out) == n:
                    break
            nv = movegen.for_each_end(pos, side, d1, d2, _Trace().visit)
            if nv:
                bgboard.copy_into(pos, _nth(pos, side, d1, d2, rng.below(nv)).end)
            if pos[50 + side] == 15:
                break
            side ^= 1
    return out


def _sliced(r, start, side, d1, d2, obs, n):
    r.begin(start, side, d1, d2, defer=True)
    slices = 0
    while not r.work(n):
        slices += 1
    if r.feed(obs):
        assert r.busy
        while not r.work(n):
            slices += 1
    assert not r.busy
    return slices


def test_slices_of_any_size_give_what_update_gives():
    rng = Lcg(4242)
    whole = recognize.Recognizer()
    part = recognize.Recognizer()
    gc.collect()
    checked = sliced = 0
    for start, side, d1, d2 in _positions(rng, 24):
        gc.collect()
        for obs in _readings(start, side, d1, d2, rng, 4):
            whole.begin(start, side, d1, d2)
            want = whole.update(obs)
            for n in (1, 7, 128):
                sliced += _sliced(part, start, side, d1, d2, obs, n)
                assert _fields(part) == _fields(whole), (bytes(start), side, d1, d2, bytes(obs), n)
                assert part.state == want
                checked += 1
    assert checked > 150
    assert sliced > 1000  # the slices really paused (the worst position alone: 2,140 plays)


def test_the_worst_position_pauses_and_finishes():
    r = recognize.Recognizer()
    start = _worst()
    first = _nth(start, 0, 1, 1, 0).end
    obs = recognize.observe(first, bytearray(28), r.caps)
    r.begin(start, 0, 1, 1)
    assert r.feed(obs) and r.busy
    before = r.state
    n = 0
    while not r.work(100):
        n += 1
        assert r.busy and r.state == before  # the previous reading's answer until done
    assert n >= 20  # 2,140 plays in slices of 100
    assert r.state == recognize.COMPLETE and r.ncand == 1
    assert r.end(0) == bytes(first)
    assert not r.feed(obs)  # the same reading again: nothing to do, the answer kept


def test_a_new_reading_half_way_drops_the_old_search():
    r = recognize.Recognizer()
    ref = recognize.Recognizer()
    start = _worst()
    first = recognize.observe(_nth(start, 0, 1, 1, 0).end, bytearray(28), r.caps)
    second = recognize.observe(_nth(start, 0, 1, 1, 2).end, bytearray(28), r.caps)
    r.begin(start, 0, 1, 1)
    assert r.feed(first)
    assert not r.work(50)
    assert r.feed(second)  # a checker moved again before the first answer
    while not r.work(50):
        pass
    ref.begin(start, 0, 1, 1)
    ref.update(second)
    assert _fields(r) == _fields(ref)


def test_update_with_the_reading_being_worked_on_finishes_it():
    r = recognize.Recognizer()
    start = _worst()
    obs = recognize.observe(_nth(start, 0, 1, 1, 0).end, bytearray(28), r.caps)
    r.begin(start, 0, 1, 1)
    assert r.feed(obs)
    assert not r.work(10)
    assert r.update(obs) == recognize.COMPLETE and not r.busy


def test_another_query_between_slices_restarts_the_search_not_corrupts_it():
    r = recognize.Recognizer()
    ref = recognize.Recognizer()
    start = _worst()
    obs = recognize.observe(_nth(start, 0, 1, 1, 4).end, bytearray(28), r.caps)
    r.begin(start, 0, 1, 1)
    assert r.feed(obs)
    assert not r.work(300)
    # someone else uses the recogniser's generator (its buffers) between two slices
    assert r.gen.no_play(bgboard.start_position(), 1, 6, 5) is False
    while not r.work(300):
        pass
    ref.begin(start, 0, 1, 1)
    ref.update(obs)
    assert _fields(r) == _fields(ref)


def test_the_engine_refuses_to_go_on_after_another_query():
    g = movegen.MoveGen()
    g.start_ends(_worst(), 0, 1, 1, lambda w, st, n: None)
    assert not g.run_ends(10)
    g.max_steps(bgboard.start_position(), 0, 3, 1)
    try:
        g.run_ends(10)
    except RuntimeError:
        assert g.run_ends(10)  # the sliced visit is over: nothing more to do
        return
    raise AssertionError("a visit whose buffers were reused went on")


def test_engine_slices_visit_the_same_plays_in_the_same_order():
    rng = Lcg(77)
    g = movegen.MoveGen()
    for start, side, d1, d2 in _positions(rng, 12):
        whole = _Trace()
        g.for_each_end(start, side, d1, d2, whole.visit)
        for n in (1, 3, 50):
            part = _Trace()
            g.start_ends(start, side, d1, d2, part.visit)
            while not g.run_ends(n):
                pass
            assert (part.h, part.n) == (whole.h, whole.n)
            assert g.nvis == whole.n


def test_a_visitor_stop_ends_a_sliced_visit():
    g = movegen.MoveGen()
    seen = [0]

    def visit(w, st, n):
        seen[0] += 1
        if seen[0] == 30:
            g.stop = True

    g.start_ends(_worst(), 0, 1, 1, visit)
    while not g.run_ends(7):
        pass
    assert seen[0] == 30 and not g.stop


def test_no_legal_play_is_over_at_once():
    g = movegen.MoveGen()
    closed = position({1: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}, bar0=1)
    g.start_ends(closed, 0, 6, 6, lambda w, st, n: None)
    assert g.run_ends(1) and g.nvis == 0
