"""``gammon show GAME``: the engine's ``show`` command (``commands/plays.py``) hands any
argument that is not a Position ID to ``library_show(args)`` here, which prints the match move
by move with board diagrams (``gammon.commands.library.show_game``)."""


def looks_like_game(spec):
    """True for ``#N``, 4 to 16 hex digits, or an existing file."""
    import os
    import re

    return bool(re.fullmatch(r"#\d+|[0-9a-fA-F]{4,16}", spec or "")) or os.path.isfile(spec or "")


def library_show(args):
    """Show the game named by ``args.position_id`` (match id, ``#N`` or a journal file); None
    when the argument is not a game at all (the caller reports the bad Position ID)."""
    from gammon.commands.library import show_game

    if not looks_like_game(args.position_id):
        return None

    class _Args:
        game = args.position_id
        game_no = getattr(args, "game_no", None)

    return show_game(_Args)
