"""The battery option's boost inductor against the current it must carry without saturating.

Usage::

    .venv/bin/python -m tools.hardware.boost   # the figures as JSON

The boost (TI TPS61023, ``design._battery``) makes the board's 5 V supply from the cell. Its
inductor's saturation current must exceed the inductor's peak current at the worst operating
point: the cell at the board's cut-off (board.json ``battery.cutoff_mv``), the most the 5 V
supply can draw (the LED switch at the top of its limit's spread, ``ledlimit``, plus the
ESP32's peak, the reed pull-ups with every checker and the canary closed, and the registers),
a pessimistic efficiency, the inductor at the low end of its tolerance and the converter at
the low end of its switching frequency. Peak = the input current + half the ripple,
``Vin x D / (L x f)`` with ``D = 1 - Vin / Vout``.

Figures not read from TI's datasheet here (its PDF was not available) and where they come
from: the valley switch current limit (3.7 A) and the switching frequency range (0.5-1 MHz)
as the EDG parts library's TPS61023 model carries them (BerkeleyHCI/PolymorphicBlocks); the
inductor, Coilcraft XFL4020-102ME (1.0 uH +-20 %, the ``M`` of its order code), saturates at
5.4 A as TI's recommended-inductor tables for its siblings list it (TPS63070, TPS61021A).
"""

import json
import re
import sys

from . import design, ledlimit

VOUT_V = 5.0  # 0.6 V x (1 + 732k / 100k), design._battery
EFFICIENCY = 0.7  # pessimistic: board.json's 0.88 is the typical figure at the play load
FREQ_MIN_HZ = 0.5e6  # the low end of the converter's switching frequency (EDG's model)
VALLEY_LIMIT_A = 3.7  # the converter's valley switch current limit (EDG's model)
# the inductor as ordered (parts.ORDER["1u"]): nominal uH, tolerance, saturation current (A)
INDUCTOR = {"mpn": "Coilcraft XFL4020-102MEC", "uh": 1.0, "tolerance": 0.20, "isat_a": 5.4}


def load_ma(board_json):
    """The most the boost's 5 V output can be asked for (mA)."""
    centre = design.system(board_json)[0][0]
    led_top = ledlimit.K_ILIM * (1 + ledlimit.ACCURACY) / ledlimit.iset_ohm(centre) * 1000.0
    fuse = [p.value for p in centre.parts if p.role == ("fuse",)][0]
    hold = float(re.search(r"(\d+)mA", fuse).group(1))
    # the ESP32's peak, the pull-ups and the registers: what the fuse's hold current keeps
    # back from the LED rail (ledlimit.ceiling_ma)
    rest = hold - ledlimit.ceiling_ma(board_json, centre)
    return led_top + rest


def figures(board_json, inductor=None):
    """The inductor's worst operating point: input and peak current, and its rating (A)."""
    ind = INDUCTOR if inductor is None else inductor
    vin = board_json["battery"]["cutoff_mv"] / 1000.0
    iout = load_ma(board_json) / 1000.0
    iin = VOUT_V * iout / (vin * EFFICIENCY)
    henry = ind["uh"] * (1 - ind["tolerance"]) * 1e-6
    ripple = vin * (1 - vin / VOUT_V) / (henry * FREQ_MIN_HZ)
    return {
        "inductor": ind["mpn"],
        "vin_v": vin,
        "load_ma": round(iout * 1000.0, 1),
        "input_a": round(iin, 2),
        "ripple_a": round(ripple, 2),
        "peak_a": round(iin + ripple / 2, 2),
        "isat_a": ind["isat_a"],
        "valley_limit_a": VALLEY_LIMIT_A,
    }


def check(fig):
    """What is wrong with the inductor (an empty list: nothing)."""
    if fig["peak_a"] >= fig["isat_a"]:
        why = "the boost inductor peaks at %.2f A with the cell at %.1f V and %.0f mA out: "
        why += "above its %.1f A saturation current"
        return [why % (fig["peak_a"], fig["vin_v"], fig["load_ma"], fig["isat_a"])]
    return []


def main(argv):
    with open(argv[0] if argv else str(ledlimit.ROOT / "hardware" / "board.json")) as f:
        fig = figures(json.load(f))
    print(json.dumps(fig, indent=1))
    return 1 if check(fig) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
