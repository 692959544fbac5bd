"""The ROM partition, faked for the simulator, the board model and the tests.

``RomPartition`` behaves as the ``esp32.Partition`` that MicroPython 1.25's ESP32 port returns
from ``vfs.rom_ioctl(2, 0)`` (``bg.update.romslot`` names what it uses): 4096-byte blocks,
``ioctl(4, 0)`` / ``ioctl(5, 0)`` the block count and size, ``ioctl(6, n)`` erases block ``n``
to 0xFF, ``writeblocks(n, buf)`` erases the whole blocks it covers and writes (a length that is
not whole blocks is refused, as the IDF's erase of a partial sector), ``writeblocks(n, buf,
off)`` only programs (NOR flash: each byte becomes ``old & new``, so bytes not erased first come
out wrong, as on the chip), ``readblocks(n, buf[, off])``. ``mapped()`` stands for the buffer
protocol (the mapped flash), which a Python class cannot give.

``cut_after`` models a power cut: after that many erases and writes the next one raises
``PowerCut`` with the flash as far as it got (the erase of a block, or the first half of a
write's bytes, done). With ``path`` the flash is a file, kept across runs like the chip's.
"""

BLOCK = 4096
_FF = b"\xff" * 256  # erased flash, laid down a slice at a time (no block-sized temporary)
IOCTL_BLOCK_COUNT = 4
IOCTL_BLOCK_SIZE = 5
IOCTL_BLOCK_ERASE = 6


class PowerCut(Exception):
    pass


class RomPartition:
    def __init__(self, blocks, path=None, cut_after=-1):
        self.blocks = blocks
        self.path = path
        self.cut_after = cut_after
        self.ops = 0  # erases and writes done
        self.data = bytearray(blocks * BLOCK)
        self._erase(0, len(self.data))
        if path is not None:
            try:
                with open(path, "rb") as f:
                    f.readinto(self.data)
            except OSError:
                with open(path, "wb") as f:
                    f.write(self.data)

    def _erase(self, a, n):
        d = self.data
        for i in range(a, a + n, 256):
            d[i : i + 256] = _FF

    def _save(self, a, n):
        # the bytes an operation changed, to the file (what the chip keeps across a reset)
        if self.path is not None:
            with open(self.path, "r+b") as f:
                f.seek(a)
                f.write(memoryview(self.data)[a : a + n])

    def _op(self):
        # True when this operation is the one the power cut stops half-way
        self.ops += 1
        return self.ops == self.cut_after + 1

    def ioctl(self, op, arg):
        if op in (1, 2, 3):  # init, deinit, sync: nothing to do on this flash, as the port's
            return 0
        if op == IOCTL_BLOCK_COUNT:
            return self.blocks
        if op == IOCTL_BLOCK_SIZE:
            return BLOCK
        if op == IOCTL_BLOCK_ERASE:
            if not 0 <= arg < self.blocks:
                # the IDF refuses it (check_esp_err raises OSError with the negated esp_err_t
                # and its name; 22 here: nothing reads the number)
                raise OSError(22)
            cut = self._op()
            a = arg * BLOCK
            self._erase(a, BLOCK)  # an erase is done whole or not at all
            self._save(a, BLOCK)
            if cut:
                raise PowerCut("power cut after erasing block %d" % arg)
            return 0
        return None

    def _range(self, n, off, length):
        a = n * BLOCK + off
        if n < 0 or off < 0 or a + length > len(self.data):
            raise OSError(22)
        return a

    def writeblocks(self, n, buf, off=None):
        if off is None:  # the simple write: the port erases what it covers first
            if len(buf) % BLOCK:
                raise OSError(22)  # esp_partition_erase_range takes whole sectors only
            a = self._range(n, 0, len(buf))
            end = a + len(buf)
            e = a
            while e < end:
                self.ioctl(IOCTL_BLOCK_ERASE, e // BLOCK)
                e += BLOCK
            off = 0
        a = self._range(n, off, len(buf))
        cut = self._op()
        k = len(buf) // 2 if cut else len(buf)
        d = self.data
        for i in range(k):
            d[a + i] &= buf[i]
        self._save(a, k)
        if cut:
            raise PowerCut("power cut writing block %d at %d" % (n, off))

    def readblocks(self, n, buf, off=0):
        a = self._range(n, off, len(buf))
        buf[:] = self.data[a : a + len(buf)]

    def mapped(self):
        return memoryview(self.data)
