"""Packed finished games (``record.GAME_PACKED``): the bit-level format, shared state tracking
and the expander that turns one packed record back into the exact records it replaced.

Loaded by ``bg.record.decode`` only when a ``GAME_PACKED`` record is met (this module needs the rules
engine); the packing half is ``bg.journal.pack``. Format tables: docs/journal.md, "Packed games".

A packed game is ``PACK_VERSION`` (one byte) then a bit stream (MSB first) of items, each
starting with a 6-bit code::

    0..35   TURN by the side to move: dice36 = (d1-1)*6 + (d2-1), then the play as its index
            among the visits of ``MoveGen.for_each_end`` in ceil(log2(visits)) bits (0 bits
            when there are 0 or 1 visits)
    36      END (the rest of the last byte is zero)
    37      SIDE: the side to move is the other one
    38      PLAY without a roll (after an opening): index among the visits with the last dice
    39      RAW: kind (5 bits), payload length (8 bits), the general payload bytes
    40+k    general kind k, fields bit-packed by ``record.FORMATS`` (s 1 bit, B/H/I/c Elias
            gamma, r 2 bits, d 6 bits, o 2 + 6 bits per pair)

The side to move and the "last dice" follow from the items themselves (``Track``), so the
packer and the expander agree without storing them. The play index depends on the engine's
visit order: ``PACK_VERSION`` changes whenever it does (tests/portable/test_record_pack.py
freezes it).

Example::

    >>> from bg.record.decode import fields_of
    >>> x = Expander(fields_of)
    >>> x.start(payload)                 # payload of a GAME_PACKED record
    >>> x.next(True)                     # (GAME_START, (1, 0, 0, 0)); ... None at the end
"""

from micropython import const

from bg import board
from bg.engine._visit import MoveGenVisit
from bg.record import (
    FORMATS,
    GAME_PACKED,
    GAME_START,
    OPEN_HOUSE,
    OPENING,
    PLAY,
    ROLL,
    TURN,
    _payload,
)

PACK_VERSION = const(1)  # bump when the engine's visit order or this format changes
MAX_PACKED = const(255)  # payload bytes (version byte included): one general record
C_END = const(36)
C_SIDE = const(37)
C_PLAY = const(38)
C_RAW = const(39)
C_KIND = const(40)  # 40 + kind: a general record with bit-packed fields


def width(n):
    """Bits for an index below ``n`` (0 when n <= 1): ``width(19) == 5``."""
    b = 0
    while (1 << b) < n:
        b += 1
    return b


def fields_packable(kind):
    """True when the kind's fields can be bit-packed (code ``40 + kind``)."""
    f = FORMATS[kind]
    for c in f:
        if c not in "sBHIcrdo":
            return False
    return True


class Track:
    """The state both halves derive from the items: position, side to move, last dice."""

    def __init__(self):
        self.pos = board.new_position()
        self.ns = 0
        self.dd1 = 0  # last dice (0 = none yet)
        self.dd2 = 0
        # MoveGen's own for_each_end (bg.engine.MoveGen subclasses MoveGenVisit and does not
        # override it): only the visit half of the engine is loaded, with its own buffers.
        self.gen = MoveGenVisit()
        self.want = -1
        self.k = 0
        self.target = ()
        self.first = bytearray(8)
        self.nfirst = 0
        self.found = None
        self._cb_find = self._find_cb
        self._cb_count = self._count_cb

    def reset(self):
        board.set_start(self.pos)
        self.ns = 0
        self.dd1 = self.dd2 = 0

    def effect(self, kind, f):
        """Fold one record's action into the state (raises ValueError for a play that
        cannot be made on the board, e.g. a bad casual play)."""
        if kind == GAME_START:
            self.reset()
        elif kind == OPENING:
            d = f[1]
            self.dd1 = d[-2]
            self.dd2 = d[-1]
            self.ns = 0 if d[-2] > d[-1] else 1
        elif kind == ROLL:
            self.ns = f[0]
            self.dd1 = f[1]
            self.dd2 = f[2]
        elif kind == TURN:
            self.dd1 = f[1]
            self.dd2 = f[2]
            self._apply(f[0], f[3])
        elif kind == PLAY:
            self._apply(f[0], f[1])

    def _apply(self, side, steps):
        for i in range(0, len(steps), 2):
            board.apply_step(self.pos, side, steps[i], steps[i + 1])
        self.ns = 1 - side

    # -- visits (no allocation per visit) ----------------------------------------------
    def _find_cb(self, w, st, n):
        t = self.target
        if self.want < 0 and len(t) == 2 * n:
            for i in range(2 * n):
                if st[i] != t[i]:
                    break
            else:
                self.want = self.k
        self.k += 1

    def _count_cb(self, w, st, n):
        if self.k == 0:
            self.nfirst = 2 * n
            for i in range(2 * n):
                self.first[i] = st[i]
        elif self.k == self.want:
            self.found = tuple(st[: 2 * n])
            self.gen.stop = True
        self.k += 1

    def index_of(self, side, d1, d2, steps):
        """``(visits, index)`` of ``steps`` among the visits; index -1 if not one of them."""
        self.target = steps
        self.want = -1
        self.k = 0
        n = self.gen.for_each_end(self.pos, side, d1, d2, self._cb_find)
        self.target = ()
        if n == 0:
            return 0, (0 if len(steps) == 0 else -1)
        return n, self.want

    def count(self, side, d1, d2):
        """Number of visits (keeps the first visit's steps)."""
        self.want = -1
        self.k = 0
        return self.gen.for_each_end(self.pos, side, d1, d2, self._cb_count)

    def steps_at(self, side, d1, d2, idx):
        """Steps of visit ``idx`` (after ``count`` for the same turn)."""
        if idx == 0:
            return tuple(self.first[: self.nfirst])
        self.want = idx
        self.k = 0
        self.found = None
        self.gen.for_each_end(self.pos, side, d1, d2, self._cb_count)
        f = self.found
        self.found = None
        if f is None:
            raise ValueError("packed play index beyond the visits")
        return f


