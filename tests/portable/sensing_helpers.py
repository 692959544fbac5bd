"""Helpers for the sensing/LED/hwdesc tests (portable: CPython and MicroPython)."""

from bg import hwdesc

_BOARD = []


def board():
    """The repository's board.json, loaded once per test module run."""
    if not _BOARD:
        _BOARD.append(hwdesc.load())
    return _BOARD[0]


def start_rows():
    """Per-row checker counts of the starting position (board numbering = side 0's):
    side 0: 24:2, 13:5, 8:3, 6:5; side 1 (its 24, 13, 8, 6 = board 1, 12, 17, 19)."""
    c = bytearray(28)
    for p, k in ((24, 2), (13, 5), (8, 3), (6, 5), (1, 2), (12, 5), (17, 3), (19, 5)):
        c[p - 1] = k
    return c


def feed(s, raw, n):
    """Feed ``raw`` ``n`` times; returns how many scans reported a change."""
    changes = 0
    for _ in range(n):
        if s.feed(raw):
            changes += 1
    return changes


class Lcg:
    """Deterministic pseudo-random numbers, identical on both interpreters."""

    def __init__(self, seed):
        self.x = seed & 0x7FFFFFFF

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


try:
    from unittest import SkipTest  # pytest treats it as a skip
except ImportError:

    class SkipTest(Exception):
        """Skips a test under MicroPython (the runner matches the class name)."""
