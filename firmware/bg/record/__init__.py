"""Compact binary action records shared by the journal, the link, dice verification and
the host exports (layout tables: docs/journal.md)."""

#
# A match is a byte stream of records. Each record carries its kind, its length (explicit or
# implied by the kind byte) and a checksum, so a reader stops cleanly at a torn or corrupt
# tail. Two framings share the stream (the first byte tells them apart):
#
# * **general record** (kind byte ``0x01..0x12``)::
#
#       kind:u8  len:u8  payload[len]  crc16:u16be
#
#   CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over ``kind, len, payload``.
#   Used for everything rare (match start, cube, resignation, game end...).
#
# * **compact turn record** (kind byte ``0x80..0xF0``): one side's roll *and* play in 3-5
#   bytes, the shape of nearly every record in a game::
#
#       0b1 s ttt 000   payload[n(ttt)]   crc8:u8
#
#   ``s`` = side, ``ttt`` = shape (number of steps, doubles or not), ``n`` is fixed per shape;
#   CRC-8 (poly 0x07, init 0xFF) over the kind byte and payload. The payload is one
#   big-endian integer mixing the dice and the checkers' start points in base 25 (a step's
#   destination is implied by its start point and die). A turn that does not fit (more
#   steps than the dice allow, a step that does not match a die, flags such as a casual
#   illegal play) is written as a general ``ROLL`` record followed by a general ``PLAY``.
#
# Decoding a compact turn yields two actions, ``ROLL`` then ``PLAY``, and a packed finished game
# (``GAME_PACKED``, written by the journal's game-end compaction, bg.journal.pack) yields the records
# it replaced, so readers only ever see the kinds below. Byte-by-byte tables and the reasoning
# behind the sizes: ``docs/journal.md``.
#
# Field tuples (what ``encode`` takes and ``decode_stream`` yields)::
#
#     MATCH_START   (match_id:bytes8, unix_time, length, flags, auto_limit,
#                    clock_reserve_s, clock_delay_s, name0:str, name1:str,
#                    commitment:bytes32, player_seed:bytes)   length 0 = money play
#     GAME_START    (game_no, score0, score1, flags)           flags: GAME_CRAWFORD
#     OPENING       (flags, dice)   dice = (d0, d1), or (a1, a2, b1, b2) with OPEN_HOUSE
#     ROLL          (side, d1, d2)
#     PLAY          (side, steps, flags)  steps = (from, to, from, to, ...), 25 = bar, 0 = off
#     TURN          (side, d1, d2, steps, flags)   encode only: ROLL + PLAY in one record
#     DOUBLE        (side, value)   value = the cube value offered (2, 4, ...)
#     TAKE, DROP    (side,)
#     BEAVER        (side, value)   value = the cube value after the beaver
#     AUTO_DOUBLE   (value,)
#     RESIGN        (side, value)   value 1 single, 2 gammon, 3 backgammon
#     RESIGN_ACCEPT, RESIGN_REJECT  (side,)
#     GAME_END      (winner, points, kind, reason)   kind 1/2/3, reason END_*
#     MATCH_END     (winner, score0, score1)
#     SEED_REVEAL   (seed:bytes32,)
#     CLOCK         (side, used_ms, left_ms)
#     SEED_PART     (source, name:str, part:bytes16[, proof:bytes])   a player-seed contribution;
#                   ``proof``: the host's proof that the part is its (docs/dice.md), opaque here,
#                   1..MAX_PROOF bytes, only with source host; absent in records written before it
#     JOINT_START   (side, commitment:bytes32)   a two-board match: this board's side, the other's commitment
#     JOINT_SHARE   (k, share:bytes32)   the other board's share of throw k, taken
#
# Example::
#
#     >>> from bg import record
#     >>> b = record.encode(record.TURN, (0, 3, 1, (8, 5, 6, 5), 0))
#     >>> len(b)
#     4
#     >>> list(record.decode_stream(b))
#     [(4, (0, 3, 1)), (5, (0, (8, 5, 6, 5), 0))]
#

from micropython import const

