"""The ESP32's two OTA app partitions and their otadata, faked over files for the simulator, the
board model and the tests.

``Partition`` behaves as MicroPython's ``esp32.Partition`` (ports/esp32/esp32_partition.c) for
what ``bg.update.slots`` and ``bg.update.boot`` use: ``Partition(Partition.RUNNING)`` (the app
the bootloader started: ``SG_OTA_RUNNING``), ``Partition(Partition.BOOT)`` (the one otadata
names), ``get_next_update()`` (the other app partition), ``info()`` (type, subtype, address,
size, label, encrypted), ``ioctl(4/5/6)`` (block count, block size 4096, erase a block to
0xFF), ``writeblocks(n, buf)`` (erases the whole blocks it covers, then writes),
``writeblocks(n, buf, off)`` (only programs: NOR flash, each byte becomes ``old & new``),
``readblocks(n, buf[, off])``, ``set_boot()`` (esp_ota_set_boot_partition: a new otadata entry
in state NEW) and the classmethod ``mark_app_valid_cancel_rollback()`` (the running app's entry
PENDING_VERIFY -> VALID). Each partition is a file of ``SIZE`` bytes in the folder
``SG_OTA_DIR`` (``ota_0``, ``ota_1``), read and written in place, never held in the heap (a
1.5 MB image on a 64k heap); otadata is the file ``otadata`` (``read_otadata``).

The bootloader, which reads otadata at reset and rolls back an app that was not confirmed, is
the simulator's (``tools/sim/bootloader.py``): the one part that cannot run on this machine.
``CUT`` models a power cut: after that many erases and writes the next one raises ``PowerCut``
with the flash as far as it got (an erase whole, half of a write's bytes).
"""

import os

BLOCK = 4096
SIZE = 0x180000  # ota_0 / ota_1 of MicroPython's partitions-4MiB-ota.csv (docs/update.md)
LABELS = ("ota_0", "ota_1")
# esp_ota_img_states_t
NEW = 0
PENDING_VERIFY = 1
VALID = 2
INVALID = 3
ABORTED = 4
UNDEFINED = 0xFFFFFFFF
_FF = b"\xff" * 256
CUT = [-1, 0]  # [erases and writes until the power cut (-1: none), done so far]


class PowerCut(Exception):
    pass


def folder():
    return (getattr(os, "getenv", lambda n: None)("SG_OTA_DIR") or "") + "/"


def read_otadata(d):
    """The two otadata entries [[seq, state], [seq, state]]; an erased entry is [0, UNDEFINED]
    (seq 0: no entry, the first app partition boots)."""
    try:
        with open(d + "otadata") as f:
            w = [int(x) for x in f.read().split()]
        if len(w) == 4:
            return [[w[0], w[1]], [w[2], w[3]]]
    except (OSError, ValueError):
        pass
    return [[0, UNDEFINED], [0, UNDEFINED]]


def write_otadata(d, e):
    # an entry is one flash write on the chip (each entry has its own sector and CRC): the
    # file is written whole and renamed, so a cut leaves the old entries or the new ones
    with open(d + "otadata.new", "w") as f:
        f.write("%d %d %d %d\n" % (e[0][0], e[0][1], e[1][0], e[1][1]))
    os.rename(d + "otadata.new", d + "otadata")


def label_of(seq):
    """The app partition an otadata sequence number boots (the IDF: (seq - 1) % count)."""
    return LABELS[(seq - 1) % 2]


def _op():
    c = CUT
    c[1] += 1
    return c[0] >= 0 and c[1] == c[0] + 1


class Partition:
    BOOT = 0
    RUNNING = 1
    TYPE_APP = 0

    def __init__(self, id, block_size=BLOCK):
        d = folder()
        if id == Partition.RUNNING:
            id = getattr(os, "getenv", lambda n: None)("SG_OTA_RUNNING") or LABELS[0]
        elif id == Partition.BOOT:
            e = read_otadata(d)
            best = e[0] if e[0][0] >= e[1][0] else e[1]
            id = label_of(best[0]) if best[0] else LABELS[0]
        if id not in LABELS:
            raise OSError(2)  # ENOENT: no such partition, as the port's constructor
        self.label = id
        self.path = d + id
        self.dir = d

    def info(self):
        i = LABELS.index(self.label)
        return (0, 0x10 + i, 0x10000 + i * SIZE, SIZE, self.label, False)

    def get_next_update(self):
        return Partition(LABELS[1 - LABELS.index(self.label)])

    def ioctl(self, op, arg):
        if op in (1, 2, 3):
            return 0
        if op == 4:
            return SIZE // BLOCK
        if op == 5:
            return BLOCK
        if op == 6:
            if not 0 <= arg < SIZE // BLOCK:
                raise OSError(22)
            cut = _op()
            with open(self.path, "r+b") as f:
                f.seek(arg * BLOCK)
                for _ in range(BLOCK // 256):
                    f.write(_FF)
            if cut:
                raise PowerCut("power cut after erasing block %d" % arg)
            return 0
        return None

    def _at(self, n, off, length):
        a = n * BLOCK + off
        if n < 0 or off < 0 or a + length > SIZE:
            raise OSError(22)
        return a

    def writeblocks(self, n, buf, off=None):
        if off is None:  # the port erases the whole blocks it covers first
            if len(buf) % BLOCK:
                raise OSError(22)
            for b in range(len(buf) // BLOCK):
                self.ioctl(6, n + b)
            off = 0
        a = self._at(n, off, len(buf))
        cut = _op()
        k = len(buf) // 2 if cut else len(buf)
        with open(self.path, "r+b") as f:
            f.seek(a)
            old = bytearray(f.read(k))
            for i in range(k):
                old[i] &= buf[i]
            f.seek(a)
            f.write(old)
        if cut:
            raise PowerCut("power cut writing block %d at %d" % (n, off))

    def readblocks(self, n, buf, off=0):
        a = self._at(n, off, len(buf))
        with open(self.path, "rb") as f:
            f.seek(a)
            f.readinto(buf)

    def set_boot(self):
        # esp_ota_set_boot_partition: the next sequence number that boots this partition, written
        # over the older entry, state NEW (rollback on: CONFIG_BOOTLOADER_APP_ROLLBACK_ENABLE)
        e = read_otadata(self.dir)
        top = e[0][0] if e[0][0] >= e[1][0] else e[1][0]
        seq = top + 1
        while label_of(seq) != self.label:
            seq += 1
        old = 0 if e[0][0] <= e[1][0] else 1
        e[old] = [seq, NEW]
        write_otadata(self.dir, e)

    @classmethod
    def mark_app_valid_cancel_rollback(cls):
        # esp_ota_mark_app_valid_cancel_rollback: the running app's entry becomes VALID
        d = folder()
        e = read_otadata(d)
        run = cls(cls.RUNNING).label
        for x in e:
            if x[0] and label_of(x[0]) == run and x[1] == PENDING_VERIFY:
                x[1] = VALID
                write_otadata(d, e)
                return
