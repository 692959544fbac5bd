"""The board description (``hardware/board.json``) as compact lookup tables.

``board.json`` is the single source of truth for the sensor chain, the LED chain, pins and
buttons (semantics: ``hardware/README.md``). This module loads it with ``json`` once, checks
it, and turns it into small bytearray/array tables that the hot paths (``bg.sensing``,
``bg.leds``) index without allocating.

Rows: every sensed row of slots gets a row number::

    0..23   board points 1..24 (board numbering = side 0's point numbers)
    24, 25  bar of side 0, bar of side 1
    26, 27  bear-off tray of side 0, tray of side 1

Example::

    >>> from bg import hwdesc
    >>> b = hwdesc.load()                  # finds hardware/board.json
    >>> b.nbytes, b.slots_per_point
    (30, 6)
    >>> chain = b.idle_chain()             # what an empty board reads
    >>> b.set_slot(chain, hwdesc.ROW_POINT0, 0, True)   # a checker on point 1
    >>> b.bit_row[b.slot_bit(hwdesc.ROW_POINT0, 0)]
    0
"""

import json

from micropython import const

try:
    from array import array
except ImportError:  # pragma: no cover - every port we use has array
    array = None

ROW_POINT0 = const(0)  # row of board point p is p - 1
ROW_BAR0 = const(24)  # row of side s's bar is 24 + s
ROW_TRAY0 = const(26)  # row of side s's tray is 26 + s
NROWS = const(28)

# bit_kind codes: what one chain bit is wired to
BIT_NONE = const(0)  # input not fitted, tied to the inactive level (reads open)
BIT_SLOT = const(1)  # a reed switch of a row (bit_row / bit_slot say which)
BIT_TIED_OPEN = const(2)  # canary wired to the inactive level
BIT_TIED_CLOSED = const(3)  # canary wired to the active level

NONE = const(255)  # "no LED / no row" in the byte tables

# LED kinds (led_kind table)
LED_POINT = const(0)
LED_BAR = const(1)
LED_TRAY = const(2)
LED_TURN = const(3)
LED_CUBE_OWNER = const(4)
LED_CUBE_VALUE = const(5)
LED_DIE = const(6)

_LED_KINDS = ("point", "bar", "tray", "turn", "cube_owner", "cube_value", "die")
CUBE_VALUES = (2, 4, 8, 16, 32, 64)
ROLES = ("roll", "cube")

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


def row_of(kind, index):
    """Row number of a sensed row: ``row_of("point", 5) == 4``, ``row_of("bar", 1) == 25``."""
    if kind == "point":
        if not 1 <= index <= 24:
            raise ValueError("board.json: point index must be 1..24, got %r" % (index,))
        return index - 1
    if kind in ("bar", "tray"):
        if index not in (0, 1):
            raise ValueError("board.json: " + kind + " index must be 0 or 1, got %r" % (index,))
        return (ROW_BAR0 if kind == "bar" else ROW_TRAY0) + index
    raise ValueError("board.json: unknown sensor kind %r" % (kind,))


def point_row(p):
    """Row of board point ``p`` (1..24)."""
    return p - 1


def _uarray(n, fill):
    if array is not None:
        return array("H", [fill] * n)
    return [fill] * n


