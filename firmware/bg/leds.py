"""The LED language: what the board tells the players with its WS2812B chain.

``Painter`` owns (or is given) the frame buffer: 3 bytes per LED in wire order (G, R, B), the
buffer the HAL's ``Leds.show()`` sends. Every paint call scales colours by the board's
``brightness_cap`` as it writes; ``finish()`` then scales the whole frame down if it would draw
more than ``budget_ma`` (so the board stays within a USB port's 500 mA whatever is shown).
Nothing allocates per frame.

Colours are the Okabe-Ito palette (distinguishable with every common colour-vision
deficiency) and no meaning relies on colour alone: errors also differ by animation (a fast
blink for "take away", a slow pulse for "put here"). The full table is ``docs/leds.md``.

Animations are small state objects (``Anim``: the painter's ``fast`` blink, ``slow`` pulse
and ``chase``) stepped by ``Painter.tick(t_ms)`` from the LED task; nothing sleeps here.

Masks: point masks have bit ``p - 1`` for board point ``p`` (board numbering = side 0's);
row masks (errors, setup, faults) use ``bg.sensing`` rows: bits 0..23 points, 24/25 the bars
of side 0/1, 26/27 the trays. Destination masks use bit 24 for "bear off".

Example::

    >>> from bg import hwdesc, leds
    >>> b = hwdesc.load()
    >>> p = leds.Painter(b)
    >>> p.clear(); p.tick(0)
    >>> p.destinations((1 << 4) | (1 << 7), side=0)    # points 5 and 8 are legal
    >>> p.turn(0); p.dice(3, 5, side=0)
    >>> ma = p.finish()                                 # estimated LED current, capped
"""

from micropython import const

# Okabe-Ito palette, (R, G, B) at full scale
BLACK = (0, 0, 0)
ORANGE = (230, 159, 0)
SKY_BLUE = (86, 180, 233)
BLUISH_GREEN = (0, 158, 115)
YELLOW = (240, 228, 66)
BLUE = (0, 114, 178)
VERMILLION = (213, 94, 0)
REDDISH_PURPLE = (204, 121, 167)
WHITE = (255, 255, 255)

SIDE_COLOURS = (SKY_BLUE, ORANGE)  # side 0 ("white" checkers), side 1 ("black")
DEST = BLUISH_GREEN
MISSING = YELLOW
EXTRA = VERMILLION
FAULT = REDDISH_PURPLE
OK = BLUISH_GREEN

DIM = const(64)  # level of secondary marks (origin of a move, ok points)
OFF_BIT = const(24)  # destination mask bit meaning "bear off"

# 7-pip die: pips 0..6 = top-left, mid-left, bottom-left, centre, top-right, mid-right,
# bottom-right (board.json dice_pips); bit k = pip k.
DIE_FACES = (0b0000000, 0b0001000, 0b1000001, 0b1001001, 0b1010101, 0b1011101, 0b1110111)


_BLINK = const(0)
_PULSE = const(1)
_CHASE = const(2)


