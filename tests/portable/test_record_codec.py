"""bg.record: every kind round-trips, turns pack into compact records, torn tails and
damaged bytes stop the decoder cleanly, bad fields are refused with ValueError."""

import gc

gc.collect()
from bg import record as R  # noqa: E402

gc.collect()
from bg.record import decode as recdec  # noqa: E402, F401 - compile it now, while the heap is unfragmented

MID = b"\x01\x02\x03\x04\x05\x06\x07\x08"
SAMPLES = (
    (
        R.MATCH_START,
        (
            MID,
            1763700000,
            7,
            R.OPT_CRAWFORD | R.OPT_CLOCK,
            0,
            1800,
            12,
            "Alice",
            "J\u00fcrgen \u00e9t\u00e9",
            bytes(range(32)),
            b"typed by bob",
        ),
    ),
    (R.MATCH_START, (MID, 0, 0, R.OPT_JACOBY | R.OPT_BEAVER, 8, 0, 0, "", "x" * 16, b"\xff" * 32, b"")),
    (R.GAME_START, (3, 2, 4, R.GAME_CRAWFORD)),
    (R.OPENING, (0, (6, 1))),
    (R.OPENING, (R.OPEN_HOUSE, (5, 4, 3, 3))),
    (R.OPENING, (R.OPEN_HOUSE | R.OPEN_REROLL, (6, 6, 1, 2))),
    (R.ROLL, (1, 6, 5)),
    (R.PLAY, (0, (24, 18, 13, 9), 0)),
    (R.PLAY, (1, (), 0)),
    (R.PLAY, (0, (25, 20, 6, 0, 5, 0, 4, 0, 3, 0), R.PLAY_CASUAL_ACCEPTED_ILLEGAL)),
    (R.DOUBLE, (0, 2)),
    (R.DOUBLE, (1, 64)),
    (R.TAKE, (1,)),
    (R.DROP, (0,)),
    (R.BEAVER, (1, 4)),
    (R.AUTO_DOUBLE, (2,)),
    (R.RESIGN, (0, 2)),
    (R.RESIGN_ACCEPT, (1,)),
    (R.RESIGN_REJECT, (1,)),
    (R.GAME_END, (1, 12, 3, R.END_RESIGN)),
    (R.MATCH_END, (1, 3, 7)),
    (R.SEED_REVEAL, (bytes(range(50, 82)),)),
    (R.CLOCK, (0, 12345, 1799000)),
    (R.JOINT_START, (1, bytes(range(100, 132)))),
    (R.JOINT_SHARE, (0x01020304, bytes(range(7, 39)))),
)
# (turn fields, expected record size): dance, one step, two steps, doubles, bar, bear-off
TURNS = (
    ((0, 6, 6, (), 0), 3),
    ((1, 4, 2, (3, 0), 0), 4),
    ((0, 3, 1, (8, 5, 6, 5), 0), 4),
    ((1, 2, 5, (13, 11, 11, 6), 0), 4),
    ((0, 6, 5, (3, 0, 2, 0), 0), 4),
    ((1, 1, 1, (25, 24), 0), 3),
    ((0, 2, 2, (6, 4, 6, 4), 0), 4),
    ((1, 5, 5, (25, 20, 20, 15, 6, 1, 6, 1), 0), 5),
    ((0, 3, 3, (24, 21, 21, 18, 13, 10), 0), 5),
)


def _stream():
    out = b""
    for kind, fields in SAMPLES:
        out += R.encode(kind, fields)
    for fields, _ in TURNS:
        out += R.encode(R.TURN, fields)
    return out


def _expected():
    exp = list(SAMPLES)
    for (s, d1, d2, steps, flags), _ in TURNS:
        exp.append((R.ROLL, (s, d1, d2)))
        exp.append((R.PLAY, (s, steps, flags)))
    return exp


def test_crc_check_values():
    assert R.crc16(b"123456789") == 0x29B1  # CRC-16/CCITT-FALSE catalogue value
    assert R.crc8(b"123456789") == 0xFB


def test_every_kind_round_trips():
    for kind, fields in SAMPLES:
        b = R.encode(kind, fields)
        d = R.decode_stream(b)
        assert list(d) == [(kind, fields)], R.name(kind)
        assert d.valid == len(b) and d.status == R.OK


def test_turns_pack_compact_and_round_trip():
    for fields, size in TURNS:
        b = R.encode(R.TURN, fields)
        assert len(b) == size, (fields, len(b))
        s, d1, d2, steps, flags = fields
        assert list(R.decode_stream(b)) == [(R.ROLL, (s, d1, d2)), (R.PLAY, (s, steps, flags))]


