"""Socket transport for the simulator (unix port): an asyncio TCP server on 127.0.0.1:PORT.

Each accepted connection is one ``app.link`` transport (a stream: the frames' sync byte and
CRC delimit them) and gets its own ``Link``/``Session``; the host tool connects with
``gammon pair tcp:127.0.0.1:PORT``. The same protocol, pairing and authentication as over BLE.

Example::

    server = await sock_link.serve(hub, 7607)
"""

import asyncio

from app.link import Waker

DEFAULT_PORT = 7607
_STREAM_MTU = 515  # a stream has no ATT packets: one frame (<= 529 bytes) goes in 1-2 writes
_READ = 512


class StreamTransport(Waker):
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


async def _serve_one(hub, reader, writer):
    if getattr(hub, "add", None) is None:  # not a Hub: the function that builds it
        hub = hub()  # the board's link stack, built by the first connection (see ``serve``)
        if hub is None:  # it could not be built (logged by the board): refuse the host
            try:
                writer.close()
                await writer.wait_closed()
            except OSError:
                pass
            return
    t = StreamTransport(reader, writer)
    link = hub.add(t)
    task = asyncio.create_task(link.run())
    try:
        await t.pump_reader()
        await asyncio.sleep_ms(50)  # let the link notice the disconnect and close the session
    finally:
        hub.remove(link)
        task.cancel()
        try:
            writer.close()
            await writer.wait_closed()
        except OSError:
            pass


async def serve(hub, port=DEFAULT_PORT, host="127.0.0.1"):
    """Start the server; returns the asyncio server object. ``hub`` is an ``app.link.Hub``
    or a function returning one, called on each connection: the board passes a function so
    the listener alone costs a socket until a host really connects (docs/memory.md)."""

    def cb(reader, writer):
        return _serve_one(hub, reader, writer)

    return await asyncio.start_server(cb, host, port)
