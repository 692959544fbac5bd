"""Loading and checking ``board.json`` into a ``bg.hwdesc.Board`` -- boot-time only.

Every message and check for a malformed description lives here, not in ``bg.hwdesc``: the
board needs them once, at boot, and ``hwdesc.Board()`` drops this module again as soon as the
tables are built, so its functions, its constant strings and its tuples go back to the heap
(3.1 kB on the 64-bit unix port; docs/memory.md). Use it through ``bg.hwdesc`` (``load``,
``parse``, ``Board(desc)``), never directly.
"""

import json

from bg.hwdesc import (
    CUBE_VALUES,
    LED_CUBE_VALUE,
    LED_DIE,
    LED_POINT,
    NONE,
    NROWS,
    ROLES,
    ROW_BAR0,
    ROW_TRAY0,
    row_name,
    row_of,
)

try:
    from array import array
except ImportError:  # pragma: no cover - every port we use has array
    array = None

_LED_KINDS = ("point", "bar", "tray", "turn", "cube_owner", "cube_value", "die")
_CANDIDATES = ("board.json", "/board.json", "hardware/board.json", "../hardware/board.json")


def _need(d, key, where):
    if not isinstance(d, dict) or key not in d:
        raise ValueError("board.json: missing '" + key + "' in " + where)
    return d[key]


def _int(d, key, where, lo, hi):
    v = _need(d, key, where)
    if not isinstance(v, int) or isinstance(v, bool) or v < lo or v > hi:
        raise ValueError("board.json: " + where + "." + key + " must be an integer in %d..%d" % (lo, hi))
    return v


def _uarray(n, fill):
    if array is not None:
        return array("H", [fill] * n)
    return [fill] * n


def _index_table(n, fill, small):
    """``n`` entries of ``fill``: a bytearray when every value fits a byte (``small``: half
    the heap of an array("H"), and a board of at most 31 registers has fewer than 255
    chain bits), else an array("H")."""
    return bytearray([fill] * n) if small else _uarray(n, fill)


def fill(b, desc):
    """Check ``desc`` (board.json parsed) and set the tables of the ``hwdesc.Board`` ``b``."""
    if not isinstance(desc, dict):
        raise ValueError("board.json: top level must be an object")
    if desc.get("format") != "smartgammon-board-v1":
        raise ValueError("board.json: unknown format %r (want smartgammon-board-v1)" % (desc.get("format"),))
    _sensors(b, _need(desc, "sensors", "board"))
    _leds(b, _need(desc, "leds", "board"), desc)
    _buttons(b, _need(desc, "buttons", "board"))
    b.buttons_active_low = bool(desc.get("buttons_active_low", True))
    pins = _need(desc, "pins", "board")
    for k in ("spi_id", "sck", "miso", "pl", "ce", "led_data"):
        _int(pins, k, "pins", 0, 48)
    b.pins = pins
    spi = _need(desc, "spi", "board")
    _int(spi, "baudrate", "spi", 1000, 40000000)
    _int(spi, "polarity", "spi", 0, 1)
    _int(spi, "phase", "spi", 0, 1)
    b.spi = spi
    fw = _need(desc, "firmware", "board")
    b.scan_hz = _int(fw, "scan_hz", "firmware", 10, 2000)
    b.debounce_scans = _int(fw, "debounce_scans", "firmware", 1, 50)
    b.button_debounce_ms = _int(fw, "button_debounce_ms", "firmware", 0, 500)
    power = _need(desc, "power", "board")
    b.checkers_per_side = _int(power, "checkers_per_side", "power", 1, 15)  # the section goes
    b.name = desc.get("name", "")
    _idle(b, desc.get("idle"))
    _battery(b, desc.get("battery"))
    used = set()
    for _n, _r, _s, pin in b.buttons:
        used.add(pin)
    for k in ("sck", "miso", "pl", "ce", "led_data"):
        if pins[k] in used:
            raise ValueError("board.json: GPIO %d used twice (pins.%s and a button)" % (pins[k], k))
        used.add(pins[k])
    if b.battery is not None:
        for k in ("adc_pin", "chg_pin", "pgood_pin"):
            pin = b.battery.get(k)
            if pin in used:
                raise ValueError("board.json: GPIO %d used twice (battery.%s)" % (pin, k))
            if pin is not None:
                used.add(pin)


