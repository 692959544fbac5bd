"""Hardware-abstraction layer: the one interface between the device application and the
hardware.

Two backends implement it:

- ``hal.esp32`` -- the real board: ``machine.SPI``/``machine.Pin`` for the 74HC165 sensor
  chain and buttons, ``neopixel`` for the LED chain, ``bluetooth`` for the radio,
  ``os.urandom`` (hardware RNG) for randomness, littlefs on the internal flash.
- ``hal.sim`` -- the MicroPython unix port driven by the browser simulator over a local
  socket; the firmware above this layer cannot tell it from the hardware.

``load(name)`` returns the backend module; each backend exposes ``make(config)`` returning a
``Hardware`` with the parts below. The classes here document the shape (the base classes
of both backends, for the type checker: at run time a part without a method is ``object``);
they never touch hardware themselves. Beside ``make``, a backend exposes the flash's
partitions, asked for only by an update's boot and receiver: ``app_partitions()`` (the OTA
app partitions' class, shaped as ``esp32.Partition``: ``Partition(Partition.RUNNING)``,
``get_next_update()``, ``info()``,
``ioctl``/``readblocks``/``writeblocks``, ``set_boot()``, ``mark_app_valid_cancel_rollback()``;
None where the board has none: ``hal.sim_ota`` fakes them). The methods each part must
have are named in its docstring, not written out as ``raise NotImplementedError`` stubs: every
function is a heap object on the board (docs/memory.md), and a backend without one fails
just as plainly (AttributeError).

Why this shape: the portable core (``bg``) only ever sees bytearrays (sensor bits in, LED
frame out), so it runs under CPython tests unchanged; only these parts know about pins.
"""

# The parts' classes below exist for the type checker only (pyright reads ``TYPE_CHECKING``
# as True): at run time each is plain ``object``, so a backend's ``class Sensors(hal.Sensors)``
# costs no class object here. A class with no method is still ~150 bytes of the board's heap
# (its type object and dict; docs/memory.md): nine of them were 1.3 kB for no behaviour.
TYPE_CHECKING = False

if TYPE_CHECKING:

    class Sensors:
        """The reed-switch chain. ``read_into(buf)`` shifts every bit of the chain into the
        preallocated ``buf`` (one bit per sensor, chain order, see hardware/board.json) without
        allocating."""

        nbytes = 0

    class Leds:
        """The addressable LED chain. ``buf`` is a preallocated bytearray of 3 bytes per LED
        (GRB order on the wire); ``show()`` sends it. Brightness capping happens before here."""

        count = 0
        buf = bytearray(0)

    class Buttons:
        """Buttons raise edge flags from their IRQ handler (which only sets a flag); tasks poll
        ``take(i)``, which returns and clears the press count of button ``i``; ``is_down(i)`` is
        True while button ``i`` is held."""

        count = 0

    class Clock:
        """Monotonic milliseconds (wrapping like ``time.ticks_ms``) and wall time: ``ticks_ms()``,
        ``ticks_diff(a, b)`` (``a - b`` across the wrap), ``unix_time()`` (seconds) and
        ``set_unix_time(t)``."""

else:
    Sensors = Leds = Buttons = Clock = object


class Random:
    """The hardware random source: ``urandom(n)`` returns ``n`` random bytes. Tests inject a
    deterministic one."""

    def ready(self):
        """True when ``urandom`` is a true RNG. On the ESP32 that needs the radio on (BLE
        active): with RF off the hardware RNG is only pseudo-random, so the dice refuse to
        draw a match seed until this says True."""
        return True


if TYPE_CHECKING:

    class Storage:
        """Where the journal lives: ``root`` is a mounted littlefs directory (``/flash`` style);
        ``ok()`` is False when it could not be mounted."""

        root = ""

    class Radio:
        """A byte-frame transport to the host (BLE on the device, a socket in the simulator).
        ``send(frame)`` queues one frame; ``recv()`` returns the next received frame or None;
        ``event`` is an ``asyncio.ThreadSafeFlag``-like flag set when something arrived."""

    class Battery:
        """The cell of the battery option (hardware/board.json ``battery``). ``read_mv()`` is its
        voltage in millivolts: several ADC samples averaged, the divider undone. ``charger()`` is
        ``(charging, usb)`` from the charger's CHG and PGOOD outputs (board.json ``chg_pin``,
        ``pgood_pin``), or None when the board does not wire them. A board without the battery
        option has no ``Battery`` (``Hardware.battery`` is None)."""

    class Sleep:
        """Low-power waiting. ``nap(ms)`` stops the CPU for ``ms`` where the port allows (light
        sleep on the ESP32: RAM, the radio's connection and the timers kept) and returns when it
        is over; the caller decides when that is safe (idle mode, ``app.power``)."""

    class Watchdog:
        """The hardware watchdog (``machine.WDT``), armed by ``Hardware.watchdog(timeout_ms)``:
        once armed it cannot be stopped; ``feed()`` restarts its timeout, and a board not fed
        within it resets (``reset_cause()`` then says ``CAUSE_WATCHDOG``). Only the supervisor
        (``app.supervisor``) feeds it."""

