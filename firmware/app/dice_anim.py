"""The roll animation on the board's two 7-pip LED dice: short, non-blocking, purely cosmetic.

The throw is already decided (and journaled) when the animation starts: the tumbling frames
come from a tiny local generator, never from the dice stream, and the animation always
settles on the real faces -- even when it is cancelled -- so what the players see last is
what was thrown.

It drives any *display* with a ``dice(a, b, colour, dim)`` method; :class:`FuncDisplay` makes
one of a plain callable ``show_dice(a, b, dim)``. The board's is ``app.view.View.show_dice``:
the pips themselves are ``bg.leds``' (``DIE_FACES``, in the board's pip order), the one table
of which LEDs a face lights.

Example::

    anim = DiceAnimator(FuncDisplay(lambda a, b, dim: print(a, b, dim)))
    anim.start(6, 3, (255, 160, 0))          # returns at once; the task runs ~0.4 s
"""

import asyncio

from micropython import const

_FRAMES = const(7)  # tumbling frames before the result
_FRAME_MS = const(40)  # first frame; each later one a little slower (a die losing speed)
_SLOWDOWN_MS = const(12)


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