def test_turn_that_does_not_fit_falls_back_to_roll_and_play():
    # a casual illegal play (flag), a step that matches no die, five steps
    for fields in (
        (0, 2, 1, (5, 1), R.PLAY_CASUAL_ACCEPTED_ILLEGAL),
        (1, 6, 5, (13, 10), 0),
        (0, 4, 4, (20, 16, 16, 12, 12, 8, 8, 4, 4, 0), 0),
    ):
        b = R.encode(R.TURN, fields)
        assert b[0] == R.ROLL
        s, d1, d2, steps, flags = fields
        assert list(R.decode_stream(b)) == [(R.ROLL, (s, d1, d2)), (R.PLAY, (s, steps, flags))]


def test_encode_into_buffer_matches():
    buf = bytearray(2 * R.MAX_RECORD)
    for kind, fields in SAMPLES[:6]:
        assert bytes(R.encode(kind, fields, buf)) == R.encode(kind, fields)


def test_torn_tail_at_every_length_keeps_the_whole_records():
    data = _stream()
    ends = [0]
    i = 0
    while i < len(data):
        i = R.decode_record(data, i)[2]
        ends.append(i)
    exp = _expected()
    for cut in range(len(data)):
        d = R.decode_stream(data[:cut])
        got = list(d)
        whole = max(e for e in ends if e <= cut)
        assert d.valid == whole, cut
        assert got == exp[: len(got)]
        assert d.status == (R.OK if whole == cut else R.TORN), cut


def test_every_single_bit_flip_is_caught():
    data = _stream()
    exp = _expected()
    buf = bytearray(data)
    for i in range(len(data)):
        for bit in range(8):
            buf[i] ^= 1 << bit
            d = R.decode_stream(buf)
            got = list(d)
            buf[i] ^= 1 << bit
            assert d.status != R.OK and d.valid <= i, (i, bit)
            assert got == exp[: len(got)]


def test_hostile_bytes_never_crash():
    s = 0x9E3779B9
    buf = bytearray(64)
    for _ in range(3000):
        for k in range(len(buf)):
            s ^= (s << 13) & 0xFFFFFFFF
            s ^= s >> 17
            s ^= (s << 5) & 0xFFFFFFFF
            buf[k] = s & 255
        # random kind bytes, then valid framing around random payloads
        for data in (buf, _framed(buf)):
            d = R.decode_stream(data)
            for _ in d:
                pass
            assert d.valid <= len(data)


def _framed(buf):
    # a general record with a correct CRC around hostile payload bytes
    kind = buf[0] % R.CLOCK + 1
    n = buf[1] % 40
    out = bytearray((kind, n)) + buf[2 : 2 + n]
    out[1] = len(out) - 2
    c = R.crc16(out)
    return bytes(out) + bytes((c >> 8, c & 255))


def test_bad_fields_are_refused():
    bad = (
        (R.ROLL, (2, 1, 1)),
        (R.ROLL, (0, 0, 3)),
        (R.ROLL, (0, 7, 1)),
        (R.PLAY, (0, (26, 3), 0)),
        (R.PLAY, (0, (5,), 0)),
        (R.PLAY, (0, (5, 25), 0)),
        (R.DOUBLE, (0, 3)),
        (R.DOUBLE, (0, 1)),
        (R.RESIGN, (0, 4)),
        (R.GAME_END, (0, 1, 4, 0)),
        (R.GAME_START, (70000, 0, 0, 0)),
        (R.OPENING, (0, (1, 2, 3, 4))),
        (R.OPENING, (R.OPEN_REROLL, (1, 2))),
        (R.MATCH_START, (b"short", 0, 0, 0, 0, 0, 0, "a", "b", bytes(32), b"")),
        (R.MATCH_START, (MID, 0, 0, 0, 0, 0, 0, "x" * 17, "b", bytes(32), b"")),
        (R.MATCH_START, (MID, 0, 0, 0, 0, 0, 0, "a", "b", bytes(31), b"")),
        (R.SEED_REVEAL, (bytes(31),)),
        (R.JOINT_START, (2, bytes(32))),
        (R.JOINT_START, (0, bytes(33))),
        (R.JOINT_SHARE, (1 << 32, bytes(32))),
        (R.JOINT_SHARE, (0, bytes(31))),
        (R.TAKE, (0, 1)),
        (0x33, (0,)),
        (R.TURN, (0, 3, 1, (8, 5, 6), 0)),
    )
    for kind, fields in bad:
        try:
            R.encode(kind, fields)
        except ValueError:
            continue
        raise AssertionError("accepted %r %r" % (kind, fields))


def test_erased_and_zeroed_flash_is_no_record():
    for filler in (b"\xff" * 8, b"\x00" * 8):
        d = R.decode_stream(R.encode(R.TAKE, (0,)) + filler)
        assert list(d) == [(R.TAKE, (0,))] and d.status == R.CORRUPT and d.valid == 5
