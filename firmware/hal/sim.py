"""The ``sim`` HAL backend: the MicroPython unix port driven by the browser simulator.

The simulator server (``tools/sim/server.py``) listens on a local TCP port and the firmware
connects to it. Both sides speak JSON lines (one object per line, key ``t`` = type)::

    server -> firmware   {"t": "bits", "d": "<hex of the raw 74HC165 chain bytes>"}
                         {"t": "btn", "i": 0, "down": 1}       # a button edge
                         {"t": "radio", "d": "<hex>"}          # radio bytes (HAL Radio part)
                         {"t": "time", "unix": 1767225600}     # the page's wall clock
                         {"t": "quit"}                         # stop the firmware
    firmware -> server   {"t": "hello", "sensor_bytes": N, "leds": M, "buttons": K}
                         {"t": "leds", "d": "<hex of the GRB frame buffer>"}
                         {"t": "radio", "d": "<hex>"}          # radio bytes (HAL Radio part)
                         {"t": "log", "m": "text"}            # the serial console

The raw chain bytes are exactly what ``machine.SPI.readinto`` returns on the real board
(layout in ``hardware/board.json``), so nothing above this layer can tell the two apart.
Host tools reach the simulated board's link directly: ``app.sock_link`` listens on its own
TCP port (the ``Radio`` part here carries raw frames for transports that want it).

Without a server (``config["port"]`` unset) the backend runs headless: tests set the chain
bits with ``hw.sensors.set_bits(...)``, press buttons with ``hw.buttons.press(i)`` and read
the last LED frame from ``hw.leds.buf``.

Example (headless)::

    from hal import sim
    hw = sim.make({"sensor_bytes": 8, "leds": 40, "buttons": 4, "seed": b"demo"})
    hw.sensors.set_bits(b"\\x01" + bytes(7))
    buf = bytearray(8)
    hw.sensors.read_into(buf)
"""

import hashlib
import os
import time

import hal

try:
    from binascii import hexlify, unhexlify
except ImportError:  # pragma: no cover
    from ubinascii import hexlify, unhexlify

# littlefs geometry of the ESP32 internal flash partition: 4 KiB erase blocks.
BLOCK_SIZE = 4096
BLOCK_COUNT = 128


class Sensors(hal.Sensors):
    """The reed chain as raw bytes. The server (or a test) sets them; ``read_into`` copies
    them into the caller's preallocated buffer, like an SPI read of the 74HC165 chain."""

    def __init__(self, nbytes, bus=None):
        self.nbytes = nbytes
        self.bits = bytearray(nbytes)
        self._bus = bus
        self.changed_ms = 0  # ticks of the last change (for the latency bench)

    def set_bits(self, data):
        if len(data) != self.nbytes:
            raise ValueError("sensor chain is %d bytes, got %d" % (self.nbytes, len(data)))
        self.bits[:] = data
        self.changed_ms = time.ticks_ms()

    def read_into(self, buf):
        n = self.nbytes
        if len(buf) < n:
            raise ValueError("sensor buffer too small")
        bits = self.bits
        for i in range(n):
            buf[i] = bits[i]


class Leds(hal.Leds):
    """The LED chain's GRB frame buffer; ``show()`` streams it to the page (when connected)
    and counts frames so tests can wait for the next one."""

    def __init__(self, count, bus=None):
        self.count = count
        self.buf = bytearray(3 * count)
        self.frames = 0
        self.shown_ms = 0
        self._bus = bus

    def show(self):
        self.frames += 1
        self.shown_ms = time.ticks_ms()
        if self._bus is not None:
            self._bus.send_hex(b"leds", self.buf)


class Buttons(hal.Buttons):
    """Buttons: the page sends edges; ``take(i)`` returns and clears the press count (a press
    counts on the down edge, as the esp32 backend's IRQ does)."""

    def __init__(self, count):
        self.count = count
        self._presses = bytearray(count)
        self._down = bytearray(count)
        self._down_ms = [0] * count  # ticks_ms of each button's last down edge

    def edge(self, i, down):
        if not 0 <= i < self.count:
            return
        if down and not self._down[i]:
            self._presses[i] = min(255, self._presses[i] + 1)
            self._down_ms[i] = time.ticks_ms()  # pyright: ignore[reportArgumentType, reportCallIssue]
        self._down[i] = 1 if down else 0

    def press(self, i):
        """A full click (down then up): what tests and the demo use."""
        self.edge(i, 1)
        self.edge(i, 0)

    def take(self, i):
        n = self._presses[i]
        self._presses[i] = 0
        return n

    def is_down(self, i):
        return bool(self._down[i])

    def down_since(self, i):
        """ticks_ms of the last down edge (long-press detection)."""
        return self._down_ms[i]


