"""Update mode on the LEDs: what a player sees while the board takes a firmware instead of
playing (docs/update.md "On the LEDs", the table of docs/leds.md).

Portable. Only the 24 point LEDs speak; every other LED is dark. Each player reads a bar from
its own ace point, over its own twelve points (board points 1..12 for side 0, 24..13 for
side 1), so both read it from their side of the board:

- ``WAIT`` (update mode, no byte of a bundle yet): the 24 points dim blue, steady;
- ``RECEIVE``: ``segments(got, size)`` of each player's twelve points blue, the rest dim blue;
  the last lit one (the part arriving) pulses slowly;
- ``DONE`` (stored and checked: the board restarts into the new version): the 24 points
  bluish green, steady;
- ``REFUSED`` (a bad signature, an older release, a damaged file, a flash error, update mode
  failing): the two players' halves blink vermillion in turn, at the fast blink's pace (all 24
  blinking together is the game's "hosts revoked").

Blue is in no other message of the LED language, and the shape (every point and nothing else)
in none of the game's: a board in update mode is never taken for one that is off or playing.

``Sign.frame`` paints through ``bg.leds.Painter`` (the brightness cap and the current budget,
one copy of each rule) into the HAL's ``Leds.buf`` and calls its ``show()`` only when the frame
changed. Small ints only: a frame allocates nothing.
"""

from micropython import const

from bg import leds

WAIT = const(0)
RECEIVE = const(1)
DONE = const(2)
REFUSED = const(3)

REFUSED_MS = const(3000)  # how long a refusal blinks before the bar shows again
_SEGMENTS = const(12)  # one per point of a player's half


def segments(got, size):
    """How many of each player's twelve points ``got`` of ``size`` bytes light:
    ``ceil(12 * got / size)``: any byte lights one, the last twelfth all twelve.

    >>> segments(0, 1000), segments(1, 1000), segments(500, 1000), segments(1000, 1000)
    (0, 1, 6, 12)
    """
    if size <= 0 or got <= 0:
        return 0
    if got >= size:
        return _SEGMENTS
    while size >= 0x4000000:  # 12 * size stays a small int (2^30 on a 32-bit board)
        size >>= 4
        got >>= 4
    n = (got * _SEGMENTS + size - 1) // size
    return n if n > 0 else 1


class Sign:
    """Update mode's LEDs. ``board`` is the ``bg.hwdesc.Board``, ``out`` the HAL's ``Leds``
    (``buf`` painted into, ``show()`` sends it)."""

    def __init__(self, board, out):
        self.painter = leds.Painter(board, out.buf)
        self.out = out
        self.key = -1  # the frame last sent (state, lit points, level), as one small int
        pl = board.point_led
        # the LEDs of side 0's points 1..12, then side 1's (its 1..12: board points 24..13)
        self.bar = bytes([pl[q] for q in range(1, 13)] + [pl[25 - q] for q in range(1, 13)])
        out.buf[:] = bytes(len(out.buf))  # what the HAL's driver held before: dark

    def frame(self, t_ms, state, got=0, size=0):
        """Paint ``state`` (``WAIT``, ``RECEIVE``: ``got`` of ``size`` bytes, ``DONE``,
        ``REFUSED``) at ``t_ms``; True when a new frame was shown."""
        p = self.painter
        p.tick(t_ms)
        n = 0
        lvl = 255
        if state == RECEIVE:
            n = segments(got, size)
            lvl = p.slow.level
            if lvl < 2 * leds.DIM:  # the pulse stays brighter than the points still to come
                lvl = 2 * leds.DIM
        elif state == REFUSED:
            lvl = p.fast.level
        key = (state << 16) | (n << 8) | lvl
        if key == self.key:
            return False
        self.key = key
        p.clear()
        bar = self.bar
        for k in range(2 * _SEGMENTS):
            if state == DONE:
                p.set(bar[k], leds.OK)
            elif state == REFUSED:
                p.set(bar[k], leds.EXTRA, 255 if (lvl != 0) != (k >= _SEGMENTS) else 0)
            else:
                q = k - _SEGMENTS + 1 if k >= _SEGMENTS else k + 1  # the player's own point
                p.set(bar[k], leds.BLUE, 255 if q < n else lvl if q == n else leds.DIM)
        p.finish()
        self.out.show()
        return True
