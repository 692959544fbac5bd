"""Library commands: ``gammon sync`` (board -> library, incremental), ``gammon import FILE``,
``gammon list`` (filters), ``gammon export GAME --format mat|sgf|json|svg|ids -o PATH``,
``gammon watch`` (live view), ``gammon analyze GAME`` (GNU Backgammon's evaluation, when the
``gnubg`` package is installed). ``gammon.library_show.show_game`` prints a match move by move with board
diagrams (wired as ``gammon show GAME`` by the CLI's ``show`` command).

GAME is a match id from ``gammon list`` (or a unique prefix of 4+ hex digits), ``#N`` (the N-th
match of ``gammon list``), or the path of a journal file from the board or the simulator.
See docs/host-tool.md.
"""

import datetime
import os
import sys
import tempfile
from pathlib import Path

from gammon import model
from gammon.analyze import analysis_lines  # ``gammon analyze``'s logic (its own module)
from gammon.errors import MissingPackage, UserError
from gammon.library import CONFLICT, NEW, SAME, UPDATED, Library, LibraryError
from gammon.library_show import load_game, pick_game
from gammon.sync import offer_seed as _offer_seed
from gammon.sync import sync  # ``gammon sync``'s logic (its own module)

FORMATS = ("mat", "sgf", "json", "svg", "ids")
_EXT = {"mat": ".mat", "sgf": ".sgf", "json": ".json", "ids": ".txt"}


# --- helpers ---------------------------------------------------------------------------------


def _open_library(create=True):
    try:
        return Library.open(create=create)
    except LibraryError as e:
        raise UserError(str(e)) from None


def _write_atomic(path, text):
    """Write ``text`` to ``path`` via a temp file + rename: a full disk leaves no half file."""
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".gammon-", dir=str(path.parent))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise UserError("cannot write %s: %s" % (path, e.strerror or e)) from None
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def _parse_date(text, end=False):
    try:
        d = datetime.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        raise UserError("bad date %r (use YYYY-MM-DD)" % text) from None
    if end:
        d += datetime.timedelta(days=1, seconds=-1)
    return int(d.timestamp())


