"""The firmware bundle: its manifest, its signature, the release key (docs/update.md).

Portable. A bundle (docs/update.md) is a header, a signed manifest and the files::

    0  magic      b"GBD1"
    4  mlen       u16   manifest length (at most MAX_MANIFEST)
    6  manifest   mlen bytes, signed:
                    b"GFW2", security counter u32, version (u8 length + ASCII, 1..16 bytes),
                    file count u16, per file: name (u8 length + path), size u32, SHA-256
       signature  64 bytes: Ed25519 (RFC 8032) of the manifest by the release key
       files      their bytes, in manifest order, back to back

The board takes a bundle only when the manifest's signature verifies with ``RELEASE_PUB``
(whatever host sends it), every file's bytes hash to the manifest's SHA-256 and its security
counter is not below the board's confirmed one (``bg.update.boot.confirmed``: updates only go
forward).
``bg.update.ed25519`` verifies, ``bg.update.slots`` stores a bundle beside the running
firmware, ``bg.update.boot`` chooses the slot at boot.

    >>> m = manifest("1.2.0", [("bg/x.mpy", 3, bytes(32))], 7)
    >>> parse_manifest(m), [e[:2] for e in entries(m)], counter(m)
    (('1.2.0', 1, 3), [('bg/x.mpy', 3)], 7)
"""

import hashlib
import struct

from micropython import const

# The release key's public half: the only key whose bundles a board installs. Its private
# half is never in this repository (docs/update.md: key handling). One place: everything
# else imports it from here.
RELEASE_PUB = bytes.fromhex("a8f69e308b5e2e3f5c0d6eb97509801dafd72f7bc88a851cad63258a9018cbf0")

MAGIC = b"GBD1"
MANIFEST_MAGIC = b"GFW2"
HEAD = const(6)  # magic + mlen
COUNTER_END = const(14)  # the security counter is the bundle's bytes 10..13 (the manifest's 4..7)
MAX_COUNTER = const(0x3FFFFFFF)  # a small int on the board
SIG_LEN = const(64)
MAX_MANIFEST = const(8192)  # a full firmware: ~3.7 kB for 67 files
MAX_FILES = const(255)
MAX_FILE = const(262144)
# A whole firmware is a new app image (MicroPython with the firmware frozen in), written into the
# ESP32's other OTA app partition as it arrives (bg.update.slots): the one file allowed past
# MAX_FILE, bounded by the app partition (ota_0/ota_1 of 0x180000 bytes, docs/update.md), and
# alone in its bundle.
APP = "fw.app"
MAX_APP = const(0x180000)
MAX_VERSION = const(16)
_SUFFIXES = (".mpy", ".py", ".json", ".app")
_NAME_OK = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./"


def check_name(name):
    """A file's path inside a slot: relative, ``/``-separated, no ``.``/``..`` parts, only
    letters, digits, ``_-./``, ending .mpy, .py, .json or .app (a whole firmware's app image,
    ``APP``; a ROM image, .romfs, was the retired way to ship one); ValueError otherwise."""
    if not 1 <= len(name) <= 64:
        raise ValueError("file name length")
    for c in name.encode():
        if c not in _NAME_OK:
            raise ValueError("bad character in a file name")
    for part in name.split("/"):
        if part in ("", ".", ".."):
            raise ValueError("bad path in a file name")
    if name[0] == "." or not name.endswith(_SUFFIXES):
        raise ValueError("not a firmware file: " + name)
    return name


def manifest(version, files, security):
    """The manifest bytes of ``version``, ``files`` [(name, size, sha256)] and the security
    counter ``security`` (host side); the files go in name order (the board refuses any
    other: no name twice)."""
    if not 0 <= security <= MAX_COUNTER:
        raise ValueError("security counter out of range")
    files = sorted(files)
    v = version.encode()
    out = bytearray(MANIFEST_MAGIC) + struct.pack("<I", security) + bytes([len(v)]) + v
    out += struct.pack("<H", len(files))
    for name, size, digest in files:
        n = check_name(name).encode()
        out += bytes([len(n)]) + n + struct.pack("<I", size) + digest
    parse_manifest(out)  # what the board would refuse, the host refuses too
    return bytes(out)


