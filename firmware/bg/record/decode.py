"""Decoding half of ``bg.record`` (use it through ``bg.record``): record bytes back to
``(kind, fields)``, every field validated, so hostile bytes only end a Decoder cleanly."""

from bg.record import (
    _SHAPE_LEN,
    _SHAPE_MAX,
    CORRUPT,
    FORMATS,
    GAME_PACKED,
    JOINT_SHARE,
    MATCH_START,
    MAX_NAME,
    MAX_PLAYER_SEED,
    MAX_PROOF,
    MAX_RECORD,
    OK,
    OPEN_HOUSE,
    PLAY,
    ROLL,
    SEED_PART,
    TORN,
    TURN,
    _check_steps,
    _die,
    _reg,
    _side,
    check_seed_part,
    crc8,
    crc16,
)


def _be(data, i, n):
    v = 0
    for k in range(n):
        v = (v << 8) | data[i + k]
    return v


def _decode_compact(b0, data, i, n):
    side = (b0 >> 6) & 1
    shape = (b0 >> 3) & 7
    v = _be(data, i, n)
    if v >= _SHAPE_MAX[shape]:
        raise ValueError("compact turn value out of range")
    if shape >= 3:
        d = v % 6 + 1
        v //= 6
        steps = []
        for _ in range(shape - 2):
            f = v % 25 + 1
            v //= 25
            steps.append(f)
            steps.append(_reg(f, d))
        return side, d, d, tuple(steps)
    d1 = v % 36 // 6 + 1
    d2 = v % 6 + 1
    v //= 36
    if shape == 0:
        return side, d1, d2, ()
    if d1 == d2:
        raise ValueError("compact non-double shape with a double")
    if shape == 1:
        f = v // 2 + 1
        return side, d1, d2, (f, _reg(f, d2 if v & 1 else d1))
    a, b = (d2, d1) if v & 1 else (d1, d2)
    v >>= 1
    f1 = v % 25 + 1
    f2 = v // 25 + 1
    return side, d1, d2, (f1, _reg(f1, a), f2, _reg(f2, b))


def _unplay(p, i, n):
    h = p[i]
    k = h >> 4
    if n != 1 + (k * 10 + 7) // 8:
        raise ValueError("PLAY length does not match its step count")
    steps = []
    acc = nb = 0
    j = i + 1
    for _ in range(2 * k):
        if nb < 5:
            acc = (acc << 8 | p[j]) & 0xFFFF
            j += 1
            nb += 8
        nb -= 5
        steps.append((acc >> nb) & 31)
    steps = tuple(steps)
    _check_steps(steps)
    return (h & 1, steps, (h >> 1) & 7)


def fields_of(kind, p, i, n):
    """The field tuple of a general record whose payload is ``p[i:i+n]``."""
    fmt = FORMATS[kind]
    e = i + n
    if fmt == "P":
        if n < 1:
            raise ValueError("PLAY too short")
        return _unplay(p, i, n)
    if fmt == "o":
        if n < 2:
            raise ValueError("OPENING too short")
        flags = p[i]
        if flags > 3 or flags == 2 or n != (3 if flags & OPEN_HOUSE else 2):
            raise ValueError("bad OPENING")
        dice = []
        for j in range(i + 1, e):
            dice.append(_die(p[j] >> 4))
            dice.append(_die(p[j] & 15))
        return (flags, tuple(dice))
    out = []
    j = i
    for c in fmt:
        if j >= e:
            if c == "q":
                break  # the optional last field is absent (a record written before it)
            raise ValueError("record too short")
        if c in "BHI":
            w = 1 if c == "B" else 2 if c == "H" else 4
            if j + w > e:
                raise ValueError("record too short")
            out.append(_be(p, j, w))
            j += w
            continue
        b = p[j]
        j += 1
        if c == "s":
            out.append(_side(b))
        elif c == "c":
            if b < 1 or b > 30:
                raise ValueError("bad cube value")
            out.append(1 << b)
        elif c == "r":
            if b < 1 or b > 3:
                raise ValueError("value must be 1, 2 or 3")
            out.append(b)
        elif c == "d":
            out.append(_die(b >> 4))
            out.append(_die(b & 15))
        elif c in "8X":
            w = 8 if c == "8" else 32
            j -= 1
            if j + w > e:
                raise ValueError("record too short")
            out.append(bytes(p[j : j + w]))
            j += w
        else:  # "n", "p" or "q": length-prefixed
            if b > (MAX_NAME if c == "n" else MAX_PLAYER_SEED if c == "p" else MAX_PROOF) or j + b > e:
                raise ValueError("bad length-prefixed field")
            v = bytes(p[j : j + b])
            j += b
            if c == "n":
                try:
                    v = str(v, "utf-8")
                except Exception:  # noqa: BLE001 - UnicodeError differs between ports
                    raise ValueError("player name is not UTF-8") from None
            out.append(v)
    if j != e:
        raise ValueError("record length does not match its fields")
    return tuple(out)


def record_length(data, i, end):
    """Length of the record at ``data[i]`` from its first bytes, -1 if they are not there
    yet; ValueError for a byte that starts no record."""
    if i >= end:
        return -1
    b0 = data[i]
    if b0 & 0x80:
        if b0 & 7 or (b0 >> 3) & 7 > 6:
            raise ValueError("bad compact kind byte 0x%02x" % b0)
        return _SHAPE_LEN[(b0 >> 3) & 7] + 2
    if b0 < MATCH_START or b0 > JOINT_SHARE:
        raise ValueError("bad kind byte 0x%02x" % b0)
    if i + 1 >= end:
        return -1
    return data[i + 1] + 4


