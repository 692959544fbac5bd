"""USB serial transport: the link protocol over ``machine.UART`` or the USB REPL port's
stdin/stdout.

Every frame on the wire, both ways, is preceded by the magic ``MAGIC`` (``b"\\x00GMN"``):
text printed on the same port (``print()``, boot messages, tracebacks) never contains a NUL,
so a reader that waits for the magic skips it. Two more out-of-frame markers:

- ``HELLO`` (``MAGIC + b"H"``), host -> board, sent right after opening the port: a serial
  port has no "connect" event, so this starts a new connection (the old session, and any
  transfer it was sending, is dropped); the board answers ``READY`` (``MAGIC + b"R"``), and
  every byte after ``READY`` belongs to the new connection.
- On the REPL port, a Ctrl-C (``0x03``) *between* frames gives the port back to the REPL:
  the link raises ``KeyboardInterrupt`` out of ``asyncio.run``, as a Ctrl-C normally would.
  The same byte *inside* a frame (a sequence number, a MAC) is data: while the link owns
  the port, ``micropython.kbd_intr(-1)`` stops the driver from turning it into an interrupt,
  and the transport follows the frame boundaries (magic, header, length) to tell the two
  apart. ``mpremote`` sends ``\\r\\x03`` when it connects, so it still breaks in.

Example (the REPL's own USB port, e.g. an ESP32-S3's USB-CDC or the CP2102 on a DevKitC)::

    asyncio.create_task(serial_link.serve(hub))     # a StdioTransport on sys.stdin/stdout

Example (UART1 on a separate USB-serial bridge: the REPL stays usable)::

    from machine import UART
    t = serial_link.SerialTransport.from_uart(UART(1, 115200, tx=17, rx=16, timeout=0))
    asyncio.create_task(serial_link.serve(hub, t))
"""

import asyncio
import select
import sys
import time

import micropython
from app.sock_link import StreamTransport
from micropython import const

MAGIC = b"\x00GMN"
HELLO = b"\x00GMNH"
READY = b"\x00GMNR"
_HELLO_BYTE = const(0x48)  # "H" after the magic
_SYNC = const(0xA7)  # bg.link.SYNC (not imported: keep this module's heap small)
_MAX_PAYLOAD = const(512)  # bg.link.MAX_PAYLOAD
_FLAGS_KNOWN = const(3)
_MAC_LEN = const(8)
_CRC_LEN = const(2)
_CTRL_C = const(3)
_GAP_MS = const(1000)  # a frame stalled this long is abandoned (the sender died mid-frame)
_READ = const(512)


class SerialTransport(StreamTransport):
    """``StreamTransport`` for a serial line: writes ``MAGIC`` before each frame, follows
    the host's frame boundaries, and starts a new connection on ``HELLO``.

    ``break_char`` (``-1``: none) is the out-of-frame byte that stops the link with
    ``KeyboardInterrupt`` (``StdioTransport`` uses Ctrl-C)."""

    def __init__(self, reader, writer, conn=1, break_char=-1):
        super().__init__(reader, writer, conn)
        self.break_char = break_char
        self.hellos = 0
        self._m = 0  # bytes of MAGIC matched (4: the next byte says frame, HELLO or noise)
        self._h = 0  # header byte index expected next (0: not in a header)
        self._flags = 0
        self._n = 0
        self._skip = 0  # bytes of the current frame still to pass
        self._last = time.ticks_ms()

    # -- output
    def _write(self, data):
        self.writer.write(data)

    async def send(self, frame):
        if self.closed:
            return
        try:
            self._write(MAGIC)  # two writes, no await between them: nothing can interleave
            self._write(frame)
            await self.writer.drain()
        except OSError:
            self._close()

    # -- input
    def _resync(self):
        self._m = self._h = self._skip = 0

    def _ingest(self, data, n):
        """Track frame boundaries over ``data[:n]``, act on out-of-frame markers, queue the
        bytes for the link. Returns True when the break character arrived between frames."""
        now = time.ticks_ms()
        if time.ticks_diff(now, self._last) > _GAP_MS:
            self._resync()
        self._last = now
        start = 0
        brk = False
        i = 0
        while i < n:
            b = data[i]
            i += 1
            if self._skip:
                self._skip -= 1
                continue
            h = self._h
            if h:
                if h == 2:
                    self._flags = b
                elif h == 5:
                    self._n = b
                elif h == 6:
                    self._h = 0
                    n_pay = self._n | (b << 8)
                    if n_pay <= _MAX_PAYLOAD and not self._flags & ~_FLAGS_KNOWN:
                        self._skip = n_pay + _CRC_LEN + (_MAC_LEN if self._flags & 1 else 0)
                    continue
                self._h = h + 1
                continue
            m = self._m
            if m == 4:
                self._m = 0
                if b == _SYNC:
                    self._h = 1
                    continue
                if b == _HELLO_BYTE:
                    self._hello()
                    start = i  # the bytes before it belonged to the old connection
                    continue
                m = 0
            if b == MAGIC[m]:
                self._m = m + 1
                continue
            self._m = 1 if b == 0 else 0
            if b == self.break_char:
                brk = True
                break
        if start < i:
            self.rx.append(bytes(data[start:i]))
            if len(self.rx) > 64:  # a host flooding faster than the board parses is cut off
                self._close()
            self.wake()
        return brk

    def _hello(self):
        self.rx = []
        self.hellos += 1
        if self.conn is not None:
            self.conn += 1
        self._write(READY)
        self.wake()

    async def pump_reader(self):
        try:
            while not self.closed:
                data = await self.reader.read(_READ)
                if not data:
                    break
                if self._ingest(data, len(data)):
                    self._close()
                    raise KeyboardInterrupt
        except OSError:
            pass
        self._close()

    @classmethod
    def from_uart(cls, uart):
        """Over a ``machine.UART`` (create it with ``timeout=0``: reads return what is there)."""
        return cls(asyncio.StreamReader(uart), asyncio.StreamWriter(uart, {}))

    @classmethod
    def from_stdio(cls):
        return StdioTransport()


