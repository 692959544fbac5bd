"""``gammon hint POSITION_ID DICE [--engine pubeval|gnubg] [--ply N]``: the play an engine
chooses, printed as ``gammon plays --notation`` prints a play -- the resulting Position ID in
the input's orientation (the side that moved still on roll) and gnubg's move notation::

    $ gammon hint 4HPwATDgc/ABMA 31
    4HPwATCwZ/ABMA  8/5 6/5
    $ gammon hint 4HPwATDgc/ABMA 31 --engine gnubg --ply 1
    4HPwATCwZ/ABMA  8/5 6/5

``pubeval`` (the default) is ``bg.engine.pubeval``, the board's own computer opponent;
``gnubg`` asks GNU Backgammon's neural nets (``gnubg_nn.best_move`` at ``--ply`` N, 0..3).
When the turn passes the line is the unchanged Position ID and ``no legal play``.
"""

from bg import board, ids, notation
from bg import engine as movegen
from bg.engine import pubeval

from gammon.errors import MissingPackage, UserError
from gammon.formats.ids import parse_dice, parse_position_id

ENGINES = ("pubeval", "gnubg")
MAX_PLY = 3


def _gnubg_play(gen, pos, d1, d2, ply):
    """gnubg's chosen play for side 0 on roll, as our steps (recognised from gnubg's
    resulting board, so the steps are the engine's canonical ones)."""
    try:
        import gnubg_nn
    except ImportError:
        raise MissingPackage("--engine gnubg needs the gnubg_nn package (pip install gnubg-nn)") from None
    anboard = [list(h) for h in board.to_gnubg(pos, 0)]
    moves, key = gnubg_nn.best_move(anboard, d1, d2, n=ply, b=1)
    if not moves:
        return ()
    # gnubg hands back the board after the play with the opponent on roll: [mover, opponent]
    end = board.from_gnubg(gnubg_nn.board_from_position_key(key), side_on_roll=1)
    steps = gen.recognize(pos, 0, d1, d2, end)
    if not steps:
        raise UserError("gnubg's play %r is not a legal play here" % (moves,))
    return steps


def choose(pos, d1, d2, engine="pubeval", ply=0, gen=None):
    """The steps ``engine`` plays for side 0 on roll with ``d1``-``d2`` (``()``: no play)."""
    if engine not in ENGINES:
        raise UserError("unknown engine %r (pubeval or gnubg)" % (engine,))
    if not 0 <= ply <= MAX_PLY:
        raise UserError("--ply must be 0..%d, got %d" % (MAX_PLY, ply))
    if engine == "pubeval" and ply:
        raise UserError("--ply is for --engine gnubg (pubeval looks at the play's position only)")
    gen = gen or movegen.MoveGen()
    if engine == "gnubg":
        return _gnubg_play(gen, pos, d1, d2, ply)
    return pubeval.PubEval(gen).best(pos, 0, d1, d2)


def hint_line(position_id, d1, d2, engine="pubeval", ply=0):
    """The line ``gammon hint`` prints."""
    pos = parse_position_id(position_id)
    gen = movegen.MoveGen()
    steps = choose(pos, d1, d2, engine, ply, gen)
    if not steps:
        return "%s  no legal play" % ids.position_id(pos, 0)
    end = gen.apply(bytearray(pos), 0, steps)
    return "%s  %s" % (ids.position_id(end, 0), notation.format_play(pos, 0, steps))


def cmd_hint(args):
    d1, d2 = parse_dice(args.dice)
    print(hint_line(args.position_id, d1, d2, args.engine, args.ply))
    return 0


def register(sub):
    p = sub.add_parser(
        "hint",
        help="the play an engine chooses for a position and roll",
        description="Print the chosen play's resulting Position ID (same orientation as the "
        "input) and its gnubg notation.",
    )
    p.add_argument("position_id", metavar="POSITION_ID", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    p.add_argument("dice", metavar="DICE", help="the roll, e.g. 31 or 3-1")
    p.add_argument("--engine", choices=ENGINES, default="pubeval", help="pubeval (default) or gnubg")
    p.add_argument("--ply", type=int, default=0, metavar="N", help="gnubg's look-ahead, 0..3 (default 0)")
    p.set_defaults(func=cmd_hint)