# Kinds (general framing). 0x00, 0x13..0x7F and 0xFF are never valid first bytes, so erased
# (0xFF) or zeroed flash is recognised as "no record" at once.
MATCH_START = const(0x01)
GAME_START = const(0x02)
OPENING = const(0x03)
ROLL = const(0x04)
PLAY = const(0x05)
DOUBLE = const(0x06)
TAKE = const(0x07)
DROP = const(0x08)
BEAVER = const(0x09)
AUTO_DOUBLE = const(0x0A)
RESIGN = const(0x0B)
RESIGN_ACCEPT = const(0x0C)
RESIGN_REJECT = const(0x0D)
GAME_END = const(0x0E)
MATCH_END = const(0x0F)
SEED_REVEAL = const(0x10)
CLOCK = const(0x11)
# A finished game re-encoded as one record (bg.journal.pack; expanded by bg.record.packdec). Readers never
# see it: ``Decoder`` yields the records it replaced (unless ``expand=False``).
GAME_PACKED = const(0x12)
# A player-seed contribution (docs/dice.md): after MATCH_START (the commitment), before the
# first throw; ``source`` is bg.dice.SRC_HOST (name = the paired host's name) or SRC_BUTTONS.
# A host's part may carry its proof as a trailing length-prefixed field: the board stores the
# bytes and never reads them (the host checks them); a record without it is the old layout.
SEED_PART = const(0x13)
# A match between two boards (docs/remote.md, bg.dice.joint): right after MATCH_START, before any
# SEED_PART, the side this board plays and the other board's commitment; then, once per throw,
# the other board's share of it as taken (in throw order, each once), before the throw's record.
JOINT_START = const(0x14)
JOINT_SHARE = const(0x15)
# Encode-only pseudo kind: a roll and its play in one compact record.
TURN = const(0x80)

_NAMES = (
    "? MATCH_START GAME_START OPENING ROLL PLAY DOUBLE TAKE DROP BEAVER AUTO_DOUBLE RESIGN"
    " RESIGN_ACCEPT RESIGN_REJECT GAME_END MATCH_END SEED_REVEAL CLOCK GAME_PACKED SEED_PART"
    " JOINT_START JOINT_SHARE"
)


def name(kind):
    """The kind's name for messages (``name(ROLL) == "ROLL"``)."""
    if kind == TURN:
        return "TURN"
    if kind == GAME_PACKED:
        return "GAME_PACKED"
    n = _NAMES.split()
    return n[kind] if 0 < kind < len(n) else "0x%02x" % kind


# MATCH_START option flags
OPT_CRAWFORD = const(0x01)
OPT_JACOBY = const(0x02)
OPT_BEAVER = const(0x04)
OPT_CASUAL = const(0x08)
OPT_HOUSE_OPENING = const(0x10)
OPT_CLOCK = const(0x20)
OPT_COMPUTER0 = const(0x40)  # the board's computer played side 0 (its name = its strength)
OPT_COMPUTER1 = const(0x80)  # ... side 1
# GAME_START flags
GAME_CRAWFORD = const(0x01)
# OPENING flags
OPEN_HOUSE = const(0x01)  # each side threw two dice (the house opening)
OPEN_REROLL = const(0x02)  # the starter chose to throw again (house variant)
# PLAY flags
PLAY_CASUAL_ACCEPTED_ILLEGAL = const(0x01)  # opponent accepted an illegal play (casual rule)
_PLAY_FLAGS_MASK = const(0x07)
# GAME_END reasons
END_BEAROFF = const(0)
END_DROP = const(1)
END_RESIGN = const(2)
END_TIME = const(3)

MAX_NAME = const(16)  # bytes of UTF-8 per player name
MAX_PLAYER_SEED = const(32)
MAX_PROOF = const(160)  # bytes of a SEED_PART's proof (the host's format is 114: docs/dice.md)
_MAX_STEPS = const(15)  # PLAY (general) allows up to 15 steps (casual plays)
MAX_RECORD = const(259)  # 1 + 1 + 255 + 2: a reader never needs more bytes than this
# Decoder.status
OK = const(0)
TORN = const(1)  # the bytes end inside a record (a power cut mid-append, or a partial read)
CORRUPT = const(2)  # a complete record fails its checksum or its fields make no sense