else:
    Storage = Radio = Battery = Sleep = Watchdog = object


class Hardware:
    """A bundle of the parts above, returned by a backend's ``make()``.

    ``watchdog(timeout_ms)`` arms the hardware watchdog (a ``Watchdog``; None when the backend
    has none), ``reset_cause()`` is why the board last reset (``bg.crashlog``'s
    ``CAUSE_*``, from ``machine.reset_cause()``), ``reset()`` resets it (``machine.reset()``).

    ``battery`` and ``sleep`` may be None (no battery option; no low-power wait).
    ``board_id()`` is the board's link identity (8 bytes, docs/protocol.md INFO), or None
    when the hardware has none: the link store then draws a random one once and keeps it
    on flash (the simulator: one per flash image)."""

    def __init__(
        self,
        sensors,
        leds,
        buttons,
        clock,
        random,
        storage,
        radio=None,
        board_id=None,
        system=None,
        battery=None,
        sleep=None,
    ):
        self.sensors = sensors
        self.leds = leds
        self.buttons = buttons
        self.clock = clock
        self.random = random
        self.storage = storage
        self.radio = radio
        self._board_id = board_id
        self._system = system  # the backend's (watchdog, reset_cause, reset), or None
        self.battery = battery  # a ``Battery``, or None: no battery option (USB only)
        self.sleep = sleep  # a ``Sleep``, or None: idle mode only slows the scans down

    def board_id(self):
        f = self._board_id
        return f() if f is not None else None

    def watchdog(self, timeout_ms):
        s = self._system
        return s[0](timeout_ms) if s is not None else None

    def reset_cause(self):
        s = self._system
        return s[1]() if s is not None else 0  # CAUSE_UNKNOWN

    def reset(self):
        s = self._system
        if s is None:
            raise OSError("this hardware cannot reset")
        s[2]()


def backend():
    """The backend to run: ``"esp32"``, unless the simulator's runner asks for ``"sim"`` on the
    unix port (``SG_HAL``; the ESP32's ``os`` has no ``getenv``)."""
    import os

    f = getattr(os, "getenv", None)
    return (f("SG_HAL") if f else None) or "esp32"


def load(name):
    """Import a backend by name (``"esp32"`` or ``"sim"``)."""
    if name == "esp32":
        from hal import esp32 as mod
    elif name == "sim":
        from hal import sim as mod
    else:
        raise ValueError("unknown HAL backend: " + name)
    return mod


def littlefs(bdev, mkfs=False):
    """The journal's littlefs on ``bdev`` (``vfs.VfsLfs2``), or with ``mkfs`` a format of it,
    with the one set of parameters both backends mount with (the simulator's image is the
    ESP32's flash: what fits the board model's heap must fit the board's).

    Why not MicroPython's defaults (readsize = progsize = lookahead = 32): littlefs keeps a
    cache of 4 x max(readsize, progsize) bytes in every open file's object and two more in the
    mount, so 16 makes each file object 208 bytes (13 heap blocks) instead of 272 (17) and the
    mount 128 bytes smaller. After a long match the heap has kilobytes free but in short runs:
    a file opened then (the host's fetch of the finished match opens it for every chunk) needs
    a run of the object's size, not the free total. The price: littlefs reads and programs in
    smaller pieces (more, shorter flash calls; littlefs requires only that they divide the
    cache and the cache the 4096-byte block). The parameters are not on the flash (littlefs's
    superblock holds the block size and count only): a volume formatted with the defaults
    mounts with these unchanged."""
    import vfs

    if mkfs:
        return vfs.VfsLfs2.mkfs(bdev, readsize=16, progsize=16, lookahead=32)
    return vfs.VfsLfs2(bdev, readsize=16, progsize=16, lookahead=32)
