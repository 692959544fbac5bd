"""bg.link.crypto: HMAC against RFC 4231, the session MAC, Diffie-Hellman, pairing codes.

Runs unchanged under CPython and the MicroPython unix port.
"""

from bg.link import crypto as C
from link_fakes import Rand


def _h(s):
    return bytes.fromhex(s)


def test_hmac_rfc4231_case2():
    assert C.hmac_sha256(b"Jefe", b"what do ya want for nothing?") == _h(
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )


def test_hmac_rfc4231_case6_long_key():
    assert C.hmac_sha256(b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First") == _h(
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    )


def test_mac_class_matches_hmac():
    m = C.Mac(b"k" * 32)
    assert m.tag(b"H", b"123456", b"payload") == C.hmac_sha256(b"k" * 32, b"H123456payload")[:8]


def test_mac_covers_the_sequence_epoch_after_the_direction():
    m = C.Mac(b"k" * 32)
    want = C.hmac_sha256(b"k" * 32, b"H\x02\x01123456payload")[:8]
    assert m.tag(b"H", b"123456", b"payload", 0x0102) == want
    assert m.tag(b"H", b"123456", b"payload", 0) == m.tag(b"H", b"123456", b"payload")


def test_code_from_random_is_six_digits():
    r = Rand(b"c")
    codes = [C.code_from_random(r) for _ in range(50)]
    assert all(len(c) == 6 and c.isdigit() for c in codes)
    assert len(set(codes)) > 45


def test_dh_agreement():
    r = Rand(b"dh")
    x1, p1 = C.dh_keypair(r)
    x2, p2 = C.dh_keypair(r)
    assert C.dh_shared(x1, p2) == C.dh_shared(x2, p1)
    for bad in (bytes(256), b"\x00" * 255 + b"\x01", C.DH_P.to_bytes(256, "big")):
        try:
            C.dh_shared(x1, bad)
        except ValueError:
            continue
        raise AssertionError("degenerate public value accepted")


def test_equal_is_exact():
    assert C.equal(b"abc", b"abc")
    assert not C.equal(b"abc", b"abd") and not C.equal(b"abc", b"ab")


def test_pairing_and_auth_derivations_bind_every_input():
    base = C.pair_keys(b"z" * 256, b"t" * 32, "123456")
    assert len(set(base)) == 3
    assert C.pair_keys(b"z" * 256, b"t" * 32, "123457") != base
    assert C.pair_keys(b"z" * 256, b"u" * 32, "123456") != base
    a = C.auth_proofs(b"k" * 32, b"HOST0001", b"n" * 16, b"b" * 16)
    assert C.auth_proofs(b"k" * 32, b"HOST0001", b"n" * 16, b"c" * 16) != a
    assert C.auth_proofs(b"k" * 32, b"HOST0002", b"n" * 16, b"b" * 16) != a


def test_modexp_fallback_matches_pow():
    assert C.modexp(3, 1000, 1000003) == pow(3, 1000, 1000003)
