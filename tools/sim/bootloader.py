"""The ESP-IDF bootloader, faked for the simulator's board model: which app partition boots.

The board's flash is faked by ``hal.sim_ota`` (the two OTA app partitions and otadata as files
in one folder). At every reset the simulator (``tools/sim/server.py``, ``Sim(ota=...)``) asks
``boot(folder)`` which app to start, as the IDF's bootloader does with
CONFIG_BOOTLOADER_APP_ROLLBACK_ENABLE (on in MicroPython's ports/esp32/boards/sdkconfig.base):

- the otadata entry with the highest sequence number names the partition ((seq - 1) % 2);
  entries ABORTED or INVALID are passed over, no entry at all boots ota_0;
- an entry in state NEW (just ``set_boot``) becomes PENDING_VERIFY and boots;
- an entry still PENDING_VERIFY (the app booted and reset before
  ``mark_app_valid_cancel_rollback``) becomes ABORTED and the previous app boots: the rollback;
- an image that is not a valid app (here: not an ELF executable, the board model's binary) is
  passed over as the IDF's image check would.

What is faked: the IDF checks the image's header, segments and appended SHA-256 and maps it into
the address space; here the partition's bytes (the board model's executable, then the erased
flash's 0xFF) are copied to a file and run as the board's process. What is not: otadata's
states and the rollback rule, read from ESP-IDF's ``bootloader_utility.c`` /
``esp_ota_ops.c`` behaviour as documented in its OTA guide.
"""

import os
import shutil
from pathlib import Path

from hal import sim_ota as O


def flash(folder, image):
    """Flash ``image`` (the board model's binary) into ota_0 and erase ota_1 and otadata, as
    ``esptool write_flash`` of a fresh board: ota_0 boots."""
    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    data = Path(image).read_bytes()
    if len(data) > O.SIZE:
        raise ValueError("app image of %d bytes > partition of %d" % (len(data), O.SIZE))
    for i, label in enumerate(O.LABELS):
        body = data if i == 0 else b""
        (d / label).write_bytes(body + b"\xff" * (O.SIZE - len(body)))
    (d / "otadata").unlink(missing_ok=True)


def _valid(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def choose(folder):
    """The label of the app partition that boots now; otadata updated as the bootloader does."""
    d = str(folder) + "/"
    e = O.read_otadata(d)
    while True:
        live = [x for x in e if x[0] and x[1] not in (O.ABORTED, O.INVALID)]
        if not live:
            return O.LABELS[0]
        best = max(live, key=lambda x: x[0])
        label = O.label_of(best[0])
        if best[1] == O.PENDING_VERIFY:  # booted once and never confirmed: rolled back
            best[1] = O.ABORTED
            O.write_otadata(d, e)
            continue
        if not _valid(d + label):
            best[1] = O.INVALID
            O.write_otadata(d, e)
            continue
        if best[1] == O.NEW:
            best[1] = O.PENDING_VERIFY
            O.write_otadata(d, e)
        return label


def boot(folder):
    """(the executable to run, the partition's label): the chosen partition's bytes as a file."""
    label = choose(folder)
    run = Path(folder) / ("running-" + label)
    # copied beside, then renamed over: the previous boot's process may still be running the
    # old file (a killed process not yet reaped), which cannot be written ("text file busy")
    tmp = run.with_suffix(".new")
    shutil.copyfile(Path(folder) / label, tmp)
    os.chmod(tmp, 0o755)
    os.replace(tmp, run)
    return str(run), label