# CRC-16 of each nibble (poly 0x1021), as big-endian byte pairs: frozen as a tuple of ints, most
# were long ints on the board model (arithmetic with them allocates: ~57 bytes of garbage per
# byte checked, every journal record); a bytes constant stays in flash and gives small ints.
_CRC16_NIB = (
    b"\x00\x00\x10\x21\x20\x42\x30\x63\x40\x84\x50\xa5\x60\xc6\x70\xe7"
    b"\x81\x08\x91\x29\xa1\x4a\xb1\x6b\xc1\x8c\xd1\xad\xe1\xce\xf1\xef"
)
# Compact turn shapes: payload bytes and exclusive upper bound of the payload integer.
#  0 no step (dance)          V = dice36                                  < 36
#  1 non-double, 1 step       V = dice36 + 36*(die + 2*(f-1))             < 1800
#  2 non-double, 2 steps      V = dice36 + 36*(first + 2*(f1-1 + 25*(f2-1))) < 45000
#  3..6 double, 1..4 steps    V = (d-1) + 6*sum((f_i-1) * 25**i)          < 6*25**k
_SHAPE_LEN = (1, 2, 2, 1, 2, 3, 3)
_SHAPE_MAX = (36, 1800, 45000, 150, 3750, 93750, 2343750)


