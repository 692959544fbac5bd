"""Test helpers for the journal under MicroPython: a littlefs block device with ESP32-like
4096-byte erase blocks, power-cut snapshots, and a scripted realistic match.

Why the device image lives in a host file and not in a bytearray: the runner caps the heap
at 64k, as on the ESP32, and a 32-block image is 128 KiB -- on the board the flash is not in
RAM either. The class is otherwise the classic RAM block device of the MicroPython docs
(extended interface: ``readblocks/writeblocks(block, buf, offset)``, ``ioctl`` 4/5/6).
Every program and erase can call ``hook(op, block, offset, buf)`` first; the power-cut test
uses it to snapshot the image at that exact instant (before the write, after it, or torn).
"""

import os

import vfs

BS = 4096
_FF = b"\xff" * 256


class FlashDev:
    """``nblocks`` erase blocks of ``BS`` bytes in host file ``path`` (created erased)."""

    def __init__(self, path, nblocks, create=True):
        self.path = path
        self.nblocks = nblocks
        self.writes = 0  # programs + erases so far
        self.hook = None
        if create:
            with open(path, "wb") as f:
                for _ in range(nblocks * BS // 256):
                    f.write(_FF)
        self.f = open(path, "r+b")

    def close(self):
        self.f.close()

    def readblocks(self, block, buf, off=0):
        self.f.seek(block * BS + off)
        self.f.readinto(buf)

    def writeblocks(self, block, buf, off=0):
        if self.hook:
            self.hook(0, block, off, buf)
        self.writes += 1
        self.f.seek(block * BS + off)
        self.f.write(buf)

    def ioctl(self, op, arg):
        if op == 4:
            return self.nblocks
        if op == 5:
            return BS
        if op == 6:
            if self.hook:
                self.hook(1, arg, 0, None)
            self.writes += 1
            self.erase(arg, BS)
            return 0
        return 0

    def erase(self, block, n):
        self.f.seek(block * BS)
        for _ in range(n // 256):
            self.f.write(_FF)

    def flush(self):
        self.f.flush()


def copy_image(src, dst_path, buf):
    """Write ``src``'s whole image to ``dst_path`` through ``buf`` (no big allocation)."""
    src.flush()
    src.f.seek(0)
    with open(dst_path, "wb") as out:
        while True:
            n = src.f.readinto(buf)
            if not n:
                break
            out.write(memoryview(buf)[:n] if n < len(buf) else buf)


def apply_torn(dev, op, block, off, data):
    """Half of a program (or of an erase) reached the flash when the power went."""
    if op == 1:
        dev.erase(block, BS // 2)
    else:
        dev.f.seek(block * BS + off)
        dev.f.write(memoryview(data)[: len(data) // 2])


# the board's littlefs parameters (hal.littlefs, both backends; a host test checks they are the
# same): the power cuts hit what the board writes. Not imported from hal: compiling it from
# source here costs the heap of tests run at 64k
LFS = {"readsize": 16, "progsize": 16, "lookahead": 32}


def mount(dev, point):
    fs = vfs.VfsLfs2(dev, **LFS)
    vfs.mount(fs, point)
    return fs


def umount(point):
    try:
        vfs.umount(point)
    except OSError:
        pass


def fresh(path, nblocks, point):
    """A new formatted and mounted device."""
    dev = FlashDev(path, nblocks)
    vfs.VfsLfs2.mkfs(dev, **LFS)
    mount(dev, point)
    return dev


def contains(path, needle, buf):
    """True if file ``path`` holds ``needle``, read through ``buf`` (overlapping windows)."""
    step = len(buf) - len(needle)
    with open(path, "rb") as f:
        pos = 0
        while True:
            f.seek(pos)
            n = f.readinto(buf)
            if not n:
                return False
            for i in range(n, len(buf)):
                buf[i] = 0  # zeroes past the data (the needle holds non-zero bytes)
            if buf.find(needle) >= 0:  # in place: no copy of the window (64k heap)
                return True
            if n < len(buf):
                return False
            pos += step


def missing(path):
    try:
        os.stat(path)
        return False
    except OSError:
        return True


_TMP = []


def tmpdir():
    # One directory per process: MicroPython has no os.getpid, and a fixed name let two runs
    # at once (the ROM port and the board model, or another checkout) overwrite each other's
    # flash images -- a power-cut check then failed now and then.
    if not _TMP:
        _TMP.append("/tmp/bgjournal_" + "".join("%02x" % b for b in os.urandom(6)))
    d = _TMP[0]
    try:
        os.mkdir(d)
    except OSError:
        pass
    return d
