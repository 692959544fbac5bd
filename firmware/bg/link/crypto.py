"""Link crypto: HMAC-SHA-256, the session MAC, constant-time compare, the pairing's X25519
Diffie-Hellman (RFC 7748), its commitment, comparison value and key derivations, and the
authentication proofs (docs/protocol.md).

Portable. The host loads it only to pair and log in; the board only for a pairing or a login
(``bg.link.session`` drops it again after either). The session MAC, the sequence check and the
compare are ``bg.link.mac``'s, which the board keeps while a host is logged in; they are
re-exported here so that both ends have one API.

Example::

    >>> hmac_sha256(b"key", b"The quick brown fox jumps over the lazy dog").hex()[:16]
    'f7bc83f430538424'
"""

import hashlib

from micropython import const

from bg.link import PUB_LEN
from bg.link.mac import Mac, _xor_pad, check_seq, equal  # noqa: F401 - re-exported: one API

# X25519 (RFC 7748) on Curve25519: the pairing's ephemeral Diffie-Hellman, 32-byte values.
_P25519 = (1 << 255) - 19
_MASK255 = (1 << 255) - 1
_A24 = const(121665)


def hmac_sha256(key, msg):
    """HMAC-SHA-256 (RFC 2104) on ``hashlib.sha256``; MicroPython has no ``hmac`` module.

    >>> hmac_sha256(b"key", b"The quick brown fox jumps over the lazy dog").hex()[:16]
    'f7bc83f430538424'
    """
    h = hashlib.sha256(_xor_pad(key, 0x36))
    h.update(msg)
    o = hashlib.sha256(_xor_pad(key, 0x5C))
    o.update(h.digest())
    return o.digest()


def modexp(base, exp, mod):
    """``pow(base, exp, mod)``; square-and-multiply when the port lacks three-argument pow."""
    try:
        return pow(base, exp, mod)
    except (TypeError, NotImplementedError):
        r = 1
        base %= mod
        while exp:
            if exp & 1:
                r = r * base % mod
            base = base * base % mod
            exp >>= 1
        return r


def x25519(scalar, u):
    """RFC 7748 X25519: the 32-byte little-endian u-coordinate of ``scalar`` (32 bytes,
    clamped here) times the point ``u`` (32 bytes; the top bit is ignored).

    A Montgomery ladder of 255 identical steps on 255-bit ints (the swap is arithmetic, not a
    branch); the big-int temporaries are ~40 bytes each, so it fits a fragmented heap.
    """
    if len(scalar) != 32 or len(u) != 32:
        raise ValueError("X25519 values are 32 bytes")
    p = _P25519
    k = bytearray(scalar)
    k[0] &= 248
    k[31] = (k[31] & 127) | 64
    n = int.from_bytes(k, "little")
    x1 = int.from_bytes(u, "little") & _MASK255
    x2, z2, x3, z3 = 1, 0, x1, 1
    swap = 0
    for t in range(254, -1, -1):
        bit = (n >> t) & 1
        swap ^= bit
        d = swap * (x2 - x3)
        x2 -= d
        x3 += d
        d = swap * (z2 - z3)
        z2 -= d
        z3 += d
        swap = bit
        a = x2 + z2
        aa = a * a % p
        b = x2 - z2 + p
        bb = b * b % p
        e = aa - bb + p
        c = x3 + z3
        da = (x3 - z3 + p) * a % p
        cb = c * b % p
        x3 = (da + cb) * (da + cb) % p
        d = da - cb + p
        z3 = x1 * (d * d) % p  # one reduction of a 765-bit product: cheaper than two
        x2 = aa * bb % p
        z2 = e * (aa + _A24 * e) % p
    d = swap * (x2 - x3)
    x2 -= d
    d = swap * (z2 - z3)
    z2 -= d
    return (x2 * modexp(z2, p - 2, p) % p).to_bytes(32, "little")


_BASE = b"\x09" + bytes(31)


def dh_keypair(urandom):
    """An ephemeral X25519 (private 32 bytes, public 32 bytes) pair."""
    x = urandom(32)
    return x, x25519(x, _BASE)


def dh_shared(x, peer_pub):
    """The X25519 shared secret with ``peer_pub``; ValueError for a wrong length or a
    low-order public value (an all-zero result, RFC 7748 section 6.1)."""
    if len(peer_pub) != PUB_LEN:
        raise ValueError("bad public value")
    z = x25519(x, peer_pub)
    if z == bytes(32):
        raise ValueError("bad public value")
    return z


def pair_commit(host_id, host_pub, host_nonce):
    """The host's commitment to its public value and nonce (sent before it sees the board's)."""
    h = hashlib.sha256(b"gammon-pair-v2 commit")
    for part in (host_id, host_pub, host_nonce):
        h.update(part)
    return h.digest()


def pair_value(host_pub, board_pub, host_nonce, board_nonce):
    """The 6-digit comparison value both ends display (numeric comparison)."""
    h = hashlib.sha256(b"gammon-pair-v2 value")
    for part in (host_pub, board_pub, host_nonce, board_nonce):
        h.update(part)
    return "%06d" % (int.from_bytes(h.digest()[:8], "big") % 1000000)


def pair_transcript(host_id, name, host_pub, board_pub, host_nonce, board_nonce):
    """SHA-256 over everything both ends agreed on (the name as its UTF-8 bytes)."""
    h = hashlib.sha256(b"gammon-pair-v2")
    h.update(bytes([len(name)]))
    for part in (host_id, name, host_pub, board_pub, host_nonce, board_nonce):
        h.update(part)
    return h.digest()


def pair_keys(shared, transcript):
    """(host proof, board proof, long-term key) from the DH secret and the full transcript."""
    k0 = hmac_sha256(shared, transcript)
    return (
        hmac_sha256(k0, b"host"),
        hmac_sha256(k0, b"board"),
        hmac_sha256(k0, b"key"),
    )


def auth_proofs(key, host_id, host_nonce, board_nonce):
    """(host proof, board proof, session key) of a challenge-response authentication."""
    m = board_nonce + host_nonce + host_id
    return (
        hmac_sha256(key, b"auth-host" + m),
        hmac_sha256(key, b"auth-board" + m),
        hmac_sha256(key, b"session" + m),
    )


def code_from_random(urandom):
    """A uniformly random 6-digit code (rejection sampling, no modulo bias)."""
    while True:
        v = int.from_bytes(urandom(3), "big")
        if v < 16000000:
            return "%06d" % (v % 1000000)
