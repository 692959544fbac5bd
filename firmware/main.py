"""Device entry point: MicroPython runs this file at boot (and the simulator runs it on the
unix port with ``SG_HAL=sim``). Everything lives in ``app.main``.

First the built-in ``bg.update.boot`` puts an updated firmware's slot ahead of the built-in
modules (docs/update.md). Nothing about an update may stop the board: a damaged state or
slot, or a new version that fails to start, leaves the built-in (or previous) firmware.
"""

import sys

fw = None
try:
    from bg.update import boot as fw

    fw_root = fw.root()
    fw.start(sys.path, sys.modules, fw_root)
except Exception as e:  # noqa: BLE001 - boot the built-in firmware whatever happened
    fw = None
    fw_root = None
    print("fw: built-in firmware:", e)
try:
    import app.main
except Exception as e:  # noqa: BLE001 - the new version does not start: roll back now
    if fw is None:
        raise
    print("fw: the new version failed to start, rolled back:", e)
    fw.fallback(sys.path, sys.modules, fw_root)
    import app.main

app.main.run()
