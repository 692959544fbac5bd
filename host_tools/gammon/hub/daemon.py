"""The hub process: one authenticated session with the board, shared by every ``gammon``
command of this user (``gammon.hub``).

The board answers one request at a time (docs/protocol.md), so the hub queues the commands'
requests and sends the next one when the board has answered the last: RSP or ERROR ends a
turn, and a FETCH's turn lasts until its last DATA frame (its ACKs go straight through). EVENT
frames go to every command that watches. The board's watch is on while any command watches; a
command that starts watching later gets first the record the board gives a new watcher (a
throw waiting for its play: ``bg.link.requests.watch``), which the hub keeps from the stream.

A command that goes away mid-request wedges nothing: its answer is dropped when it comes, its
transfer is cancelled (CANCEL), its watch ends. A command that stops reading is dropped once
``BACKLOG`` bytes wait for it. The board's link going down ends the hub, and every command gets
the link's error (they reconnect as they do to a board: a new hub starts).

Threads: the board's transport is read by one thread (``_read_board``: the transports block);
everything else runs on the main thread's selector loop.
"""

import collections
import fcntl
import os
import selectors
import socket
import struct
import sys
import threading
import time

from bg import link as P
from bg import record

from gammon.hub import wire as W
from gammon.link.base import TIMEOUT, LinkError

BACKLOG = 4 << 20  # bytes queued for one command before the hub drops it
ANSWER_S = 3 * TIMEOUT  # the board answers every request; silence this long is a dead link
STARTER_S = 10.0  # a hub that cannot log in waits this long for the command that started it
_SELF = "hub"  # the owner of the hub's own requests (watch off, cancel): answers dropped


class Peer:
    """One command on the socket."""

    def __init__(self, sock):
        self.sock = sock
        self.reader = W.Reader()
        self.out = bytearray()
        self.hello = False
        self.watching = False
        self.gone = False


