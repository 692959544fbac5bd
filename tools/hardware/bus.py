"""The chain's SCK and PL from the ESP32 pin to the last register, as lossy lines in ngspice.

Usage::

    .venv/bin/python -m tools.hardware.bus   # both revisions, the figures as JSON

Every strip's geometry comes from the generated placement (``hardware/kicad/<kind>/fab/
<kind>-cpl-jlcpcb.csv``): where its IN and OUT connectors, its registers and its buffer sit
along the strip; the bus runs along the strip between them. Cables between boards have the
lengths of ``cable_mm``. Lines are ngspice's ``txl`` (a lossy line: R, L, C per metre):

- ``trace``: 0.25 mm track over 1.6 mm FR4 (about 120 ohm, 5.8 ns/m, 2 ohm/m);
- ``cable``: a JST SH 28 AWG wire beside its ground wire (about 120 ohm, 4.5 ns/m, the pair's
  copper 0.43 ohm/m).

Drivers are a 0 -> 3.3 V step with a 2 ns edge behind 40 ohm (ESP32 pad) or 1 ns behind 15 ohm
(74LVC3G17 at 3.3 V); a register input is 10 pF (74HC165 CI max), a buffer input 5 pF.

- **rev A**: the ESP32 drives every register straight: one line through 28 cables with a stub
  to the registers of each strip, open at the far end.
- **rev B** (the design, ``design.BUS_BUFFER``): the ESP32 and every strip's Schmitt buffer
  drive one cable each through ``design.BUS_OHM``, to the next strip's buffer; the buffer
  drives each of its own registers through another ``BUS_OHM``. Each segment is simulated on its own
  (the buffer regenerates the edge), all in one ngspice run.

``crossings``: at every register input, for each level in the 74HC165's threshold band at
3.3 V (``HC_BAND``: VIL max 1.0 V .. VIH min 2.3 V, Nexperia's table between its 2.0 V and
4.5 V rows) the number of times the waveform crosses it on each edge; at a buffer input the
band ``LVC_BAND`` (wider than the 74LVC3G17's hysteresis window, so a ring the hysteresis
would hide still counts). One crossing of every level per edge is the requirement: more is
a double clock, none a missed one.
"""

import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from . import design

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

NGSPICE = os.environ.get("GAMMON_NGSPICE", "ngspice")
LINES = {
    "trace": {"R": 1.97, "L": 0.69e-6, "C": 48e-12},
    "cable": {"R": 0.43, "L": 0.54e-6, "C": 37.5e-12},
}
HC_BAND = (1.0, 2.3)
LVC_BAND = (0.8, 2.2)
C_REG, C_BUF = 10e-12, 5e-12
ESP32 = (40.0, 2e-9)  # output resistance, edge time
LVC = (15.0, 1e-9)
VCC = 3.3
LVC_TPD_NS = 6.0  # 74LVC3G17 propagation delay taken at 3.3 V (the datasheet's order; an assumption)


def ngspice_missing():
    if shutil.which(NGSPICE) is None:
        return "%s not found (apt-get install ngspice)" % NGSPICE
    return None


def cable_mm(a, b):
    """Length of the cable between boards ``a`` and ``b`` (names): neighbouring points of one
    quadrant lie a checker apart (150 mm cables); every other hop (centre, trays, bar, across
    the bar) takes 300 mm."""
    if a.startswith("point") and b.startswith("point"):
        i, j = int(a[5:]), int(b[5:])
        if abs(i - j) == 1 and (i - 1) // 6 == (j - 1) // 6:
            return 150.0
    return 300.0


def _cpl(kind):
    path = ROOT / "hardware" / "kicad" / kind / "fab" / ("%s-cpl-jlcpcb.csv" % kind)
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    return {r[0]: (float(r[1][:-2]), float(r[2][:-2])) for r in rows}