def _idle(b, d):
    """Idle mode (app.power); defaults when board.json has no ``idle`` section."""
    d = d or {"after_s": 300, "scan_hz": 10, "leds_level": 0, "adv_ms": 1000}
    # the numbers only: the parsed section (its _doc string) does not stay in the heap
    b.idle = {
        "after_s": _int(d, "after_s", "idle", 10, 86400),
        "scan_hz": _int(d, "scan_hz", "idle", 1, 1000),
        "leds_level": _int(d, "leds_level", "idle", 0, 255),
        "adv_ms": _int(d, "adv_ms", "idle", 20, 10240),  # the BLE advertising interval's range
    }


_BATTERY_KEYS = (
    "adc_pin",
    "divider_top_ohm",
    "divider_bottom_ohm",
    "adc_samples",
    "poll_s",
    "low_mv",
    "critical_mv",
    "hysteresis_mv",
)


def _battery(b, d):
    """The battery option: None when board.json has none (USB only). The curve becomes two
    tables ``battery_mv`` (rising) and ``battery_pct`` for ``bg.battery``."""
    b.battery = None
    b.battery_mv = b.battery_pct = None
    if d is None:
        return
    pin = _int(d, "adc_pin", "battery", 0, 48)
    if not 32 <= pin <= 39:
        # ADC2 (GPIO 0, 2, 4, 12-15, 25-27) cannot be read while the radio is on
        raise ValueError("board.json: battery.adc_pin must be an ADC1 pin (GPIO 32-39), not %d" % pin)
    for k in ("divider_top_ohm", "divider_bottom_ohm"):
        _int(d, k, "battery", 1, 100000000)
    _int(d, "adc_samples", "battery", 1, 64)
    _int(d, "poll_s", "battery", 1, 600)
    crit = _int(d, "critical_mv", "battery", 2500, 4500)
    _int(d, "low_mv", "battery", crit + 1, 4500)  # LOW warns before CRITICAL halts
    _int(d, "hysteresis_mv", "battery", 0, 500)
    curve = _need(d, "curve", "battery")
    if not isinstance(curve, list) or len(curve) < 2:
        raise ValueError("board.json: battery.curve needs at least 2 [mV, percent] points")
    mv = _uarray(len(curve), 0)
    pct = bytearray(len(curve))
    for i in range(len(curve)):
        e = curve[i]
        if not isinstance(e, list) or len(e) != 2 or not 0 <= e[1] <= 100 or not 1000 <= e[0] <= 5000:
            raise ValueError("board.json: battery.curve[%d] must be [mV 1000..5000, percent 0..100]" % i)
        if i and (e[0] <= mv[i - 1] or e[1] < pct[i - 1]):
            raise ValueError("board.json: battery.curve must rise (point %d)" % i)
        mv[i] = e[0]
        pct[i] = e[1]
    keep = {}  # the numbers the firmware uses: the parsed section (texts, curve) goes
    for k in _BATTERY_KEYS:
        keep[k] = d[k]
    # the charger's open-drain CHG and PGOOD, both or neither: inputs the charger may pull low
    # through a reset, so never a strapping pin (0, 2, 5, 12, 15) nor a flash pin (6-11)
    if ("chg_pin" in d) != ("pgood_pin" in d):
        raise ValueError("board.json: battery.chg_pin and battery.pgood_pin go together")
    for k in ("chg_pin", "pgood_pin"):
        if k in d:
            pin = _int(d, k, "battery", 0, 39)
            if pin in (0, 2, 5, 12, 15) or 6 <= pin <= 11:
                raise ValueError("board.json: battery.%s GPIO %d is a strapping or flash pin" % (k, pin))
            keep[k] = pin
    b.battery = keep
    b.battery_mv = mv
    b.battery_pct = pct


