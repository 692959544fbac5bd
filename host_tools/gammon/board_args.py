"""How every command that talks to a board names it and opens it::

    from gammon.board_args import add_board_argument, open_board

    def register(sub):
        p = sub.add_parser("sync")
        add_board_argument(p)                 # --board NAME|ID|ADDRESS (default: the default)
        p.set_defaults(func=run)

    def run(args):
        with open_board(args) as client:       # an authenticated gammon.link.Client
            for g in client.list_games(): ...

(Its own module, so that command modules never import one another for it.)"""

from gammon import link as L
from gammon.errors import UserError


def add_board_argument(parser):
    parser.add_argument(
        "--board", metavar="BOARD", help="saved board name, id or address (default: the default board)"
    )
    parser.add_argument(
        "--direct",
        action="store_true",
        help="open the board's link in this command, not through the hub (as GAMMON_NO_DAEMON=1)",
    )


def open_board(args):
    """An authenticated ``Client`` for ``args.board``, through the hub that lets every command
    share the board's one connection (``gammon.hub``), or directly with ``--direct`` /
    ``GAMMON_NO_DAEMON=1``; one-line errors as ``UserError``."""
    from gammon import hub

    try:
        if hub.enabled() and not getattr(args, "direct", False):
            return hub.connect(getattr(args, "board", None))
        return L.connect(getattr(args, "board", None))
    except (L.LinkError, ValueError) as e:  # ValueError: a board never paired, a bad address
        raise UserError(str(e)) from None
