"""`make bench` area "slots": the slot-count study table and the recogniser's cost.

Usage: ``.venv/bin/python -m tools.bench.slots OUTDIR`` -> ``OUTDIR/slots.json``.

- The slot-count study (tools/slot_study.py): read from its cache ``build/slot_study.json``
  when a full run (>= 10,000 games) is there, else a fresh 1,000-game sample is played
  (~20 s); ``study_source`` says which.
- ``Recognizer.update`` time per stable sensor change on CPython and on the MicroPython unix
  port (start position, and the worst position known: 1-1 with 2,140 distinct plays), and
  the heap it allocates per update under MicroPython (``gc.mem_alloc`` deltas; target 0).
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from gammon._paths import ENGINE_PATHS  # noqa: E402

from tools import mpy, slot_study  # noqa: E402
from tools.bench import SMOKE, size  # noqa: E402

FULL_GAMES = 10000


def _timing(proc):
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)["results"]
    raise RuntimeError("recognize_timing failed: " + proc.stdout[-500:] + proc.stderr[-1500:])


def main(argv):
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    data = None
    if slot_study.CACHE.exists() and not SMOKE:
        data = json.loads(slot_study.CACHE.read_text())
        if data.get("version") != slot_study.VERSION or data.get("games", 0) < FULL_GAMES:
            data = None
    if data is not None:
        source = "cache build/slot_study.json (tools/slot_study.py, %d games)" % data["games"]
    else:
        n = size(1000, 4)
        data = slot_study.run(n, 1, size(2, 1), size(50, 2))
        source = "fresh sample of %d games (run tools/slot_study.py for the full 10,000)" % n
    res = {
        "study_source": source,
        "study_games": data["games"],
        "study_turns_with_a_play": data["turns_with_a_play"],
        "study_policy": data["policy"],
    }
    for name, d in data["variants"].items():
        key = "slots_" + name.replace("-", "_")
        res[key + "_play_ambiguous_pct"] = d["choice_ambiguous_pct"]
        res[key + "_turns_any_ambiguous_pct"] = d["any_ambiguous_pct"]
        res[key + "_max_candidates"] = d["max_candidates"]
    for name, d in data.get("recognizer", {}).items():
        res["slots_%s_confirm_asks_pct" % name] = d["asked_pct"]
        res["slots_%s_recognizer_wrong_count" % name] = d["wrong"]
    script = ROOT / "tools" / "recognize_timing.py"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(map(str, ENGINE_PATHS)))
    cmd = [sys.executable, str(script), str(size(5, 1))]
    cp = _timing(subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600))
    mp = _timing(mpy.run([script, str(size(3, 1))], heap="256k", timeout=600))
    for name in cp:
        res["recognize_cpython_%s_us" % name] = cp[name]["us_per_update"]
        res["recognize_micropython_%s_us" % name] = mp[name]["us_per_update"]
        res["recognize_micropython_%s_alloc_bytes" % name] = mp[name]["alloc_bytes"]
    res["bench_s"] = round(time.time() - t0, 1)
    (out / "slots.json").write_text(json.dumps(res, indent=2) + "\n")
    print("slots: %s" % source)
    print(slot_study.table(data))
    print(
        "recognise (unix port): start 6-1 %.0f us, worst 1-1 %.0f us, heap per update %d bytes"
        % (
            res["recognize_micropython_start_61_complete_us"],
            res["recognize_micropython_worst_11_complete_us"],
            max(mp[n]["alloc_bytes"] for n in mp),
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
