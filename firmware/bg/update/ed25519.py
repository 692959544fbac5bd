"""Ed25519 signature verification (RFC 8032, section 5.1), for signed firmware bundles.

Portable. Points are kept in extended twisted-Edwards coordinates (X, Y, Z, T) over the same
field as the pairing's X25519 (2^255 - 19, ``bg.link.crypto``); inversion and square roots use
its ``modexp``. Verification is the cofactorless check ``encode([S]B - [k]A) == R`` with one
joint double-and-add over both scalars (Straus), about 255 doublings and 190 additions of
255-bit ints: run once per update, never in a hot loop.

The host's signer (``host_tools/gammon/release.py``) builds on the same functions
(``scalarmult``, ``encode``, ``BASE``) and adds nothing but the private-key half.

    >>> pub = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    >>> sig = bytes.fromhex(
    ...     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
    ...     "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
    >>> verify(pub, b"", sig)
    True
"""

from bg.link.crypto import modexp
from bg.update.sha512 import sha512

P = (1 << 255) - 19
L = (1 << 252) + 27742317777372353535851937790883648493  # the group order
_D = -121665 * modexp(121666, P - 2, P) % P
_D2 = 2 * _D % P
_SQRTM1 = modexp(2, (P - 1) // 4, P)


def _add(a, b):
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    c = t1 * _D2 * t2 % P
    d = 2 * z1 * z2 % P
    e = bb - aa
    f = d - c
    g = d + c
    h = bb + aa
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _double(a):
    x1, y1, z1, _ = a
    aa = x1 * x1 % P
    bb = y1 * y1 % P
    c = 2 * z1 * z1 % P
    h = aa + bb
    s = x1 + y1
    e = h - s * s % P
    g = aa - bb
    f = c + g
    return (e * f % P, g * h % P, f * g % P, e * h % P)


ZERO = (0, 1, 1, 0)


def _recover_x(y, sign):
    if y >= P:
        return None
    u = (y * y - 1) % P
    v = (_D * y * y + 1) % P
    # x = u v^3 (u v^7)^((p-5)/8)  (RFC 8032, 5.1.3)
    v3 = v * v % P * v % P
    x = u * v3 % P * modexp(u * v3 % P * v3 % P * v % P, (P - 5) // 8, P) % P
    vx2 = v * x % P * x % P
    if vx2 != u:
        if vx2 != (P - u) % P:
            return None
        x = x * _SQRTM1 % P
    if x == 0 and sign:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


def decode(b):
    """The point encoded by 32 bytes, or None when they encode none."""
    if len(b) != 32:
        return None
    y = int.from_bytes(b, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % P)


def encode(pt):
    """The 32-byte encoding of a point (y, with x's low bit on top)."""
    x, y, z, _ = pt
    zi = modexp(z, P - 2, P)
    x = x * zi % P
    y = y * zi % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


_GY = 4 * modexp(5, P - 2, P) % P
_GX = _recover_x(_GY, 0) or 0
BASE = (_GX, _GY, 1, _GX * _GY % P)


def scalarmult(pt, n):
    """``n`` times ``pt`` (double-and-add; for the host's signer, not constant time)."""
    q = ZERO
    for i in range(255, -1, -1):  # n < 2^256 (a clamped scalar or a value mod L)
        q = _double(q)
        if (n >> i) & 1:
            q = _add(q, pt)
    return q


def _joint(a, m, b, n):
    # m * a + n * b in one pass (Straus)
    ab = _add(a, b)
    q = ZERO
    for i in range(252, -1, -1):  # both scalars are below L < 2^253
        q = _double(q)
        bit = ((m >> i) & 1) | (((n >> i) & 1) << 1)
        if bit == 1:
            q = _add(q, a)
        elif bit == 2:
            q = _add(q, b)
        elif bit == 3:
            q = _add(q, ab)
    return q


def challenge(r, pub, msg):
    """k = SHA-512(R || A || M) mod L."""
    h = sha512(r)
    h.update(pub)
    h.update(msg)
    return int.from_bytes(h.digest(), "little") % L


def verify(pub, msg, sig):
    """True when ``sig`` (64 bytes) is a valid Ed25519 signature of ``msg`` by ``pub``
    (32 bytes). Any malformed input is simply False."""
    if len(pub) != 32 or len(sig) != 64:
        return False
    a = decode(pub)
    if a is None:
        return False
    r = bytes(sig[:32])
    s = int.from_bytes(sig[32:], "little")
    if s >= L:  # RFC 8032: reject a non-canonical S (signature malleability)
        return False
    k = challenge(r, pub, msg)
    neg_a = ((P - a[0]) % P, a[1], a[2], (P - a[3]) % P)
    return encode(_joint(BASE, s, neg_a, k)) == r
