"""Socket transport for the simulator (unix port): an asyncio TCP server on 127.0.0.1:PORT.

Each accepted connection is one ``app.link`` transport (a stream: the frames' sync byte and
CRC delimit them) and gets its own ``Link``/``Session`` (one at a time: ``MAX_CONNS``); the
host tool connects with ``gammon pair tcp:127.0.0.1:PORT``. The same protocol, pairing and
authentication as over BLE.

Example::

    accepting = await sock_link.serve(hub, 7607)  # its accept loop's task
"""

import asyncio
import time

from app.link import CLAIM_PAIR as _PAIR
from app.link import claim as _claim
from app.wake import Wake
from micropython import const

DEFAULT_PORT = 7607
_STREAM_MTU = const(515)  # a stream has no ATT packets: one frame (<= 529 bytes) goes in 1-2 writes
_READ = const(256)  # what a BLE write carries at most (MTU 247 + ATT): the socket costs the heap no more
_SLOT_WAIT_MS = const(1000)  # a newcomer waits this long for an authenticated host to leave
_GRACE_MS = const(1000)  # a connection keeps the slot this long before a plain newcomer may take it
_LOBBY_MS = const(1500)  # a newcomer that claims nothing waits this long for the slot
_LOBBY_MIN_MS = const(100)  # ... and at least this long before a newer one may push it out
_LOBBY_MAX = const(4)  # newcomers waiting at once (each a socket and a _FIRST-byte buffer)
_FIRST = const(128)  # a newcomer's first frames: INFO (9 bytes) and an AUTH_START (33) or PAIR_START (<= 105)
_HELD = "held"  # _wait_slot: a host that proved itself holds the slot
MAX_CONNS = 1  # connections served at once: one, as BLE has one slot (a session costs ~2k)


class StreamTransport(Wake):
    """``app.link`` transport over an asyncio stream pair (socket or serial)."""

    def __init__(self, reader, writer, conn=1):
        super().__init__()
        self.reader = reader
        self.writer = writer
        self.conn = conn
        self.mtu = _STREAM_MTU
        self.rx = []
        self.closed = False

    def read(self):
        if not self.rx:
            return None
        data = b"".join(self.rx)
        self.rx = []
        return data

    async def send(self, frame):
        if self.closed:
            return
        try:
            self.writer.write(frame)
            await self.writer.drain()
        except OSError:
            self._close()

    def drop(self):
        """End this connection (the board dropped an unauthenticated host): ``_serve_one``
        stops reading and closes the socket."""
        self._close()

    def _close(self):
        self.closed = True
        self.conn = None
        self.wake()

    async def pump_reader(self):
        """Move bytes from the stream into ``rx`` until EOF (a bounded backlog: a host that
        floods faster than the board parses is cut off)."""
        try:
            # each read's bytes made when they arrive (the stream reads at most _READ and keeps
            # what came): an idle connection holds no read buffer, where one of _READ bytes kept
            # for it cost the heap 272 B for as long as a host stayed connected (docs/memory.md).
            # Inside the try: with strangers churning the heap this allocation can fail too,
            # and the task must end by closing the connection, never by an exception nobody
            # retrieves
            while not self.closed:
                data = await self.reader.read(_READ)
                if not data:
                    break
                if len(self.rx) > 64:
                    break
                self.rx.append(data)
                self.wake()
        except (OSError, MemoryError):
            pass  # a heap too fragmented for this read: the host sees the connection close
        self._close()


async def _close_writer(writer):
    try:
        writer.close()
        await writer.wait_closed()
    except OSError:
        pass


async def _refuse(writer, msg="too many connections", retry_ms=1000):
    """Tell a host the board has no free slot (one ERROR frame, E_BUSY), then hang up."""
    from bg.link import E_BUSY, ERROR, encode_frame, error_payload

    try:
        writer.write(encode_frame(ERROR, 1, error_payload(E_BUSY, 0, 0, retry_ms, msg)))
        await writer.drain()
    except (OSError, MemoryError):
        pass
    await _close_writer(writer)


