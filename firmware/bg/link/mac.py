"""The session MAC of a logged-in link: the tag with the key pads computed once, the 32-bit
sequence check and the constant-time compare (docs/protocol.md).

Portable. The board keeps only this part of the link's crypto while a host is logged in;
pairing and login (``bg.link.crypto``: X25519, the key derivations, HMAC) are imported for the
handshake and dropped after it, so a session does not hold their function objects (~0.4 kB on
the 32-bit board model, docs/memory.md).
"""

import hashlib

from bg.link import E_MAC, E_SEQ, MAC_LEN


def _xor_pad(key, pad):
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    b = bytearray(64)
    for i in range(64):
        b[i] = pad ^ (key[i] if i < len(key) else 0)
    return bytes(b)


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