def _sensors(b, s):
    b.slots_per_point = _int(s, "slots_per_point", "sensors", 1, 16)
    b.bar_slots = _int(s, "bar_slots", "sensors", 0, 15)
    b.tray_slots = _int(s, "tray_slots", "sensors", 0, 15)
    b.active_low = bool(_need(s, "active_low", "sensors"))
    regs = _need(s, "registers", "sensors")
    if not isinstance(regs, list) or not regs:
        raise ValueError("board.json: sensors.registers must be a non-empty list")
    n = len(regs)
    b.nbytes = n
    b.nbits = nbits = 8 * n
    b.bit_row = bytearray(b"\xff" * nbits)
    b.fixed_mask = bytearray(n)
    b.fixed_value = bytearray(n)
    b.tied = bytearray(n)
    rs = bytearray(NROWS)
    for row in range(NROWS):
        rs[row] = b.slots_per_point if row < ROW_BAR0 else (b.bar_slots if row < ROW_TRAY0 else b.tray_slots)
    b.row_slots = rs
    total = sum(rs)
    small = nbits < 255 and total < 256  # bit numbers and offsets fit a byte, 255 stays free
    unset = 0xFF if small else 0xFFFF
    start = _index_table(NROWS + 1, 0, small)
    total = 0
    for row in range(NROWS):
        start[row] = total
        total += rs[row]
    start[NROWS] = total
    b.row_start = start
    b.row_bits = _index_table(total, unset, small)
    inactive = 1 if b.active_low else 0
    for r in range(n):
        where = "sensors.registers[%d]" % r
        reg = regs[r]
        row = row_of(_need(reg, "kind", where), _need(reg, "index", where))
        base = _int(reg, "slot_base", where, 0, 248)
        tied = reg.get("tied", {})
        if not isinstance(tied, dict):
            raise ValueError("board.json: " + where + ".tied must be an object")
        for s in range(8):
            bit = 8 * r + s
            slot = base + s
            key = str(s)
            if key in tied:
                lvl = tied[key]
                if lvl not in ("open", "closed"):
                    raise ValueError("board.json: " + where + ".tied." + key + " must be open or closed")
                if slot < rs[row]:
                    raise ValueError(
                        "board.json: " + where + " input %d is a fitted slot, cannot be tied" % s
                    )
                closed = lvl == "closed"
                b.tied[r] |= 1 << s
                b.fixed_mask[r] |= 1 << s
                if (1 - inactive) if closed else inactive:  # wire level of the tied input
                    b.fixed_value[r] |= 1 << s
            elif slot < rs[row]:
                k = start[row] + slot
                if b.row_bits[k] != unset:
                    raise ValueError("board.json: %s slot %d wired twice (%s)" % (row_name(row), slot, where))
                b.row_bits[k] = bit
                b.bit_row[bit] = row
            else:
                b.fixed_mask[r] |= 1 << s
                if inactive:
                    b.fixed_value[r] |= 1 << s
    for row in range(NROWS):
        for slot in range(rs[row]):
            if b.row_bits[start[row] + slot] == unset:
                raise ValueError(
                    "board.json: %s slot %d is not wired to any register" % (row_name(row), slot)
                )