def parse_manifest(m):
    """(version, file count, total size of the files) of manifest bytes (or a memoryview);
    ValueError for anything malformed. The entries are read by ``entries`` one at a time:
    a whole firmware's (67 files) would cost ~9 kB of heap as a list."""
    if len(m) > MAX_MANIFEST or bytes(m[:4]) != MANIFEST_MAGIC:
        raise ValueError("not a firmware manifest")
    try:
        if counter(m) > MAX_COUNTER:
            raise ValueError("bad security counter")
        n = m[8]
        if not 1 <= n <= MAX_VERSION:
            raise ValueError("bad version")
        version = bytes(m[9 : 9 + n]).decode()
        i = 9 + n
        count = m[i] | (m[i + 1] << 8)
        i += 2
        if not 1 <= count <= MAX_FILES:
            raise ValueError("bad file count")
        total = 0
        prev = b""
        for _ in range(count):
            k = m[i]
            raw = bytes(m[i + 1 : i + 1 + k])
            name = check_name(raw.decode())
            if raw <= prev:  # in name order, so never a name twice
                raise ValueError("a file twice or out of order: " + name)
            prev = raw
            i += 1 + k
            if i + 36 > len(m):
                raise ValueError("manifest cut short")
            size = struct.unpack_from("<I", m, i)[0]
            i += 36
            if not 0 < size <= (MAX_APP if name == APP else MAX_FILE):
                raise ValueError("bad file size: " + name)
            if name == APP and count != 1:
                raise ValueError("an app image travels alone")
            total += size
    except (IndexError, UnicodeError):
        raise ValueError("manifest cut short") from None
    if i != len(m):
        raise ValueError("bytes after the manifest")
    return version, count, total


def counter(m):
    """The security counter of manifest bytes: a release that fixes a flaw raises it, and a
    board never installs a bundle below the counter of the last one it confirmed."""
    if len(m) < 8:
        raise ValueError("manifest cut short")
    return struct.unpack_from("<I", m, 4)[0]


def entries(m):
    """Each file of a manifest ``parse_manifest`` accepted: (name, size, sha256), in order."""
    i = 9 + m[8]
    count = m[i] | (m[i + 1] << 8)
    i += 2
    for _ in range(count):
        k = m[i]
        name = bytes(m[i + 1 : i + 1 + k]).decode()
        i += 1 + k
        yield name, struct.unpack_from("<I", m, i)[0], bytes(m[i + 4 : i + 36])
        i += 36


def split_header(head):
    """(manifest, signature) of a bundle's first ``HEAD + mlen + SIG_LEN`` bytes;
    ValueError when they are no bundle header."""
    if len(head) < HEAD or bytes(head[:4]) != MAGIC:
        raise ValueError("not a firmware bundle")
    n = header_len(head)
    if len(head) != n:
        raise ValueError("bundle header cut short")
    return bytes(head[HEAD : n - SIG_LEN]), bytes(head[n - SIG_LEN : n])


def header_len(head):
    """The header's full length from its first HEAD bytes (magic, manifest length)."""
    mlen = head[4] | (head[5] << 8)
    if mlen > MAX_MANIFEST:
        raise ValueError("manifest too long")
    return HEAD + mlen + SIG_LEN


def bundle_id(head):
    """The id a host and the board name an update by: SHA-256 of the bundle's header."""
    return hashlib.sha256(head).digest()


def check_signature(man, sig, pub=RELEASE_PUB):
    """ValueError unless ``sig`` is the release key's signature of ``man``."""
    from bg.update.ed25519 import verify

    if not verify(pub, man, sig):
        raise ValueError("bad signature: not a release of this board's key")