class Anim:
    """One animation's state, stepped by ``Painter.tick``: a blink (``level`` 255 for the
    first ``arg``/256 of each ``period`` ms, else 0), a pulse (``level`` a triangle between
    ``arg`` and 255 over ``period``: a breathing light) or a chase (``pos`` 0..``arg`` - 1,
    one step every ``period`` ms). One class for the three: a class keeps ~150 B of the
    board's heap (its type object, its dict, its functions)."""

    def __init__(self, kind, period, arg):
        self.kind = kind
        self.period = period
        self.arg = arg
        self.level = 255
        self.pos = 0

    def step(self, t_ms):
        p = self.period
        if self.kind == _BLINK:
            self.level = 255 if (t_ms % p) * 256 < self.arg * p else 0
        elif self.kind == _PULSE:
            half = p >> 1
            x = t_ms % p
            if x >= half:
                x = p - x
            self.level = self.arg + (255 - self.arg) * x // half
        else:
            self.pos = (t_ms // p) % self.arg


# rows on the board rim in circular order, for the chase
_RIM = (13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)


class Painter:
    """Composes LED frames. ``buf`` defaults to a new ``bytearray(3 * nleds)``; pass the HAL's
    ``leds.buf`` to paint straight into what ``show()`` sends."""

    def __init__(self, board, buf=None):
        self.board = board
        n = board.nleds
        if buf is None:
            buf = bytearray(3 * n)
        if len(buf) != 3 * n:
            raise ValueError("LED buffer must be %d bytes (3 per LED), got %d" % (3 * n, len(buf)))
        self.buf = buf
        self.n = n
        self.cap = board.brightness_cap
        # channel units (0..255 summed over the frame) the budget allows
        self.limit = int(board.budget_ma * 255 / board.ma_per_channel)
        self._ua = int(board.ma_per_channel * 1000)  # uA per channel at 255 (int: no floats per frame)
        self.fast = Anim(_BLINK, 300, 128)  # "take away": a blink
        self.slow = Anim(_PULSE, 1400, 48)  # "put here": a slow pulse
        self.chase = Anim(_CHASE, 70, 24)  # round the rim's 24 points (a result)
        self.scaled = False

    def tick(self, t_ms):
        """Step every animation to time ``t_ms`` (call once per frame, before painting)."""
        self.fast.step(t_ms)
        self.slow.step(t_ms)
        self.chase.step(t_ms)

    # -- primitives ----------------------------------------------------------------------
    def clear(self):
        b = self.buf
        for i in range(len(b)):
            b[i] = 0

    def set(self, i, c, level=255):
        """LED ``i`` to colour ``c`` (R, G, B) at ``level``/255, brightness cap applied."""
        if i >= self.n:
            return  # NONE (255) or out of range: this board has no such LED
        k = level * self.cap
        j = 3 * i
        b = self.buf
        b[j] = c[1] * k // 65025
        b[j + 1] = c[0] * k // 65025
        b[j + 2] = c[2] * k // 65025

    def get(self, i):
        """(R, G, B) as sent (after the cap); allocates, for tests and tools."""
        j = 3 * i
        b = self.buf
        return (b[j + 1], b[j], b[j + 2])

    def point(self, p, c, level=255):
        self.set(self.board.point_led[p], c, level)

    def points(self, mask, c, level=255):
        pl = self.board.point_led
        for p in range(1, 25):
            if mask >> (p - 1) & 1:
                self.set(pl[p], c, level)

    def row_led(self, row):
        """LED index of a sensing row (point, bar or tray)."""
        b = self.board
        if row < 24:
            return b.point_led[row + 1]
        if row < 26:
            return b.bar_led[row - 24]
        return b.tray_led[row - 26]

    def rows(self, mask, c, level=255):
        for row in range(28):
            if mask >> row & 1:
                self.set(self.row_led(row), c, level)

    def _step_led(self, side, q):
        """LED of a position in ``side``'s own numbering (25 = bar, 0 = off)."""
        b = self.board
        if q == 25:
            return b.bar_led[side]
        if q == 0:
            return b.tray_led[side]
        return b.point_led[q if side == 0 else 25 - q]

    # -- the language ------------------------------------------------------------------
    def destinations(self, mask, side, origin=0):
        """A lifted checker's legal destinations (board point mask; bit 24 = bear off),
        pulsing green; ``origin`` (board point, 0 = none, 25 = bar) dim in the mover's colour."""
        lvl = self.slow.level
        self.points(mask, DEST, lvl)
        if mask >> OFF_BIT & 1:
            self.set(self.board.tray_led[side], DEST, lvl)
        if origin == 25:
            self.set(self.board.bar_led[side], SIDE_COLOURS[side], DIM)
        elif origin:
            self.point(origin, SIDE_COLOURS[side], DIM)

    def last_move(self, play, side):
        """The opponent's last play (flat steps ``(f1, t1, f2, t2, ...)`` in ``side``'s own
        numbering, 25 = bar, 0 = off): origins dim, destinations full, in ``side``'s colour."""
        c = SIDE_COLOURS[side]
        for k in range(0, len(play) - 1, 2):
            self.set(self._step_led(side, play[k]), c, DIM)
        for k in range(0, len(play) - 1, 2):
            self.set(self._step_led(side, play[k + 1]), c, 255)

    def plan(self, play, side, done, c):
        """A play to make (flat steps in ``side``'s own numbering), step by step: step
        ``done`` (the next one) has its from-point blinking fast and its to-point steady in
        ``c``; the steps after it are dim (the whole play stays visible)."""
        n = len(play) // 2
        for k in range(done + 1, n):
            self.set(self._step_led(side, play[2 * k]), c, DIM)
            self.set(self._step_led(side, play[2 * k + 1]), c, DIM)
        if done < n:
            self.set(self._step_led(side, play[2 * done + 1]), c, 255)
            self.set(self._step_led(side, play[2 * done]), c, self.fast.level)

    def errors(self, missing, extra):
        """Wrong rows (row masks): ``missing`` = put a checker here (yellow, slow pulse),
        ``extra`` = take a checker away (vermillion, fast blink)."""
        self.rows(missing, MISSING, self.slow.level)
        self.rows(extra, EXTRA, self.fast.level)

    def setup(self, missing, extra, ok):
        """Setup guidance: rows already right dim green, wrong ones as in ``errors``."""
        self.rows(ok, OK, DIM)
        self.errors(missing, extra)

    def faults(self, rows):
        """Rows with a faulty sensor (self-test): reddish purple, fast blink."""
        self.rows(rows, FAULT, self.fast.level)

    def turn(self, side):
        """Whose turn: that side's turn LED in its colour, the other off (``side`` None: both off)."""
        b = self.board
        for s in (0, 1):
            self.set(b.turn_led[s], SIDE_COLOURS[s], 255 if side == s else 0)

    def cube(self, value, owner, offered=False, by=None):
        """Cube: centred (``owner`` None) lights the 64 LED dim white (the physical cube's
        convention for value 1); owned lights the value LED and the owner LED in the owner's
        colour. ``offered``: the value LED blinks (a double waits for an answer), in the
        offerer's colour when ``by`` (the offering side) is given."""
        b = self.board
        for k in range(6):
            self.set(b.cube_value_led[k], BLACK)
        for s in (0, 1):
            self.set(b.cube_owner_led[s], BLACK)
        if owner is None:
            if value <= 1:
                self.set(b.cube_value_led[5], WHITE, DIM)
                return
            c = WHITE
        else:
            c = SIDE_COLOURS[owner]
            self.set(b.cube_owner_led[owner], c)
        if by is not None:
            c = SIDE_COLOURS[by]
        k = 0
        v = 2
        while v < value and k < 5:
            v <<= 1
            k += 1
        self.set(b.cube_value_led[k], c, self.fast.level if offered else 255)

    def dice(self, d1, d2, side, level=255, lit=3):
        """Two 7-pip dice (0 = blank) in the roller's colour; a die whose bit (1: die 0,
        2: die 1) is clear in ``lit`` is played and shows its face at an eighth of
        ``level``."""
        b = self.board
        c = SIDE_COLOURS[side]
        for d in (0, 1):
            face = DIE_FACES[d1 if d == 0 else d2]
            lv = level if lit >> d & 1 else level >> 3
            for pip in range(7):
                self.set(b.die_led[7 * d + pip], c, lv if face >> pip & 1 else 0)

    def result(self, winner, kind, match_over=False):
        """Game/match result: a light runs round the rim in the winner's colour; die 0 shows
        the kind (1 single, 2 gammon, 3 backgammon); at match end every point pulses too."""
        c = SIDE_COLOURS[winner]
        if match_over:
            self.points(0xFFFFFF, c, self.slow.level >> 2)
        pos = self.chase.pos
        for k in range(3):
            self.point(_RIM[(pos + 24 - k) % 24], c, 255 >> k)
        self.dice(kind, 0, winner)
        self.turn(winner)

    # -- output ---------------------------------------------------------------------------
    def current_ma(self):
        """Estimated LED current of the frame in whole mA (channel currents only)."""
        b = self.buf
        t = 0
        for i in range(len(b)):
            t += b[i]
        return t * self._ua // 255000

    def finish(self):
        """Scale the frame into the current budget; returns the estimated current (whole mA)."""
        b = self.buf
        t = 0
        for i in range(len(b)):
            t += b[i]
        lim = self.limit
        self.scaled = t > lim
        if self.scaled:
            for i in range(len(b)):
                b[i] = b[i] * lim // t
            t = 0
            for i in range(len(b)):
                t += b[i]
        return t * self._ua // 255000


# -- match clock (docs/leds.md "Match clock") ------------------------------------------------
# Module-level functions (additions to the language; ``Painter`` itself is unchanged).
_CLOCK_WARN_MS = const(60000)
_CLOCK_SEGMENTS = const(6)  # one LED per home-board point


def clock_segments(left_ms, total_ms):
    """How many of the six home-board LEDs the reserve ``left_ms`` of ``total_ms`` lights:
    ``ceil(6 * left / total)``, so any time left shows at least one LED and a full reserve
    all six; 0 once it is spent (or without a clock, ``total_ms`` 0).

    >>> clock_segments(60000, 60000), clock_segments(59999, 60000), clock_segments(1, 60000)
    (6, 6, 1)
    """
    if total_ms <= 0 or left_ms <= 0:
        return 0
    if left_ms >= total_ms:
        return _CLOCK_SEGMENTS
    # ints only: 6 * 65535 s in ms stays a small int on a 32-bit port (< 2**30)
    return (left_ms * _CLOCK_SEGMENTS + total_ms - 1) // total_ms


def clock_bar(painter, side, left_ms, total_ms):
    """The reserve of ``side`` as a bar on its home board (its own points 1..6): n =
    ``clock_segments`` LEDs lit from its ace point up, the n-th (the segment being spent)
    ticking with the reserve's own seconds (full for half a second, dim the other half, so
    the count stays readable at any instant). The mover's colour; yellow under a
    minute. The other home-board LEDs of ``side`` are set dark. Returns n.

    Example (side 0 with 25 s of a 60 s reserve left: points 1..3 lit, point 3 ticking)::

        >>> n = leds.clock_bar(p, 0, 25000, 60000)
    """
    n = clock_segments(left_ms, total_ms)
    c = YELLOW if left_ms < _CLOCK_WARN_MS else SIDE_COLOURS[side]
    tick = 255 if left_ms % 1000 >= 500 else DIM
    for q in range(1, _CLOCK_SEGMENTS + 1):
        led = painter._step_led(side, q)
        if q < n:
            painter.set(led, c, 255)
        elif q == n:
            painter.set(led, c, tick)
        else:
            painter.set(led, BLACK, 0)
    return n


def flag_fall(painter, side):
    """``side``'s time ran out: its six home-board LEDs and its turn LED blink vermillion
    (the fast blink), over whatever the result shows there."""
    lvl = painter.fast.level
    for q in range(1, _CLOCK_SEGMENTS + 1):
        painter.set(painter._step_led(side, q), VERMILLION, lvl)  # flag fall
    painter.set(painter.board.turn_led[side], VERMILLION, lvl)


# -- battery (docs/leds.md "Battery") --------------------------------------------------------
_BATTERY_SEGMENTS = const(10)  # one LED per 10 %, on each player's own points 1..10


def battery_segments(pct):
    """How many of the ten LEDs the charge ``pct`` lights: ``ceil(pct / 10)`` (any charge
    above 0 % lights one, 91..100 % all ten); 255 (no battery: the board runs on USB) is full.

    >>> battery_segments(0), battery_segments(1), battery_segments(50), battery_segments(91)
    (0, 1, 5, 10)
    """
    if pct >= 100:
        return _BATTERY_SEGMENTS
    return (pct * _BATTERY_SEGMENTS + 99) // 100


def battery_bar(painter, pct, c, level=255):
    """The charge as a bar from each player's ace point (its own points 1..10), so both read
    it from their side: ``battery_segments(pct)`` LEDs in ``c`` at ``level``, the rest of the
    ten dark. Returns the number lit."""
    n = battery_segments(pct)
    for side in (0, 1):
        for q in range(1, _BATTERY_SEGMENTS + 1):
            painter.set(painter._step_led(side, q), c, level if q <= n else 0)
    return n


def scale(painter, level):
    """Scale the whole frame by ``level`` / 255 (idle mode's dimming; 0 = dark)."""
    b = painter.buf
    for i in range(len(b)):
        b[i] = b[i] * level // 255