class Clock(hal.Clock):
    """``time.ticks_ms`` and a settable wall clock (the page, or the link, sets it)."""

    def __init__(self):
        self._offset = 0

    def ticks_ms(self):
        return time.ticks_ms()

    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

    def unix_time(self):
        return int(time.time()) + self._offset

    def set_unix_time(self, t):
        self._offset = int(t) - int(time.time())


class Random(hal.Random):
    """``os.urandom``, or -- given a seed -- a deterministic SHA-256 counter stream so demos
    and tests replay exactly."""

    def __init__(self, seed=None):
        self._seed = seed
        self._ctr = 0
        self._pool = b""

    def urandom(self, n):
        if self._seed is None:
            return os.urandom(n)
        out = b""
        while len(out) < n:
            if not self._pool:
                h = hashlib.sha256(self._seed)
                h.update(self._ctr.to_bytes(4, "big"))
                self._ctr += 1
                self._pool = h.digest()
            take = min(n - len(out), len(self._pool))
            out += self._pool[:take]
            self._pool = self._pool[take:]
        return out


class FileBlockDev:
    """A littlefs block device backed by one image file, so the simulator stores its journal
    on the real filesystem code (``vfs.VfsLfs2``) with the ESP32's 4 KiB erase blocks.
    A new image is filled with 0xFF, like erased flash."""

    def __init__(self, path, block_size=BLOCK_SIZE, block_count=BLOCK_COUNT):
        self.block_size = block_size
        self.block_count = block_count
        self.writes = 0
        self._blank = b"\xff" * block_size  # one erased block, reused by every erase
        try:
            self.f = open(path, "r+b")
        except OSError:
            f = open(path, "wb")
            for _ in range(block_count):
                f.write(self._blank)
            f.close()
            self.f = open(path, "r+b")

    def readblocks(self, block, buf, off=0):
        self.f.seek(block * self.block_size + off)
        self.f.readinto(buf)

    def writeblocks(self, block, buf, off=None):
        self.f.seek(block * self.block_size + (off or 0))
        self.f.write(buf)
        self.f.flush()
        self.writes += 1

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.block_count
        if op == 5:  # block size
            return self.block_size
        if op == 6:  # erase
            self.f.seek(arg * self.block_size)
            self.f.write(self._blank)
            self.f.flush()
            return 0
        return 0

    def close(self):
        self.f.close()


class Storage(hal.Storage):
    """The journal's volume. ``image=PATH``: a littlefs image file mounted at ``mount``
    (``/flash``), formatted on first use; ``directory=PATH``: a plain directory (the
    unix port's own filesystem). ``ok()`` is False when mounting failed, which the
    controller shows as a storage error instead of losing data silently."""

    def __init__(self, image=None, directory=None, mount="/flash"):
        self.root = ""
        self.error = ""
        self.bdev = None
        self._mounted = None
        if image:
            try:
                import vfs

                bdev = FileBlockDev(image)
                self.bdev = bdev
                # FileBlockDev has the block protocol (readblocks/writeblocks/ioctl) that
                # vfs needs; the stubs name an abstract class instead
                try:
                    fs = vfs.VfsLfs2(bdev)  # pyright: ignore[reportArgumentType]
                except OSError:
                    vfs.VfsLfs2.mkfs(bdev)  # pyright: ignore[reportArgumentType]
                    fs = vfs.VfsLfs2(bdev)  # pyright: ignore[reportArgumentType]
                vfs.mount(fs, mount)
                self._mounted = mount
                self.root = mount
            except OSError as e:
                self.error = "cannot mount %s: %s" % (image, e)
        elif directory:
            try:
                os.stat(directory)
            except OSError:
                try:
                    os.mkdir(directory)
                except OSError as e:
                    self.error = "cannot create %s: %s" % (directory, e)
            if not self.error:
                self.root = directory

    def ok(self):
        return bool(self.root) and not self.error

    def unmount(self):
        if self._mounted:
            import vfs

            vfs.umount(self._mounted)
            self._mounted = None
        if self.bdev is not None:
            self.bdev.close()
            self.bdev = None


class Radio(hal.Radio):
    """The link's byte transport in the simulator: frames travel as hex inside the JSON-lines
    connection; the server bridges them to a TCP port that host tools connect to."""

    def __init__(self, bus=None, depth=8):
        self._bus = bus
        self._inbox = []
        self._depth = depth
        self.event = None  # set to an asyncio.Event by whoever waits on it
        self.sent = []  # headless: frames sent, for tests

    def deliver(self, data):
        if len(self._inbox) >= self._depth:
            self._inbox.pop(0)  # a flooding peer loses its oldest frame, never our heap
        self._inbox.append(bytes(data))
        if self.event is not None:
            self.event.set()

    def send(self, frame):
        if self._bus is not None:
            self._bus.send_hex(b"radio", frame)
        else:
            self.sent.append(bytes(frame))
            if len(self.sent) > self._depth:
                self.sent.pop(0)

    def recv(self):
        if self._inbox:
            return self._inbox.pop(0)
        return None


