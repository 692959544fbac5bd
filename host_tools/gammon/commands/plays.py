"""``gammon plays POSITION_ID DICE [--notation]`` and ``gammon show POSITION_ID``.

``plays`` prints every distinct legal play's resulting position as a gnubg Position ID in
the input's orientation (the side that moved is still the side on roll, as gnubg's own move
generator reports it), sorted, one per line; nothing when the turn passes::

    $ gammon plays 4HPwATDgc/ABMA 31 --notation
    4HPwATCkc/ABMA  6/5 6/3
    4HPwATCwZ/ABMA  8/5 6/5
    ...

``show`` draws the position with pip counts. An argument that is not a Position ID is a stored
game or a journal file: ``gammon.library_show.library_show(spec, game_no)`` prints it.
"""

import sys

from bg import engine as movegen
from bg import ids, notation

from gammon.errors import UserError
from gammon.formats.ids import parse_dice, parse_position_id
from gammon.render import render_board


def cmd_plays(args):
    pos = parse_position_id(args.position_id)
    d1, d2 = parse_dice(args.dice)
    rows = []
    for steps, res in movegen.MoveGen().plays(pos, 0, d1, d2):
        pid = ids.position_id(res, 0)
        rows.append((pid, notation.format_play(pos, 0, steps)))
    rows.sort()
    out = "".join(("%s  %s\n" % r) if args.notation else r[0] + "\n" for r in rows)
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into head
        pass
    return 0


def cmd_show(args):
    try:
        pos = ids.decode_position_id(args.position_id)
    except ValueError:
        from gammon.library_show import library_show  # a stored game or a journal file

        return library_show(args.position_id, getattr(args, "game_no", None))
    if getattr(args, "game_no", None) is not None:
        raise UserError("--game N is for a stored game, not a Position ID")
    print(render_board(pos, 0))
    print("Position ID: %s" % ids.position_id(pos, 0))
    return 0


def register(sub):
    p = sub.add_parser(
        "plays",
        help="list every distinct legal play of a position and roll",
        description="Print every distinct legal play's resulting Position ID "
        "(same orientation as the input), sorted, one per line.",
    )
    p.add_argument("position_id", metavar="POSITION_ID", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    p.add_argument("dice", metavar="DICE", help="the roll, e.g. 31 or 3-1")
    p.add_argument("--notation", action="store_true", help="print the move text beside each ID")
    p.set_defaults(func=cmd_plays)
    if "show" not in sub.choices:
        s = sub.add_parser("show", help="draw a position (or a stored game) in the terminal")
        s.add_argument(
            "position_id",
            metavar="POSITION_ID|GAME",
            help="gnubg Position ID (player on roll at the bottom), or a game",
        )
        s.add_argument("--game", dest="game_no", type=int, metavar="N", help="a game: only its game N")
        s.set_defaults(func=cmd_show)
