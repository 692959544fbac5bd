"""Packing half of ``GAME_PACKED`` (format: ``bg.record.packdec``, docs/journal.md): bit-packs one
finished game's records. Used by ``bg.journal.pack`` at game end and by the host benchmark.

Example::

    >>> p = Packer()
    >>> p.begin()
    >>> for kind, fields in record.Decoder(game_bytes, split_turns=False):
    ...     p.add(kind, fields)
    >>> payload = p.finish()                # the GAME_PACKED payload (bytes)
"""

from bg import record
from bg.record.packdec import (
    C_END,
    C_KIND,
    C_PLAY,
    C_RAW,
    C_SIDE,
    MAX_PACKED,
    PACK_VERSION,
    Track,
    fields_packable,
    width,
)


class Packer:
    """Bit-packs one game's records (``split_turns=False`` decoding) into a payload."""

    def __init__(self):
        self.buf = bytearray(MAX_PACKED)
        self.bit = 0
        self.t = Track()

    def begin(self):
        for i in range(MAX_PACKED):
            self.buf[i] = 0
        self.buf[0] = PACK_VERSION
        self.bit = 8
        self.t.reset()

    def put(self, v, nb):
        """Append the low ``nb`` bits of ``v``, MSB first (ValueError when full)."""
        p = self.bit
        if p + nb > 8 * MAX_PACKED:
            raise ValueError("game too long to pack")
        b = self.buf
        for k in range(nb - 1, -1, -1):
            if (v >> k) & 1:
                b[p >> 3] |= 0x80 >> (p & 7)
            p += 1
        self.bit = p

    def gamma(self, v):
        x = v + 1
        z = width(x + 1) - 1  # floor(log2(x))
        self.put(0, z)
        self.put(x, z + 1)

    def _play(self, s, d1, d2, steps):
        t = self.t
        if s != t.ns:
            self.put(C_SIDE, 6)
            t.ns = s
        n, idx = t.index_of(s, d1, d2, steps)
        if idx < 0:
            return False
        return n, idx

    def add(self, kind, f):
        """Pack one record (``TURN`` for a compact turn). ValueError: the game cannot be
        packed (then it stays raw)."""
        t = self.t
        if kind == record.TURN:
            if f[4]:
                raise ValueError("flagged compact turn")
            r = self._play(f[0], f[1], f[2], f[3])
            if not r:
                raise ValueError("turn is not a legal play")
            self.put((f[1] - 1) * 6 + f[2] - 1, 6)
            self.put(r[1], width(r[0]))
        elif kind == record.PLAY and not f[2] and t.dd1:
            r = self._play(f[0], t.dd1, t.dd2, f[1])
            if r:
                self.put(C_PLAY, 6)
                self.put(r[1], width(r[0]))
            else:
                self._raw(kind, f)
        elif kind < len(record.FORMATS) and fields_packable(kind):
            self.put(C_KIND + kind, 6)
            self._fields(kind, f)
        elif kind < len(record.FORMATS):
            self._raw(kind, f)
        else:
            raise ValueError("record kind %d cannot be packed" % kind)
        t.effect(kind, f)

    def _raw(self, kind, f):
        p = record._payload(kind, f)
        self.put(C_RAW, 6)
        self.put(kind, 5)
        self.put(len(p), 8)
        for b in p:
            self.put(b, 8)

    def _fields(self, kind, f):
        i = 0
        for ch in record.FORMATS[kind]:
            v = f[i]
            i += 1
            if ch == "s":
                self.put(v, 1)
            elif ch == "c":
                self.gamma(width(v))
            elif ch == "r":
                self.put(v, 2)
            elif ch == "d":
                self.put((v - 1) * 6 + f[i] - 1, 6)
                i += 1
            elif ch == "o":
                self.put(v, 2)
                d = f[i]
                i += 1
                for k in range(0, len(d), 2):
                    self.put((d[k] - 1) * 6 + d[k + 1] - 1, 6)
            else:
                self.gamma(v)

    def finish(self):
        """The payload (bytes) after ``END``."""
        self.put(C_END, 6)
        return bytes(self.buf[: (self.bit + 7) // 8])
