"""The ``sim`` HAL backend: the MicroPython unix port driven by the browser simulator.

The simulator server (``tools/sim/server.py``) listens on a local TCP port and the firmware
connects to it. Both sides speak JSON lines (one object per line, key ``t`` = type)::

    server -> firmware   {"t": "bits", "d": "<hex of the raw 74HC165 chain bytes>"}
                         {"t": "btn", "i": 0, "down": 1}       # a button edge
                         {"t": "radio", "d": "<hex>"}          # radio bytes (HAL Radio part)
                         {"t": "time", "unix": 1767225600}     # the page's wall clock
                         {"t": "battery", "mv": 3700}          # the modelled cell's voltage
                         {"t": "battery", "charging": true, "usb": true}  # CHG / PGOOD
                         {"t": "quit"}                         # stop the firmware
                         {"t": "fault", "task": "scan", "how": "block"}  # test hook (Faults)
    firmware -> server   {"t": "hello", "sensor_bytes": N, "leds": M, "buttons": K}
                         {"t": "leds", "d": "<hex of the GRB frame buffer>"}
                         {"t": "radio", "d": "<hex>"}          # radio bytes (HAL Radio part)
                         {"t": "log", "m": "text"}            # the serial console
                         {"t": "wdt", "ms": 10000}             # the watchdog armed (Watchdog)
                         {"t": "feed"}                         # the watchdog fed
                         {"t": "reset"}                        # machine.reset() (then exit 75)

The server is the watchdog's timer (``Watchdog``): it kills the firmware process when no
feed came within the timeout and starts it again on the same flash image, telling it the
reset cause (``SG_SIM_RESET_CAUSE``), as the ESP32 restarts after a watchdog reset.

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
import sys
import time

from micropython import const

import hal

# littlefs geometry of the ESP32 internal flash partition: 4 KiB erase blocks.
BLOCK_SIZE = 4096
BLOCK_COUNT = 128
_BLANK = const(256)  # bytes of 0xFF written at a time to erase a block
RESET_EXIT = const(75)  # the firmware process's exit status after machine.reset()
_FEED = b'{"t":"feed"}\n'


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
    and tests replay exactly. A seeded source also replaces the button-press times mixed into
    the player seed by their count (``timing``), so the dice depend on the seed and the
    sequence of presses alone, never on the host's load. For demos and tests only: a seeded
    simulator's dice are predictable (docs/simulator.md)."""

    def __init__(self, seed=None):
        self._seed = seed
        self._ctr = 0
        self._pool = b""
        self._presses = 0
        if seed is not None:
            self.timing = self._timing

    def _timing(self, ticks):
        self._presses += 1
        return self._presses

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
        # a slice of erased flash, written block_size / 256 times per erase: a whole 4 KiB
        # block of 0xFF would sit in the heap for nothing the ESP32 backend needs
        self._blank = b"\xff" * _BLANK
        self.created = False
        try:
            self.f = open(path, "r+b")
        except OSError:
            self.created = True
            f = open(path, "wb")
            for _ in range(block_count):
                self._erase(f)
            f.close()
            self.f = open(path, "r+b")

    def _erase(self, f):
        n = self.block_size
        while n > 0:
            f.write(self._blank if n >= _BLANK else self._blank[:n])
            n -= _BLANK

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
            self._erase(self.f)
            self.f.flush()
            return 0
        return 0

    def erased(self):
        """True when every byte of the image is 0xFF (never written: safe to format)."""
        buf = bytearray(_BLANK)
        for b in range(self.block_count):
            for off in range(0, self.block_size, _BLANK):
                self.readblocks(b, buf, off)
                if buf != self._blank:
                    return False
        return True

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
                # vfs needs; the stubs name an abstract class instead. Mounted as the ESP32's
                # (hal.littlefs: the same cache sizes, so the same heap per open file)
                try:
                    fs = hal.littlefs(bdev)  # pyright: ignore[reportArgumentType]
                except OSError:
                    # Format only flash that was never written. An image that holds data
                    # but no readable littlefs is damaged: formatting it would silently
                    # destroy every stored match, so it stays as it is (storage error).
                    if not (bdev.created or bdev.erased()):
                        raise OSError("no littlefs on it (damaged?); left unformatted") from None
                    hal.littlefs(bdev, True)  # pyright: ignore[reportArgumentType]
                    fs = hal.littlefs(bdev)  # pyright: ignore[reportArgumentType]
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


