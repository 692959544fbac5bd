"""The roll animation on the board's two 7-pip LED dice: short, non-blocking, purely cosmetic.

The throw is already decided (and journaled) when the animation starts: the tumbling frames
come from a tiny local generator, never from the dice stream, and the animation always
settles on the real faces -- even when it is cancelled -- so what the players see last is
what was thrown.

It drives any *display* with this tiny interface (the hardware engineer's ``bg.leds`` or the
simulator plugs in through one of the adapters below):

- ``show_dice(a, b, dim)`` -- a plain callable (:class:`FuncDisplay`), or
- an object with ``set_die(i, face, colour)`` and ``show()`` (:class:`DieDisplay`), or
- a GRB frame buffer with the 7 LED indices of each die (:class:`FrameDice`).

Example::

    anim = DiceAnimator(FuncDisplay(lambda a, b, dim: print(a, b, dim)))
    anim.start(6, 3, (255, 160, 0))          # returns at once; the task runs ~0.4 s
"""

import asyncio

from micropython import const

# Pips inside one die in reading order:   0 TL  1 TR
#                                         2 ML  3 C  4 MR
#                                         5 BL  6 BR
# PIPS[face] has bit i set when pip i is lit. A face's pips are point-symmetric
# (pip i and pip 6 - i together), as on a real die. The board wires its pips in the order
# of hardware/board.json ``dice_pips`` (``bg.hwdesc.Board.dice_pips``); ``faces_for`` maps
# these masks onto that order, and ``FrameDice.for_board`` uses it.
PIP_NAMES = ("top_left", "top_right", "mid_left", "centre", "mid_right", "bottom_left", "bottom_right")
PIPS = (0, 0b0001000, 0b1000001, 0b1001001, 0b1100011, 0b1101011, 0b1110111)
_LEDS_PER_DIE = const(7)

_FRAMES = const(7)  # tumbling frames before the result
_FRAME_MS = const(40)  # first frame; each later one a little slower (a die losing speed)
_SLOWDOWN_MS = const(12)
_DIM_SHIFT = const(2)  # dim = a quarter of the colour


def pips(face):
    """The 7-bit LED mask of ``face`` (0 = all off)."""
    if not 0 <= face <= 6:
        raise ValueError("die face must be 0..6")
    return PIPS[face]


def faces_for(pip_names):
    """The 7 face masks (faces 0..6) in a board's pip order: bit ``j`` is the pip named
    ``pip_names[j]`` (board.json ``dice_pips``, e.g. top_left, mid_left, bottom_left, centre,
    top_right, mid_right, bottom_right).

    >>> faces_for(PIP_NAMES) == PIPS
    True
    """
    if len(pip_names) != _LEDS_PER_DIE:
        raise ValueError("a die has 7 pips, got %d names" % len(pip_names))
    where = []
    for n in PIP_NAMES:
        if n not in pip_names:
            raise ValueError("pip %s missing from the board's dice_pips" % n)
        where.append(pip_names.index(n))
    out = []
    for m in PIPS:
        b = 0
        for i in range(_LEDS_PER_DIE):
            if m >> i & 1:
                b |= 1 << where[i]
        out.append(b)
    return tuple(out)


async def _sleep_ms(ms):
    sleep_ms = getattr(asyncio, "sleep_ms", None)  # MicroPython
    if sleep_ms is not None:
        await sleep_ms(ms)
    else:
        await asyncio.sleep(ms / 1000)


class FuncDisplay:
    """Adapter for a callable ``show_dice(a, b, dim)``."""

    def __init__(self, show_dice):
        self._show = show_dice

    def dice(self, a, b, colour, dim):
        self._show(a, b, dim)


class DieDisplay:
    """Adapter for an object with ``set_die(i, face, colour)`` and ``show()``; ``dim`` is
    applied to the colour here."""

    def __init__(self, target):
        self._t = target

    def dice(self, a, b, colour, dim):
        c = dimmed(colour) if dim else colour
        self._t.set_die(0, a, c)
        self._t.set_die(1, b, c)
        self._t.show()


