"""Device entry point: MicroPython runs this file at boot (and the simulator runs it on the
unix port with ``SG_HAL=sim``). Everything lives in ``app.main``.

First the built-in ``bg.update.boot`` lays an updated firmware's slot over the built-in modules
(docs/update.md: the overlay rule). Nothing about an update may stop the board: a damaged state or
slot, or a new version that fails to start, leaves the previous or the built-in firmware.
"""

import sys

fw = None
fw_root = None


def _rom():
    # the ROM partition a whole firmware's image is copied into, asked for only when such a
    # slot is chosen (hal: vfs.rom_ioctl on the ESP32; None where there is none)
    import hal

    return hal.load(hal.backend()).rom_partition()


try:
    from bg.update import boot as fw

    fw_root = fw.root()
    fw.start(sys.path, sys.modules, fw_root, True, _rom)  # the slot's modules over the built-in
except Exception as e:  # noqa: BLE001 - boot the built-in firmware whatever happened
    fw = None
    print("fw: built-in firmware:", e)
for _ in range(3):  # the new slot, the previous one, the built-in firmware
    try:
        import app.main

        break
    except Exception as e:  # noqa: BLE001 - this version does not start: roll back now
        if fw is None or not fw.fallback(sys.path, sys.modules, fw_root):
            raise
        print("fw: the new version failed to start, rolled back:", e)
fw = None  # kept by app.update.Trial only while a slot runs (docs/memory.md)

app.main.run()
