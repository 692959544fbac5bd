"""Simulator benchmark -> OUTDIR/sim.json.

    .venv/bin/python -m tools.bench.sim OUTDIR

1. Latency: time from a stable sensor change (the simulated chain bits sent to the firmware;
   the firmware debounces them like hardware) to the LED frame that shows it, measured on the
   host side of the simulator socket: a checker is taken off the start position (the point's
   LED turns from "right" green to "missing" yellow) and put back, 20 times each way.
2. The smallest working heap (4k steps) at which the whole application (sensing, controller,
   rules, dice, LEDs, journal on littlefs) plays 2 consecutive games with the firmware in a ROMFS
   image (``tools/romfs.py``, mounted by ``tools/rom_boot.py``): its bytecode runs in place, as
   from the ESP32's flash, and the heap is the image plus the working heap (docs/memory.md).
   For comparison the old figure, "code in heap": the smallest ``-X heapsize`` with the
   ``.mpy`` files on the filesystem, where the unix port copies all bytecode into the heap.
   ``boot_{board,hal,app,boot}_working_bytes``: what each boot step keeps (heapcheck's
   ``boot:`` line); per-module costs: ``tools/sim/heapmods.py`` (docs/memory.md).
3. Heap in use (working heap, after ``gc.collect()``) after each of 100 consecutive games of a
   money session in ROM mode, at the smallest working heap found; growth = last - first.
4. The board's budget on the board model (``tools/board_model.py``: the unix port built 32-bit
   with the firmware frozen in, as on the ESP32): the smallest ``-X heapsize`` (1k steps) for 2
   games, and 100 consecutive games at ``-X heapsize=64k`` with the heap in use after each
   (``board_model_*``). heapcheck itself is compiled from source there and counted too.
5. Unit costs (``tools/sim/heapunits.py``): working-heap bytes per function, class, public
   ``const()``, string constant ... on the 64-bit port from a ROM image, and the count of each
   in the match's modules (``unit_bytes_per_*``, ``match_*``).
"""

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from tools import mpy, romfs  # noqa: E402
from tools.bench import size  # noqa: E402
from tools.sim import server  # noqa: E402


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


def heapcheck(heap, games, image, rom=True):
    """Play ``games`` games headless (tools/sim/heapcheck.py) -> (ok, rows, boot).

    ``rom``: the firmware from the ROMFS image with ``heap`` of working heap beside it; each
    row gains ``working_bytes`` (heap in use minus the image) and ``boot`` is the loader's
    figures. ``rom="board"``: on the board model (tools/board_model.py, firmware frozen, 32-bit),
    ``heap`` is the whole ``-X heapsize``; ``boot`` holds heapcheck's boot parts only. Otherwise
    ``heap`` is the whole ``-X heapsize`` of the pip port with the bytecode in it."""
    script = ROOT / "tools" / "sim" / "heapcheck.py"
    firmware, path = ("board" if rom == "board" else "rom"), ()
    if not rom:  # the pip port with the bytecode in the heap
        firmware, path = None, [server.build_firmware()]
    if os.path.exists(image):
        os.unlink(image)
    proc = mpy.run([script, games, image], heap=heap, firmware=firmware, path=path, timeout=600)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    boot = romfs.boot_figures(proc.stdout) if rom is True else ({} if rom else None)
    if boot is not None:
        # heapcheck's "boot: board=N hal=N app=N boot=N": what each boot step keeps (bytes)
        for line in proc.stdout.splitlines():
            if line.startswith("boot: "):
                boot["parts"] = {k: int(v) for k, v in (x.split("=") for x in line[6:].split())}
    for r in rows:
        if boot and "image_heap_bytes" in boot:
            r["working_bytes"] = r["heap_bytes"] - boot["image_heap_bytes"]
    return proc.returncode == 0 and len(rows) == games, rows, boot


def smallest_heap(lo_kb, hi_kb, step_kb, image, rom):
    """Bisect the smallest heap (a multiple of ``step_kb``) at which 2 games complete; it is
    monotonic in practice: more heap never makes the run fail. -> (kb or None, rows, boot)."""
    ok, rows, boot = heapcheck("%dk" % hi_kb, 2, image, rom)
    if not ok:
        return None, rows, boot
    best = (hi_kb, rows, boot)
    lo, hi = lo_kb // step_kb, hi_kb // step_kb - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        ok, rows, boot = heapcheck("%dk" % (mid * step_kb), 2, image, rom)
        if ok:
            best = (mid * step_kb, rows, boot)
            hi = mid - 1
        else:
            lo = mid + 1
    return best


