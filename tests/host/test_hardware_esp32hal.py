"""hal.esp32 against fake ``machine``/``neopixel`` modules that model the 74HC165 chain:
latch before read, CE low while clocking, buffer filled in place, IRQ press counting."""

import importlib
import importlib.util
import pathlib
import sys
import time
import types

import pytest
from bg import hwdesc


class FakeChain:
    """74HC165s: PL low latches the inputs; clocking with CE (CLK INH) high shifts nothing."""

    def __init__(self, n):
        self.inputs = bytearray(b"\xff" * n)
        self.latched = bytearray(n)
        self.pl_level = 1
        self.ce_level = 1
        self.latches = 0

    def pl(self, v):
        if self.pl_level == 1 and v == 0:
            self.latched[:] = self.inputs
            self.latches += 1
        self.pl_level = v

    def read(self, buf):
        if self.ce_level:
            q = 0xFF if self.latched[0] & 0x80 else 0  # clock inhibited: QH never changes
            for i in range(len(buf)):
                buf[i] = q
        else:
            buf[:] = self.latched[: len(buf)]


@pytest.fixture
def esp32(monkeypatch):
    board = hwdesc.load()
    chain = FakeChain(board.nbytes)
    chain.inputs[:] = board.idle_chain()
    pins = {}

    class Pin:
        IN, OUT, PULL_UP, PULL_DOWN, IRQ_FALLING, IRQ_RISING = 1, 2, 3, 4, 5, 6

        def __init__(self, num, mode=None, pull=None, value=None):
            self.num = num
            self.level = 1 if value is None else value
            self.handler = None
            pins[num] = self
            if value is not None:
                self(value)

        def __call__(self, v=None):
            if v is None:
                return self.level
            self.level = v
            if self.num == board.pins["pl"]:
                chain.pl(v)
            elif self.num == board.pins["ce"]:
                chain.ce_level = v

        def value(self, v=None):
            return self(v)

        def irq(self, handler=None, trigger=None):
            self.handler = handler

    class SPI:
        MSB = 0

        def __init__(self, ident, **kw):
            self.kw = kw

        def readinto(self, buf, write=0):
            chain.read(buf)

    class NeoPixel:
        def __init__(self, pin, n, bpp=3, timing=1):
            self.buf = bytearray(bpp * n)
            self.writes = []

        def write(self):
            self.writes.append(bytes(self.buf))

    class RTC:
        def datetime(self, t=None):
            self.t = t

    cell = types.SimpleNamespace(mv=3900, reads=0, noise=40, sleeps=[])

    class ADC:
        """An ESP32 ADC1 input: reads the divider's output, clipped at the attenuation's top
        (0 dB: ~950 mV, 11 dB: ~2450 mV), with +-noise alternating from sample to sample."""

        ATTN_0DB, ATTN_11DB = 0, 3

        def __init__(self, pin, atten=0):
            self.pin = pin.num
            self.att = atten
            cell.adc = self

        def read_uv(self):
            d = board.battery
            pin_mv = cell.mv * d["divider_bottom_ohm"] / (d["divider_top_ohm"] + d["divider_bottom_ohm"])
            cell.reads += 1
            pin_mv += cell.noise if cell.reads % 2 else -cell.noise
            top = 2450 if self.att == ADC.ATTN_11DB else 950
            return int(max(0, min(pin_mv, top)) * 1000)

    machine = types.ModuleType("machine")
    machine.Pin, machine.SPI, machine.RTC, machine.ADC = Pin, SPI, RTC, ADC
    machine.lightsleep = cell.sleeps.append
    uid = [b"\x24\x0a\xc4\x01\x02\x03"]  # an ESP32's eFuse MAC (6 bytes)
    machine.unique_id = lambda: uid[0]
    machine.disable_irq = lambda: 0
    machine.enable_irq = lambda s: None

    class WDT:  # machine.WDT(id=0, timeout=ms): keyword-only, as the ESP32 port
        made = []

        def __init__(self, *, id=0, timeout=5000):
            self.id, self.timeout, self.feeds = id, timeout, 0
            WDT.made.append(self)

        def feed(self):
            self.feeds += 1

    machine.WDT = WDT
    # the ESP32 port's constants (micropython-esp32-stubs machine.pyi); no BROWNOUT_RESET there
    machine.PWRON_RESET, machine.HARD_RESET, machine.WDT_RESET = 1, 2, 3
    machine.DEEPSLEEP_RESET, machine.SOFT_RESET = 4, 5
    cause = [3]
    machine.reset_cause = lambda: cause[0]
    resets = []
    machine.reset = lambda: resets.append(1)
    neopixel = types.ModuleType("neopixel")
    neopixel.NeoPixel = NeoPixel
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "neopixel", neopixel)
    now = [1000]
    monkeypatch.setattr(time, "ticks_ms", lambda: now[0], raising=False)
    monkeypatch.setattr(time, "ticks_diff", lambda a, b: a - b, raising=False)
    monkeypatch.setattr(time, "ticks_add", lambda a, d: a + d, raising=False)
    import hal

    monkeypatch.delitem(sys.modules, "hal.esp32", raising=False)
    monkeypatch.delattr(hal, "esp32", raising=False)
    esp32 = importlib.import_module("hal.esp32")  # fresh, bound to this test's fakes

    hw = esp32.make({"board": board, "radio": False})
    return types.SimpleNamespace(
        hw=hw,
        board=board,
        chain=chain,
        pins=pins,
        now=now,
        uid=uid,
        machine=machine,
        cause=cause,
        resets=resets,
        cell=cell,
    )


