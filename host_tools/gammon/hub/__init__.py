"""Every command at once: one process of the same user holds the board's link and serves any
number of ``gammon`` commands through a unix socket (the board serves one connection).

``connect(board)`` is what the commands use (``gammon.commands.board.open_board``): it gives a
``HubClient``, a ``gammon.link.Client`` whose requests go to the hub, which sends them to the
board over its one authenticated session, one request at a time, and routes each answer (and
a FETCH's DATA frames) back to the command that asked. WATCH is per command: the hub keeps the
board's watch on while any command watches and hands every live record to each of them.

The hub starts on demand: the first command that finds no hub socket starts one
(``python -m gammon.hub ADDRESS``, detached) and waits for it. It logs in with the pairing key
saved for the board, as a command does (``gammon.link.connect``: the same busy back-off, the
same errors, handed on to the waiting commands word for word). It ends ``IDLE_S`` seconds after
its last command left, when the board's link drops, or when ``gammon pair`` needs the slot.

Who may talk to it: the socket lives in a per-user runtime dir (``$XDG_RUNTIME_DIR/gammon``,
else ``<tmp>/gammon-<uid>``; ``GAMMON_RUNTIME_DIR`` overrides it) that must be the user's own
with mode 0700, the socket itself is 0600, and the hub checks each peer's uid
(``SO_PEERCRED``) where the system has it.

``GAMMON_NO_DAEMON=1`` (or ``--direct``) skips the hub: the command opens the link itself, as
before; it then finds the board busy while a hub holds it.
"""

import hashlib
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bg import link as P

from gammon.hub import wire as W
from gammon.link.base import LinkError
from gammon.link.client import Client

IDLE_S = 45.0  # the hub ends this long after its last command left (GAMMON_HUB_IDLE)
START_S = 10.0  # a started hub has this long to open its socket
READY_S = 90.0  # ... and this long to log in (a busy board: gammon.link.BUSY_WAIT; a BLE bond)
QUEUE_S = 60.0  # a request may wait this long for its turn (other commands' transfers first)
PATH_MAX = 100  # sun_path holds 104-108 bytes depending on the system


def enabled():
    """Whether commands go through the hub: on systems with unix sockets, unless
    ``GAMMON_NO_DAEMON`` is set (to anything but 0)."""
    if os.environ.get("GAMMON_NO_DAEMON", "") not in ("", "0"):
        return False
    return os.name == "posix" and hasattr(socket, "AF_UNIX")


def idle_seconds():
    try:
        return float(os.environ.get("GAMMON_HUB_IDLE") or IDLE_S)
    except ValueError:
        return IDLE_S


def runtime_dir():
    """The per-user folder of the hub's sockets, created 0700; a folder another user owns or
    opens to others is refused (someone could put their own socket there)."""
    env = os.environ.get("GAMMON_RUNTIME_DIR")
    if env:
        d = Path(env)
    elif os.environ.get("XDG_RUNTIME_DIR"):
        d = Path(os.environ["XDG_RUNTIME_DIR"]) / "gammon"
    else:
        d = Path(tempfile.gettempdir()) / ("gammon-%d" % os.getuid())
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(d)
    except OSError as e:
        raise LinkError("cannot use the hub's folder %s: %s" % (d, e)) from None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise LinkError(
            "the hub's folder %s is not private to this user (owner uid %d, mode %o): remove it, or "
            "set GAMMON_NO_DAEMON=1" % (d, st.st_uid, stat.S_IMODE(st.st_mode))
        )
    return d


def _key(address):
    from gammon.link.keys import config_dir

    # one hub per board address and set of saved keys (a test's config dir is its own)
    raw = "%s\0%s" % (Path(config_dir()).resolve(), address)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]


def socket_path(address):
    p = runtime_dir() / ("hub-%s.sock" % _key(address))
    if len(str(p)) > PATH_MAX:
        raise LinkError("the hub's socket path %s is too long: set GAMMON_RUNTIME_DIR to a short folder" % p)
    return p


def resolve(board_spec, boards):
    """``(address, board id or None)`` of a board spec, with the errors ``gammon.link.connect``
    gives (a board never paired is a ``ValueError``)."""
    if board_spec and ":" in board_spec and board_spec.split(":")[0] in ("tcp", "serial", "ble"):
        if not any(e["address"] == board_spec for e in boards.data["boards"].values()):
            raise ValueError("board %s is not paired: run 'gammon pair %s'" % (board_spec, board_spec))
        return board_spec, None
    bid, entry = boards.find(board_spec)
    return entry["address"], bid


class _HubEnd:
    """Stands in for ``bg.link.host.HostEnd`` in a ``HubClient``: requests become REQ
    messages, and what the hub sends back becomes the board's frames ``(type, payload, flags)``
    again. A FAIL raises its ``LinkError`` (after the frames that came before it)."""

    def __init__(self):
        self.reader = W.Reader()
        self.failed = None
        self.board_id = None
        self.sent = False  # a SENT came: the board has the request now

    def request(self, ftype, payload=b""):
        return W.pack(W.REQ, ftype, 0, payload)

    def feed(self, data):
        out = []
        try:
            msgs = self.reader.feed(data)
        except ValueError as e:
            raise LinkError("the gammon hub sent garbage: %s" % e) from None
        for kind, a, b, body in msgs:
            if kind == W.FRAME:
                out.append((a, body, b))
            elif kind == W.SENT:
                self.sent = True
            elif kind == W.READY:
                self.board_id = body
            elif kind == W.FAIL and self.failed is None:
                self.failed = W.fail_error(a, body)
        if self.failed is not None and not out:
            raise self.failed
        return out