def main(argv):
    outdir = Path(argv[1] if len(argv) > 1 else ".")
    outdir.mkdir(parents=True, exist_ok=True)
    res = {}
    lat = latency(size(20, 2))
    res["latency_median_ms"] = round(lat[len(lat) // 2], 2)
    res["latency_p95_ms"] = round(lat[int(len(lat) * 0.95) - 1], 2)
    res["latency_max_ms"] = round(lat[-1], 2)
    res["latency_target_ms"] = 50
    tmp = tempfile.mkdtemp()
    img = os.path.join(tmp, "h.lfs")
    # The board's budget, on the board model (32-bit, firmware frozen as on the ESP32): the
    # smallest -X heapsize in 1k steps for 2 games, then 100 games at the 64k target
    # (the smoke run: each bisection's last steps, 2 games where 100 are played)
    games = size(100, 2)
    bkb, brows, bboot = smallest_heap(size(24, 126), 128, 1, img, rom="board")
    res["board_model_smallest_heapsize_kb"] = bkb
    res["board_model_heapsize_target_kb"] = 64
    for k, v in ((bboot or {}).get("parts") or {}).items():
        res["board_model_boot_%s_bytes" % k] = v
    if brows:
        res["board_model_module_objects_bytes"] = brows[-1]["code_bytes"]
    t0 = time.monotonic()
    ok, brows, _ = heapcheck("64k", games, img, rom="board")
    res["board_model_games_100_seconds"] = round(time.monotonic() - t0, 1)
    res["board_model_games_100_completed"] = len(brows)
    bheaps = [r["heap_bytes"] for r in brows]
    res["board_model_heap_after_game_bytes"] = bheaps
    if bheaps:
        res["board_model_heap_growth_bytes_100_games"] = bheaps[-1] - bheaps[0]
        res["board_model_heap_growth_bytes_games_2_to_100"] = max(bheaps[1:]) - min(bheaps[1:])
        res["board_model_free_bytes_min_at_64k"] = min(r["free_bytes"] for r in brows)
    kb, rows, boot = smallest_heap(size(32, 248), 256, 4, img, rom=True)
    res["smallest_working_heap_kb_rom"] = kb
    res["working_heap_target_kb"] = 64
    if boot:
        res["rom_image_bytes"] = boot["image_bytes"]
        res["rom_image_heap_bytes"] = boot["image_heap_bytes"]
        res["rom_heapsize_bytes_at_smallest"] = (
            romfs.heapsize_for("%dk" % kb, boot["image_bytes"]) if kb else None
        )
    if boot and boot.get("parts"):
        for k, v in boot["parts"].items():
            res["boot_%s_working_bytes" % k] = v
    if rows:
        # heapcheck's code_bytes: what importing every module left in the heap; from ROM that is
        # module objects (functions, classes, constants, qstrs), not bytecode
        res["rom_module_objects_bytes"] = rows[-1]["code_bytes"]
    # where the module objects go: unit costs on this build x the constructs in the match's modules
    from tools.sim import heapunits

    units, counts, est = heapunits.measure()
    for k, v in units.items():
        res["unit_bytes_per_%s" % k] = v
    for k, v in counts.items():
        res["match_%s_count" % k] = v
    for k, v in est.items():
        res["match_%s_estimated_bytes" % k] = v
    res["match_module_objects_estimated_bytes"] = sum(est.values())
    old_kb, old_rows, _ = smallest_heap(size(128, 312), 320, 8, img, rom=False)
    res["smallest_heapsize_kb_code_in_heap"] = old_kb
    if old_rows:
        res["code_in_heap_bytes"] = old_rows[-1]["code_bytes"]
    # 100 games at the smallest working heap; a later game may peak higher than the first two,
    # so step up (and say so in games_100_working_heap_kb) until all complete
    run_kb = kb or 256
    while True:
        t0 = time.monotonic()
        ok, rows, _ = heapcheck("%dk" % run_kb, games, img, rom=True)
        if ok or run_kb >= (kb or 256) + 32:
            break
        run_kb += 8
    res["games_100_seconds"] = round(time.monotonic() - t0, 1)
    res["games_100_working_heap_kb"] = run_kb
    heaps = [r.get("working_bytes", r["heap_bytes"]) for r in rows]
    res["games_100_completed"] = len(rows)
    res["working_heap_after_game_bytes"] = heaps
    if heaps:
        res["working_heap_growth_bytes_100_games"] = heaps[-1] - heaps[0]
        res["working_heap_data_bytes"] = heaps[-1] - rows[-1]["code_bytes"]
    (outdir / "sim.json").write_text(json.dumps(res, indent=1))
    print(
        "sim: latency median %.1f ms (p95 %.1f, max %.1f; target <= 50 incl. debounce)"
        % (res["latency_median_ms"], res["latency_p95_ms"], res["latency_max_ms"])
    )
    print(
        "board model (32-bit, firmware frozen): whole match at -X heapsize=%sk smallest (target 64k); "
        "%d/100 games at 64k, heap after game 1/100: %s/%s bytes, min free %s"
        % (
            res["board_model_smallest_heapsize_kb"],
            res["board_model_games_100_completed"],
            bheaps[0] if bheaps else None,
            bheaps[-1] if bheaps else None,
            res.get("board_model_free_bytes_min_at_64k"),
        )
    )
    print(
        "sim (64-bit port): firmware in ROM image (%s bytes): smallest working heap %sk (module objects %s "
        "bytes); code in heap: smallest heapsize %sk (bytecode %s bytes)"
        % (
            res.get("rom_image_bytes"),
            kb,
            res.get("rom_module_objects_bytes"),
            old_kb,
            res.get("code_in_heap_bytes"),
        )
    )
    print(
        "sim (64-bit port): %d/100 games at %sk working heap; in use after game 1/100: %s/%s bytes, "
        "growth %s bytes"
        % (
            len(rows),
            res["games_100_working_heap_kb"],
            heaps[0] if heaps else None,
            heaps[-1] if heaps else None,
            res.get("working_heap_growth_bytes_100_games"),
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
