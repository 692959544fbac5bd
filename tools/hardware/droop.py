"""DC model of the LED supply (5 V and its ground) through tracks, connector contacts and
cables, solved by ngspice (``.op``): the voltage every strip LED gets.

Usage::

    .venv/bin/python -m tools.hardware.droop   # the figures as JSON

The 5 V rail leaves the centre board on the CHAIN connector, runs through every strip (IN to
OUT along its power lane, with a branch to its LED) and comes back to the centre on the
RETURN connector: the strips hang on a ring fed from both ends. Per cable conductor: two
contact matings (``CONTACT_OHM``, JST SH's initial maximum) and the wire (``WIRE_OHM_M``, 28
AWG); the pin-out carries 5 V and ground on ``CHAIN_PINS.count`` pins each, in parallel. Track
resistance is copper 35 um thick at the width ``pcb.POWER_TRACK`` gives the supply nets (rev B)
or 0.25 mm (rev A). Positions along each strip and the cable lengths are those of
``bus.geometry`` (the generated placement).

Loads (``loads``): ``budget``, the firmware's LED budget (board.json ``leds.budget_ma``) drawn
by the strip LEDs alone, evenly (the centre's LEDs take none of it: the farthest place the
budget can go); ``full``, every strip LED at full white (3 x ``ma_per_channel``), what a
firmware fault could draw. The figure is the droop at the worst LED: 5 V minus its VDD - VSS.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from . import bus, design

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

NGSPICE = os.environ.get("GAMMON_NGSPICE", "ngspice")
CONTACT_OHM = 0.020  # JST SH: 20 mohm max initial contact resistance (AWG 28)
WIRE_OHM_M = 0.213  # 28 AWG copper
COPPER_OHM_MM = 0.0172 / 0.035  # 1 oz (35 um) copper: 0.49 ohm for a 1 mm x 1 m track
REV_A_TRACK = 0.25
CENTRE_RAIL_MM = 80.0  # the centre board's 5 V and ground from the fuse and bulk capacitor to each connector
LIMIT_V = 0.25


def track_ohm(mm, width):
    return COPPER_OHM_MM * mm / width / 1000.0


def _leds_per_strip(board_json):
    boards, _ = design.system(board_json)
    return {b.name: sum(1 for p in b.parts if p.value == "WS2812B") for b in boards[1:]}, boards


def _led_x(board_json):
    import csv

    out = {}
    for kind in ("point", "tray"):
        path = ROOT / "hardware" / "kicad" / kind / "fab" / ("%s-cpl-jlcpcb.csv" % kind)
        with open(path) as f:
            rows = {r[0]: float(r[1][:-2]) for r in list(csv.reader(f))[1:]}
        out[kind] = rows["D1"]
    return out


def netlist(board_json, width, ma_per_led):
    """The ring as an ngspice netlist; the LEDs' nodes as [(strip, 5 V node, ground node)]."""
    _centre_mm, strips = bus.geometry(board_json)
    count, boards = _leds_per_strip(board_json)
    kinds = {b.name: b.kind for b in boards}
    led_x = _led_x(board_json)
    pins5 = design.CHAIN_PINS.count("5V")
    pinsg = design.CHAIN_PINS.count("GND")
    lines = ["* smartgammon LED supply ring", "V5 c5 0 5"]
    n = [0]

    def r(a, b, ohm):
        n[0] += 1
        lines.append("R%d %s %s %g" % (n[0], a, b, max(ohm, 1e-6)))

    def cable(a5, ag, b5, bg, mm):
        per = 2 * CONTACT_OHM + WIRE_OHM_M * mm / 1000.0
        r(a5, b5, per / pins5)
        r(ag, bg, per / pinsg)

    rail = track_ohm(CENTRE_RAIL_MM, width)
    r("c5", "j1_5", rail)
    r("0", "j1_g", rail)
    r("c5", "j2_5", rail)
    r("0", "j2_g", rail)
    at5, atg = "j1_5", "j1_g"
    leds = []
    for i, s in enumerate(strips):
        in5, ing = "s%d_in5" % i, "s%d_ing" % i
        cable(at5, atg, in5, ing, s["cable"])
        out5, outg = "s%d_out5" % i, "s%d_outg" % i
        lane = abs(s["out"] - s["in"])
        r(in5, out5, track_ohm(lane, width))
        r(ing, outg, track_ohm(lane, width))
        if count[s["name"]]:
            d5, dg = "s%d_led5" % i, "s%d_ledg" % i
            branch = abs(s["in"] - led_x[kinds[s["name"]]])
            r(in5, d5, track_ohm(branch, width))
            r(ing, dg, track_ohm(branch, width))
            lines.append("I%d %s %s %gm" % (i, d5, dg, ma_per_led * count[s["name"]]))
            leds.append((s["name"], d5, dg))
        at5, atg = out5, outg
    cable(at5, atg, "j2_5", "j2_g", 300.0)  # the bar's OUT to the centre's RETURN
    return lines, leds


def solve(board_json, width, ma_per_led):
    """{strip: volts across its LED} at ``ma_per_led`` in every strip LED."""
    lines, leds = netlist(board_json, width, ma_per_led)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "op.txt"
        probes = " ".join("v(%s,%s)" % (a, b) for _n, a, b in leds)
        cir = Path(tmp) / "ring.cir"
        cir.write_text(
            "\n".join(lines + [".control", "op", "print %s > %s" % (probes, out), ".endc", ".end"]) + "\n"
        )
        subprocess.run([NGSPICE, "-b", str(cir)], capture_output=True, text=True, timeout=120)
        if not out.exists():
            raise RuntimeError("ngspice gave no operating point")
        vals = {}
        for ln in out.read_text().splitlines():
            if "=" in ln:
                k, v = ln.split("=")
                vals[k.strip().lower()] = float(v)
    return {name: vals["v(%s,%s)" % (a, b)] for name, a, b in leds}


def loads(board_json):
    count, _ = _leds_per_strip(board_json)
    n = sum(count.values())
    led = board_json["leds"]
    return {"budget": led["budget_ma"] / n, "full": 3 * led["ma_per_channel"] + led["idle_ma_per_led"]}


def figures(board_json, width):
    """{load: {"ma_total", "worst_led", "droop_v"}} at track ``width``."""
    count, _ = _leds_per_strip(board_json)
    n = sum(count.values())
    out = {}
    for name, ma in loads(board_json).items():
        v = solve(board_json, width, ma)
        worst = min(v, key=v.get)
        out[name] = {"ma_total": round(ma * n), "worst_led": worst, "droop_v": round(5.0 - v[worst], 3)}
    return out


def main(argv):
    from .footprints import POWER_TRACK

    board_json = json.loads((ROOT / "hardware" / "board.json").read_text())
    res = {"rev A": figures(board_json, REV_A_TRACK), "rev B": figures(board_json, POWER_TRACK["5V"])}
    print(json.dumps(res, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
