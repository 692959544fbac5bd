"""hal.littlefs, the journal's littlefs parameters on both backends, on MicroPython: a file
open on it takes less heap than with MicroPython's defaults, and a volume written with the
defaults (a board flashed before) reads and grows under it. A module of its own: the mounts
and their buffers would fragment the 64k heap of the sim HAL's other tests."""

import os

from hal import sim

IMG = "/tmp/sg_test_hal_littlefs.lfs"


def _rm(path):
    try:
        os.remove(path)
    except OSError:
        pass


def _open_cost(fs, point, path):
    """The heap one open file takes on ``fs`` (mounted at ``point`` for the measure)."""
    import gc

    import vfs

    vfs.mount(fs, point)
    try:
        gc.collect()
        before = gc.mem_free()
        f = open(point + path, "rb")
        cost = before - gc.mem_free()
        data = f.read()
        f.close()
        return cost, data
    finally:
        vfs.umount(point)


def test_storage_open_file_is_smaller_than_with_micropythons_defaults():
    """hal.littlefs's caches (16 bytes, the ESP32's mount too): each open file's object is 64
    bytes smaller than with MicroPython's defaults (32; on the board 208 bytes, not 272), the
    run a file opened in a fragmented heap must find (the host's fetch after a long match).
    A volume formatted and written with the defaults (a board flashed before) mounts with them,
    its file intact."""
    import hal
    import vfs

    _rm(IMG)
    dev = sim.FileBlockDev(IMG)
    vfs.VfsLfs2.mkfs(dev)  # pyright: ignore[reportArgumentType]
    vfs.mount(vfs.VfsLfs2(dev), "/simhal")  # pyright: ignore[reportArgumentType]
    with open("/simhal/m.bin", "wb") as f:
        f.write(b"match" * 100)
    with open("/simhal/name", "wb") as f:  # 100 bytes: inline in its directory with 128-byte caches
        f.write(b"n" * 100)
    vfs.umount("/simhal")
    big, data = _open_cost(vfs.VfsLfs2(dev), "/simhal", "/m.bin")  # pyright: ignore[reportArgumentType]
    assert data == b"match" * 100
    small, data = _open_cost(hal.littlefs(dev), "/simhal", "/m.bin")  # pyright: ignore[reportArgumentType]
    assert data == b"match" * 100
    assert big - small >= 64, (big, small)
    # the inline file, larger than the new cache: read whole, then grown and read again
    _cost, data = _open_cost(hal.littlefs(dev), "/simhal", "/name")  # pyright: ignore[reportArgumentType]
    assert data == b"n" * 100
    vfs.mount(hal.littlefs(dev), "/simhal")  # pyright: ignore[reportArgumentType]
    with open("/simhal/name", "ab") as f:
        f.write(b"m" * 10)
    vfs.umount("/simhal")
    _cost, data = _open_cost(vfs.VfsLfs2(dev), "/simhal", "/name")  # pyright: ignore[reportArgumentType]
    assert data == b"n" * 100 + b"m" * 10
    dev.close()
    _rm(IMG)