def test_read_latches_then_clocks_with_ce_low(esp32):
    b, chain = esp32.board, esp32.chain
    counts = bytearray(28)
    counts[0] = 2
    chain.inputs[:] = b.fill_chain(counts)
    buf = bytearray(b.nbytes)
    esp32.hw.sensors.read_into(buf)
    assert chain.latches == 1
    assert buf == b.fill_chain(counts)
    assert chain.ce_level == 1 and chain.pl_level == 1  # idle levels restored


def test_read_into_longer_buffer_fills_chain_part_only(esp32):
    b = esp32.board
    buf = bytearray(b.nbytes + 4)
    buf[-1] = 0x55
    esp32.hw.sensors.read_into(buf)
    assert buf[: b.nbytes] == b.idle_chain() and buf[-1] == 0x55
    with pytest.raises(ValueError):
        esp32.hw.sensors.read_into(bytearray(2))


def test_leds_buffer_is_the_drivers(esp32):
    from bg import leds

    hw = esp32.hw
    p = leds.Painter(esp32.board, hw.leds.buf)
    p.turn(0)
    hw.leds.show()
    assert hw.leds._np.writes[-1] == bytes(p.buf)
    assert len(hw.leds.buf) == 3 * esp32.board.nleds


def _bouncing(esp32, i, script, scan_ms=5):
    """Drive button ``i``'s pin through ``script`` = [(ms, level)] (a contact that bounces:
    every high-to-low step calls the IRQ handler as the ESP32 does on a falling edge) while
    the app polls ``take`` every ``scan_ms`` (board.json's 200 Hz scan); the presses seen."""
    pin = esp32.pins[esp32.board.buttons[i][3]]
    seen = 0
    for ms, level in script:
        while esp32.now[0] + scan_ms <= ms:  # the scans until this step
            esp32.now[0] += scan_ms
            seen += esp32.hw.buttons.take(i)
        esp32.now[0] = ms
        if pin.level == 1 and level == 0:
            pin.level = 0
            pin.handler(pin)
        pin.level = level
    for _ in range(40):  # 200 ms of scans after the script
        esp32.now[0] += scan_ms
        seen += esp32.hw.buttons.take(i)
    return seen


def _bounce(t0, level, n=6, step=0.7):
    """A contact closing (level 0) or opening (level 1) at ``t0``: ``n`` bounces ``step`` ms
    apart, then ``level`` for good."""
    out = [(t0 + k * step, level if k % 2 == 0 else 1 - level) for k in range(n)]
    return out + [(t0 + n * step, level)]


