"""Board link commands: ``gammon scan`` (BLE, needs bleak), ``gammon pair ADDRESS``,
``gammon boards`` (saved pairings, default board) and ``gammon board info|rename|clock|hosts|
unpair|update|log``. Every command that talks to a board names and opens it with
``gammon.board_args`` (``add_board_argument``, ``open_board``)."""

import asyncio
import time

from bg import battery as B
from bg import link as P
from bg.link import info as I

from gammon import link as L
from gammon.board_args import add_board_argument, open_board
from gammon.errors import UserError

_STATES = {0: "live", 1: "finished", 2: "abandoned"}


def battery_text(block):
    """INFO's battery block (``bg.link.info``: mV, percent, state) as ``gammon board info``
    says it; None (an older board, or a session not logged in) is "not reported"."""
    if block is None:
        return "not reported"
    mv, pct, state = block
    if pct == B.NO_BATTERY or not state & B.F_BATTERY:
        return "none (USB power)"
    words = ["%d %% (%.2f V)" % (pct, mv / 1000.0)]
    if state & B.F_CRITICAL:
        words.append("critical: journal closed, game halted until charged")
    elif state & B.F_LOW:
        words.append("low: charge soon")
    if state & B.F_CHARGING:
        words.append("charging")
    if state & B.F_USB:
        words.append("on USB")
    if state & B.F_IDLE:
        words.append("idle mode")
    return ", ".join(words)


def _battery(c):
    """The battery line: INFO asked again and read whole with the board's own decoder (the
    client's ``info()`` reads the fields before the battery block only)."""
    try:
        return battery_text(I.decode(c.call(P.REQ_INFO))["battery"])
    except ValueError as e:
        raise UserError("bad INFO reply from the board: %s" % e) from None


def _show_value(value):
    """Numeric comparison, both sides: the user presses ROLL on the board and answers here."""
    print("Pairing number: %s %s" % (value[:3], value[3:]))
    print("If the board shows the same number, press its ROLL button, then answer y here")
    print("(within %.0f s). If it shows another number, press CUBE and answer n:" % L.CONFIRM_TIMEOUT)
    print("someone else may be in between.", flush=True)
    try:
        answer = input("Same number on the board? [y/N] ")
    except EOFError:
        answer = ""
    return answer.strip().lower() in ("y", "yes")


def cmd_scan(args):
    if not args.timeout > 0:
        raise UserError("--timeout must be a positive number of seconds")
    try:
        found = asyncio.run(L.scan(args.timeout))
    except L.LinkError as e:
        raise UserError(str(e)) from None
    if not found:
        print("no board found (is it on and in range?)")
        return 1
    for addr, name, rssi in found:
        print("ble:%s  %-24s %4d dBm" % (addr, name, rssi))
    return 0


def cmd_pair(args):
    print("Put the board in pairing mode (hold both ROLL buttons), then wait for the number.")
    from gammon import hub

    if hub.enabled():
        hub.release(args.address)  # pairing needs the board's only connection
    try:
        bid = L.pair(args.address, _show_value, host_name=args.name)
    except L.LinkError as e:
        raise UserError("pairing failed: %s" % e) from None
    except ValueError as e:  # an address that is none (tcp:, serial: or ble:)
        raise UserError(str(e)) from None
    boards = L.Boards()
    entry = boards.find(bid)[1]
    print("paired with %s (%s) at %s" % (entry["name"], bid, args.address))
    if len(boards.data["boards"]) > 1:
        print("it is the default board now ('gammon boards --default BOARD' chooses another)")
    return 0


def cmd_boards(args):
    try:  # ValueError: a damaged board list, a name that matches no board or several
        b = L.Boards()
        if args.forget:
            print("forgot", b.forget(args.forget))
            return 0
        if args.default:
            print("default board:", b.set_default(args.default))
            return 0
    except ValueError as e:
        raise UserError(str(e)) from None
    items = b.items()
    if not items:
        print("no paired board: run 'gammon pair ADDRESS'")
        return 0
    for bid, e in items:
        mark = "*" if bid == b.data.get("default") else " "
        print("%s %s  %-24s %s" % (mark, bid, e["name"], e["address"]))
    return 0


