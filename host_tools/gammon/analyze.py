"""Cube-decision analysis for ``gammon analyze``: every double, take, drop and beaver of a match,
and every turn where the player on roll could have doubled and did not, rated against the best
cube action. The in-process ``gnubg`` module evaluates the position (cubeless win/gammon/
backgammon chances at the chosen depth, gammon prices and match equity at the match score);
its ``analyse match`` hangs in the PyPI build and ``gnubg.evaluate`` returns cubeless equity
only, so the cubeful equities come from the model gnubg itself uses for 0-ply cube decisions
(Janowski's live/dead cube interpolation with cube efficiency ``CUBE_X``), in equity
normalised to the cube before the decision (as gnubg reports cube errors).

Example::

    >>> from gammon import analyze, model
    >>> per, errors = analyze.analyze_cube(model.load_match(data))  # a 5-point match
    >>> per[1]            # side 1: [cube decisions, total equity lost]
    [43, 0.76...]
    >>> errors[0].text    # the biggest one
    'Bob doubled to 2: right was no double'
"""

from gammon import model  # noqa: I001  (puts firmware/ on sys.path for bg)
from bg import ids as bgids
from gammon.errors import MissingPackage

CUBE_X = 0.68  # cube efficiency of gnubg's 0-ply cube model for contact positions
CUBE_KINDS = (model.DOUBLE, model.TAKE, model.DROP, model.BEAVER)  # the recorded cube actions
CLOSE = 0.1  # a no-double counts as a decision when doubling was within this of right


class CubeError:
    """One rated cube decision: ``error`` (equity lost, >= 0, normalised to the cube before
    it), ``side`` (who decided), ``game``, ``action`` (the double/take/drop/beaver action,
    or the play after a no-double), ``doubler`` (the side on roll), ``kind`` ("double",
    "no double", "take", "drop", "beaver"), ``best`` (the right action) and ``text``."""

    __slots__ = ("error", "side", "game", "action", "doubler", "kind", "best", "text", "equities")

    def __init__(self, error, side, game, action, doubler, kind, best, text, equities):
        self.error = error
        self.side = side
        self.game = game
        self.action = action
        self.doubler = doubler
        self.kind = kind
        self.best = best
        self.text = text
        self.equities = equities

    def __repr__(self):
        return "CubeError(%.3f, %r)" % (self.error, self.text)


def _live(p, rw, rl, owner, me):
    """Janowski's live-cube equity (gnubg's ``MoneyLive``), per unit cube, for the side on roll
    ``me`` with the cube centred (-1), owned by ``me`` or by the opponent."""
    tp = (rl - 0.5) / (rw + rl + 0.5)  # the take point
    cp = (rl + 1.0) / (rw + rl + 0.5)  # the cash point
    if owner == -1:
        if p < tp:
            return -rl + (rl - 1.0) * p / tp
        if p < cp:
            return -1.0 + 2.0 * (p - tp) / (cp - tp)
        return rw + (1.0 - rw) * (p - 1.0) / (cp - 1.0)
    if owner == me:
        if p < cp:
            return -rl + (1.0 + rl) * p / cp
        return rw + (1.0 - rw) * (p - 1.0) / (cp - 1.0)
    if p < tp:
        return -rl + (rl - 1.0) * p / tp
    return -1.0 + (rw + 1.0) * (p - tp) / (1.0 - tp)


def cubeful(probs, prices, owner, me, x):
    """Cubeful equity per unit cube from gnubg's cubeless ``probs`` (win, win gammon, win
    backgammon, lose gammon, lose backgammon; gammons include backgammons) and gammon/
    backgammon ``prices`` ``((g_me, b_me), (g_opp, b_opp))``: ``x`` live + ``1 - x`` dead."""
    p, wg, wb, lg, lb = probs[:5]
    p = min(max(p, 1e-6), 1.0 - 1e-6)
    (gm, bm), (go, bo) = prices
    rw = 1.0 + (gm * wg + bm * wb) / p
    rl = 1.0 + (go * lg + bo * lb) / (1.0 - p)
    dead = p * rw - (1.0 - p) * rl
    if x <= 0.0:
        return dead
    return x * _live(p, rw, rl, owner, me) + (1.0 - x) * dead