class Board:
    """The loaded board description. Attributes (all read-only after construction):

    - ``nbytes``: chain length in bytes (= number of 74HC165s); ``nbits = 8 * nbytes``.
    - ``active_low``: a closed reed reads 0 on the wire.
    - ``slots_per_point``, ``bar_slots``, ``tray_slots``.
    - ``row_slots[row]``: fitted slots of a row; ``row_start[row]`` offset into ``row_bits``;
      ``row_bits[row_start[row] + s]``: chain bit index of slot ``s`` of the row.
    - ``bit_kind[bit]`` (``BIT_*``), ``bit_row[bit]``, ``bit_slot[bit]`` (``NONE`` if no slot).
    - ``fixed_mask[r]`` / ``fixed_value[r]``: bits of register ``r`` with a known level and the
      raw (wire-level) value they must read; every well-formed frame satisfies
      ``chain[r] & fixed_mask[r] == fixed_value[r]``.
    - ``nleds``; ``led_kind[i]``, ``led_index[i]``; ``point_led[p]`` (p = 1..24, index 0 unused),
      ``bar_led[s]``, ``tray_led[s]``, ``turn_led[s]``, ``cube_owner_led[s]``,
      ``cube_value_led[k]`` (k = 0..5 for 2..64), ``die_led[7 * d + pip]``; ``dice_pips``:
      the 7 pip names in that ``pip`` order (board.json).
    - ``buttons``: tuple of ``(name, role, side, pin)``; ``button_index(role, side)``.
    - ``pins``, ``spi`` (dicts), ``brightness_cap``, ``budget_ma``, ``ma_per_channel``,
      ``scan_hz``, ``debounce_scans``, ``button_debounce_ms``, ``checkers_per_side``.
    """

    def __init__(self, desc):
        if not isinstance(desc, dict):
            raise ValueError("board.json: top level must be an object")
        if desc.get("format") != "smartgammon-board-v1":
            raise ValueError(
                "board.json: unknown format %r (want smartgammon-board-v1)" % (desc.get("format"),)
            )
        self._load_sensors(_need(desc, "sensors", "board"))
        self._load_leds(_need(desc, "leds", "board"), desc)
        self._load_buttons(_need(desc, "buttons", "board"))
        self.buttons_active_low = bool(desc.get("buttons_active_low", True))
        pins = _need(desc, "pins", "board")
        for k in ("spi_id", "sck", "miso", "pl", "ce", "led_data"):
            _int(pins, k, "pins", 0, 48)
        self.pins = pins
        spi = _need(desc, "spi", "board")
        _int(spi, "baudrate", "spi", 1000, 40000000)
        _int(spi, "polarity", "spi", 0, 1)
        _int(spi, "phase", "spi", 0, 1)
        self.spi = spi
        fw = _need(desc, "firmware", "board")
        self.scan_hz = _int(fw, "scan_hz", "firmware", 10, 2000)
        self.debounce_scans = _int(fw, "debounce_scans", "firmware", 1, 50)
        self.button_debounce_ms = _int(fw, "button_debounce_ms", "firmware", 0, 500)
        power = _need(desc, "power", "board")
        self.checkers_per_side = _int(power, "checkers_per_side", "power", 1, 15)
        self.power = power
        self.name = desc.get("name", "")
        used = set()
        for _n, _r, _s, pin in self.buttons:
            used.add(pin)
        for k in ("sck", "miso", "pl", "ce", "led_data"):
            if pins[k] in used:
                raise ValueError("board.json: GPIO %d used twice (pins.%s and a button)" % (pins[k], k))
            used.add(pins[k])

    # -- sensors ---------------------------------------------------------------------
    def _load_sensors(self, s):
        self.slots_per_point = _int(s, "slots_per_point", "sensors", 1, 16)
        self.bar_slots = _int(s, "bar_slots", "sensors", 0, 15)
        self.tray_slots = _int(s, "tray_slots", "sensors", 0, 15)
        self.active_low = bool(_need(s, "active_low", "sensors"))
        regs = _need(s, "registers", "sensors")
        if not isinstance(regs, list) or not regs:
            raise ValueError("board.json: sensors.registers must be a non-empty list")
        n = len(regs)
        self.nbytes = n
        self.nbits = nbits = 8 * n
        self.bit_kind = bytearray(nbits)
        self.bit_row = bytearray(b"\xff" * nbits)
        self.bit_slot = bytearray(b"\xff" * nbits)
        self.fixed_mask = bytearray(n)
        self.fixed_value = bytearray(n)
        self.reg_row = bytearray(n)
        self.reg_base = bytearray(n)
        rs = bytearray(NROWS)
        for row in range(NROWS):
            rs[row] = (
                self.slots_per_point
                if row < ROW_BAR0
                else (self.bar_slots if row < ROW_TRAY0 else self.tray_slots)
            )
        self.row_slots = rs
        start = _uarray(NROWS + 1, 0)
        total = 0
        for row in range(NROWS):
            start[row] = total
            total += rs[row]
        start[NROWS] = total
        self.row_start = start
        self.row_bits = _uarray(total, 0xFFFF)
        inactive = 1 if self.active_low else 0
        for r in range(n):
            where = "sensors.registers[%d]" % r
            reg = regs[r]
            row = row_of(_need(reg, "kind", where), _need(reg, "index", where))
            base = _int(reg, "slot_base", where, 0, 248)
            self.reg_row[r] = row
            self.reg_base[r] = base
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
                    self.bit_kind[bit] = BIT_TIED_CLOSED if closed else BIT_TIED_OPEN
                    self.fixed_mask[r] |= 1 << s
                    if (1 - inactive) if closed else inactive:  # wire level of the tied input
                        self.fixed_value[r] |= 1 << s
                elif slot < rs[row]:
                    k = start[row] + slot
                    if self.row_bits[k] != 0xFFFF:
                        raise ValueError(
                            "board.json: %s slot %d wired twice (%s)" % (row_name(row), slot, where)
                        )
                    self.row_bits[k] = bit
                    self.bit_kind[bit] = BIT_SLOT
                    self.bit_row[bit] = row
                    self.bit_slot[bit] = slot
                else:
                    self.fixed_mask[r] |= 1 << s
                    if inactive:
                        self.fixed_value[r] |= 1 << s
        for row in range(NROWS):
            for slot in range(rs[row]):
                if self.row_bits[start[row] + slot] == 0xFFFF:
                    raise ValueError(
                        "board.json: %s slot %d is not wired to any register" % (row_name(row), slot)
                    )

    def slot_bit(self, row, slot):
        """Chain bit index of ``slot`` of ``row``."""
        if not 0 <= slot < self.row_slots[row]:
            raise ValueError("%s has no slot %d" % (row_name(row), slot))
        return self.row_bits[self.row_start[row] + slot]

    def idle_chain(self, buf=None):
        """The raw chain bytes of an empty board (all open, canaries at their levels)."""
        if buf is None:
            buf = bytearray(self.nbytes)
        idle = 0xFF if self.active_low else 0
        for r in range(self.nbytes):
            m = self.fixed_mask[r]
            buf[r] = (idle & ~m & 0xFF) | self.fixed_value[r]
        return buf

    def set_slot(self, chain, row, slot, closed):
        """Set one slot's raw level in ``chain`` (for simulators and tests)."""
        bit = self.slot_bit(row, slot)
        r = bit >> 3
        m = 1 << (bit & 7)
        if bool(closed) != bool(self.active_low):
            chain[r] |= m
        else:
            chain[r] &= ~m & 0xFF

    def fill_chain(self, counts, buf=None):
        """Raw chain bytes for per-row checker counts (``counts[row]``; stacks beyond the row's
        slots close all of them): what a board holding those checkers reads."""
        buf = self.idle_chain(buf)
        for row in range(NROWS):
            k = counts[row]
            n = self.row_slots[row]
            for slot in range(k if k < n else n):
                self.set_slot(buf, row, slot, True)
        return buf

    # -- LEDs --------------------------------------------------------------------------
    def _load_leds(self, ld, desc):
        self.brightness_cap = _int(ld, "brightness_cap", "leds", 1, 255)
        self.budget_ma = _int(ld, "budget_ma", "leds", 1, 10000)
        mpc = _need(ld, "ma_per_channel", "leds")
        if not isinstance(mpc, (int, float)) or mpc <= 0:
            raise ValueError("board.json: leds.ma_per_channel must be a positive number")
        self.ma_per_channel = mpc
        self.idle_ma_per_led = ld.get("idle_ma_per_led", 1.0)
        if ld.get("order", "GRB") != "GRB":
            raise ValueError("board.json: only GRB LED order is supported")
        chain = _need(ld, "chain", "leds")
        if not isinstance(chain, list) or not chain:
            raise ValueError("board.json: leds.chain must be a non-empty list")
        n = len(chain)
        if n > 254:
            raise ValueError("board.json: at most 254 LEDs")
        self.nleds = n
        self.led_kind = bytearray(n)
        self.led_index = bytearray(n)
        self.point_led = bytearray(b"\xff" * 25)
        self.bar_led = bytearray(b"\xff\xff")
        self.tray_led = bytearray(b"\xff\xff")
        self.turn_led = bytearray(b"\xff\xff")
        self.cube_owner_led = bytearray(b"\xff\xff")
        self.cube_value_led = bytearray(b"\xff" * 6)
        self.die_led = bytearray(b"\xff" * 14)
        pips = _need(desc, "dice_pips", "board")
        if not isinstance(pips, list) or len(pips) != 7:
            raise ValueError("board.json: dice_pips must list 7 pip names")
        self.dice_pips = tuple(pips)  # pip names; die_led[7 * d + j] is pip dice_pips[j]
        for i in range(n):
            e = chain[i]
            where = "leds.chain[%d]" % i
            kind = _need(e, "kind", where)
            idx = _need(e, "index", where)
            if kind not in _LED_KINDS:
                raise ValueError("board.json: " + where + " unknown kind %r" % (kind,))
            k = _LED_KINDS.index(kind)
            self.led_kind[i] = k
            if k == LED_POINT:
                if not isinstance(idx, int) or not 1 <= idx <= 24:
                    raise ValueError("board.json: " + where + " point index must be 1..24")
                table, j = self.point_led, idx
            elif k == LED_CUBE_VALUE:
                if idx not in CUBE_VALUES:
                    raise ValueError("board.json: " + where + " cube value must be 2, 4, ..., 64")
                table, j = self.cube_value_led, CUBE_VALUES.index(idx)
            elif k == LED_DIE:
                if idx not in (0, 1):
                    raise ValueError("board.json: " + where + " die index must be 0 or 1")
                pip = _int(e, "pip", where, 0, 6)
                table, j = self.die_led, 7 * idx + pip
            else:
                if idx not in (0, 1):
                    raise ValueError("board.json: " + where + " " + kind + " index must be 0 or 1")
                table = (self.bar_led, self.tray_led, self.turn_led, self.cube_owner_led)[k - 1]
                j = idx
            if table[j] != NONE:
                raise ValueError("board.json: " + where + " duplicates LED %d" % table[j])
            table[j] = i
            self.led_index[i] = j if k != LED_CUBE_VALUE else idx
        for p in range(1, 25):
            if self.point_led[p] == NONE:
                raise ValueError("board.json: point %d has no LED" % p)
        for name, t in (
            ("turn", self.turn_led),
            ("die", self.die_led),
            ("cube_value", self.cube_value_led),
            ("cube_owner", self.cube_owner_led),
        ):
            for j in range(len(t)):
                if t[j] == NONE:
                    raise ValueError("board.json: LED " + name + " %d missing" % j)

    # -- buttons -----------------------------------------------------------------------
    def _load_buttons(self, bl):
        if not isinstance(bl, list):
            raise ValueError("board.json: buttons must be a list")
        out = []
        seen = set()
        for i in range(len(bl)):
            b = bl[i]
            where = "buttons[%d]" % i
            name = _need(b, "name", where)
            role = _need(b, "role", where)
            if role not in ROLES:
                raise ValueError("board.json: " + where + ".role must be roll or cube")
            side = _int(b, "side", where, 0, 1)
            pin = _int(b, "pin", where, 0, 48)
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
        self.buttons = tuple(out)

    def button_index(self, role, side):
        """Index into ``buttons`` (and the HAL's button numbering) of ``role`` for ``side``."""
        for i in range(len(self.buttons)):
            b = self.buttons[i]
            if b[1] == role and b[2] == side:
                return i
        raise ValueError("no " + role + " button for side %d" % side)


def row_name(row):
    """Human name of a row: ``point 7``, ``bar 0``, ``tray 1``."""
    if row < ROW_BAR0:
        return "point %d" % (row + 1)
    if row < ROW_TRAY0:
        return "bar %d" % (row - ROW_BAR0)
    return "tray %d" % (row - ROW_TRAY0)


def parse(text):
    """A ``Board`` from JSON text; bad JSON or bad content raise ``ValueError``."""
    try:
        desc = json.loads(text)
    except ValueError as e:
        raise ValueError("board.json: not valid JSON (%s)" % (e,)) from None
    return Board(desc)


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


def load(path=None):
    """Load and check the board description (default: ``find()``)."""
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
    return Board(desc)