def test_button_counts_a_bouncing_press_once_and_a_bouncing_release_never(esp32):
    b = esp32.board
    i = b.button_index("roll", 1)
    t = esp32.now[0] + 100
    # press bounces for 4 ms, held 200 ms, release bounces for 4 ms with falling edges
    script = _bounce(t, 0) + _bounce(t + 200, 1)
    assert _bouncing(esp32, i, script) == 1
    assert not esp32.hw.buttons.is_down(i)
    # a release that bounces 10 ms later than the press's dead time: still one press
    t = esp32.now[0] + 100
    assert _bouncing(esp32, i, _bounce(t, 0) + _bounce(t + b.button_debounce_ms + 10, 1, n=12)) == 1
    # two real presses 150 ms apart: two
    t = esp32.now[0] + 100
    script = _bounce(t, 0) + _bounce(t + 60, 1) + _bounce(t + 150, 0) + _bounce(t + 210, 1)
    assert _bouncing(esp32, i, script) == 2
    # a 3 ms glitch to ground (a spark, a cable touched): the pin is up after the dead time
    t = esp32.now[0] + 100
    assert _bouncing(esp32, i, [(t, 0), (t + 3, 1)]) == 0
    # a tap shorter than the dead time does not count either (the rule: still down after it)
    t = esp32.now[0] + 100
    assert _bouncing(esp32, i, _bounce(t, 0) + _bounce(t + b.button_debounce_ms - 10, 1)) == 0
    # held: counted once, while it is down
    t = esp32.now[0] + 100
    pin = esp32.pins[b.buttons[i][3]]
    assert _bouncing(esp32, i, _bounce(t, 0)) == 1 and esp32.hw.buttons.is_down(i)
    assert esp32.hw.buttons.down_since(i) == pytest.approx(t + 6 * 0.7)
    pin.level = 1


def test_button_release_bounce_alone_counted_twice_before_the_fix(esp32):
    # the old rule (any falling edge a dead time after the last accepted one is a press)
    # counted a release whose bounces outlast the dead time; the level rule does not
    b = esp32.board
    i = b.button_index("cube", 0)
    t = esp32.now[0] + 100
    script = _bounce(t, 0) + _bounce(t + 100, 1, n=4, step=1) + [(t + 100 + b.button_debounce_ms + 2, 0)]
    script += [(t + 100 + b.button_debounce_ms + 3, 1)]
    assert _bouncing(esp32, i, script) == 1


def test_clock_and_random(esp32):
    hw = esp32.hw
    assert hw.clock.ticks_diff(hw.clock.ticks_ms(), 0) == esp32.now[0]
    assert len(hw.random.urandom(16)) == 16


def test_board_id_comes_from_the_chips_unique_id(esp32):
    hw = esp32.hw
    a = hw.board_id()
    assert len(a) == 8 and a == hw.board_id()  # the same for the board's life
    assert a != b"GAMMON00"  # not the id every board shared before
    esp32.uid[0] = b"\x24\x0a\xc4\x01\x02\x04"  # another chip, one bit apart
    b = hw.board_id()
    assert len(b) == 8 and b != a


def test_watchdog_reset_cause_and_reset_are_the_machine_modules(esp32):
    from bg import crashlog as CL

    hw, m = esp32.hw, esp32.machine
    w = hw.watchdog(8000)
    [made] = m.WDT.made
    assert (made.id, made.timeout) == (0, 8000)
    w.feed()
    w.feed()
    assert made.feeds == 2
    want = {1: "power-on", 2: "hard", 3: "watchdog", 4: "deep-sleep", 5: "soft", 6: "unknown", 99: "unknown"}
    for code, name in want.items():
        esp32.cause[0] = code
        assert CL.CAUSE_NAMES[hw.reset_cause()] == name, code
    m.BROWNOUT_RESET = 6  # a port that reports brown-outs
    esp32.cause[0] = 6
    assert CL.CAUSE_NAMES[hw.reset_cause()] == "brownout"
    hw.reset()
    assert esp32.resets == [1]