class Expander:
    """Turns the payload of one ``GAME_PACKED`` record back into its records, one per
    ``next()`` (fixed memory: one payload copy and the engine's own buffers)."""

    def __init__(self, fields_of):
        # ``fields_of(kind, payload, i, n)`` parses a general record's payload: it is
        # ``bg.record.decode.fields_of``, passed in so this module never imports its caller
        self._raw_fields = fields_of
        self.buf = bytearray(MAX_PACKED)
        self.n = 0
        self.bit = 0
        self.t = Track()
        self.pending = None

    def start(self, data, i=0, n=None):
        """Begin expanding the payload ``data[i:i+n]`` (copied)."""
        if n is None:
            n = len(data) - i
        if n < 2 or n > MAX_PACKED or data[i] != PACK_VERSION:
            raise ValueError("packed game: unknown format version or bad length")
        self.buf[0:n] = data[i : i + n]
        self.n = n
        self.bit = 8
        self.pending = None
        self.t.reset()

    def read(self, nb):
        """The next ``nb`` bits as an integer (ValueError past the end)."""
        if self.bit + nb > 8 * self.n:
            raise ValueError("packed game ends inside an item")
        v = 0
        b = self.buf
        p = self.bit
        for _ in range(nb):
            v = (v << 1) | ((b[p >> 3] >> (7 - (p & 7))) & 1)
            p += 1
        self.bit = p
        return v

    def gamma(self):
        z = 0
        while self.read(1) == 0:
            z += 1
            if z > 32:
                raise ValueError("packed game: bad number")
        return ((1 << z) | self.read(z)) - 1

    def next(self, split=True):
        """The next record as ``(kind, fields)`` (a turn as ROLL then PLAY when ``split``,
        else one TURN), or None after the last one. ValueError when the bytes are bad."""
        if self.pending is not None:
            a = self.pending
            self.pending = None
            return a
        t = self.t
        while True:
            c = self.read(6)
            if c == C_SIDE:
                t.ns ^= 1
                continue
            break
        if c < 36:
            s = t.ns
            d1 = c // 6 + 1
            d2 = c % 6 + 1
            steps = self._play(s, d1, d2)
            t.effect(TURN, (s, d1, d2, steps))
            if split:
                self.pending = (PLAY, (s, steps, 0))
                return ROLL, (s, d1, d2)
            return TURN, (s, d1, d2, steps, 0)
        if c == C_END:
            rest = 8 * self.n - self.bit
            if rest >= 8 or (rest and self.read(rest)):
                raise ValueError("packed game: data after its end")
            return None
        if c == C_PLAY:
            if not t.dd1:
                raise ValueError("packed game: a play without dice")
            s = t.ns
            a = (PLAY, (s, self._play(s, t.dd1, t.dd2), 0))
        elif c == C_RAW:
            kind = self.read(5)
            if kind < 1 or kind >= GAME_PACKED:  # a game holds no GAME_PACKED/SEED_PART
                raise ValueError("packed game: bad kind")
            ln = self.read(8)
            raw = bytearray(ln)
            for i in range(ln):
                raw[i] = self.read(8)
            a = (kind, self._raw_fields(kind, raw, 0, ln))
        else:
            kind = c - C_KIND
            if kind < 1 or kind >= GAME_PACKED or not fields_packable(kind):
                raise ValueError("packed game: bad item code %d" % c)
            a = (kind, self._fields(kind))
            _payload(kind, a[1])  # the same validation as a general record's fields
        t.effect(a[0], a[1])
        return a

    def _play(self, s, d1, d2):
        t = self.t
        n = t.count(s, d1, d2)
        idx = self.read(width(n))
        if n == 0:
            return ()
        if idx >= n:
            raise ValueError("packed play index beyond the visits")
        return t.steps_at(s, d1, d2, idx)

    def _fields(self, kind):
        out = []
        for ch in FORMATS[kind]:
            if ch == "s":
                out.append(self.read(1))
            elif ch == "c":
                out.append(1 << self.gamma())
            elif ch == "r":
                out.append(self.read(2))
            elif ch == "d":
                v = self.read(6)
                if v >= 36:
                    raise ValueError("packed game: bad dice")
                out.append(v // 6 + 1)
                out.append(v % 6 + 1)
            elif ch == "o":
                flags = self.read(2)
                dice = []
                for _ in range(2 if flags & OPEN_HOUSE else 1):
                    v = self.read(6)
                    if v >= 36:
                        raise ValueError("packed game: bad dice")
                    dice.append(v // 6 + 1)
                    dice.append(v % 6 + 1)
                out.append(flags)
                out.append(tuple(dice))
            else:  # B H I
                out.append(self.gamma())
        return tuple(out)