def decode_record(data, i=0, end=None):
    """``(kind, fields, next_i)`` of the record at ``data[i]``; a compact turn gives
    ``(TURN, (side, d1, d2, steps, 0))``, a packed game ``(GAME_PACKED, (payload,))`` (not
    expanded; ``Decoder`` expands it). EOFError when the bytes end inside the record,
    ValueError when it is corrupt."""
    if end is None:
        end = len(data)
    ln = record_length(data, i, end)
    if ln < 0 or i + ln > end:
        raise EOFError("torn record")
    b0 = data[i]
    if b0 & 0x80:
        if crc8(data, i, i + ln - 1) != data[i + ln - 1]:
            raise ValueError("compact record checksum mismatch")
        s, d1, d2, steps = _decode_compact(b0, data, i + 1, ln - 2)
        return TURN, (s, d1, d2, steps, 0), i + ln
    if crc16(data, i, i + ln - 2) != (data[i + ln - 2] << 8 | data[i + ln - 1]):
        raise ValueError("record checksum mismatch")
    if b0 == GAME_PACKED:
        if ln < 6 or data[i + 2] != _PACK_VERSION:
            raise ValueError("packed game of an unknown format version")
        return b0, (bytes(data[i + 2 : i + ln - 2]),), i + ln
    f = fields_of(b0, data, i + 2, ln - 4)
    if b0 == SEED_PART:
        check_seed_part(f)
    return b0, f, i + ln


_PACK_VERSION = 1  # bg.record.packdec.PACK_VERSION (not imported: that module loads the engine)


def _split(t):
    # A compact turn's fields (side, d1, d2, steps, flags) as its ROLL and PLAY actions.
    return (ROLL, (t[0], t[1], t[2])), (PLAY, (t[0], t[3], t[4]))


class Decoder:
    """Iterates ``(kind, fields)`` over bytes or a readable binary file (read through one
    preallocated buffer, so a long match never sits in RAM). Stops without raising at the
    first torn or corrupt record; then ``valid`` = bytes of whole good records, ``status``
    = ``OK``/``TORN``/``CORRUPT``, ``error`` = a short message. A compact turn yields ROLL
    then PLAY unless ``split_turns`` is False (then one ``TURN``). A packed game
    (``GAME_PACKED``) yields the records it replaced, exactly as they were (its ``valid``
    bytes count once all of them are out), unless ``expand`` is False (then it is one
    ``(GAME_PACKED, (payload,))``); expanding loads the rules engine (``bg.record.packdec``)."""

    def __init__(self, source, split_turns=True, expand=True):
        self.valid = 0
        self._expand = expand
        self._x = None  # bg.record.packdec.Expander, made at the first packed game
        self._xlen = 0  # length of the packed record being expanded (0: none)
        self.status = OK
        self.error = None
        self.records = 0
        self._split = split_turns
        self._pending = None
        self._lo = 0
        if hasattr(source, "readinto"):
            self._f = source
            self._buf = bytearray(2 * MAX_RECORD)
            self._hi = 0
            self._eof = False
        else:
            self._f = None
            self._buf = source
            self._hi = len(source)
            self._eof = True

    def __iter__(self):
        return self

    def _fill(self):
        # Keep at least MAX_RECORD bytes ahead of _lo while the file has them.
        f = self._f
        if f is None or self._eof or self._hi - self._lo >= MAX_RECORD:
            return
        n = self._hi - self._lo
        buf = self._buf
        if self._lo:
            buf[0:n] = buf[self._lo : self._hi]
            self._lo = 0
            self._hi = n
        mv = memoryview(buf)
        while self._hi < len(buf):
            got = f.readinto(mv[self._hi :])
            if not got:
                self._eof = True
                break
            self._hi += got

    def _bad(self, e):
        self.status = CORRUPT
        self.error = "corrupt record at byte %d: %s" % (self.valid, e)
        self._xlen = 0
        raise StopIteration from None

    def __next__(self):
        if self._pending is not None:
            a = self._pending
            self._pending = None
            return a
        if self.status != OK:
            raise StopIteration
        x = self._x
        if self._xlen and x is not None:
            try:
                a = x.next(self._split)
            except (ValueError, IndexError) as e:
                self._bad(e)
            if a is not None:
                return a
            self.valid += self._xlen
            self._xlen = 0
            self.records += 1
        self._fill()
        if self._lo >= self._hi:
            raise StopIteration
        try:
            kind, fields, nxt = decode_record(self._buf, self._lo, self._hi)
        except EOFError:
            self.status = TORN
            self.error = "torn record at byte %d" % self.valid
            raise StopIteration from None
        except (ValueError, IndexError) as e:
            self._bad(e)
        if kind == GAME_PACKED and self._expand:
            if self._x is None:
                from bg.record.packdec import Expander

                self._x = Expander(fields_of)
            try:
                self._x.start(fields[0])
            except ValueError as e:
                self._bad(e)
            self._xlen = nxt - self._lo
            self._lo = nxt
            return self.__next__()
        self.valid += nxt - self._lo
        self._lo = nxt
        self.records += 1
        if kind == TURN and self._split:
            roll, self._pending = _split(fields)
            return roll
        return kind, fields
