"""GNU Backgammon SGF export (``GM[6]``): one game tree per game, as ``save match`` writes it
and ``load match`` reads it.

Root node per game: ``FF[4]GM[6]CA[UTF-8]AP[...]MI[length:L][game:i][ws:a][bs:b]PW[..]PB[..]
DT[yyyy-mm-dd]RU[Crawford(:CrawfordGame)|Jacoby]CV[n]RE[W+2(R)]`` (no ``Crawford`` for a
1-point match: gnubg never applies the rule there). White is side 0 (gnubg's player 0), Black
side 1. A move node is ``;W[31hefe]``: the dice, then one letter pair per checker step,
``a``..``x`` the points 1..24 counted from White's side for White and from the other end for
Black (so each player's own point p is ``a + p - 1`` for White and
``x - (p - 1)`` for Black), ``y`` the bar, ``z`` off. Cube nodes: ``double``, ``take``,
``drop``; a beaver is how gnubg stores it: the taker ``double``s while the cube is offered and
the doubler ``take``s. A resignation is the ``R`` in the root's ``RE`` (gnubg derives the
resigned value from the points and the cube); a rejected resignation is not representable.

Example::

    >>> from gammon.formats import sgf
    >>> text = sgf.export(match)      # doctest: +SKIP
"""

import time

from gammon import __version__
from gammon.formats import check_exportable, crawford_game, crawford_rule, safe_name


def _esc(s):
    return s.replace("\\", "\\\\").replace("]", "\\]")


def _letter(side, p):
    if p == 25:
        return "y"
    if p == 0:
        return "z"
    return chr(ord("a") + p - 1) if side == 0 else chr(ord("x") - (p - 1))


def _move(a):
    txt = "%d%d" % a.dice
    for i in range(0, len(a.steps), 2):
        txt += _letter(a.side, a.steps[i]) + _letter(a.side, a.steps[i + 1])
    return txt


def _nodes(a):
    if a.side < 0:
        return []  # automatic doubles: CV in the root
    c = "WB"[a.side]
    o = "WB"[1 - a.side]
    if a.kind == "play":
        return [";%s[%s]" % (c, _move(a))]
    if a.kind == "double":
        return [";%s[double]" % c]
    if a.kind == "take":
        return [";%s[take]" % c]
    if a.kind == "drop":
        return [";%s[drop]" % c]
    if a.kind == "beaver":
        return [";%s[double]" % c, ";%s[take]" % o]
    return []  # resignations: in RE; automatic doubles: CV


def export(match):
    """The SGF text of ``match`` (all games). ValueError if it holds a casual illegal play."""
    check_exportable(match, "SGF")
    n0 = _esc(safe_name(match.names[0], "Player 1"))
    n1 = _esc(safe_name(match.names[1], "Player 2"))
    t = match.date_time()
    out = []
    for i, g in enumerate(match.games):
        root = ";FF[4]GM[6]CA[UTF-8]AP[gammon:%s]" % __version__
        root += "MI[length:%d][game:%d][ws:%d][bs:%d]" % (match.length, i, g.score[0], g.score[1])
        root += "PW[%s]PB[%s]" % (n0, n1)
        if t and i == 0:
            root += "DT[%s]" % time.strftime("%Y-%m-%d", t)
        rules = []
        if crawford_rule(match):  # as gnubg writes it: never for a 1-point match
            rules.append("Crawford")
            if crawford_game(match, g):
                rules.append("CrawfordGame")
        elif not match.length and match.jacoby:
            rules.append("Jacoby")
        if rules:
            root += "RU[%s]" % ":".join(rules)
        if g.auto_doubles:
            root += "CV[%d]" % (1 << g.auto_doubles)
        if g.finished:
            root += "RE[%s+%d%s]" % ("WB"[g.winner], g.points, "R" if g.reason == "resign" else "")
        if i == 0:
            root += "GC[%s]" % _esc("match %s" % match.id_hex)
        lines = ["(" + root]
        for a in g.actions:
            lines.extend(_nodes(a))
        out.append("\n".join(lines) + ")")
    return "\n".join(out) + "\n"