class _Progress:
    """``fwupdate.send``'s progress callback for one update: a line per tenth sent, each
    tenth once (a resumed attempt does not print again what an earlier one did)."""

    def __init__(self):
        self.last = -1

    def __call__(self, done, total):
        tenth = done * 10 // total if total else 10
        if tenth != self.last:
            self.last = tenth
            pct = done * 100 // total if total else 100
            print("  %7d / %d bytes (%d%%)" % (done, total, pct), flush=True)


_MODE_S = 60.0  # how long the host waits for a board restarting into update mode to answer
# how long the host keeps asking a board that answers "busy" for another reason (out of memory
# for a moment, a stranger holding the slot): a busy board keeps what it stored, so each try
# resumes where the bytes stand
_BUSY_S = 30.0


def cmd_update(args, tries=3):
    """``gammon board update BUNDLE``: the board restarts into update mode (nothing of the
    game runs beside the update: docs/update.md), the host reconnects and sends the bundle,
    resuming after a dropped connection (the board keeps what it stored), commits; the board
    then restarts into the new version (its trial and confirmation as before)."""
    from bg.link.fwupdate import MODE

    from gammon import fwupdate
    from gammon.release import read_bundle

    if not args.value:
        raise UserError("update needs the bundle file (make release)")
    try:
        blob = open(args.value, "rb").read()  # noqa: SIM115 - read whole, once
        _, version, files, total = read_bundle(blob)
    except (OSError, ValueError) as e:
        raise UserError("%s: %s" % (args.value, e)) from None
    print("bundle %s: version %s, %d files, %d bytes" % (args.value, version, len(files), total))
    progress = _Progress()
    attempt = 0
    restarting = None  # time.monotonic() when the board said it restarts into update mode
    busy = None  # time.monotonic() of the first other "busy" answer in a row
    while True:
        try:
            with open_board(args) as c:
                got = fwupdate.send(c.call, blob, progress)
            if got.endswith(fwupdate.ALREADY):
                print("board already runs version %s: nothing changed" % version)
            else:
                print("board has version %s pending: it restarts into it now" % got)
            return 0
        except L.LinkError as e:
            if e.code == P.E_BUSY and MODE in str(e):
                if restarting is not None:  # it was to come back in update mode, and did not
                    raise UserError("the board came back without its update mode: %s" % e) from None
                print("the board restarts into update mode: reconnecting", flush=True)
                restarting = time.monotonic()
                time.sleep(max(e.retry_ms, 500) / 1000.0)
                continue
            if e.code == P.E_BUSY:  # not a refusal: the board asks to be asked again
                now = time.monotonic()
                busy = now if busy is None else busy
                if now - busy >= _BUSY_S:
                    raise UserError(
                        "the board stayed busy for %d s: %s (run the same command again: it resumes)"
                        % (_BUSY_S, e)
                    ) from None
                print("the board is busy (%s): retrying" % e, flush=True)
                time.sleep(max(e.retry_ms, 500) / 1000.0)
                continue
            busy = None
            if e.code:  # the board refused (bad signature, damaged, older, on trial...): final
                why = str(e)
                if "downgrade refused" in why:
                    why += " (the board confirmed a newer release: updates only go forward)"
                raise UserError("the board refused version %s: %s" % (version, why)) from None
            attempt += 1
            if attempt == tries:
                raise UserError("%s (run the same command again: it resumes)" % e) from None
            print("connection lost (%s): resuming" % e, flush=True)
        except UserError:
            # not reachable: a board restarting into update mode gets _MODE_S to come back
            waiting = restarting is not None and time.monotonic() - restarting < _MODE_S
            if not waiting:
                attempt += 1
                if attempt >= tries:
                    raise
            time.sleep(1.0 if not waiting else 0.3)
        except ValueError as e:  # fwupdate: the board's answers do not add up (another bundle)
            raise UserError("update stopped: %s" % e) from None


