"""Release bundles on the host: Ed25519 keys and signatures, and bundle files (docs/update.md).

The signer is RFC 8032's, on the firmware's own point arithmetic (``bg.update.sign`` on
``bg.update.ed25519``): the venv has no ``cryptography`` package, and one implementation of the
curve serves both ends.
A private key is the RFC's 32-byte seed, kept in a file as 64 hex digits (``write_key``);
it never enters the repository.

    >>> seed = bytes(32)
    >>> sig = sign(seed, b"m")
    >>> from bg.update.ed25519 import verify
    >>> verify(public_key(seed), b"m", sig)
    True
"""

import os
import struct
from pathlib import Path

from bg.update.bundle import HEAD, MAGIC, entries, parse_manifest, split_header
from bg.update.sign import bundle, public_key, sign  # noqa: F401 - re-exported


def new_key():
    return os.urandom(32)


def write_key(path, seed):
    """Write a private key file (hex, mode 0600)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(seed.hex() + "\n")


def read_key(path):
    """The 32-byte seed in a key file; ValueError with the file's name when it is none."""
    try:
        raw = bytes.fromhex(Path(path).read_text().strip())
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise ValueError("%s: not a release key (64 hex digits)" % path)
    return raw


def build_bundle(version, files, seed, security):
    """The bundle bytes of ``files`` [(slot path, bytes)] with the security counter
    ``security`` (``bg.update.boot.COUNTER`` of the firmware built), signed with ``seed``."""
    return bytes(bundle(version, files, seed, security))


def read_bundle(blob):
    """(header bytes, version, [(name, size, sha256)], total length) of a bundle's bytes;
    ValueError when it is malformed or its length does not match its manifest."""
    if len(blob) < HEAD or blob[:4] != MAGIC:
        raise ValueError("not a firmware bundle")
    mlen = struct.unpack("<H", blob[4:6])[0]
    head = blob[: HEAD + mlen + 64]
    man, _sig = split_header(head)
    version, _count, total = parse_manifest(man)
    files = list(entries(man))
    if len(blob) != len(head) + total:
        raise ValueError("bundle is %d bytes, its manifest says %d" % (len(blob), len(head) + total))
    return head, version, files, len(blob)