class _Socket:
    """The client's transport: the hub's unix socket."""

    mtu = 515

    def __init__(self, sock, end):
        self.sock = sock
        self.end = end

    def send(self, data):
        if self.end.failed is not None:
            raise self.end.failed
        try:
            self.sock.sendall(data)
        except OSError as e:
            self._last_words()
            if self.end.failed is not None:
                raise self.end.failed from None
            raise LinkError("link lost: the gammon hub went away (%s)" % e) from None

    def _last_words(self):
        """What a hub that hung up said before (its FAIL: why), read after a failed send."""
        try:
            self.sock.settimeout(0.2)
            while True:
                data = self.sock.recv(65536)
                if not data:
                    return
                self.end.feed(data)
        except (OSError, LinkError):
            return

    def recv(self, timeout):
        if self.end.failed is not None:
            raise self.end.failed
        self.sock.settimeout(max(timeout, 0.001))
        try:
            data = self.sock.recv(65536)
        except TimeoutError:
            return b""
        except OSError as e:
            raise LinkError("link lost: the gammon hub went away (%s)" % e) from None
        if not data:
            raise LinkError("link lost: the gammon hub closed the connection")
        return data

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class HubClient(Client):
    """A ``gammon.link.Client`` whose requests go through the hub: the same methods, the same
    answers and errors (the hub holds the board's session and its keys)."""

    def __init__(self, sock, address):
        end = _HubEnd()
        Client.__init__(self, _Socket(sock, end), address)
        self.host = end

    def _next(self, timeout):
        """As ``Client._next``, the time counted from when the hub sent the request to the
        board: while other commands' requests go first it waits its turn in the hub (up to
        ``QUEUE_S`` more)."""
        end = time.monotonic() + timeout + QUEUE_S
        self.host.sent = False  # (one that came with the last answer was that request's)
        while True:
            while self.pending:
                fr = self.pending.pop(0)
                if fr[0] == P.EVENT:
                    self.events.append(fr[1])
                    continue
                return fr
            if self.host.sent:
                self.host.sent = False
                end = time.monotonic() + timeout
            left = end - time.monotonic()
            if left <= 0:
                raise LinkError("the board did not answer within %.0f s" % timeout)
            data = self.t.recv(min(left, 0.5))
            if data:
                self.pending.extend(self.host.feed(data))

    def ready(self, timeout):
        """Wait for the hub's READY: the board's id, once the hub holds an authenticated session."""
        end = time.monotonic() + timeout
        while self.host.board_id is None:
            left = end - time.monotonic()
            if left <= 0:
                raise LinkError("the gammon hub did not reach the board within %.0f s" % timeout)
            data = self.t.recv(min(left, 0.5))
            if data:
                self.pending.extend(self.host.feed(data))
        self.board_id = self.host.board_id
        return self.board_id.hex()


def connect(board_spec=None, boards=None):
    """An authenticated ``HubClient`` for a saved board (as ``gammon.link.connect``), through
    the hub of its address, started here when none runs."""
    from gammon.link.keys import LEGACY_BOARD_ID, Boards

    boards = boards or Boards()
    address, want = resolve(board_spec, boards)
    path = socket_path(address)
    for attempt in range(3):
        c = HubClient(_dial(path, address), address)
        try:
            c.t.send(W.pack(W.HELLO, body=address.encode("utf-8")))
            got = c.ready(READY_S)
        except LinkError as e:
            c.close()
            # a hub that was just ending hung up without a word: start another one
            if c.host.failed is None and str(e).startswith("link lost: the gammon hub") and attempt < 2:
                continue
            raise
        if want and got != want and want != LEGACY_BOARD_ID:
            c.close()
            raise LinkError("the board at %s is %s, not the paired %s" % (address, got, want))
        return c
    raise LinkError("the gammon hub for %s keeps closing" % address)  # not reached


def release(address):
    """Ask the hub of ``address`` (if one runs) to let go of the board and end; waits until it
    has. ``gammon pair`` needs the board's only connection."""
    try:
        path = socket_path(address)
    except LinkError:
        return False
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(str(path))
        s.sendall(W.pack(W.QUIT))
        s.settimeout(10.0)
        while s.recv(4096):
            pass
    except OSError:
        return False
    finally:
        s.close()
    return True


def _dial(path, address):
    """A connected socket to the hub at ``path``; starts the hub when nothing answers there."""
    end = time.monotonic() + START_S
    started = 0.0
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(str(path))
            return s
        except (FileNotFoundError, ConnectionRefusedError):
            s.close()
        except OSError as e:
            s.close()
            raise LinkError("cannot reach the gammon hub at %s: %s" % (path, e)) from None
        # again after a while: one started while the last hub was still ending leaves at once
        if time.monotonic() - started > 1.0:
            _start(address, path)
            started = time.monotonic()
        if time.monotonic() > end:
            raise LinkError("the gammon hub did not start (see %s)" % log_path(path))
        time.sleep(0.05)


def log_path(path):
    return Path(str(path)[: -len(".sock")] + ".log")


def _start(address, path):
    """Start the hub for ``address``, detached (its own session; the launcher exits at once,
    so no zombie is left with this command). Its config dir is this command's."""
    from gammon.link.keys import config_dir

    env = dict(os.environ)
    env["GAMMON_CONFIG_DIR"] = str(Path(config_dir()).resolve())
    env["GAMMON_RUNTIME_DIR"] = str(Path(path).parent)
    # the folder holding the gammon package, for ``-m gammon.hub`` from a source tree too
    top = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = top + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    subprocess.run(
        [sys.executable, "-m", "gammon.hub", "--detach", address],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )
