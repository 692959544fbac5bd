"""The ``esp32`` HAL backend: the real board (hardware/board.json, hardware/README.md).

- ``Sensors``: the 74HC165 chain on the VSPI bus. One read = a ``PL`` pulse (all switches
  latched at once), then ``CE`` low and ``spi.readinto(buf, 0xFF)`` into the caller's
  preallocated buffer (the SPI peripheral shifts; nothing is allocated).
- ``Leds``: ``neopixel.NeoPixel``; its own ``buf`` (GRB, 3 bytes per LED) *is* the frame
  buffer ``bg.leds.Painter`` paints into, and ``show()`` is ``NeoPixel.write()``.
- ``Buttons``: ``Pin.irq`` on the falling edge (active low, internal pull-ups). The handler
  only bumps a press counter after a dead time (contact bounce); tasks poll ``take(i)``.
- ``Clock``: ``time.ticks_ms``; wall time from the RTC (set by the host link).
- ``Random``: ``os.urandom`` -- the ESP32's hardware RNG (true random while the radio runs).
- ``Storage``: the littlefs root at ``/`` (mounted again with ``hal.littlefs``'s parameters).
- ``Battery``: the cell's voltage through the divider on an ADC1 pin (board.json
  ``battery``), averaged; ``Sleep``: ``machine.lightsleep`` between idle scans.
- ``board_id()``: the link's board id, derived from ``machine.unique_id()`` (the chip's
  factory MAC in eFuse): 8 bytes, the same for the board's life, different on every board.
- ``Radio``: BLE from ``app.ble`` (the link engineer's module), imported lazily so the board
  boots (and plays) without it.

Example (on the device)::

    from hal import esp32
    hw = esp32.make()
    buf = bytearray(hw.sensors.nbytes)
    hw.sensors.read_into(buf)
"""

import os
import time

import machine
import neopixel
from machine import SPI, Pin
from micropython import const

import hal

_EPOCH_2000 = const(946684800)  # seconds from 1970-01-01 to 2000-01-01


class Sensors(hal.Sensors):
    """The reed-switch chain: ``read_into(buf)`` fills ``buf[:nbytes]`` with the raw chain
    (register 0 first, input A in bit 0, wire levels: 0 = closed on this board)."""

    def __init__(self, board):
        p = board.pins
        s = board.spi
        self.nbytes = board.nbytes
        # PL and CE idle high: registers shifting nothing, inputs transparent
        self._pl = Pin(p["pl"], Pin.OUT, value=1)
        self._ce = Pin(p["ce"], Pin.OUT, value=1)
        self._spi = SPI(
            p["spi_id"],
            baudrate=s["baudrate"],
            polarity=s["polarity"],
            phase=s["phase"],
            bits=8,
            firstbit=SPI.MSB,
            sck=Pin(p["sck"]),
            mosi=Pin(p["mosi"]),
            miso=Pin(p["miso"], Pin.IN, Pin.PULL_UP),
        )
        self._view = None

    def read_into(self, buf):
        if len(buf) < self.nbytes:
            raise ValueError("sensor buffer too small")
        if len(buf) != self.nbytes:
            # read exactly the chain; the memoryview is made once per buffer, not per scan
            if self._view is None or len(self._view) != self.nbytes:
                self._view = memoryview(buf)[: self.nbytes]
            buf = self._view
        pl = self._pl
        pl(0)  # latch: >= 100 ns low at 3.3 V; a MicroPython pin call takes ~1 us
        pl(1)
        self._ce(0)
        self._spi.readinto(buf, 0xFF)
        self._ce(1)


class Leds(hal.Leds):
    """The WS2812B chain through neopixel; ``buf`` is the driver's own GRB buffer."""

    def __init__(self, board):
        self.count = board.nleds
        self._np = neopixel.NeoPixel(Pin(board.pins["led_data"], Pin.OUT), board.nleds, bpp=3, timing=1)
        self.buf = self._np.buf
        self.clear()

    def clear(self):
        b = self.buf
        for i in range(len(b)):
            b[i] = 0

    def show(self):
        self._np.write()


class Buttons(hal.Buttons):
    """Active-low buttons, debounced by level. A falling edge (IRQ) only arms the button and
    restarts its dead time; the press counts when ``take`` finds the dead time over and the
    pin still down. A contact bounces on release too: those edges arm it, but the pin reads
    up once the dead time is over, so a bouncing release never counts. The handler allocates
    nothing: it stores ``ticks_ms`` (a small int) in a list and sets a flag in a bytearray."""

    def __init__(self, board):
        self.count = len(board.buttons)
        self._pins = []
        self._presses = bytearray(self.count)
        self._armed = bytearray(self.count)
        self._dead = board.button_debounce_ms
        self._edge = [time.ticks_ms()] * self.count  # the latest edge of an armed button
        self._last = [time.ticks_ms()] * self.count
        self._low = board.buttons_active_low
        for i in range(self.count):
            pin = Pin(board.buttons[i][3], Pin.IN, Pin.PULL_UP if self._low else Pin.PULL_DOWN)
            self._pins.append(pin)
            pin.irq(handler=self._handler(i), trigger=Pin.IRQ_FALLING if self._low else Pin.IRQ_RISING)

    def _handler(self, i):
        # one closure per button, made at construction; the IRQ itself allocates nothing
        armed = self._armed
        edge = self._edge

        def irq(_pin):
            edge[i] = time.ticks_ms()
            armed[i] = 1

        return irq

    def _settle(self, i):
        """Count button ``i``'s press if its last edge is a dead time old and it is still down."""
        state = machine.disable_irq()  # an edge landing between the reads restarts the wait
        armed, edge = self._armed[i], self._edge[i]
        if armed and time.ticks_diff(time.ticks_ms(), edge) >= self._dead:
            self._armed[i] = 0
            if self.is_down(i):
                self._last[i] = edge
                if self._presses[i] < 255:
                    self._presses[i] += 1
        machine.enable_irq(state)

    def take(self, i):
        self._settle(i)
        state = machine.disable_irq()  # read-and-clear must not lose a press landing between
        n = self._presses[i]
        self._presses[i] = 0
        machine.enable_irq(state)
        return n

    def is_down(self, i):
        v = self._pins[i].value()
        return v == 0 if self._low else v == 1

    def down_since(self, i):
        """ticks_ms of the last accepted press edge (long-press detection)."""
        return self._last[i]


class Clock(hal.Clock):
    """Monotonic ticks and the RTC as unix time (the port's epoch may be 1970 or 2000)."""

    def __init__(self):
        self._rtc = machine.RTC()
        self._offset = _EPOCH_2000 if time.gmtime(0)[0] == 2000 else 0

    def ticks_ms(self):
        return time.ticks_ms()

    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

    def unix_time(self):
        return time.time() + self._offset

    def set_unix_time(self, t):
        tm = time.gmtime(int(t) - self._offset)  # (y, mo, d, h, mi, s, weekday, yearday)
        self._rtc.datetime((tm[0], tm[1], tm[2], tm[6], tm[3], tm[4], tm[5], 0))


class Random(hal.Random):
    """The hardware RNG. It is a true RNG only while the RF subsystem runs (or during the
    bootloader's entropy phase), so ``ready()`` switches BLE on and reports whether it is;
    the dice refuse to draw a match seed until it says True (docs/dice.md)."""

    def urandom(self, n):
        return os.urandom(n)

    def ready(self):
        try:
            import bluetooth

            ble = bluetooth.BLE()
            if not ble.active():
                ble.active(True)
            return bool(ble.active())
        except (ImportError, OSError):
            return False


class Storage(hal.Storage):
    """The littlefs volume on the flash's ``vfs`` partition, at ``/``. MicroPython's frozen
    ``_boot.py`` mounts it with its defaults; it is mounted again here, nothing open on it yet,
    with ``hal.littlefs``'s parameters, the simulator's: each open file then takes the heap
    the board model measures (a run of 208 bytes, not 272). Should that mount fail, the boot's
    stays (the same files; ``ok()`` tells whether it is usable)."""

    def __init__(self, root="/"):
        self.root = root
        self.error = ""
        try:
            import vfs
            from flashbdev import bdev

            if bdev:
                fs = hal.littlefs(bdev)  # before the boot's is let go: one of them is mounted
                vfs.umount(root)
                vfs.mount(fs, root)
                os.chdir(root)
        except (ImportError, OSError):
            pass

    def ok(self):
        try:
            os.statvfs(self.root)
            return True
        except OSError as e:
            self.error = str(e)
            return False