class Battery(hal.Battery):
    """The modelled cell: ``mv`` is what the next reading returns (tests and the page set it;
    the server's ``{"t": "battery", "mv": N}`` line does). ``reads`` counts the readings.
    ``charging`` and ``usb`` are the charger's CHG and PGOOD as the ESP32 reads them
    (``{"t": "battery", "charging": true, "usb": true}``)."""

    def __init__(self, mv=4000):
        self.mv = mv
        self.reads = 0
        self.charging = False
        self.usb = False

    def charger(self):
        return self.charging, self.usb

    def read_mv(self):
        self.reads += 1
        return self.mv


class Sleep(hal.Sleep):
    """Light sleep, modelled: the loop stalls for ``ms`` (as the ESP32's does) and ``naps`` /
    ``slept_ms`` count it, so tests and the page see when the board would sleep."""

    def __init__(self):
        self.naps = 0
        self.slept_ms = 0

    def nap(self, ms):
        if ms > 0:
            self.naps += 1
            self.slept_ms += ms
            f = getattr(time, "sleep_ms", None)  # CPython runs this module in tests too
            if f is not None:
                f(ms)
            else:
                time.sleep(ms / 1000)


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


class Watchdog(hal.Watchdog):
    """The ESP32's ``machine.WDT`` modelled. Its timer must not depend on the firmware's own
    event loop (a task that blocks the loop must still be reset): with the simulator server
    the server is the timer -- arming sends ``{"t": "wdt", "ms": N}``, each feed
    ``{"t": "feed"}`` (constant bytes, nothing allocated), and the server resets the board
    (kills the process, starts it again on the same image) when a feed is late. Headless,
    ``expired()`` says whether the timeout passed since the last feed (tests)."""

    def __init__(self, timeout_ms, bus=None):
        if not 0 < timeout_ms < 0x20000000:
            raise ValueError("bad watchdog timeout")
        self.timeout_ms = timeout_ms
        self._bus = bus
        self.fed_ms = time.ticks_ms()
        self.feeds = 0
        if bus is not None:
            bus.send_line({"t": "wdt", "ms": timeout_ms})

    def feed(self):
        self.fed_ms = time.ticks_ms()
        self.feeds += 1
        if self._bus is not None:
            self._bus._write(_FEED)

    def expired(self):
        return time.ticks_diff(time.ticks_ms(), self.fed_ms) > self.timeout_ms


class Faults:
    """Simulator-only test hook (docs/simulator.md): make an essential task hang or die.
    The server sends ``{"t": "fault", "task": NAME, "how": HOW}``; the supervisor calls
    ``hit(NAME)`` at each heartbeat of that task (``app.supervisor``), which then

    - ``"raise"``: raises (the task dies with an exception: logged, then the watchdog resets);
    - ``"block"``: never returns (the task blocks the event loop: nothing runs, the watchdog
      is not fed, the board resets);
    - ``"stall"``: returns False, so the beat is lost (the task waits forever while the rest
      runs: the supervisor sees no progress within the deadline).

    The ESP32 backend has no such part."""

    def __init__(self):
        self.want = {}

    def hit(self, name):
        how = self.want.get(name) if self.want else None
        if how is None:
            return True
        if how == "raise":
            del self.want[name]
            raise RuntimeError("injected fault in " + name)
        if how == "block":
            while True:
                time.sleep_ms(100)  # pyright: ignore[reportAttributeAccessIssue]
        return False


