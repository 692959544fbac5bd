"""The roll animation on the board's two 7-pip LED dice: short, non-blocking, purely cosmetic.

The throw is already decided (and journaled) when the animation starts: the tumbling frames
come from a tiny local generator, never from the dice stream, and the animation always
settles on the real faces -- even when it is cancelled -- so what the players see last is
what was thrown.

It calls ``show(a, b, dim)`` for each frame; the board's is ``app.buttons.Presses``' frame,
which hands it to ``app.view.View.show_dice``: the pips themselves are ``bg.leds``'
(``DIE_FACES``, in the board's pip order), the one table of which LEDs a face lights.

Nothing of it stays between throws: ``app.buttons.Presses`` imports this module for a throw and
forgets it at once (its task holds what it needs until it settles; docs/memory.md).

Example::

    t = start(lambda a, b, dim: print(a, b, dim), 6, 3)   # returns at once; the task runs ~0.5 s
    t = start(show, 2, 1, t)                              # a new throw replaces it
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


async def roll_animation(show, d1, d2, frames=_FRAMES, frame_ms=_FRAME_MS):
    """Tumble for ``frames`` dim frames, then show ``d1``-``d2`` (``show(a, b, dim)``).

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
            show(a, b, True)
            await _sleep_ms(frame_ms + i * _SLOWDOWN_MS)
    finally:
        show(d1, d2, False)


def start(show, d1, d2, last=None, frames=_FRAMES, frame_ms=_FRAME_MS):
    """The animation as an asyncio task, returned at once (the board keeps handling buttons
    and sensors meanwhile). ``last``: the previous throw's task, cancelled first (it settles
    on its own throw at once; this one's frames follow)."""
    if last is not None:
        last.cancel()  # (a finished task ignores it)
    return asyncio.create_task(roll_animation(show, d1, d2, frames, frame_ms))