class _Evaluator:
    """Cube equities of one position at one score: ``nd``, ``dt``, ``dp`` (and ``db`` for a
    beaver) from the doubler's side, normalised to the cube before the double."""

    def __init__(self, gnubg, ec, m, g, pos, side, cube, owner, x=CUBE_X):
        self.gnubg = gnubg
        self.x = x  # the cube's efficiency (gnubg's for the position's class: ``cube_x``)
        self.m = m
        self.g = g
        self.side = side
        self.cube = cube
        self.owner = owner
        board = gnubg.positionfromid(bgids.position_id(pos, side))
        ci = self._ci(cube, owner)
        self.probs = gnubg.evaluate(board, ci, ec)[:5]
        self.nd = self._eq(cube, owner)
        self.dt = self._eq(2 * cube, 1 - side)
        self.dp = 1.0
        self.db = 2.0 * self.dt  # beaver: the cube at 4x, owned by the taker

    def _ci(self, cube, owner):
        g = self.g
        return self.gnubg.cubeinfo(cube, owner, self.side, self.m.length, tuple(g.score), int(g.crawford), 0)

    def _away(self, s):
        return self.m.length - self.g.score[s]

    def _eq(self, cube, owner):
        me = self.side
        if self.m.money:
            gp = 0.0 if (self.m.jacoby and owner == -1) else 1.0
            eq = cubeful(self.probs, ((gp, gp), (gp, gp)), owner, me, self.x)
            return eq * cube / self.cube
        ci = self._ci(cube, owner)
        (g0, b0), (g1, b1) = ci["gammonprice"]
        prices = ((g0, b0), (g1, b1)) if me == 0 else ((g1, b1), (g0, b0))
        # a redouble is worth nothing once the cube covers what its holder needs
        live = [s for s in (0, 1) if owner in (-1, s) and cube < self._away(s)]
        x = self.x if live else 0.0
        eq = cubeful(self.probs, prices, owner, me, x)
        mwc = self.gnubg.eq2mwc(eq, ci)
        return self.gnubg.mwc2eq(mwc, self._ci(self.cube, self.owner))

    def best_response(self):
        """The taker's best answer and its equity (doubler's side)."""
        answers = [("take", self.dt), ("drop", self.dp)]
        if self.m.beaver and self.m.money:
            answers.append(("beaver", self.db))
        return min(answers, key=lambda kv: kv[1])

    def equities(self):
        return {"no double": self.nd, "double/take": self.dt, "double/drop": self.dp}


def _evaluator(gnubg, ec, m, g, a, side):
    return _Evaluator(gnubg, ec, m, g, a.pos, side, a.cube, a.owner)


def _can_double(m, g, a):
    if g.crawford or a.owner not in (-1, a.side):
        return False
    if m.money:
        return True
    # at a match score a double past what the doubler needs is pointless
    return a.cube < m.length - g.score[a.side] and a.cube < 64


def analyze_cube(m, plies=0, gnubg=None):
    """Rate every cube decision of match ``m``. Returns ``(per_side, errors)``:
    ``per_side[s] = (decisions, total_error)``; ``errors`` the :class:`CubeError` list, biggest
    first (errors of 0 included for the decisions that were right)."""
    if gnubg is None:
        import gnubg
    ec = gnubg.evalcontext(0, plies, 1, 1, 0.0)
    per = [[0, 0.0], [0, 0.0]]
    out = []

    def add(err, side, g, a, doubler, kind, best, text, ev):
        err = max(0.0, err)
        per[side][0] += 1
        per[side][1] += err
        out.append(CubeError(err, side, g, a, doubler, kind, best, text, ev.equities()))

    names = m.names
    for g in m.games:
        ev = None
        doubled = False
        for a in g.actions:
            if a.kind == model.DOUBLE:
                ev = _evaluator(gnubg, ec, m, g, a, a.side)
                answer, d_eq = ev.best_response()
                right = "double" if min(ev.dt, ev.dp) > ev.nd else "no double"
                text = "%s doubled to %d: right was %s" % (names[a.side], a.value, right)
                add(
                    max(ev.nd, min(ev.dt, ev.dp)) - min(ev.dt, ev.dp),
                    a.side,
                    g,
                    a,
                    a.side,
                    "double",
                    right,
                    text,
                    ev,
                )
                doubled = True
            elif a.kind in (model.TAKE, model.DROP, model.BEAVER) and ev is not None:
                chosen = {model.TAKE: ev.dt, model.DROP: ev.dp, model.BEAVER: ev.db}[a.kind]
                best, best_eq = ev.best_response()
                text = "%s %s the cube at %d: right was %s" % (
                    names[a.side],
                    {model.TAKE: "took", model.DROP: "dropped", model.BEAVER: "beavered"}[a.kind],
                    a.value,
                    best,
                )
                add(chosen - best_eq, a.side, g, a, 1 - a.side, a.kind, best, text, ev)
                ev = None
            elif a.kind == model.PLAY:
                if not doubled and not a.opening and _can_double(m, g, a):
                    nev = _evaluator(gnubg, ec, m, g, a, a.side)
                    d_eq = min(nev.dt, nev.dp)
                    if d_eq > nev.nd - CLOSE:
                        text = "%s did not double at cube %d: right was %s" % (
                            names[a.side],
                            a.cube,
                            "double" if d_eq > nev.nd else "no double",
                        )
                        add(
                            d_eq - nev.nd,
                            a.side,
                            g,
                            a,
                            a.side,
                            "no double",
                            "double" if d_eq > nev.nd else "no double",
                            text,
                            nev,
                        )
                doubled = False
    out.sort(key=lambda e: -e.error)
    return per, out


