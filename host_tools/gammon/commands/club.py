"""``gammon club``: the club server and a board host's membership of it (docs/club.md).

- ``gammon club serve --db CONNINFO``: the web service (``gammon.club.app``);
- ``gammon club token add HOST --event NAME`` / ``token revoke ID|HOST`` / ``token list``:
  the organiser's tokens, straight in the database;
- ``gammon club pairing add EVENT ROUND PLAYER PLAYER [--board B]`` / ``pairing list EVENT``:
  the organiser's rounds (the standings come from the finished matches);
- ``gammon club worker``: an analysis worker (``gammon.club.worker``);
- ``gammon club join URL TOKEN``: this host's membership (then ``gammon sync --club``,
  ``gammon watch --club``).

The database is given with ``--db`` (a libpq connection string or URI) or ``$GAMMON_CLUB_DB``.
"""

import os

from gammon.cli import UserError


def _db(args):
    db = args.db or os.environ.get("GAMMON_CLUB_DB")
    if not db:
        raise UserError("which database? give --db CONNINFO or set GAMMON_CLUB_DB")
    return db


def _connect(args):
    import psycopg

    from gammon.club import schema

    try:
        conn = psycopg.connect(_db(args))
        schema.migrate(conn)
    except psycopg.Error as e:
        raise UserError("cannot use the club database: %s" % str(e).strip().splitlines()[0]) from None
    return conn


def cmd_serve(args):
    from gammon.club import app

    _connect(args).close()  # a bad --db is one line here, not a traceback from the server
    app.serve(
        _db(args), host=args.host, port=args.port, rate=args.rate, window=args.window, log_level=args.log
    )
    return 0


def cmd_token(args):
    from gammon.club import schema

    with _connect(args) as conn:
        if args.action == "add":
            if not args.host or not args.event:
                raise UserError("token add needs HOST and --event NAME")
            try:
                tid, token = schema.add_token(conn, args.host, args.event, args.rate)
            except ValueError as e:
                raise UserError(str(e)) from None
            print("token %d for host %s in event %s (shown once, keep it):" % (tid, args.host, args.event))
            print(token)
        elif args.action == "revoke":
            if not args.host:
                raise UserError("token revoke needs a token id or a host name")
            n = schema.revoke_token(conn, args.host)
            if not n:
                raise UserError("no live token %r" % args.host)
            print("revoked %d token(s)" % n)
        else:
            for tid, host, event, created, revoked in schema.list_tokens(conn):
                state = "revoked %s" % revoked.strftime("%Y-%m-%d %H:%M") if revoked else "live"
                print(
                    "%4d  %-20s %-20s %s  %s" % (tid, host, event, created.strftime("%Y-%m-%d %H:%M"), state)
                )
    return 0


def cmd_pairing(args):
    from gammon.club import schema

    with _connect(args) as conn:
        if args.action == "add":
            if args.round is None or len(args.players) != 2:
                raise UserError("pairing add needs EVENT ROUND PLAYER PLAYER")
            p0, p1 = args.players
            try:
                schema.add_pairing(conn, args.event, args.round, p0, p1, args.board)
            except ValueError as e:
                raise UserError(str(e)) from None
            print("round %d: %s - %s%s" % (args.round, p0, p1, " on " + args.board if args.board else ""))
        else:
            for rnd, board, q0, q1 in schema.pairings(conn, args.event):
                print("round %-3d %-12s %s - %s" % (rnd, board, q0, q1))
    return 0


def cmd_worker(args):
    from gammon.club import worker

    _connect(args).close()
    worker.run(_db(args), name=args.name, once=args.once)
    return 0


def cmd_join(args):
    from gammon.club import push

    try:
        who = push.join(args.url, args.token)
    except push.ClubError as e:
        raise UserError(str(e)) from None
    print("joined the club at %s as host %s, event %s" % (args.url, who["host"], who["event"]))
    return 0


def register(sub):
    p = sub.add_parser("club", help="the club server (PostgreSQL) and this host's membership of it")
    csub = p.add_subparsers(dest="club_command", metavar="ACTION", required=True)

    def db(q):
        q.add_argument("--db", help="PostgreSQL connection string (default: $GAMMON_CLUB_DB)")

    q = csub.add_parser("serve", help="run the club's web service")
    db(q)
    q.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: behind a TLS proxy)"
    )
    q.add_argument("--port", type=int, default=8000)
    q.add_argument("--rate", type=int, default=120, help="requests per token per window (default 120)")
    q.add_argument("--window", type=int, default=10, help="the rate limit's window in seconds (default 10)")
    q.add_argument("--log", default="warning", choices=("critical", "error", "warning", "info", "debug"))
    q.set_defaults(func=cmd_serve)

    q = csub.add_parser("token", help="issue, revoke or list the hosts' push tokens")
    db(q)
    q.add_argument("action", choices=("add", "revoke", "list"))
    q.add_argument("host", nargs="?", help="add: the host's name; revoke: a token id or host name")
    q.add_argument("--event", help="add: the event its boards play in")
    q.add_argument("--rate", type=int, help="add: its requests per window (default: the server's --rate)")
    q.set_defaults(func=cmd_token)

    q = csub.add_parser("pairing", help="the organiser's rounds: pair two players (on a board), list them")
    db(q)
    q.add_argument("action", choices=("add", "list"))
    q.add_argument("event")
    q.add_argument("round", nargs="?", type=int)
    q.add_argument("players", nargs="*", metavar="PLAYER")
    q.add_argument("--board", default="", help="add: the board they play on")
    q.set_defaults(func=cmd_pairing)

    q = csub.add_parser(
        "worker", help="analyse finished matches with GNU Backgammon (jobs from the database)"
    )
    db(q)
    q.add_argument("--name", help="this worker's name in the job log (default host:pid)")
    q.add_argument("--once", action="store_true", help="stop when no job is queued")
    q.set_defaults(func=cmd_worker)

    q = csub.add_parser("join", help="join a club: its address and this host's token")
    q.add_argument("url")
    q.add_argument("token")
    q.set_defaults(func=cmd_join)
