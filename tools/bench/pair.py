"""Benchmark of pairing's CPU on the board side (docs/protocol.md "Board CPU and memory"):
one X25519 operation, and a whole pairing as the board runs it (PAIR_START: key pair + shared
secret; PAIR_CONFIRM: commitment, transcript, proofs, value), under the MicroPython unix port
(64-bit, the pip port) and the board model (32-bit, tools/board_model.py) when it is built.

    .venv/bin/python -m tools.bench.pair OUTDIR      -> OUTDIR/pair.json

Best of several runs (the machine is shared). ``esp32_estimate_ms`` scales the unix port's
figure by the same run's unix port -> ESP32 calibration (area ``calib``, ``esp32_ratio``: an
estimate, not a measurement: no ESP32 here).
"""

import json
import sys
from pathlib import Path

from tools import mpy
from tools.bench import calib, size

ROOT = Path(__file__).resolve().parents[2]

_CODE = """
import time
from bg.link import crypto
from bg import link as P
from bg.link.host import HostEnd
from bg.link.board import Board
from bg.link.session import Session
from link_board import make_store
from link_fakes import Clock, Rand

def best(f, n):
    b = None
    for i in range(n):
        t = time.ticks_us()
        f()
        d = time.ticks_diff(time.ticks_us(), t)
        b = d if b is None or d < b else b
    return b / 1000

k = bytes(range(32))
u = crypto.dh_keypair(lambda n: bytes(n))[1]
x = best(lambda: crypto.x25519(k, u), REPEATS + 2)

def pairing(out):
    b = Board(make_store(), Clock(), Rand(b"b"))
    b.open_pairing(60000)
    s = Session(b, 185)
    h = HostEnd(Rand(b"h"))
    f = h.pair_start(b"HOST0001", "bench")
    t = time.ticks_us()
    s.feed(f)
    r = s.pump()
    board = time.ticks_diff(time.ticks_us(), t)
    d = P.Decoder()
    d.feed(r)
    f = h.pair_confirm(d.next()[1].payload)
    t = time.ticks_us()
    s.feed(f)
    board += time.ticks_diff(time.ticks_us(), t)
    assert b.awaiting_button()
    out.append(board / 1000)

runs = []
for i in range(REPEATS):
    pairing(runs)
print(x, min(runs))
"""


def _run(heap, firmware):
    r = mpy.run(
        ["-c", "REPEATS = %d\n" % size(3, 1) + _CODE],
        heap=heap,
        firmware=firmware,
        path=[mpy.HARNESS],
        timeout=300,
    )
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    x, p = r.stdout.split()
    return {"x25519_ms": round(float(x), 1), "board_pairing_ms": round(float(p), 1)}


def main(argv):
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    res = {"unix_port_64bit": _run("256k", "source")}
    res["board_model_32bit_64k"] = _run("64k", "board")  # the board model: 32-bit, firmware frozen
    ratio = calib.ratio(out)
    res["esp32_ratio"] = ratio
    unix = res["unix_port_64bit"]
    res["esp32_estimate_ms"] = {k: round(v * ratio) for k, v in unix.items()}
    (out / "pair.json").write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
