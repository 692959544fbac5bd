"""bg.link.crypto: HMAC against RFC 4231, the session MAC, Diffie-Hellman, pairing codes.

Runs unchanged under CPython and the MicroPython unix port.
"""

from bg.link import crypto
from link_fakes import Rand


def _h(s):
    return bytes.fromhex(s)


def test_hmac_rfc4231_case2():
    assert crypto.hmac_sha256(b"Jefe", b"what do ya want for nothing?") == _h(
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )


def test_hmac_rfc4231_case6_long_key():
    assert crypto.hmac_sha256(b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First") == _h(
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    )


def test_mac_class_matches_hmac():
    m = crypto.Mac(b"k" * 32)
    assert m.tag(b"H", b"123456", b"payload") == crypto.hmac_sha256(b"k" * 32, b"H123456payload")[:8]


def test_mac_covers_the_sequence_epoch_after_the_direction():
    m = crypto.Mac(b"k" * 32)
    want = crypto.hmac_sha256(b"k" * 32, b"H\x02\x01123456payload")[:8]
    assert m.tag(b"H", b"123456", b"payload", 0x0102) == want
    assert m.tag(b"H", b"123456", b"payload", 0) == m.tag(b"H", b"123456", b"payload")


def test_code_from_random_is_six_digits():
    r = Rand(b"c")
    codes = [crypto.code_from_random(r) for _ in range(50)]
    assert all(len(c) == 6 and c.isdigit() for c in codes)
    assert len(set(codes)) > 45


def test_x25519_rfc7748_section_5_2_vectors():
    assert crypto.x25519(
        _h("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
        _h("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"),
    ) == _h("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552")
    # the top bit of u is ignored (u is reduced to 255 bits)
    assert crypto.x25519(
        _h("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d"),
        _h("e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493"),
    ) == _h("95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957")
    # one iteration of the ladder test: k = u = 9
    nine = b"\x09" + bytes(31)
    assert crypto.x25519(nine, nine) == _h("422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079")


def test_x25519_rfc7748_section_6_1_diffie_hellman():
    a = _h("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
    b = _h("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
    a_pub = _h("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
    b_pub = _h("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
    k = _h("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
    assert crypto.x25519(a, b"\x09" + bytes(31)) == a_pub
    assert crypto.x25519(b, b"\x09" + bytes(31)) == b_pub
    assert crypto.dh_shared(a, b_pub) == k and crypto.dh_shared(b, a_pub) == k


def test_dh_agreement_and_degenerate_values_refused():
    r = Rand(b"dh")
    x1, p1 = crypto.dh_keypair(r)
    x2, p2 = crypto.dh_keypair(r)
    assert len(p1) == 32 and crypto.dh_shared(x1, p2) == crypto.dh_shared(x2, p1)
    # small-order points (all-zero secret) and wrong lengths
    for bad in (
        bytes(32),
        b"\x01" + bytes(31),
        _h("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
        bytes(31),
    ):
        try:
            crypto.dh_shared(x1, bad)
        except ValueError:
            continue
        raise AssertionError("degenerate public value accepted")


def test_equal_is_exact():
    assert crypto.equal(b"abc", b"abc")
    assert not crypto.equal(b"abc", b"abd") and not crypto.equal(b"abc", b"ab")


def test_pairing_and_auth_derivations_bind_every_input():
    base = crypto.pair_keys(b"z" * 32, b"t" * 32)
    assert len(set(base)) == 3
    assert crypto.pair_keys(b"y" * 32, b"t" * 32) != base
    assert crypto.pair_keys(b"z" * 32, b"u" * 32) != base
    parts = [b"I" * 8, b"laptop", b"X" * 32, b"Y" * 32, b"n" * 16, b"m" * 16]
    t = crypto.pair_transcript(*parts)
    v = crypto.pair_value(*parts[2:])
    assert len(v) == 6 and v.isdigit()
    for i in range(len(parts)):
        changed = list(parts)
        changed[i] = b"?" + parts[i][1:]
        assert crypto.pair_transcript(*changed) != t
        if i >= 2:
            assert crypto.pair_value(*changed[2:]) != v
    # the name's length is bound too: ("ab", "c...") and ("a", "bc...") differ
    assert crypto.pair_transcript(b"I" * 8, b"ab", b"c" + b"X" * 31, *parts[3:]) != crypto.pair_transcript(
        b"I" * 8, b"a", b"bc" + b"X" * 30, *parts[3:]
    )
    assert crypto.pair_commit(b"I" * 8, b"X" * 32, b"n" * 16) != crypto.pair_commit(
        b"I" * 8, b"X" * 32, b"o" + b"n" * 15
    )
    a = crypto.auth_proofs(b"k" * 32, b"HOST0001", b"n" * 16, b"b" * 16)
    assert crypto.auth_proofs(b"k" * 32, b"HOST0001", b"n" * 16, b"c" * 16) != a
    assert crypto.auth_proofs(b"k" * 32, b"HOST0002", b"n" * 16, b"b" * 16) != a


def test_modexp_fallback_matches_pow():
    assert crypto.modexp(3, 1000, 1000003) == pow(3, 1000, 1000003)
