"""GAME_PACKED (bg.record.packdec / bg.record.packenc): packed games expand to exactly the records they
replace, the engine's visit order is frozen, bad packed bytes end a Decoder cleanly.
Runs under CPython and MicroPython (64k heap: packing and expansion fit with the engine)."""

import gc

gc.collect()
import pack_games as PG  # noqa: E402 - compiled from source first, while the heap is empty

gc.collect()
from bg import record as R  # noqa: E402

gc.collect()
from bg.record import decode as recdec  # noqa: E402

gc.collect()
from bg import board  # noqa: E402

gc.collect()
from bg.record import packdec  # noqa: E402

gc.collect()
from bg.record import packenc  # noqa: E402, F401

gc.collect()


# The play index of a packed turn is its rank among MoveGen.for_each_end's visits, so the
# packed format depends on that order. These values were taken from the engine when
# PACK_VERSION 1 was defined. If this test fails, the engine's visit order changed: every
# packed game already on a board would expand to the WRONG plays. Either restore the order,
# or bump packdec.PACK_VERSION (old packed games then read as corrupt records; the host keeps
# its own copies) and update these numbers.
_BAR = ({25: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 1, 14: 5, 16: 1})
_FROZEN = (
    # (side-0 points, side-1 points) or None = start, side, dice, visits, CRC-16 of the visits
    (None, 0, 3, 1, 19, 0xBA84),
    (None, 1, 6, 6, 11, 0xB8F8),
    (None, 0, 5, 2, 9, 0xDEFA),
    (_BAR, 0, 4, 1, 0, 0xFFFF),  # dance from the bar
    (_BAR, 0, 6, 5, 1, 0x4C32),  # both checkers enter, one hits
    (({6: 4, 5: 3, 4: 3, 3: 2, 2: 2, 1: 1}, {18: 2, 13: 13}), 0, 6, 3, 4, 0x2D5E),  # bear-off
    (({6: 2, 5: 3, 3: 4, 1: 2}, {18: 3, 13: 12}), 0, 2, 2, 20, 0x6FFA),  # doubles in and off
)


def _frozen_pos(pts):
    return board.start_position() if pts is None else board.from_points(pts[0], pts[1])


def test_visit_order_is_frozen_for_pack_version_1():
    assert packdec.PACK_VERSION == 1
    acc = bytearray()

    def visit(w, st, n):
        acc.append(n)
        for i in range(2 * n):
            acc.append(st[i])

    gen = packdec.Track().gen  # the visit packdec uses: MoveGen's for_each_end
    for pts, side, d1, d2, n, crc in _FROZEN:
        acc[:] = b""
        got = gen.for_each_end(_frozen_pos(pts), side, d1, d2, visit)
        assert (got, R.crc16(acc)) == (n, crc), (pts, side, d1, d2, got, hex(R.crc16(acc)))
    # and the first visits of the opening 3-1, spelled out
    first = []

    def three(w, st, n):
        first.append(tuple(st[: 2 * n]))
        if len(first) == 3:
            gen.stop = True

    gen.for_each_end(board.start_position(), 0, 3, 1, three)
    assert first == [(24, 21, 24, 23), (24, 21, 21, 20), (24, 21, 8, 7)]


def test_width_and_gamma_round_trip():
    assert [packdec.width(n) for n in (0, 1, 2, 3, 4, 5, 19, 256, 257)] == [0, 0, 1, 2, 2, 3, 5, 8, 9]
    p = packenc.Packer()
    p.begin()
    vals = (0, 1, 2, 3, 7, 8, 255, 65535, 4294967295)
    for v in vals:
        p.gamma(v)
    pl = p.finish()
    x = packdec.Expander(recdec.fields_of)
    x.start(pl)
    assert tuple(x.gamma() for _ in vals) == vals
    assert x.next() is None