class Bus:
    """The JSON-lines connection to the simulator server (blocking writes on a local socket
    are a few hundred bytes; reads happen in the asyncio task ``run``)."""

    def __init__(self, host, port, hw):
        import socket

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        addr = socket.getaddrinfo(host, port)[0][-1]
        self.sock.connect(addr)
        self.hw = hw
        self.closed = False
        self.on_quit = None

    def _write(self, data):
        if self.closed:
            return
        mv = memoryview(data)
        while len(mv):
            try:
                n = self.sock.send(mv)
            except OSError as e:
                if e.args and e.args[0] == 11:  # EAGAIN: the server is slow, retry
                    time.sleep_ms(1)
                    continue
                self.closed = True
                return
            mv = mv[n:]

    def send_hex(self, kind, data):
        self._write(b'{"t":"' + kind + b'","d":"' + hexlify(data) + b'"}\n')

    def send_line(self, obj):
        import json

        self._write(json.dumps(obj).encode() + b"\n")

    def log(self, msg):
        self.send_line({"t": "log", "m": msg})

    def handle(self, line):
        import json

        try:
            msg = json.loads(line)
        except ValueError:
            return
        t = msg.get("t")
        hw = self.hw
        if t == "bits":
            try:
                hw.sensors.set_bits(unhexlify(msg["d"]))
            except (ValueError, KeyError):
                self.log("bad sensor frame ignored")
        elif t == "btn":
            hw.buttons.edge(int(msg.get("i", -1)), int(msg.get("down", 0)))
        elif t == "radio" and hw.radio is not None:
            try:
                hw.radio.deliver(unhexlify(msg["d"]))
            except (ValueError, KeyError):
                pass
        elif t == "time":
            hw.clock.set_unix_time(int(msg.get("unix", 0)))
        elif t == "quit":
            self.closed = True
            if self.on_quit:
                self.on_quit()

    def wait_bits(self, timeout_ms=5000):
        """Block until the server sent the first chain reading (at power-on the real chain is
        readable at once; the simulator's arrives over the socket)."""
        import select

        p = select.poll()
        p.register(self.sock, select.POLLIN)
        buf = b""
        t0 = time.ticks_ms()
        while time.ticks_diff(time.ticks_ms(), t0) < timeout_ms:
            if not p.poll(50):
                continue
            chunk = self.sock.recv(512)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self.handle(line)
                if self.hw.sensors.changed_ms:
                    self._rest = buf
                    return True
        self._rest = buf
        return False

    async def run(self):
        """Read lines from the server until it goes away (then call ``on_quit``)."""
        import asyncio

        self.sock.setblocking(False)
        rest = getattr(self, "_rest", b"")
        self._rest = b""
        while b"\n" in rest:
            line, rest = rest.split(b"\n", 1)
            self.handle(line)
        reader = asyncio.StreamReader(self.sock)
        while not self.closed:
            line = await reader.readline()
            if not line:
                break
            self.handle(line)
        self.closed = True
        if self.on_quit:
            self.on_quit()


def make(config=None):
    """Build the simulated hardware. ``config`` keys (all optional):
    ``sensor_bytes``, ``leds``, ``buttons`` (sizes, from hardware/board.json via bg.hwdesc),
    ``host``/``port`` (the simulator server; headless when absent), ``seed`` (bytes:
    deterministic randomness), ``image`` (littlefs image file) or ``directory`` (plain dir)."""
    config = config or {}
    sensors = Sensors(int(config.get("sensor_bytes", 0)))
    leds = Leds(int(config.get("leds", 0)))
    buttons = Buttons(int(config.get("buttons", 4)))
    storage = Storage(image=config.get("image"), directory=config.get("directory"))
    radio = Radio()
    hw = hal.Hardware(sensors, leds, buttons, Clock(), Random(config.get("seed")), storage, radio)
    bus = None
    if config.get("port"):
        bus = Bus(config.get("host", "127.0.0.1"), int(config["port"]), hw)
        sensors._bus = leds._bus = radio._bus = bus
        bus.send_line(
            {"t": "hello", "sensor_bytes": sensors.nbytes, "leds": leds.count, "buttons": buttons.count}
        )
        bus.wait_bits()
    setattr(hw, "bus", bus)  # noqa: B010 - an extra part of this backend only
    return hw
