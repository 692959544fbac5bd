"""The LED rail's hardware current limit, solved by ngspice: what the rail gives at the
firmware's budget, at a runaway frame and into a short, at both ends of the limit's tolerance.

Usage::

    .venv/bin/python -m tools.hardware.ledlimit   # the figures as JSON

The switch (``design.LED_SWITCH``, Silergy SY6280AAC) is modelled by its datasheet's behaviour
(AN_SY6280: "I_lim (A) = 6800 / R_set (ohm)"): a pass element of ``RON_OHM`` whose current
cannot exceed ``K_ILIM`` times the current its ISET pin drives into the design's ISET resistor.
The ISET pin is a ``VREF_V`` source in the model, so the limit is 6800 / R whatever the
reference (the chip's own reference is not given in the table read here); the resistor is the
one the generated design puts on ISET, so a wrong resistor gives a wrong limit here.
``ACCURACY``: the limit's spread (+-25 %, the current-limit accuracy public designs quote from
the datasheet's table; the table itself was not read here), taken at both ends.

Loads are resistors drawing their current at 5 V: ``budget``, the firmware's frame budget plus
every LED's quiescent current (what the rail must always give); ``runaway``, every LED at full
white (a frame the budget did not scale: 3.1 A); ``short``, a cable shorted (10 mohm).

The window (``check``): the lowest limit must still give the rail at the budget, and the
highest must leave the ESP32's peak and the sensors inside the fuse's hold current, so a
runaway frame or a shorted strip never trips the fuse (nor browns out the ESP32).
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from . import design, misplug

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

NGSPICE = os.environ.get("GAMMON_NGSPICE", "ngspice")
K_ILIM = 6800.0  # A*ohm: I_lim = K_ILIM / R_ISET (AN_SY6280, ISET pin description)
ACCURACY = 0.25  # the limit's spread either way
RON_OHM = 0.1  # the pass element: an assumption (the part says "ultra-low"), not a datasheet figure
VREF_V = 1.0  # the ISET pin in the model (any value: the limit scales with 1 / R either way)
HC165_MA = 0.08  # 74HC165 supply current, max (power.md's figure)


def iset_ohm(centre):
    """The ISET resistor of the design's LED switch (ohm)."""
    for p in centre.parts:
        if p.role == ("led_iset",):
            return misplug.ohms(p.value)
    raise ValueError("the centre board has no LED current-limit resistor")


def loads_ma(board_json):
    """{load: mA drawn at 5 V}: the budget (plus quiescent), a runaway frame, a short."""
    leds = board_json["leds"]
    n = len(leds["chain"])
    quiescent = n * leds["idle_ma_per_led"]
    return {
        "budget": leds["budget_ma"] + quiescent,
        "runaway": n * 3 * leds["ma_per_channel"] + quiescent,
        "short": 5.0 / 0.010 * 1000.0,
    }


def ceiling_ma(board_json, centre):
    """The most the LED rail may take: the fuse's hold current less the ESP32's peak, the
    reed pull-ups with every checker and the canary closed, and the registers."""
    fuse = [p.value for p in centre.parts if p.role == ("fuse",)][0]
    hold = float(re.search(r"(\d+)mA", fuse).group(1))
    pw = board_json["power"]
    regs = len(board_json["sensors"]["registers"])
    pullups = (2 * pw["checkers_per_side"] + 1) * 3300.0 / pw["sensor_pullup_ohm"]
    return hold - pw["mcu_peak_ma"] - pullups - regs * HC165_MA


def solve(rset, loads, k):
    """{load: (mA out of the switch, volts at its output)} with limit constant ``k``."""
    lines = ["* LED rail current limit", "Vsup in 0 DC 5", "Vset iset 0 DC %g" % VREF_V]
    lines.append("Rset iset 0 %g" % rset)
    # I(Vset) is negative (the source drives Rset): the limit is k times its magnitude. The
    # pass element is RON_OHM for small currents and flattens at the limit (tanh: a smooth
    # corner Newton's method converges on; a hard min() does not from every start)
    lim = "(%g * abs(i(Vset)))" % k
    lines.append("Bsw in out I = %s * tanh(v(in,out) / (%g * %s))" % (lim, RON_OHM, lim))
    lines.append("Rload out 0 RL")
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, ma in loads.items():
            res = Path(tmp) / (name + ".txt")
            cir = Path(tmp) / (name + ".cir")
            body = [ln.replace("RL", "%g" % (5000.0 / ma)) for ln in lines]
            # the supply swept up from 0 V (each point starts from the last: the limiter's flat
            # top leaves a plain operating point without a slope to converge on); its last
            # point, 5 V, is the answer
            sweep = "dc Vsup 0 5 0.05"
            body += [".control", sweep, "print v(out)[100] vsup#branch[100] > %s" % res, ".endc", ".end"]
            cir.write_text("\n".join(body) + "\n")
            subprocess.run([NGSPICE, "-b", str(cir)], capture_output=True, text=True, timeout=60)
            if not res.exists():
                raise RuntimeError("ngspice gave no operating point (%s)" % name)
            vals = {}
            for ln in res.read_text().splitlines():
                if "=" in ln:
                    key, v = ln.split("=")
                    vals[key.strip().lower().replace("[100]", "")] = float(v)
            # the supply's branch current (negative: it sources) is the switch's alone: the
            # ISET pin has its own source in the model
            out[name] = (round(-vals["vsup#branch"] * 1000.0, 1), round(vals["v(out)"], 3))
    return out


def figures(board_json, rset=None):
    """The limit's figures for the design (or for ISET resistor ``rset``)."""
    boards, _ = design.system(board_json)
    centre = boards[0]
    rset = iset_ohm(centre) if rset is None else rset
    loads = loads_ma(board_json)
    corners = {}
    for corner, spread in (("low", -ACCURACY), ("nominal", 0.0), ("high", ACCURACY)):
        corners[corner] = solve(rset, loads, K_ILIM * (1 + spread))
    return {
        "rset_ohm": rset,
        "limit_ma": round(K_ILIM / rset * 1000.0, 1),
        "loads_ma": {k: round(v, 1) for k, v in loads.items() if k != "short"},
        "ceiling_ma": round(ceiling_ma(board_json, centre), 1),
        "corners": corners,
    }


def check(fig):
    """What is wrong with the limit (an empty list: nothing)."""
    errors = []
    need = fig["loads_ma"]["budget"]
    low = fig["corners"]["low"]
    if low["budget"][1] < 4.9:  # limiting: the rail collapses (loads are resistors here)
        errors.append(
            "the lowest limit gives %.0f mA at %.2f V: the rail needs %.0f mA at the budget"
            % (low["budget"][0], low["budget"][1], need)
        )
    worst = max(max(c["runaway"][0], c["short"][0]) for c in fig["corners"].values())
    if worst > fig["ceiling_ma"]:
        errors.append(
            "a runaway frame or a short draws %.0f mA: above the %.0f mA the fuse leaves the LEDs"
            % (worst, fig["ceiling_ma"])
        )
    return errors


def main(argv):
    board_json = json.loads((ROOT / "hardware" / "board.json").read_text())
    fig = figures(board_json)
    fig["errors"] = check(fig)
    print(json.dumps(fig, indent=1, sort_keys=True))
    return 1 if fig["errors"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
