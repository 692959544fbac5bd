"""Socket transport for the simulator (unix port): an asyncio TCP server on 127.0.0.1:PORT.

Each accepted connection is one ``app.link`` transport (a stream: the frames' sync byte and
CRC delimit them) and gets its own ``Link``/``Session`` (one at a time: ``MAX_CONNS``); the
host tool connects with ``gammon pair tcp:127.0.0.1:PORT``. The same protocol, pairing and
authentication as over BLE.

Example::

    server = await sock_link.serve(hub, 7607)
"""

import asyncio
import time

DEFAULT_PORT = 7607
_STREAM_MTU = 515  # a stream has no ATT packets: one frame (<= 529 bytes) goes in 1-2 writes
_READ = 256  # what a BLE write carries at most (MTU 247 + ATT): the socket costs the heap no more
_SLOT_WAIT_MS = 1000  # a newcomer waits this long for an authenticated host to leave
MAX_CONNS = 1  # connections served at once: one, as BLE has one slot (a session costs ~2k)


class TaskWaker:
    """``wait``/``wake`` for a transport woken only by asyncio tasks (its reader pump,
    ``Hub.publish``): an ``asyncio.Event``, which registers nothing with the poller."""

    def __init__(self):
        self.ev = asyncio.Event()

    def wake(self):
        self.ev.set()

    async def wait(self, ms):
        if not self.ev.is_set():
            try:
                await asyncio.wait_for_ms(self.ev.wait(), ms)
            except asyncio.TimeoutError:
                pass
        self.ev.clear()


class StreamTransport(TaskWaker):
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
        buf = bytearray(_READ)  # each read lands here: only the bytes that arrived are copied out
        mv = memoryview(buf)
        try:
            while not self.closed:
                n = await self.reader.readinto(buf)
                if not n:
                    break
                if len(self.rx) > 64:
                    break
                self.rx.append(bytes(mv[:n]))
                self.wake()
        except (OSError, MemoryError):
            pass  # a heap too fragmented for this read: the host sees the connection close
        self._close()


def _victim(conns):
    """The connection to close for a newcomer: the oldest one already closing or without an
    authenticated (or pairing) session; ``None``: every slot holds a host that proved itself."""
    for c in conns:
        s = c[0].session
        if c[2] or s is None:
            return c
        p = c[0].board.pairing
        if not s.authenticated and (p is None or p[0] is not s):  # (a pairing host stays)
            return c
    return None


async def _close_writer(writer):
    try:
        writer.close()
        await writer.wait_closed()
    except OSError:
        pass


async def _refuse(writer):
    """Tell a host the board has no free slot (one ERROR frame, E_BUSY), then hang up."""
    from bg.link import E_BUSY, ERROR, encode_frame, error_payload

    try:
        writer.write(encode_frame(ERROR, 1, error_payload(E_BUSY, 0, 0, 1000, "too many connections")))
        await writer.drain()
    except (OSError, MemoryError):
        pass
    await _close_writer(writer)


async def _slot(conns):
    """Wait for a free slot, closing the oldest unauthenticated connection if need be; True
    when one is free. At most ``_SLOT_WAIT_MS`` for a slot an authenticated host is leaving."""
    t0 = time.ticks_ms()
    while len(conns) >= MAX_CONNS:
        v = _victim(conns)
        if v is not None and not v[2]:
            v[2] = True
            v[1].cancel()  # its own ``finally`` closes its session and socket, then leaves
        elif v is None and time.ticks_diff(time.ticks_ms(), t0) > _SLOT_WAIT_MS:
            return False
        await asyncio.sleep_ms(10)
    return True


async def _serve_one(hub, reader, writer, conns, gate):
    if getattr(hub, "add", None) is None:  # not a Hub: the function that builds it
        hub = hub()  # the board's link stack, built by the first connection (see ``serve``)
        if hub is None:  # it could not be built (logged by the board): refuse the host
            await _close_writer(writer)
            return
    if gate[0]:  # another newcomer is being let in: a crowd is refused at once, so it
        await _refuse(writer)  # never holds more of the heap than the slots
        return
    gate[0] = True
    link = me = task = reading = None
    refused = False
    try:
        try:
            if await _slot(conns):
                t = StreamTransport(reader, writer)
                link = hub.add(t)
                me = [link, asyncio.current_task(), False]  # link, task, being closed
                conns.append(me)
            else:
                refused = True
        finally:
            gate[0] = False
        if refused or link is None or me is None:  # (link and me are set unless refused)
            if refused:
                await _refuse(writer)
            return
        task = asyncio.create_task(link.run())
        reading = asyncio.create_task(t.pump_reader())
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
        if me is not None and me in conns:
            conns.remove(me)  # before any await: a cancel there must not leak the slot
        if not refused:
            await _close_writer(writer)


async def serve(hub, port=DEFAULT_PORT, host="127.0.0.1"):
    """Start the server; returns the asyncio server object. ``hub`` is an ``app.link.Hub``
    or a function returning one, called on each connection: the board passes a function so
    the listener alone costs a socket until a host really connects (docs/memory.md).

    At most ``MAX_CONNS`` connections are served at once (each holds a session and its
    buffers in the board's heap): a newcomer beyond that closes the oldest connection that
    has not authenticated (nor is pairing); when every slot holds an authenticated host it
    waits up to ``_SLOT_WAIT_MS`` for one to hang up, else gets one ERROR frame (E_BUSY) and
    is closed. One newcomer is let in at a time; others meanwhile are refused at once."""
    conns = []
    gate = [False]  # a newcomer is being admitted

    def cb(reader, writer):
        return _serve_one(hub, reader, writer, conns, gate)

    return await asyncio.start_server(cb, host, port)
