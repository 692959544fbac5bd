"""Ed25519 signing (RFC 8032, 5.1.5-5.1.6): the host's half of ``bg.update.ed25519``.

Portable so the portable tests sign their bundles on MicroPython too; the board never loads
it (it only verifies). The host's ``gammon.release`` keeps the key files.

    >>> from bg.update.ed25519 import verify
    >>> verify(public_key(bytes(32)), b"m", sign(bytes(32), b"m"))
    True
"""

from bg.update.ed25519 import BASE, L, encode, scalarmult
from bg.update.sha512 import sha512


def _expand(seed):
    if len(seed) != 32:
        raise ValueError("an Ed25519 private key is 32 bytes")
    h = sha512(seed).digest()
    a = bytearray(h[:32])
    a[0] &= 248
    a[31] = (a[31] & 127) | 64
    return int.from_bytes(a, "little"), h[32:]


def public_key(seed):
    """The 32-byte public key of a 32-byte private seed."""
    a, _ = _expand(seed)
    return encode(scalarmult(BASE, a))


def sign(seed, msg):
    """The 64-byte Ed25519 signature of ``msg``."""
    a, prefix = _expand(seed)
    pub = encode(scalarmult(BASE, a))
    h = sha512(prefix)
    h.update(msg)
    r = int.from_bytes(h.digest(), "little") % L
    big_r = encode(scalarmult(BASE, r))
    h = sha512(big_r)
    h.update(pub)
    h.update(msg)
    k = int.from_bytes(h.digest(), "little") % L
    return big_r + ((r + k * a) % L).to_bytes(32, "little")


def bundle(version, files, seed, security):
    """The bundle (a bytearray) of ``files`` [(slot path, bytes)] with the security counter
    ``security``, signed with ``seed``."""
    import hashlib
    import struct

    from bg.update.bundle import MAGIC, manifest

    files = sorted(files)  # the manifest's order
    man = manifest(
        version, [(name, len(data), hashlib.sha256(data).digest()) for name, data in files], security
    )
    out = bytearray(6 + len(man) + 64 + sum(len(d) for _, d in files))  # one block, first
    sig = sign(seed, man)
    out[0:4] = MAGIC
    out[4:6] = struct.pack("<H", len(man))
    i = 6 + len(man)
    out[6:i] = man
    out[i : i + 64] = sig
    i += 64
    for _, data in files:
        out[i : i + len(data)] = data
        i += len(data)
    return out