def crc16(data, start=0, end=None, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of ``data[start:end]`` (``crc16(b"123456789") == 0x29B1``)."""
    if end is None:
        end = len(data)
    t = _CRC16_NIB
    for i in range(start, end):
        b = data[i]
        k = ((crc >> 12) ^ (b >> 4)) << 1
        crc = ((crc << 4) & 0xFFFF) ^ (t[k] << 8 | t[k + 1])
        k = ((crc >> 12) ^ (b & 0x0F)) << 1
        crc = ((crc << 4) & 0xFFFF) ^ (t[k] << 8 | t[k + 1])
    return crc


def crc8(data, start=0, end=None, crc=0xFF):
    """CRC-8, poly 0x07, init 0xFF, no reflection (``crc8(b"123456789") == 0xFB``).
    Hamming distance 4 for the compact records' lengths (every 1-3 bit error is caught)."""
    if end is None:
        end = len(data)
    for i in range(start, end):
        crc ^= data[i]
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


# General payload layouts, one character per field (indexed by kind):
#   s side (u8 0/1)   B/H/I unsigned u8/u16/u32 big-endian   c cube value 2**n (u8 n)
#   r 1..3 (u8)       d two dice in one byte (d1 << 4 | d2; takes two fields)
#   8 8 raw bytes     X 32 raw bytes    n name (u8 length + <= 16 bytes UTF-8)
#   p player seed (u8 length + <= 32 bytes)
#   q optional last field: opaque bytes (u8 length 1..MAX_PROOF + bytes), absent = not in the tuple
#   o OPENING (flags u8, then one byte per pair of dice)   P PLAY (see _pack_play)
FORMATS = (
    "",
    "8IBBBHBnnXp",
    "HHHB",
    "o",
    "sd",
    "P",
    "sc",
    "s",
    "s",
    "sc",
    "c",
    "sr",
    "s",
    "s",
    "sHrB",
    "sHH",
    "X",
    "sII",
    "",  # GAME_PACKED: bg.record.packdec
    "Bnpq",  # SEED_PART
    "sX",  # JOINT_START
    "IX",  # JOINT_SHARE
)
_WIDTH = {"B": 1, "H": 2, "I": 4}


def _die(d):
    if not isinstance(d, int) or d < 1 or d > 6:
        raise ValueError("die out of range 1-6: %r" % (d,))
    return d


def _side(s):
    if s != 0 and s != 1:
        raise ValueError("side must be 0 or 1: %r" % (s,))
    return s


def _u(v, bits, what):
    if not isinstance(v, int) or v < 0 or v >> bits:
        raise ValueError("%s out of range: %r" % (what, v))
    return v


def _check_steps(steps):
    if len(steps) & 1 or len(steps) > 2 * _MAX_STEPS:
        raise ValueError("steps must be (from, to) pairs, at most %d" % _MAX_STEPS)
    for i in range(0, len(steps), 2):
        f = steps[i]
        t = steps[i + 1]
        if not isinstance(f, int) or not isinstance(t, int) or f < 1 or f > 25 or t < 0 or t > 24:
            raise ValueError("bad step %r/%r (from 1-25, to 0-24)" % (f, t))


def _reg(f, d):
    # Where a checker from point f lands with die d (0 = borne off).
    t = f - d
    return t if t > 0 else 0


def _bytes(v, n, what):
    if not isinstance(v, (bytes, bytearray)) or len(v) > n or (what and len(v) != n):
        raise ValueError("%s must be %d bytes" % (what or "field", n))
    return bytes(v)


def _pack_play(out, fields):
    # u8 side | flags << 1 | nsteps << 4, then every from/to as 5 bits, MSB first.
    s, steps, flags = fields
    _check_steps(steps)
    out.append(_side(s) | _u(flags, 3, "play flags") << 1 | (len(steps) // 2) << 4)
    acc = nb = 0
    for p in steps:
        acc = (acc << 5 | p) & 0xFFFF
        nb += 5
        if nb >= 8:
            nb -= 8
            out.append((acc >> nb) & 255)
    if nb:
        out.append((acc << (8 - nb)) & 255)


def _payload(kind, fields):
    """The general payload (bytearray) of ``kind`` with its field tuple."""
    fmt = FORMATS[kind]
    out = bytearray()
    if fmt == "P":
        _pack_play(out, fields)
        return out
    if fmt == "o":
        flags, dice = fields
        n = 4 if _u(flags, 2, "opening flags") & OPEN_HOUSE else 2
        if len(dice) != n or flags == OPEN_REROLL:
            raise ValueError("opening: two dice, or four with the house variant (+ re-roll)")
        out.append(flags)
        for i in range(0, n, 2):
            out.append(_die(dice[i]) << 4 | _die(dice[i + 1]))
        return out
    i = 0
    for c in fmt:
        if c == "q" and i == len(fields):
            break  # the optional last field is absent
        v = fields[i]
        i += 1
        if c == "s":
            out.append(_side(v))
        elif c in "BHI":
            w = _WIDTH[c]
            _u(v, 8 * w, "field %d" % i)
            for k in range(w - 1, -1, -1):
                out.append((v >> (8 * k)) & 255)
        elif c == "c":
            if not isinstance(v, int) or v < 2 or v & (v - 1) or v >> 30:
                raise ValueError("cube value must be a power of two >= 2: %r" % (v,))
            out.append(len(bin(v)) - 3)
        elif c == "r":
            if v not in (1, 2, 3):
                raise ValueError("value must be 1, 2 or 3: %r" % (v,))
            out.append(v)
        elif c == "d":
            out.append(_die(v) << 4 | _die(fields[i]))
            i += 1
        elif c == "8":
            out += _bytes(v, 8, "match id")
        elif c == "X":
            out += _bytes(v, 32, "seed/commitment")
        elif c == "n":
            b = v.encode("utf-8")
            if len(b) > MAX_NAME:
                raise ValueError("player name longer than %d bytes of UTF-8" % MAX_NAME)
            out.append(len(b))
            out += b
        else:  # "p", or "q" (present: 1..MAX_PROOF bytes)
            b = _bytes(v or b"", MAX_PLAYER_SEED if c == "p" else MAX_PROOF, None)
            out.append(len(b))
            out += b
    if i != len(fields):
        raise ValueError("%s takes %d fields" % (name(kind), i))
    return out


def check_seed_part(fields):
    """A SEED_PART's fields make sense: source 1 (host) or 2 (buttons), 16 bytes; a proof only
    with a host's part, 1..MAX_PROOF bytes (an empty one is written as none: one encoding)."""
    n = len(fields)
    if n < 3 or n > 4 or fields[0] not in (1, 2) or len(fields[2]) != 16:
        raise ValueError("bad player seed contribution")
    if n == 4:
        p = fields[3]
        if fields[0] != 1 or not isinstance(p, (bytes, bytearray)) or not 0 < len(p) <= MAX_PROOF:
            raise ValueError("bad player seed proof")
    return fields


def _compact_turn(d1, d2, steps):
    """(shape, value) of a turn that fits a compact record, or None."""
    n = len(steps) // 2
    dice36 = (d1 - 1) * 6 + (d2 - 1)
    if n == 0:
        return 0, dice36
    if d1 == d2:
        if n > 4:
            return None
        v = 0
        mul = 1
        for i in range(n):
            f = steps[2 * i]
            if steps[2 * i + 1] != _reg(f, d1):
                return None
            v += (f - 1) * mul
            mul *= 25
        return 2 + n, (d1 - 1) + 6 * v
    f1 = steps[0]
    t1 = steps[1]
    if n == 1:
        if t1 == _reg(f1, d1):
            return 1, dice36 + 36 * (2 * (f1 - 1))
        if t1 == _reg(f1, d2):
            return 1, dice36 + 36 * (1 + 2 * (f1 - 1))
        return None
    if n != 2:
        return None
    f2 = steps[2]
    t2 = steps[3]
    if t1 == _reg(f1, d1) and t2 == _reg(f2, d2):
        first = 0
    elif t1 == _reg(f1, d2) and t2 == _reg(f2, d1):
        first = 1
    else:
        return None
    return 2, dice36 + 36 * (first + 2 * ((f1 - 1) + 25 * (f2 - 1)))


def _frame(kind, payload, buf, at):
    n = len(payload)
    if n > 255:
        raise ValueError("payload too long")
    buf[at] = kind
    buf[at + 1] = n
    buf[at + 2 : at + 2 + n] = payload
    c = crc16(buf, at, at + 2 + n)
    buf[at + 2 + n] = c >> 8
    buf[at + 3 + n] = c & 255
    return at + 4 + n


def encode(kind, fields, buf=None):
    """Encode one action (``TURN``: a compact record, or ROLL + PLAY when the play does not
    fit); returns bytes, or a memoryview into ``buf`` (>= 2 * MAX_RECORD bytes) if given.
    Bad fields raise ValueError. ``encode(TAKE, (1,)) == b"\\x07\\x01\\x01j\\x1c"``."""
    own = buf is None
    if own:
        buf = bytearray(2 * MAX_RECORD)
    if kind == TURN:
        s, d1, d2, steps, flags = fields
        _side(s)
        _die(d1)
        _die(d2)
        _u(flags, 3, "play flags")
        _check_steps(steps)
        c = None if flags else _compact_turn(d1, d2, steps)
        if c is None:
            end = _frame(ROLL, _payload(ROLL, (s, d1, d2)), buf, 0)
            end = _frame(PLAY, _payload(PLAY, (s, steps, flags)), buf, end)
        else:
            shape, v = c
            n = _SHAPE_LEN[shape]
            buf[0] = 0x80 | s << 6 | shape << 3
            for i in range(n):
                buf[n - i] = (v >> (8 * i)) & 255
            buf[n + 1] = crc8(buf, 0, n + 1)
            end = n + 2
    elif isinstance(kind, int) and (MATCH_START <= kind <= CLOCK or SEED_PART <= kind <= JOINT_SHARE):
        if kind == SEED_PART:
            check_seed_part(fields)
        end = _frame(kind, _payload(kind, fields), buf, 0)
    else:
        raise ValueError("unknown record kind %r" % (kind,))
    if own:
        return bytes(buf[:end])
    return memoryview(buf)[:end]


# Decoding lives in bg.record.decode (kept apart so each module compiles in an ESP32-sized heap);
# these wrappers make ``bg.record`` the one entry point.


def decode_record(data, i=0, end=None):
    """Decode the record at ``data[i]``: ``(kind, fields, next_i)`` (``TURN`` for a compact
    turn). ``EOFError`` if the bytes end inside it, ``ValueError`` if it is corrupt."""
    from bg.record import decode as recdec

    return recdec.decode_record(data, i, end)


def Decoder(source, split_turns=True, expand=True):  # noqa: N802 - reads like the class it returns
    """A ``bg.record.decode.Decoder`` over bytes or a binary file."""
    from bg.record import decode as recdec

    return recdec.Decoder(source, split_turns, expand)


def decode_stream(data):
    """Every action of ``data`` (bytes or a binary file): an iterable ``Decoder`` yielding
    ``(kind, fields)``; a torn/corrupt tail ends it cleanly (then ``.valid`` is the number
    of good bytes and ``.status`` is ``TORN`` or ``CORRUPT``)."""
    from bg.record import decode as recdec

    return recdec.Decoder(data)
