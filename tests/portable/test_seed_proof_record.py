"""A host's part carries its proof into the journal (docs/dice.md, *Signed parts*): SEED_PART
gains an optional last field, the proof's bytes, which the board stores and never reads.
Records written before it (and parts with no proof) keep their exact bytes and still parse;
a proof is bounded (``record.MAX_PROOF``), only with a host's part, never empty; a damaged
one ends the stream as corrupt. The controller journals the proof with the part, or refuses
both and changes nothing. Runs unchanged under CPython and the MicroPython unix port."""

# mpy-heap: 112k
# (tools/bench/heapmargin.py: smallest passing 102k on the 64-bit port with the ROM image, the
# whole controller and its rules engine; declared +10k. The board model runs it at its 64k.)

import ctl_helpers as H
from app import controller as C
from bg import dice, record

SEED = bytes(range(16))
PROOF = bytes(range(100, 214))  # 114 bytes: the host's format (gammon.dice_proof.pack)
# A host's SEED_PART as the firmware before proofs wrote it ("laptop", bytes 0..15)
OLD = bytes.fromhex("131901066c6170746f7010000102030405060708090a0b0c0d0e0f1785")


def _refused(kind, fields):
    try:
        record.encode(kind, fields)
    except ValueError:
        return True
    return False


def _framed(payload):
    raw = bytearray([record.SEED_PART, len(payload)]) + payload
    c = record.crc16(raw)
    return bytes(raw) + bytes((c >> 8, c & 255))


def test_a_record_written_before_proofs_keeps_its_bytes_and_fields():
    f = (dice.SRC_HOST, "laptop", SEED)
    assert record.encode(record.SEED_PART, f) == OLD
    assert list(record.decode_stream(OLD)) == [(record.SEED_PART, f)]


def test_a_proof_rides_in_the_record_and_round_trips():
    f = (dice.SRC_HOST, "laptop", SEED, PROOF)
    b = record.encode(record.SEED_PART, f)
    # the old record's payload, then the proof (u8 length + bytes); its own checksum
    assert b[0] == record.SEED_PART and b[1] == OLD[1] + 1 + len(PROOF)
    assert b[2 : 2 + OLD[1]] == OLD[2:-2] and b[2 + OLD[1]] == len(PROOF)
    assert len(b) == len(OLD) + 1 + len(PROOF)
    assert list(record.decode_stream(b)) == [(record.SEED_PART, f)]
    # old and new records mixed in one stream, read through a file's small buffer too
    d = record.decode_stream(OLD + b + OLD)
    assert [len(x[1]) for x in d] == [3, 4, 3] and d.status == record.OK
    most = (dice.SRC_HOST, "x" * 16, SEED, bytes(record.MAX_PROOF))
    assert list(record.decode_stream(record.encode(record.SEED_PART, most))) == [(record.SEED_PART, most)]


def test_bad_proofs_are_refused_when_written():
    for bad in (
        (dice.SRC_BUTTONS, "", SEED, PROOF),  # the board's own part has no host's proof
        (dice.SRC_HOST, "laptop", SEED, b""),  # empty: written as no proof (one encoding)
        (dice.SRC_HOST, "laptop", SEED, bytes(record.MAX_PROOF + 1)),
        (dice.SRC_HOST, "laptop", SEED, "text"),
        (dice.SRC_HOST, "laptop", SEED, PROOF, PROOF),
    ):
        assert _refused(record.SEED_PART, bad), bad


def test_damaged_proofs_end_the_stream_as_corrupt():
    body = OLD[2:-2]
    for payload in (
        body + b"\x00",  # a zero-length proof: never written
        body + bytes((len(PROOF) + 1,)) + PROOF,  # longer than the record
        body + bytes((record.MAX_PROOF + 1,)) + bytes(record.MAX_PROOF + 1),  # over the bound
        bytes((dice.SRC_BUTTONS,)) + body[1:] + bytes((len(PROOF),)) + PROOF,  # buttons with a proof
    ):
        d = record.decode_stream(OLD + _framed(payload))
        assert [len(x[1]) for x in d] == [3] and d.status == record.CORRUPT, payload
    # a flipped proof byte under the old checksum: the record's CRC catches it
    raw = bytearray(record.encode(record.SEED_PART, (dice.SRC_HOST, "laptop", SEED, PROOF)))
    raw[40] ^= 1
    d = record.decode_stream(bytes(raw))
    assert list(d) == [] and d.status == record.CORRUPT


def test_the_controller_journals_the_proof_with_the_part():
    c = H.make(length=3)
    r = H.Robot(c)
    r.set_start()
    assert r.press(0, C.ROLL) and c.phase == C.OPENING
    com = c.outbox[0][1][9]
    # too long a proof: refused, nothing journaled, the window still open
    try:
        c.contribute("laptop", SEED, com, bytes(record.MAX_PROOF + 1))
        raise AssertionError("accepted")
    except ValueError:
        pass
    assert H.kinds(c) == [C.K_MATCH_START] and c.fair.open
    assert c.contribute("laptop", SEED, com, PROOF) == c.fair.match_id
    assert c.outbox[-1] == (C.K_SEED_PART, (dice.SRC_HOST, "laptop", SEED, PROOF))
    assert c.contribute("phone", bytes(16), com) == c.fair.match_id  # no proof: the old layout
    assert c.outbox[-1] == (C.K_SEED_PART, (dice.SRC_HOST, "phone", bytes(16)))
    data = b"".join(record.encode(k, f) for k, f in c.outbox)
    parts = [f for k, f in record.decode_stream(data) if k == record.SEED_PART]
    assert parts == [(1, "laptop", SEED, PROOF), (1, "phone", bytes(16))]
    # a power cut after the parts: the board resumes with the same parts (the proof is not kept)
    d = H.make(length=3)
    d.resume(iter(c.outbox), H.seed_for(c.fair.match_id))
    assert d.seed_parts == [(dice.SRC_HOST, SEED), (dice.SRC_HOST, bytes(16))]


def _crc_bitwise(data):
    crc = 0xFFFF
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def test_the_records_crc_is_the_polynomials_and_makes_no_garbage():
    """Every byte value, and a whole record, against a bit-by-bit CRC-16/CCITT-FALSE; on
    MicroPython checking a host part's record (its proof included) allocates nothing (a table
    of ints frozen into the firmware made ~57 bytes of garbage per byte on the board model)."""
    for v in range(256):
        assert record.crc16(bytes((v,))) == _crc_bitwise(bytes((v,))), v
    raw = record.encode(record.SEED_PART, (dice.SRC_HOST, "laptop", SEED, PROOF))
    assert record.crc16(raw, 0, len(raw) - 2) == _crc_bitwise(raw[:-2]) == raw[-2] << 8 | raw[-1]
    import gc

    if not hasattr(gc, "mem_alloc"):
        return  # CPython: no allocator to watch
    record.crc16(raw)  # anything made once at the first call
    gc.collect()
    gc.disable()
    try:
        a = gc.mem_alloc()
        record.crc16(raw)
        used = gc.mem_alloc() - a
    finally:
        gc.enable()
    assert used == 0, used
