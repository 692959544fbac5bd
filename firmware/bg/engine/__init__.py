"""Legal plays: generation, recognition, hints, forced/no-play detection.

Positions are ``bytearray(52)`` (``bg.board``); a play is a flat tuple of steps
``(from1, to1, from2, to2, ...)`` in the mover's own numbering (25 = bar, 0 = off).

Everything works by make/unmake on one preallocated buffer, depth first:

* doubles: the steps of a play are generated in non-increasing order of their source point,
  which reaches every distinct play once per multiset of steps (moving the higher checker
  first never makes a lower step illegal);
* other rolls: the larger die first, then the smaller die first; in the second order a
  second step that was already legal at the start is skipped, because the first order
  reaches the same position.

The rules enforced (the common rules of the game): both dice when possible; with only one, the larger
if it can be played; doubles as many as possible; bar first; bearing off with all checkers
home, exact die or from the highest point with a larger die; a point with two or more
opposing checkers is closed (also as an intermediate landing of one checker).

Example::

    >>> from bg import board
    >>> from bg import engine as movegen
    >>> pos = board.start_position()
    >>> len(movegen.plays(pos, 0, 3, 1))
    16
    >>> movegen.recognize(pos, 0, 3, 1, movegen.plays(pos, 0, 3, 1)[0][1]) is not None
    True

The device-side functions (``recognize``, ``hints``, ``partial_ok``, ``forced``,
``no_play``, ``for_each_end``) allocate nothing per visited play; only their small results.
"""

# The layers bottom-up, each before the one built on it: a cold import then nests module bodies
# two deep instead of five. Every nested import holds a set of interpreter frames on the C
# stack (the ESP32's MicroPython task has 16 kB; docs/memory.md).
# isort: off
from bg.engine import _core  # noqa: F401 - imported for the order only
from bg.engine._visit import MoveGenVisit  # noqa: F401 - the device's generator

# isort: on


def __getattr__(name):
    """``MoveGen``, imported at its first use, or a submodule (PEP 562: called only for a name
    this module does not hold). The device's recogniser, the computer's chooser and the
    journal's packer visit plays with ``MoveGenVisit`` alone; the searches' two modules
    (``_search``, ``_hints``) keep 832 B of the board's heap, so they come only for the host's
    queries."""
    import sys

    if name == "MoveGen":
        import bg.engine._search  # noqa: F401 - the layers in order: two module bodies deep
        from bg.engine._hints import MoveGen

        return MoveGen
    # MicroPython's ``from bg.engine import pubeval`` asks here first, and imports a submodule
    # only when no attribute answers: a submodule not loaded yet is imported here
    if name not in ("_search", "_hints", "pubeval"):
        raise AttributeError(name)
    __import__("bg.engine." + name)
    return sys.modules["bg.engine." + name]


_GEN = None


def _gen():
    global _GEN
    if _GEN is None:
        from bg.engine import MoveGen  # (__getattr__: the searches come now)

        _GEN = MoveGen()
    return _GEN


def per_thread(make):
    """A getter of the one ``make()`` its caller's thread uses, for CPython. Generators and
    evaluators keep their work in preallocated buffers, so two calls at once on one instance
    corrupt each other. MicroPython runs the engine in one task and keeps one instance; a
    CPython host calls it from several threads at once (the simulator's status thread,
    concurrent demos, both players of a remote match).

        >>> gen = per_thread(MoveGen)
        >>> gen() is gen()
        True
    """
    import threading

    mine = threading.local()

    def get():
        try:
            return mine.one
        except AttributeError:
            mine.one = make()
            return mine.one

    return get


import sys  # noqa: E402 - only to tell the hosts apart, after the one instance it replaces

if sys.implementation.name != "micropython":
    from bg.engine._hints import MoveGen  # a host holds the whole generator at once

    _gen = per_thread(MoveGen)


def plays(pos, side, d1, d2):
    return _gen().plays(pos, side, d1, d2)


def for_each_end(pos, side, d1, d2, visit):
    return _gen().for_each_end(pos, side, d1, d2, visit)


def recognize(start, side, d1, d2, end):
    return _gen().recognize(start, side, d1, d2, end)


def hints(start, side, d1, d2, current, from_point):
    return _gen().hints(start, side, d1, d2, current, from_point)


def partial_ok(start, side, d1, d2, current):
    return _gen().partial_ok(start, side, d1, d2, current)


def no_play(pos, side, d1, d2):
    return _gen().no_play(pos, side, d1, d2)


def forced(pos, side, d1, d2):
    return _gen().forced(pos, side, d1, d2)


def is_legal(pos, side, d1, d2, steps):
    return _gen().is_legal(pos, side, d1, d2, steps)


def apply(pos, side, steps):
    return _gen().apply(pos, side, steps)


def max_steps(pos, side, d1, d2):
    return _gen().max_steps(pos, side, d1, d2)
