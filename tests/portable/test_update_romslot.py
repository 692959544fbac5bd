"""A whole firmware's ROM image copied into the ROM partition (``bg.update.romslot``) on the
faked ESP32 partition (``hal.sim_rom``: 4096-byte erase blocks, writes that only clear bits):
the copy verifies, is not made twice, survives a power cut at every erase and write (the next
boot copies again, a half-copied partition never passes as the image), refuses an image larger
than the partition; and the boot mounts the slot's image from the partition and imports from
it (MicroPython: ``vfs.VfsRom``)."""

# Two 4.8 kB images, an 8 kB partition and the signer beside them: passes at 78-80k of
# working heap on the 64-bit port (76k failed once: the partition's 8 kB found no block after
# the signer's big ints), declared +8k; the board model runs it at the board's 64k.
# mpy-heap: 88k

import gc
import hashlib
import os

import update_helpers as H
from bg.update import boot as B
from bg.update import romslot as R
from hal.sim_rom import BLOCK, PowerCut, RomPartition

_NAME = "romslot_probe.py"


def _uint(v):
    out = [v & 0x7F]
    v >>= 7
    while v:
        out.insert(0, 0x80 | (v & 0x7F))
        v >>= 7
    return bytes(out)


def _image(tag=b"new"):
    # A ROMFS image (tools/romfs.py's format: a file record holding its name and a data
    # record) of one module spanning two erase blocks, built in one buffer (the 64k heap).
    head = b"TAG = %r\n# " % tag
    pad = BLOCK + 700
    n = len(head) + pad + 1
    name = _NAME.encode()
    data = _uint(2) + _uint(n)
    flen = len(_uint(len(name))) + len(name) + len(data) + n
    rec = _uint(5) + _uint(flen) + _uint(len(name)) + name + data + head
    blen = len(rec) - len(head) + n
    size = _uint(blen)
    if (3 + len(size) + blen) % 2:
        size = b"\x80" + size
    out = bytearray(3 + len(size) + blen)
    i = len(size) + 3
    out[:i] = b"\xd2\xcd\x31" + size
    out[i : i + len(rec)] = rec
    i += len(rec)
    x = b"x" * 100
    for j in range(i, i + pad, 100):
        k = i + pad - j
        out[j : j + (k if k < 100 else 100)] = x if k >= 100 else x[:k]
    out[-1] = 10
    return out


def _file(root, data, name="img"):
    p = root + "/" + name
    with open(p, "wb") as f:
        f.write(data)
    return p


def test_copy_verifies_and_is_made_once():
    root = H.root()
    try:
        img = _image()
        digest = hashlib.sha256(img).digest()
        dev = RomPartition(2)
        assert not R.holds(dev, len(img), digest)
        assert R.install(dev, _file(root, img), len(img), digest) is True
        assert R.holds(dev, len(img), digest) and bytes(R.mapped(dev)[: len(img)]) == img
        n = dev.ops
        assert R.install(dev, root + "/img", len(img), digest) is False and dev.ops == n
        # what another image's digest says of it: not held, so it would be copied
        assert not R.holds(dev, len(img), hashlib.sha256(_image(b"old")).digest())
    finally:
        H.rm(root)


def test_flash_is_not_written_without_an_erase():
    # the fake is NOR flash: programming over bytes not erased only clears bits
    dev = RomPartition(1)
    dev.writeblocks(0, b"\x0f\xf0", 0)
    dev.writeblocks(0, b"\xf0\xf0", 0)
    assert bytes(dev.mapped()[:2]) == b"\x00\xf0"
    dev.ioctl(6, 0)
    assert bytes(dev.mapped()[:2]) == b"\xff\xff"
    try:
        dev.ioctl(6, 1)
        raise AssertionError("erased a block beyond the partition")
    except OSError:
        pass
    # the simple write erases what it covers, as the port's esp_partition_erase_range: whole
    # 4096-byte blocks only
    try:
        dev.writeblocks(0, bytes(512))
        raise AssertionError("a simple write of part of a block")
    except OSError:
        pass
    assert bytes(dev.mapped()[:2]) == b"\xff\xff"
    dev.writeblocks(0, b"\x0f" * 4096)
    assert bytes(dev.mapped()[:2]) == b"\x0f\x0f" and dev.ioctl(3, 0) == 0  # sync: nothing to do


def test_power_cut_at_every_erase_and_write_then_the_next_boot_copies_again():
    root = H.root()
    try:
        old = _image(b"old")
        new = _image(b"new")
        do = hashlib.sha256(old).digest()
        dn = hashlib.sha256(new).digest()
        pn = _file(root, new, "new")
        po = _file(root, old, "old")
        dev = RomPartition(2)
        R.install(dev, pn, len(new), dn)
        total = dev.ops  # the erases and writes of one copy
        cut = 0
        cuts = 0
        while True:
            R.install(dev, po, len(old), do)  # the partition holds the last image
            gc.collect()
            dev.ops = 0
            dev.cut_after = cut
            try:
                R.install(dev, pn, len(new), dn)
                done = True
            except PowerCut:
                done = False
            dev.cut_after = -1
            if done:
                break
            cuts += 1
            # after the cut the partition passes for neither image (its first block was erased
            # first, the last write is the last byte): the boot copies again, mounts nothing
            assert not R.holds(dev, len(new), dn) and not R.holds(dev, len(old), do)
            assert R.install(dev, pn, len(new), dn) is True  # the next boot
            assert R.holds(dev, len(new), dn)
            cut += 1
        assert cuts == total == 12, (cuts, total)  # 2 erases and 10 writes of 512 bytes
    finally:
        H.rm(root)