# ---------------------------------------------------------------- chequer play


def _gnubg():
    try:
        import gnubg
    except ImportError:
        raise MissingPackage("analysis needs GNU Backgammon's Python module: pip install gnubg") from None
    return gnubg


def play_judge(plies=0):
    """``judge(m, g, a)`` for one play ``a`` of game ``g`` of match ``m``: ``(error, best)``,
    the equity the play lost against GNU Backgammon's best play at the game's score and cube
    (>= 0) and that play in gnubg notation, or None when the roll left no choice. Raises
    ``gammon.errors.MissingPackage`` without the ``gnubg`` module. ``gammon analyze`` and ``gammon watch
    --learn`` both judge with it.

    >>> from gammon import model
    >>> judge = play_judge()                      # doctest: +SKIP
    >>> judge(m, m.games[0], m.games[0].actions[1])  # doctest: +SKIP
    (0.0, '8/5 6/5')
    """
    gnubg = _gnubg()
    from bg import notation

    ec = gnubg.evalcontext(1, plies, 1, 1, 0.0)

    def judge(m, g, a):
        if a.kind != "play" or not a.steps:
            return None
        ci = gnubg.cubeinfo(a.cube, a.owner, a.side, m.length, tuple(g.score), int(g.crawford), 0)
        moves = gnubg_moves(gnubg, ec, ci, a.pos, a.side, a.dice)
        if len(moves) < 2:
            return None
        mine = [score for score, _steps, end in moves if end == a.after]
        if not mine:
            return None
        err = max(0.0, moves[0][0] - mine[0])
        return err, notation.format_play(a.pos, a.side, moves[0][1])

    return judge


def analyze(m, plies=0, top=3):
    """Chequer-play analysis with GNU Backgammon's evaluator (in-process ``gnubg``): for each
    play with a choice, the equity lost against gnubg's best play (``play_judge``). Returns
    ``(per_side, worst)``: ``per_side[s] = (decisions, total_error)``; ``worst`` the ``top``
    biggest errors as ``(error, game, action, best_text)``."""
    judge = play_judge(plies)
    per = [[0, 0.0], [0, 0.0]]
    errors = []
    for g in m.games:
        for a in g.actions:
            got = judge(m, g, a)
            if got is None:
                continue
            err, best = got
            per[a.side][0] += 1
            per[a.side][1] += err
            errors.append((err, g, a, best))
    errors.sort(key=lambda e: -e[0])
    return per, errors[:top]