def cmd_board(args):
    if args.action == "update":
        return cmd_update(args)
    with open_board(args) as c:
        try:
            if args.action == "info":
                for k, v in c.info().items():
                    print("%-15s %s" % (k, v))
                print("%-15s %s" % ("battery", _battery(c)))
                for g in c.list_games():
                    print("game %s  %7d bytes  %s" % (g["id"], g["size"], _STATES.get(g["state"], "?")))
            elif args.action == "rename":
                if not args.value:
                    raise UserError("rename needs the new name")
                c.rename(args.value)
                print("renamed to", args.value)
            elif args.action == "clock":
                t = c.set_clock(_clock_value(args.value))
                print("board clock set to", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t)))
            elif args.action == "hosts":
                for hid, name in c.hosts():
                    print(hid, name)
            elif args.action == "unpair":
                c.unpair(args.value)
                print("unpaired", args.value or "this host")
            elif args.action == "log":
                _print_crash_log(crash_log(c))
        except L.LinkError as e:
            raise UserError(str(e)) from None
    return 0


def _clock_value(text):
    """``board clock [UNIX_TIME]``: the time to set (None: this computer's)."""
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise UserError("clock wants a Unix time in seconds, got %r" % text) from None


def crash_log(client):
    """The board's crash log (REQ_CRASH_LOG, page by page): ``[(seq, unix time, cause, text)]``,
    oldest first. A malformed answer is a ``LinkError``."""
    from bg import crashlog as CL
    from bg import link as P

    out = []
    start = 0
    while True:
        try:
            total, got, es = CL.parse_page(client.call(P.REQ_CRASH_LOG, bytes([start])))
        except ValueError as e:
            raise L.LinkError("board sent a bad crash log: %s" % e) from None
        if got != start:
            raise L.LinkError("board sent a bad crash log: page %d for %d" % (got, start))
        out += es
        start += len(es)
        if not es or start >= total:
            return out


def _print_crash_log(entries):
    from bg.crashlog import CAUSE_NAMES

    if not entries:
        print("crash log: empty")
    for seq, t, cause, text in entries:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) if t else "-" * 19
        name = CAUSE_NAMES[cause] if cause < len(CAUSE_NAMES) else "cause %d" % cause
        print("%5d  %s  %-10s %s" % (seq, when, name, text))


def register(sub):
    p = sub.add_parser("scan", help="find boards over BLE (needs bleak)")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds to listen (default 5)")
    p.set_defaults(func=cmd_scan)

    p = sub.add_parser(
        "pair", help="pair with a board (compare the value it shows with the one printed, press ROLL)"
    )
    p.add_argument("address", help="ble:ADDRESS, serial:/dev/ttyUSB0 or tcp:127.0.0.1:7607")
    p.add_argument("--name", help="this host's name on the board (default: hostname)")
    p.set_defaults(func=cmd_pair)

    p = sub.add_parser("boards", help="list paired boards; choose the default; forget one")
    p.add_argument("--default", metavar="BOARD", help="make BOARD the default")
    p.add_argument("--forget", metavar="BOARD", help="delete the saved key of BOARD")
    p.set_defaults(func=cmd_boards)

    p = sub.add_parser(
        "board", help="talk to a paired board: info, rename, clock, hosts, unpair, update, log"
    )
    p.add_argument("action", choices=("info", "rename", "clock", "hosts", "unpair", "update", "log"))
    p.add_argument("value", nargs="?", help="new name / unix time / host id / bundle file")
    add_board_argument(p)
    p.set_defaults(func=cmd_board)