def test_battery_reads_the_cell_through_the_divider_on_its_adc1_pin(esp32):
    hw, cell = esp32.hw, esp32.cell
    assert cell.adc.pin == esp32.board.battery["adc_pin"]
    for mv in (4200, 3900, 3500, 3300):  # a full cell must not clip at the ADC's top
        cell.mv = mv
        before = cell.reads
        got = hw.battery.read_mv()
        assert cell.reads - before == esp32.board.battery["adc_samples"]  # averaged
        assert abs(got - mv) <= 4, (mv, got)  # the +-40 mV noise averages out


def test_battery_reads_the_chargers_chg_and_pgood_pins(esp32):
    d, pins, bat = esp32.board.battery, esp32.pins, esp32.hw.battery
    chg, pg = pins[d["chg_pin"]], pins[d["pgood_pin"]]
    assert bat.charger() == (False, False)  # both released: the board's pull-ups read high
    chg.level, pg.level = 0, 0  # USB in, the cell charging (open drain: low is active)
    assert bat.charger() == (True, True)
    chg.level = 1  # the charge done
    assert bat.charger() == (False, True)


def test_light_sleep_between_idle_scans(esp32):
    esp32.hw.sleep.nap(100)
    esp32.hw.sleep.nap(0)  # nothing to wait for: no sleep at all
    assert esp32.cell.sleeps == [100]


_HARNESS = str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "harness" / "journal_flash.py")


class _LfsVfs(types.ModuleType):
    """``vfs`` as the two backends' storage uses it: ``VfsLfs2(bdev, **params)`` (and its
    ``mkfs``) recorded with their parameters, ``mount``/``umount`` recorded in order."""

    def __init__(self):
        super().__init__("vfs")
        made = self.made = []
        self.calls = []

        class VfsLfs2:
            def __init__(self, bdev, **kw):
                self.bdev, self.kw = bdev, kw
                made.append(kw)

            @staticmethod
            def mkfs(bdev, **kw):
                made.append(kw)

        self.VfsLfs2 = VfsLfs2

    def mount(self, fs, point):
        self.calls.append(("mount", fs, point))

    def umount(self, point):
        self.calls.append(("umount", point))


def test_both_backends_mount_the_journals_littlefs_with_the_same_small_caches(esp32, monkeypatch, tmp_path):
    """The ESP32 mounts the ``vfs`` partition again over the frozen ``_boot.py``'s mount (which
    takes MicroPython's defaults, 32-byte caches: a 272-byte object per open file) with the
    parameters the simulator and so the board model mount their image with (``hal.littlefs``:
    16, a 208-byte object) -- the heap a file takes on the board is the one measured. A board
    whose flash has no ``vfs`` partition keeps what it has."""
    from hal import sim

    mod = sys.modules["hal.esp32"]
    v = _LfsVfs()
    flash = types.ModuleType("flashbdev")
    flash.bdev = object()
    monkeypatch.setitem(sys.modules, "vfs", v)
    monkeypatch.setitem(sys.modules, "flashbdev", flash)
    monkeypatch.setattr(mod.os, "chdir", lambda p: v.calls.append(("chdir", p)), raising=False)
    st = mod.Storage()
    assert len(v.made) == 1 and v.made[0]["readsize"] == 16 and v.made[0]["progsize"] == 16, v.made
    fs = v.calls[1][1]
    assert fs.bdev is flash.bdev
    assert v.calls == [("umount", "/"), ("mount", fs, "/"), ("chdir", "/")] and st.root == "/"
    esp = v.made[0]
    # the simulator: its image mounted with exactly those parameters
    v.made.clear()
    s = sim.Storage(image=str(tmp_path / "flash.img"), mount="/flash")
    assert s.root == "/flash" and v.made == [esp], v.made
    s.bdev.close()
    # the power-cut tests' and the journal bench's flash (tools/harness): the same again
    harness = importlib.util.spec_from_file_location("journal_flash", _HARNESS)
    jf = importlib.util.module_from_spec(harness)
    harness.loader.exec_module(jf)
    v.made.clear()
    jf.fresh(str(tmp_path / "h.img"), 4, "/h").close()
    assert v.made == [esp, esp], v.made
    # no vfs partition (flashbdev.bdev is None): the boot's state left alone
    v.calls.clear()
    flash.bdev = None
    mod.Storage()
    assert v.calls == []