def _drop(items, x):
    """Remove ``x`` itself from ``items`` (``list.remove`` would take an equal list)."""
    for i in range(len(items)):
        if items[i] is x:
            del items[i]
            return


def _holds(c):
    """Whether the slot's connection ``c`` keeps it against a newcomer (``Session.claimed``)."""
    s = c[0].session
    return not c[2] and s is not None and s.claimed()


def _take(reader, w):
    """Move what arrived for waiting newcomer ``w`` into its buffer without blocking (and
    without a reader task or transport: a crowd of waiters costs the heap ~200 bytes each);
    False at EOF or when the buffer is full (more than a host's first frames)."""
    buf = w[4]
    n = w[5]
    if n >= len(buf):
        return False
    try:
        k = reader.s.readinto(memoryview(buf)[n:])
    except OSError:
        return False
    if k is None:
        return True  # nothing yet
    if not k:
        return False
    w[5] = n + k
    return True


async def _wait_slot(hub, reader, conns, lobby, me):
    """Keep newcomer ``me`` waiting until the slot is its: "" when it is, else why not (the
    E_BUSY text; "closed" when it hung up). The slot's holder goes at once for a newcomer that
    names a paired host (or starts a pairing in an open window) when it holds no claim of
    its own; any other newcomer takes it only from a holder that had the slot ``_GRACE_MS``
    (a stranger's reconnects churn the slot at most that often)."""
    board = hub.board
    claim = 0
    while True:
        if me[2]:
            return "too many connections"
        n = me[5]
        if not _take(reader, me):
            return "closed" if me[5] < len(me[4]) else "too many connections"
        if me[5] != n:  # only new bytes can change the claim
            claim = _claim(board, memoryview(me[4])[: me[5]])
        me[3] = claim
        if claim == _PAIR and board.pairing is not None:
            board.contest_pairing()  # the number shown is not this host's: it goes away
            return "another host is pairing"
        if claim == _PAIR and not board.pairing_open():
            claim = 0
        waited = time.ticks_diff(time.ticks_ms(), me[0])
        if not conns:
            if claim or not [w for w in lobby if w[3] and w is not me]:  # a claimer goes first
                return ""
        else:
            c = conns[0]
            if not _holds(c):
                if claim or time.ticks_diff(time.ticks_ms(), c[3]) >= _GRACE_MS:
                    if not c[2]:
                        c[2] = True
                        c[1].cancel()  # its own ``finally`` closes its session and socket
            elif waited > _SLOT_WAIT_MS:
                p = board.pairing
                if p is not None and p[0] is c[0].session:
                    return "another host is pairing"
                return _HELD
        if not claim and waited > _LOBBY_MS:
            return "too many connections"
        await asyncio.sleep_ms(10)


