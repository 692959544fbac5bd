"""What a match came to, in a few lines: the score, each game's result and cube, who played
each side (a person, the board's computer, GNU Backgammon), the dice each side threw (the
luck a player sees without an engine) and, when GNU Backgammon's module is installed, each
side's error rate, its luck (the equity its rolls gave against an average roll) and the
costliest plays with the better one.

One computation, two readers: ``gammon show`` prints ``lines(m)`` after the moves, and the
simulator's panel shows the same lines when a match ends (its server reads the board's
journal, as ``gammon sync`` would).

Example::

    >>> from gammon import model, summary
    >>> summary.lines(model.load_match(data))  # doctest: +SKIP
    ['white (player) 0 - pubeval (board\'s computer) 2, 1-point match: pubeval won', ...]
"""

from gammon import model
from gammon.errors import MissingPackage

KINDS = {1: "single", 2: "gammon", 3: "backgammon"}
HOW = {"bearoff": "borne off", "drop": "double dropped", "resign": "resigned", "time": "on time"}


def role(m, side):
    """Who played ``side``: "board's computer", "GNU Backgammon", both in the order they
    played (``gammon play`` took over: the library credits it), or "player"."""
    name = m.names[side] or ""
    who = []
    if m.computer == side:
        who.append("board's computer")
    if "gnubg" in name:
        who.append("GNU Backgammon")
    return ", then ".join(who) or "player"


def facts(m):
    """The figures of match ``m`` (a ``gammon.model.Match``): ``{"score", "games", "sides"}``.
    ``games``: per game ``(number, winner, points, kind, cube, how)`` (winner None while it
    is played); ``sides[s]``: games won, gammons, backgammons, doubles offered, takes, drops,
    the highest cube, plays, pips thrown and doubles thrown."""
    sides = [
        {
            "won": 0,
            "gammons": 0,
            "backgammons": 0,
            "doubled": 0,
            "took": 0,
            "dropped": 0,
            "plays": 0,
            "pips_thrown": 0,
            "doublets": 0,
        }
        for _ in (0, 1)
    ]
    games = []
    top_cube = 1
    for g in m.games:
        for a in g.actions:
            s = sides[a.side] if a.side in (0, 1) else None
            if a.kind == model.PLAY and s is not None and a.dice:
                s["plays"] += 1
                d1, d2 = a.dice
                s["pips_thrown"] += 4 * d1 if d1 == d2 else d1 + d2
                s["doublets"] += d1 == d2
            elif a.kind == model.DOUBLE and s is not None:
                s["doubled"] += 1
            elif a.kind in (model.TAKE, model.BEAVER) and s is not None:
                s["took"] += 1
            elif a.kind == model.DROP and s is not None:
                s["dropped"] += 1
            top_cube = max(top_cube, a.cube)
        top_cube = max(top_cube, g.cube)
        if g.finished:
            w = sides[g.winner]
            w["won"] += 1
            w["gammons"] += g.result_kind == 2
            w["backgammons"] += g.result_kind == 3
            games.append(
                (g.number, g.winner, g.points, KINDS.get(g.result_kind, "?"), g.cube, HOW.get(g.reason, ""))
            )
        else:
            games.append((g.number, None, 0, "", g.cube, "being played"))
    score = m.final_score if m.complete else _score_now(m)
    return {"score": score, "games": games, "sides": sides, "top_cube": top_cube}


def _score_now(m):
    score = [0, 0]
    for g in m.games:
        score = list(g.score)
        if g.finished:
            score[g.winner] += g.points
    return tuple(score)


def errors(m, plies=0, top=3):
    """GNU Backgammon's verdict (``gammon.analyze``): ``(per_side, worst, luck)`` with
    ``per_side[s] = (plays with a choice, equity lost)``, the ``top`` costliest plays as
    ``(error, game, action, best play)`` and ``luck[s] = (rolls, total luck)``; None without
    the ``gnubg`` module."""
    from gammon import analyze

    try:
        per, worst = analyze.analyze(m, plies=plies, top=top)
        return per, worst, analyze.luck(m, plies=plies)
    except MissingPackage:
        return None


def lines(m, judged=None):
    """The summary as text lines. ``judged``: ``errors(m)``'s answer to include (None: no
    engine verdict)."""
    f = facts(m)
    sc = f["score"]
    what = "%d-point match" % m.length if m.length else "money session"
    if m.complete:
        state = "%s won" % m.names[m.winner]
    else:
        state = "not finished"
    out = [
        "%s (%s) %d - %s (%s) %d, %s: %s"
        % (m.names[0], role(m, 0), sc[0], m.names[1], role(m, 1), sc[1], what, state)
    ]
    for number, winner, points, kind, cube, how in f["games"]:
        if winner is None:
            out.append("  game %d: %s, cube %d" % (number, how, cube))
            continue
        out.append(
            "  game %d: %s wins %d point%s (%s, %s), cube %d"
            % (number, m.names[winner], points, "" if points == 1 else "s", kind, how, cube)
        )
    for s in (0, 1):
        d = f["sides"][s]
        extra = []
        if d["gammons"]:
            extra.append("%d gammon%s" % (d["gammons"], "" if d["gammons"] == 1 else "s"))
        if d["backgammons"]:
            extra.append("%d backgammon%s" % (d["backgammons"], "" if d["backgammons"] == 1 else "s"))
        cube = []
        if d["doubled"]:
            cube.append("doubled %d" % d["doubled"])
        if d["took"] or d["dropped"]:
            cube.append("took %d, dropped %d" % (d["took"], d["dropped"]))
        out.append(
            "  %s: %d game%s won%s; %d plays, dice %d pips (%d doublets)%s"
            % (
                m.names[s],
                d["won"],
                "" if d["won"] == 1 else "s",
                " (%s)" % ", ".join(extra) if extra else "",
                d["plays"],
                d["pips_thrown"],
                d["doublets"],
                "; " + ", ".join(cube) if cube else "",
            )
        )
    if f["top_cube"] > 1:
        out.append("  highest cube: %d" % f["top_cube"])
    if judged is not None:
        per, worst, luck = judged
        for s in (0, 1):
            n, tot = per[s]
            out.append(
                "  %s by GNU Backgammon: error rate %.1f (equity x 1000 per play with a choice, %d plays);"
                " luck %+.3f (%d rolls)"
                % (m.names[s], 1000.0 * tot / n if n else 0.0, n, luck[s][1], luck[s][0])
            )
        for err, g, a, best in worst:
            if err <= 0:
                break
            out.append(
                "  costly: game %d, %s %d-%d played %s, best %s (-%.3f)"
                % (g.number, m.names[a.side], a.dice[0], a.dice[1], a.text or "no move", best, err)
            )
    return out


def main(argv=None):
    """``python -m gammon.summary JOURNAL_FILE``: the summary lines of the match in a journal
    file (the simulator's server runs it for its panel: GNU Backgammon's module only works
    on a main thread)."""
    import sys

    argv = sys.argv[1:] if argv is None else argv
    m = model.load_match(model.read_file(argv[0]))
    sys.stdout.write("\n".join(lines(m, errors(m))) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