def test_an_image_larger_than_the_partition_is_refused_before_any_write():
    root = H.root()
    try:
        img = _image()
        dev = RomPartition(1)
        try:
            R.install(dev, _file(root, img), len(img), hashlib.sha256(img).digest())
            raise AssertionError("installed an image larger than the partition")
        except ValueError as e:
            assert "> partition" in str(e)
        assert dev.ops == 0
        # a file shorter than its manifest says: refused, the partition not passed as the image
        dev = RomPartition(2)
        try:
            R.install(dev, _file(root, img[:1000]), len(img), hashlib.sha256(img).digest())
            raise AssertionError("installed a short file")
        except ValueError:
            pass
        assert not R.holds(dev, len(img), hashlib.sha256(img).digest())
    finally:
        H.rm(root)


def _pending_rom_slot(root, tag=b"slot"):
    # a whole firmware's bundle received and committed: slot "a" pending, its image's size
    from bg.update.bundle import bundle_id, header_len
    from bg.update.sign import bundle
    from bg.update.slots import Updater

    gc.collect()
    img = _image(tag)
    blob = bundle("2.0.0", [(B.ROM_IMAGE, img)], H.SEED, B.COUNTER)
    del img
    u = Updater(root, [], H.pub())
    n = header_len(blob)
    assert u.begin(bundle_id(blob[:n]), len(blob)) == 0
    H.send(u, blob, step=512)
    del blob
    assert u.commit() == "2.0.0"
    gc.collect()
    return os.stat(B.slot_dir(root, "a") + "/" + B.ROM_IMAGE)[6]


def test_cuts_during_the_boots_copy_count_as_boots_then_roll_back():
    # Each boot is counted before the copy (bg.update.boot.choose): a copy cut short retries at
    # the next boot, and a version whose copy never completes in MAX_BOOTS boots is rolled back
    # like one that does not start; the built-in firmware (the app partition) runs meanwhile.
    root = H.root()
    try:
        size = _pending_rom_slot(root)
        part = root + "/rom.part"
        for cuts, done in ((2, True), (B.MAX_BOOTS, False)):
            B.write_state(root, "-", "a", 0)
            RomPartition(2, part).ioctl(6, 0)  # the partition holds no image
            for boot in range(cuts + 1):
                s = B.choose(root)
                if boot == cuts and not done:
                    assert s == B.NONE and B.read_state(root) == ("-", "-", 0)
                    break
                assert s == "a" and B.read_state(root) == ("-", "a", boot + 1)
                dev = RomPartition(2, part, 4 if boot < cuts else -1)
                try:
                    R.install(
                        dev, B.slot_dir(root, "a") + "/" + B.ROM_IMAGE, size, B._image_digest(root, "a")
                    )
                    assert boot == cuts
                except PowerCut:
                    assert boot < cuts
                dev = None  # the partition's 8 kB back before the next boot's
                gc.collect()
            if done:
                assert R.holds(RomPartition(2, part), size, B._image_digest(root, "a"))
                assert B.healthy(root, [B.slot_dir(root, "a")]) and B.read_state(root) == ("a", "-", 0)
    finally:
        H.rm(root)


def test_boot_mounts_the_slots_image_from_the_rom_partition():
    try:
        import vfs

        vfs.VfsRom  # noqa: B018 - MicroPython 1.25 only (CPython has no vfs)
    except (ImportError, AttributeError):
        return
    import sys

    root = H.root()
    _pending_rom_slot(root)
    # the partition is a file, opened again at each boot as the chip's flash keeps its bytes
    part = root + "/rom.part"
    cut = [0]
    B._ROM[0] = lambda: RomPartition(2, part, cut[0])
    size = os.stat(B.slot_dir(root, "a") + "/" + B.ROM_IMAGE)[6]
    path = sys.path
    try:
        for c in (0, 1, 5, 11, -1):  # power cuts during the copy, then the boot after them
            cut[0] = c
            gc.collect()
            try:
                B._mount_rom(root, "a", size)
                assert c < 0
            except PowerCut:
                assert c >= 0
                try:
                    os.stat(B.ROM_MOUNT + "/" + _NAME)
                    raise AssertionError("mounted a half-copied partition")
                except OSError:
                    pass
        path.insert(0, B.ROM_MOUNT)
        import romslot_probe

        assert romslot_probe.TAG == b"slot"
    finally:
        B._ROM[0] = None
        sys.modules.pop("romslot_probe", None)
        B._unmount_rom(path)
        H.rm(root)
