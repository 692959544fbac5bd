"""SHA-512 (FIPS 180-4), which Ed25519 hashes with; MicroPython's ``hashlib`` has only SHA-256.

Portable. ``sha512(data)`` is ``hashlib.sha512`` where the port has it (CPython) and this
implementation elsewhere. It is run once per firmware update, on the signed manifest (a few
kilobytes), so it favours small code over speed: the 64-bit words are ints (big ints on a
32-bit port, a few small allocations per round).

    >>> sha512(b"abc").hex()[:16]
    'ddaf35a193617aba'
"""

import hashlib
import struct

_M = 0xFFFFFFFFFFFFFFFF

_K = None  # the 80 round constants, built on first use (fractional parts of cube roots)


def _bits(n):
    # an upper bound of n's bit length (MicroPython's int has no bit_length)
    return len("%x" % n) * 4


def _icbrt(n):
    # integer cube root (floor) by Newton's method, from above
    x = 1 << ((_bits(n) + 2) // 3)
    while True:
        y = (2 * x + n // (x * x)) // 3
        if y >= x:
            return x
        x = y


def _isqrt(n):
    x = 1 << ((_bits(n) + 1) // 2)
    while True:
        y = (x + n // x) // 2
        if y >= x:
            return x
        x = y


def _primes(n):
    out = []
    c = 2
    while len(out) < n:
        ok = True
        for q in out:
            if q * q > c:
                break
            if c % q == 0:
                ok = False
                break
        if ok:
            out.append(c)
        c += 1
    return out


def _frac(root, p, e):
    # the first 64 bits of the fractional part of p ** (1/e)
    r = root(p << (64 * e))
    return r & _M


def _consts():
    global _K
    if _K is None:
        ps = _primes(80)
        _K = [_frac(_icbrt, p, 3) for p in ps]
    return _K


def _iv():
    return [_frac(_isqrt, p, 2) for p in _primes(8)]


def _rotr(x, n):
    return ((x >> n) | (x << (64 - n))) & _M


def _block(h, blk, w):
    k = _consts()
    for i in range(16):
        w[i] = struct.unpack_from(">Q", blk, i * 8)[0]
    for i in range(16, 80):
        a = w[i - 15]
        b = w[i - 2]
        s0 = _rotr(a, 1) ^ _rotr(a, 8) ^ (a >> 7)
        s1 = _rotr(b, 19) ^ _rotr(b, 61) ^ (b >> 6)
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) & _M
    a, b, c, d, e, f, g, hh = h
    for i in range(80):
        t1 = (hh + (_rotr(e, 14) ^ _rotr(e, 18) ^ _rotr(e, 41)) + ((e & f) ^ (~e & g)) + k[i] + w[i]) & _M
        t2 = ((_rotr(a, 28) ^ _rotr(a, 34) ^ _rotr(a, 39)) + ((a & b) ^ (a & c) ^ (b & c))) & _M
        hh = g
        g = f
        f = e
        e = (d + t1) & _M
        d = c
        c = b
        b = a
        a = (t1 + t2) & _M
    for i, v in enumerate((a, b, c, d, e, f, g, hh)):
        h[i] = (h[i] + v) & _M


class Sha512:
    """Incremental SHA-512: ``update(data)`` then ``digest()`` (64 bytes), as ``hashlib``.
    Whole blocks are hashed where they lie in ``data`` (no copy of a long message)."""

    def __init__(self, data=b""):
        self._h = _iv()
        self._buf = bytearray(128)
        self._k = 0  # bytes waiting in _buf
        self._n = 0
        self._w = [0] * 80
        if data:
            self.update(data)

    def update(self, data):
        n = len(data)
        self._n += n
        i = 0
        buf = self._buf
        if self._k:
            t = 128 - self._k
            if t > n:
                t = n
            buf[self._k : self._k + t] = data[:t]
            self._k += t
            i = t
            if self._k < 128:
                return
            _block(self._h, buf, self._w)
            self._k = 0
        mv = memoryview(data)
        while n - i >= 128:
            _block(self._h, mv[i : i + 128], self._w)
            i += 128
        if i < n:
            buf[: n - i] = data[i:]
            self._k = n - i

    def digest(self):
        n = self._n
        tail = bytearray(self._buf[: self._k])
        tail.append(0x80)
        while len(tail) % 128 != 112:
            tail.append(0)
        tail += struct.pack(">QQ", (n * 8) >> 64, (n * 8) & _M)
        h = list(self._h)
        for i in range(0, len(tail), 128):
            _block(h, tail[i : i + 128], self._w)
        return b"".join(struct.pack(">Q", v) for v in h)


def sha512(data=b""):
    """A SHA-512 hash object (``update``, ``digest``) over ``data``."""
    f = getattr(hashlib, "sha512", None)
    if f is not None:
        return f(data)
    return Sha512(data)
