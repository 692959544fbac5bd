"""The board description (``hardware/board.json``) as compact lookup tables.

``board.json`` is the single source of truth for the sensor chain, the LED chain, pins and
buttons (semantics: ``hardware/README.md``). It is loaded with ``json`` once, at boot, checked
and turned into small bytearray/array tables that the hot paths (``bg.sensing``, ``bg.leds``)
index without allocating. The loading and checking live in ``bg.hwdesc._load``, which ``Board()``
imports for the one call and drops again (boot-time code should not stay in the heap).

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

from micropython import const

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

# LED kinds: board.json's leds.chain[i].kind, in _LED_KINDS order (bg.hwdesc._load)
LED_POINT = const(0)
_LED_BAR = const(1)
_LED_TRAY = const(2)
_LED_TURN = const(3)
_LED_CUBE_OWNER = const(4)
LED_CUBE_VALUE = const(5)
LED_DIE = const(6)

CUBE_VALUES = (2, 4, 8, 16, 32, 64)
ROLES = ("roll", "cube")


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


class Board:
    """The loaded board description. Attributes (all read-only after construction):

    - ``nbytes``: chain length in bytes (= number of 74HC165s); ``nbits = 8 * nbytes``.
    - ``active_low``: a closed reed reads 0 on the wire.
    - ``slots_per_point``, ``bar_slots``, ``tray_slots``.
    - ``row_slots[row]``: fitted slots of a row; ``row_start[row]`` offset into ``row_bits``;
      ``row_bits[row_start[row] + s]``: chain bit index of slot ``s`` of the row (both
      bytearrays when every value fits a byte, array("H") otherwise).
    - ``bit_row[bit]`` (``NONE`` if the bit is no slot's); ``tied[r]``: the inputs of register
      ``r`` tied to a level (canaries; their level is in ``fixed_value``). ``bit_kind``
      (``BIT_*`` of each bit) and ``bit_slot`` (the slot of each bit, ``NONE`` if none) are built
      from these when read: only tools and tests ask for them.
    - ``fixed_mask[r]`` / ``fixed_value[r]``: bits of register ``r`` with a known level and the
      raw (wire-level) value they must read; every well-formed frame satisfies
      ``chain[r] & fixed_mask[r] == fixed_value[r]``.
    - ``nleds``; ``point_led[p]`` (p = 1..24, index 0 unused),
      ``bar_led[s]``, ``tray_led[s]``, ``turn_led[s]``, ``cube_owner_led[s]``,
      ``cube_value_led[k]`` (k = 0..5 for 2..64), ``die_led[7 * d + pip]``; ``dice_pips``:
      the 7 pip names in that ``pip`` order (board.json).
    - ``buttons``: tuple of ``(name, role, side, pin)``; ``button_index(role, side)`` (both
      until ``release_wiring()``).
    - ``pins``, ``spi``, ``idle``, ``battery`` (dicts, until ``release_wiring()``),
      ``brightness_cap``, ``budget_ma``, ``ma_per_channel``, ``scan_hz``, ``debounce_scans``,
      ``button_debounce_ms``, ``checkers_per_side``.
    """

    # Declared for readers and the type checker; ``bg.hwdesc._load.fill`` sets them (annotations
    # without a value compile to nothing under MicroPython).
    nbytes: int
    nbits: int
    active_low: bool
    slots_per_point: int
    bar_slots: int
    tray_slots: int
    row_slots: bytearray
    row_start: "list[int]"  # bytearray or array("H")
    row_bits: "list[int]"  # bytearray or array("H")
    bit_row: bytearray
    fixed_mask: bytearray
    fixed_value: bytearray
    tied: bytearray
    nleds: int
    point_led: bytearray
    bar_led: bytearray
    tray_led: bytearray
    turn_led: bytearray
    cube_owner_led: bytearray
    cube_value_led: bytearray
    die_led: bytearray
    dice_pips: tuple
    buttons: tuple
    buttons_active_low: bool
    pins: dict
    spi: dict
    idle: dict
    battery: "dict | None"
    battery_mv: "list[int] | None"  # array("H"), rising
    battery_pct: "bytearray | None"
    brightness_cap: int
    budget_ma: int
    ma_per_channel: float
    idle_ma_per_led: float
    scan_hz: int
    debounce_scans: int
    button_debounce_ms: int
    checkers_per_side: int
    name: str

    def __init__(self, desc):
        """Check ``desc`` (board.json, parsed) and build the tables; ``ValueError`` names the
        first problem. The checks live in ``bg.hwdesc._load``, imported for this call only."""
        from bg import forget
        from bg.hwdesc import _load as _hwload

        try:
            _hwload.fill(self, desc)
        finally:
            forget("bg.hwdesc._load")  # boot-time code: its objects return to the heap

    @property
    def bit_kind(self):
        """What each chain bit is wired to (``BIT_*``), from ``bit_row``, ``tied`` and the tied
        levels: a table the firmware does not keep (``bg.sensing`` asks ``bit_row`` and
        ``fixed_value``; 240 bytes on the board)."""
        t = bytearray(self.nbits)
        for bit in range(self.nbits):
            r = bit >> 3
            m = 1 << (bit & 7)
            if self.bit_row[bit] != NONE:
                t[bit] = BIT_SLOT
            elif self.tied[r] & m:
                closed = bool(self.fixed_value[r] & m) != bool(self.active_low)  # the active level
                t[bit] = BIT_TIED_CLOSED if closed else BIT_TIED_OPEN
        return t

    @property
    def bit_slot(self):
        """The slot of each chain bit (``NONE``: no slot), from ``row_bits``: a table the
        firmware never reads, so the board does not keep one (240 bytes on the board)."""
        t = bytearray(b"\xff" * self.nbits)
        for row in range(NROWS):
            k = self.row_start[row]
            for s in range(self.row_slots[row]):
                t[self.row_bits[k + s]] = s
        return t

    def release_wiring(self):
        """Drop ``pins``, ``spi``, ``idle``, ``battery`` and ``buttons``: read only while the HAL
        and the app (``app.power``, the buttons' roles) are built (``app.main.run`` calls this
        once they are), so the board's heap does not keep them for good (560 bytes on the
        board). Reading one afterwards raises ``AttributeError``."""
        for k in ("pins", "spi", "idle", "battery", "buttons"):
            if hasattr(self, k):
                # None first: MicroPython's map keeps a deleted entry's value in its slot, where
                # the collector still finds it
                setattr(self, k, None)
                delattr(self, k)

    # -- run time --------------------------------------------------------------------
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


def _loader():
    from bg.hwdesc import _load as _hwload

    return _hwload


def parse(text):
    """A ``Board`` from JSON text; bad JSON or bad content raise ``ValueError``."""
    return Board(_loader().parse(text))


def find():
    """Path of board.json: next to main.py on the device, ``hardware/`` in the repository."""
    return _loader().find()


def load(path=None):
    """Load and check the board description (default: ``find()``)."""
    return Board(_loader().read(path))