def geometry(board_json):
    """The chain as the bus sees it: ``(centre_mm, [strip])``, a strip being a dict with its
    name, the cable into it (mm), and along the strip (mm): ``in`` (IN connector), ``out``,
    ``buf`` (its buffer, or None) and ``regs`` (register positions)."""
    boards, cables = design.system(board_json)
    pos = {kind: _cpl(kind) for kind in ("point", "tray", "bar", "centre")}
    centre = boards[0]
    mcu = [p for p in centre.parts if p.role == ("mcu",)][0]
    j1 = [p for p in centre.parts if p.role == ("conn", "CHAIN")][0]
    (mx, my), (jx, jy) = pos["centre"][mcu.ref], pos["centre"][j1.ref]
    centre_mm = abs(mx - jx) + abs(my - jy)
    into = {c[2]: cable_mm(c[0], c[2]) for c in cables}
    strips = []
    for b in boards[1:]:
        p = pos[b.kind]
        refs = {x.ref: x for x in b.parts}
        strips.append(
            {
                "name": b.name,
                "cable": into[b.name],
                "in": p[b.part("J1").ref][0],
                "out": p[b.part("J2").ref][0],
                "buf": next((p[r][0] for r, x in refs.items() if x.value == design.BUS_BUFFER), None),
                "regs": [p[r][0] for r, x in refs.items() if x.value == "74HC165"],
            }
        )
    return centre_mm, strips


class _Net:
    def __init__(self):
        self.lines, self.n = [], 0
        self.probes = []  # (node, kind, label)

    def node(self):
        self.n += 1
        return "n%d" % self.n

    def line(self, a, kind, mm):
        b = self.node()
        if mm < 0.5:  # a few tenths of a millimetre: a wire
            self.lines.append("R%s %s %s 1m" % (b, a, b))
        else:
            self.lines.append("Y%s %s 0 %s 0 %s LEN=%g" % (b, a, b, kind, mm / 1000.0))
        return b

    def load(self, node, c, kind, label):
        self.lines.append("C%s %s 0 %g" % (node, node, c))
        self.probes.append((node, kind, label))

    def source(self, drv, period):
        """A driver: one edge up at 5 ns, down half a period later (no second rise inside
        the simulated period)."""
        r, tr = drv
        a, b = self.node(), self.node()
        self.lines.append(
            "V%s %s 0 PULSE(0 %g 5n %g %g %g %g)" % (a, a, VCC, tr, tr, period / 2 - tr, 10 * period)
        )
        self.lines.append("R%s %s %s %g" % (a, a, b, r))
        return b

    def resistor(self, a, ohm):
        b = self.node()
        self.lines.append("R%s %s %s %g" % (b, a, b, ohm))
        return b


def netlist_rev_a(centre_mm, strips, period):
    n = _Net()
    at = n.line(n.source(ESP32, period), "trace", centre_mm)
    for s in strips:
        tee = n.line(at, "cable", s["cable"])
        for k, x in enumerate(s["regs"]):
            n.load(n.line(tee, "trace", abs(x - s["in"])), C_REG, "reg", "%s/reg%d" % (s["name"], k))
        at = n.line(tee, "trace", abs(s["out"] - s["in"]))
    n.line(at, "cable", 300.0)  # the bar's OUT to the centre's RETURN, where the bus ends open
    return n


def netlist_rev_b(centre_mm, strips, period):
    n = _Net()
    # segment 0: the ESP32 through its termination resistor and the centre's trace
    src = n.line(n.resistor(n.source(ESP32, period), design.BUS_OHM), "trace", centre_mm)
    for i, s in enumerate(strips):
        end = n.line(src, "cable", s["cable"])
        n.load(n.line(end, "trace", abs(s["buf"] - s["in"])), C_BUF, "buf", "%s/buffer" % s["name"])
        # the buffer's output: each register through its own termination, the next cable
        # through another
        drv = n.source(LVC, period)
        for k, x in enumerate(s["regs"]):
            reg = n.line(n.resistor(drv, design.BUS_OHM), "trace", abs(x - s["buf"]))
            n.load(reg, C_REG, "reg", "%s/reg%d" % (s["name"], k))
        if i < len(strips) - 1:
            src = n.line(n.resistor(drv, design.BUS_OHM), "trace", abs(s["out"] - s["buf"]))
    return n


