"""Ed25519 verification (RFC 8032 section 7.1 vectors), SHA-512, and the manifest's checks:
what a forged, altered or malformed release must never pass."""

# Runs at the default 64k on both interpreters: passes at every heap from 48k to 128k on the
# 64-bit port (ROM image) since SHA-512's constants are byte literals in flash (before, its 80
# big ints made the need non-monotonic: 160k was declared).

import gc

gc.collect()
from bg.update import ed25519 as E  # noqa: E402
from bg.update.bundle import manifest, parse_manifest  # noqa: E402
from bg.update.sha512 import Sha512  # noqa: E402

# RFC 8032, 7.1: TEST 1, 2, 3 (secret key, public key, message, signature)
VECTORS = (
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
        "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
)
SECRETS = (
    "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
)


def _v(i):
    pub, msg, sig = VECTORS[i]
    return bytes.fromhex(pub), bytes.fromhex(msg), bytes.fromhex(sig)


def test_rfc8032_vectors_verify():
    for i in range(3):
        pub, msg, sig = _v(i)
        assert E.verify(pub, msg, sig), i


def test_rfc8032_signer_reproduces_the_vectors():
    from bg.update.sign import public_key, sign

    for i in range(3):
        pub, msg, sig = _v(i)
        seed = bytes.fromhex(SECRETS[i])
        assert public_key(seed) == pub
        assert sign(seed, msg) == sig


def test_any_change_fails():
    pub, msg, sig = _v(2)
    assert not E.verify(pub, msg + b"\x00", sig)  # longer message
    assert not E.verify(pub, b"\xaf\x83", sig)  # one bit of the message
    for at in (0, 31, 32, 63):  # a bit of R, of S
        bad = bytearray(sig)
        bad[at] ^= 1
        assert not E.verify(pub, msg, bytes(bad)), at
    assert not E.verify(_v(1)[0], msg, sig)  # another key
    assert not E.verify(pub, msg, sig[:63])  # short
    assert not E.verify(pub[:31], msg, sig)
    assert not E.verify(b"\xff" * 32, msg, sig)  # no point at all


def test_non_canonical_s_refused():
    # S + L verifies the same equation; RFC 8032 requires S < L (no malleable twin)
    pub, msg, sig = _v(0)
    s = int.from_bytes(sig[32:], "little") + E.L
    assert not E.verify(pub, msg, sig[:32] + s.to_bytes(32, "little"))


def test_sha512_fips_vectors():
    assert Sha512(b"abc").digest().hex() == (
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
    )
    assert Sha512(b"").digest().hex()[:32] == "cf83e1357eefb8bdf1542850d66d8007"
    # two blocks, fed in uneven pieces
    msg = b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno" + (
        b"ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
    )
    h = Sha512()
    h.update(msg[:5])
    h.update(msg[5:])
    assert h.digest().hex()[:32] == "8e959b75dae313da8cf4f72814fc143f"


def test_manifest_refuses_what_would_escape_or_lie():
    d = bytes(32)
    bads = ("../main.py", "/boot.py", "bg/../../x.mpy", "bg//x.mpy", ".bundle", "bg/x.txt", "b g.mpy", "")
    for bad in bads:
        try:
            manifest("1.0", [(bad, 3, d)], 1)
        except ValueError:
            continue
        raise AssertionError(bad)
    m = manifest("1.0", [("bg/a.mpy", 3, d), ("app/b.mpy", 5, d)], 1)
    assert parse_manifest(m)[2] == 8
    for cut in (5, len(m) - 1):
        try:
            parse_manifest(m[:cut])
        except ValueError:
            continue
        raise AssertionError(cut)
    for bad in (m + b"\x00", b"GFW1" + m[4:]):
        try:
            parse_manifest(bad)
        except ValueError:
            continue
        raise AssertionError(bad[:8])
    try:
        manifest("1.0", [("bg/a.mpy", 3, d), ("bg/a.mpy", 3, d)], 1)
    except ValueError as e:
        assert "twice" in str(e)
    else:
        raise AssertionError("duplicate accepted")
    try:
        manifest("1.0", [("bg/a.mpy", 0, d)], 1)
    except ValueError:
        pass
    else:
        raise AssertionError("empty file accepted")