class Progress:
    """A one-line text progress bar on stderr (only when it is a terminal, unless forced)."""

    def __init__(self, stream=None, force=False):
        self.stream = stream or sys.stderr
        self.on = force or self.stream.isatty()
        self.label = ""

    def __call__(self, done, total):
        if not self.on:
            return
        total = max(total or 0, done, 1)
        n = int(30 * done / total)
        bar = "#" * n + "." * (30 - n)
        self.stream.write("\r%-28s [%s] %3d%%" % (self.label[:28], bar, 100 * done // total))
        self.stream.flush()

    def end(self):
        if self.on:
            self.stream.write("\n")
            self.stream.flush()


# --- gammon list -----------------------------------------------------------------------------


def find_filters(args):
    """``Library.find`` keyword arguments from ``gammon list``'s filter options (``--player``,
    ``--since``/``--until`` as YYYY-MM-DD in UTC, ``--result``, ``--length`` N or money,
    ``--board``); bad values raise UserError. Shared by every command that selects matches
    the way ``gammon list`` does (``gammon dice-stats --library``)."""
    length = None
    if args.length is not None:
        length = 0 if args.length in ("money", "0") else _int(args.length, "--length")
    return {
        "player": args.player,
        "since": _parse_date(args.since) if args.since else None,
        "until": _parse_date(args.until, end=True) if args.until else None,
        "result": args.result,
        "length": length,
        "board": args.board,
    }


def cmd_list(args):
    filters = find_filters(args)
    try:
        lib = Library.open(create=False)
    except LibraryError as e:
        print("no match in the library (%s)" % e)
        return 0
    with lib:
        rows = lib.find(**filters)
        total = lib.count()
        index = {
            mid: i + 1
            for i, (mid,) in enumerate(
                lib.db.execute("SELECT id FROM matches ORDER BY started, id").fetchall()
            )
        }
    if not rows:
        print(
            "no match%s in the library (%d stored; %s)"
            % (" matches these filters" if total else "", total, lib.path)
        )
        return 0
    print(
        "%-4s %-16s %-16s %-5s %-33s %-7s %s" % ("#", "id", "date (UTC)", "len", "players", "score", "result")
    )
    for e in rows:
        print(
            "%-4s %-16s %-16s %-5s %-33s %-7s %s"
            % (
                "#%d" % index[e.id],
                e.id,
                e.date_text(),
                e.length or "money",
                ("%s - %s" % e.players)[:33],
                "%d-%d" % e.score,
                e.result_text(),
            )
        )
    return 0


def _int(v, what):
    try:
        return int(v)
    except ValueError:
        raise UserError("%s wants a number, got %r" % (what, v)) from None


# --- gammon export ---------------------------------------------------------------------------


def export_text(m, fmt):
    """The text of ``m`` in a text format (mat, sgf, json, ids)."""
    from gammon.formats import ids, json_export, mat, sgf

    return {"mat": mat.export, "sgf": sgf.export, "json": json_export.export, "ids": ids.export}[fmt](m)


def cmd_export(args):
    m, label = load_game(args.game)
    fmt = args.format
    if fmt == "svg":
        from gammon.formats import svg

        if not args.output:
            raise UserError("svg needs -o DIR (a folder of images) or -o FILE.svg (one position)")
        if args.output.endswith(".svg"):
            g = pick_game(m, args.game_no)
            plays = [a for a in g.actions if a.kind == "play"]
            if args.move:
                if not 1 <= args.move <= len(plays):
                    raise UserError(
                        "game %d has %d plays; --move must be 1..%d" % (g.number, len(plays), len(plays))
                    )
                a = plays[args.move - 1]
                cap = "%s to play %d%d" % (m.names[a.side], a.dice[0], a.dice[1])
                text = svg.position_svg(a.pos, a.side, m.names, cap)
            else:
                pos = g.final_pos if g.finished else (plays[-1].after if plays else None)
                if pos is None:
                    raise UserError("game %d has no position to draw yet" % g.number)
                side = g.winner if g.finished else 1 - plays[-1].side
                text = svg.position_svg(pos, side, m.names, "after game %d" % g.number if g.finished else "")
            _write_atomic(args.output, text)
            print("wrote %s" % args.output)
            return 0
        try:
            paths = svg.export_folder(m, args.output, game=args.game_no)
        except OSError as e:
            raise UserError("cannot write %s: %s" % (args.output, e.strerror or e)) from None
        print("wrote %d diagrams under %s" % (len(paths), args.output))
        return 0
    if fmt == "mat" and not Path(args.game).is_file():
        from gammon.formats import mat

        text = mat.export(m, site=label if label != m.id_hex else "Smart backgammon board")
    else:
        text = export_text(m, fmt)
    if fmt == "mat":
        from gammon.formats import mat

        for note in mat.gnubg_notes(m):  # also comment lines in the file
            print("gammon: warning: " + note, file=sys.stderr)
    if not args.output or args.output == "-":
        sys.stdout.write(text)
        return 0
    out = args.output
    if os.path.isdir(out):
        out = os.path.join(out, "%s%s" % (m.id_hex, _EXT[fmt]))
    _write_atomic(out, text)
    print("wrote %s" % out)
    return 0


# --- gammon import ---------------------------------------------------------------------------


def cmd_import(args):
    p = Path(args.file)
    try:
        data = model.read_file(p)
    except OSError as e:
        raise UserError("cannot read %s: %s" % (args.file, e.strerror or e)) from None
    except ValueError as e:
        raise UserError("%s: %s" % (args.file, e)) from None
    try:
        parts = model.split_matches(data, salvage=args.salvage)
    except ValueError as e:
        raise UserError("%s: %s" % (args.file, e)) from None
    salvaged = any("salvaged" in note for _part, note in parts)
    bad = 0
    with _open_library() as lib:
        for part, note in parts:
            try:
                status, e = lib.store(part, board=args.board or "", source="import:" + p.name)
            except LibraryError as err:
                raise UserError(str(err)) from None
            except ValueError as err:
                print("%s: skipped a damaged match: %s" % (args.file, err))
                bad += 1
                continue
            print(
                "%-8s %s  %s - %s  %d-%d  %s"
                % (status, e.id, e.player0, e.player1, e.score0, e.score1, e.result_text())
            )
            if status == CONFLICT:
                print("         (another match with this id is stored; kept both: this as a conflict copy)")
            if note:
                print("         note: %s" % note)
    if bad and bad == len(parts):
        raise UserError("%s: no valid match in the file" % args.file)
    return 1 if bad or salvaged else 0


# --- gammon sync -----------------------------------------------------------------------------


def cmd_sync(args):
    from gammon.board_args import open_board

    with _open_library() as lib, open_board(args) as client:
        try:
            stored, deleted, problems = sync(client, lib, delete=not args.keep, progress=Progress())
        except LibraryError as e:
            raise UserError(str(e)) from None
    print(
        "synced: %d new or updated match%s, %d deleted on the board%s"
        % (
            stored,
            "" if stored == 1 else "es",
            deleted,
            "" if not problems else ", %d problem(s)" % len(problems),
        )
    )
    if args.club:
        from gammon.club import push

        with _open_library() as lib:
            try:
                pushed, club_problems = push.push_library(lib, push.Pusher.from_config())
            except push.ClubError as e:
                raise UserError(str(e)) from None
        print("club: %d match%s pushed" % (pushed, "" if pushed == 1 else "es"))
        problems += club_problems
    return 1 if problems else 0


# --- gammon show / watch ---------------------------------------------------------------------


def watch_loop(client, out=None, clear=True, max_events=None, lib=None, learn=False, club=None):
    """Follow the board's live match: for every action the board publishes, print the throw,
    then the play in gnubg notation, then the board after it (``gammon.watch_view``; with
    ``learn`` also the pip counts, the opening book play, the shots at the blots a play left
    and the equity it lost, GNU Backgammon's 0-ply judgement).
    ``client``: a link Client (``list_games``, ``fetch_game``, ``watch``). Returns the replay.
    With a library ``lib``, a match starting meanwhile gets this host's player seed. ``club``
    (``gammon.club.push.LiveSink``) gets every record as a live event, and the live match's
    whole bytes (``snapshot``) at the start and after events were lost. In remote play the
    messages of the other board that this host's referee refused (``gammon remote play`` in
    another process: ``gammon.remote_notes``) show under the board as they come."""
    from bg import record

    from gammon import live_copy, remote_notes
    from gammon.watch_view import event_lines, learning_lines, screen

    out = out or sys.stdout
    judge = None
    if learn:
        from gammon.analyze import play_judge

        try:
            judge = play_judge()
        except MissingPackage:
            out.write("(the equity lost needs GNU Backgammon's Python module: pip install gnubg)\n")

    on = getattr(client, "watch_on", None)  # (None: a recorded stream, it cannot be switched)

    def fresh():
        """The live match from the board's copy, the watch on, with no record both in the copy
        and in the events that follow, nor in neither (``gammon.live_copy.settled``)."""
        data = live_copy.settled(client) if on is not None else live_copy.copy(client)
        r = model._Replay()
        if data:
            if club is not None:
                club("snapshot", data)
            for k, f in record.decode_stream(data):
                r.feed(k, f)
            if lib is not None:
                _offer_seed(client, lib, data, "", lambda s: None)
        return r

    def draw(r, lines=()):
        if clear:
            out.write("\x1b[2J\x1b[H")
        for line in lines:
            out.write(line + "\n")
        out.write(screen(r))
        for line in learning_lines(r, judge) if learn else ():
            out.write(line + "\n")
        m = r.m
        if m is not None and r.g is None and not m.games:  # before the opening: the dice's bond
            out.write(
                "dice commitment %s (%d player seed part(s))\n" % (m.commitment.hex(), len(m.seed_parts))
            )
        for line in refused:
            out.write("refused from the other board: %s\n" % line)
        out.flush()

    refused = []  # the last few refused remote messages, shown under the board
    bid = getattr(client, "board_id", None)
    notes = remote_notes.Reader(remote_notes.path_for(bid)) if bid else None

    def tick():
        new = notes.new()
        if new:
            refused[:] = (refused + new)[-3:]
            draw(r)

    r = fresh()
    draw(r)
    n = 0
    while True:
        stream = client.watch(tick=tick) if notes is not None else client.watch()
        for rec in stream:
            n += 1
            if rec is None and on is not None:
                break  # events were lost: the watch off, then the board's copy as at the start
            if rec is None:
                r = fresh()
                draw(r, ["(resynchronised)"])
            else:
                if club is not None:
                    club("append", rec)
                lines = []
                for k, f in record.decode_stream(rec):
                    if k == record.MATCH_START:
                        r = model._Replay()
                        if lib is not None:
                            _offer_seed(client, lib, rec, "", lambda s: None)
                    if r.m is None and k != record.MATCH_START:
                        continue
                    before = len(r.g.actions) if r.g is not None and k != record.GAME_START else 0
                    r.feed(k, f)
                    lines += event_lines(r, k, f, before)
                draw(r, lines)
            if max_events is not None and n >= max_events:
                stream.close()
                return r
        else:
            return r
        stream.close()  # (its end turns the watch off)
        client.wait_events(0)  # sent before the watch went off: the copy holds them
        r = fresh()
        draw(r, ["(resynchronised)"])


def cmd_watch(args):
    from gammon.board_args import open_board

    with _open_library() as lib, open_board(args) as client:
        club = None
        if args.club:
            from gammon.club import push

            try:
                club = push.LiveSink(client.info().get("name") or "board")
            except push.ClubError as e:
                raise UserError(str(e)) from None
        try:
            watch_loop(client, clear=not args.no_clear, lib=lib, learn=args.learn, club=club)
        except KeyboardInterrupt:
            pass
        except ValueError as e:
            raise UserError("the live match does not replay: %s" % e) from None
    return 0


# --- gammon analyze --------------------------------------------------------------------------


def cmd_analyze(args):
    m, _label = load_game(args.game)
    print("\n".join(analysis_lines(m, plies=args.plies, top=args.top)))
    return 0


# --- registration ----------------------------------------------------------------------------


def register(sub):
    from gammon.board_args import add_board_argument

    p = sub.add_parser("sync", help="copy new games from the board into the local library")
    add_board_argument(p)
    p.add_argument("--keep", action="store_true", help="do not delete stored games on the board")
    p.add_argument("--club", action="store_true", help="then push finished matches to the club")
    p.set_defaults(func=cmd_sync)

    p = sub.add_parser("import", help="store a journal file from the board/simulator in the library")
    p.add_argument("file")
    p.add_argument("--board", help="the board it came from (for 'gammon list --board')")
    p.add_argument(
        "--salvage",
        action="store_true",
        help="a file damaged in the middle: store the readable part before the damage (exit status 1)",
    )
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("list", help="list the matches in the library")
    p.add_argument("--player", help="a player's name (part of it, any case)")
    p.add_argument("--since", metavar="YYYY-MM-DD")
    p.add_argument("--until", metavar="YYYY-MM-DD")
    p.add_argument(
        "--result", choices=("won", "lost", "finished", "unfinished"), help="won/lost: by --player"
    )
    p.add_argument("--length", help="match length, or 'money'")
    p.add_argument("--board", help="the board's name (part of it)")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("export", help="export a match: mat, sgf, json, svg, ids")
    p.add_argument("game", help="match id (prefix), #N from 'gammon list', or a journal file")
    p.add_argument("--format", "-f", choices=FORMATS, default="mat")
    p.add_argument("-o", "--output", help="file or folder (default: standard output; svg: required)")
    p.add_argument("--game", dest="game_no", type=int, help="only this game (svg)")
    p.add_argument("--move", type=int, help="svg to FILE.svg: the position before this play of the game")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("watch", help="live view of the match being played on the board")
    add_board_argument(p)
    p.add_argument("--no-clear", action="store_true", help="do not clear the screen between moves")
    p.add_argument(
        "--learn",
        action="store_true",
        help="learning mode: pip counts, the opening book play, shots at the blots left, the equity lost",
    )
    p.add_argument("--club", action="store_true", help="send the live match to the club too")
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser("analyze", help="GNU Backgammon's checker and cube analysis of a match (needs gnubg)")
    p.add_argument("game", help="match id (prefix), #N from 'gammon list', or a journal file")
    p.add_argument("--plies", type=int, default=0, help="evaluation depth (default 0)")
    p.add_argument("--top", type=int, default=3, help="how many of the biggest mistakes to show")
    p.set_defaults(func=cmd_analyze)


# names the status strings for callers
STATUSES = (NEW, UPDATED, SAME, CONFLICT)