def from_env():
    """The simulator's settings, from the environment its runner (tools/sim/server.py) sets:
    ``config`` keys for ``make`` and the app (docs/simulator.md). ``settings``: the match
    settings as a dict (``SG_SETTINGS``, JSON), or None."""
    import json

    env = getattr(os, "getenv", lambda n: None)
    cfg: dict = {"ble": False}  # the simulator's link is the socket (app.sock_link)
    for key, name, conv in (
        ("port", "SG_SIM_PORT", int),
        ("image", "SG_SIM_IMAGE", str),
        ("seed", "SG_SIM_SEED", str.encode),
        ("link_port", "SG_LINK_PORT", int),
        ("scan_hz", "SG_SCAN_HZ", int),
    ):
        v = env(name)
        if v:
            cfg[key] = conv(v)
    raw = env("SG_SETTINGS")
    cfg["settings"] = json.loads(raw) if raw else None
    # the page's status panel (app.sim_status) is the simulator's, not the board's: the
    # server turns it off on the board model, whose 64k heap is the board's, not the page's
    cfg["status"] = env("SG_SIM_STATUS") != "0"
    cfg["heap_probe"] = env("SG_SIM_HEAP_PROBE") == "1"  # hal.sim_bus.Bus.probe (tests)
    cfg["serial_link"] = env("SG_SERIAL_LINK") == "1"
    key = env("SG_FW_KEY")  # a development key the update bundles are signed with (tests)
    if key:
        cfg["fw_key"] = bytes.fromhex(key)
    return cfg


def make(config=None):
    """Build the simulated hardware. ``config`` keys (all optional):
    ``sensor_bytes``, ``leds``, ``buttons`` (sizes, from hardware/board.json via bg.hwdesc),
    ``host``/``port`` (the simulator server; headless when absent), ``seed`` (bytes:
    deterministic randomness), ``battery_mv`` (the modelled cell's voltage, default 4000;
    None: no battery option), ``image`` (littlefs image file) or ``directory`` (plain dir),
    ``heap_probe`` (the bus reports the heap: ``hal.sim_bus.Bus.probe``)."""
    config = config or {}
    sensors = Sensors(int(config.get("sensor_bytes", 0)))
    leds = Leds(int(config.get("leds", 0)))
    buttons = Buttons(int(config.get("buttons", 4)))
    storage = Storage(image=config.get("image"), directory=config.get("directory"))
    radio = Radio()
    mv = config.get("battery_mv", 4000)  # None: a board without the battery option
    bat = Battery(int(mv)) if mv is not None else None
    cause = (
        config.get("reset_cause") or getattr(os, "getenv", lambda n: None)("SG_SIM_RESET_CAUSE") or "power-on"
    )
    box = []  # the bus, once made: the watchdog talks through it

    def watchdog(ms):
        return Watchdog(ms, box[0] if box else None)

    def reset_cause():
        from bg.crashlog import CAUSE_NAMES  # the one vocabulary of reset causes

        return CAUSE_NAMES.index(cause) if cause in CAUSE_NAMES else 0

    def reset():
        if box:
            box[0].send_line({"t": "reset"})
        sys.exit(RESET_EXIT)  # machine.reset(): the server starts the firmware again

    hw = hal.Hardware(
        sensors,
        leds,
        buttons,
        Clock(),
        Random(config.get("seed")),
        storage,
        radio,
        system=(watchdog, reset_cause, reset),
        battery=bat,
        sleep=Sleep(),
    )
    setattr(hw, "faults", Faults())  # noqa: B010 - the simulator's test hook only
    bus = None
    if config.get("port"):
        from hal.sim_bus import Bus  # the server connection: not loaded when headless

        bus = Bus(config.get("host", "127.0.0.1"), int(config["port"]), hw)
        bus.probe = bool(config.get("heap_probe"))
        box.append(bus)
        sensors._bus = leds._bus = radio._bus = bus
        bus.send_line(
            {"t": "hello", "sensor_bytes": sensors.nbytes, "leds": leds.count, "buttons": buttons.count}
        )
        bus.wait_bits()
    setattr(hw, "bus", bus)  # noqa: B010 - an extra part of this backend only
    return hw


def app_partitions():
    """The app partitions' class (``esp32.Partition``'s shape), faked over the files in the
    folder ``SG_OTA_DIR`` (``hal.sim_ota``), as the ESP32's ``hal.esp32.app_partitions``; None
    without it (this board then takes no app image)."""
    if not getattr(os, "getenv", lambda n: None)("SG_OTA_DIR"):
        return None
    from hal.sim_ota import Partition

    return Partition