class FrameDice:
    """Adapter writing straight into a GRB frame buffer (the HAL ``Leds.buf``): ``die_leds``
    is two sequences of 7 LED indices, pip ``j`` of each named ``pip_names[j]`` (default
    ``PIP_NAMES``; a board: :meth:`for_board`); ``show`` is called after each frame (e.g.
    ``leds.show``). Allocates nothing per frame."""

    @classmethod
    def for_board(cls, buf, board, show=None):
        """Wired as ``board`` (``bg.hwdesc.Board``) says: its ``die_led`` table, in the pip
        order of board.json's ``dice_pips``."""
        dl = board.die_led
        return cls(buf, (tuple(dl[0:7]), tuple(dl[7:14])), show, board.dice_pips)

    def __init__(self, buf, die_leds, show=None, pip_names=None):
        if len(die_leds) != 2 or len(die_leds[0]) != _LEDS_PER_DIE or len(die_leds[1]) != _LEDS_PER_DIE:
            raise ValueError("two dice of 7 LED indices each")
        for leds in die_leds:
            for i in leds:
                if not 0 <= 3 * i + 2 < len(buf):
                    raise ValueError("die LED index %d outside the frame buffer" % i)
        self.buf = buf
        self.die_leds = die_leds
        self._show = show
        self.faces = PIPS if pip_names is None else faces_for(pip_names)

    def dice(self, a, b, colour, dim):
        r, g, bl = colour
        if dim:
            r >>= _DIM_SHIFT
            g >>= _DIM_SHIFT
            bl >>= _DIM_SHIFT
        buf = self.buf
        for die in (0, 1):
            mask = self.faces[a if die == 0 else b]
            leds = self.die_leds[die]
            for j in range(_LEDS_PER_DIE):
                o = 3 * leds[j]
                if mask & (1 << j):
                    buf[o] = g
                    buf[o + 1] = r
                    buf[o + 2] = bl
                else:
                    buf[o] = buf[o + 1] = buf[o + 2] = 0
        if self._show is not None:
            self._show()


def dimmed(colour):
    return (colour[0] >> _DIM_SHIFT, colour[1] >> _DIM_SHIFT, colour[2] >> _DIM_SHIFT)


async def roll_animation(display, d1, d2, colour=(255, 255, 255), frames=_FRAMES, frame_ms=_FRAME_MS):
    """Tumble for ``frames`` dim frames, then show ``d1``-``d2`` at full colour.

    Cosmetic only: the tumbling faces come from a local LCG seeded by the result (never
    the dice stream), each frame differs from the previous one so the dice visibly move,
    and the final frame is the real throw even if the task is cancelled mid-way.
    """
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError("die faces are 1..6")
    x = (d1 * 7 + d2 * 13) | 1
    a, b = d1, d2
    try:
        for i in range(frames):
            # ZX81 LCG: stays a small int (no heap on a 32-bit port), good enough to look random
            x = (x * 75 + 74) % 65537
            a = (a + x % 5) % 6 + 1  # +1..+5: never the same face twice in a row
            b = (b + (x >> 8) % 5) % 6 + 1
            display.dice(a, b, colour, True)
            await _sleep_ms(frame_ms + i * _SLOWDOWN_MS)
    finally:
        display.dice(d1, d2, colour, False)


class DiceAnimator:
    """Runs at most one roll animation at a time as an asyncio task; ``start()`` returns
    at once (the controller keeps handling buttons and sensors meanwhile)."""

    def __init__(self, display, frames=_FRAMES, frame_ms=_FRAME_MS):
        self.display = display
        self.frames = frames
        self.frame_ms = frame_ms
        self.task = None

    def start(self, d1, d2, colour=(255, 255, 255)):
        self.cancel()
        self.task = asyncio.create_task(
            roll_animation(self.display, d1, d2, colour, self.frames, self.frame_ms)
        )
        return self.task

    def cancel(self):
        t = self.task
        self.task = None
        if t is not None and not t.done():
            t.cancel()

    def show(self, d1, d2, colour=(255, 255, 255)):
        """Show faces at once, no animation (after a power cut, when resuming a turn)."""
        self.cancel()
        self.display.dice(d1, d2, colour, False)

    def clear(self):
        self.cancel()
        self.display.dice(0, 0, (0, 0, 0), False)