def test_random_legal_games_round_trip():
    # Full games with every kind of record a game holds; the packed record must expand to
    # the same actions as the raw records, split (ROLL, PLAY) and unsplit (TURN).
    rng = PG.Rng(4242)
    stats = {}
    raw_total = packed_total = 0
    for g in range(6):
        raw = bytes(PG.game(rng, g + 1, True, stats))
        gc.collect()
        rec = PG.packed_record(raw)
        assert PG.same_actions(raw, rec, True), g
        assert PG.same_actions(raw, rec, False), g
        # record level: one record, and a reader that does not expand sees it as such
        kinds = [k for k, _ in R.Decoder(rec, expand=False)]
        assert kinds == [R.GAME_PACKED]
        raw_total += len(raw)
        packed_total += len(rec)
        gc.collect()
    assert packed_total * 2 < raw_total, (packed_total, raw_total)
    for what in ("dance", "bar", "bearoff", "double4", "illegal", "cube", "resign"):
        assert stats.get(what), (what, stats)


def test_plain_game_packs_turns_in_about_a_byte_and_a_half():
    rng = PG.Rng(7)
    raw = bytes(PG.game(rng, 1, False))
    rec = PG.packed_record(raw)
    turns = sum(1 for k, _ in R.Decoder(raw, split_turns=False) if k == R.TURN)
    assert PG.same_actions(raw, rec)
    assert len(rec) < turns * 2, (len(rec), turns)


def test_packed_games_in_a_stream_with_other_records():
    rng = PG.Rng(99)
    head = R.encode(R.MATCH_START, (b"12345678", 1, 5, 0, 0, 0, 0, "a", "b", bytes(32), b""))
    g1 = bytes(PG.game(rng, 1, False))
    g2 = bytes(PG.game(rng, 2, True))
    tail = R.encode(R.MATCH_END, (0, 5, 1))
    raw = head + g1 + g2 + tail
    packed = head + PG.packed_record(g1) + PG.packed_record(g2) + tail
    assert PG.same_actions(raw, packed) and PG.same_actions(raw, packed, False)
    d = R.Decoder(packed)
    n = sum(1 for _ in d)
    assert d.valid == len(packed) and d.records == 4 and n > 40


def test_a_game_too_long_to_pack_is_refused():
    p = packenc.Packer()
    p.begin()
    try:
        for _ in range(400):
            p.add(R.RESIGN_REJECT, (1,))
    except ValueError as e:
        assert "too long" in str(e)
    else:
        assert False, "400 items fit in 255 bytes?"


def test_a_turn_the_engine_does_not_generate_is_refused():
    p = packenc.Packer()
    p.begin()
    p.add(R.GAME_START, (1, 0, 0, 0))
    for bad in ((0, 3, 1, (24, 21, 24, 20), 0), (0, 3, 1, (), 0), (0, 3, 1, (21, 24, 24, 23), 0)):
        try:
            p.add(R.TURN, bad)
        except ValueError:
            pass
        else:
            assert False, bad


def _frame(payload):
    rec = bytearray((R.GAME_PACKED, len(payload)))
    rec.extend(payload)
    c = R.crc16(rec)
    rec.append(c >> 8)
    rec.append(c & 255)
    return bytes(rec)


def test_bad_packed_bytes_end_the_decoder_cleanly():
    rng = PG.Rng(3)
    head = R.encode(R.GAME_START, (1, 0, 0, 0)) + R.encode(R.TAKE, (0,))
    rec = PG.packed_record(bytes(PG.game(rng, 1, False)))
    pl = rec[2:-2]
    bads = (
        bytes((2,)) + pl[1:],  # unknown format version
        pl[: len(pl) // 2],  # cut short (valid CRC over the short payload)
        pl + b"\x00",  # data after END
        bytes((1, 0xFF, 0xFF, 0xFF)),  # item codes beyond the table
        bytes((1,)),  # no END
    )
    for bad in bads:
        d = R.Decoder(head + _frame(bad) + head)
        assert [next(d), next(d)] == [(R.GAME_START, (1, 0, 0, 0)), (R.TAKE, (0,))]
        for _a in d:  # what was expanded before the damage; then a clean stop
            pass
        assert d.status == R.CORRUPT, bad
        assert d.valid == len(head), (d.valid, d.error)
        gc.collect()
    # a flipped bit is caught by the CRC-16 before anything is expanded
    bad = bytearray(rec)
    bad[5] ^= 4
    d = R.Decoder(bytes(bad))
    assert list(d) == [] and d.status == R.CORRUPT and "checksum" in d.error