class Hub:
    def __init__(self, address, path, idle, log=None):
        self.address = address
        self.path = str(path)
        self.idle = idle
        self.log = log or (lambda s: print(time.strftime("%H:%M:%S"), s, file=sys.stderr, flush=True))
        self.sel = selectors.DefaultSelector()
        self.peers = {}
        self.queue = collections.deque()  # (peer or _SELF, type, payload)
        self.owner = None  # whose request the board is answering
        self.want = None  # the answer type that ends the turn
        self.xfer = False  # the turn is a FETCH's, until its last DATA
        self.since = 0.0
        self.board_watch = False
        self.last_roll = None  # the newest event record when it is a ROLL (waits for its play)
        self.link = None
        self.board_id = None
        self.down = None  # LinkError once the link cannot be had / is lost
        self.inbox = collections.deque()
        self.wake_r, self.wake_w = socket.socketpair()
        self.last_peer = time.monotonic()
        self.stopping = False
        self.unpairing = False  # the request in flight unpairs this host: the session ends
        self.accepted = 0
        self.started = time.monotonic()

    # -- the socket

    def listen(self):
        """Take the address's lock (one hub per address: a second one started meanwhile
        leaves), then bind the socket 0600. False when another hub runs."""
        self.lock = open(self.path[: -len(".sock")] + ".lock", "a")  # noqa: SIM115 - held for life
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        try:  # the log is this hub's now (its output is appended: it starts at 0 again)
            os.truncate(self.path[: -len(".sock")] + ".log", 0)
        except OSError:
            pass
        try:
            os.unlink(self.path)  # a hub that died without cleaning up
        except FileNotFoundError:
            pass
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            self.srv.bind(self.path)
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        self.ino = os.stat(self.path).st_ino
        self.srv.listen(16)
        self.srv.setblocking(False)
        self.sel.register(self.srv, selectors.EVENT_READ, "accept")
        self.sel.register(self.wake_r, selectors.EVENT_READ, "wake")
        return True

    def _accept(self):
        try:
            sock, _ = self.srv.accept()
        except (BlockingIOError, InterruptedError):
            return None
        if not same_user(sock):
            self.log("refused a peer of another user")
            try:
                sock.sendall(W.fail("the gammon hub serves only its own user", P.E_DENIED))
            except OSError:
                pass
            sock.close()
            return None
        sock.setblocking(False)
        self.accepted += 1
        peer = Peer(sock)
        self.peers[sock] = peer
        self.sel.register(sock, selectors.EVENT_READ, peer)
        return peer

    # -- the board

    def open_board(self):
        """Log in (a thread: clients are accepted meanwhile, and told the outcome)."""

        def run():
            from gammon import link as L

            try:
                self.link = L.connect(self.address)
                self.board_id = self.link.board_id
                self.log("logged in to %s (%s)" % (self.address, self.board_id.hex()))
                frames = list(self.link.pending)
                self.link.pending = []
                self._post(("up", frames))
                self._read_board()
            except LinkError as e:
                self._post(("down", e))
            except Exception as e:  # noqa: BLE001 - a ValueError (unpaired), a transport's bug
                self._post(("down", LinkError(str(e) or type(e).__name__)))

        threading.Thread(target=run, daemon=True, name="gammon-hub-board").start()

    def _post(self, item):
        self.inbox.append(item)
        try:
            self.wake_w.send(b"x")
        except OSError:
            pass

    def _read_board(self):
        link = self.link
        try:
            while not self.stopping:
                data = link.t.recv(0.5)
                if data:
                    frames = link.host.feed(data)
                    if frames:
                        self._post(("frames", frames))
        except LinkError as e:
            if not self.stopping:
                self._post(("down", e))

    def _send_board(self, ftype, payload):
        try:
            self.link.t.send(self.link.host.request(ftype, payload))
        except (LinkError, ValueError) as e:
            self._link_down(e if isinstance(e, LinkError) else LinkError(str(e)))
            return False
        return True

    def _link_down(self, e):
        if self.down is None:
            self.down = e
            self.log("board link: %s" % e)
            for peer in list(self.peers.values()):
                self._fail(peer, e)

    # -- routing

    def _frame_to(self, peer, fr):
        if peer is _SELF or peer is None or peer.gone:
            return
        self._put(peer, W.pack(W.FRAME, fr[0], fr[2], fr[1]))

    def _put(self, peer, data):
        peer.out += data
        if len(peer.out) > BACKLOG:
            self.log("dropped a command that stopped reading")
            self._drop(peer)
            return
        self._flush(peer)

    def _flush(self, peer):
        if peer.gone:
            return
        try:
            n = peer.sock.send(peer.out)
            del peer.out[:n]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop(peer)
            return
        self.sel.modify(peer.sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if peer.out else 0), peer)

    def _fail(self, peer, e):
        if peer.gone:
            return
        peer.out += W.fail(str(e), e.code, e.retry_ms)
        peer.sock.setblocking(True)
        peer.sock.settimeout(2.0)
        try:
            peer.sock.sendall(peer.out)
        except OSError:
            pass
        self._drop(peer)

    def _board_frames(self, frames):
        for fr in frames:
            t = fr[0]
            if t == P.EVENT:
                self._event(fr)
            elif t == P.DATA:
                if self.xfer:
                    self.since = time.monotonic()
                    self._frame_to(self.owner, fr)
                    if fr[2] & P.FLAG_LAST:
                        self._end_turn()
            elif self.owner is not None and (t == self.want or t == P.ERROR):
                self._frame_to(self.owner, fr)
                if t == P.RSP | P.REQ_FETCH:
                    self.xfer = True  # the DATA frames follow
                    self.want = None
                    if self.owner is _SELF or self.owner.gone:
                        self._cancel()
                    continue
                if t == P.RSP | P.REQ_UNPAIR and self.unpairing:
                    self._end_turn()
                    self._link_down(LinkError("this host was unpaired from the board"))
                    return
                self._end_turn()
            elif t == P.ERROR:
                self.log("board error outside a request: %r" % (P.parse_error(fr[1]),))

    def _event(self, fr):
        ev = fr[1]
        if ev[:1] == b"\x00":
            try:
                kinds = [k for k, _ in record.decode_stream(ev[1:])]
            except ValueError:
                kinds = []
            self.last_roll = ev if kinds == [record.ROLL] else None
        else:
            self.last_roll = None  # lost events: each watcher fetches the live match again
        for peer in list(self.peers.values()):
            if peer.watching:
                self._frame_to(peer, fr)

    def _end_turn(self):
        self.owner = None
        self.want = None
        self.xfer = False
        self._next()

    def _cancel(self):
        """The transfer's command went away: stop the board sending (its answer is dropped)."""
        self.owner = _SELF
        self.xfer = False
        self.want = P.RSP | P.REQ_CANCEL
        self.since = time.monotonic()
        self._send_board(P.REQ_CANCEL, b"")

    def _next(self):
        """Send the next queued request when the board is free."""
        while self.owner is None and self.queue and self.down is None and self.link is not None:
            peer, ftype, payload = self.queue.popleft()
            if peer is not _SELF and peer.gone:
                continue
            if ftype == P.REQ_WATCH and peer is not _SELF:
                if self._watch(peer, payload):
                    continue
            self.unpairing = ftype == P.REQ_UNPAIR and not payload
            self.owner = peer
            self.want = P.RSP | ftype
            self.since = time.monotonic()
            if self._send_board(ftype, payload) and peer is not _SELF:
                self._put(peer, W.pack(W.SENT))

    def _watch(self, peer, payload):
        """A command's WATCH: True when answered here (the board's watch already as needed)."""
        on = payload == b"\x01"
        if payload not in (b"\x00", b"\x01"):
            return False  # the board's own E_PAYLOAD
        was = peer.watching
        peer.watching = on
        need = any(p.watching for p in self.peers.values())
        if need == self.board_watch:
            self._frame_to(peer, (P.RSP | P.REQ_WATCH, payload, 0))
            if on and not was and self.last_roll is not None:
                self._frame_to(peer, (P.EVENT, self.last_roll, 0))
            return True
        self.board_watch = need
        if not need:
            self.last_roll = None
        return False

    def _request(self, peer, ftype, payload):
        if ftype == P.REQ_ACK:
            if self.xfer and self.owner is peer:
                self._send_board(ftype, payload)
            return
        if ftype in (P.REQ_PAIR_START, P.REQ_PAIR_CONFIRM, P.REQ_AUTH_START, P.REQ_AUTH_PROOF):
            msg = "the hub holds the session: pair or log in with GAMMON_NO_DAEMON=1"
            self._frame_to(peer, (P.ERROR, P.error_payload(P.E_STATE, ftype, 0, 0, msg), 0))
            return
        self.queue.append((peer, ftype, payload))
        self._next()

    def _drop(self, peer):
        if peer.gone:
            return
        peer.gone = True
        self.peers.pop(peer.sock, None)
        try:
            self.sel.unregister(peer.sock)
        except (KeyError, ValueError):
            pass
        peer.sock.close()
        self.last_peer = time.monotonic()
        if self.owner is peer and self.xfer:
            self._cancel()
        if peer.watching:
            peer.watching = False
            if self.board_watch and not any(p.watching for p in self.peers.values()):
                self.board_watch = False
                self.last_roll = None
                self.queue.append((_SELF, P.REQ_WATCH, b"\x00"))
                self._next()

    def _from_peer(self, peer):
        try:
            data = peer.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop(peer)
            return
        try:
            msgs = peer.reader.feed(data)
        except ValueError:
            self._drop(peer)
            return
        for kind, a, _b, body in msgs:
            if peer.gone:
                return
            if kind == W.QUIT:
                self.log("asked to let go of the board")
                self._quit(LinkError("the board's link went to 'gammon pair': run the command again"))
                return
            if kind == W.HELLO:
                peer.hello = True
                if body.decode("utf-8", "replace") != self.address:
                    self._fail(peer, LinkError("this hub serves %s" % self.address))
                elif self.down is not None:
                    self._fail(peer, self.down)
                elif self.board_id is not None:
                    self._put(peer, W.pack(W.READY, body=self.board_id))
            elif kind == W.REQ and peer.hello and self.board_id is not None:
                self._request(peer, a, body)
            else:
                self._drop(peer)

    def _quit(self, e):
        """Let go of the board first (the one who asked connects as soon as it hears), then
        tell every command why."""
        self.down = self.down or e
        self.stopping = True
        if self.link is not None:
            self.link.close()
        for peer in list(self.peers.values()):
            self._fail(peer, e)
        self.stopping = True

    # -- the loop

    def run(self):
        self.open_board()
        while True:
            busy = self.owner is not None or self.queue
            if self.stopping:
                break
            if self.down is not None and (self.accepted or time.monotonic() - self.started > STARTER_S):
                break  # (the command that started the hub is told why it could not log in)
            if not self.peers and not busy and time.monotonic() - self.last_peer >= self.idle:
                if self._accept() is None:  # none came at the last moment: end
                    self.log("idle for %.0f s: ending" % self.idle)
                    break
                continue
            if self.owner is not None and time.monotonic() - self.since > ANSWER_S:
                if self.xfer:  # its command stopped asking for more: the others' turn
                    self._cancel()
                else:
                    self._link_down(LinkError("the board did not answer within %.0f s" % ANSWER_S))
                    break
            for key, mask in self.sel.select(0.5):
                what = key.data
                if what == "accept":
                    while self._accept() is not None:
                        pass
                elif what == "wake":
                    self._wake()
                elif isinstance(what, Peer):
                    if mask & selectors.EVENT_WRITE:
                        self._flush(what)
                    if mask & selectors.EVENT_READ and not what.gone:
                        self._from_peer(what)
        self.close()

    def _wake(self):
        try:
            self.wake_r.recv(4096)
        except OSError:
            pass
        while self.inbox:
            kind, item = self.inbox.popleft()
            if kind == "down":
                self._link_down(item)
                return
            if kind == "up":
                for peer in list(self.peers.values()):
                    if peer.hello:
                        self._put(peer, W.pack(W.READY, body=self.board_id))
            self._board_frames(item)
            self._next()

    def close(self):
        """Unlink the socket first (a command arriving now starts a new hub), then tell the
        commands still here why, then let go of the board."""
        self.stopping = True
        try:
            if os.stat(self.path).st_ino == self.ino:  # ours still (not a later hub's)
                os.unlink(self.path)
        except FileNotFoundError:
            pass
        self.srv.close()
        e = self.down or LinkError("the gammon hub ended")
        for peer in list(self.peers.values()):
            self._fail(peer, e)
        if self.link is not None:
            try:
                if self.down is None and self.board_watch:
                    self.link.t.send(self.link.host.request(P.REQ_WATCH, b"\x00"))
            except (LinkError, ValueError):
                pass
            self.link.close()
        # the lock goes while held (a hub starting now takes a new one); the log stays only
        # when something went wrong
        base = self.path[: -len(".sock")]
        for name, keep in ((".lock", False), (".log", self.down is not None)):
            if not keep:
                try:
                    os.unlink(base + name)
                except FileNotFoundError:
                    pass


def same_user(sock):
    """Whether the peer on a unix socket runs as this user (``SO_PEERCRED``, Linux); True
    where the system cannot say (the folder's 0700 and the socket's 0600 still hold)."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:
        return True
    try:
        _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i")))
    except OSError:
        return False
    return uid == os.getuid()