def _leds(b, ld, desc):
    b.brightness_cap = _int(ld, "brightness_cap", "leds", 1, 255)
    b.budget_ma = _int(ld, "budget_ma", "leds", 1, 10000)
    mpc = _need(ld, "ma_per_channel", "leds")
    if not isinstance(mpc, (int, float)) or mpc <= 0:
        raise ValueError("board.json: leds.ma_per_channel must be a positive number")
    b.ma_per_channel = mpc
    b.idle_ma_per_led = ld.get("idle_ma_per_led", 1.0)
    if ld.get("order", "GRB") != "GRB":
        raise ValueError("board.json: only GRB LED order is supported")
    chain = _need(ld, "chain", "leds")
    if not isinstance(chain, list) or not chain:
        raise ValueError("board.json: leds.chain must be a non-empty list")
    n = len(chain)
    if n > 254:
        raise ValueError("board.json: at most 254 LEDs")
    b.nleds = n
    b.point_led = bytearray(b"\xff" * 25)
    b.bar_led = bytearray(b"\xff\xff")
    b.tray_led = bytearray(b"\xff\xff")
    b.turn_led = bytearray(b"\xff\xff")
    b.cube_owner_led = bytearray(b"\xff\xff")
    b.cube_value_led = bytearray(b"\xff" * 6)
    b.die_led = bytearray(b"\xff" * 14)
    pips = _need(desc, "dice_pips", "board")
    if not isinstance(pips, list) or len(pips) != 7:
        raise ValueError("board.json: dice_pips must list 7 pip names")
    b.dice_pips = tuple(pips)  # pip names; die_led[7 * d + j] is pip dice_pips[j]
    for i in range(n):
        e = chain[i]
        where = "leds.chain[%d]" % i
        kind = _need(e, "kind", where)
        idx = _need(e, "index", where)
        if kind not in _LED_KINDS:
            raise ValueError("board.json: " + where + " unknown kind %r" % (kind,))
        k = _LED_KINDS.index(kind)
        if k == LED_POINT:
            if not isinstance(idx, int) or not 1 <= idx <= 24:
                raise ValueError("board.json: " + where + " point index must be 1..24")
            table, j = b.point_led, idx
        elif k == LED_CUBE_VALUE:
            if idx not in CUBE_VALUES:
                raise ValueError("board.json: " + where + " cube value must be 2, 4, ..., 64")
            table, j = b.cube_value_led, CUBE_VALUES.index(idx)
        elif k == LED_DIE:
            if idx not in (0, 1):
                raise ValueError("board.json: " + where + " die index must be 0 or 1")
            pip = _int(e, "pip", where, 0, 6)
            table, j = b.die_led, 7 * idx + pip
        else:
            if idx not in (0, 1):
                raise ValueError("board.json: " + where + " " + kind + " index must be 0 or 1")
            table = (b.bar_led, b.tray_led, b.turn_led, b.cube_owner_led)[k - 1]
            j = idx
        if table[j] != NONE:
            raise ValueError("board.json: " + where + " duplicates LED %d" % table[j])
        table[j] = i
    for p in range(1, 25):
        if b.point_led[p] == NONE:
            raise ValueError("board.json: point %d has no LED" % p)
    for name, t in (
        ("turn", b.turn_led),
        ("die", b.die_led),
        ("cube_value", b.cube_value_led),
        ("cube_owner", b.cube_owner_led),
    ):
        for j in range(len(t)):
            if t[j] == NONE:
                raise ValueError("board.json: LED " + name + " %d missing" % j)


def _buttons(b, bl):
    if not isinstance(bl, list):
        raise ValueError("board.json: buttons must be a list")
    out = []
    seen = set()
    for i in range(len(bl)):
        e = bl[i]
        where = "buttons[%d]" % i
        name = _need(e, "name", where)
        role = _need(e, "role", where)
        if role not in ROLES:
            raise ValueError("board.json: " + where + ".role must be roll or cube")
        side = _int(e, "side", where, 0, 1)
        pin = _int(e, "pin", where, 0, 48)
        if (role, side) in seen:
            raise ValueError("board.json: two " + role + " buttons for side %d" % side)
        if pin in [x[3] for x in out]:
            raise ValueError("board.json: GPIO %d used by two buttons" % pin)
        seen.add((role, side))
        out.append((name, role, side, pin))
    for role in ROLES:
        for side in (0, 1):
            if (role, side) not in seen:
                raise ValueError("board.json: no " + role + " button for side %d" % side)
    b.buttons = tuple(out)


def parse(text):
    """board.json's parsed content from its text; bad JSON raises ``ValueError``."""
    try:
        desc = json.loads(text)
    except ValueError as e:
        raise ValueError("board.json: not valid JSON (%s)" % (e,)) from None
    return desc


def find():
    """Path of board.json: next to main.py on the device, ``hardware/`` in the repository."""
    import os

    cands = []
    for p in _CANDIDATES:
        cands.append(p)
    here = globals().get("__file__")
    if here:
        d = here.rsplit("/", 1)[0] if "/" in here else "."
        cands.append(d + "/../../hardware/board.json")
    for p in cands:
        try:
            os.stat(p)
            return p
        except OSError:
            pass
    raise ValueError("board.json not found (looked in: " + ", ".join(cands) + ")")


def read(path=None):
    """board.json's parsed content from ``path`` (default: ``find()``)."""
    if path is None:
        path = find()
    try:
        f = open(path)
    except OSError:
        raise ValueError("cannot read " + path) from None
    try:
        desc = json.load(f)  # streams: the text is never held whole (ESP32 heap)
    except ValueError as e:
        raise ValueError("board.json: not valid JSON (%s)" % (e,)) from None
    finally:
        f.close()
    return desc