def gnubg_moves(gnubg, ec, ci, pos, side, dice):
    """GNU Backgammon's ranked plays (``gnubg.findbestmoves`` with cube ``ci``) for ``side``
    and ``dice`` as ``[(score, steps, end position)]``, best first, each play whole.

    The Python module's move tuple stops at the first checker borne off (gnubg's C array
    marks both "off" and its own end with -1), so a play that bears off before its last step
    comes back cut short. Such a play is the engine's legal play (``bg.engine``) that no
    other of gnubg's plays reaches and that continues the cut steps (the position after them
    leads to it: each of the mover's checkers as far or further, none of the opponent's
    come back from the bar); when several share the same cut steps, gnubg's scores go to
    them in the order of gnubg's own evaluation of the position each leaves
    (``gnubg.evaluate``, cubeless). A cut play it cannot place is left out."""
    from bg import engine as movegen

    moves = gnubg.findbestmoves(gnubg.positionfromid(bgids.position_id(pos, side)), ci, ec, tuple(dice))
    legal = {end: steps for steps, end in movegen.plays(pos, side, dice[0], dice[1])}
    out = [None] * len(moves)
    taken = set()
    cut = {}
    for i, mv in enumerate(moves):
        steps = _gnubg_steps(mv["move"])
        try:
            end = bytes(movegen.apply(bytearray(pos), side, steps))
        except ValueError:
            continue  # not a play of this position (cannot happen with gnubg's own moves)
        if end in legal and end not in taken:
            out[i] = (mv["score"], legal[end], end)
            taken.add(end)
        else:
            cut.setdefault(end, []).append(i)
    for part, idx in cut.items():
        ends = [e for e in legal if e not in taken and _continues(part, e, side)]
        if len(ends) != len(idx):
            continue  # cannot tell which play gnubg meant: left out
        if len(ends) > 1:  # best for the mover first: worst for the opponent on roll
            ends.sort(key=lambda e: _equity(gnubg, ec, ci, e, 1 - side))
        for i, e in zip(idx, ends):
            out[i] = (moves[i]["score"], legal[e], e)
            taken.add(e)
    return [x for x in out if x is not None]


def _continues(part, end, side):
    """True when the position ``end`` can follow ``part`` (the cut play's position) by more
    steps of ``side``: for every point, at least as many of its checkers at or past it
    (borne off included), and the opponent's checkers the same but for more hit ones."""
    from bg import board as B

    ahead_part = ahead_end = 0
    for q in range(0, 26):  # 0 = off, 25 = bar: "at or past q" counts points 0..q
        ahead_part += B.count(part, side, q)
        ahead_end += B.count(end, side, q)
        if ahead_end < ahead_part:
            return False
    opp = 1 - side
    return B.count(end, opp, 25) >= B.count(part, opp, 25) and B.pip_count(end, opp) >= B.pip_count(part, opp)


def _equity(gnubg, ec, ci, pos, side):
    """gnubg's cubeless equity of ``pos`` for ``side`` on roll (for ordering only)."""
    p = gnubg.evaluate(gnubg.positionfromid(bgids.position_id(pos, side)), ci, ec)
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def _gnubg_steps(move):
    """gnubg's move tuple as our steps: the module drops a final 'off' (0, its terminator)."""
    move = tuple(move)
    return move + (0,) if len(move) % 2 else move


def analysis_lines(m, plies=0, top=3):
    """The report of ``gammon analyze``: per player the checker errors (plays with a choice)
    and the cube errors (doubles, takes, drops, beavers, close no-doubles, see
    ``gammon.analyze``), then the ``top`` biggest mistakes of either kind with their board."""
    from gammon.render import render_board

    per, worst = analyze(m, plies=plies, top=top)
    try:
        per_cube, cube_errors = analyze_cube(m, plies=plies)
    except ImportError:
        raise MissingPackage("analysis needs GNU Backgammon's Python module: pip install gnubg") from None
    lucky = luck(m, plies=plies)
    out = ["GNU Backgammon %d-ply analysis of %s - %s" % (plies, m.names[0], m.names[1])]
    for s in (0, 1):
        out.append("  %s" % m.names[s])
        for what, (n, tot), unit in (("checker", per[s], "move"), ("cube", per_cube[s], "decision")):
            rate = 1000.0 * tot / n if n else 0.0
            out.append(
                "    %-15s %4d decisions, error rate %6.1f (equity x 1000 per %s), total %.3f"
                % (what + " errors:", n, rate, unit, tot)
            )
        n, tot = lucky[s]
        out.append(
            "    %-15s %4d rolls, %+.3f in all (the equity the dice gave against average rolls)"
            % ("luck:", n, tot)
        )
    mistakes = [(err, 0, "checker", (g, a, best)) for err, g, a, best in worst]
    mistakes += [(e.error, 1, "cube", e) for e in cube_errors[:top]]
    mistakes.sort(key=lambda t: -t[0])
    for err, _order, kind, item in mistakes[:top]:
        if err <= 0:
            break
        out.append("")
        if kind == "checker":
            g, a, best = item
            out.append(
                "game %d, %s rolled %d%d: played %s, best %s (-%.3f)"
                % (g.number, m.names[a.side], a.dice[0], a.dice[1], a.text or "no move", best, err)
            )
            out.append(render_board(a.pos, a.side, m.names))
        else:
            eqs = ", ".join("%s %+.3f" % kv for kv in item.equities.items())
            out.append("game %d, cube: %s (-%.3f; %s)" % (item.game.number, item.text, err, eqs))
            out.append(render_board(item.action.pos, item.doubler, m.names))
    return out


ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7))  # the 21 distinct rolls