class StdioTransport(SerialTransport):
    """The link over the REPL's own port: ``sys.stdin.buffer`` / ``sys.stdout.buffer``.

    Why not ``StreamReader.read(512)``: reading N bytes from the REPL stream blocks until
    all N arrived (on the ESP32 and on the unix port's tty alike). So the reader waits in
    asyncio for one byte (``select.poll`` on the stream, which the ESP32's stdio and the
    unix port's fd 0 both support), then takes only the bytes ``ipoll(0)`` says are there,
    one at a time into a preallocated buffer (no allocation per byte). Writes are blocking
    ``write`` calls on the binary stdout (no ``\\n`` -> ``\\r\\n`` translation), so a frame
    is never split by a ``print()`` from another task.
    """

    def __init__(self, inp=None, out=None):
        inp = inp or sys.stdin.buffer
        super().__init__(asyncio.StreamReader(inp), None, break_char=_CTRL_C)
        self.inp = inp
        self.out = out or sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(inp, select.POLLIN)
        self.buf = bytearray(_READ)
        self.one = bytearray(1)

    def _write(self, data):
        self.out.write(data)

    async def send(self, frame):
        if self.closed:
            return
        try:
            self.out.write(MAGIC)
            self.out.write(frame)
        except OSError:
            self._close()

    def _waiting(self):
        for _ in self.poller.ipoll(0):  # ipoll: no list allocated per byte, unlike poll()
            return True
        return False

    def _drain(self, first):
        """``buf[:n]``: ``first`` then whatever is already waiting (never blocks)."""
        buf, one = self.buf, self.one
        buf[0] = first
        n = 1
        while n < _READ and self._waiting():
            if not self.inp.readinto(one):
                break
            buf[n] = one[0]
            n += 1
        return n

    async def pump_reader(self):
        """Run the input side; raises ``KeyboardInterrupt`` on an out-of-frame Ctrl-C (with
        the REPL's Ctrl-C restored), returns at EOF."""
        micropython.kbd_intr(-1)  # frames carry 0x03 bytes: they must reach us as data
        try:
            while not self.closed:
                first = await self.reader.read(1)  # asyncio polls the stream: never blocks
                if not first:
                    break
                if self._ingest(self.buf, self._drain(first[0])):
                    self._close()
                    raise KeyboardInterrupt
        except OSError:
            pass
        finally:
            micropython.kbd_intr(_CTRL_C)
        self._close()


async def serve(hub, t=None):
    """Run the link over ``t`` (default: a ``StdioTransport`` on the REPL port) until the
    port closes. An out-of-frame Ctrl-C raises ``KeyboardInterrupt`` out of ``asyncio.run``
    (asyncio only catches ``Exception`` in tasks), so the board drops to the REPL.

    Example (``main.py``)::

        tasks.append(asyncio.create_task(serial_link.serve(hub)))
    """
    t = t or StdioTransport()
    link = hub.add(t)
    task = asyncio.create_task(link.run())
    try:
        await t.pump_reader()
    finally:
        hub.remove(link)
        task.cancel()
