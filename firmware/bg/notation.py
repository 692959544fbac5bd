"""Standard move notation, written exactly as GNU Backgammon writes it, and parsed back.

``format_play`` follows gnubg's ``FormatMove``: steps sorted by decreasing source, the moves
of one checker joined (an intermediate point is kept, with ``*``, only where it hit),
identical moves counted ``(2)``, ``bar``/``off`` for 25/0, ``*`` after a hit.

Example::

    >>> from bg import board, notation
    >>> pos = board.start_position()
    >>> notation.format_play(pos, 0, (8, 5, 6, 5))
    '8/5 6/5'
    >>> notation.format_play(pos, 0, (8, 5, 8, 5, 6, 5, 6, 5))
    '8/5(2) 6/5(2)'
    >>> notation.format_play(pos, 0, (24, 21, 21, 20))
    '24/20'
    >>> notation.parse_play('8/5 6/5', pos, 0)
    (8, 5, 6, 5)
"""


def _name(p):
    if p == 0:
        return "off"
    if p == 25:
        return "bar"
    return str(p)


def format_play(pos_before, side, steps):
    """The notation of ``steps`` (flat tuple, mover's numbering) played from ``pos_before``
    by ``side``; ``""`` for no move."""
    ob = 0 if side else 25  # opponent's half; its checkers on our point t: ob + 24 - t
    n = len(steps) // 2
    moves = []
    for i in range(n):
        moves.append([steps[2 * i], steps[2 * i + 1]])
    # decreasing source, then decreasing destination (gnubg's CompareMovesSimple)
    moves.sort(key=lambda m: (-m[0], -m[1]))

    def blot(t):
        return t and pos_before[ob + 24 - t]

    # combine the moves of one checker (a chain a/b, b/c); keep b only where it hit
    paths = [[m[0], m[1]] for m in moves]
    alive = [True] * n
    for i in range(n):
        for j in range(i, n):
            if alive[i] and alive[j] and i != j and paths[i][-1] == paths[j][0]:
                if blot(paths[i][-1]):
                    paths[i].append(paths[j][-1])
                else:
                    paths[i][-1] = paths[j][-1]
                alive[j] = False
    paths = [paths[i] for i in range(n) if alive[i]]
    # identical paths are counted
    counted = []
    for p in paths:
        for c in counted:
            if c[0] == p:
                c[1] += 1
                break
        else:
            counted.append([p, 1])
    out = []
    marked = 0
    for path, k in counted:
        s = _name(path[0])
        for mid in path[1:-1]:
            s += "/" + _name(mid) + "*"
            marked |= 1 << mid
        dest = path[-1]
        s += "/" + _name(dest)
        if dest and blot(dest) and not marked & (1 << dest):
            s += "*"
            marked |= 1 << dest
        if k > 1:
            s += "(%d)" % k
        out.append(s)
    return " ".join(out)


def _point(tok, text):
    t = tok.strip().lower().rstrip("*")
    if t in ("bar", "b"):
        return 25
    if t in ("off", "o"):
        return 0
    try:
        v = int(t)
    except ValueError:
        raise ValueError("bad point %r in %r" % (tok, text)) from None
    if not 0 <= v <= 25:
        raise ValueError("point %d out of range in %r" % (v, text))
    return v


def parse_hops(text):
    """Parse notation into checker paths ``[(points, count), ...]`` without a position:
    ``"13/7*/1 8/5(2)"`` -> ``[([13, 7, 1], 1), ([8, 5], 2)]``."""
    if not isinstance(text, str):
        raise ValueError("notation must be text")
    res = []
    for part in text.replace(",", " ").split():
        count = 1
        if part.endswith(")"):
            i = part.find("(")
            if i < 0:
                raise ValueError("bad count in %r" % text)
            try:
                count = int(part[i + 1 : -1])
            except ValueError:
                raise ValueError("bad count in %r" % text) from None
            if not 1 <= count <= 4:
                raise ValueError("bad count in %r" % text)
            part = part[:i]
        pts = [_point(x, text) for x in part.split("/")]
        if len(pts) < 2:
            raise ValueError("a move needs from/to: %r" % part)
        for a, b in zip(pts, pts[1:]):
            if b >= a:
                raise ValueError("moves go from high to low points: %r" % part)
        res.append((pts, count))
    return res


def parse_play(text, pos_before, side, dice=None):
    """Steps (flat tuple) for the notation ``text`` played by ``side`` from ``pos_before``.

    Without ``dice`` each written hop is one step (``24/20`` is the step 24->20). With
    ``dice=(d1, d2)`` the text must describe a legal play of that roll and the steps of that
    play are returned (``24/20`` with 3-1 gives ``(24, 21, 21, 20)``). Raises ValueError for
    malformed text or, with dice, a play that is not legal."""
    paths = parse_hops(text)
    steps = []
    for pts, count in paths:
        for _ in range(count):
            for a, b in zip(pts, pts[1:]):
                steps.append(a)
                steps.append(b)
    if len(steps) > 8:
        raise ValueError("more than four moves in %r" % text)
    if dice is None:
        return tuple(steps)
    from bg.board import apply_step
    from bg.engine import MoveGen

    d1, d2 = dice
    end = bytearray(pos_before)
    for i in range(0, len(steps), 2):
        apply_step(end, side, steps[i], steps[i + 1])
    got = MoveGen().recognize(pos_before, side, d1, d2, end)
    if got is None:
        raise ValueError("%r is not a legal play of %d-%d" % (text, d1, d2))
    return got
