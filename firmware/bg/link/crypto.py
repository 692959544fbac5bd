"""Link crypto: HMAC-SHA-256, the session MAC, constant-time compare, the pairing
Diffie-Hellman and the key derivations of pairing and authentication (docs/protocol.md).

Portable. The host loads it only to pair and log in; the board only once a host connects.

Example::

    >>> hmac_sha256(b"key", b"The quick brown fox jumps over the lazy dog").hex()[:16]
    'f7bc83f430538424'
"""

import hashlib

from micropython import const

from bg.link import E_MAC, E_SEQ, MAC_LEN, PUB_LEN

# RFC 3526 group 14 (2048-bit MODP), generator 2: ephemeral Diffie-Hellman during pairing so
# a passive eavesdropper of the pairing exchange learns nothing about the key.
DH_P = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
    "15728E5A8AACAA68FFFFFFFFFFFFFFFF",
    16,
)
DH_G = const(2)


def _xor_pad(key, pad):
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    b = bytearray(64)
    for i in range(64):
        b[i] = pad ^ (key[i] if i < len(key) else 0)
    return bytes(b)


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


class Mac:
    """A session MAC with the key pads computed once (one per session and direction)."""

    def __init__(self, key):
        self._i = _xor_pad(key, 0x36)
        self._o = _xor_pad(key, 0x5C)

    def tag(self, direction, header, payload, epoch=0):
        """8-byte tag over ``direction`` (b"H" host->board, b"B" board->host), the six header
        bytes after sync, and the payload. ``epoch`` is the high half of the 32-bit session
        sequence number (the header carries the low 16 bits); it is MAC'd as two more bytes
        (little-endian) after ``direction`` when it is not 0, so the first 65,535 frames of a
        session are tagged exactly as before the counter was widened."""
        h = hashlib.sha256(self._i)
        h.update(direction)
        if epoch:
            h.update(bytes((epoch & 0xFF, epoch >> 8)))
        h.update(header)
        h.update(payload)
        o = hashlib.sha256(self._o)
        o.update(h.digest())
        return o.digest()[:MAC_LEN]


def check_seq(mac, direction, fr, last):
    """The full 32-bit sequence number of the authenticated frame ``fr`` (a
    ``bg.link.Frame``) received after ``last``, or ``-E_MAC`` (missing or wrong MAC) or
    ``-E_SEQ`` (a replayed or reordered frame of this epoch).

    The header carries the low 16 bits; the high 16 bits (the epoch) are implicit and MAC'd
    (``Mac.tag``). A frame whose low bits are not above ``last``'s belongs to the next epoch
    if its MAC says so: the counter runs past 65,535 without a wrap, and a frame captured in
    an earlier epoch fails the MAC in a later one (refused, never accepted as new)."""
    got = fr.mac
    if got is None:
        return -E_MAC
    hi = last >> 16
    low = last & 0xFFFF
    if equal(mac.tag(direction, fr.header, fr.payload, hi), got):
        if fr.seq <= low:
            return -E_SEQ
        return (hi << 16) | fr.seq
    if fr.seq <= low and hi < 0xFFFF and equal(mac.tag(direction, fr.header, fr.payload, hi + 1), got):
        return ((hi + 1) << 16) | fr.seq
    return -E_MAC


def equal(a, b):
    """Constant-time comparison of two byte strings (no early exit on the first difference)."""
    if len(a) != len(b):
        return False
    r = 0
    for i in range(len(a)):
        r |= a[i] ^ b[i]
    return r == 0


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


def dh_keypair(urandom):
    """An ephemeral (private int, 256-byte public value) pair."""
    x = int.from_bytes(urandom(32), "big") | (1 << 255)
    return x, modexp(DH_G, x, DH_P).to_bytes(PUB_LEN, "big")


def dh_shared(x, peer_pub):
    """The shared secret with ``peer_pub``; ValueError for a degenerate public value."""
    y = int.from_bytes(peer_pub, "big")
    if len(peer_pub) != PUB_LEN or y < 2 or y > DH_P - 2:
        raise ValueError("bad public value")
    return modexp(y, x, DH_P).to_bytes(PUB_LEN, "big")


def pair_transcript(host_id, host_nonce, board_nonce, host_pub, board_pub):
    h = hashlib.sha256(b"gammon-pair-v1")
    for part in (host_id, host_nonce, board_nonce, host_pub, board_pub):
        h.update(part)
    return h.digest()


def pair_keys(shared, transcript, code):
    """(host proof, board proof, long-term key) from the DH secret, transcript and code.

    ``code`` is the 6-digit decimal string the board displayed."""
    k0 = hmac_sha256(shared, transcript)
    c = code.encode() if isinstance(code, str) else bytes(code)
    return (
        hmac_sha256(k0, b"host" + c),
        hmac_sha256(k0, b"board" + c),
        hmac_sha256(k0, b"key" + c),
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
