"""bg.dice: HMAC on hashlib, the face mapping, frozen derivation vectors, seeds and secrets.

Runs unchanged under CPython and the MicroPython unix port (64k heap).
"""

from bg import dice


def _h(s):
    return bytes.fromhex(s)


def _raises(fn, *args):
    try:
        fn(*args)
    except ValueError:
        return True
    return False


# HMAC-SHA-256 against RFC 4231 ---------------------------------------------------------


def test_hmac_rfc4231_case1():
    assert dice.hmac_sha256(b"\x0b" * 20, b"Hi There") == _h(
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    )


def test_hmac_rfc4231_case2_short_key():
    assert dice.hmac_sha256(b"Jefe", b"what do ya want for nothing?") == _h(
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )


def test_hmac_rfc4231_case3():
    assert dice.hmac_sha256(b"\xaa" * 20, b"\xdd" * 50) == _h(
        "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
    )


def test_hmac_rfc4231_case4():
    key = bytes(range(1, 26))
    assert dice.hmac_sha256(key, b"\xcd" * 50) == _h(
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
    )


def test_hmac_rfc4231_case5_truncated():
    out = dice.hmac_sha256(b"\x0c" * 20, b"Test With Truncation")
    assert out[:16] == _h("a3b6167473100ee06e0c796c2955552b")


def test_hmac_rfc4231_case6_long_key():
    msg = b"Test Using Larger Than Block-Size Key - Hash Key First"
    assert dice.hmac_sha256(b"\xaa" * 131, msg) == _h(
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    )


def test_hmac_rfc4231_case7_long_key_long_data():
    msg = (
        b"This is a test using a larger than block-size key and a larger than block-size data."
        b" The key needs to be hashed before being used by the HMAC algorithm."
    )
    assert dice.hmac_sha256(b"\xaa" * 131, msg) == _h(
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
    )


# The face mapping: exhaustive over all 256 byte values ---------------------------------


def test_face_mapping_uniform_over_all_bytes():
    counts = [0] * 7  # index 0 = rejected
    for b in range(256):
        counts[dice.face_from_byte(b)] += 1
    assert counts[1:] == [42] * 6
    assert counts[0] == 4


def test_rejection_is_exactly_the_top_four_bytes():
    for b in range(256):
        rejected = dice.face_from_byte(b) == 0
        assert rejected == (b >= 252), b


def test_faces_from_bytes_matches_mapping_byte_by_byte():
    out = bytearray(1)
    for b in range(256):
        out[0] = 0
        n = dice.faces_from_bytes(bytes([b]), out, 0)
        if b >= 252:
            assert n == 0 and out[0] == 0
        else:
            assert n == 1 and out[0] == b % 6 + 1


def test_faces_from_bytes_skips_rejected_and_stops_when_full():
    out = bytearray(2)
    n = dice.faces_from_bytes(bytes([255, 252, 5, 253, 6, 0, 0]), out, 0)
    assert n == 2 and list(out) == [6, 1]
    # resume filling from a later block
    out = bytearray(2)
    assert dice.faces_from_bytes(bytes([254, 7]), out, 0) == 1
    assert dice.faces_from_bytes(bytes([255, 11]), out, 1) == 2
    assert list(out) == [2, 6]


def test_every_derived_byte_pair_maps_uniformly():
    # The two faces of a throw come from two accepted bytes; over all 252*252 accepted
    # pairs each of the 36 ordered outcomes appears exactly 42*42 times.
    per_face = [0] * 7
    for b in range(252):
        per_face[dice.face_from_byte(b)] += 1
    for a in range(1, 7):
        for c in range(1, 7):
            assert per_face[a] * per_face[c] == 42 * 42


# Frozen derivation vectors (computed once with this module, checked on both interpreters,
# cross-checked against CPython's hmac module in tests/host/test_dice_stats.py) -------------

MID = _h("0123456789abcdef")
SEED = bytes(range(32))


