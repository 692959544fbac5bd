"""The host's fast path for ``MoveGen.plays()`` (all distinct plays as bytes).

Kept out of ``bg.engine`` so the device never compiles it: it allocates freely (lists,
sets, bytes per play) in exchange for speed under CPython. The general search in
``bg.engine`` covers every case this module declines (returns None).
"""


def fast_plays(pos, side, d1, d2):
    """``plays()`` for the common cases where no checker can bear off this turn:

    * other rolls, nothing on the bar: every pair "larger die first", then from the
      smaller-die-first order only a checker moved by both dice through a point that was
      empty at the start (any other second step was legal at the start, so the larger-first
      order has it); results are deduplicated by position;
    * doubles: steps in non-increasing order of source; without bear-offs distinct step
      multisets give distinct positions.

    Returns None when the case is not covered (the general search handles it)."""
    mb = 24 if side else -1
    ob = 24 if side else 49
    out = 0
    for p in range(7, 26):
        out += pos[mb + p]
    if d1 == d2:
        if out < 4:
            return _near_home(pos, mb, ob, (d1, d1, d1, d1), out)
        return _fast_doubles(pos, mb, ob, d1)
    if out < 2:
        return _near_home(pos, mb, ob, (d1, d2) if d1 > d2 else (d2, d1), out)
    return _fast_other(pos, mb, ob, d1 if d1 > d2 else d2, d1 if d1 < d2 else d2)


def _fast_other(pos, mb, ob, b, s):
    w = bytearray(pos)
    res = []
    seen = set()
    bar = pos[mb + 25]
    if bar:
        a1 = [25] if w[ob - 25 + b] < 2 else []
        a2 = [25] if w[ob - 25 + s] < 2 else []
    else:
        a1 = [p for p in range(24, b, -1) if w[mb + p] and w[ob - p + b] < 2]
        a2 = [p for p in range(24, s, -1) if w[mb + p] and w[ob - p + s] < 2]
    if not bar:
        _other_nobar(pos, w, mb, ob, b, s, a1, a2, res, seen)
        if res:
            return res
    for first, second, firsts, prune in () if not bar else ((b, s, a1, None), (s, b, a2, a1)):
        for p1 in firsts:
            t1 = p1 - first
            w[mb + p1] -= 1
            h1 = w[ob - t1] == 1
            if h1:
                w[ob - t1] = 0
                w[ob] += 1
            w[mb + t1] += 1
            for q in (25,) if w[mb + 25] else range(24, second, -1):
                if not w[mb + q] or w[ob - q + second] >= 2:
                    continue
                if prune and q in prune:
                    continue  # legal at the start: the larger-first order has it
                t2 = q - second
                w[mb + q] -= 1
                h2 = w[ob - t2] == 1
                if h2:
                    w[ob - t2] = 0
                    w[ob] += 1
                w[mb + t2] += 1
                k = bytes(w)
                if k not in seen:
                    seen.add(k)
                    res.append(((p1, t1, q, t2), k))
                w[mb + t2] -= 1
                if h2:
                    w[ob] -= 1
                    w[ob - t2] = 1
                w[mb + q] += 1
            w[mb + t1] -= 1
            if h1:
                w[ob] -= 1
                w[ob - t1] = 1
            w[mb + p1] += 1
    if res:
        return res
    d = b if a1 else s
    for p in a1 or a2:
        t = p - d
        w[mb + p] -= 1
        h = w[ob - t] == 1
        if h:
            w[ob - t] = 0
            w[ob] += 1
        w[mb + t] += 1
        res.append(((p, t), bytes(w)))
        for i in range(52):
            w[i] = pos[i]
    return res


def _emit(w, mb, ob, steps, res, seen):
    """Apply the 2 steps of ``steps`` to ``w``, record the result if new, undo."""
    p1, t1, p2, t2 = steps
    w[mb + p1] -= 1
    h1 = w[ob - t1] == 1
    if h1:
        w[ob - t1] = 0
        w[ob] += 1
    w[mb + t1] += 1
    w[mb + p2] -= 1
    h2 = w[ob - t2] == 1
    if h2:
        w[ob - t2] = 0
        w[ob] += 1
    w[mb + t2] += 1
    k = bytes(w)
    if k not in seen:
        seen.add(k)
        res.append((steps, k))
    w[mb + t2] -= 1
    if h2:
        w[ob] -= 1
        w[ob - t2] = 1
    w[mb + p2] += 1
    w[mb + t1] -= 1
    if h1:
        w[ob] -= 1
        w[ob - t1] = 1
    w[mb + p1] += 1