async def _serve_one(hub, reader, writer, conns, lobby):
    if getattr(hub, "add", None) is None:  # not a Hub: the function that builds it
        hub = hub()  # the board's link stack, built by the first connection (see ``serve``)
        if hub is None:  # it could not be built (logged by the board): refuse the host
            await _close_writer(writer)
            return
    if len(lobby) >= _LOBBY_MAX:
        # a full waiting room: the oldest newcomer that claimed nothing in _LOBBY_MIN_MS
        # makes room (a host's first frames arrive within milliseconds)
        now = time.ticks_ms()
        old = [w for w in lobby if not w[2] and not w[3] and time.ticks_diff(now, w[0]) > _LOBBY_MIN_MS]
        if not old:
            await _refuse(writer, "too many connections", 200)
            return
        old[0][2] = True
    link = me = task = reading = None
    why = ""
    try:
        # since, -, pushed out, claim, first bytes, how many
        w = [time.ticks_ms(), None, False, 0, bytearray(_FIRST), 0]
        lobby.append(w)
        try:
            why = await _wait_slot(hub, reader, conns, lobby, w)
        finally:
            _drop(lobby, w)
        if why:
            if why == "closed":
                await _close_writer(writer)
            else:
                # a host that holds the slot may be a while: try again in a second; a crowd
                # of waiters: sooner
                retry = 200 if why == "too many connections" else 1000
                await _refuse(writer, "too many connections" if why is _HELD else why, retry)
            return
        t = StreamTransport(reader, writer)
        if w[5]:
            t.rx.append(bytes(w[4][: w[5]]))  # what it sent while it waited
        link = hub.add(t)
        me = [link, asyncio.current_task(), False, time.ticks_ms()]  # link, task, being closed, since
        conns.append(me)
        w = None
        task = asyncio.create_task(link.run())
        reading = asyncio.create_task(t.pump_reader())
        t.wake()
        while not t.closed:  # EOF, or the board dropped the connection (``drop``)
            await asyncio.sleep_ms(100)
        me[2] = True  # the host hung up: a newcomer may have the slot now
        await asyncio.sleep_ms(50)  # let the link notice the disconnect and close the session
    except MemoryError:
        pass  # the heap could not hold this connection (a flood just ended...): closed below
    finally:
        # whatever failed where, nothing of this connection stays behind: a slot left in
        # ``conns`` or a link left in the hub would refuse every later host
        if me is not None:
            me[2] = True
        if task is not None:
            task.cancel()
        if reading is not None:
            reading.cancel()
        if link is not None:
            hub.remove(link)
            if link.session is not None:  # the link task may not run again to close it
                link.session.close()
                link.session = None
        if me is not None:
            _drop(conns, me)  # before any await: a cancel there must not leak the slot
        if not why:
            await _close_writer(writer)


def _accept(s, cb):
    """The listening socket ``s``'s accept loop, as ``asyncio.start_server``'s, except that a
    connection the heap cannot take (its stream, its task) is closed and the loop goes on:
    MicroPython's own loop ends on that ``MemoryError``, and the port accepts nobody again. A
    generator, as MicroPython's coroutines are: it waits on the socket as its streams do."""
    from asyncio import core  # pyright: ignore[reportAttributeAccessIssue] - MicroPython's loop

    try:
        while True:
            yield core._io_queue.queue_read(s)
            try:
                s2, addr = s.accept()
            except Exception:
                continue  # gone before it was taken
            try:
                s2.setblocking(False)
                st = asyncio.StreamReader(s2, {"peername": addr})  # pyright: ignore[reportCallIssue]
                asyncio.create_task(cb(st, st))
            except MemoryError:
                s2.close()
    finally:
        s.close()


async def serve(hub, port=DEFAULT_PORT, host="127.0.0.1"):
    """Start the server; returns its accept loop's task (cancel it to close the port; a
    connection the heap cannot take is closed, the port stays open: ``_accept``). ``hub`` is
    an ``app.link.Hub`` or a function returning one, called on each connection: the board
    passes a function so the listener alone costs a socket until a host really connects
    (docs/memory.md).

    At most ``MAX_CONNS`` connections are served at once (each holds a session and its
    buffers in the board's heap); newcomers wait in a bounded waiting room (``_LOBBY_MAX``,
    no session) until the slot is theirs (``_wait_slot``: a paired host's AUTH_START takes
    it at once from a holder that proved nothing, anyone else only from a holder that had it
    ``_GRACE_MS``) or they are refused with one ERROR frame (E_BUSY) and closed."""
    conns = []
    lobby = []  # newcomers waiting for the slot (``_serve_one``)

    def cb(reader, writer):
        return _serve_one(hub, reader, writer, conns, lobby)

    import socket

    s = socket.socket()
    s.setblocking(False)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(socket.getaddrinfo(host, port)[0][-1])
    s.listen(5)
    task = asyncio.create_task(_accept(s, cb))
    await asyncio.sleep_ms(0)  # the loop waits on the socket before the caller goes on
    return task