class Battery(hal.Battery):
    """The cell through the divider on an ADC1 pin (board.json ``battery``; ADC2 cannot be read
    while the radio is on). 11 dB attenuation: the ESP32 reads about 0.15..2.45 V there
    (Espressif: ADC_ATTEN_DB_11), the divider keeps a full cell inside that. ``read_uv`` is the
    port's calibrated reading (eFuse Vref); ``adc_samples`` of them are averaged. Integer
    arithmetic on small ints only: nothing is allocated per reading."""

    def __init__(self, board):
        d = board.battery
        self._adc = machine.ADC(Pin(d["adc_pin"]), atten=machine.ADC.ATTN_11DB)
        self._n = d["adc_samples"]
        top, bottom = d["divider_top_ohm"], d["divider_bottom_ohm"]
        self._k = (top + bottom) * 1024 // bottom  # pin mV -> cell mV, scaled by 1024
        # the charger's open-drain CHG / PGOOD: the board pulls them up (GPIO 34-39 have no
        # pull-ups of their own), low means charging / USB present
        self._chg = Pin(d["chg_pin"], Pin.IN) if "chg_pin" in d else None
        self._pg = Pin(d["pgood_pin"], Pin.IN) if "pgood_pin" in d else None

    def charger(self):
        chg, pg = self._chg, self._pg
        if chg is None or pg is None:  # the loader keeps both or neither
            return None
        return chg.value() == 0, pg.value() == 0

    def read_mv(self):
        adc = self._adc
        total = 0
        for _ in range(self._n):
            total += adc.read_uv() // 1000  # mV at the pin; the sum stays a small int
        return (total // self._n) * self._k >> 10


class Sleep(hal.Sleep):
    """``machine.lightsleep``: the CPU stops, RAM and the BLE controller's state are kept.
    ``app.power`` naps only in idle mode and never while a host is connected."""

    def nap(self, ms):
        if ms > 0:
            machine.lightsleep(ms)


def board_id():
    """8 bytes from the chip's unique id: SHA-256("gammon-board-id" || unique_id)[:8] (a
    uniform 8-byte id whatever the id's length, 6 bytes on an ESP32)."""
    import hashlib

    return hashlib.sha256(b"gammon-board-id" + machine.unique_id()).digest()[:8]


class Watchdog(hal.Watchdog):
    """``machine.WDT``: the ESP32's task watchdog; once armed it runs until the next reset."""

    def __init__(self, timeout_ms):
        self._w = machine.WDT(id=0, timeout=timeout_ms)

    def feed(self):
        self._w.feed()


def reset_cause():
    """``machine.reset_cause()`` as a ``bg.crashlog`` cause. The ESP32 port reports a
    brown-out as a power-on reset (it has no ``BROWNOUT_RESET``); a port that has one is named."""
    from bg import crashlog as CL

    c = machine.reset_cause()
    m = (
        (machine.PWRON_RESET, CL.CAUSE_POWER_ON),
        (machine.HARD_RESET, CL.CAUSE_HARD),
        (machine.WDT_RESET, CL.CAUSE_WATCHDOG),
        (machine.DEEPSLEEP_RESET, CL.CAUSE_DEEP_SLEEP),
        (machine.SOFT_RESET, CL.CAUSE_SOFT),
        (getattr(machine, "BROWNOUT_RESET", -1), CL.CAUSE_BROWNOUT),
    )
    for k, v in m:
        if c == k:
            return v
    return CL.CAUSE_UNKNOWN


def make(config=None):
    """Build the board's hardware. ``config`` may carry a loaded ``board``
    (``bg.hwdesc.Board``); otherwise board.json is loaded here. The BLE link is not a HAL part:
    the application wires it (``app.link`` over ``app.ble.BleTransport``), so ``radio`` is None."""
    config = config or {}
    board = config.get("board")
    if board is None:
        from bg import hwdesc

        board = hwdesc.load()
    bat = Battery(board) if board.battery is not None else None
    hw = hal.Hardware(
        Sensors(board),
        Leds(board),
        Buttons(board),
        Clock(),
        Random(),
        Storage(),
        None,
        board_id,
        (Watchdog, reset_cause, machine.reset),
        bat,
        Sleep(),
    )
    setattr(hw, "board", board)  # noqa: B010 - an extra part the sim backend does not have
    return hw


def app_partitions():
    """``esp32.Partition``: the OTA app partitions a whole firmware's app image is written into
    (``bg.update.slots``) and confirmed in (``bg.update.boot``); None when the running app is
    not in an OTA partition (a table without ota_0/ota_1: then no app image is taken)."""
    import esp32

    try:
        # the stubs type the id as a label; the port takes RUNNING/BOOT too (esp32_partition.c)
        esp32.Partition(esp32.Partition.RUNNING).get_next_update()  # pyright: ignore[reportArgumentType]
    except OSError:
        return None
    return esp32.Partition
