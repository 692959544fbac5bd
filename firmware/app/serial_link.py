"""USB serial transport: the link protocol over ``machine.UART`` or the USB REPL port's
stdin/stdout.

Every frame on the wire, both ways, is preceded by the magic ``MAGIC`` (``b"\\x00GMN"``):
text printed on the same port (``print()``, boot messages, tracebacks) never contains a NUL,
so a reader that waits for the magic skips it. Host -> board, the frame after the magic is
*stuffed* (``bg.serialwire.stuff``): each byte ``0x00``, ``0x03``, ``0x0D`` or ``ESC``
(``0x10``) is sent as ``ESC`` then the byte xor ``0x20``. So on the board's input:

- a raw ``0x00`` always starts a magic: whatever frame was in progress is abandoned (a lost
  byte costs that frame only, never the next one);
- a frame is handed to the link only whole, with a header that makes sense and a valid
  CRC (a flipped byte, a too-long length, a raw ``0x03``/``0x0D`` inside it, or a stall of
  ``_GAP_MS`` mid-frame drops it; the host's request times out, the next one is served);
- ``HELLO`` (``MAGIC + b"HELO"``), sent by the host right after opening the port, starts a
  new connection (the old session, and any transfer it was sending, is dropped); the board
  answers ``READY`` (``MAGIC + b"R"``), and every byte after ``READY`` belongs to the new
  connection;
- on the REPL port, ``\\r`` or ``0x03`` followed by ``0x03`` (what ``mpremote`` sends when
  it connects; Ctrl-C pressed twice in a terminal) gives the port back to the REPL: the link
  raises ``KeyboardInterrupt`` out of ``asyncio.run``. Neither byte occurs raw inside a
  stuffed frame, so no frame -- nor any single damaged byte -- can stop the game; while the
  link owns the port, ``micropython.kbd_intr(-1)`` keeps the driver from acting on them.

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
from bg.serialwire import HELLO, MAGIC, READY
from micropython import const

_ESC = const(0x10)  # bg.serialwire.ESC: ESC, byte ^ 0x20 stands for 0x00, 0x03, 0x0D or ESC
_SYNC = const(0xA7)  # bg.link.SYNC (not imported: keep this module's heap small)
_HEADER = const(7)
_MAX_PAYLOAD = const(512)  # bg.link.MAX_PAYLOAD
_MAX_FRAME = const(529)
_FLAGS_KNOWN = const(3)
_MAC_LEN = const(8)
_CRC_LEN = const(2)
_CTRL_C = const(3)
_CR = const(13)
_GAP_MS = const(2000)  # a frame stalled this long is abandoned (bg.link's idle reset)
_READ = const(512)


class SerialTransport(StreamTransport):
    """``StreamTransport`` for a serial line: writes ``MAGIC`` before each frame, unstuffs
    the host's frames and hands the link only whole frames with a valid CRC, starts a new
    connection on ``HELLO``.

    ``break_char`` (``-1``: none) is the byte that, after ``\\r`` or itself, stops the link
    with ``KeyboardInterrupt`` (``StdioTransport`` uses Ctrl-C)."""

    def __init__(self, reader, writer, conn=1, break_char=-1):
        super().__init__(reader, writer, conn)
        self.break_char = break_char
        self.hellos = 0
        self.bad = 0  # frames dropped (damaged, cut short, stalled)
        self.frame = bytearray(_MAX_FRAME)  # the frame being received, unstuffed
        self._m = 0  # bytes of MAGIC matched (4: the next byte says frame or HELLO)
        self._hl = 0  # bytes of HELLO's tail matched
        self._f = -1  # bytes of the current frame received (-1: not in a frame)
        self._need = 0  # its whole length, once the header is in
        self._esc = False
        self._prev = 0  # the previous raw byte (the break needs two)
        self._last = time.ticks_ms()
        self._crc = None

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
    def _drop(self):
        """Abandon the frame in progress (if any)."""
        if self._f > 0:
            self.bad += 1
        self._f = -1
        self._esc = False

    def _done(self):
        """A whole frame is in ``frame[:_need]``: queue it for the link if its CRC holds."""
        n = self._need
        self._f = -1
        crc = self._crc
        if crc is None:
            from bg.link import crc16  # loaded by the link's session anyway

            crc = self._crc = crc16
        fr = self.frame
        if crc(fr, 0, n - _CRC_LEN) != fr[n - 2] | (fr[n - 1] << 8):
            self.bad += 1
            return
        self.rx.append(bytes(fr[:n]))
        if len(self.rx) > 64:  # a host flooding faster than the board parses is cut off
            self._close()
        self.wake()

    def _ingest(self, data, n):
        """Follow the line over ``data[:n]``: magic, HELLO, stuffed frames (queued for the
        link when whole and intact), text and noise (ignored). Returns True when the break
        sequence arrived."""
        now = time.ticks_ms()
        if self._f >= 0 and time.ticks_diff(now, self._last) > _GAP_MS:
            self._drop()  # the sender stalled or died mid-frame
        self._last = now
        fr = self.frame
        brk = self.break_char
        i = 0
        while i < n:
            b = data[i]
            i += 1
            prev = self._prev
            self._prev = b
            if b == brk and (prev == _CR or prev == brk):
                self._drop()
                return True
            if b == 0:  # raw NUL: only ever the start of a magic
                self._drop()
                self._m = 1
                self._hl = 0
                continue
            m = self._m
            if m:
                if m < 4:
                    self._m = m + 1 if b == MAGIC[m] else 0
                    continue
                h = self._hl
                if b == HELLO[4 + h]:
                    if h == 3:
                        self._m = self._hl = 0
                        self._hello()
                    else:
                        self._hl = h + 1
                    continue
                self._m = self._hl = 0
                if h or b != _SYNC:
                    continue  # neither a frame nor HELLO: noise
                self._f = 0
                self._need = 0
            f = self._f
            if f < 0:
                continue  # text between frames
            if b == _ESC:
                if self._esc:
                    self._drop()  # ESC ESC never occurs: damage
                    continue
                self._esc = True
                continue
            if self._esc:
                self._esc = False
                b ^= 0x20
            elif b == _CR or b == _CTRL_C:
                self._drop()  # always stuffed: this frame is damaged
                continue
            fr[f] = b
            f += 1
            self._f = f
            if f == _HEADER:
                ln = fr[5] | (fr[6] << 8)
                if ln > _MAX_PAYLOAD or fr[2] & ~_FLAGS_KNOWN:
                    self._drop()
                    continue
                self._need = _HEADER + ln + _CRC_LEN + (_MAC_LEN if fr[2] & 1 else 0)
            elif f == self._need:
                self._done()
        return False

    def drop(self):
        """The board dropped this (unauthenticated) connection: a serial port has nothing to
        end, so the link ignores the port until the host's next HELLO (a new connection)."""
        self.rx = []

    def _hello(self):
        self._drop()
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