def simulate(net, period, workdir):
    """Run ngspice on ``net`` over one period; {label: (kind, times, volts)}."""
    models = [
        ".model %s txl R=%g L=%g G=0 C=%g length=1" % (k, v["R"], v["L"], v["C"]) for k, v in LINES.items()
    ]
    out = Path(workdir) / "v.dat"
    probes = " ".join("v(%s)" % p[0] for p in net.probes)
    text = "\n".join(
        ["* smartgammon chain bus"]
        + models
        + net.lines
        + [".control", "tran 0.05n %g" % (period + 10e-9), "wrdata %s %s" % (out, probes), ".endc", ".end"]
    )
    cir = Path(workdir) / "bus.cir"
    cir.write_text(text + "\n")
    r = subprocess.run([NGSPICE, "-b", str(cir)], capture_output=True, text=True, timeout=600)
    if not out.exists():  # (ngspice -b exits 1 with a .control block and no .print: fine)
        raise RuntimeError("ngspice failed: %s" % (r.stderr or r.stdout)[-2000:])
    rows = np.loadtxt(out, ndmin=2)
    return {
        label: (kind, rows[:, 2 * k], rows[:, 2 * k + 1]) for k, (_n, kind, label) in enumerate(net.probes)
    }


def crossings(times, volts, band, period):
    """Most crossings of any level in ``band`` (20 mV steps) on the rising edge and on the
    falling edge: ``(rising, falling, fewest)``; ``fewest`` is the least on either edge (0: a
    level never reached)."""
    t, v = np.asarray(times), np.asarray(volts)
    half = 5e-9 + period / 2
    levels = np.arange(band[0], band[1] + 1e-9, 0.02)[:, None]
    worst = []
    for lo, hi in ((0.0, half), (half, np.inf)):
        seg = v[(t >= lo) & (t < hi)]
        above = seg[None, :] > levels
        counts = np.count_nonzero(above[:, 1:] != above[:, :-1], axis=1)
        worst.append((int(counts.max()), int(counts.min())))
    return worst[0][0], worst[1][0], min(worst[0][1], worst[1][1])


def delay(times, volts, level=VCC / 2):
    hit = np.nonzero(np.asarray(volts) >= level)[0]
    return float(times[hit[0]]) - 5e-9 if len(hit) else math.inf


def run(board_json, clock_hz, workdir=None):
    """Both revisions at ``clock_hz``: {"rev A"/"rev B": {label: [rising, falling, fewest,
    delay ns]}} plus the figures of each revision."""
    centre_mm, strips = geometry(board_json)
    period = 1.0 / clock_hz
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rev, build in (("rev A", netlist_rev_a), ("rev B", netlist_rev_b)):
            if rev == "rev B" and any(s["buf"] is None for s in strips):
                continue
            res = simulate(build(centre_mm, strips, period), period, workdir or tmp)
            table = {}
            for label, (kind, t, v) in res.items():
                band = HC_BAND if kind == "reg" else LVC_BAND
                rise, fall, fewest = crossings(t, v, band, period)
                table[label] = [rise, fall, fewest, round(delay(t, v) * 1e9, 1)]
            out[rev] = table
    return out


def summary(result):
    """Per revision: the worst crossing counts over every input and the latest 50% point of
    one segment (rev B's segments add up: its total skew is the sum plus a buffer each)."""
    s = {}
    for rev, table in result.items():
        s[rev] = {
            "inputs": len(table),
            "max_crossings_per_edge": max(max(r[0], r[1]) for r in table.values()),
            "min_crossings_per_edge": min(r[2] for r in table.values()),
            "inputs_with_one_crossing": sum(1 for r in table.values() if r[0] == r[1] == r[2] == 1),
            "latest_50pct_ns": max(r[3] for r in table.values()),
        }
    return s


def main(argv):
    board_json = json.loads((ROOT / "hardware" / "board.json").read_text())
    clock = int(argv[0]) if argv else board_json["spi"]["baudrate"]
    why = ngspice_missing()
    if why:
        print(why)
        return 2
    result = run(board_json, clock)
    print(json.dumps({"clock_hz": clock, "summary": summary(result)}, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