def test_commitment_vectors():
    assert dice.commitment(bytes(8), bytes(32)) == _h(
        "c35b2153e14b000b341484adc7e0b30b85a1e88a401944567bca1524379022c4"
    )
    assert dice.commitment(MID, SEED) == _h(
        "9d23fbc610e54111ddd2ae69971119d1e64c9cc31aa354ded87798df0ebf32e1"
    )


def test_player_seed_vectors():
    ps = dice.player_seed_from_text("correct horse battery staple")
    assert ps == _h("16f4511ff9e5b843846f48d513dd8814")
    assert dice.player_seed_from_text("") == _h("331ce4d24c84f640dddbb2fcf1b7f6f0")


def test_derivation_block_layout():
    ps = _h("16f4511ff9e5b843846f48d513dd8814")
    block = dice.hmac_sha256(SEED, MID + ps + bytes(4))
    assert block == _h("e0374351b264b92afd19ef8ebb9ea8d84919f5c0bf4dcd041ad6249ad31c68f5")
    # 0xe0 = 224 -> 224 % 6 + 1 = 3; 0x37 = 55 -> 2
    assert dice.derive_rolls(MID, SEED, ps, 1) == [(3, 2)]


def test_derivation_vectors_zero_seed_no_player_seed():
    assert dice.derive_rolls(bytes(8), bytes(32), None, 12) == [
        (2, 4),
        (6, 2),
        (1, 6),
        (3, 1),
        (6, 1),
        (1, 4),
        (3, 6),
        (1, 5),
        (2, 6),
        (2, 5),
        (3, 3),
        (5, 5),
    ]
    # "no player seed" is the same as sixteen zero bytes
    assert dice.derive_rolls(bytes(8), bytes(32), bytes(16), 3) == [(2, 4), (6, 2), (1, 6)]


def test_derivation_vectors_with_player_seed():
    ps = _h("16f4511ff9e5b843846f48d513dd8814")
    assert dice.derive_rolls(MID, SEED, ps, 12) == [
        (3, 2),
        (1, 6),
        (2, 6),
        (1, 6),
        (3, 4),
        (6, 1),
        (3, 6),
        (3, 5),
        (4, 1),
        (1, 6),
        (2, 2),
        (1, 2),
    ]
    s = dice.DiceStream(MID, SEED, ps)
    assert list(s.derive(1000)) == [5, 4]
    assert list(s.derive(0xFFFFFFFF)) == [3, 6]
    assert _raises(s.derive, 0x100000000)
    assert _raises(s.derive, -1)


def test_derive_is_pure_in_the_counter():
    s = dice.DiceStream(MID, SEED)
    a = list(s.derive(7))
    s.derive(3)
    assert list(s.derive(7)) == a


def test_exhausted_block_chains_to_hmac_of_the_block():
    # A first block of rejected bytes (never seen in practice, p ~ 1e-54) must continue with
    # HMAC(seed, block) as docs/dice.md says. Fake the first block to take that path.
    real = dice._hmac_pads
    calls = []

    def fake(ipad, opad, msg):
        calls.append(bytes(msg))
        if len(calls) == 1:
            return b"\xff" * 31 + b"\x03"  # only one accepted byte: face 4
        return real(ipad, opad, msg)

    dice._hmac_pads = fake
    try:
        d = list(dice.DiceStream(MID, SEED).derive(0))
    finally:
        dice._hmac_pads = real
    assert len(calls) == 2
    assert calls[1] == b"\xff" * 31 + b"\x03"
    second = dice.hmac_sha256(SEED, calls[1])
    first_face = 0
    for b in second:
        if b < 252:
            first_face = b % 6 + 1
            break
    assert d == [4, first_face]


def test_bad_lengths_are_refused():
    assert _raises(dice.DiceStream, bytes(7), SEED)
    assert _raises(dice.DiceStream, MID, bytes(31))
    assert _raises(dice.DiceStream, MID, SEED, bytes(15))
    assert _raises(dice.commitment, MID, b"short")
    assert _raises(dice.DiceStream, "notbytes8", SEED)