def _other_nobar(pos, w, mb, ob, b, s, a1, a2, res, seen):
    """Two-step plays of a non-double with nothing on the bar and no bear-off possible.

    Pairs (larger die from p1, smaller from q) give distinct positions unless the second
    step cancels part of the first (q is where p1 landed, or q lands where p1 started);
    only those go through ``seen``."""
    app = res.append
    for p1 in a1:
        t1 = p1 - b
        i1 = mb + p1
        j1 = mb + t1
        o1 = ob - t1
        w[i1] -= 1
        h1 = w[o1] == 1
        if h1:
            w[o1] = 0
            w[ob] += 1
        w[j1] += 1
        alone = not w[i1]
        chain = t1 > s and not pos[j1] and w[o1 + s] < 2
        for q in a2 + [t1] if chain else a2:
            if q == p1 and alone:
                continue
            t2 = q - s
            iq = mb + q
            jq = mb + t2
            oq = ob - t2
            w[iq] -= 1
            w[jq] += 1
            if w[oq] == 1:
                w[oq] = 0
                w[ob] += 1
                k = bytes(w)
                w[ob] -= 1
                w[oq] = 1
            else:
                k = bytes(w)
            w[iq] += 1
            w[jq] -= 1
            if q == t1 or t2 == p1:
                if k in seen:
                    continue
                seen.add(k)
            app(((p1, t1, q, t2), k))
        w[j1] -= 1
        if h1:
            w[ob] -= 1
            w[o1] = 1
        w[i1] += 1
    # smaller die first: only a checker going on through a point empty at the start adds
    # anything (every other second step was legal at the start: see above)
    for p2 in a2:
        t2 = p2 - s
        if t2 > b and not pos[mb + t2] and w[ob - t2 + b] < 2:
            _emit(w, mb, ob, (p2, t2, t2, t2 - b), res, seen)


def _fast_doubles(pos, mb, ob, d):
    w = bytearray(pos)
    res = []
    app = res.append
    # points a checker may leave with this die (open landing); the bar first
    cand = [p for p in range(25, d, -1) if w[ob - p + d] < 2]
    nc = len(cand)
    bar_i = mb + 25
    bar_open = bool(cand) and cand[0] == 25
    lim = [4]  # play length wanted: 4, or fewer when 4 dice cannot all be played

    def go(depth, j, steps):
        if depth == lim[0]:
            app((steps, bytes(w)))
            return
        if w[bar_i]:
            # checkers on the bar enter first (the bar is cand[0] when it is open)
            if not bar_open or j:
                return
            end = 1
        else:
            end = nc
        nxt = depth + 1
        while j < end:
            p = cand[j]
            ip = mb + p
            if w[ip]:
                t = p - d
                it = mb + t
                io = ob - t
                w[ip] -= 1
                w[it] += 1
                if w[io]:
                    w[io] = 0
                    w[ob] += 1
                    go(nxt, j, steps + (p, t))
                    w[ob] -= 1
                    w[io] = 1
                else:
                    go(nxt, j, steps + (p, t))
                w[it] -= 1
                w[ip] += 1
            j += 1

    for n in (4, 3, 2, 1):
        lim[0] = n
        go(0, 0, ())
        if res:
            break
    return res


def _near_home(pos, mb, ob, dice, out0):
    """Any roll when a checker may bear off during the turn: a plain depth-first search with
    local state, deduplicated by position (doubles: non-increasing sources; other rolls: both
    orders, the second skipping second steps legal at the start)."""
    w = bytearray(pos)
    offi = 51 if mb == 24 else 50
    nd = len(dice)
    dbl = nd == 4
    res = []
    seen = set()
    st = [0] * 8
    best = [0]

    def land(p, d, out):
        if not w[mb + p] or (p != 25 and w[mb + 25]):
            return -1
        t = p - d
        if t > 0:
            return t if w[ob - t] < 2 else -1
        if out:
            return -1
        if t < 0:
            for q in range(p + 1, 7):
                if w[mb + q]:
                    return -1
        return 0

    def go(depth, hi, out, order, prune):
        if depth > best[0]:
            best[0] = depth
            del res[:]
            seen.clear()
        if depth == best[0] and depth:
            k = bytes(w)
            if k not in seen:
                seen.add(k)
                res.append((tuple(st[: 2 * depth]), k))
        if depth == nd:
            return
        d = order[depth]
        for p in range(hi, 0, -1):
            t = land(p, d, out)
            if t < 0:
                continue
            if prune is not None and depth == 1 and p in prune:
                if best[0] < 2:
                    best[0] = 2
                    del res[:]
                    seen.clear()
                continue
            w[mb + p] -= 1
            h = 0
            if t:
                if w[ob - t] == 1:
                    h = 1
                    w[ob - t] = 0
                    w[ob] += 1
                w[mb + t] += 1
            else:
                w[offi] += 1
            st[2 * depth] = p
            st[2 * depth + 1] = t
            go(depth + 1, p if dbl else 25, out - (1 if p > 6 and t <= 6 else 0), order, prune)
            if t:
                w[mb + t] -= 1
                if h:
                    w[ob] -= 1
                    w[ob - t] = 1
            else:
                w[offi] -= 1
            w[mb + p] += 1

    if dbl:
        go(0, 25, out0, dice, None)
        return res
    b, s = dice
    go(0, 25, out0, (b, s), None)  # the larger die first
    res_a, best_a = res[:], best[0]
    del res[:]
    seen.clear()
    best[0] = 0
    first_b = set(p for p in range(1, 26) if land(p, b, out0) >= 0)
    go(0, 25, out0, (s, b), first_b)  # the smaller die first
    if best_a == 2 or best[0] == 2:
        keys = set(k for _, k in res_a)
        return res_a + [x for x in res if len(x[0]) == 4 and x[1] not in keys]
    if best_a == 1:
        return res_a  # only one die: the larger, when it can move
    return res[:]
