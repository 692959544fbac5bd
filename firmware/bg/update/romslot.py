"""A whole firmware's ROM image copied into the board's ROM partition, and checked there.

Portable. ``dev`` is the partition as MicroPython 1.25's ESP32 port hands it out through
``vfs.rom_ioctl(2, 0)`` (an ``esp32.Partition``; ``hal.esp32.rom_partition``): ``ioctl(4, 0)``
its block count, ``ioctl(5, 0)`` its block size (the flash's 4096-byte erase sector),
``ioctl(6, n)`` erases block ``n`` (every byte 0xFF), ``writeblocks(n, buf, off)`` programs
bytes at ``n * size + off`` without erasing (NOR flash: a write only clears bits, so a block is
erased before it is written), and the partition mapped into the address space
(``memoryview(dev)``), which ``vfs.VfsRom`` runs the bytecode from. The simulator's and the
tests' fake is ``hal.sim_rom.RomPartition`` (``mapped()`` instead of the buffer protocol, which
a Python class cannot give).

The ESP32 port of 1.25 answers only ioctls 1 and 2 of ``vfs.rom_ioctl`` (one partition, the one
labelled ``romfs``; 3-5, prepare/write/finish, are -EINVAL there) and maps no other partition,
so there is one ROM partition, not two: the image is received into the slot as a littlefs file
(``bg.update.slots``, streamed, its SHA-256 checked at commit) and ``install`` copies it into
the partition at boot, before anything runs from it (docs/update.md). The partition is trusted
only when its first ``size`` bytes hash to the manifest's SHA-256: a copy cut short by a power
cut is simply made again at the next boot, and a partition holding another slot's image is
rewritten from that slot's file when the state chooses it.
"""

import hashlib

_PIECE = 512  # bytes copied (and hashed) at a time: one small buffer on the heap, at boot


def mapped(dev):
    """The partition's bytes, read in place (no copy)."""
    m = getattr(dev, "mapped", None)
    return m() if m is not None else memoryview(dev)


def capacity(dev):
    """The partition's size in bytes."""
    return dev.ioctl(4, 0) * dev.ioctl(5, 0)


def holds(dev, size, digest):
    """True when the partition's first ``size`` bytes hash to ``digest`` (SHA-256)."""
    if size > capacity(dev):
        return False
    m = mapped(dev)
    h = hashlib.sha256()
    i = 0
    while i < size:
        j = i + _PIECE if i + _PIECE < size else size
        h.update(m[i:j])  # a memoryview slice: hashed where it lies
        i = j
    return h.digest() == digest


def install(dev, path, size, digest):
    """Make the partition hold the image in the file ``path`` (``size`` bytes, SHA-256
    ``digest``). Returns False when it already did (nothing written), True after a copy;
    ValueError when the image does not fit or the file or the copy is not the image."""
    if size > capacity(dev):
        raise ValueError("ROM image of %d bytes > partition of %d" % (size, capacity(dev)))
    if holds(dev, size, digest):
        return False
    bs = dev.ioctl(5, 0)
    if bs % _PIECE:
        raise ValueError("ROM partition blocks of %d bytes" % bs)  # a piece within one block
    buf = bytearray(_PIECE)
    with open(path, "rb") as f:
        off = 0
        while off < size:
            blk = off // bs
            at = off - blk * bs
            if at == 0:
                dev.ioctl(6, blk)  # erase before the first write into this block
            k = f.readinto(buf)
            if not k:
                raise ValueError("ROM image file shorter than its manifest")
            if k > size - off:
                k = size - off
            dev.writeblocks(blk, buf if k == _PIECE else memoryview(buf)[:k], at)
            off += k
    if not holds(dev, size, digest):
        raise ValueError("ROM partition does not hold the image after the copy")
    return True
