"""``gammon show GAME [--game N]``: the engine's ``show`` command (``commands/plays.py``) hands
any argument that is not a Position ID to ``library_show(args)`` here, which prints the match
move by move with board diagrams (``gammon.commands.library.show_game``).

An argument that is neither says which it could have been: a 14-character string that does not
decode is a mistyped Position ID (the decoder's message); a path that does not exist is a
missing file; anything else is neither a Position ID nor a game."""

import os
import re


def looks_like_game(spec):
    """True for ``#N``, 4 to 16 hex digits, or an existing file."""
    return bool(re.fullmatch(r"#\d+|[0-9a-fA-F]{4,16}", spec or "")) or os.path.isfile(spec or "")


def library_show(args):
    """Show the game named by ``args.position_id`` (match id, ``#N`` or a journal file), only
    game ``args.game_no`` when given. UserError (one line) when it names no game."""
    from bg import ids

    from gammon.cli import UserError
    from gammon.commands.library import show_game

    spec = (args.position_id or "").strip()
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

    class _Args:
        game = spec
        game_no = getattr(args, "game_no", None)

    return show_game(_Args)
