"""Device entry point: MicroPython runs this file at boot (and the simulator runs it on the
unix port with ``SG_HAL=sim``). Everything lives in ``app.main``.

First the built-in ``bg.update.boot`` runs update mode when a host asked for it (one-shot:
docs/update.md), else lays an updated firmware's slot over the built-in modules (the overlay
rule). Nothing about an update may stop the board: a damaged state or
slot, or a new version that fails to start, leaves the previous or the built-in firmware.
"""

import sys

fw = None
fw_root = None


def _apps():
    # the app partitions' class (hal: esp32.Partition), None where there are none
    import hal

    return hal.load(hal.backend()).app_partitions()


try:
    from bg.update import boot as fw

    fw_root = fw.root()
    if fw.take_mode(fw_root):  # one-shot: the next boot is the game's whatever happens here
        # Update mode, asked for by a host's FW_BEGIN: the built-in firmware loads only the
        # link and the update receiver, takes the bundle and restarts (docs/update.md).
        # It ends by restarting the board; only a failure before its hardware is up returns.
        try:
            import app.update

            app.update.serve(fw_root)
        except Exception as e:  # noqa: BLE001 - then the game boots, as after a power cut
            print("fw: update mode failed:", e)
    if fw_root is not None:
        fw.app_start(fw_root, _apps())  # a new app image on trial, or one the bootloader rolled back
    fw.start(sys.path, sys.modules, fw_root, True)  # the slot's modules over the built-in
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