def cube_x(gnubg, pos, side):
    """gnubg's cube efficiency for ``side`` on roll in ``pos`` (its eval.c): 0.68 in contact,
    0.6 in a bear-off class, in a race 0.55 + 0.00125 x the roller's pips within 0.6..0.7."""
    from bg import board as B

    cls = gnubg.classify(gnubg.positionfromid(bgids.position_id(pos, side)))
    if cls >= 9:  # crashed, contact
        return CUBE_X
    if cls == 8:  # race
        return min(0.7, max(0.6, 0.55 + 0.00125 * B.pip_count(pos, side)))
    return 0.6  # bear-off classes (over: no cube left to value)


def luck(m, plies=0, gnubg=None):
    """Each side's luck as GNU Backgammon's analysis rates it (``luck_rolls`` summed):
    ``per_side[s] = [rolls, total luck]``."""
    per = [[0, 0.0], [0, 0.0]]
    for _g, a, value, _exact in luck_rolls(m, plies, gnubg):
        per[a.side][0] += 1
        per[a.side][1] += value
    return per


def luck_rolls(m, plies=0, gnubg=None):
    """``(game, play, luck, exact)`` for every roll played: the equity after the best play
    with that roll minus the average over the 36 rolls of the equity after the best play with
    each (the mover's view, cubeful at the game's score and cube, the units of the errors).
    The opening throw (one die each, the higher die moves) averages over the 30 throws, half
    of them the opponent's. A roll with no legal play leaves the position to the opponent: its
    equity comes from the cube model of the cube analysis (Janowski's, gnubg's cube
    efficiency for the position's class), not from gnubg itself, so ``exact`` is False for a
    roll some other roll of which cannot be played (gnubg's analysis differs there, most in
    the games after the Crawford game, where its own model knows the trailer's double)."""
    if gnubg is None:
        gnubg = _gnubg()
    ec = gnubg.evalcontext(1, plies, 1, 1, 0.0)
    for g in m.games:
        for a in g.actions:
            if a.kind != model.PLAY or not a.dice:
                continue
            ci = gnubg.cubeinfo(a.cube, a.owner, a.side, m.length, tuple(g.score), int(g.crawford), 0)
            board = gnubg.positionfromid(bgids.position_id(a.pos, a.side))
            dance = None
            total = 0.0
            mine = 0.0
            for d1, d2 in ROLLS:
                moves = gnubg.findbestmoves(board, ci, ec, (d1, d2))
                if moves:
                    eq = moves[0]["score"]
                else:  # no legal play: the opponent on roll in the same position
                    if dance is None:
                        dance = _dance(gnubg, ec, ci, m, g, a)
                    eq = dance
                total += eq if d1 == d2 else 2 * eq
                if (d1, d2) in (tuple(a.dice), tuple(a.dice)[::-1]):
                    mine = eq
            if a.opening:
                total = _opening_average(gnubg, ec, m, g, a)
            else:
                total /= 36.0
            yield g, a, mine - total, dance is None


def _dance(gnubg, ec, ci, m, g, a):
    """The mover's equity when a roll cannot be played: minus the opponent's on roll."""
    x = 0.0 if g.crawford else cube_x(gnubg, a.pos, 1 - a.side)  # (no cube in the Crawford game)
    e = _Evaluator(gnubg, ec, m, g, a.pos, 1 - a.side, a.cube, a.owner, x)
    if m.money:
        return -e.nd
    # the opponent's match winning chance, in the mover's units
    return gnubg.mwc2eq(1.0 - gnubg.eq2mwc(e.nd, e._ci(a.cube, a.owner)), ci)


def _opening_average(gnubg, ec, m, g, a):
    """The average equity of the opening throw for ``a``'s mover: over the 30 throws (one die
    each, never a tie) the higher die moves, so half of them are the opponent's play."""
    total = 0.0
    for side, sign in ((a.side, 1.0), (1 - a.side, -1.0)):
        ci = gnubg.cubeinfo(a.cube, a.owner, side, m.length, tuple(g.score), int(g.crawford), 0)
        board = gnubg.positionfromid(bgids.position_id(a.pos, side))
        for d1, d2 in ROLLS:
            if d1 != d2:
                total += sign * gnubg.findbestmoves(board, ci, ec, (d1, d2))[0]["score"]
    return total / 30.0
