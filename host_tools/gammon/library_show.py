"""``gammon show GAME [--game N]``: a stored match move by move with board diagrams.

``gammon show`` (``commands/plays.py``) draws a Position ID itself and hands anything else to
``library_show(spec, game_no)`` here: a game of the library (match id, ``#N``) or a journal file
is printed by ``show_game``; ``show_lines`` is the text (the rendering, no I/O).

An argument that is neither says which it could have been: a 14-character string that does not
decode is a mistyped Position ID (the decoder's message); a path that does not exist is a
missing file; anything else is neither a Position ID nor a game."""

import os
import re
import sys
from pathlib import Path

from gammon import model
from gammon.errors import UserError
from gammon.library import Library


def looks_like_game(spec):
    """True for ``#N``, 4 to 16 hex digits, or an existing file."""
    return bool(re.fullmatch(r"#\d+|[0-9a-fA-F]{4,16}", spec or "")) or os.path.isfile(spec or "")


def library_show(spec, game_no=None):
    """Show the game named by ``spec`` (match id, ``#N`` or a journal file), only game
    ``game_no`` when given. UserError (one line) when it names no game."""
    from bg import ids

    spec = (spec or "").strip()
    if not looks_like_game(spec):
        if spec.endswith(".m"):
            raise UserError("cannot read %s: no such file" % spec)
        if len(spec) == 14:
            try:
                ids.decode_position_id(spec)
            except ValueError as e:
                raise UserError(str(e)) from None
        if os.sep in spec or (os.altsep and os.altsep in spec):
            raise UserError("cannot read %s: no such file" % spec)
        raise UserError(
            "%r is neither a Position ID (14 characters) nor a game: give a match id from "
            "'gammon list' (4 to 16 hex digits), #N or a journal file" % spec
        )
    return show_game(spec, game_no)


def _action_line(m, a):
    from gammon.formats.ids import describe

    who = m.names[a.side] if a.side >= 0 else "board"
    return "%s: %s" % (who, describe(m, a))


def show_lines(m, game=None):
    """The move-by-move text of a match (board diagrams before every play); for the whole
    match, then its summary (``gammon.summary``: GNU Backgammon's error rates when its module
    is installed)."""
    from gammon.render import render_board

    out = [
        "%s - %s, %s, match %s"
        % (m.names[0], m.names[1], "%d-point match" % m.length if m.length else "money play", m.id_hex)
    ]
    for g in m.games:
        if game is not None and g.number != game:
            continue
        out.append("")
        out.append(
            "Game %d  (%s %d, %s %d)%s"
            % (
                g.number,
                m.names[0],
                g.score[0],
                m.names[1],
                g.score[1],
                "  Crawford game" if g.crawford else "",
            )
        )
        for a in g.actions:
            if a.kind == "play":
                out.append("")
                out.append(render_board(a.pos, a.side, m.names))
            out.append(_action_line(m, a) + ("" if a.cube == 1 else "   (cube %d)" % a.cube))
        if g.finished:
            out.append(
                "%s wins %d point%s (%s, %s)"
                % (
                    m.names[g.winner],
                    g.points,
                    "" if g.points == 1 else "s",
                    model.KIND_NAMES.get(g.result_kind, "?"),
                    g.reason,
                )
            )
    if game is None:  # the whole match: what it came to (the simulator's panel says the same)
        from gammon import summary

        out.append("")
        out.append("Summary")
        out.extend(summary.lines(m, summary.errors(m)))
    out.append("")
    out.append(m.result_text() + ("" if m.complete else " (match not finished)"))
    return out


def show_game(spec, number=None):
    """Print the match ``spec`` names (``gammon show GAME [--game N]``), only game ``number``
    when given (UserError for a game the match does not have)."""
    m, _label = load_game(spec)
    if number is not None:
        pick_game(m, number)  # UserError for a game the match does not have
    sys.stdout.write("\n".join(show_lines(m, number)) + "\n")
    sys.stdout.flush()
    return 0


def load_game(spec, lib=None):
    """``(match, label)`` for GAME: a journal file path (label: the file name) or a library
    game (label: the board it came from, else its id). UserError (one line) otherwise."""
    p = Path(spec)
    if p.is_file():
        try:
            data = model.read_file(p)
        except OSError as e:
            raise UserError("cannot read %s: %s" % (spec, e.strerror or e)) from None
        except ValueError as e:
            raise UserError("%s: %s" % (spec, e)) from None
        try:
            parts = model.split_matches(data)
        except ValueError as e:
            raise UserError("%s: %s" % (spec, e)) from None
        if len(parts) > 1:
            raise UserError(
                "%s holds %d matches; import it ('gammon import') and export each one" % (spec, len(parts))
            )
        try:
            m = model.load_match(parts[0][0])
        except ValueError as e:
            raise UserError("%s: %s" % (spec, e)) from None
        if parts[0][1]:
            print("gammon: note: %s: %s" % (spec, parts[0][1]), file=sys.stderr)
        return m, p.name
    own = lib is None
    lib = lib or Library.open(create=False)  # LibraryError: a UserError
    try:
        mid = lib.resolve(spec)
        try:
            return lib.load(mid), lib.get(mid).board or mid
        except ValueError as e:
            raise UserError("stored match %s: %s" % (mid, e)) from None
    finally:
        if own:
            lib.close()


def pick_game(m, number):
    """Game ``number`` of match ``m`` (the last one for None); UserError when it has none."""
    if not m.games:
        raise UserError("the match has no game yet")
    if number is None:
        return m.games[-1]
    for g in m.games:
        if g.number == number:
            return g
    raise UserError("no game %d (the match has %d)" % (number, len(m.games)))
