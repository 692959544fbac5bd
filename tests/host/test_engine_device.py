"""The device-side searches (recognize, hints, partial_ok, forced, no_play, is_legal)
against a naive reference that lists every legal sequence of steps in every order."""

import random

from bg import board, ids
from bg import engine as movegen
from test_engine_oracle import _positions


def _steps_for(w, side, d):
    """Legal single steps (from, to) of ``side`` with die ``d`` in ``w`` (rules written out
    plainly, independently of the engine)."""
    b = 25 if side else 0
    opp = 0 if side else 25
    out = []
    bar = w[b + 24]
    home = all(w[b + i] == 0 for i in range(6, 25))
    for p in range(25, 0, -1):
        if not w[b + p - 1] or (bar and p != 25):
            continue
        t = p - d
        if t >= 1:
            if w[opp + 24 - t] < 2:
                out.append((p, t))
        elif home:
            if t == 0 or all(w[b + q - 1] == 0 for q in range(p + 1, 7)):
                out.append((p, 0))
    return out


def naive_sequences(pos, side, d1, d2):
    """Every maximal legal sequence as (steps [(from, to, die)], states [start, ...])."""
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    seqs = []

    def rec(w, remaining, steps, states):
        moved = False
        for d in sorted(set(remaining)):
            for p, t in _steps_for(w, side, d):
                w2 = bytearray(w)
                board.apply_step(w2, side, p, t)
                rem = list(remaining)
                rem.remove(d)
                rec(w2, rem, steps + [(p, t, d)], states + [bytes(w2)])
                moved = True
        if not moved:
            seqs.append((steps, states))

    rec(bytearray(pos), dice, [], [bytes(pos)])
    n = max(len(s) for s, _ in seqs)
    seqs = [x for x in seqs if len(x[0]) == n]
    if n == 1 and d1 != d2:
        big = max(d1, d2)
        if any(s[0][2] == big for s, _ in seqs):
            seqs = [x for x in seqs if x[0][0][2] == big]
    return n, seqs


def _naive_hints(seqs, current, f):
    mask = 0
    for steps, states in seqs:
        for k in range(len(states)):
            if states[k] != current:
                continue
            at = f
            j = k
            while j < len(steps) and steps[j][0] == at:
                mask |= 1 << steps[j][1]
                at = steps[j][1]
                j += 1
                if at == 0:
                    break
    return mask


def test_device_searches_match_naive_reference():
    rng = random.Random(7)
    gen = movegen.MoveGen()
    checked = hinted = 0
    for pos, side, d1, d2 in _positions(6000, 99):
        if rng.random() > 0.12:
            continue
        pos = bytes(pos)
        plays = gen.plays(pos, side, d1, d2)
        if d1 == d2 and len(plays) > 40:
            continue
        n, seqs = naive_sequences(pos, side, d1, d2)
        ends = {st[-1] for _, st in seqs}
        tag = (ids.position_id(pos, side), d1, d2)
        if n == 0:
            assert plays == [] and gen.no_play(pos, side, d1, d2), tag
            assert gen.forced(pos, side, d1, d2) == ()
            assert gen.recognize(pos, side, d1, d2, pos) == ()
            continue
        assert not gen.no_play(pos, side, d1, d2)
        assert {k for _, k in plays} == ends, tag
        f = gen.forced(pos, side, d1, d2)
        if len(ends) == 1:
            assert f is not None and gen.recognize(pos, side, d1, d2, next(iter(ends))) is not None
            w = bytearray(pos)
            gen.apply(w, side, f)
            assert bytes(w) in ends, tag
        else:
            assert f is None, tag
        for steps, end in plays:
            got = gen.recognize(pos, side, d1, d2, end)
            assert got is not None, tag
            assert gen.is_legal(pos, side, d1, d2, got), (tag, got)
            w = bytearray(pos)
            gen.apply(w, side, got)
            assert bytes(w) == end, (tag, got)
            assert gen.is_legal(pos, side, d1, d2, steps), (tag, steps)
        # positions that are not the end of a legal play are refused
        prefixes = {s for _, st in seqs for s in st}
        for _steps, states in seqs[:3]:
            for s in states[:-1]:
                if s not in ends:
                    assert gen.recognize(pos, side, d1, d2, s) is None, tag
        for p, t in _steps_for(bytearray(pos), side, rng.randint(1, 6)):
            w = bytearray(pos)
            board.apply_step(w, side, p, t)
            w = bytes(w)
            assert gen.partial_ok(pos, side, d1, d2, w) == (w in prefixes), (tag, p, t)
            if w not in ends:
                assert gen.recognize(pos, side, d1, d2, w) is None, tag
        # prefixes and hints
        sample = list(prefixes)
        rng.shuffle(sample)
        for cur in sample[:6]:
            assert gen.partial_ok(pos, side, d1, d2, cur), tag
            b = 25 if side else 0
            for f_pt in range(1, 26):
                if cur[b + f_pt - 1]:
                    want = _naive_hints(seqs, cur, f_pt)
                    assert gen.hints(pos, side, d1, d2, cur, f_pt) == want, (
                        tag,
                        ids.position_id(cur, side),
                        f_pt,
                        bin(want),
                    )
                    hinted += 1
        checked += 1
    assert checked > 500 and hinted > 5000, (checked, hinted)
