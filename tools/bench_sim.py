"""Simulator benchmark -> OUTDIR/sim.json.

    .venv/bin/python tools/bench_sim.py OUTDIR

1. Latency: time from a stable sensor change (the simulated chain bits sent to the firmware;
   the firmware debounces them like hardware) to the LED frame that shows it, measured on the
   host side of the simulator socket: a checker is taken off the start position (the point's
   LED turns from "right" green to "missing" yellow) and put back, 20 times each way.
2. The smallest ``-X heapsize`` (8k steps) at which the whole application (sensing, controller,
   rules, dice, LEDs, journal on littlefs) plays 2 consecutive games, and how much of that heap
   is bytecode (the unix port loads modules into the heap; the ESP32 runs them frozen in flash).
3. Heap in use after each of 100 consecutive games (money session, after ``gc.collect()``);
   growth = last - first.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "sim"))

import server  # noqa: E402


def latency(n=20):
    sim = server.Sim(image=None, settings={"length": 1})
    sim.physical.set_start()
    sim.start()
    chain = sim.board["leds"]["chain"]
    led6 = [i for i, e in enumerate(chain) if e["kind"] == "point" and e["index"] == 6][0]
    out = []
    try:
        time.sleep(1.0)

        def red_of(frame):
            return frame[3 * led6 + 1]  # GRB

        for k in range(2 * n):
            want_missing = k % 2 == 0
            with sim._lock:
                start_frames = sim.frames
            if want_missing:
                sim.physical.lift(5)
            else:
                sim.physical.drop(5)
            t0 = time.monotonic()
            sim.send_bits()
            seen = start_frames
            while True:
                seen = sim.wait_frame(seen, timeout=2.0)
                with sim._lock:
                    frame = sim.leds
                    t = sim.frame_times[-1][0] if sim.frame_times else time.monotonic()
                if (red_of(frame) > 0) == want_missing:
                    out.append((t - t0) * 1000)
                    break
                if time.monotonic() - t0 > 2.0:
                    raise RuntimeError("no LED frame showed the change")
            time.sleep(0.05)
    finally:
        sim.stop()
    out.sort()
    return out


def heapcheck(heap, games, image):
    build = server.build_firmware()
    env = dict(os.environ)
    env["MICROPYPATH"] = build + ":.frozen"
    if os.path.exists(image):
        os.unlink(image)
    proc = subprocess.run(
        [server.micropython_binary(), "-X", "heapsize=" + heap, str(ROOT / "tools" / "sim" / "heapcheck.py"),
         str(games), image], capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=600)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return proc.returncode == 0 and len(rows) == games, rows


def main(argv):
    outdir = Path(argv[1] if len(argv) > 1 else ".")
    outdir.mkdir(parents=True, exist_ok=True)
    res = {}
    lat = latency()
    res["latency_median_ms"] = round(lat[len(lat) // 2], 2)
    res["latency_p95_ms"] = round(lat[int(len(lat) * 0.95) - 1], 2)
    res["latency_max_ms"] = round(lat[-1], 2)
    res["latency_target_ms"] = 50
    tmp = tempfile.mkdtemp()
    img = os.path.join(tmp, "h.lfs")
    smallest = None
    for kb in range(128, 264, 8):
        ok, rows = heapcheck("%dk" % kb, 2, img)
        if ok:
            smallest = kb
            res["heap_code_bytes"] = rows[-1]["code_bytes"]
            break
    res["smallest_heapsize_kb_unix_port"] = smallest
    t0 = time.monotonic()
    ok, rows = heapcheck("256k", 100, img)
    res["games_100_seconds"] = round(time.monotonic() - t0, 1)
    heaps = [r["heap_bytes"] for r in rows]
    res["games_100_completed"] = len(rows)
    res["heap_after_game_bytes"] = heaps
    if heaps:
        res["heap_growth_bytes_100_games"] = heaps[-1] - heaps[0]
        res["heap_data_bytes"] = heaps[-1] - rows[-1]["code_bytes"]
    (outdir / "sim.json").write_text(json.dumps(res, indent=1))
    print("sim: latency median %.1f ms (p95 %.1f, max %.1f; target <= 50 incl. debounce)"
          % (res["latency_median_ms"], res["latency_p95_ms"], res["latency_max_ms"]))
    print("sim: smallest heapsize on the unix port %sk (bytecode in heap: %s bytes); "
          "heap after game 1/100: %s/%s bytes, growth %s bytes"
          % (smallest, res.get("heap_code_bytes"), heaps[0] if heaps else None,
             heaps[-1] if heaps else None, res.get("heap_growth_bytes_100_games")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
