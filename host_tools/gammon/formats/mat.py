"""Jellyfish ``.mat`` export: the text format eXtreme Gammon, GNU Backgammon, BGBlitz and
Jellyfish import.

Layout (the columns matter: GNU Backgammon's reader finds the second player's column by its
dice ``NN:`` or, on lines without two dice, by the first run of two spaces after column 15)::

    ; [Site "Smart board"]
    ; [Match ID "1f2e3d4c5b6a7988"]
    ; [Player 1 "Alice"]
    ; [Player 2 "Bob"]
    ; [EventDate "2026.11.21"]
    ...
     5 point match

     Game 1
     Alice : 0                         Bob : 0
      1) 31: 8/5 6/5                   42: 8/4 6/4
      2)  Doubles => 2                  Takes
      ...
                                       Wins 2 points

GNU Backgammon's ``import mat`` reads none of the rule tags (``[Jacoby]``, ``[Crawford]``,
``[Beaver]`` are "discard for now" in its ``import.c``): it scores a money session with its own
``set jacoby`` setting, and assumes the Crawford rule in every match. So the export says what
gnubg needs (``gnubg_notes``): for money play the ``set jacoby on|off`` to type before importing,
as a comment line ``; Before importing into GNU Backgammon: set jacoby off`` (and the CLI
prints it as a warning); for a match played without the Crawford rule in which gnubg would mark
a game as the Crawford game, which game, and that the ``.sgf`` export carries the rule
(``RU`` without ``Crawford``).

Player 1 (left column) is side 0. Resignations are written as ``Wins N points`` in the winner's
column (the reader infers the resignation); a rejected resignation has no notation and is left
out; a money session with automatic doubles is refused (export it as SGF, which has ``CV``).

Example::

    >>> from gammon.formats import mat
    >>> text = mat.export(match)       # doctest: +SKIP
"""

import time

from gammon.formats import check_exportable, safe_name

LEFT = 30  # width of the first player's column (after the move number)


def _points(n):
    return "%d point%s" % (n, "" if n == 1 else "s")


def _entry(a):
    """The column text of one action, or None when the format has nothing for it."""
    if a.kind == "play":
        return "%d%d: %s" % (a.dice[0], a.dice[1], a.text)
    if a.kind == "double":
        return " Doubles => %d" % a.value
    if a.kind == "take":
        return " Takes"
    if a.kind == "drop":
        return " Drops"
    if a.kind == "beaver":
        return " Beavers => %d" % a.value
    return None


def _rows(game):
    rows = []
    row = None
    for a in game.actions:
        text = _entry(a)
        if text is None:
            continue
        if row is None or row[1] is not None or (a.side == 0 and row[0] is not None):
            row = [None, None]
            rows.append(row)
        row[a.side] = text
    return rows


def _line(num, left, right):
    head = "%3d) " % num if num else "     "
    if right is None:
        # padded on purpose: GNU Backgammon's reader looks for the second column with
        # strstr(line + 15, "  "), which on a line shorter than 15 characters reads the
        # previous (longer) line's leftovers and invents a move from them
        return (head + (left or "")).ljust(LEFT + 5)
    left = left or ""
    return head + left.ljust(max(LEFT, len(left) + 2)) + right


GNUBG_PREFIX = "Before importing into GNU Backgammon: "


def gnubg_settings(match):
    """The gnubg commands that make ``import mat`` score ``match`` as it was played: gnubg
    takes the Jacoby rule of a money session from its own setting, not from the file."""
    if match.length:
        return []
    return ["set jacoby %s" % ("on" if match.jacoby else "off")]


def gnubg_notes(match):
    """What a gnubg user must know about this ``.mat``, one line each: the settings to type
    first, and the games gnubg will wrongly mark as the Crawford game (a match played without
    the rule: gnubg's import assumes it, marking the first game with exactly one side at
    match point, as its ``ImportGame`` does)."""
    out = [GNUBG_PREFIX + cmd for cmd in gnubg_settings(match)]
    if match.length > 1 and not match.crawford:
        for g in match.games:
            if (g.score[0] == match.length - 1) != (g.score[1] == match.length - 1):
                out.append(
                    "GNU Backgammon assumes the Crawford rule in a .mat: it marks game %d (%d-%d) as "
                    "the Crawford game, but this match was played without the rule; load the .sgf "
                    "export into gnubg instead" % (g.number, g.score[0], g.score[1])
                )
                break
    return out


def export(match, site="Smart backgammon board", unrated=True):
    """The ``.mat`` text of ``match``. ValueError if it holds a casual illegal play or automatic
    doubles (neither has a notation in the format)."""
    check_exportable(match, ".mat", auto_doubles=False)
    n0 = safe_name(match.names[0], "Player 1")
    n1 = safe_name(match.names[1], "Player 2")
    out = []
    tags = [("Site", site), ("Match ID", match.id_hex), ("Player 1", n0), ("Player 2", n1)]
    t = match.date_time()
    if t:
        tags.append(("EventDate", time.strftime("%Y.%m.%d", t)))
        tags.append(("EventTime", time.strftime("%H.%M", t)))
    tags.append(("Variation", "Backgammon"))
    tags.append(("Unrated", "On" if unrated else "Off"))
    if match.length:
        tags.append(("Crawford", "On" if match.crawford else "Off"))
    else:
        tags.append(("Jacoby", "On" if match.jacoby else "Off"))
        tags.append(("Beaver", "On" if match.beaver else "Off"))
    tags.append(("CubeLimit", "1024"))
    for k, v in tags:
        out.append('; [%s "%s"]' % (k, str(v).replace('"', "'")))
    for note in gnubg_notes(match):
        out.append("; " + note)
    out.append("")
    out.append(" %d point match" % match.length)
    out.append("")
    for g in match.games:
        out.append(" Game %d" % g.number)
        h0 = " %s : %d" % (n0, g.score[0])
        out.append(h0.ljust(max(LEFT + 5, len(h0) + 2)) + "%s : %d" % (n1, g.score[1]))
        rows = _rows(g)
        if g.finished:
            win = "Wins " + _points(g.points)
            if g.winner == 1 and rows and rows[-1][1] is None:
                # on the loser's last line, as Jellyfish writes it: gnubg's reader mis-parses
                # a line holding only the first player's "Drops" followed by a lone "Wins"
                rows[-1][1] = win
                win = None
        for i, (left, right) in enumerate(rows):
            out.append(_line(i + 1, left, right))
        if g.finished and win:
            out.append(_line(0, win, None) if g.winner == 0 else _line(0, "", win))
        out.append("")
    return "\n".join(out) + "\n"
