"""The battery's charge: millivolts to a percentage and the warning levels, with hysteresis.

The HAL reads the cell's voltage (``hal.Battery.read_mv``: an averaged ADC reading through the
divider of ``hardware/board.json``); ``Gauge.update(mv)`` turns each reading into

- ``pct`` -- 0..100 from the cell's discharge curve (``battery.curve`` of board.json, loaded by
  ``bg.hwdesc`` into ``battery_mv`` / ``battery_pct``; linear between its points). It falls
  freely but rises only by ``_RISE_PCT`` or more at once: a cell recovering after an LED burst
  does not make the number flicker up and down, a charger does lift it;
- ``level`` -- ``OK``, ``LOW`` (below ``low_mv``: the LEDs warn) or ``CRITICAL`` (below
  ``critical_mv`` for ``CONFIRM`` readings in a row: the app closes the journal before the
  brown-out). ``LOW`` and ``CRITICAL`` are left only at ``low_mv + hysteresis_mv`` or above
  (a charged cell, not a reading that bounced back when the load dropped).

``NO_BATTERY`` (255) is the percentage reported by a board without the battery option.
Nothing here allocates per reading.

Example::

    >>> from bg import battery, hwdesc
    >>> g = battery.Gauge(hwdesc.load())
    >>> g.update(3800), g.pct, g.level == battery.OK
    (False, 50, True)
"""

from micropython import const

OK = const(0)
LOW = const(1)
CRITICAL = const(2)
_LEVEL_NAMES = const(("ok", "low", "critical"))  # OK, LOW, CRITICAL
NO_BATTERY = const(255)  # ``pct`` of a board without a battery (and before the first reading)
# the battery's state flags as the link reports them (INFO, ``bg.link.info``; ``app.power``)
F_BATTERY = const(1)  # a battery is fitted and has been read
F_LOW = const(2)  # level LOW: the LEDs warn
F_CRITICAL = const(4)  # level CRITICAL: the journal is closed, input is not taken
F_IDLE = const(8)  # the board is in idle mode
F_CHARGING = const(16)  # the charger charges the cell (its CHG low; hal Battery.charger)
F_USB = const(32)  # USB power is present (the charger's PGOOD low)
_RISE_PCT = const(3)  # the shown percentage rises only by this much or more at once
CONFIRM = const(2)  # consecutive readings under critical_mv that make the level CRITICAL
MAX_MV = const(6000)  # a reading above this is a broken divider or ADC, never a cell


def percent(mv, curve_mv, curve_pct):
    """Charge in percent (int 0..100) of a cell at ``mv`` millivolts on the curve
    ``curve_mv`` (rising) / ``curve_pct``; clamped at both ends."""
    n = len(curve_mv)
    if mv <= curve_mv[0]:
        return curve_pct[0]
    if mv >= curve_mv[n - 1]:
        return curve_pct[n - 1]
    i = 1
    while curve_mv[i] < mv:
        i += 1
    m0 = curve_mv[i - 1]
    p0 = curve_pct[i - 1]
    return p0 + (curve_pct[i] - p0) * (mv - m0) // (curve_mv[i] - m0)


class Gauge:
    """The level of one cell. ``board`` is a ``bg.hwdesc.Board`` with a battery section."""

    def __init__(self, board):
        d = board.battery
        if d is None:
            raise ValueError("board.json has no battery")
        self.curve_mv = board.battery_mv
        self.curve_pct = board.battery_pct
        self.low_mv = d["low_mv"]
        self.critical_mv = d["critical_mv"]
        self.hysteresis_mv = d["hysteresis_mv"]
        self.mv = 0
        self.pct = NO_BATTERY
        self.level = OK
        self._under = 0  # readings in a row under critical_mv

    def update(self, mv):
        """Take one reading (millivolts at the cell); True when ``level`` changed. A reading
        outside 0..``MAX_MV`` raises ``ValueError`` and changes nothing."""
        if not 0 <= mv <= MAX_MV:
            raise ValueError("battery reading out of range")
        self.mv = mv
        p = percent(mv, self.curve_mv, self.curve_pct)
        if self.pct == NO_BATTERY or p < self.pct or p >= self.pct + _RISE_PCT:
            self.pct = p
        was = self.level
        if mv < self.critical_mv:
            self._under += 1
        else:
            self._under = 0
        if self._under >= CONFIRM:
            lvl = CRITICAL
        elif mv >= self.low_mv + self.hysteresis_mv:
            lvl = OK
        elif mv < self.low_mv and was == OK:
            lvl = LOW
        else:
            lvl = was  # inside the hysteresis band (or one reading under critical): no change
        self.level = lvl
        return lvl != was
